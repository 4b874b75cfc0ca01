"""Aggregate RL results the `rliable` way (Agarwal et al., 2021, "Deep RL at the edge of the
statistical precipice"): the interquartile mean (IQM) over runs, with a stratified bootstrap 95%
confidence interval.

- `iqm`: the mean of the middle 50% of the scores, i.e. `scipy.stats.trim_mean(x, 0.25)` (with 5
  seeds: the mean of the middle 3); robust to one lucky or broken seed, less noisy than the median.
- Stratified bootstrap: each replicate resamples the runs of every task (stratum) with
  replacement, keeping each task's run count, and takes the IQM over all resampled runs pooled;
  for one task that is the plain bootstrap over its seeds. Intervals are percentile intervals
  (`mineclip.evaluate.bootstrap.interval`), as rliable's default. Seeds derive from the names, so
  a report is reproducible.
- Two reward variants (their IQMs' difference and ratio, `compare`) are independent trainings:
  each is resampled on its own and the statistic is taken replicate by replicate.

The rliable package itself is not used: it would add arch, statsmodels, pandas, seaborn, patsy and
formulaic to the environment for these few lines.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from mineclip.evaluate.bootstrap import LEVEL, interval, seed_of

REPLICATES = 2000


def iqm(scores, axis: int | None = None) -> np.ndarray | float:
    """Interquartile mean: the mean after cutting floor(n / 4) scores off each end (trim_mean 0.25),
    over the flattened scores (axis None) or along `axis`."""
    x = np.asarray(scores, dtype=np.float64)
    if axis is None:
        x, axis = x.ravel(), 0
    x = np.sort(np.moveaxis(x, axis, -1), axis=-1)
    n = x.shape[-1]
    if n == 0:
        raise ValueError("IQM of no scores")
    k = int(np.floor(0.25 * n))
    out = x[..., k:n - k].mean(-1)
    return float(out) if out.ndim == 0 else out


def stratified_replicates(strata: Sequence[Sequence[float]], name: str, statistic=iqm,
                          replicates: int = REPLICATES) -> np.ndarray:
    """`statistic` of `replicates` stratified resamples [R]: each stratum's scores are resampled with
    replacement (same count) and the statistic is taken over all of them pooled."""
    rng = np.random.default_rng(seed_of(name))
    parts = []
    for s in strata:
        s = np.asarray(s, dtype=np.float64).ravel()
        if s.size == 0:
            continue
        parts.append(s[rng.integers(0, s.size, (replicates, s.size))])
    if not parts:
        raise ValueError("no scores to bootstrap")
    return statistic(np.concatenate(parts, axis=1), axis=1)


def iqm_interval(strata: Sequence[Sequence[float]], name: str, level: float = LEVEL,
                 replicates: int = REPLICATES) -> list[float]:
    """Percentile interval of the IQM over the pooled strata (one stratum: a task's seeds)."""
    return interval(stratified_replicates(strata, name, iqm, replicates), level)


def aggregate(strata: Sequence[Sequence[float]], name: str, level: float = LEVEL) -> dict:
    """{iqm, ci: [low, high], mean, runs} of scores in strata (e.g. {task: per-seed success})."""
    pooled = np.concatenate([np.asarray(s, dtype=np.float64).ravel() for s in strata])
    return {"iqm": iqm(pooled), "ci": iqm_interval(strata, name, level), "mean": float(pooled.mean()),
            "runs": int(pooled.size)}


def compare(a: Mapping[str, Sequence[float]], b: Mapping[str, Sequence[float]], name: str,
            level: float = LEVEL, replicates: int = REPLICATES) -> dict:
    """IQM(a) - IQM(b) and IQM(a) / IQM(b) over the tasks both have, each variant resampled on its
    own (stratified by task), with percentile intervals; `prob_a_above` is the share of replicates
    in which IQM(a) > IQM(b). The ratio is None where IQM(b) is 0 in the data."""
    tasks = [t for t in a if t in b]
    ra = stratified_replicates([a[t] for t in tasks], name + "/a", iqm, replicates)
    rb = stratified_replicates([b[t] for t in tasks], name + "/b", iqm, replicates)
    ia = iqm(np.concatenate([np.asarray(a[t], float) for t in tasks]))
    ib = iqm(np.concatenate([np.asarray(b[t], float) for t in tasks]))
    out = {"difference": ia - ib, "difference_ci": interval(ra - rb, level),
           "prob_a_above": float(np.mean(ra > rb)), "ratio": None, "ratio_ci": None}
    if ib > 0:
        ratio = np.where(rb > 0, ra / np.where(rb > 0, rb, 1), np.inf)  # b's resample may be all zeros
        tail = (1 - level) / 2 * 100
        lo, hi = np.percentile(ratio, tail, method="lower"), np.percentile(ratio, 100 - tail, method="higher")
        out["ratio"] = ia / ib
        out["ratio_ci"] = [float(lo), float(hi) if np.isfinite(hi) else None]  # None: unbounded
    return out


def curve_band(curves: np.ndarray, name: str, level: float = LEVEL,
               replicates: int = REPLICATES) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """IQM over runs at each point of `curves` [runs, points] with a bootstrap band (runs resampled
    with replacement, the same resample at every point); NaN entries (no episode ended in a
    window) are left out of that point. Returns (iqm, low, high), each [points]."""
    c = np.asarray(curves, dtype=np.float64)
    rng = np.random.default_rng(seed_of(name))
    idx = rng.integers(0, c.shape[0], (replicates, c.shape[0]))
    mid, lo, hi = (np.full(c.shape[1], np.nan) for _ in range(3))
    for j in range(c.shape[1]):
        col = c[:, j]
        ok = ~np.isnan(col)
        if not ok.any():
            continue
        mid[j] = iqm(col[ok])
        if ok.all():
            reps = iqm(col[idx], axis=1)
        else:
            reps = [iqm(col[r][~np.isnan(col[r])]) for r in idx if (~np.isnan(col[r])).any()]
        lo[j], hi[j] = interval(np.asarray(reps), level)
    return mid, lo, hi
