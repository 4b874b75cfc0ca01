"""Bootstrap intervals for the judge's F1: how far one task's F1 (and the mean over tasks) could move
with another draw of the same number of labelled trajectories.

Each replicate resamples a task's successes and its failures separately, with replacement (the
counts stay what the set has), and judges the replicate the paper's way: a new K-means threshold
over the replicate's scores, then F1. The threshold's own wobble is thus part of the interval. A
mean over tasks is bootstrapped by averaging the tasks' replicates index by index (the tasks are
resampled independently). Intervals are percentile intervals; the seeds derive from the task
names, so a report is reproducible.

What it cannot see: a task whose sampled successes and failures are perfectly separated gets
[100, 100] however few trajectories it has (every resample is separated too); the interval measures
the sampling of these trajectories, not the worlds they were not recorded on.
"""

from __future__ import annotations

import hashlib

import numpy as np

from .thresholds import kmeans_thresholds

REPLICATES = 2000
LEVEL = 0.95


def seed_of(name: str) -> int:
    """A reproducible RNG seed derived from a name (a task, a table cell)."""
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "little")


def f1_replicates(scores, labels, name: str, replicates: int = REPLICATES) -> np.ndarray:
    """F1 of the K-means judge on `replicates` stratified resamples of one task's trajectories."""
    s = np.asarray(scores, dtype=np.float64).ravel()
    y = np.asarray(labels).astype(bool).ravel()
    if s.shape != y.shape or s.size == 0:
        raise ValueError(f"expected one label per score, got {s.size} scores and {y.size} labels")
    rng = np.random.default_rng(seed_of(name))
    pos, neg = s[y], s[~y]
    parts = [p[rng.integers(0, p.size, (replicates, p.size))] for p in (pos, neg) if p.size]
    sample = np.concatenate(parts, axis=1)
    truth = np.concatenate([np.ones(pos.size, bool), np.zeros(neg.size, bool)])
    pred = sample > kmeans_thresholds(sample)[:, None]
    tp = (pred & truth).sum(1)
    fp = (pred & ~truth).sum(1)
    fn = (~pred & truth).sum(1)
    denom = 2 * tp + fp + fn
    return np.where(denom > 0, 2 * tp / np.maximum(denom, 1), 0.0)


def interval(replicates: np.ndarray, level: float = LEVEL) -> list[float]:
    """The percentile interval [low, high] of bootstrap replicates."""
    tail = (1 - level) / 2 * 100
    lo, hi = np.percentile(replicates, [tail, 100 - tail])
    return [float(lo), float(hi)]


def f1_interval(scores, labels, name: str, level: float = LEVEL) -> list[float]:
    """95% (by default) bootstrap interval of one task's F1 under the paper's rule."""
    return interval(f1_replicates(scores, labels, name), level)


def mean_f1_interval(judgements: dict[str, dict], level: float = LEVEL) -> list[float] | None:
    """Interval of the mean F1 over tasks, from {task: judgement dict with scores and labels}."""
    if not judgements:
        return None
    reps = [f1_replicates(j["scores"], j["labels"], task) for task, j in sorted(judgements.items())]
    return interval(np.mean(reps, axis=0), level)
