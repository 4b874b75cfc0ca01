"""Human difficulty ratings of tasks (MCU's intricacy, creativity and novelty, each 0-5).

One JSON object per line, appended as people rate (`mineclip label`'s rating mode writes them,
beside its labels: `OUT.ratings.jsonl`, or `--ratings FILE`; never into the installed package):

    {"task_id": "dig_tunnel", "rater": "ana", "time": "2024-05-01T10:00:00+00:00",
     "intricacy": 2, "creativity": 3, "novelty": 1}

A rater's latest line for a task counts; a task's score on a dimension is the mean over raters.
Earlier lines stay in the file (the history), and a broken line is skipped with a warning. Lines are
appended as the labels' history is (`mineclip.journal`: locked, synced, a torn last line kept apart).
"""

from __future__ import annotations

import json
import math
import os
import warnings
from datetime import datetime, timezone
from pathlib import Path

RATING_DIMENSIONS = ("intricacy", "creativity", "novelty")
MAX_SCORE = 5.0


def now_iso() -> str:
    """The current UTC time as an ISO 8601 string with microseconds."""
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def check_scores(scores: dict) -> dict[str, float]:
    """Validate a mapping of dimension -> score in [0, 5] (all three dimensions); return floats."""
    if not isinstance(scores, dict):
        raise ValueError(f"expected a mapping of {RATING_DIMENSIONS} to scores, got {type(scores).__name__}")
    unknown = set(scores) - set(RATING_DIMENSIONS)
    if unknown:
        raise ValueError(f"unknown rating dimensions {sorted(unknown)}; expected {list(RATING_DIMENSIONS)}")
    out = {}
    for dim in RATING_DIMENSIONS:
        if dim not in scores:
            raise ValueError(f"missing rating dimension {dim!r}; expected all of {list(RATING_DIMENSIONS)}")
        value = scores[dim]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"{dim}: expected a number from 0 to 5, got {value!r}")
        if not 0 <= value <= MAX_SCORE:
            raise ValueError(f"{dim}: expected a number from 0 to 5, got {value}")
        out[dim] = float(value)
    return out


def append_rating(path: str | os.PathLike, task_id: str, rater: str, scores: dict, time: str | None = None) -> dict:
    """Append one rater's scores for a task to `path` (locked, synced to disk); return the line written."""
    from mineclip.journal import append_line

    if not isinstance(task_id, str) or not task_id:
        raise ValueError(f"expected a task id, got {task_id!r}")
    if not isinstance(rater, str) or not rater.strip():
        raise ValueError(f"expected a rater name, got {rater!r}")
    record = {"task_id": task_id, "rater": rater.strip(), "time": time or now_iso(), **check_scores(scores)}
    append_line(path, record)
    return record


def read_rating_lines(path: str | os.PathLike | None) -> list[dict]:
    """Every valid rating line of the file in order (broken lines skipped with a warning; no file,
    or None: no ratings)."""
    from mineclip.journal import locked

    if path is None or not Path(path).exists():
        return []
    with locked(path, shared=True):  # not halfway through another process's line
        text = Path(path).read_text(encoding="utf-8")
    records = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
            if not isinstance(d, dict) or not d.get("task_id") or not d.get("rater"):
                raise ValueError("expected an object with task_id and rater")
            d.update(check_scores({k: d.get(k) for k in RATING_DIMENSIONS}))
        except (ValueError, TypeError) as e:
            warnings.warn(f"{path}:{n}: skipped a broken rating line ({e})", stacklevel=2)
            continue
        records.append(d)
    return records


def latest_ratings(path: str | os.PathLike | None) -> dict[str, dict[str, dict]]:
    """task id -> rater -> that rater's latest rating line (by time, then file order)."""
    out: dict[str, dict[str, dict]] = {}
    for d in read_rating_lines(path):
        by_rater = out.setdefault(d["task_id"], {})
        prev = by_rater.get(d["rater"])
        if prev is None or str(d.get("time", "")) >= str(prev.get("time", "")):
            by_rater[d["rater"]] = d
    return out


def load_ratings(path: str | os.PathLike | None) -> dict[str, dict[str, float]]:
    """task id -> dimension -> mean score over raters (each rater's latest rating counts)."""
    out = {}
    for task_id, by_rater in latest_ratings(path).items():
        rows = list(by_rater.values())
        out[task_id] = {dim: sum(r[dim] for r in rows) / len(rows) for dim in RATING_DIMENSIONS}
    return out
