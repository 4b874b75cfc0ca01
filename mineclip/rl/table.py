"""The RL table in the form of the MineDojo paper's table 1 (success rate per task and reward
variant) as markdown and JSON, and a PNG of the learning curves, aggregated the `rliable` way
(mineclip.rl.stats): interquartile mean over seeds with a stratified bootstrap 95% interval, per
task and over all tasks' runs pooled; the learned reward against the dense reward (ratio of IQMs)
and against the success bonus alone (difference of IQMs); curves of the IQM with bootstrap bands."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from mineclip.extras import pyplot

from .envs import VARIANTS
from .stats import aggregate, compare, curve_band
from .train import PROXIMITY_REWARD_MODES

COLUMNS = {"mineclip": "MineCLIP reward + success", "sparse": "success only", "dense": "manual dense"}
CURVE_POINTS = 12
CURVE_WINDOW = 0.25  # of the run's env steps


def collect(out: str | Path) -> list[dict]:
    """Every run_dir/result.json under out/runs."""
    return [json.loads(p.read_text()) for p in sorted(Path(out).glob("runs/*/*/seed*/result.json"))]


ALL = "all tasks"  # the row of every task's runs pooled (stratified by task)


def summarise(results: list[dict]) -> dict:
    """{"tasks", "variants", "cells": {task: {variant: {iqm, ci, mean, std, seeds, per_seed, ...}}},
    "all": {variant: {iqm, ci, mean, runs}}, "comparisons": {task or ALL: {...}}, "compute": {...}}."""
    tasks = list(dict.fromkeys(r["task"] for r in results))
    variants = [v for v in VARIANTS if any(r["variant"] == v for r in results)]
    cells: dict = {}
    for t in tasks:
        cells[t] = {}
        for v in variants:
            runs = sorted((r for r in results if r["task"] == t and r["variant"] == v), key=lambda r: r["seed"])
            if not runs:
                continue
            rates = np.array([r["success_rate"] for r in runs])
            agg = aggregate([rates], f"{t}/{v}")
            cells[t][v] = {"iqm": agg["iqm"], "ci": agg["ci"],
                           "mean": float(rates.mean()), "std": float(rates.std()), "seeds": [r["seed"] for r in runs],
                           "per_seed": rates.tolist(), "eval_episodes": int(runs[0]["eval"]["episodes"]),
                           "train_env_steps": int(runs[0]["train"]["env_steps"]),
                           "dense_reward_defined": bool(runs[0].get("dense_reward_defined", True)),
                           "obs": runs[0]["config"].get("obs", "features")}
    pooled = {}
    for v in variants:
        strata = {t: cells[t][v]["per_seed"] for t in tasks if v in cells[t]}
        if strata:
            pooled[v] = aggregate(list(strata.values()), f"{ALL}/{v}")
    comparisons = {}
    for key in tasks + ([ALL] if len(tasks) > 1 else []):
        keys = tasks if key == ALL else [key]
        per = {v: {t: cells[t][v]["per_seed"] for t in keys if v in cells[t]} for v in variants}
        comp = {}
        for other in ("dense", "sparse"):
            if "mineclip" in per and other in per and per["mineclip"] and per[other]:
                comp[f"mineclip_vs_{other}"] = compare(per["mineclip"], per[other], f"{key}/mineclip-{other}")
        if comp:
            comparisons[key] = comp
    secs = [r["wall_s"]["total"] for r in results]
    steps = [r["train"]["env_steps"] for r in results]
    compute = {"runs": len(results), "run_seconds_total": float(np.sum(secs)),
               "run_seconds_median": float(np.median(secs)), "env_steps_total": int(np.sum(steps)),
               "per_variant_run_seconds_median": {
                   v: float(np.median([r["wall_s"]["total"] for r in results if r["variant"] == v]))
                   for v in variants}}
    modes = sorted({r["config"].get("reward_mode", "direct") for r in results if r["variant"] == "mineclip"})
    return {"tasks": tasks, "variants": variants, "cells": cells, "all": pooled, "comparisons": comparisons,
            "compute": compute, "learned_reward_modes": modes}


def column_names(summary: dict) -> dict[str, str]:
    """The table's column name of each variant; the learned one says which learned reward it was."""
    columns = dict(COLUMNS)
    modes = summary.get("learned_reward_modes") or []
    if len(modes) == 1 and modes[0] in PROXIMITY_REWARD_MODES:  # "learned proximity progress + success"
        columns["mineclip"] = f"learned {modes[0].replace('-', ' ')} + success"
    return columns


def _fmt(cell: dict | None) -> str:
    if cell is None:
        return "–"
    lo, hi = cell["ci"]
    return f"{100 * cell['iqm']:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]"


def _per_seed(cell: dict | None) -> str:
    return "–" if cell is None else " ".join(f"{100 * x:.0f}" for x in cell["per_seed"])


def _fmt_comparison(comp: dict | None) -> tuple[str, str]:
    if not comp:
        return "–", "–"
    ratio = "–"
    d = comp.get("mineclip_vs_dense")
    if d and d["ratio"] is not None:
        lo, hi = d["ratio_ci"]
        ratio = f"{100 * d['ratio']:.0f}% [{100 * lo:.0f}, {'∞' if hi is None else f'{100 * hi:.0f}'}]"
    diff = "–"
    s = comp.get("mineclip_vs_sparse")
    if s:
        lo, hi = s["difference_ci"]
        diff = f"{100 * s['difference']:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]"
    return ratio, diff


