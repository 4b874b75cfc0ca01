"""The main loop (CraftAssist, fig. 5): step the task on top of the stack, act in the world, file
what the agent sees in memory, and end loops whose stop condition holds."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mineclip.play.agents import MOVE, grid_move
from mineclip.sim.env import CrafterEnv
from mineclip.sim.state import WorldState, object_kind

from .jobs import CANCELLED, FAILED, Loop, SkillTask, Task
from .memory import Memory

DEFEND = "defend myself from the zombie"
THIRST = "drink: I'm thirsty"
HUNGER = "eat: I'm hungry"
GRID_MOVES = {a: d for d, a in MOVE.items()}  # crafter's move action -> (dx, dy)


@dataclass
class Snapshot:
    """The world at one moment: state, materials, objects, and the index of its frame."""

    state: WorldState
    materials: np.ndarray  # material id per tile [64, 64]
    objects: list[tuple[str, tuple[int, int]]]
    frame: int
    names: dict[int, str]

    def tiles(self, material: str) -> set[tuple[int, int]]:
        ids = [i for i, n in self.names.items() if n == material]
        return {(int(x), int(y)) for x, y in np.argwhere(np.isin(self.materials, ids))} if ids else set()

    def objects_of(self, kind: str) -> set[tuple[int, int]]:
        return {p for k, p in self.objects if k == kind}


class Executor:
    """Runs the task stack in a crafter world; keeps the frames a command's judge and recording need."""

    def __init__(self, env: CrafterEnv, memory: Memory, seed: int = 0, keep_all_frames: bool = False):
        self.env, self.memory, self.seed = env, memory, seed
        self.stack: list[Task] = []
        self.frames: list[np.ndarray] = []
        self.frame_base = 0  # index of self.frames[0] in the whole session
        self.keep_all_frames = keep_all_frames
        self.keep_from: int | None = None  # oldest frame still needed
        self.emptied = None  # the tile the scripted skills last mined empty
        self.mined: set[tuple[int, int]] = set()  # tiles this session mined to path (not to be built back on)
        self.total_steps = 0
        self._seeds = 0
        self.dead = False
        self.actions: list[int] = []  # per world step of the session
        self.events: list[list[str]] = []
        self.after_step: list = []  # callables run after every world step

    # -- the world ------------------------------------------------------------------------------
    @property
    def state(self) -> WorldState:
        return self.env.state

    @property
    def pos(self) -> tuple[int, int]:
        return tuple(int(v) for v in self.env.player.pos)

    @property
    def facing(self) -> tuple[int, int]:
        return tuple(int(v) for v in self.env.player.facing)

    def next_seed(self) -> int:
        self._seeds += 1
        return self.seed * 1000 + self._seeds

    def add_frame(self, frame: np.ndarray) -> None:
        self.frames.append(frame)
        keep = len(self.frames) - 64 if self.keep_from is None else self.keep_from - self.frame_base
        if not self.keep_all_frames and keep > 256:  # drop frames no open command needs
            self.frames = self.frames[keep:]
            self.frame_base += keep

    @property
    def frame_index(self) -> int:
        """Index (in the whole session) of the latest frame."""
        return self.frame_base + len(self.frames) - 1

    def frames_between(self, start: int, end: int) -> np.ndarray:
        """Frames start..end (session indices, inclusive) as uint8 [N, 160, 256, 3]."""
        return np.stack(self.frames[start - self.frame_base:end - self.frame_base + 1])

    def snapshot(self) -> Snapshot:
        world = self.env.world
        objs = [(object_kind(o), (int(o.pos[0]), int(o.pos[1]))) for o in world.objects
                if object_kind(o) != "player"]
        return Snapshot(self.state, world._mat_map.copy(), objs, self.frame_index,
                        {int(i): n for n, i in world._mat_ids.items()})

    # -- the stack ------------------------------------------------------------------------------
    def push(self, task: Task, parent: Task | None = None) -> None:
        if parent is not None:
            parent.children.append(task)
        self.stack.append(task)

    def cancel_all(self) -> list[Task]:
        """Cancel every task on the stack (STOP); returns them, top first."""
        cancelled = self.stack[::-1]
        for t in cancelled:
            t.finish(CANCELLED, "stopped")
            self._finished(t)
        self.stack = []
        return cancelled

    def cancel(self, task: Task) -> list[Task]:
        """Cancel one task and everything above it on the stack (its sub-tasks, reflexes); returns
        them, top first. The tasks below stay, paused until the next run."""
        i = self.stack.index(task)
        cancelled = self.stack[i:][::-1]
        for t in cancelled:
            t.finish(CANCELLED, "stopped")
            self._finished(t)
        del self.stack[i:]
        return cancelled

    def _finished(self, task: Task) -> None:
        if task.on_finish is not None:
            task.on_finish(task)
            task.on_finish = None

    def run(self, budget: int) -> int:
        """Work on the stack for at most `budget` world steps; returns the steps taken."""
        taken, idle = 0, 0
        while self.stack and taken < budget and not self.dead:
            self._reflexes()
            task = self.stack[-1]
            if task.status == "pending":
                task.status = "running"
                try:
                    task.start(self)
                except Exception as e:  # noqa: BLE001 (a plan that cannot be made fails its task, not the session)
                    task.finish(FAILED, f"could not plan: {e}")
            action = None if task.finished else task.step(self)
            if task.finished:
                self.stack.remove(task)
                self._finished(task)
                continue
            if action is None:
                idle += 1
                if idle > 10_000:
                    raise RuntimeError(f"task {task.label!r} makes no progress")
                continue
            idle = 0
            self.act(int(action), task)
            taken += 1
        return taken

    def _reflexes(self) -> None:
        """Needs that interrupt whatever the agent does (the interrupted task resumes afterwards): a
        zombie next to it is fought, thirst and hunger are answered before they cost health."""
        labels = {t.label for t in self.stack}
        inv = self.state.inventory
        if DEFEND not in labels and any(abs(dx) + abs(dy) <= 1 for dx, dy in self.state.view.get("zombie", [])):
            self.push(SkillTask(DEFEND, [{"fight": "zombie"}], limit=60))
        elif THIRST not in labels and inv.get("drink", 9) <= 2 and self.memory.nearest("water", self.pos):
            self.push(SkillTask(THIRST, [{"drink": 9 - inv.get("drink", 0)}], limit=150))
        elif HUNGER not in labels and inv.get("food", 9) <= 2 and self.state.view.get("cow"):
            self.push(SkillTask(HUNGER, [{"fight": "cow"}], limit=100))

    def act(self, action: int, task: Task | None = None) -> None:
        """One world step: act, keep the frame, file the view, end loops that may stop. A task that
        is not `view_native` gives crafter's grid moves; in first person they are made in the view's
        controls (turn until facing that way, then forward: `play.agents.grid_move`)."""
        if getattr(self.env, "view", "top") != "top" and not (task is not None and task.view_native) \
                and action in GRID_MOVES:
            action, _ = grid_move(self.env, GRID_MOVES[action], self.actions[-1] if self.actions else None)
        ahead = (self.pos[0] + self.facing[0], self.pos[1] + self.facing[1])
        was = self.env.world[ahead][0]
        obs, _, _, _, info = self.env.step(action)
        if was != "path" and self.env.world[ahead][0] == "path":
            self.mined.add(ahead)
        self.total_steps += 1
        self.actions.append(int(action))
        self.events.append(list(info["events"]))
        if task is not None:
            task.steps += 1
        self.add_frame(obs)
        self.memory.observe(self.state)
        for hook in self.after_step:
            hook()
        if self.env.player.health <= 0:
            self.dead = True
            for t in self.stack[::-1]:
                t.finish(FAILED, "I died")
                self._finished(t)
            self.stack = []
            return
        for i, t in enumerate(self.stack):
            if isinstance(t, Loop) and t.status == "running" and t.stop(self):
                for above in self.stack[:i:-1]:
                    above.finish(CANCELLED, "the loop's stop condition holds")
                    self._finished(above)
                del self.stack[i + 1:]
                break
