"""MP5's evaluation reproduced on crafter: how reliable the Percipient is per condition type, and how
often the Patroller solves the context tasks of each level with each perceiver.

`run_benchmark(settings)` loads an artifact (and an untrained model of the same architecture), fits
each model's thresholds on frames of training worlds (or reads the artifact's `perception.json`),
measures precision/recall/F1 of each condition type on frames of held-out worlds against the
simulator's ground truth, and plays every context task on the same held-out worlds with the three
perceivers. `tables` writes the result as Markdown or one JSON object (what `bench/perception.py`
prints). Everything is in one view (`view`, `mineclip.sim.view`: the frames fitted on and measured
on, the Patroller's episodes, the context set; a saved calibration of another view is refused).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

import numpy as np

from mineclip.evaluate.judge import roc_auc
from mineclip.sim.view import DEFAULT_VIEW, check_view
from mineclip.tasks.placement import DEFAULT_PLACEMENT, check_placement, placement_init

from .calibrate import (
    collect_frames,
    fit_percipient,
    frame_probs,
    load_thresholds,
    probes,
    save_thresholds,
)
from .conditions import conditions_of, level_of
from .patroller import PERCEIVERS, VIEW_ASPECTS, make_perceiver, patrol
from .percipient import DECISIONS, Percipient, decide

LEVELS = {1: "easy (1)", 2: "mid (2)", 3: "hard (3)", 4: "complex (4-6)"}
# who plays the context tasks: the Patroller (its Performer reads the map to approach the target,
# MP5's Patroller with a scripted Performer) or the Seeker (sees only its view, `perception.seeker`)
AGENTS = ("patroller", "seeker")
# whose frame encoder a learned perceiver's Percipient reads: the artifact's, or the untrained twin's
ENCODERS = ("trained", "untrained")


@dataclass
class BenchSettings:
    """What `run_benchmark` measures (the defaults of `bench/perception.py`)."""

    model: str  # artifact directory
    episodes: int = 30  # per task and perceiver, on held-out worlds (the same worlds for every perceiver)
    fit_worlds: int = 160  # training worlds whose frames fit the thresholds
    eval_worlds: int = 160  # held-out worlds whose frames measure reliability
    refit: bool = False  # fit again even when the artifact has perception.json
    untrained: bool = True
    tasks: list[str] = field(default_factory=list)  # default: every mp5-context task
    seed: int = 0
    progress: bool = True
    head: bool = True  # the trained head answers the conditions it knows (False: every one in words)
    view: str = DEFAULT_VIEW  # what the frames show and the Patroller's controls (mineclip.sim.view)
    agent: str = "patroller"  # who plays the context tasks (AGENTS)
    placement: str = DEFAULT_PLACEMENT  # where their scenes are placed (mineclip.tasks.placement)
    perceivers: list[str] = field(default_factory=lambda: list(PERCEIVERS))  # who plays them (MP5's three)
    # whose Percipient the learned perceivers ask (ENCODERS): the artifact's ("trained") and/or the
    # untrained model's of the same architecture, each with its own head fitted on the same frames
    # (MP5 table 5's question, asked of the success per level); the ground truth plays once
    encoders: list[str] = field(default_factory=lambda: ["trained"])

    def __post_init__(self):
        check_view(self.view)
        check_agent(self.agent)
        check_placement(self.placement)
        check_perceivers(self.perceivers)
        check_encoders(self.encoders)
        if "untrained" in self.encoders and not self.untrained:
            raise ValueError("encoders name 'untrained' but untrained=False fits no untrained model")


def encoder_perceivers(names: list[str], percipients: dict[str, Percipient], encoders: list[str]) -> dict:
    """Perceiver name -> perceiver: each of `names`, the learned ones once per encoder of `encoders`
    (the trained one keeps its plain name, another is named "NAME, ENCODER encoder"), asking that
    encoder's Percipient (`percipients`: encoder -> Percipient); the ground truth once."""
    out = {}
    for name in names:
        for encoder in ["trained"] if name == "ground_truth" else encoders:
            perceiver = make_perceiver(name, None if name == "ground_truth" else percipients[encoder])
            if encoder != "trained":
                perceiver.name = f"{name}, {encoder} encoder"
            out[perceiver.name] = perceiver
    return out


