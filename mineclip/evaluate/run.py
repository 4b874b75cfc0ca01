"""Evaluating an artifact as a success judge: score labelled trajectories with it (and with an
untrained model of the same architecture and any baselines), judge them per task, measure retrieval
on held-out shards, and write report.md, metrics.json and plots. `mineclip eval`, `eval.py` and the
pipeline call `evaluate`.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from mineclip.model.artifact import Artifact, ArtifactError
from mineclip.reward import RewardModel

from .bands import judge_by_band
from .human import merge_labels, people_stats
from .report import mean_f1, write_report
from .scoring import Scorer, judge_tasks, score_all
from .suite import DEFAULT_SUITE, TaskSuite, load_suite, read_prompts
from .thresholds import Calibration, CalibrationMismatch
from .trajectories import Problem, read_label_files

log = logging.getLogger(__name__)
UNTRAINED = "untrained"


class EvalError(RuntimeError):
    """The evaluation could not run (missing labels, an unreadable artifact, nothing to judge)."""


class NegativesError(EvalError):
    """The negatives setting names no policy and no file, or leaves nothing to score against."""


@dataclass
class EvalSettings:
    """Everything `evaluate` needs; the defaults are `mineclip eval`'s."""

    model: str  # artifact directory
    labels: str | list[str]  # labelled trajectories, JSON lines: one file, or several (e.g. a set and people's labels)
    out: str  # folder for report.md, metrics.json and plots
    baselines: list[str] = field(default_factory=list)  # other artifacts judged beside
    untrained: bool = True  # judge an untrained model of the same architecture beside
    # the judge's settings; None: the artifact's (judge.json `settings`, `JudgeSettings` where it has none)
    mode: str | None = None  # reward formula the scores average
    topk: int | None = None
    negatives: str | None = None  # a policy of the task suite (mineclip.tasks.negatives), or a file of prompts
    suite: str | None = DEFAULT_SUITE  # the task suite ("module:attribute", mineclip.evaluate.suite); None: none
    calibrate: bool = False  # fit per-task thresholds on these labels and save them with the model
    use_calibration: bool = True  # judge with the artifact's calibrated thresholds too (refused under other settings)
    shards: str | None = None  # held-out shards for retrieval
    retrieval_max: int = 1000
    device: str = "cpu"
    precision: str | None = None  # the frame encoder's: auto, bf16, fp32 (None: $MINECLIP_PRECISION, else auto)
    seed: int = 0  # of the untrained model's weights
    progress: bool = True


@dataclass
class EvalResult:
    """What `evaluate` judged and wrote."""

    report: str
    metrics: dict
    lines: int
    judged: int
    problems: list[Problem]
    mean_f1: dict[str, float | None]  # per model, the paper's rule
    seconds: float


def model_name(path: str, taken: set) -> str:
    """A short unique name for an artifact in tables: its folder name."""
    name = Path(path).resolve().name or str(path)
    base, i = name, 2
    while name in taken:
        name, i = f"{base}-{i}", i + 1
    taken.add(name)
    return name


def load_models(s: EvalSettings) -> tuple[str, dict[str, RewardModel]]:
    """The judged artifact's name and every model to score: it, the untrained twin, the baselines."""
    taken: set = set()
    models: dict[str, RewardModel] = {}
    try:
        main_name = model_name(s.model, taken)
        main = models[main_name] = RewardModel.load(s.model, device=s.device, precision=s.precision)
        if s.untrained:
            models[f"{UNTRAINED} ({main.model.config.temporal.pooling})"] = main.untrained_twin(s.seed)
        for b in s.baselines:
            models[model_name(b, taken)] = RewardModel.load(b, device=s.device, precision=s.precision)
    except (ArtifactError, FileNotFoundError, OSError) as e:
        raise EvalError(str(e)) from e
    return main_name, models


def negatives_of(policy: str, label_prompts: list[str], suite: TaskSuite | None
                 ) -> tuple[Callable[[str], list[str]], str, list[str]]:
    """(prompt -> its negatives, a line saying what they are, notes) under a negatives policy: one of
    the task suite's, or a file of prompts.

    Without a task suite (none named, or it cannot be read, e.g. a broken file on
    $MINECLIP_TASKS_PATH), `suite` falls back to the labels' own prompts and says so; the suite's
    other policies need it."""
    notes: list[str] = []
    policies = tuple(suite.policies) if suite is not None else ("suite",)
    if policy not in policies and not Path(policy).is_file():
        raise NegativesError(f"--negatives is neither a policy ({', '.join(policies)}) nor a file: {policy}"
                             + ("" if suite is not None else " (no task suite: the others need one)"))
    try:
        if policy not in policies:
            pool = read_prompts(policy)
            source = f"negatives from {policy} ({len(pool)} prompts)"
        elif suite is None:
            raise ValueError("no task suite")
        else:
            pool, source = suite.negative_pool(policy)
    except (ValueError, OSError) as e:
        if policy not in policies:
            raise NegativesError(f"--negatives {policy}: {e}") from e
        if policy != "suite":
            raise NegativesError(f"--negatives {policy} needs the task suite ({e})") from e
        pool = list(dict.fromkeys(label_prompts))
        source = f"negatives: the other prompts of the labels file ({len(pool)}; task suite unavailable: {e})"
    if len(set(pool) | set(label_prompts)) < 2:
        raise NegativesError("need at least two distinct prompts to score against (pass --negatives)")
    distinct = policy.startswith("distinct")

    def negatives_for(prompt: str) -> list[str]:
        neg = [p for p in pool if p != prompt and not (distinct and prompt in p)]
        return neg or [p for p in label_prompts if p != prompt]

    return negatives_for, source, notes


