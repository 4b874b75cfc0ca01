"""The judge's F1 against people on a whole set, estimated while only part of it is labelled.

The judge has a verdict (0/1) on every trajectory of the set; people have labelled some. For the
others, the chance that people would agree with the judge is drawn in two levels: an agreement
rate g for the whole set from its Beta posterior on all labelled trajectories (uniform prior),
then a rate per task and verdict from Beta(4 g + agreed, 4 (1 - g) + disagreed) on the labelled
trajectories of that task and verdict. Each draw fills in the unlabelled trajectories,
computes the F1 of every task and their mean (the project's summary number); the estimate is the
mean over draws and the interval their central quantiles. (The shared rate g keeps the interval
honest when few labels are in: the tasks' unknowns do not average each other away.)

The interval narrows as labels come in and is a single point once every trajectory is labelled
(the exact F1 on the set). With labels drawn evenly from the set it covers the true value (on the
default's evaluation set, 20 random draws of 30-120 labels: in 85-100% of the draws). When the
labels were chosen nearest the judge's threshold (active labelling), the labelled trajectories are
the hardest, so the estimate leans low: it is cautious.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Sequence

import numpy as np

PRIOR_WEIGHT = 4.0  # how strongly a task's agreement rate is tied to the set's


@dataclass
class F1Estimate:
    """Mean F1 over tasks: estimate and interval, with the counts behind it; per task the same."""

    estimate: float
    low: float
    high: float
    labelled: int
    total: int
    level: float
    tasks: dict[str, dict] = field(default_factory=dict)  # task -> {estimate, low, high, labelled, total}

    def to_dict(self) -> dict:
        return asdict(self)


def _f1(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> np.ndarray:
    """F1 = 2 TP / (2 TP + FP + FN), 0 where undefined (as `judge.binary_metrics`)."""
    den = 2 * tp + fp + fn
    return np.where(den > 0, 2 * tp / np.maximum(den, 1), 0.0)


def estimate_f1(tasks: Sequence[str], preds: Sequence[int], labels: Sequence[int | None], draws: int = 2000,
                level: float = 0.95, seed: int = 0) -> F1Estimate:
    """Estimate the judge's mean per-task F1 against people over all trajectories (labels: None
    where people have not labelled one)."""
    if not len(tasks) == len(preds) == len(labels):
        raise ValueError(f"expected as many tasks, verdicts and labels, got {len(tasks)}, {len(preds)}, {len(labels)}")
    if not tasks:
        raise ValueError("expected at least one trajectory")
    if not 0 < level < 1:
        raise ValueError(f"expected a level between 0 and 1, got {level}")
    rng = np.random.default_rng(seed)
    pred = np.asarray(preds, dtype=np.int64)
    known = np.array([y is not None for y in labels])
    y_known = np.array([-1 if y is None else int(y) for y in labels])
    agree_all = float((pred[known] == y_known[known]).sum())
    g = rng.beta(1.0 + agree_all, 1.0 + known.sum() - agree_all, size=(draws, 1))
    a0, b0 = PRIOR_WEIGHT * g, PRIOR_WEIGHT * (1.0 - g)
    q = ((1 - level) / 2, 1 - (1 - level) / 2)
    task_arr = np.asarray(tasks, dtype=object)
    per_task, f1_draws = {}, []
    for task in dict.fromkeys(tasks):
        m = task_arr == task
        p, k, yk = pred[m], known[m], y_known[m]
        y = np.broadcast_to(np.where(k, yk, 0), (draws, m.sum())).copy()
        for verdict in (0, 1):
            unl = (~k) & (p == verdict)
            if not unl.any():
                continue
            lab = k & (p == verdict)
            agree = float((yk[lab] == verdict).sum())
            theta = rng.beta(a0 + agree, b0 + lab.sum() - agree)
            same = rng.random((draws, int(unl.sum()))) < theta
            y[:, unl] = np.where(same, verdict, 1 - verdict)
        tp = ((y == 1) & (p == 1)).sum(axis=1)
        fp = ((y == 0) & (p == 1)).sum(axis=1)
        fn = ((y == 1) & (p == 0)).sum(axis=1)
        f = _f1(tp, fp, fn)
        f1_draws.append(f)
        lo, hi = np.quantile(f, q)
        per_task[str(task)] = {"estimate": float(f.mean()), "low": float(lo), "high": float(hi),
                               "labelled": int(k.sum()), "total": int(m.sum())}
    mean = np.mean(f1_draws, axis=0)
    lo, hi = np.quantile(mean, q)
    return F1Estimate(float(mean.mean()), float(lo), float(hi), int(known.sum()), len(tasks), level, per_task)
