"""The evaluation report: report.md (table 2 of the paper: F1 per task per model), metrics.json and plots."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Sequence

import numpy as np

from mineclip.extras import pyplot

from .judge import SCORE_RULES
from .scoring import TrajectoryScore
from .trajectories import Problem


def task_f1(entry: dict, rule: str = "mean", threshold: str = "kmeans") -> float | None:
    """F1 of one task's judgement under a score rule and threshold rule (None if not judged so)."""
    j = entry["rules"].get(rule, {}).get(threshold)
    return None if j is None else j["metrics"]["f1"]


def mean_f1(tasks: dict, rule: str = "mean", threshold: str = "kmeans") -> float | None:
    vals = [v for v in (task_f1(e, rule, threshold) for e in tasks.values()) if v is not None]
    return float(np.mean(vals)) if vals else None


def mean_f1_interval(tasks: dict) -> list[float] | None:
    """95% bootstrap interval of the mean F1 of the paper's judge over `tasks` (mineclip.evaluate.bootstrap)."""
    from .bootstrap import mean_f1_interval as bootstrap_mean

    return bootstrap_mean({t: e["rules"]["mean"]["kmeans"] for t, e in tasks.items() if "mean" in e["rules"]})


def format_interval(v: list[float] | None) -> str:
    return "-" if not v else f"[{100 * v[0]:.1f}, {100 * v[1]:.1f}]"


def interval_table(tasks: dict) -> str:
    """Per task: F1 x 100 of the paper's judge and its 95% bootstrap interval, then the mean's."""
    rows = ["| task | n (+/-) | F1 | 95% interval |", "|---|---|---|---|"]
    for task, e in tasks.items():
        j = e["rules"]["mean"]["kmeans"]
        rows.append(f"| {task} | {e['n']} ({e['positives']}/{e['negatives']}) | {_pct(j['metrics']['f1'])} | "
                    f"{format_interval(j.get('f1_interval'))} |")
    rows.append(f"| **mean** | | **{_pct(mean_f1(tasks))}** | {format_interval(mean_f1_interval(tasks))} |")
    return "\n".join(rows)


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.1f}"


def f1_table(models: dict[str, dict], rule: str = "mean", threshold: str = "kmeans") -> str:
    """Rows: models; columns: tasks and their mean; cells: F1 x 100 (the paper's table 2)."""
    tasks = sorted({t for m in models.values() for t in m})
    head = "| model | " + " | ".join(tasks) + " | mean |"
    rows = [head, "|" + "---|" * (len(tasks) + 2)]
    for name, mt in models.items():
        cells = [_pct(task_f1(mt[t], rule, threshold)) if t in mt else "-" for t in tasks]
        rows.append(f"| {name} | " + " | ".join(cells) + f" | {_pct(mean_f1(mt, rule, threshold))} |")
    return "\n".join(rows)