def check_perceivers(perceivers: list[str]) -> list[str]:
    """`perceivers` if it is a non-empty list of `PERCEIVERS`, else a ValueError naming them."""
    unknown = sorted(set(perceivers) - set(PERCEIVERS))
    if unknown or not perceivers:
        raise ValueError(f"expected perceivers among {list(PERCEIVERS)}, got {perceivers}")
    return perceivers


def check_encoders(encoders: list[str]) -> list[str]:
    """`encoders` if it is a non-empty list of `ENCODERS`, else a ValueError naming them."""
    if set(encoders) - set(ENCODERS) or not encoders:
        raise ValueError(f"expected encoders among {list(ENCODERS)}, got {encoders}")
    return encoders


def check_agent(agent: str) -> str:
    """`agent` if it names one of `AGENTS`, else a ValueError naming them."""
    if agent not in AGENTS:
        raise ValueError(f"unknown agent {agent!r}; expected one of {list(AGENTS)}")
    return agent


def play_context(tasks, perceivers: dict, worlds: list[int], agent: str = "patroller",
                 placement: str = DEFAULT_PLACEMENT, view: str = DEFAULT_VIEW, progress: bool = False) -> list[dict]:
    """Every task on every world with every perceiver (name -> perceiver), played by `agent` with the
    scenes placed as `placement` says: `Outcome.to_dict()`s."""
    from tqdm import tqdm

    from .seeker import seek

    check_agent(agent)
    outcomes = []
    jobs = [(t, name) for name in perceivers for t in tasks]
    for task, name in tqdm(jobs, desc=f"context tasks x perceivers ({agent})", disable=not progress, unit="task"):
        for w in worlds:
            if agent == "seeker":
                o = seek(task, perceivers[name], w, view=view, placement=placement)
            else:
                o = patrol(task, perceivers[name], w, view=view, init=placement_init(task, placement, w))
                o.placement = placement
            outcomes.append(o.to_dict())
    return outcomes


@dataclass
class ContextSettings:
    """Success per level on the context tasks alone (no reliability table, no fitting): what
    `bench/perception.py --success-only` measures. The ground-truth perceiver needs no model; the
    learned ones read `model`'s saved head and thresholds."""

    agent: str = "seeker"
    perceivers: list[str] = field(default_factory=lambda: ["ground_truth"])
    episodes: int = 10  # held-out worlds per task (the same worlds for every perceiver)
    tasks: list[str] = field(default_factory=list)  # default: every mp5-context task
    placement: str = DEFAULT_PLACEMENT
    view: str = "first_person"
    model: str | None = None  # the artifact, for the `active` and `one_shot` perceivers
    head: bool = True
    progress: bool = True

    def __post_init__(self):
        check_view(self.view)
        check_agent(self.agent)
        check_placement(self.placement)
        check_perceivers(self.perceivers)
        if set(self.perceivers) - {"ground_truth"} and not self.model:
            raise ValueError("the active and one_shot perceivers need a model (ContextSettings.model)")


def run_context(s: ContextSettings) -> dict:
    """Success per level per perceiver of `s.agent` on the context tasks (`success_table`), with
    the outcomes, the settings and the wall time."""
    import torch

    from mineclip.tasks.registry import get_task
    from mineclip.tasks.world_seeds import world_seeds

    from .calibrate import context_tasks, saved_percipient

    t0 = time.time()
    percipient = None
    if set(s.perceivers) - {"ground_truth"}:
        percipient = saved_percipient(s.model, s.view, s.head)
    tasks = [get_task(t) for t in s.tasks] if s.tasks else context_tasks()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # see run_benchmark
    try:
        outcomes = play_context(tasks, {n: make_perceiver(n, percipient) for n in s.perceivers},
                                world_seeds("perception_eval", s.episodes), s.agent, s.placement, s.view, s.progress)
    finally:
        torch.set_num_threads(threads)
    return {"settings": asdict(s), "success": success_table(outcomes), "outcomes": outcomes,
            "tasks": {t.id: {"level": level_of(conditions_of(t)), "conditions": [c.key for c in conditions_of(t)],
                             "prompt": t.prompt} for t in tasks},
            "seconds": {"total": time.time() - t0}}


