"""The judge per MCU difficulty band: does it get worse as tasks get harder?

Bands (easy, medium, hard) are the terciles of the overall difficulty score over the task
catalogue (`mineclip.tasks.difficulty.bands`); the six scores come from the catalogue's cache. Tasks
outside the catalogue, or an install without the task suite (`mineclip[sim]`), give no bands.
"""

from __future__ import annotations

import importlib.util

import numpy as np

from .report import task_f1


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


def judge_by_band(models: dict[str, dict]) -> dict | None:
    """Per model and band: its tasks, mean F1 (paper's rule) and mean AUC; per model the rank
    correlation of the tasks' F1 with each difficulty score. None without the task suite or scores."""
    if importlib.util.find_spec("crafter") is None:
        return None
    from mineclip.tasks.difficulty import BANDS, SCORES, bands, load_scores

    scores = load_scores()
    out: dict = {"bands": {}, "spearman": {}}
    for name, tasks in models.items():
        f1 = {t: f for t, e in tasks.items() if (f := task_f1(e)) is not None}
        band = bands(list(f1), scores)
        if not band:
            continue
        rows = {}
        for b in BANDS:
            ts = sorted(t for t in band if band[t] == b)
            aucs = [a for t in ts if (a := tasks[t]["rules"]["mean"]["kmeans"].get("auc")) is not None]
            rows[b] = {"tasks": ts, "mean_f1": float(np.mean([f1[t] for t in ts])) if ts else None,
                       "mean_auc": float(np.mean(aucs)) if aucs else None}
        out["bands"][name] = rows
        ts = sorted(band)
        out["spearman"][name] = {s: spearman([scores[t][s] for t in ts], [f1[t] for t in ts])
                                 for s in (*SCORES, "overall")}
    return out if out["bands"] else None

