"""The judge's labelled evaluation set: N successes and N failures per task, recorded on held-out worlds.

Successes come from the scripted agent; failures from the failing agents in turn (near misses,
wrong targets, noisy and random play), so that a failure looks like an attempt, not like idling.
Tasks won by getting somewhere under conditions (MP5's context tasks, "find a zombie at night")
take other failures (`CONTEXT_FAILURES`): a near miss of a find is a success, and a zombie at
night finds every player, so they walk away from the target instead, and the scripted agent plays
the same find at the other time of day (MP5's minimal pair: everything right but the time).
Episodes go on `tail` steps after success (or after a creative task's plan is done), so that the
judge sees the success in every reward window that holds it. The output is the labelled
trajectory format `eval.py` reads (`mineclip.play.record`).
"""

from __future__ import annotations

import json
from contextlib import closing
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mineclip.counts import require_counts
from mineclip.model.config import CLIP_FRAMES
from mineclip.sim.view import DEFAULT_VIEW, check_view
from mineclip.tasks.env import CrafterTaskEnv
from mineclip.tasks.registry import get_task
from mineclip.tasks.world_seeds import world_seeds

from .agents import AGENTS
from .record import FAILURE_AGENTS, FPS, play_map, remove_partial_videos, run_episode

# Steps an evaluation episode goes on after success: one reward window of the paper's model (16
# frames); the pipeline passes its own window length.
EVAL_TAIL = CLIP_FRAMES
FILE_NAME = "evalset.jsonl"
OTHER_TIME = "other_time"  # a failing attempt: the scripted agent, at the other time of day
CONTEXT_FAILURES = ("avoid", OTHER_TIME, "random", "wrong_target")
FLIPPED_TIME = {"day": "night", "night": "day"}  # the criterion's time -> the start that breaks it


@dataclass
class EvalsetSettings:
    """What `record_evalset` records (the defaults of `mineclip play evalset`)."""

    tasks: list[str] = field(default_factory=list)
    per_label: int = 20  # successes and failures per task
    worlds: int = 20  # held-out worlds, reused in turn
    max_attempts: int | None = None  # episodes per task at most (default 8 * per_label + 8)
    tail: int = EVAL_TAIL
    # the worlds' purpose (mineclip.tasks.world_seeds): "evalset", held out; "perception", the training
    # worlds the Percipient is fitted on, for a validation set that leaves the held-out one alone
    purpose: str = "evalset"
    # what plays the failing attempts, in turn: agents (`mineclip.play.agents`) or OTHER_TIME;
    # OTHER_TIME is left out for tasks whose success needs no time of day
    failures: tuple[str, ...] = FAILURE_AGENTS
    view: str = DEFAULT_VIEW  # what the videos show and the agents' controls (mineclip.sim.view)

    def __post_init__(self):
        check_view(self.view)
        # none of either was an empty set written without a reason; no worlds, a ZeroDivisionError
        require_counts(self, "per_label", "worlds")
        if self.max_attempts is not None and self.max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1 (or unset), got {self.max_attempts}")
        if self.tail < 0:
            raise ValueError(f"tail is the steps recorded after a success, 0 or more, got {self.tail}")


@dataclass
class EvalsetResult:
    """What `record_evalset` wrote: the JSON-lines file and per-task (successes, failures)."""

    labels: str
    counts: dict[str, list[int]]
    seconds: float


def evalset_worlds(count: int, purpose: str = "evalset") -> list[int]:
    """The worlds an evaluation set is recorded on (held-out ones unless another purpose is asked)."""
    return world_seeds(purpose, count)


def success_time(success) -> str | None:
    """The time of day a success criterion asks for ({time: night} anywhere in it), or None."""
    if isinstance(success, dict):
        if isinstance(success.get("time"), str):
            return success["time"]
        success = list(success.values())
    if isinstance(success, list):
        return next((t for t in map(success_time, success) if t), None)
    return None


def failure_kinds(task, failures: tuple[str, ...]) -> list[tuple[str, dict]]:
    """(agent, start changes) of each kind of failing attempt a task takes in turn."""
    flipped = FLIPPED_TIME.get(success_time(task.success) or "")
    return [("scripted", {"time": flipped}) if kind == OTHER_TIME else (kind, {})
            for kind in failures if kind != OTHER_TIME or flipped]


