"""Bootstrap intervals of the judge's F1: the vectorised K-means, the intervals, the report."""

import numpy as np
import pytest

from mineclip.evaluate.bootstrap import f1_interval, f1_replicates, mean_f1_interval
from mineclip.evaluate.thresholds import kmeans_thresholds
from mineclip.evaluate.judge import judge, kmeans_threshold


def test_vectorised_kmeans_is_the_judges_kmeans_row_by_row():
    rng = np.random.default_rng(0)
    rows = np.concatenate([rng.normal(size=(50, 20)), np.full((1, 20), 0.3), rng.integers(0, 3, (5, 20))])
    np.testing.assert_allclose(kmeans_thresholds(rows), [kmeans_threshold(r) for r in rows], rtol=0, atol=1e-12)


def test_interval_brackets_the_observed_f1_and_narrows_with_more_trajectories():
    rng = np.random.default_rng(1)

    def task(n):
        labels = np.repeat([1, 0], n)
        return rng.normal(labels * 1.0, 1.0), labels

    s, y = task(10)
    lo, hi = f1_interval(s, y, "t")
    observed = judge(s, y).metrics["f1"]
    assert 0 <= lo <= observed <= hi <= 1 and hi - lo > 0.1
    s, y = task(200)
    lo2, hi2 = f1_interval(s, y, "t")
    assert hi2 - lo2 < (hi - lo) / 2


def test_intervals_are_reproducible_and_differ_between_tasks():
    s, y = np.linspace(0, 1, 20), np.repeat([0, 1], 10)[np.random.default_rng(2).permutation(20)]
    assert f1_interval(s, y, "a") == f1_interval(s, y, "a")
    assert not np.array_equal(f1_replicates(s, y, "a"), f1_replicates(s, y, "b"))


def test_mean_interval_averages_tasks_and_handles_one_class_and_nothing():
    sep = {"scores": [0.0] * 5 + [1.0] * 5, "labels": [0] * 5 + [1] * 5}
    noisy = {"scores": list(np.random.default_rng(3).normal(size=10)), "labels": [0, 1] * 5}
    lo, hi = mean_f1_interval({"sep": sep, "noisy": noisy})
    assert 0.5 <= lo <= hi <= 1.0
    assert f1_interval([0.1, 0.2, 0.3], [1, 1, 1], "only successes")[1] <= 1.0
    assert mean_f1_interval({}) is None
    with pytest.raises(ValueError, match="one label per score"):
        f1_interval([0.1, 0.2], [1], "bad")


def test_report_table_and_metrics_carry_the_intervals():
    from mineclip.evaluate.report import interval_table, mean_f1_interval as report_mean_interval
    from mineclip.evaluate.scoring import judge_tasks

    class Traj:
        def __init__(self, task, label, i):
            self.task, self.label, self.prompt, self.id, self.labeller = task, label, f"do {task}", f"{task}{i}", None

    class Score:
        def __init__(self, traj, s):
            self.traj, self.scores = traj, {"mean": s, "max": s, "topk": s}

    rng = np.random.default_rng(4)
    scores = [Score(Traj(t, y, i), float(rng.normal(y))) for t in ("chop", "dig") for i, y in enumerate([0, 1] * 6)]
    tasks = judge_tasks(scores)
    assert all(len(e["rules"]["mean"]["kmeans"]["f1_interval"]) == 2 for e in tasks.values())
    table = interval_table(tasks)
    assert "| chop | 12 (6/6) |" in table and "**mean**" in table
    lo, hi = report_mean_interval(tasks)
    assert 0 <= lo <= hi <= 1
