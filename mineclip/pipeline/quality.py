"""The quality report over pipeline runs: the success judge's F1 on held-out worlds, trained vs
untrained, and its spread over training seeds.

For one run (the first): per judged task, the F1 of the paper's rule (mean step reward, K-means
threshold) for each judged model, the means over programmatic and creative tasks against the
targets (`TARGETS`), the robust alternatives (best window, top-k windows) and video-to-text R@1
against chance (`task_f1_table`); the trained model's judge per MCU difficulty band
(`difficulty_band_table`). Over several runs (training seeds, or any finished runs): per run the
two means with their bootstrap intervals, the worst task and whether the targets are met with no
task below `TASK_FLOOR`; then mean +- std over runs, the interval of that mean and how many runs
meet the targets, with a threshold fitted on half of each task's trajectories beside
(`seed_table`). One run says little: the outcome varies a lot from seed to seed.

A run judged with other negatives or another reward formula than the paper's is judged again on
request (`rejudge`, one more `evaluate` of its artifact, kept in the run folder).

`quality_report(QualitySettings)` runs what has not finished (the pipeline, or the training seeds
through `multiseed.run_seeds`) and makes the report: what `mineclip pipeline --seeds N` prints (without
judging again with the paper's negatives) and `bench/quality.py` prints with every option.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mineclip.evaluate.judge import TASK_FLOOR

from .presets import Preset

TARGETS = {"programmatic": 0.90, "creative": 0.80}  # issue 30's mean F1 per task kind


class QualityError(RuntimeError):
    """A run of the report could not be trained or judged."""


@dataclass(frozen=True)
class QualitySettings:
    """What `quality_report` runs and judges. `seeds` (None: the runs as they are) train seed 0 in
    the one run and seed s in `<run>-seed<s>`, with `overrides` (training options), on the run's data
    or `data_from`'s, `jobs` at a time; `paper_negatives` judges runs again with the suite's task
    prompts when they were judged otherwise; `also_mode` judges every run again with that reward."""

    runs: Sequence[Path] = (Path("runs/default"),)
    preset: str | Preset = "default"  # a preset, packaged (by name) or a file, for the runs not yet finished
    seeds: Sequence[int] | None = None
    overrides: dict = field(default_factory=dict)
    data_from: Path | None = None
    jobs: int = 1
    workers: int = 2
    perception: bool = True  # False: the preset's perception stage left out (the report does not read it)
    paper_negatives: bool = True
    also_mode: str | None = None

    def __post_init__(self):
        if not self.runs:
            raise ValueError("expected at least one run folder")
        if self.seeds is not None and (not self.seeds or min(self.seeds) < 0 or len(self.runs) > 1):
            raise ValueError("training seeds (at least one, each >= 0) take one run folder, the base run of the "
                             f"seeds; got seeds {list(self.seeds)} and {len(self.runs)} runs")
        if self.seeds is None and (self.overrides or self.data_from or self.jobs != 1):
            raise ValueError("training options, data_from and jobs apply to the seeds a run trains: give seeds")


@dataclass
class QualityReport:
    """The report's text (None when no run finished), and the seeds that failed, with their errors."""

    text: str | None
    failed: dict[int, Exception] = field(default_factory=dict)


def _trained(metrics: dict) -> dict:
    """The trained model's judgement per task (the evaluation's first model)."""
    return next(iter(metrics["models"].values()))


