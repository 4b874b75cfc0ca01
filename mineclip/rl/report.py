"""The RL table in the form of the MineDojo paper's table 1 (success rate per task and reward
variant, mean ± std over seeds) as markdown and JSON, and a PNG of the learning curves."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np

from mineclip.extras import pyplot

from .envs import VARIANTS

COLUMNS = {"mineclip": "MineCLIP reward + success", "sparse": "success only", "dense": "manual dense"}
CURVE_POINTS = 12
CURVE_WINDOW = 0.25  # of the run's env steps


def collect(out: str | Path) -> list[dict]:
    """Every run_dir/result.json under out/runs."""
    return [json.loads(p.read_text()) for p in sorted(Path(out).glob("runs/*/*/seed*/result.json"))]


def summarise(results: list[dict]) -> dict:
    """{"tasks": [...], "variants": [...], "cells": {task: {variant: {mean, std, seeds, per_seed}}}}."""
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
            cells[t][v] = {"mean": float(rates.mean()), "std": float(rates.std()), "seeds": [r["seed"] for r in runs],
                           "per_seed": rates.tolist(), "eval_episodes": int(runs[0]["eval"]["episodes"]),
                           "train_env_steps": int(runs[0]["train"]["env_steps"]),
                           "dense_reward_defined": bool(runs[0].get("dense_reward_defined", True))}
    return {"tasks": tasks, "variants": variants, "cells": cells}


def _fmt(cell: dict | None) -> str:
    if cell is None:
        return "–"
    return f"{100 * cell['mean']:.1f} ± {100 * cell['std']:.1f}"


def markdown(summary: dict, meta: dict | None = None) -> str:
    """The table: rows tasks, columns reward variants, success rate % (mean ± std over seeds)."""
    variants = summary["variants"]
    lines = ["| task | " + " | ".join(COLUMNS.get(v, v) for v in variants) + " |",
             "|---|" + "---:|" * len(variants)]
    for t in summary["tasks"]:
        cells = summary["cells"][t]
        lines.append(f"| {t} | " + " | ".join(_fmt(cells.get(v)) for v in variants) + " |")
    if summary["tasks"] and variants:
        first = next(iter(summary["cells"][summary["tasks"][0]].values()))
        lines.append("")
        lines.append(f"Success rate in % over {first['eval_episodes']} evaluation episodes on held-out worlds, "
                     f"mean ± std over {len(first['seeds'])} seeds; {first['train_env_steps']:,} PPO env steps "
                     "per run.")
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
    """Training success rate against env steps, one panel per task, mean ± std over seeds."""
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
            with warnings.catch_warnings():  # a bin without episodes in every seed is NaN
                warnings.simplefilter("ignore", RuntimeWarning)
                mean, std = np.nanmean(curves, 0), np.nanstd(curves, 0)
            ax.plot(x, 100 * mean, marker="o", markersize=3, label=COLUMNS.get(v, v))
            ax.fill_between(x, 100 * (mean - std), 100 * (mean + std), alpha=0.2)
        ax.set_title(t)
        ax.set_xlabel("env steps")
        ax.set_ylim(-2, 102)
        ax.set_xlim(left=0)
    axes[0][0].set_ylabel("training success rate (%)")
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