def success_markdown(result: dict) -> str:
    """Markdown of a `run_context` result: success per level per perceiver (declared with a false
    condition / never declared though all held)."""
    succ, st = result["success"], result["settings"]
    lines = [(f"Success per level: {st['agent']}, {st['placement']} placement, {st['view']} view, "
              f"{st['episodes']} held-out worlds per task [Wilson 95%] (declared with a false condition / never "
              "declared though all held)"), "", *success_rows(succ)]
    lines.append(f"\nwall time {result['seconds']['total']:.0f} s")
    return "\n".join(lines)


def success_rows(succ: dict) -> list[str]:
    """The Markdown table of `success_table`: a row per perceiver, a column per level (- where a
    perceiver has no episode of it)."""
    levels = sorted({lv for row in succ.values() for lv in row})
    lines = ["| perceiver | " + " | ".join(LEVELS[int(lv)] for lv in levels) + " |", "|---|" + "---|" * len(levels)]
    for name, row in succ.items():
        lines.append(f"| {name} | " + " | ".join(success_cell(row[lv]) if lv in row else "-" for lv in levels) + " |")
    return lines


def success_cell(row: dict) -> str:
    """One level of `success_table` as a table cell: success [interval] (false done / missed)."""
    lo, hi = row["interval"]
    return f"{row['success']:.0%} [{lo:.0%}, {hi:.0%}] ({row['false_done']:.0%} / {row['missed']:.0%})"


def reliability(percipient: Percipient, frames) -> dict[str, dict]:
    """Per condition key: precision, recall, F1 of the yes answers against the ground truth, the
    share of unsure answers, and F1 with unsure counted as no."""
    conds = probes()
    probs = frame_probs(percipient, frames, conds)
    out = {}
    for j, c in enumerate(conds):
        truth = np.array([c.seen(f.state) for f in frames])
        band = percipient.band(c)
        decisions = np.array([decide(p, band)[0] for p in probs[:, j]])
        yes, no = decisions == "yes", decisions == "no"
        tp, fp = int((yes & truth).sum()), int((yes & ~truth).sum())
        decided = yes | no
        fn = int((no & truth).sum())
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / int(truth.sum()) if truth.sum() else 0.0  # unsure on a true condition is a miss
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        decided_recall = tp / (tp + fn) if tp + fn else 0.0
        out[c.key] = {"precision": precision, "recall": recall, "f1": f1, "unsure": float(1 - decided.mean()),
                      "decided_f1": (2 * precision * decided_recall / (precision + decided_recall)
                                     if precision + decided_recall else 0.0),
                      "auc": roc_auc(probs[:, j], truth), "frames": len(frames), "positives": int(truth.sum())}
    return out


SHARE_EDGES = (0.0, 0.005, 0.02, 1.0)  # bins of how much of the frame a thing fills (under 0.5%, 0.5-2%, 2% up)


