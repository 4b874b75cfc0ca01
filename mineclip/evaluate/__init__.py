"""Success judge (K-means threshold, F1), retrieval metrics and evaluation reports."""

from .judge import (
    SCORE_RULES,
    THRESHOLD_RULES,
    Judgement,
    binary_metrics,
    calibrate_threshold,
    classify,
    judge,
    kmeans_2,
    kmeans_threshold,
    roc_auc,
    trajectory_score,
)

__all__ = [
    "SCORE_RULES",
    "THRESHOLD_RULES",
    "Judgement",
    "binary_metrics",
    "calibrate_threshold",
    "classify",
    "judge",
    "kmeans_2",
    "kmeans_threshold",
    "roc_auc",
    "trajectory_score",
]