def detail_table(tasks: dict) -> str:
    """Per task: counts, AUC, K-means threshold, P/R/acc/F1 of the paper's rule, and the alternatives."""
    has_cal = any("calibrated" in r for e in tasks.values() for r in e["rules"].values())
    cols = ["task", "prompt", "n (+/-)", "AUC", "threshold", "precision", "recall", "accuracy", "F1 mean",
            "F1 max", "F1 top-k"] + (["F1 calibrated (mean)"] if has_cal else []) + ["labels"]
    rows = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for task, e in tasks.items():
        j = e["rules"]["mean"]["kmeans"]
        m = j["metrics"]
        auc = j["auc"]
        cells = [task, e["prompt"], f"{e['n']} ({e['positives']}/{e['negatives']})",
                 "-" if auc is None else f"{auc:.3f}", f"{j['threshold']:.4g}", f"{m['precision']:.3f}",
                 f"{m['recall']:.3f}", f"{m['accuracy']:.3f}", _pct(m["f1"]),
                 _pct(task_f1(e, "max", "kmeans")), _pct(task_f1(e, "topk", "kmeans"))]
        if has_cal:
            cells.append(_pct(task_f1(e, "mean", "calibrated")))
        cells.append(", ".join(f"{k} {v}" for k, v in sorted(e.get("labels", {}).items())) or "-")
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def retrieval_table(retrieval: dict[str, dict]) -> str:
    keys = ["v2t_R@1", "v2t_R@5", "v2t_R@10", "v2t_median_rank", "t2v_R@1", "t2v_R@5", "t2v_R@10", "t2v_median_rank"]
    rows = ["| model | n | " + " | ".join(keys) + " |", "|" + "---|" * (len(keys) + 2)]
    for name, r in retrieval.items():
        if "error" in r:
            rows.append(f"| {name} | - | " + " | ".join(["-"] * len(keys)) + " |")
            continue
        cells = [f"{r[k]:.1f}" if "median" in k else f"{100 * r[k]:.1f}" for k in keys]
        rows.append(f"| {name} | {r.get('n', '-')} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


# --------------------------------------------------------------------------- plots
def _plt():
    return pyplot("the judge's plots")


def _grid(n: int) -> tuple[int, int]:
    cols = min(4, max(1, n))
    return math.ceil(n / cols), cols


def plot_score_distributions(tasks: dict, path: Path, title: str, rule: str = "mean") -> Path:
    """Per task: scores of successes and failures (jittered strips) and the K-means threshold."""
    plt = _plt()
    rows, cols = _grid(len(tasks))
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 2.6 * rows), squeeze=False)
    rng = np.random.default_rng(0)
    for ax, (task, e) in zip(axes.flat, tasks.items()):
        j = e["rules"][rule]["kmeans"]
        s, y = np.asarray(j["scores"]), np.asarray(j["labels"])
        for lab, colour, name in ((1, "tab:green", "success"), (0, "tab:red", "failure")):
            v = s[y == lab]
            ax.scatter(v, lab + rng.uniform(-0.15, 0.15, v.size), s=12, alpha=0.7, c=colour, label=name)
        ax.axvline(j["threshold"], color="k", ls="--", lw=1, label="K-means threshold")
        cal = e["rules"][rule].get("calibrated")
        if cal:
            ax.axvline(cal["threshold"], color="tab:blue", ls=":", lw=1, label="calibrated")
        ax.set_yticks([0, 1], ["fail", "success"])
        ax.set_title(f"{task}  F1 {100 * j['metrics']['f1']:.0f}", fontsize=9)
        ax.set_xlabel(f"score ({rule} step reward)", fontsize=8)
    for ax in list(axes.flat)[len(tasks):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7, loc="best")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def plot_reward_curves(scores: Sequence[TrajectoryScore], path: Path, title: str, per_class: int = 3) -> Path:
    """P of the prompt over time for a few successes and failures."""
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.2), sharey=True)
    for ax, lab, name in ((axes[0], 1, "successes"), (axes[1], 0, "failures")):
        picked = [ts for ts in scores if ts.traj.label == lab][:per_class]
        for ts in picked:
            ax.plot(np.arange(len(ts.prob)), ts.prob, lw=1.2, label=f"{ts.traj.id} ({ts.traj.task})")
        ax.set_title(f"{name} (labelled)", fontsize=9)
        ax.set_xlabel("step")
        if picked:
            ax.legend(fontsize=6)
    axes[0].set_ylabel("P(prompt) over window")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def plot_confusions(tasks: dict, path: Path, title: str, rule: str = "mean") -> Path:
    """Confusion matrices [[TN, FP], [FN, TP]] per task."""
    plt = _plt()
    rows, cols = _grid(len(tasks))
    fig, axes = plt.subplots(rows, cols, figsize=(2.8 * cols, 2.6 * rows), squeeze=False)
    for ax, (task, e) in zip(axes.flat, tasks.items()):
        cm = np.asarray(e["rules"][rule]["kmeans"]["metrics"]["confusion"])
        ax.imshow(cm, cmap="Blues", vmin=0, vmax=max(1, cm.max()))
        for (i, k), v in np.ndenumerate(cm):
            ax.text(k, i, str(v), ha="center", va="center", fontsize=10)
        ax.set_xticks([0, 1], ["pred fail", "pred success"], fontsize=7)
        ax.set_yticks([0, 1], ["fail", "success"], fontsize=7)
        ax.set_title(task, fontsize=8)
    for ax in list(axes.flat)[len(tasks):]:
        ax.axis("off")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


# --------------------------------------------------------------------------- report
def _slug(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)