def answers_by_share(percipient: Percipient, frames, edges: tuple[float, ...] = SHARE_EDGES) -> dict[str, list[dict]]:
    """First person: per condition key about a thing, on the frames whose label says it is in view, the
    share of yes / unsure / no answers by how much of the frame's world pixels the thing fills
    (`WorldState.shares`, the renderer's): [{"share": [lo, hi), "frames", "yes", "unsure", "no"}] per bin
    with frames. The label counts a thing from its first pixel; this says from what size the answers
    follow it. {} for frames without shares (from above)."""
    if not frames or any(f.state.shares is None for f in frames):
        return {}
    conds = [c for c in probes() if c.aspect in VIEW_ASPECTS]
    probs = frame_probs(percipient, frames, conds)
    out: dict[str, list[dict]] = {}
    for j, c in enumerate(conds):
        band = percipient.band(c)
        bins: list[dict] = []
        for lo, hi in zip(edges[:-1], edges[1:]):
            idx = [i for i, f in enumerate(frames) if c.seen(f.state) and lo <= f.state.shares.get(c.subject, 0.0)
                   < (hi if hi < edges[-1] else float("inf"))]
            if not idx:
                continue
            said = [decide(float(probs[i, j]), band)[0] for i in idx]
            bins.append({"share": [lo, hi], "frames": len(idx), **{a: said.count(a) / len(idx) for a in DECISIONS}})
        out[c.key] = bins
    return out


def success_table(outcomes: list[dict]) -> dict[str, dict[str, dict]]:
    """perceiver -> level -> {success, interval (Wilson 95%), false_done, missed, episodes, tasks}."""
    from mineclip.tasks.registry import get_task

    from .process import wilson

    out: dict[str, dict[str, dict]] = {}
    for o in outcomes:
        level = str(level_of(conditions_of(get_task(o["task"]))))
        row = out.setdefault(o["perceiver"], {}).setdefault(level, {"episodes": 0, "success": 0, "false_done": 0,
                                                                   "missed": 0, "tasks": set()})
        row["episodes"] += 1
        row["tasks"].add(o["task"])
        for k in ("success", "false_done", "missed"):
            row[k] += int(o[k])
    for levels in out.values():
        for row in levels.values():
            n = row["episodes"]
            row["interval"] = wilson(row["success"], n)
            row.update({k: row[k] / n for k in ("success", "false_done", "missed")}, tasks=len(row["tasks"]))
    return out


def load_percipient(rm, artifact: str | None, fit_frames, refit: bool, head: bool = True,
                    view: str = DEFAULT_VIEW) -> tuple[Percipient, str]:
    """A Percipient with the artifact's saved head and thresholds, or both fitted now on training
    worlds (saved when an artifact). A model whose patches are not the simulator's tiles has no
    head (`head.supports`). `head=False` asks every condition in words, with thresholds fitted now
    and not saved (the artifact's own are fitted with its head). Saved ones of another view than
    `view` are a ValueError (`refit` fits and saves this view's instead)."""
    from .head import load_head, supports

    own = head  # the artifact's own setting: what is read and saved
    head = head and supports(rm)
    if own and artifact and not refit:
        saved, saved_head = load_thresholds(artifact, view), load_head(artifact, rm, view) if head else None
        if saved and (saved_head is not None or not head):
            return Percipient(rm, saved, saved_head), "read from perception.json" + (
                " and perception_head.safetensors" if head else "")
    percipient = fit_percipient(rm, fit_frames(), head)
    if artifact and own:
        save_thresholds(artifact, percipient.thresholds)
        if head:
            percipient.head.save(artifact)
    what = "head and thresholds" if head else "thresholds (in words)"
    return percipient, f"{what} fitted on training worlds" + (" and saved" if artifact and own else "")


def run_benchmark(s: BenchSettings) -> dict:
    """Reliability per condition type (trained and untrained) and success per level per perceiver."""
    import torch

    threads = torch.get_num_threads()
    # one frame per question: on a shared 2-core CPU one thread answers ~60x faster than two
    # (an episode of find_cow_day: 0.08 s against 5.1 s, measured beside a training run)
    torch.set_num_threads(1)
    try:
        return _run_benchmark(s)
    finally:
        torch.set_num_threads(threads)


