"""MCU's six difficulty scores of a task, calibrated to [0, 5], and the difficulty bands.

Raw scores (measured on demonstrations by `mineclip.play.demos`, cached with the calibrated ones in
`suite/difficulty.json`; definitions in docs/tasks.md, "Difficulty scores"):

- time: mean frames to solve (steps until success) over the noise-free demonstrations;
- effort: mean permutation entropy (D = 3, crafter's action order, ties ranked in order of
  occurrence, divided by ln 3!) of the action sequences that solved the task, over demonstrations
  of two scripted agents at several noise levels;
- planning: E + V of the pre-task dependency graph (`pretasks.planning_graph`: what the initial
  conditions provide removed, "find X" a search);
- intricacy, creativity, novelty: computed proxies (`proxies`): the precision the success condition
  demands, the number of distinct successful end states, the distance of the prompt from the
  training captions in the learned text space; a human rating (`mineclip.tasks.ratings`, 0-5)
  replaces the proxy where one exists.

Calibration (MCU app. C): the quintiles Q0..Q5 of a raw score over the atom tasks and their naive
versions map each raw value to j + (S - Qj) / (Qj+1 - Qj) in [Qj, Qj+1]; tied quantiles (Qa = ... =
Qb) map their value to the mean level (a + b) / 2; values outside [Q0, Q5] (molecules) clip to 0 or 5.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from importlib import resources
from pathlib import Path

import numpy as np

CACHE_NAME = "difficulty.json"
SCORES = ("time", "effort", "planning", "intricacy", "creativity", "novelty")
HUMAN = ("intricacy", "creativity", "novelty")
PE_ORDER = 3
BANDS = ("easy", "medium", "hard")


def ordinal_pattern(window) -> tuple[int, ...]:
    """The rank pattern of a window, ranks 1..D, ties ranked in order of occurrence:
    (1, 2, 1) -> (1, 3, 2), (3, 3, 1) -> (2, 3, 1) (MCU app. A, footnote 5)."""
    order = np.argsort(np.asarray(window, dtype=float), kind="stable")
    ranks = np.empty(len(order), dtype=int)
    ranks[order] = np.arange(1, len(order) + 1)
    return tuple(int(r) for r in ranks)


def permutation_entropy(sequence, order: int = PE_ORDER, normalize: bool = True) -> float | None:
    """Permutation entropy of a sequence: the Shannon entropy of its ordinal patterns over its
    T - D + 1 windows, divided by ln D! when normalised. None for sequences shorter than D."""
    x = list(sequence)
    if len(x) < order:
        return None
    patterns = Counter(ordinal_pattern(x[i:i + order]) for i in range(len(x) - order + 1))
    n = sum(patterns.values())
    h = -sum(c / n * math.log(c / n) for c in patterns.values())
    return h / math.log(math.factorial(order)) if normalize else h


def planning_complexity(task) -> int:
    """E + V of the task's pre-task graph with what the initial conditions provide removed."""
    from .pretasks import planning_graph

    return planning_graph(task).size()


def is_reference(task) -> bool:
    """Whether a task is in the calibration set: an atom task or a naive version of one."""
    return "mcu-molecule" not in task.tags or "naive" in task.tags


def quintile_knots(values) -> list[tuple[float, float]]:
    """(quantile value, level) knots of the calibration: Q0..Q5 at levels 0..5, tied quantiles merged
    into one knot at their mean level."""
    raw = np.asarray(list(values), dtype=float)
    if raw.size == 0:
        raise ValueError("calibration needs at least one reference value")
    q = np.percentile(raw, [0, 20, 40, 60, 80, 100])
    knots: list[tuple[float, list[int]]] = []
    for level, v in enumerate(q):
        if knots and v == knots[-1][0]:
            knots[-1][1].append(level)
        else:
            knots.append((float(v), [level]))
    return [(v, float(np.mean(levels))) for v, levels in knots]


