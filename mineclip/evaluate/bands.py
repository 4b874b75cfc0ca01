"""The judge per MCU difficulty band: does it get worse as tasks get harder?

Bands (easy, medium, hard) are the terciles of the overall difficulty score over the task
catalogue (`mineclip.tasks.difficulty.bands`); the six scores come from the catalogue's cache, by
way of the task suite the evaluation was given (`mineclip.evaluate.suite.TaskSuite.difficulty`).
Tasks outside the catalogue, or no task suite, give no bands.
"""

from __future__ import annotations

import numpy as np

from .report import task_f1
from .suite import TaskSuite


def ranks(x) -> np.ndarray:
    """1-based ranks, ties given their mean rank."""
    x = np.asarray(x, dtype=float)
    order = np.argsort(x, kind="stable")
    r = np.empty(len(x))
    r[order] = np.arange(1, len(x) + 1)
    for v in np.unique(x):
        tied = x == v
        r[tied] = r[tied].mean()
    return r


def spearman(x, y) -> float | None:
    """Spearman's rank correlation (None when either side is constant or has fewer than 3 values)."""
    if len(x) < 3:
        return None
    rx, ry = ranks(x), ranks(y)
    if rx.std() == 0 or ry.std() == 0:
        return None
    return float(np.corrcoef(rx, ry)[0, 1])


def judge_by_band(models: dict[str, dict], suite: TaskSuite | None) -> dict | None:
    """Per model and band: its tasks, mean F1 (paper's rule) and mean AUC; per model the rank
    correlation of the tasks' F1 with each difficulty score. None without a task suite or scores."""
    difficulty = suite.difficulty() if suite is not None else None
    if difficulty is None:
        return None
    band_names, score_names, scores, all_bands = difficulty
    out: dict = {"bands": {}, "spearman": {}}
    for name, tasks in models.items():
        f1 = {t: f for t, e in tasks.items() if (f := task_f1(e)) is not None}
        band = {t: all_bands[t] for t in f1 if t in all_bands}
        if not band:
            continue
        rows = {}
        for b in band_names:
            ts = sorted(t for t in band if band[t] == b)
            aucs = [a for t in ts if (a := tasks[t]["rules"]["mean"]["kmeans"].get("auc")) is not None]
            rows[b] = {"tasks": ts, "mean_f1": float(np.mean([f1[t] for t in ts])) if ts else None,
                       "mean_auc": float(np.mean(aucs)) if aucs else None}
        out["bands"][name] = rows
        ts = sorted(band)
        out["spearman"][name] = {s: spearman([scores[t][s] for t in ts], [f1[t] for t in ts])
                                 for s in (*score_names, "overall")}
    return out if out["bands"] else None

