"""IQM and stratified bootstrap intervals (the rliable convention) on inputs whose answers are known."""

from __future__ import annotations

import numpy as np
import pytest

from mineclip.rl.stats import aggregate, compare, curve_band, iqm, iqm_interval, stratified_replicates


def test_iqm_is_the_mean_of_the_middle_half():
    assert iqm([0.0, 1.0, 2.0, 3.0, 100.0]) == pytest.approx(2.0)  # 5 seeds: the middle 3
    assert iqm([5.0, 1.0, 3.0, 7.0, 2.0, 8.0, 4.0, 6.0]) == pytest.approx(4.5)  # 8: the middle 4
    assert iqm([0.3, 0.9]) == pytest.approx(0.6)  # fewer than 4: nothing is cut
    np.testing.assert_allclose(iqm([[0, 1, 2, 3, 100], [1, 1, 1, 1, 1]], axis=1), [2.0, 1.0])
    x = np.random.default_rng(0).random(11)
    scipy_stats = pytest.importorskip("scipy.stats")
    assert iqm(x) == pytest.approx(scipy_stats.trim_mean(x, 0.25))
    with pytest.raises(ValueError):
        iqm([])


def test_stratified_bootstrap_keeps_each_task_s_share():
    # all of one task's runs fail, all of the other's succeed: every stratified resample pools
    # five 0s and five 1s, so the IQM is 0.5 in every replicate; an unstratified one would vary
    reps = stratified_replicates([[0.0] * 5, [1.0] * 5], "two tasks")
    np.testing.assert_allclose(reps, 0.5)
    assert iqm_interval([[0.0] * 5, [1.0] * 5], "two tasks") == [0.5, 0.5]


def test_interval_covers_the_iqm_narrows_with_more_seeds_and_is_reproducible():
    rng = np.random.default_rng(1)
    few, many = rng.random(5), rng.random(50)
    a = aggregate([few], "few")
    assert a["ci"][0] <= a["iqm"] <= a["ci"][1] and a["runs"] == 5
    b = aggregate([many], "many")
    assert b["ci"][1] - b["ci"][0] < a["ci"][1] - a["ci"][0]
    assert aggregate([few], "few") == a  # seeded by the name
    assert aggregate([[0.25] * 5], "constant")["ci"] == [0.25, 0.25]


def test_compare_gives_the_difference_and_ratio_of_iqms():
    learned = {"t": [0.5, 0.5, 0.5, 0.5, 0.5]}
    dense = {"t": [0.8, 0.8, 0.8, 0.8, 0.8]}
    bonus = {"t": [0.0, 0.1, 0.0, 0.1, 0.0]}
    c = compare(learned, dense, "ld")
    assert c["ratio"] == pytest.approx(0.625) and c["ratio_ci"] == pytest.approx([0.625, 0.625])
    assert c["difference"] == pytest.approx(-0.3) and c["prob_a_above"] == 0.0
    s = compare(learned, bonus, "lb")
    assert s["difference_ci"][0] > 0.3 and s["prob_a_above"] == 1.0
    # a bonus-only IQM of 0 has no ratio; resamples of all zeros make the ratio's upper end unbounded
    assert compare(learned, {"t": [0.0] * 5}, "zero")["ratio"] is None
    assert compare(learned, {"t": [0.0, 0.0, 0.0, 0.0, 0.2]}, "one")["ratio"] is None  # IQM cuts the 0.2
    assert compare(learned, {"t": [0.0, 0.0, 0.1, 0.2, 0.2]}, "some")["ratio_ci"][1] is None


def test_curve_band_is_the_iqm_with_a_band_around_it_and_skips_missing_points():
    curves = np.array([[0.0, 0.2, np.nan], [0.0, 0.4, 1.0], [0.0, 0.6, 1.0], [0.0, 0.8, 1.0], [0.0, 1.0, np.nan]])
    mid, lo, hi = curve_band(curves, "curve")
    assert mid[0] == lo[0] == hi[0] == 0.0
    assert mid[1] == pytest.approx(0.6) and lo[1] < 0.6 < hi[1]
    assert mid[2] == lo[2] == hi[2] == 1.0
    assert np.isnan(curve_band(np.full((3, 2), np.nan), "empty")[0]).all()