def markdown(summary: dict, meta: dict | None = None) -> str:
    """The table: rows tasks (and all tasks pooled), columns reward variants, success rate % as IQM
    [95% CI] over seeds; then the learned reward against the others, and the per-seed values."""
    variants = summary["variants"]
    comps = summary.get("comparisons", {})
    with_comp = bool(comps)
    columns = column_names(summary)
    head = ["task"] + [columns.get(v, v) for v in variants]
    if with_comp:
        head += ["learned / dense", "learned - bonus only"]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    rows = [(t, summary["cells"][t]) for t in summary["tasks"]]
    if len(summary["tasks"]) > 1 and summary.get("all"):
        rows.append((ALL, summary["all"]))
    for t, cells in rows:
        row = [t if t != ALL else f"**{ALL}**"] + [_fmt(cells.get(v)) for v in variants]
        if with_comp:
            row += list(_fmt_comparison(comps.get(t)))
        lines.append("| " + " | ".join(row) + " |")
    if summary["tasks"] and variants:
        first = next(iter(summary["cells"][summary["tasks"][0]].values()))
        seed_sets = {tuple(c["seeds"]) for cells in summary["cells"].values() for c in cells.values()}
        same = len(seed_sets) == 1
        lines.append("")
        n_seeds = len(first["seeds"]) if same else "the"
        lines.append(f"Success rate in % over {first['eval_episodes']} evaluation episodes per run on held-out "
                     f"worlds: interquartile mean over {n_seeds} seeds [stratified bootstrap 95% "
                     f"interval]; {first['train_env_steps']:,} PPO env steps per run; policy input "
                     f"`{first.get('obs', 'features')}`.")
        if with_comp:
            lines.append("learned / dense: the learned reward's IQM as a share of the dense reward's; learned - "
                         "bonus only: the difference of IQMs in points (each with its bootstrap 95% interval).")
        lines.append("")
        if same:
            lines.append("Per-seed success (%), seeds " + ", ".join(str(s) for s in first["seeds"]) + ":")
        else:  # a variant or task still missing seeds: say whose runs each cell holds
            lines.append("Per-seed success (%), in seed order; the cells do not hold the same seeds: " + "; ".join(
                f"{t} {columns.get(v, v)}: {', '.join(map(str, c['seeds']))}"
                for t, cells in summary["cells"].items() for v, c in cells.items()) + ":")
        lines.append("")
        lines.append("| task | " + " | ".join(columns.get(v, v) for v in variants) + " |")
        lines.append("|---|" + "---:|" * len(variants))
        for t in summary["tasks"]:
            cells = summary["cells"][t]
            lines.append(f"| {t} | " + " | ".join(_per_seed(cells.get(v)) for v in variants) + " |")
    compute = summary.get("compute")
    if compute:
        lines.append("")
        lines.append(f"Compute: {compute['runs']} runs, {compute['env_steps_total']:,} env steps, "
                     f"{compute['run_seconds_total'] / 60:.1f} min of run time summed over runs (one CPU thread "
                     f"each; median {compute['run_seconds_median']:.0f} s per run: " + ", ".join(
                         f"{v} {s:.0f} s" for v, s in compute["per_variant_run_seconds_median"].items()) + ").")
    for key, value in (meta or {}).items():
        lines.append(f"- {key}: {value}")
    return "\n".join(lines) + "\n"


def _curve(run: dict, points: np.ndarray, width: float) -> np.ndarray:
    """Success rate of the training episodes that ended within `width` env steps before each point
    (a sliding window: short successful episodes end first, so narrow bins would over-count them)."""
    steps = np.array([e[0] for e in run["curve"]], dtype=float)
    ok = np.array([e[1] for e in run["curve"]], dtype=float)
    out = np.full(len(points), np.nan)
    for i, x in enumerate(points):
        m = (steps > x - width) & (steps <= x)
        if m.any():
            out[i] = ok[m].mean()
    return out


def plot(results: list[dict], path: str | Path) -> Path:
    """Training success rate against env steps, one panel per task: IQM over seeds with a bootstrap
    95% band."""
    plt = pyplot("RL learning curves")

    summary = summarise(results)
    tasks = summary["tasks"]
    fig, axes = plt.subplots(1, max(1, len(tasks)), figsize=(4.2 * max(1, len(tasks)), 3.4), squeeze=False)
    for ax, t in zip(axes[0], tasks):
        for v in summary["variants"]:
            runs = [r for r in results if r["task"] == t and r["variant"] == v and r["curve"]]
            if not runs:
                continue
            total = max(r["train"]["env_steps"] for r in runs)
            x = np.linspace(total / CURVE_POINTS, total, CURVE_POINTS)
            curves = np.stack([_curve(r, x, CURVE_WINDOW * total) for r in runs])
            mid, lo, hi = curve_band(curves, f"{t}/{v}/curve")
            ax.plot(x, 100 * mid, marker="o", markersize=3, label=column_names(summary).get(v, v))
            ax.fill_between(x, 100 * lo, 100 * hi, alpha=0.2)
        ax.set_title(t)
        ax.set_xlabel("env steps")
        ax.set_ylim(-2, 102)
        ax.set_xlim(left=0)
    axes[0][0].set_ylabel("training success rate (%), IQM over seeds")
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def write_report(out: str | Path, meta: dict | None = None) -> dict:
    """table.md, table.json and curves.png in `out` from every run found there; returns the summary."""
    out = Path(out)
    results = collect(out)
    if not results:
        raise FileNotFoundError(f"no run results under {out / 'runs'}")
    summary = summarise(results)
    summary["meta"] = meta or {}
    (out / "table.md").write_text(markdown(summary, meta))
    (out / "table.json").write_text(json.dumps(summary, indent=2) + "\n")
    plot(results, out / "curves.png")
    return summary