def _record_task(args: tuple) -> list[dict]:
    from mineclip.data.video import write_mp4

    task_id, out, s = args
    per_label, tail, max_attempts = s.per_label, s.tail, s.max_attempts or 8 * s.per_label + 8
    task = get_task(task_id)
    env = CrafterTaskEnv(task, terminate_on_success=False, declare_done=False, view=s.view)  # labels: the criterion held
    seeds = evalset_worlds(s.worlds, s.purpose)
    failing = failure_kinds(task, s.failures) or failure_kinds(task, FAILURE_AGENTS)
    kept = {0: [], 1: []}
    for attempt in range(max_attempts):
        if len(kept[0]) >= per_label and len(kept[1]) >= per_label:
            break
        want_success = len(kept[1]) < per_label and (attempt % 2 == 0 or len(kept[0]) >= per_label)
        agent, init = ("scripted", {}) if want_success else failing[(attempt // 2) % len(failing)]
        world_seed = seeds[attempt % len(seeds)]
        seed = world_seed * 100 + attempt // len(seeds)
        ep = run_episode(task_id, agent=agent, seed=seed, world_seed=world_seed, env=env,
                         noise=0.6 if agent == "noisy" else 0.0,
                         prelude=int(np.random.RandomState(seed).randint(0, 7)), tail=tail,
                         episode_id=f"{task_id}-s{seed}-{OTHER_TIME if init else agent}-e{attempt}", init=init,
                         view=s.view)
        label = ep.record["label"]
        if label is None:  # a task people judge: as many scripted as failing attempts, recorded unlabelled
            label = int(agent == "scripted")
        if len(kept[label]) >= per_label:
            continue
        write_mp4(Path(out) / ep.record["video"], ep.frames, fps=FPS, preset="superfast", threads=1)
        kept[label].append(ep.record)
    return kept[1] + kept[0]


def record_evalset(out_dir: str | os.PathLike, settings: EvalsetSettings, workers: int | None = None,
                   progress: bool = True) -> EvalsetResult:
    """Record the evaluation set of `settings.tasks` into out_dir (videos/ and evalset.jsonl).

    evalset.jsonl appears only once every task is recorded (written beside it, then renamed): a
    process killed half way leaves none, so a caller that records "if the file is missing" (the
    pipeline's perception stage) records again instead of judging half a set."""
    from tqdm import tqdm

    t0 = time.time()
    for task_id in settings.tasks:
        get_task(task_id)  # unknown ids fail before any play
    unknown = set(settings.failures) - set(AGENTS) - {OTHER_TIME}
    if unknown or not settings.failures:
        raise ValueError(f"failing attempts: unknown {sorted(unknown)} or none; expected agents of {AGENTS} "
                         f"or {OTHER_TIME!r}")
    out = Path(out_dir)
    (out / "videos").mkdir(parents=True, exist_ok=True)
    path = out / FILE_NAME
    args = [(t, str(out), settings) for t in settings.tasks]
    workers = min(workers or os.cpu_count() or 1, max(len(args), 1))
    counts = {}
    partial = path.with_name(path.name + ".partial")
    from mineclip.pool import WorkerDiedError

    # in task order, so that every run writes the same file (the tasks take unequal times)
    results = play_map(_record_task, args, workers, name_of=lambda a: a[0], what="task")
    with open(partial, "w") as f, tqdm(total=len(args), desc="evalset tasks", disable=not progress) as bar, \
            closing(results):
        try:
            for recs in results:
                for r in recs:
                    f.write(json.dumps(r) + "\n")
                if recs:
                    labels = [r["label"] for r in recs]
                    counts[recs[0]["task_id"]] = [labels.count(1), labels.count(0)] + (
                        [labels.count(None)] if None in labels else [])  # + unlabelled, for people to label
                bar.update(1)
        except WorkerDiedError:
            remove_partial_videos(out)
            raise
    os.replace(partial, path)
    return EvalsetResult(str(path), counts, time.time() - t0)
