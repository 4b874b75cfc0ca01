"""The success judge on hand-made scores: K-means threshold, robust alternatives, F1 and friends."""

import numpy as np
import pytest

from mineclip.evaluate import (
    binary_metrics,
    calibrate_threshold,
    judge,
    kmeans_2,
    kmeans_threshold,
    roc_auc,
    trajectory_score,
)


def test_kmeans_threshold_is_the_mean_of_the_two_centroids():
    scores = [0.10, 0.12, 0.11, 0.90, 0.95]
    lo, hi = kmeans_2(scores)
    assert lo == pytest.approx(0.11) and hi == pytest.approx(0.925)
    assert kmeans_threshold(scores) == pytest.approx((0.11 + 0.925) / 2)


def test_kmeans_matches_lloyds_algorithm_on_random_scores():
    x = np.random.default_rng(0).normal(size=40) + np.repeat([0, 3], 20)
    c = np.array([x.min(), x.max()])
    for _ in range(100):  # Lloyd's iterations from the extremes
        near = np.abs(x[:, None] - c[None]).argmin(1)
        c = np.array([x[near == k].mean() for k in (0, 1)])
    assert kmeans_threshold(x) == pytest.approx(c.mean(), abs=1e-12)


def test_metrics_on_a_hand_made_confusion():
    labels = [1, 1, 1, 0, 0, 0, 0]
    preds = [1, 1, 0, 1, 0, 0, 0]
    m = binary_metrics(labels, preds)
    assert (m["tp"], m["fp"], m["fn"], m["tn"]) == (2, 1, 1, 3)
    assert m["precision"] == pytest.approx(2 / 3) and m["recall"] == pytest.approx(2 / 3)
    assert m["f1"] == pytest.approx(2 / 3) and m["accuracy"] == pytest.approx(5 / 7)
    assert m["confusion"] == [[3, 1], [1, 2]]
    assert binary_metrics([0, 0], [0, 0])["f1"] == 0.0  # undefined -> 0, no division error


def test_judge_classifies_above_the_threshold_as_success():
    j = judge([0.1, 0.12, 0.8, 0.9], [0, 0, 1, 1])
    assert j.preds == [0, 0, 1, 1] and j.metrics["f1"] == 1.0 and j.auc == 1.0


def test_one_outlier_success_breaks_kmeans_and_a_calibrated_threshold_recovers():
    # 5 successes with a few high-reward windows, one of them extreme; 5 failures with none.
    fails = [np.full(40, 0.01) for _ in range(5)]
    succs = [np.r_[np.full(30, 0.01), np.full(10, 0.3)] for _ in range(4)] + [np.full(40, 0.9)]
    labels = [0] * 5 + [1] * 5
    mean = [trajectory_score(r, "mean") for r in fails + succs]
    paper = judge(mean, labels)
    assert paper.metrics["f1"] < 0.5  # the outlier forms its own cluster
    assert paper.auc == 1.0  # ... although the ranking is perfect
    t = calibrate_threshold(mean, labels)
    assert judge(mean, labels, "calibrated", t).metrics["f1"] == 1.0


def test_trajectory_score_rules():
    r = [0.0, 0.2, 0.4, 1.0]
    assert trajectory_score(r, "mean") == pytest.approx(0.4)
    assert trajectory_score(r, "max") == 1.0
    assert trajectory_score(r, "topk", k=2) == pytest.approx(0.7)
    with pytest.raises(ValueError):
        trajectory_score([], "mean")


def test_roc_auc_counts_ties_half():
    assert roc_auc([0.1, 0.5, 0.5], [0, 0, 1]) == pytest.approx(0.75)
    assert roc_auc([0.1], [1]) is None