def write_report(out: Path, *, main_model: str, models: dict[str, dict], scores: dict[str, list[TrajectoryScore]],
                 problems: list[Problem], counts: dict, settings: dict, retrieval: dict | None = None,
                 notes: Sequence[str] = (), people: dict | None = None, by_band: dict | None = None) -> dict:
    """Write report.md, metrics.json and the plots into `out`; return the metrics dict."""
    out.mkdir(parents=True, exist_ok=True)
    plots: dict[str, dict[str, str]] = {}
    for name, tasks in models.items():
        if not tasks:
            continue
        slug = _slug(name)
        plots[name] = {
            "scores": plot_score_distributions(tasks, out / f"scores_{slug}.png", f"{name}: scores per task").name,
            "confusion": plot_confusions(tasks, out / f"confusion_{slug}.png", f"{name}: confusion matrices").name,
        }
    if scores.get(main_model):
        plots.setdefault(main_model, {})["curves"] = plot_reward_curves(
            scores[main_model], out / "reward_curves.png", f"{main_model}: P(prompt) over time").name

    metrics = {
        "settings": settings,
        "counts": counts,
        "problems": [p.__dict__ for p in problems],
        "summary": {name: {f"mean_f1_{rule}_{th}": mean_f1(tasks, rule, th)
                           for rule in SCORE_RULES for th in ("kmeans", "calibrated")}
                    | {"mean_f1_mean_kmeans_interval": mean_f1_interval(tasks)}
                    for name, tasks in models.items()},
        "models": models,
        "retrieval": retrieval or {},
        "plots": plots,
        "people": people,
        "difficulty_bands": by_band,
    }
    (out / "metrics.json").write_text(json.dumps(metrics, indent=1, default=float) + "\n")

    md = [f"# Success-judge evaluation: {main_model}", ""]
    files = settings.get("label_files") or [settings.get("labels")]
    md += [f"Labels: {', '.join(f'`{f}`' for f in files)}; reward `{settings.get('mode')}` over a "
           f"{settings.get('window')}-frame window, {settings.get('negatives_source')}"
           + (f"; frame encoder in {settings['precision']}" if settings.get("precision") else "") + ".", ""]
    md += ["## F1 per task (paper's rule: mean step reward, K-means threshold)", "",
           "F1 x 100, as in table 2 of the MineDojo paper.", "", f1_table(models), ""]
    if models.get(main_model):
        md += [f"### 95% bootstrap intervals: {main_model}", "",
               "Successes and failures of each task resampled with replacement (2,000 replicates, counts kept), "
               "each replicate judged with its own K-means threshold (mineclip.evaluate.bootstrap).", "",
               interval_table(models[main_model]), ""]
    if by_band:
        md += band_section(by_band)
    if people:
        md += people_section(people)
    md += ["## Robust alternatives", "", "Best-window score (`max`), mean of the top-k windows (`topk`) and, where "
           "the artifact carries one, a calibrated fixed threshold (`judge.json`).", ""]
    for rule in ("max", "topk"):
        md += [f"### score = {rule}, K-means threshold", "", f1_table(models, rule), ""]
    if any("calibrated" in r for m in models.values() for e in m.values() for r in e["rules"].values()):
        md += ["### score = mean, calibrated threshold", "", f1_table(models, "mean", "calibrated"), ""]
    for name, tasks in models.items():
        if tasks:
            md += [f"## Details: {name}", "", detail_table(tasks), ""]
            for kind, f in plots.get(name, {}).items():
                md.append(f"![{kind}]({f})")
            md.append("")
    if retrieval:
        md += ["## Retrieval on held-out shards", "", "R@k in %, median rank (1 = best).", "",
               retrieval_table(retrieval), ""]
    md += ["## Input", "", f"- lines read: {counts['lines']}", f"- trajectories judged: {counts['judged']}",
           f"- skipped: {counts['skipped']}" + (f" ({', '.join(f'{k}: {v}' for k, v in counts['by_kind'].items())})"
                                                if counts["by_kind"] else ""), ""]
    if problems:
        md += ["| line | id | problem | detail |", "|---|---|---|---|"]
        md += [f"| {p.line} | {p.id or '-'} | {p.kind} | {p.message.replace('|', '/')} |" for p in problems]
        md.append("")
    if notes:
        md += ["## Notes", ""] + [f"- {n}" for n in notes] + [""]
    (out / "report.md").write_text("\n".join(md))
    return metrics


