"""The pipeline's one-screen summary: F1 per task (trained vs untrained), retrieval R@1 against
chance, and the wall time of each stage."""

from __future__ import annotations

from pathlib import Path

from .run import stage_record


def summary(run: Path, metrics: dict, times: dict[str, float]) -> str:
    """The summary of a finished run from its evaluation metrics and stage times."""
    from mineclip.evaluate.report import format_interval, mean_f1, mean_f1_interval, task_f1
    from mineclip.tasks import get_task

    models = metrics["models"]
    names = list(models)
    tasks = list(next(iter(models.values())))
    kinds = {t: get_task(t).kind for t in tasks}
    pct = lambda v: "-" if v is None else f"{100 * v:.1f}"
    settings = metrics.get("settings") or {}
    negatives, mode = settings.get("negatives", "suite"), settings.get("mode", "direct")
    lines = [f"F1 x 100 of the success judge (mean {mode} step reward, K-means threshold; negatives: {negatives}) "
             f"on held-out worlds{_view_note(run)}",
             f"{'task':<22} {'kind':<13}" + "".join(f"{n[:18]:>20}" for n in names)]
    for t in sorted(tasks, key=lambda t: (kinds[t], t)):
        lines.append(f"{t:<22} {kinds[t]:<13}" + "".join(f"{pct(task_f1(models[n][t])):>20}" for n in names))
    for kind in ("programmatic", "creative"):
        lines.append(f"{'mean ' + kind:<36}" + "".join(
            f"{pct(mean_f1({t: e for t, e in models[n].items() if kinds.get(t) == kind})):>20}" for n in names))
    main = names[0]
    lines.append(f"95% bootstrap intervals of the means ({main}): " + ", ".join(
        f"{kind} {format_interval(mean_f1_interval({t: e for t, e in models[main].items() if kinds.get(t) == kind}))}"
        for kind in ("programmatic", "creative")))
    lost = lost_tasks_line(main, models[main])
    if lost:
        lines.append(lost)
    for n, r in (metrics.get("retrieval") or {}).items():
        if "v2t_R@1" in r:
            lines.append(f"retrieval {n}: video->text R@1 {100 * r['v2t_R@1']:.1f}% over {r['n']} held-out clips "
                         f"(chance {100 * r['chance_R@1']:.1f}%: 1/N, same captions counted as matches)")
    perception = _perception_line(run)
    if perception:
        lines.append(perception)
    lines.append("wall time: " + ", ".join(f"{k} {v:.0f}s" for k, v in times.items())
                 + f", total {sum(times.values()):.0f}s" + _host_note(run))
    lines.append(f"report: {run / 'report' / 'report.md'}")
    return "\n".join(lines)


def lost_tasks_line(name: str, tasks: dict) -> str | None:
    """A warning naming the tasks the judged model scores below `TASK_FLOOR`, or None: one training
    seed in several loses a task outright (README, Results), and a run should not do so silently."""
    from mineclip.evaluate.judge import TASK_FLOOR
    from mineclip.evaluate.report import task_f1

    lost = sorted((f, t) for t, e in tasks.items() if (f := task_f1(e)) is not None and f < TASK_FLOOR)
    if not lost:
        return None
    return (f"warning: {name} scores {len(lost)} task{'s' if len(lost) > 1 else ''} below F1 {100 * TASK_FLOOR:.0f} "
            f"({', '.join(f'{t} {100 * f:.1f}' for f, t in lost)}); which tasks a run loses depends on its "
            "training seed (README, Results: ten seeds): compare seeds with mineclip pipeline --seeds N, or "
            "train another with --train-arg=--seed_everything=S")


def _perception_line(run: Path) -> str | None:
    """One line on MP5's context tasks (the perception stage), when it ran."""
    record = stage_record(run, "perception") or {}
    if record.get("context_factored_f1") is None:
        return None
    from mineclip.evaluate.report import format_interval

    def f1(judge: str) -> str:
        interval = record.get(f"context_{judge}_interval")  # runs before 2026-11-28 recorded none
        return f"{100 * record[f'context_{judge}_f1']:.1f}" + (f" {format_interval(interval)}" if interval else "")

    return (f"context tasks (MP5): F1 x 100 judged by conditions {f1('factored')}, whole prompt {f1('whole')}, "
            f"abstained {100 * record['context_abstain']:.0f}% ({record['report']})")


def _view_note(run: Path) -> str:
    """Which view the run's clips and evaluation set show, when it is not the default."""
    import json

    from mineclip.sim.view import DEFAULT_VIEW

    path = run / "preset.json"
    view = json.loads(path.read_text()).get("view", DEFAULT_VIEW) if path.is_file() else DEFAULT_VIEW
    return "" if view == DEFAULT_VIEW else f", in the {view} view"


def _host_note(run: Path) -> str:
    """Where the training stage ran (cores, vector instructions), which its seconds depend on."""
    host = (stage_record(run, "train") or {}).get("host")
    if not host:
        return ""
    return f" (training on {host['cores']} cores, {host['cpu_capability']})"
