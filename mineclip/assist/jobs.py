"""The assistant's jobs: interruptible, resumable tasks on a stack (CraftAssist, sec. 3). At each
step a task either returns an action for the world, pushes sub-tasks (which run first, then it
resumes), or finishes.

    SkillTask    runs skills of the scripted agent (mineclip.play.agents) for one sub-goal
    WalkTo       walks onto (or next to) a position; ActAt acts on one tile (mine it back, fill it)
    WalkDir      walks N steps in a direction
    Turn         turns on the spot (first person; from above a player turns by moving)
    Sequence     pushes its sub-tasks one after the other (planned when it starts)
    Loop         repeats a sub-task until its stop condition holds (checked after every step)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from mineclip.play.agents import DIRS, MOVE, NOOP, WALKABLE, ScriptedAgent
from mineclip.sim.engine import ACTION_IDS
from mineclip.sim.view import action_id, turn, turn_toward

from .navigate import face_path, step_toward, walkable

if TYPE_CHECKING:
    from .executor import Executor

DONE, FAILED, CANCELLED = "done", "failed", "cancelled"
DEFAULT_LIMIT = 300  # steps a leaf task may take before it gives up


class Task:
    """A step-wise task; `step` returns an action id, or None after pushing sub-tasks or finishing."""

    kind = "task"
    view_native = False  # its actions are the env view's (else crafter's grid moves, which the executor
    # makes in the view's controls: `sim.view.move_action`)

    def __init__(self, label: str, limit: int = DEFAULT_LIMIT):
        self.label = label
        self.limit = limit
        self.status = "pending"
        self.reason = ""
        self.children: list[Task] = []
        self.steps = 0  # world steps this task (not its sub-tasks) took
        self.on_finish: Callable[[Task], None] | None = None

    @property
    def finished(self) -> bool:
        return self.status in (DONE, FAILED, CANCELLED)

    def start(self, ex: Executor) -> None:
        """Called once, when the task first reaches the top of the stack."""

    def step(self, ex: Executor) -> int | None:
        raise NotImplementedError

    def finish(self, status: str, reason: str = "") -> None:
        self.status, self.reason = status, reason or self.reason

    def to_dict(self) -> dict:
        """The task and its sub-tasks, for replies and JSON output."""
        d = {"task": self.kind, "label": self.label, "status": self.status, "steps": self.steps}
        if self.reason:
            d["reason"] = self.reason
        if self.children:
            d["subtasks"] = [c.to_dict() for c in self.children]
        return d


class SkillTask(Task):
    """Skills of the scripted agent (`solution` steps such as {"obtain": "wood", "count": 3}); `plan`
    may be a function of the executor, evaluated when the task starts; `check` decides done/failed."""

    kind = "skill"
    view_native = True  # the scripted agent acts in the env's view's controls

    def __init__(self, label: str, plan, check: Callable[[Executor], bool] | None = None,
                 limit: int = DEFAULT_LIMIT):
        super().__init__(label, limit)
        self.plan, self.check = plan, check

    def start(self, ex):
        solution = self.plan(ex) if callable(self.plan) else self.plan
        self.agent = ScriptedAgent(solution, seed=ex.next_seed(), give_up=self.limit)
        self.agent.reset(ex.env)
        self.agent._emptied = ex.emptied  # never place back into the hole mined just before (agents.py)

    def step(self, ex):
        if self.steps >= self.limit:
            self.finish(FAILED, f"gave up after {self.steps} steps")
            return None
        action = self.agent.act(ex.env)
        ex.emptied = self.agent._emptied
        if self.agent.done:
            ok = self.check(ex) if self.check else True
            self.finish(DONE if ok else FAILED, "" if ok else "the skill ended without reaching its goal")
            return None
        return action


class WalkTo(Task):
    """Walk onto a position (or next to it, facing it, when `onto` is False or it cannot be stood on)."""

    kind = "walk"

    def __init__(self, label: str, pos: tuple[int, int], onto: bool = True, limit: int = DEFAULT_LIMIT):
        super().__init__(label, limit)
        self.pos, self.onto = tuple(pos), onto

    def step(self, ex):
        if self.steps >= self.limit:
            self.finish(FAILED, f"could not get there in {self.steps} steps")
            return None
        action = step_toward(ex.env.world, ex.pos, ex.facing, self.pos, self.onto)
        if action is None:
            self.finish(DONE)
        elif action < 0:
            self.finish(FAILED, "no way there")
            return None
        return action


class ActAt(Task):
    """Walk next to a tile, face it and act on it once (`do` mines a placed stone back, `place_stone` fills)."""

    kind = "act"

    def __init__(self, label: str, pos: tuple[int, int], action: str, check: Callable[[Executor], bool],
                 limit: int = DEFAULT_LIMIT):
        super().__init__(label, limit)
        self.pos, self.action, self.check, self.acted = tuple(pos), action, check, False

    def step(self, ex):
        if self.acted:
            ok = self.check(ex)
            self.finish(DONE if ok else FAILED, "" if ok else f"{self.action} had no effect")
            return None
        if self.steps >= self.limit:
            self.finish(FAILED, f"could not get there in {self.steps} steps")
            return None
        moves = face_path(ex.env.world, ex.pos, ex.facing, self.pos)
        if moves is None:
            self.finish(FAILED, "no way there")
            return None
        if not moves:
            self.acted = True
            return ACTION_IDS[self.action]
        return MOVE[moves[0]]


class Tunnel(Task):
    """Dig a straight tunnel into the nearest run of `n` rock tiles (found when the task starts): stand
    before it facing it, then mine and step in, `n` times."""

    kind = "dig"

    def __init__(self, label: str, n: int, limit: int = DEFAULT_LIMIT):
        super().__init__(label, limit)
        self.n = n
        self.dug, self.mined = 0, False

    def start(self, ex):
        from .sites import find_rock_run

        run = find_rock_run(ex.env.world, ex.pos, self.n)
        if run is None:
            raise ValueError(f"no straight run of {self.n} rock tiles nearby")
        self.first, self.direction = run

    def step(self, ex):
        if self.dug >= self.n:
            self.finish(DONE)
            return None
        if self.steps >= self.limit:
            self.finish(FAILED, f"dug {self.dug} of {self.n} in {self.steps} steps")
            return None
        if self.dug == 0 and not self.mined:
            entrance = (self.first[0] - self.direction[0], self.first[1] - self.direction[1])
            if ex.pos != entrance or ex.facing != self.direction:
                moves = face_path(ex.env.world, ex.pos, ex.facing, self.first, direction=self.direction)
                if moves is None:
                    self.finish(FAILED, "no way to the rock")
                    return None
                if moves:
                    return MOVE[moves[0]]
        ahead = (ex.pos[0] + ex.facing[0], ex.pos[1] + ex.facing[1])
        if not self.mined:
            if ex.env.world[ahead][0] != "stone":
                self.finish(FAILED, f"no more rock ahead after {self.dug}")
                return None
            self.mined = True
            return ACTION_IDS["do"]
        if ex.env.world[ahead][0] == "stone":  # the hit did not mine it (no pickaxe?)
            self.finish(FAILED, "the rock did not break")
            return None
        self.mined, self.dug = False, self.dug + 1
        return MOVE[self.direction]


class WalkDir(Task):
    """Walk `n` steps in a screen direction (LEFT, RIGHT, UP, DOWN) or relative to the facing (FORWARD,
    BACK); stops where the way is blocked, and before lava."""

    kind = "walk"

    def __init__(self, label: str, direction: str, n: int, egocentric: bool = False):
        super().__init__(label, limit=2 * n + 6)
        self.direction, self.n, self.waited, self.egocentric = direction, n, 0, egocentric
        self.goal: tuple[int, int] | None = None

    def start(self, ex):
        self.vector = direction_vector(self.direction, ex.facing, self.egocentric)
        self.goal = (ex.pos[0] + self.vector[0] * self.n, ex.pos[1] + self.vector[1] * self.n)

    def step(self, ex):
        if ex.pos == self.goal:
            self.finish(DONE)
            return None
        ahead = (ex.pos[0] + self.vector[0], ex.pos[1] + self.vector[1])
        material, obj = ex.env.world[ahead]
        if obj is not None and material in WALKABLE and self.waited < 4:  # a creature in the way: wait for it
            self.waited += 1
            return NOOP
        if not walkable(ex.env.world, ahead) or self.steps >= self.limit:
            what = type(obj).__name__.lower() if obj is not None else material
            self.finish(FAILED, f"blocked by {what} after {self.steps - self.waited} steps")
            return None
        return MOVE[self.vector]


def direction_vector(direction: str, facing: tuple[int, int], egocentric: bool = False) -> tuple[int, int]:
    """(dx, dy) of a direction of the schema: LEFT, RIGHT, UP, DOWN on the screen, or, `egocentric`,
    relative to the facing (LEFT and RIGHT the body's, UP and DOWN forward and back); FORWARD and
    BACK always relative to the facing."""
    if direction in ("FORWARD", "UP") if egocentric else direction == "FORWARD":
        return tuple(facing)
    if direction in ("BACK", "DOWN") if egocentric else direction == "BACK":
        return (-facing[0], -facing[1])
    if egocentric:
        return turn(facing, direction.lower())
    return DIRS[direction.lower()]


class Turn(Task):
    """Turn on the spot to face `goal`: in first person with the view's turns; from above a player
    faces a way only by moving, so with crafter's move that way (a step when the tile is free)."""

    kind = "turn"
    view_native = True

    def __init__(self, label: str, turn_: str):
        super().__init__(label, limit=4)
        self.turn_ = turn_
        self.goal: tuple[int, int] | None = None

    def start(self, ex):
        f = ex.facing
        self.goal = (-f[0], -f[1]) if self.turn_ == "AROUND" else turn(f, self.turn_.lower())

    def step(self, ex):
        if ex.facing == self.goal:
            self.finish(DONE)
            return None
        if self.steps >= self.limit:
            self.finish(FAILED, f"still facing {ex.facing} after {self.steps} steps")
            return None
        view = getattr(ex.env, "view", "top")
        if view == "first_person":
            return action_id(view, turn_toward(ex.facing, self.goal))
        return MOVE[self.goal]


class Sequence(Task):
    """Sub-tasks one after the other, planned by `build(executor)` when the sequence starts;
    `check` decides done/failed at the end. A sub-task that fails fails the sequence."""

    kind = "command"

    def __init__(self, label: str, build: Callable[[Executor], list[Task]],
                 check: Callable[[Executor], bool] | None = None):
        super().__init__(label, limit=10 ** 9)
        self.build, self.check = build, check
        self.queue: list[Task] = []

    def start(self, ex):
        self.queue = list(self.build(ex))

    def step(self, ex):
        failed = [c for c in self.children if c.status == FAILED]
        if failed:
            self.finish(FAILED, f"{failed[-1].label}: {failed[-1].reason}")
            return
        if self.queue:
            ex.push(self.queue.pop(0), parent=self)
            return
        ok = self.check(ex) if self.check else True
        self.finish(DONE if ok else FAILED, "" if ok else "finished, but the goal does not hold")
        return


class Loop(Task):
    """Repeat `make(executor)`'s task until `stop(executor)` holds (checked after every world step)."""

    kind = "loop"

    def __init__(self, label: str, make: Callable[[Executor], Task], stop: Callable[[Executor], bool],
                 max_iterations: int = 20):
        super().__init__(label, limit=10 ** 9)
        self.make, self.stop, self.max_iterations = make, stop, max_iterations

    def step(self, ex):
        if self.stop(ex):
            self.finish(DONE)
            return
        if self.children and self.children[-1].status == FAILED:
            self.finish(FAILED, f"{self.children[-1].label}: {self.children[-1].reason}")
            return
        if len(self.children) >= self.max_iterations:
            self.finish(FAILED, f"stopped after {self.max_iterations} rounds")
            return
        ex.push(self.make(ex), parent=self)
        return