def band_section(by_band: dict) -> list[str]:
    """report.md's section on `bands.judge_by_band`: mean F1 per band for each model, then the first
    model's rank correlations."""
    names = list(by_band["bands"])
    first = by_band["bands"][names[0]]
    md = ["## F1 per difficulty band (MCU)", "",
          "Bands: terciles of the overall difficulty score over the task catalogue (`mineclip tasks "
          "difficulty`). F1 x 100 (paper's rule), in brackets the mean ROC AUC.", "",
          "| band | tasks | " + " | ".join(names) + " |", "|---|---|" + "---|" * len(names)]
    for b, row in first.items():
        cells = []
        for n in names:
            r = by_band["bands"][n][b]
            cells.append("-" if r["mean_f1"] is None else
                         f"{100 * r['mean_f1']:.1f}" + ("" if r["mean_auc"] is None else f" ({r['mean_auc']:.2f})"))
        md.append(f"| {b} | {', '.join(row['tasks']) or '-'} | " + " | ".join(cells) + " |")
    rho = by_band["spearman"][names[0]]
    md += ["", f"Spearman rank correlation of {names[0]}'s F1 with each score (negative: worse on harder "
           "tasks): " + ", ".join(f"{k} {'-' if v is None else f'{v:+.2f}'}" for k, v in rho.items()) + ".", ""]
    return md


def _kappa(v: float | None) -> str:
    return "-" if v is None else f"{v:.2f}"


def _share(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.0f}%"


def _agree(row: dict) -> str:
    return "-" if not row["n"] else f"{_kappa(row['kappa'])} ({100 * row['agreement']:.0f}% of {row['n']})"


def people_section(people: dict) -> list[str]:
    """report.md's section on human labels: the judge against people, and agreement."""
    labellers = ", ".join(f"`{k}` {v}" for k, v in sorted(people["labellers"].items()))
    est = people["estimate"]
    md = ["## The judge against people", "",
          f"Human labels (`labeller` = `human:<name>`), labels per person: {labellers}. A trajectory is judged "
          "against people's majority where people labelled it, else against the success criterion or oracle "
          "(the `labels` column of the details says which: `people` or the labeller). Kappa: Cohen's; "
          "in brackets the share of trajectories on which the two agree.", "",
          "| task | people-labelled (of n) | labellers | ties | F1 vs people | F1 vs criterion/oracle, same "
          "trajectories | F1 vs criterion/oracle, all | kappa people-criterion/oracle | kappa people-judge |",
          "|---|---|---|---|---|---|---|---|---|"]
    for task, r in people["tasks"].items():
        md.append(f"| {task} | {r['people']} ({r['n']}) | {r['labellers']} | {r['ties']} | {_pct(r['f1_people'])} | "
                  f"{_pct(r['f1_reference_same'])} | {_pct(r['f1_reference'])} | {_agree(r['people_vs_reference'])} | "
                  f"{_agree(r['people_vs_judge'])} |")
    md += [f"| **mean** | | | | **{_pct(people['mean_f1_people'])}** | **{_pct(people['mean_f1_reference_same'])}** "
           f"| | {_agree(people['people_vs_reference'])} | {_agree(people['people_vs_judge'])} |", "",
           f"Estimated mean F1 against people over all {est['total']} judged trajectories, {est['labelled']} of "
           f"them labelled by people: **{_pct(est['estimate'])}** ({100 * est['level']:.0f}% interval "
           f"{_pct(est['low'])}-{_pct(est['high'])}; unlabelled ones drawn from the agreement on labelled ones, "
           "`mineclip/evaluate/estimate.py`; cautious when people labelled the trajectories nearest the judge's "
           "threshold, as `mineclip label --model` shows them).", ""]
    md += ["### Agreement between labellers", ""]
    if people["pairwise"]:
        md += ["| labeller | labeller | both labelled | agreement | Cohen's kappa |", "|---|---|---|---|---|"]
        md += [f"| `{p['a']}` | `{p['b']}` | {p['n']} | {_share(p['agreement'])} | {_kappa(p['kappa'])} |"
               for p in people["pairwise"]]
        md += ["", f"Fleiss' kappa over the {people['fleiss']['n']} trajectories with two or more labellers: "
                   f"{_kappa(people['fleiss']['kappa'])}.", ""]
    else:
        md += ["One labeller: no agreement between people to measure.", ""]
    return md