def evaluate(s: EvalSettings) -> EvalResult:
    """Judge the labelled trajectories of `s.labels` with the artifact `s.model` and write the report."""
    t0 = time.time()
    out = Path(s.out)
    label_paths = [Path(p) for p in ([s.labels] if isinstance(s.labels, (str, Path)) else s.labels)]
    if not label_paths:
        raise EvalError("expected at least one labels file")
    for path in label_paths:
        if not path.is_file():
            raise EvalError(f"labels file not found: {path}")
    labels_path = label_paths[0]
    suite = load_suite(s.suite)
    lines_read, problems, lines = read_label_files(label_paths, suite.prompt if suite is not None else None)
    trajectories, unlabelled = merge_labels(lines_read)
    problems += unlabelled
    artifact = Artifact(s.model)
    try:
        js = artifact.judge_settings().override(mode=s.mode, topk=s.topk, negatives=s.negatives)
    except ArtifactError as e:
        raise EvalError(str(e)) from e
    main_name, models = load_models(s)
    rm = models[main_name]

    prompts = list(dict.fromkeys(t.prompt for t in trajectories))
    negatives_for, negatives_source, notes = negatives_of(js.negatives, prompts, suite)
    under = {"mode": js.mode, "topk": js.topk, "window": rm.window, "frame_stride": rm.frame_stride,
             "negatives": js.negatives}
    calibration = Calibration.from_dict(artifact.judge().get("calibration"))
    thresholds = None
    if calibration is not None and s.use_calibration and not s.calibrate:  # checked before scoring
        try:
            thresholds = calibration.thresholds_for(**under)
        except CalibrationMismatch as e:
            raise EvalError(f"{artifact.file('judge.json')}: {e}") from e
        notes.append(f"calibrated thresholds read from {artifact.file('judge.json')} (fitted on {calibration.labels})")
    scorer = Scorer(models, negatives_for, mode=js.mode, topk=js.topk)
    scores, more_problems = score_all(scorer, trajectories, s.progress)
    problems = sorted(problems + more_problems, key=lambda p: (p.file or "", p.line))

    judged = {name: judge_tasks(items, thresholds if name == main_name else None) for name, items in scores.items()}
    if s.calibrate and judged.get(main_name):
        fitted = Calibration(**under, labels=str(labels_path.resolve()),
                             tasks={task: {rule: e["rules"][rule]["fit_threshold"] for rule in e["rules"]}
                                    | {"n": e["n"], "prompt": e["prompt"]} for task, e in judged[main_name].items()})
        artifact.write_judge_section("calibration", fitted.to_dict())  # other sections (`commands`) stay
        notes.append(f"calibrated thresholds for {len(fitted.tasks)} task(s) saved to {artifact.file('judge.json')}"
                     " (fitted on these labels: judge other labels with them)")

    retrieval = None
    if s.shards:
        from .retrieval import retrieval_eval

        try:
            retrieval = retrieval_eval(models, s.shards, s.retrieval_max, s.progress)
        except (ValueError, OSError, RuntimeError) as e:  # optional: report it, keep the judge's results
            retrieval = {name: {"error": str(e)} for name in models}
            notes.append(f"retrieval failed: {e}")

    judged_ids = {id(ts.traj) for items in scores.values() for ts in items}
    by_kind = Counter(p.kind for p in problems)
    counts = {"lines": lines, "judged": len(judged_ids), "skipped": len(problems), "by_kind": dict(by_kind)}
    people = people_stats(scores[main_name], judged[main_name]) if scores.get(main_name) else None
    settings = {"model": str(Path(s.model).resolve()), "labels": str(labels_path.resolve()),
                "label_files": [str(p.resolve()) for p in label_paths], "mode": js.mode,
                "window": rm.window, "frame_stride": rm.frame_stride, "first_steps": "repeat", "topk": js.topk,
                "precision": rm.precision,
                "negatives": js.negatives, "negatives_source": negatives_source, "models": list(models),
                "score": "mean of step rewards (frames 1..T-1)", "threshold": "mean of 2 K-means centroids per task"}
    metrics = write_report(out, main_model=main_name, models=judged, scores=scores, problems=problems,
                           counts=counts, settings=settings, retrieval=retrieval, notes=notes, people=people,
                           by_band=judge_by_band(judged, suite))
    return EvalResult(str(out / "report.md"), metrics, lines, counts["judged"], problems,
                      {name: mean_f1(tasks) for name, tasks in judged.items()}, time.time() - t0)