def task_f1_table(metrics: dict) -> str:
    """Per task and judged model the F1 of the paper's rule; the mean per task kind under each score
    rule (mean, max, topk) against the targets; video-to-text R@1 against chance."""
    from mineclip.evaluate.report import task_f1
    from mineclip.tasks import get_task

    models = metrics["models"]
    names = list(models)
    tasks = list(next(iter(models.values())))
    kinds = {t: get_task(t).kind for t in tasks}
    head = f"{'task':<22}{'kind':<26}" + "".join(f"{n[:22]:>24}" for n in names)
    out = [head, "-" * len(head)]
    for t in sorted(tasks, key=lambda t: (kinds[t], t)):
        out.append(f"{t:<22}{kinds[t]:<26}" + "".join(
            f"{'-' if (f := task_f1(models[n][t])) is None else f'{f:.2f}':>24}" for n in names))
    out.append("-" * len(head))
    for rule in ("mean", "max", "topk"):
        for kind, target in TARGETS.items():
            cells = []
            for n in names:
                vals = [task_f1(models[n][t], rule) for t in tasks if kinds[t] == kind]
                vals = [v for v in vals if v is not None]
                cells.append(f"{sum(vals) / len(vals):.2f} ({len(vals)})" if vals else "-")
            label = f"mean F1 {kind}, score={rule}" + (f" [target {target:.2f}]" if rule == "mean" else "")
            out.append(f"{label:<48}" + "".join(f"{c:>24}" for c in cells))
    for n, r in (metrics.get("retrieval") or {}).items():
        if "v2t_R@1" in r:
            out.append(f"video->text R@1 {n}: {r['v2t_R@1']:.3f} over {r['n']} held-out clips "
                       f"(chance {r['chance_R@1']:.3f})")
    return "\n".join(out)


def difficulty_band_table(metrics: dict) -> str:
    """The trained model's judge per difficulty band (mean F1 of the paper's rule and AUC), and the
    Spearman correlation of the tasks' F1 with each difficulty score (`mineclip.evaluate.bands`)."""
    from mineclip.evaluate.bands import judge_by_band
    from mineclip.tasks.judging import SUITE

    trained = next(iter(metrics["models"]))
    by_band = judge_by_band({trained: metrics["models"][trained]}, SUITE)
    if by_band is None:
        return "no difficulty scores cached: run `mineclip tasks difficulty --recompute` for the per-band table"
    out = [f"{'difficulty band':<18}{'tasks':>6}{'mean F1':>10}{'mean AUC':>10}  tasks"]
    for b, r in by_band["bands"][trained].items():
        f1 = "-" if r["mean_f1"] is None else f"{r['mean_f1']:.3f}"
        auc = "-" if r["mean_auc"] is None else f"{r['mean_auc']:.3f}"
        out.append(f"{b:<18}{len(r['tasks']):>6}{f1:>10}{auc:>10}  {', '.join(r['tasks'])}")
    cells = [f"{k} {v:+.2f}" for k, v in by_band["spearman"][trained].items() if v is not None]
    if cells:
        out.append("Spearman rank correlation of F1 with the difficulty scores (negative: worse on harder tasks): "
                   + ", ".join(cells))
    return "\n".join(out)


def cross_calibrated_task_f1(entry: dict) -> float:
    """`thresholds.cross_calibrated_f1` of one task's judgement under the paper's score (mean step reward)."""
    from mineclip.evaluate.thresholds import cross_calibrated_f1

    km = entry["rules"]["mean"]["kmeans"]
    return cross_calibrated_f1(km["scores"], km["labels"])


def kind_means(metrics: dict, f1: Callable[[dict], float | None] | None = None) -> dict[str, float]:
    """Mean F1 per task kind of the trained model (the report's first model); `f1(entry)` scores a
    task (default: the paper's rule). NaN for a kind with no task."""
    from mineclip.evaluate.report import task_f1
    from mineclip.tasks import get_task

    f1 = f1 or task_f1
    out = {}
    for kind in TARGETS:
        vals = [f for t, e in _trained(metrics).items() if get_task(t).kind == kind and (f := f1(e)) is not None]
        out[kind] = sum(vals) / len(vals) if vals else float("nan")
    return out


def worst_task(metrics: dict) -> tuple[str, float]:
    """The trained model's task of lowest F1 under the paper's rule, and that F1."""
    from mineclip.evaluate.report import task_f1

    return min(((t, f) for t, e in _trained(metrics).items() if (f := task_f1(e)) is not None), key=lambda x: x[1])


def kind_mean_intervals(metrics: dict) -> dict[str, list[float] | None]:
    """Per task kind, the 95% bootstrap interval of the trained model's mean F1 (this run's
    evaluation set resampled; mineclip.evaluate.bootstrap)."""
    from mineclip.evaluate.report import mean_f1_interval
    from mineclip.tasks import get_task

    trained = _trained(metrics)
    return {kind: mean_f1_interval({t: e for t, e in trained.items() if get_task(t).kind == kind}) for kind in TARGETS}


