"""Agreement between labellers: the majority vote, Cohen's kappa (two raters) and Fleiss' kappa
(any number of raters per item).

kappa = (p_o - p_e) / (1 - p_e): observed agreement corrected for the agreement expected by
chance from each rater's (Cohen) or the pooled (Fleiss) label frequencies. It is undefined (None)
when chance agreement is already 1, e.g. when every label is the same.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from typing import Hashable, Mapping, Sequence

import numpy as np


def majority(votes: Sequence[int]) -> int | None:
    """The label most votes give, or None for no votes or a tie."""
    counts = Counter(int(v) for v in votes).most_common()
    if not counts or (len(counts) > 1 and counts[0][1] == counts[1][1]):
        return None
    return counts[0][0]


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float | None:
    """Cohen's kappa of two raters' labels of the same items (None when undefined)."""
    if len(a) != len(b):
        raise ValueError(f"expected two label lists of the same length, got {len(a)} and {len(b)}")
    n = len(a)
    if n == 0:
        return None
    observed = sum(x == y for x, y in zip(a, b)) / n
    ca, cb = Counter(a), Counter(b)
    expected = sum(ca[k] * cb[k] for k in ca) / (n * n)
    if expected >= 1.0:
        return None
    return (observed - expected) / (1.0 - expected)


def fleiss_kappa(counts: np.ndarray) -> float | None:
    """Fleiss' kappa from a [items, categories] table of how many raters put each item in each
    category. Items may have different numbers of raters (at least 2 each; others are ignored):
    P_i = sum_j n_ij (n_ij - 1) / (n_i (n_i - 1)), p_j = sum_i n_ij / sum_i n_i."""
    table = np.asarray(counts, dtype=np.float64)
    if table.ndim != 2:
        raise ValueError(f"expected an [items, categories] table, got shape {list(table.shape)}")
    if (table < 0).any():
        raise ValueError("expected non-negative counts")
    n_i = table.sum(axis=1)
    table, n_i = table[n_i >= 2], n_i[n_i >= 2]
    if len(table) == 0:
        return None
    p_i = (table * (table - 1)).sum(axis=1) / (n_i * (n_i - 1))
    p_j = table.sum(axis=0) / n_i.sum()
    observed, expected = float(p_i.mean()), float((p_j ** 2).sum())
    if expected >= 1.0:
        return None
    return (observed - expected) / (1.0 - expected)


def pairwise_kappas(votes: Mapping[Hashable, Mapping[str, int]]) -> list[dict]:
    """Cohen's kappa of every pair of raters over the items both labelled:
    [{"a", "b", "n", "agreement", "kappa"}] (votes: item -> rater -> label)."""
    raters = sorted({r for by_rater in votes.values() for r in by_rater})
    out = []
    for ra, rb in combinations(raters, 2):
        both = [(v[ra], v[rb]) for v in votes.values() if ra in v and rb in v]
        a, b = [x for x, _ in both], [y for _, y in both]
        out.append({"a": ra, "b": rb, "n": len(both),
                    "agreement": (sum(x == y for x, y in both) / len(both)) if both else None,
                    "kappa": cohen_kappa(a, b)})
    return out


def fleiss_from_votes(votes: Mapping[Hashable, Mapping[str, int]], categories: Sequence[int] = (0, 1)
                      ) -> tuple[float | None, int]:
    """Fleiss' kappa over the items with at least two raters, and how many such items there are."""
    rows = [[sum(1 for v in by_rater.values() if v == c) for c in categories]
            for by_rater in votes.values() if len(by_rater) >= 2]
    if not rows:
        return None, 0
    return fleiss_kappa(np.asarray(rows)), len(rows)