def _run_benchmark(s: BenchSettings) -> dict:

    from mineclip.reward import RewardModel
    from mineclip.tasks.registry import get_task
    from mineclip.tasks.world_seeds import world_seeds

    from .calibrate import context_tasks

    t0 = time.time()
    cache: dict = {}

    def fit_frames():
        if "fit" not in cache:
            cache["fit"] = collect_frames("perception", s.fit_worlds, seed=s.seed, view=s.view)
        return cache["fit"]

    trained = RewardModel.load(s.model)
    models = {"trained": load_percipient(trained, s.model, fit_frames, s.refit, s.head, s.view)}
    if s.untrained:
        models["untrained"] = load_percipient(trained.untrained_twin(s.seed), None, fit_frames, True, s.head, s.view)
    fit_seconds = time.time() - t0
    held_out = collect_frames("perception_eval", s.eval_worlds, seed=s.seed + 1, view=s.view)
    reliab = {name: reliability(p, held_out) for name, (p, _) in models.items()}
    by_share = {name: answers_by_share(p, held_out) for name, (p, _) in models.items()}

    tasks = [get_task(t) for t in s.tasks] if s.tasks else context_tasks()
    worlds = world_seeds("perception_eval", s.episodes)
    perceivers = encoder_perceivers(s.perceivers, {name: p for name, (p, _) in models.items()}, s.encoders)
    outcomes = play_context(tasks, perceivers, worlds, s.agent, s.placement, s.view, s.progress)
    return {"settings": asdict(s), "thresholds": {n: how for n, (_, how) in models.items()},
            "fit_frames": len(cache.get("fit", [])), "eval_frames": len(held_out), "reliability": reliab,
            "by_share": by_share,
            "success": success_table(outcomes), "outcomes": outcomes,
            "tasks": {t.id: {"level": level_of(conditions_of(t)), "conditions": [c.key for c in conditions_of(t)],
                             "prompt": t.prompt} for t in tasks},
            "seconds": {"fit": fit_seconds, "total": time.time() - t0}}


@dataclass
class JudgeSettings:
    """The factored judge against the whole-prompt judge (the defaults of `bench/perception.py`)."""

    model: str
    labels: str | None = "runs/default/evalset/evalset.jsonl"  # the pipeline's evaluation set (None: skip)
    # the context set: the pipeline's (its evalset stage records it there); recorded here once if missing
    context_dir: str = "runs/default/evalset/context"
    per_label: int = 10  # successes and failures per context task, on held-out worlds
    negatives: str = "scene"  # the pipeline's policy, for prompts judged whole
    mode: str = "direct"  # the reward formula both judges' scores average (the pipeline's preset says which)
    tasks: list[str] = field(default_factory=list)  # context task ids; [] = every mp5-context task
    workers: int = 2
    progress: bool = True
    head: bool = True  # the artifact's trained head scores the conditions it knows (when it has one)
    # the worlds the context set is recorded on: "evalset" (held out) or "perception" (the
    # Percipient's training worlds: a validation set for choices made on the judge)
    context_purpose: str = "evalset"
    # an evaluation's metrics.json of this model on `labels` (the pipeline's report/metrics.json):
    # the tasks judged by their prompt alone take both judges' scores from it (None: score them)
    evaluation: str | None = None
    view: str = DEFAULT_VIEW  # the context set's frames and the calibration read (mineclip.sim.view)

    def __post_init__(self):
        check_view(self.view)


def _kind(task_id: str) -> str:
    from mineclip.tasks.registry import get_task

    try:
        return get_task(task_id).kind
    except KeyError:
        return "creative"