def seed_interval(values, replicates: int = 10_000) -> list[float]:
    """95% percentile bootstrap interval of the mean over runs (the runs resampled with replacement)."""
    import numpy as np

    from mineclip.evaluate.bootstrap import interval

    v = np.asarray(values, dtype=float)
    return interval(v[np.random.default_rng(0).integers(0, len(v), (replicates, len(v)))].mean(axis=1))


def seed_table(runs: dict[str, dict], floor: float = TASK_FLOOR) -> str:
    """Per run (name -> its evaluation metrics) the two means with their bootstrap intervals, the
    worst task, and whether both targets are met with no task below `floor`; then mean +- std over
    runs, the interval of that mean (the runs resampled), how many runs meet the targets, and the
    means of a threshold fitted on half of each task's trajectories (`cross_calibrated_task_f1`)."""
    import numpy as np

    head = (f"{'run':<28}" + "".join(f"{k + ' [95% interval]':>30}" for k in TARGETS)
            + f"  {'worst task':<28}{'targets':>9}{f'+ all >= {floor:.2f}':>15}")
    out = [head, "-" * len(head)]
    means = {name: kind_means(m) for name, m in runs.items()}
    ok, ok_floor = 0, 0
    for name, m in runs.items():
        iv, (task, f1) = kind_mean_intervals(m), worst_task(m)
        met = all(means[name][k] >= t for k, t in TARGETS.items())
        ok, ok_floor = ok + met, ok_floor + (met and f1 >= floor)
        cells = "".join(f"{means[name][k]:>12.3f} [{iv[k][0]:.3f}, {iv[k][1]:.3f}]" if iv[k]
                        else f"{means[name][k]:>30.3f}" for k in TARGETS)
        out.append(f"{name[-28:]:<28}{cells}  {f'{task} {f1:.3f}':<28}{'yes' if met else 'no':>9}"
                   f"{'yes' if met and f1 >= floor else 'no':>15}")
    out.append("-" * len(head))
    cells = []
    for k in TARGETS:
        v = np.array([m[k] for m in means.values()])
        lo, hi = seed_interval(v)
        cells.append(f"{v.mean():.3f} +- {v.std(ddof=1) if len(v) > 1 else 0:.3f} [{lo:.3f}, {hi:.3f}]")
    out.append(f"{f'mean +- std [95%] over {len(means)}':<28}" + "".join(f"{c:>30}" for c in cells)
               + f"  {'':<28}{f'{ok} of {len(means)}':>9}{f'{ok_floor} of {len(means)}':>15}")
    out.append("targets: mean F1 " + ", ".join(f"{k} >= {t:.2f}" for k, t in TARGETS.items())
               + f"; the issue's bar: 9 of 10 seeds meet both with no task below {floor:.2f}")
    xcal = {name: kind_means(m, cross_calibrated_task_f1) for name, m in runs.items()}
    out.append("not the paper's rule: a threshold fitted on half of each task's trajectories, judging the other "
               "half (both ways): mean F1 " + ", ".join(
                   f"{k} {np.mean([m[k] for m in xcal.values()]):.3f}" for k in TARGETS))
    return "\n".join(out)


