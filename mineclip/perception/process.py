"""MP5's process-dependent table in kind: success per level (basic, wooden, stone, iron, diamond) of the
planning agent (`mineclip.perception.planner`) and its ablations, on held-out worlds, with Wilson
intervals; what `bench/perception.py --process` prints.

`run_process(settings)` plays every process task (`planner.process_tasks`) on `episodes` held-out
worlds (`world_seeds("perception_eval")`, the same worlds for every ablation) with each ablation. One
agent plays a task's episodes in turn, so its Performer memory carries from one episode to the next
(MP5's memory is kept across tasks); jobs (task, ablation) run in `workers` processes.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field

from mineclip.sim.view import check_view

from .planner import (
    ABLATIONS,
    DANGER,
    FP,
    LEVELS,
    PerformerMemory,
    ProcessAgent,
    perform,
    process_level,
    process_tasks,
)

ABLATION_NAMES = {"full": "full agent", "blind": "without perception during execution",
                  "fixed": "without situation-aware planning", "no_memory": "without the Performer memory"}


@dataclass
class ProcessSettings:
    """What `run_process` measures (the defaults of `bench/perception.py --process`)."""

    ablations: list[str] = field(default_factory=lambda: ["full", "blind", "fixed"])  # MP5's table 4
    episodes: int = 30  # held-out worlds per task, the same for every ablation
    tasks: list[str] = field(default_factory=list)  # default: every mp5-process task
    view: str = FP
    perceiver: str = "ground_truth"
    model: str | None = None  # the artifact, for the `active` perceiver
    drop: float = 0.0  # MP5's Random Drop: probability at the start of each sub-objective
    workers: int = 1
    progress: bool = True

    def __post_init__(self):
        check_view(self.view)
        unknown = sorted(set(self.ablations) - set(ABLATIONS))
        if unknown or not self.ablations:
            raise ValueError(f"expected ablations among {list(ABLATIONS)}, got {self.ablations}")
        if self.perceiver not in ("ground_truth", "active"):
            raise ValueError(f"expected the ground_truth or active perceiver, got {self.perceiver!r}")
        if self.perceiver == "active" and (not self.model or self.workers != 1):
            raise ValueError("the active perceiver needs a model (ProcessSettings.model) and one worker")
        if not 0.0 <= self.drop <= 1.0:
            raise ValueError(f"expected a drop probability in [0, 1], got {self.drop}")


def wilson(successes: int, n: int, z: float = 1.96) -> list[float]:
    """The Wilson score interval of a success rate (95% by default); [0, 1] for no trials."""
    if n == 0:
        return [0.0, 1.0]
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return [max(0.0, centre - half), min(1.0, centre + half)]


def _make_perceiver(s: ProcessSettings):
    from .patroller import make_perceiver

    if s.perceiver == "ground_truth":
        return make_perceiver("ground_truth")
    from .calibrate import saved_percipient

    return make_perceiver("active", saved_percipient(s.model, s.view))


def play_task(task_id: str, ablation: str, worlds: list[int], s: ProcessSettings, perceiver=None) -> list[dict]:
    """One task's episodes with one ablation, one agent (its Performer memory carried on): outcome dicts."""
    from mineclip.tasks.registry import get_task

    task = get_task(task_id)
    perceiver = perceiver or _make_perceiver(s)
    agent = ProcessAgent(task, s.view, ablation, seed=worlds[0] if worlds else 0, skills=PerformerMemory())
    out = []
    for w in worlds:
        agent.performer.rng.seed(w)
        out.append(perform(task, perceiver, w, s.view, ablation, agent=agent, drop=s.drop).to_dict())
    return out


def _job(args) -> list[dict]:
    import torch

    torch.set_num_threads(1)
    return play_task(*args)


def level_table(outcomes: list[dict]) -> dict[str, dict[str, dict]]:
    """ablation -> level -> {success, n, interval (Wilson), died, timed_out} over the outcomes."""
    table: dict[str, dict[str, dict]] = {}
    for ablation in dict.fromkeys(o["ablation"] for o in outcomes):
        row = {}
        for level in LEVELS:
            os_ = [o for o in outcomes if o["ablation"] == ablation and o["level"] == level]
            if not os_:
                continue
            k, n = sum(o["success"] for o in os_), len(os_)
            row[level] = {"success": k / n, "n": n, "interval": wilson(k, n),
                          "died": sum(o["died"] for o in os_) / n, "timed_out": sum(o["timed_out"] for o in os_) / n}
        table[ablation] = row
    return table