def calibrate(values: dict[str, float], reference: list[str] | None = None) -> dict[str, float]:
    """Map raw scores to [0, 5] by the quintiles of the reference tasks' values (default: all)."""
    if not values:
        return {}
    ref = [values[k] for k in (reference if reference is not None else values) if k in values]
    knots = quintile_knots(ref)
    xs, ys = [k[0] for k in knots], [k[1] for k in knots]
    out = {}
    for k, v in values.items():
        if v < xs[0] or v > xs[-1]:  # outside the reference tasks' range (molecules): clipped
            level = 0.0 if v < xs[0] else 5.0
        else:
            level = float(np.interp(v, xs, ys))
        out[k] = round(level, 3)
    return out


def scores_from_raw(raw: dict[str, dict], reference: list[str] | None = None,
                    human: dict[str, dict] | None = None) -> dict[str, dict]:
    """Calibrated [0, 5] scores (and their mean, `overall`) beside the raw ones, for every task; a
    human rating (0-5) replaces a proxy's calibrated value and `source` says which it is."""
    out = {t: {"raw": dict(r), "source": {}} for t, r in raw.items()}
    for name in SCORES:
        have = {t: float(r[name]) for t, r in raw.items() if r.get(name) is not None}
        for t, v in calibrate(have, reference).items():
            out[t][name] = v
            out[t]["source"][name] = "measured" if name not in HUMAN else "proxy"
    for t, ratings in (human or {}).items():
        if t not in out:
            continue
        for name in HUMAN:
            if ratings.get(name) is not None:
                out[t][name] = round(float(ratings[name]), 3)
                out[t]["source"][name] = "human"
    for t, s in out.items():
        missing = [n for n in SCORES if n not in s]
        if missing:
            raise ValueError(f"task {t}: no {', '.join(missing)} score (raw {s['raw']})")
        s["overall"] = round(float(np.mean([s[n] for n in SCORES])), 3)
    return out


def human_ratings(tasks, path: Path | None = None) -> dict[str, dict]:
    """Human ratings per task: a ratings file (`mineclip.tasks.ratings`, what `mineclip label`
    writes beside its labels), over a task's YAML `human:`."""
    out = {t.id: dict(t.human) for t in tasks if t.human}
    try:
        from .ratings import load_ratings
    except ImportError:  # the labelling application's ratings are not part of this checkout
        return out
    for task_id, r in load_ratings(path).items():
        out.setdefault(task_id, {}).update(r)
    return out


def cache_path() -> Path:
    """Where the calibrated scores are cached (`suite/difficulty.json`)."""
    return Path(str(resources.files("mineclip.tasks").joinpath("suite", CACHE_NAME)))


def load_scores(path: Path | None = None) -> dict[str, dict]:
    """Cached scores per task id (empty if never computed)."""
    p = path or cache_path()
    return json.loads(p.read_text()) if p.is_file() else {}


def bands(task_ids: list[str] | None = None, scores: dict[str, dict] | None = None) -> dict[str, str]:
    """Difficulty band (easy, medium, hard) of tasks: the tercile of their overall score among every
    scored task. Tasks without scores are left out."""
    scores = load_scores() if scores is None else scores
    overall = {t: s["overall"] for t, s in scores.items() if "overall" in s}
    if not overall:
        return {}
    lo, hi = np.percentile(list(overall.values()), [100 / 3, 200 / 3])
    ids = task_ids if task_ids is not None else list(overall)
    return {t: BANDS[0] if overall[t] < lo else BANDS[1] if overall[t] < hi else BANDS[2]
            for t in ids if t in overall}


def difficulty_band(task_id: str, scores: dict[str, dict] | None = None) -> str:
    """The difficulty band of one task (KeyError if it has no scores)."""
    b = bands([task_id], scores)
    if task_id not in b:
        raise KeyError(f"task {task_id!r} has no difficulty scores; run `mineclip tasks difficulty --recompute`")
    return b[task_id]
