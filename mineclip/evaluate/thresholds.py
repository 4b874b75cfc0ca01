"""Thresholds of the success judge, in one place: the paper's K-means boundary (one set of scores,
or many resamples at once for the bootstrap), the F1-best threshold calibrated on a labelled set,
and calibrated thresholds saved with an artifact together with the settings they were fitted under.

A calibrated threshold means something only for the scores it was fitted on: the same reward formula
(`mode`), the same top-k, window, frame stride and negatives. `Calibration.thresholds_for` refuses
it (`CalibrationMismatch`, a clear error) under any other setting instead of applying it silently.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from mineclip.model.config import CLIP_FRAMES

THRESHOLD_RULES = ("kmeans", "calibrated")
CALIBRATED_UNDER = ("mode", "topk", "window", "frame_stride", "negatives")  # what a threshold depends on


class CalibrationMismatch(ValueError):
    """Calibrated thresholds asked for under settings other than those they were fitted under."""


def kmeans_2(scores) -> tuple[float, float]:
    """The two centroids of 1-D K-means (K=2): the global optimum of the K-means objective, found
    exactly by trying every split of the sorted scores (what Lloyd's algorithm converges to from a
    good start; deterministic)."""
    x = np.sort(np.asarray(scores, dtype=np.float64).ravel())
    if x.size == 0:
        raise ValueError("expected at least one score")
    if x.size == 1 or x[0] == x[-1]:
        return float(x[0]), float(x[-1])
    n = x.size
    c1, c2 = np.cumsum(x), np.cumsum(x ** 2)
    i = np.arange(1, n)  # left cluster = x[:i]
    left_mean = c1[i - 1] / i
    right_mean = (c1[-1] - c1[i - 1]) / (n - i)
    sse = (c2[i - 1] - i * left_mean ** 2) + ((c2[-1] - c2[i - 1]) - (n - i) * right_mean ** 2)
    best = int(np.argmin(sse))
    return float(left_mean[best]), float(right_mean[best])


def kmeans_threshold(scores) -> float:
    """The paper's decision boundary: the mean of the two K-means centroids."""
    lo, hi = kmeans_2(scores)
    return (lo + hi) / 2


def kmeans_thresholds(samples: np.ndarray) -> np.ndarray:
    """The paper's K-means (K=2) boundary of each row of `samples` [R, n] (exact 1-D optimum, as
    `kmeans_2`, vectorised over rows: the bootstrap's many resamples at once)."""
    x = np.sort(samples, axis=1)
    n = x.shape[1]
    if n < 2:
        return x[:, 0]
    c1, c2 = np.cumsum(x, axis=1), np.cumsum(x ** 2, axis=1)
    i = np.arange(1, n)
    left = c1[:, i - 1] / i
    right = (c1[:, -1:] - c1[:, i - 1]) / (n - i)
    sse = (c2[:, i - 1] - i * left ** 2) + ((c2[:, -1:] - c2[:, i - 1]) - (n - i) * right ** 2)
    best = np.argmin(sse, axis=1)
    rows = np.arange(len(x))
    t = (left[rows, best] + right[rows, best]) / 2
    return np.where(x[:, 0] == x[:, -1], x[:, 0], t)


def classify(scores, threshold: float) -> np.ndarray:
    """1 (success) where the score is above the threshold."""
    return (np.asarray(scores, dtype=np.float64) > threshold).astype(np.int64)


def _f1_accuracy(y: np.ndarray, p: np.ndarray) -> tuple[float, float]:
    """(F1, accuracy) of predictions, as `judge.binary_metrics` computes them."""
    tp, fp = int(((p == 1) & (y == 1)).sum()), int(((p == 1) & (y == 0)).sum())
    fn, tn = int(((p == 0) & (y == 1)).sum()), int(((p == 0) & (y == 0)).sum())
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return f1, (tp + tn) / y.size if y.size else 0.0


def calibrate_threshold(scores, labels) -> float:
    """The fixed threshold that maximises F1 on a labelled set (ties: accuracy, then the middle
    candidate); candidates are the midpoints between consecutive distinct scores."""
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels).astype(np.int64)
    if s.size == 0:
        raise ValueError("expected labelled scores to calibrate on, got none")
    u = np.unique(s)
    cands = np.concatenate([[u[0] - 1e-9 - abs(u[0]) * 1e-6], (u[:-1] + u[1:]) / 2, [u[-1]]])
    keys = [_f1_accuracy(y, classify(s, t)) for t in cands]
    best = max(keys)
    ties = [t for t, k in zip(cands, keys) if k == best]
    return float(ties[len(ties) // 2])


@dataclass
class Calibration:
    """Per-task thresholds fitted on a labelled set (`mineclip eval --calibrate`), with the settings
    they were fitted under (`CALIBRATED_UNDER`) and the labels file; saved in an artifact's
    judge.json, section `calibration`. `tasks`: task -> {score rule: threshold, "n", "prompt"}."""

    mode: str
    topk: int
    window: int
    frame_stride: int
    negatives: str | None = None  # None: fitted by a version that did not record them
    labels: str = ""
    tasks: dict = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: dict | None) -> "Calibration | None":
        if not d or not d.get("tasks"):
            return None
        return cls(str(d.get("mode", "direct")), int(d.get("topk", CLIP_FRAMES)), int(d.get("window", CLIP_FRAMES)),
                   int(d.get("frame_stride", 1)), d.get("negatives"), str(d.get("labels", "")), dict(d["tasks"]))

    def to_dict(self) -> dict:
        return asdict(self)

    def thresholds_for(self, **settings) -> dict:
        """The per-task thresholds, for scores made under `settings` (mode=, topk=, window=,
        frame_stride=, negatives=); CalibrationMismatch naming every setting that differs."""
        fitted = asdict(self)
        differ = [f"{k} {fitted[k]!r} (now {v!r})" for k, v in settings.items()
                  if k in CALIBRATED_UNDER and fitted.get(k) is not None and v is not None and fitted[k] != v]
        if differ:
            raise CalibrationMismatch(
                f"the artifact's calibrated thresholds were fitted under other settings: {', '.join(differ)}; "
                "judge with the settings they were fitted under, calibrate again (mineclip eval --calibrate), "
                "or leave them out (mineclip eval --no-calibration)")
        return self.tasks

    def threshold(self, task: str, rule: str, **settings) -> float | None:
        """One task's calibrated threshold under a score rule (None when not calibrated), checked as
        `thresholds_for`."""
        known = (self.thresholds_for(**settings).get(task) or {}).get(rule)
        return None if known is None else float(known)


def cross_calibrated_f1(scores, labels) -> float:
    """F1 of a threshold fitted on labels, honestly: `calibrate_threshold` fitted on one half of the
    trajectories (alternate ones) and applied to the other, both ways, the predictions pooled."""
    s, y = np.asarray(scores, dtype=np.float64), np.asarray(labels).astype(np.int64)
    half, pred = np.arange(len(s)) % 2, np.zeros_like(y)
    for fold in (0, 1):
        fit, apply = half != fold, half == fold
        pred[apply] = classify(s[apply], calibrate_threshold(s[fit], y[fit]))
    return _f1_accuracy(y, pred)[0]
