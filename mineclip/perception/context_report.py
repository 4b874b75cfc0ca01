"""MP5's context tasks in the pipeline's evaluation: the Percipient's head and thresholds fitted on
training worlds and saved with the artifact, the context tasks recorded on held-out worlds, and both judges
(whole prompt, by conditions) on them and on the evaluation set, written as report/perception.md."""

from __future__ import annotations

import json
import time
from pathlib import Path

from mineclip.sim.view import DEFAULT_VIEW, check_view

from .condition_judge import JUDGES


def with_interval(value: float, interval: list[float] | None) -> str:
    """0.85 [0.79, 0.90]: a F1 and its 95% bootstrap interval, when there is one."""
    return f"{value:.2f}" + (f" [{interval[0]:.2f}, {interval[1]:.2f}]" if interval else "")


def judge_table(judges: dict) -> str:
    """Markdown: mean F1 per set and kind for both judges, then per context task, each with its 95%
    bootstrap interval."""
    lines = ["| set | kind | tasks | whole-prompt F1 [95%] | factored F1 [95%] |", "|---|---|---|---|---|"]
    for name, entry in judges["sets"].items():
        for kind, row in entry["by_kind"].items():
            whole, factored = (with_interval(row[j], row.get(f"{j}_interval")) for j in JUDGES)
            lines.append(f"| {name} | {kind} | {row['tasks']} | {whole} | {factored} |")
    ctx = judges["sets"].get("context")
    if ctx:
        lines += ["", ("| context task | conditions | whole F1 [95%] | factored F1 [95%] | F1 where decided | "
                       "abstained | failed (weakest condition) |"), "|---|---|---|---|---|---|---|"]
        for task, t in ctx["tasks"].items():
            decided = "-" if t["decided_f1"] is None else f"{t['decided_f1']:.2f}"
            failed = ", ".join(f"{k} {v}" for k, v in sorted(t["failed"].items(), key=lambda kv: -kv[1]))
            whole, factored = (with_interval(t[f"{j}_f1"], t.get(f"{j}_f1_interval")) for j in JUDGES)
            lines.append(f"| {task} | {len(t['conditions'])} | {whole} | {factored} | {decided} | {t['abstain']:.0%} | "
                         f"{failed} |")
        lines.append(f"\n{ctx['abstained']} abstained context trajectories in {ctx['abstained_file']} "
                     "(`mineclip label FILE --labels OUT.jsonl` serves them to people)")
    return "\n".join(lines)


def evaluate_context(artifact: Path, context: Path, report: Path, labels: Path, tasks: list[str], per_label: int,
                     fit_worlds: int, negatives: str, mode: str, workers: int, view: str = DEFAULT_VIEW) -> dict:
    """Fit and save the thresholds, judge the context tasks (their labelled set in `context`, recorded
    there if missing: `benchmark.record_context`) and the evaluation set, write the report; all in
    `view` (`mineclip.sim.view`: the frames fitted on, the context set, the calibration saved)."""
    from mineclip.reward import RewardModel

    from .benchmark import JudgeSettings, run_judges
    from .calibrate import collect_frames, fit_percipient, save_thresholds

    t0 = time.time()
    rm, frames = RewardModel.load(artifact), collect_frames("perception", fit_worlds, view=check_view(view))
    fitted = fit_percipient(rm, frames)
    head, thresholds = fitted.head, fitted.thresholds
    if head is not None:
        head.save(artifact)
    save_thresholds(artifact, thresholds)
    evaluation = report / "metrics.json"  # the eval stage's scores of the same trajectories, when there
    judges = run_judges(JudgeSettings(str(artifact), str(labels) if labels.is_file() else None,
                                      context_dir=str(context), per_label=per_label,
                                      negatives=negatives, mode=mode, tasks=list(tasks), workers=workers,
                                      progress=True,
                                      evaluation=str(evaluation) if evaluation.is_file() else None, view=view))
    report.mkdir(parents=True, exist_ok=True)
    calibrated = sorted(thresholds["conditions"])
    fitted = ("Percipient thresholds (every condition asked in words: the model's patches are not the "
              "simulator's tiles, so no head)" if head is None else
              f"Percipient head (read-outs of the frozen frame encoder for {', '.join(head.kinds + head.states)}) "
              "and thresholds")
    text = ["# MP5's context tasks: the judge by conditions against the whole-prompt judge", "",
            (f"{fitted} fitted on {thresholds['frames']} frames of {fit_worlds} training worlds "
             f"(target precision {thresholds['target_precision']}), {view} view: {', '.join(calibrated)}; "
             f"saved beside the artifact ({artifact})."), "", judge_table(judges), ""]
    if judges["settings"]["evaluation"]:
        text.insert(-2, ("On the evaluation set, tasks judged by their prompt alone (their conditions are events, "
                         "which no frame shows) score the same under both judges: those scores are the eval "
                         "stage's (report/metrics.json), not computed again.\n"))
    (report / "perception.md").write_text("\n".join(text))
    (report / "perception.json").write_text(json.dumps({"thresholds": thresholds, "judges": judges}, indent=1) + "\n")
    ctx = judges["sets"]["context"]["by_kind"].get("programmatic", {})
    return {"report": str(report / "perception.md"), "context_whole_f1": ctx.get("whole"),
            "context_factored_f1": ctx.get("factored"), "context_whole_interval": ctx.get("whole_interval"),
            "context_factored_interval": ctx.get("factored_interval"),
            "context_abstain": judges["sets"]["context"]["abstain"],
            "calibrated": calibrated, "head": None if head is None else head.kinds + head.states, "view": view,
            "judge_seconds": judges["seconds"], "total_seconds": time.time() - t0}