def record_context(context_dir, tasks: list[str], per_label: int, window: int, purpose: str = "evalset",
                   workers: int = 2, progress: bool = True, view: str = DEFAULT_VIEW):
    """The context tasks' labelled set in `context_dir` (recorded when its file is missing, else
    kept: it does not depend on a model, only on the reward window its successes go on for):
    `per_label` successes and failures per task (every mp5-context task for `tasks` []), on held-out
    worlds (or, `purpose` "perception", the Percipient's training worlds), with the failing attempts
    of context tasks (`mineclip.play.evalset.CONTEXT_FAILURES`), played and drawn in `view`. A kept
    set of another view is a ValueError. Returns the labels file."""
    import json
    from pathlib import Path

    from mineclip.play.evalset import CONTEXT_FAILURES, FILE_NAME, EvalsetSettings, record_evalset

    from .calibrate import context_tasks

    path = Path(context_dir) / FILE_NAME
    if not path.is_file():
        ids = list(tasks) or [t.id for t in context_tasks()]
        record_evalset(context_dir, EvalsetSettings(ids, per_label, tail=window, purpose=purpose,
                                                    failures=CONTEXT_FAILURES, view=view), workers, progress=progress)
    with path.open() as f:
        first = next((json.loads(line) for line in f if line.strip()), {})
    if first.get("view", DEFAULT_VIEW) != check_view(view):
        raise ValueError(f"{path} holds context tasks recorded in the {first.get('view', DEFAULT_VIEW)} view, not "
                         f"the {view} view; record them again in another folder")
    return path


def run_judges(s: JudgeSettings) -> dict:
    """F1 of the factored and the whole-prompt judge on the pipeline's evaluation set and on the
    context tasks (recorded once, on held-out worlds unless `context_purpose` says otherwise);
    abstained context trajectories are written beside
    the context set as `abstained.jsonl` for `mineclip label`."""
    from pathlib import Path

    from mineclip.evaluate.trajectories import read_labels
    from mineclip.reward import RewardModel
    from mineclip.tasks.negatives import negatives_for

    from .head import load_head, supports
    from .condition_judge import JUDGES, compare, mean_intervals, score_trajectories, whole_scores, write_abstained

    t0 = time.time()
    rm = RewardModel.load(s.model)
    thresholds = load_thresholds(s.model, s.view)
    head = load_head(s.model, rm, s.view) if s.head and supports(rm) else None
    sets = {"context": record_context(s.context_dir, s.tasks, s.per_label, rm.window, s.context_purpose, s.workers,
                                      s.progress, s.view)}
    if s.labels and Path(s.labels).is_file():
        sets["pipeline"] = Path(s.labels)
    out: dict = {"settings": asdict(s), "sets": {}}
    for name, path in sets.items():
        trajs, _, _ = read_labels(path)
        views = sorted({t.record.get("view", DEFAULT_VIEW) for t in trajs} - {s.view})
        if views:  # a head and bands of one view say nothing about frames of the other
            raise ValueError(f"{path} holds trajectories of the {', '.join(views)} view; the judge runs in the "
                             f"{s.view} view (JudgeSettings.view)")
        reuse = s.evaluation and name == "pipeline"
        known = whole_scores(s.evaluation, s.model, str(path), s.negatives, s.mode) if reuse else None
        verdicts, problems = score_trajectories(rm, trajs, lambda p: negatives_for(p, s.negatives), thresholds,
                                                s.progress, head, known, s.mode)
        tasks = compare(verdicts)
        entry = {"labels": str(path), "tasks": tasks, "problems": problems, "by_kind": {},
                 "abstain": float(np.mean([v.abstain for v in verdicts]))}
        for kind in ("programmatic", "creative"):
            ids = [t for t in tasks if _kind(t) == kind]
            if ids:
                entry["by_kind"][kind] = {j: float(np.mean([tasks[t][f"{j}_f1"] for t in ids])) for j in JUDGES}
                entry["by_kind"][kind].update({f"{j}_interval": v for j, v in
                                               mean_intervals({t: tasks[t] for t in ids}).items()})
                entry["by_kind"][kind]["tasks"] = len(ids)
        if name == "context":
            entry["abstained_file"] = str(path.with_name("abstained.jsonl"))
            entry["abstained"] = write_abstained(verdicts, entry["abstained_file"])
        out["sets"][name] = entry
    out["seconds"] = time.time() - t0
    return out