def run_process(s: ProcessSettings) -> dict:
    """Success per level per ablation (`level_table`), per task, the outcomes, the settings and the wall time."""
    from concurrent.futures import ProcessPoolExecutor

    from tqdm import tqdm

    from mineclip.tasks.registry import get_task
    from mineclip.tasks.world_seeds import world_seeds

    t0 = time.time()
    tasks = [get_task(t) for t in s.tasks] if s.tasks else process_tasks()
    for t in tasks:
        process_level(t)  # a task that is not a process task is refused here
    worlds = world_seeds("perception_eval", s.episodes)
    jobs = [(t.id, a, worlds, s) for a in s.ablations for t in tasks]
    bar = tqdm(total=len(jobs), desc="process tasks", disable=not s.progress)
    outcomes: list[dict] = []
    if s.workers > 1:
        with ProcessPoolExecutor(s.workers) as pool:
            for result in pool.map(_job, jobs):
                outcomes += result
                bar.update()
    else:
        perceiver = _make_perceiver(s)
        for job in jobs:
            outcomes += play_task(*job, perceiver=perceiver)
            bar.update()
    bar.close()
    per_task = {}
    for t in tasks:
        per_task[t.id] = {"level": process_level(t), "prompt": t.prompt, "max_steps": t.max_steps}
        for a in s.ablations:
            os_ = [o for o in outcomes if o["task"] == t.id and o["ablation"] == a]
            per_task[t.id][a] = sum(o["success"] for o in os_) / max(len(os_), 1)
    return {"settings": asdict(s), "success": level_table(outcomes), "tasks": per_task, "outcomes": outcomes,
            "seconds": {"total": time.time() - t0}}


def death_summary(outcomes: list[dict]) -> str:
    """One line per ablation: its deaths, how many had a zombie or a skeleton (or its arrows) within
    DANGER tiles, how many had none, and how many came in the dark (daylight below 0.3)."""
    lines = [f"Deaths, by what was within {DANGER} tiles of the player (the runner's record, not the agent's):"]
    for ablation in dict.fromkeys(o["ablation"] for o in outcomes):
        dead = [o for o in outcomes if o["ablation"] == ablation and o["died"]]
        if not dead:
            continue
        zombie = sum("zombie" in o["threats"] for o in dead)
        skeleton = sum(bool({"skeleton", "arrow"} & set(o["threats"])) for o in dead)
        none = sum(not o["threats"] for o in dead)
        dark = sum(o["daylight"] is not None and o["daylight"] < 0.3 for o in dead)
        lines.append(f"- {ABLATION_NAMES[ablation]}: {len(dead)} deaths; a zombie near in {zombie}, a skeleton or "
                     f"its arrow in {skeleton}, nothing hostile in {none}; in the dark (daylight < 0.3) {dark}")
    return "\n".join(lines) if len(lines) > 1 else "No deaths."


def process_markdown(result: dict) -> str:
    """Markdown of a `run_process` result: success per level per ablation with Wilson intervals,
    (died / timed out), then per task."""
    succ, st = result["success"], result["settings"]
    levels = [lv for lv in LEVELS if any(lv in row for row in succ.values())]
    drop = f", Random Drop {st['drop']:.2f}" if st["drop"] else ""
    lines = [(f"Process-dependent tasks: success per level (95% Wilson interval; died / timed out), {st['view']} "
              f"view, {st['perceiver']} perceiver, {st['episodes']} held-out worlds per task{drop}"), "",
             "| agent | " + " | ".join(levels) + " |", "|---|" + "---:|" * len(levels)]
    for ablation, row in succ.items():
        cells = []
        for lv in levels:
            c = row.get(lv)
            cells.append("-" if c is None else f"{c['success']:.0%} [{c['interval'][0]:.0%}, {c['interval'][1]:.0%}] "
                                                f"({c['died']:.0%} / {c['timed_out']:.0%})")
        lines.append(f"| {ABLATION_NAMES[ablation]} | " + " | ".join(cells) + " |")
    lines += ["", "| task | level | " + " | ".join(ABLATION_NAMES[a] for a in succ) + " |",
              "|---|---|" + "---:|" * len(succ)]
    for tid, row in result["tasks"].items():
        lines.append(f"| {tid} | {row['level']} | " + " | ".join(f"{row[a]:.0%}" for a in succ) + " |")
    lines += ["", death_summary(result["outcomes"])]
    lines.append(f"\nwall time {result['seconds']['total']:.0f} s")
    return "\n".join(lines)
