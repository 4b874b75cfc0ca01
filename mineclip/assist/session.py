"""One chat with the assistant in a fresh crafter world (empty inventory): messages in, replies and
what happened out. The library API under `mineclip assist` (and a chat page):

    session = AssistSession(world_seed=1000, model="runs/default/artifact")
    out = session.send("place a stone next to the tree")
    out["reply"], out["success"], out["judge"]["score"], out["tasks"], out["steps"]
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

import numpy as np

from mineclip.sim.env import CrafterEnv
from mineclip.sim.view import DEFAULT_VIEW, check_view

from .dialogue import DialogueManager, Handled
from .executor import Executor, Snapshot
from .intent import Intent, referent_of
from .jobs import DONE, Task
from .judge import CommandJudge, intent_atoms
from .memory import Memory
from .outcome import ground_truth, placed
from .parser.infer import cached_parser, load_parser
from .plan import make_task
from .recording import Recorder
from .view import render_view

DEFAULT_STEPS = 600  # world steps a message may set going before the agent replies


@dataclass
class Command:
    """A command being carried out: its intent, task, the world when it started, and its result."""

    turn: int
    text: str
    intent: Intent
    action_dict: dict
    task: Task
    before: Snapshot
    memory_id: int
    trace: list[bool] = field(default_factory=list)  # ground truth after each step
    result: dict | None = None
    after: Snapshot | None = None  # the world when it finished


def _no_judge(reason: str) -> dict:
    return {"score": None, "skipped": reason}


class AssistSession:
    """A chat in a fresh world of `world_seed`: `send(text) -> dict` with the keys action_dict, tasks,
    steps, success, judge, reply (and turn, dialogue_type, ground_truth, clarification, pending, view,
    finished, cost). `model`: an artifact folder, a RewardModel or a CommandJudge (None: no judge).
    `record_dir`: write each carried-out command as a labelled trajectory. `init`: extra initial
    conditions of the world (tests); `video`: keep every frame for `save_video`; `view`: what the
    agent sees and how it moves (`mineclip.sim.view.VIEWS`: `top`, crafter's, or `first_person`)."""

    def __init__(self, world_seed: int, model=None, *, parser: str | os.PathLike | None = None,
                 record_dir: str | os.PathLike | None = None, max_steps: int = DEFAULT_STEPS,
                 judge_threshold: float | None = None, init: dict | None = None, video: bool = False,
                 view: str = DEFAULT_VIEW):
        if not 0 <= int(world_seed) < 2 ** 32:
            raise ValueError(f"expected a world seed from 0 to 2**32 - 1, got {world_seed}")
        if int(max_steps) < 1:  # none left every command pending for ever ("0 steps so far")
            raise ValueError(f"max_steps is the world steps one message may take, at least 1, got {max_steps}")
        self.world_seed = int(world_seed)
        self.max_steps = int(max_steps)
        self.view_name = check_view(view)
        self.env = CrafterEnv({"naive": True, **(init or {})}, max_steps=10 ** 9, view=self.view_name)
        obs, _ = self.env.reset(seed=self.world_seed, options={"world_seed": self.world_seed})
        self.memory = Memory()
        self.ex = Executor(self.env, self.memory, seed=self.world_seed, keep_all_frames=video)
        self.ex.add_frame(obs)
        self.memory.observe(self.env.state)
        self.judge = self._judge(model, judge_threshold)
        self.parser = cached_parser(None) if parser is None else load_parser(parser)
        self.manager = DialogueManager(self.parser, self.ex, self.judge)
        self.recorder = Recorder(record_dir) if record_dir else None
        self.turn = 0
        self.open: list[Command] = []
        self.done: list[Command] = []
        self.ex.after_step.append(self._trace)

    @staticmethod
    def _judge(model, threshold: float | None) -> CommandJudge | None:
        if model is None or isinstance(model, CommandJudge):
            return model
        if isinstance(model, (str, os.PathLike)):
            return CommandJudge.load(model, threshold)
        return CommandJudge(model, threshold, "given" if threshold is not None else "")

    # -- one message -------------------------------------------------------------------------------
    def send(self, text: str) -> dict:
        """Handle one message: reply, carry out what it asks (up to `max_steps` world steps), check it."""
        t0 = time.perf_counter()
        self.turn += 1
        first_done = len(self.done)
        if self.ex.dead:
            return self._result(text, Handled("I died in this world (health 0). Start a new session."), None, 0, t0)
        handled = self.manager.handle(text, current="; ".join(c.task.label for c in self.open) or None, turn=self.turn)
        if handled.dialogue_type is not None:
            self.memory.log_chat("user", text, self.ex.total_steps)
        if handled.stop:
            handled.reply = self._stop(handled.stop)
        cmd, steps = None, 0
        t_run = time.perf_counter()
        if handled.intent is not None:
            ref = referent_of(handled.intent)
            if ref is not None:
                self.memory.note_referent(self.turn, *ref)
            cmd = self._start(handled)
            steps = self.ex.run(self.max_steps)
        elif handled.resume:
            steps = self.ex.run(self.max_steps)
        run_ms = (time.perf_counter() - t_run) * 1000
        out = self._result(text, handled, cmd, steps, t0, self.done[first_done:], run_ms)
        if handled.note:
            out["reply"] += handled.note
            out["clarification"] = out["clarification"] or self.manager.stack[-1].question.question
        if handled.dialogue_type is not None:
            self.memory.log_chat("agent", out["reply"], self.ex.total_steps)
        return out

    def _stop(self, which: str) -> str:
        """'stop': the newest of the request waiting on the dialogue stack and the commands on the task
        stack ('all': every one of them); the reply."""
        waiting = self.manager.stack[-1] if self.manager.stack else None
        running = max(self.open, key=lambda c: c.turn) if self.open else None
        if which == "all":
            cancelled = self.ex.cancel_all()
            forgot = len(self.manager.stack)
            self.manager.stack.clear()
            if not cancelled and not forgot:
                return "I wasn't doing anything."
            return (f"Stopped everything: cancelled {len(cancelled)} task{'s' if len(cancelled) != 1 else ''}"
                    + (f" and forgot {forgot} question{'s' if forgot != 1 else ''}." if forgot else "."))
        if waiting is None and running is None:
            if self.ex.stack:  # a reflex on its own
                cancelled = self.ex.cancel_all()
                return f"Stopped: cancelled {', '.join(repr(t.label) for t in cancelled[-1:])}."
            return "I wasn't doing anything."
        if waiting is not None and (running is None or waiting.turn > running.turn):
            self.manager.stack.pop()
            return f"OK, forget '{waiting.text}' (I had asked: {waiting.question.question})" + self.manager._waiting()
        self.ex.cancel(running.task)
        rest = [c for c in self.open if c is not running]
        return f"Stopped: cancelled '{running.task.label}'." + (
            f" Still on the stack: {', '.join(repr(c.task.label) for c in rest)} (say 'resume' to carry on, 'stop' "
            "to cancel it too)." if rest else "")

    def _start(self, handled: Handled) -> Command:
        task = make_task(handled.intent, self.ex)
        before = self.ex.snapshot()
        mid = self.memory.add_task(self.turn, task.label, handled.action_dict, self.ex.total_steps)
        cmd = Command(self.turn, handled.intent.text, handled.intent, handled.action_dict, task, before, mid)
        task.on_finish = lambda t: self._finish(cmd)
        self.ex.push(task)
        self.open.append(cmd)
        self._keep_frames()
        return cmd

    def _trace(self) -> None:
        if self.open:
            snap = self.ex.snapshot()
            for c in self.open:
                c.trace.append(ground_truth(c.intent, c.before, snap)[0])

    def _keep_frames(self) -> None:
        self.ex.keep_from = min((c.before.frame for c in self.open), default=None)

    def _finish(self, cmd: Command) -> None:
        after = self.ex.snapshot()
        ok, why = ground_truth(cmd.intent, cmd.before, after)
        effects: dict = {}
        if cmd.task.status == DONE and cmd.intent.action == "BUILD" and cmd.intent.shape != "BRIDGE":
            effects["placed"] = [[x, y, cmd.intent.thing] for x, y in sorted(placed(cmd.intent.thing, cmd.before,
                                                                                    after))]
        if cmd.task.status == DONE and cmd.intent.action == "MOVE":
            effects["moved_from"] = list(cmd.before.state.pos)
        self._file_built(cmd, after)
        if cmd.intent.action == "UNDO" and ok:
            self.memory.tag(f"task:{cmd.intent.undo_of['id']}", "undone", "true")
        self.memory.end_task(cmd.memory_id, cmd.task.status, self.ex.total_steps, effects)
        t0 = time.perf_counter()
        judge, frames = self._judge_command(cmd, after)
        cmd.after = after
        cmd.result = {"judge_ms": round((time.perf_counter() - t0) * 1000, 1), "success": bool(ok), "ground_truth": {"success": bool(ok), "why": why,
                                                            "task_status": cmd.task.status},
                      "judge": judge, "steps": after.frame - cmd.before.frame}
        if self.recorder is not None and frames is not None:
            start, end = cmd.before.frame, after.frame
            rec = self.recorder.write(
                f"assist-{self.recorder.tag}-w{self.world_seed}-t{cmd.turn}-c{cmd.memory_id}", cmd.text, frames, ok, self.world_seed,
                self.ex.actions[start:end], self.ex.events[start:end], cmd.trace[:end - start] or [bool(ok)],
                {"action_dict": cmd.action_dict, "tasks": cmd.task.to_dict(), "judge": judge, "turn": cmd.turn})
            cmd.result["record"] = rec["id"]
        self.open.remove(cmd)
        self.done.append(cmd)
        self._keep_frames()

    def _file_built(self, cmd: Command, after: Snapshot) -> None:
        """Keep the objects the agent built in memory: forget what is gone, file what this command placed
        (connected to what it touches), and make it what 'it' means next."""
        self.memory.prune_built(lambda t, block: t in (after.objects_of(block) if block == "plant" else
                                                        after.tiles(block)))
        i, before = cmd.intent, cmd.before
        new, block, shape = set(), None, None
        if i.action == "BUILD" and i.shape == "BRIDGE":
            new, shape = before.tiles("water") & (after.tiles("path") | after.tiles("stone")), "bridge"
            block = "stone" if new <= after.tiles("stone") else "path"
        elif i.action == "BUILD":
            new, block = placed(i.thing, before, after), i.thing
        elif i.action == "DIG":
            new, block, shape = before.tiles("stone") & after.tiles("path"), "path", "tunnel"
        if new:
            oid = self.memory.add_built(new, block, cmd.memory_id, self.ex.total_steps, shape)
            self.memory.note_referent(cmd.turn, None, None, oid)

    def _judge_command(self, cmd: Command, after: Snapshot) -> tuple[dict, np.ndarray | None]:
        n = after.frame - cmd.before.frame
        frames = self.ex.frames_between(cmd.before.frame, after.frame) if n >= 1 else None
        if self.judge is None:
            return _no_judge("no model given (--model ARTIFACT)"), frames
        if frames is None:
            return _no_judge("the command took no steps: no frames to judge"), frames
        return self.judge.score_command(cmd.text, frames, intent_atoms(cmd.intent)).to_dict(), frames

    # -- replies ---------------------------------------------------------------------------------------
    def _result(self, text: str, handled: Handled, cmd: Command | None, steps: int, t0: float,
                finished: list[Command] = (), run_ms: float = 0.0) -> dict:
        reply = handled.reply
        success = bool(handled.answered)
        judge = _no_judge("nothing was carried out")
        truth = {"success": None, "why": "nothing to check: no command was carried out"}
        tasks: list[dict] = []
        pending = False
        if cmd is not None:
            tasks = [cmd.task.to_dict()]
            if cmd.result is None:
                pending = True
                reply = (f"Working on '{cmd.task.label}' ({steps} steps so far); I'll carry on with your next "
                         "message. Say 'stop' to cancel.")
                success = False
                truth = {"success": None, "why": "not finished yet"}
            else:
                success, truth, judge = cmd.result["success"], cmd.result["ground_truth"], cmd.result["judge"]
                reply = self._report(cmd)
        if handled.resume and self.open:
            pending = True
            reply += f" Still working on it ({steps} steps so far)."
        others = [c for c in finished if c is not cmd]
        if others:
            reply += " Also: " + " ".join(self._report(c) for c in others)
        return {
            "turn": self.turn, "text": text, "dialogue_type": handled.dialogue_type, "action_dict": handled.action_dict,
            "tasks": tasks, "steps": steps, "success": bool(success), "ground_truth": truth, "judge": judge,
            "reply": reply, "clarification": handled.clarification, "pending": pending,
            "finished": [{"text": c.text, "label": c.task.label, **{k: c.result[k] for k in ("success", "judge")}}
                         for c in others],
            "stack": self.stack(),
            "view": render_view(self.env.state),
            "cost": {"parse_ms": round(handled.parse_ms, 2), "run_ms": round(run_ms, 1),
                     "judge_ms": cmd.result["judge_ms"] if cmd is not None and cmd.result else 0.0,
                     "total_ms": round((time.perf_counter() - t0) * 1000, 1)},
        }

    @staticmethod
    def _report(cmd: Command) -> str:
        r, t = cmd.result, cmd.task
        firsts = [c.label[len("first "):] for c in t.children if c.label.startswith("first ")]
        lead = f"First I had to {', '.join(firsts)}. " if firsts else ""
        why = r["ground_truth"]["why"]
        if t.status == "cancelled":
            text = f"Stopped '{t.label}' ({why})."
        elif r["success"]:
            text = f"{lead}Done: {t.label} ({why})."
        elif t.status == DONE:
            text = f"{lead}I finished '{t.label}', but it didn't work out: {why}."
        else:
            text = f"{lead}I couldn't {t.label}: {t.reason or why}."
        j = r["judge"]
        if j.get("score") is not None:  # a score beside the ground truth, not a verdict (judge.HELD_OUT)
            text += f" The model's score: {j['score']:.3g} (threshold {j['threshold']:.3g}; a score, not a verdict)."
        return text

    # -- the session -------------------------------------------------------------------------------------
    def stack(self) -> list[dict]:
        """What waits, newest first: requests paused on the dialogue stack (a question to answer) and
        commands on the task stack (running or interrupted)."""
        entries = [{"kind": "question", "text": i.text, "turn": i.turn, "question": i.question.question}
                   for i in self.manager.stack]
        entries += [{"kind": "command", "text": c.text, "turn": c.turn, "label": c.task.label,
                     "status": c.task.status} for c in self.open]
        return sorted(entries, key=lambda e: -e["turn"])

    def view(self) -> str:
        """The compact text picture of the scene."""
        return render_view(self.env.state)

    def save_video(self, path: str | os.PathLike) -> None:
        """The whole session as an mp4 (needs `video=True`)."""
        from mineclip.data.video import write_mp4

        if not self.ex.keep_all_frames:
            raise ValueError("start the session with video=True to keep every frame")
        write_mp4(path, np.stack(self.ex.frames), fps=8)

    def close(self) -> None:
        self.memory.close()