def rejudge(run: Path, negatives: str | None = None, mode: str | None = None) -> dict:
    """The run's judgement with other `negatives` and/or another reward `mode` (None: the run's own):
    the run's own metrics when it was judged so, else one more `evaluate` of its artifact into
    `<run>/report-<negatives>-negatives` (or `-<mode>`, or both), kept for the next call."""
    metrics = json.loads((run / "report" / "metrics.json").read_text())
    st = metrics["settings"]
    own_negatives, own_mode = st.get("negatives", "suite"), st.get("mode", "direct")
    negatives, mode = negatives or own_negatives, mode or own_mode
    if (negatives, mode) == (own_negatives, own_mode):
        return metrics
    parts = ([f"{negatives}-negatives"] if negatives != own_negatives else []) + ([mode] if mode != own_mode else [])
    out = run / f"report-{'-'.join(parts)}"
    if (out / "metrics.json").is_file():
        return json.loads((out / "metrics.json").read_text())
    from mineclip.evaluate.run import EvalError, EvalSettings, evaluate

    labels = Path(st["labels"])
    local = run / "evalset" / labels.name  # the run folder's own copy, should the run have moved
    try:
        return evaluate(EvalSettings(model=str(run / "artifact"), labels=str(local if local.is_file() else labels),
                                     out=str(out), negatives=negatives, mode=mode, untrained=False,
                                     progress=False)).metrics
    except EvalError as e:
        raise QualityError(f"judging {run / 'artifact'} (negatives {negatives}, {mode} reward) failed: {e}") from e


def finish_runs(s: QualitySettings) -> tuple[list[Path], dict[int, Exception], list[str]]:
    """Run what has not finished: the pipeline in each run folder, or the training seeds. Returns the
    finished runs, the seeds that failed with their errors, and the summaries of pipelines run here."""
    from dataclasses import replace

    from mineclip.train.configs import ConfigError

    from .multiseed import is_finished, run_seeds, seed_runs
    from .presets import load_preset
    from .run import StageError, run_pipeline
    from .summary import summary

    runs = [Path(r) for r in s.runs]
    if s.seeds is None and all(is_finished(r) for r in runs):
        return runs, {}, []
    try:
        preset = s.preset if isinstance(s.preset, Preset) else load_preset(s.preset)
        if not s.perception:
            preset = replace(preset, perception=None)
        if s.seeds is None:
            return runs, {}, [summary(run, *run_pipeline(run, preset)) for run in runs if not is_finished(run)]
        failed = run_seeds(runs[0], preset, s.seeds, s.overrides, s.data_from, s.jobs, s.workers)
    except (ConfigError, StageError, ValueError) as e:
        raise QualityError(str(e)) from e
    return [r.run for r in seed_runs(runs[0], s.seeds) if r.seed not in failed], failed, []


def quality_tables(runs: Sequence[Path], paper_negatives: bool = True, also_mode: str | None = None) -> str:
    """The report on finished runs (see the module): the first run's tables, the spread over the runs,
    and the same judged with the paper's negatives and/or `also_mode` (one more evaluation of each
    run's artifact, kept in its folder)."""
    metrics = {str(run): json.loads((Path(run) / "report" / "metrics.json").read_text()) for run in runs}
    first = next(iter(metrics.values()))
    negatives, mode = first["settings"].get("negatives", "suite"), first["settings"].get("mode", "direct")
    out = [f"negatives: {negatives} ({first['settings'].get('negatives_source', '')}); reward: {mode}",
           task_f1_table(first), "", difficulty_band_table(first)]
    paper = ({name: rejudge(Path(name), negatives="suite") for name in metrics}
             if negatives != "suite" and paper_negatives else None)
    if paper:
        out.append("with the paper's negatives (the suite's other task prompts only): mean F1 "
                   + ", ".join(f"{k} {v:.3f}" for k, v in kind_means(next(iter(paper.values()))).items()))
    if len(metrics) > 1:
        out += ["", seed_table(metrics)]
        if paper:
            out += ["\nthe same runs judged with the paper's negatives:", seed_table(paper)]
    if also_mode and also_mode != mode:
        other = {name: rejudge(Path(name), mode=also_mode) for name in metrics}
        out += [f"\nthe same runs judged with the {also_mode} reward:", seed_table(other) if len(other) > 1 else
                ", ".join(f"{k} {v:.3f}" for k, v in kind_means(next(iter(other.values()))).items())]
    return "\n".join(out)


def quality_report(s: QualitySettings) -> QualityReport:
    """Run what has not finished (`finish_runs`) and report on the runs that finished (`quality_tables`),
    after the summaries of the pipelines run here."""
    runs, failed, summaries = finish_runs(s)
    if not runs:
        return QualityReport(None, failed)
    return QualityReport("\n".join(summaries + [quality_tables(runs, s.paper_negatives, s.also_mode)]), failed)
