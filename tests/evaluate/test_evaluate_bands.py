"""The judge per MCU difficulty band: tasks fall in their catalogue band, means are per band, and the
rank correlation agrees with SciPy's (ties included)."""

import numpy as np
import pytest

from mineclip.evaluate.bands import judge_by_band, ranks, spearman
from mineclip.evaluate.report import band_section
from mineclip.tasks.difficulty import BANDS, bands, load_scores
from mineclip.tasks.judging import SUITE


def _entry(f1: float, auc: float | None = 0.9) -> dict:
    return {"rules": {"mean": {"kmeans": {"metrics": {"f1": f1}, "auc": auc}}}}


def test_spearman_by_hand_and_against_scipy():
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert list(ranks([3.0, 1.0, 2.0, 2.0])) == [4.0, 1.0, 2.5, 2.5]
    # ties: ranks (1, 2.5, 2.5, 4) against (1, 2, 3, 4): 4.5 / sqrt(4.5 * 5)
    assert spearman([1, 2, 2, 3], [1, 2, 3, 4]) == pytest.approx(4.5 / np.sqrt(22.5))
    assert spearman([1, 1, 1], [1, 2, 3]) is None and spearman([1, 2], [2, 1]) is None
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(0)
    x, y = rng.integers(0, 5, 30), rng.normal(size=30)
    assert spearman(x, y) == pytest.approx(stats.spearmanr(x, y).statistic)


def test_tasks_fall_in_their_band_and_means_are_per_band():
    scores = load_scores()
    by_band = bands(scores=scores)
    per_band = {b: sorted(t for t in by_band if by_band[t] == b) for b in BANDS}
    picked = [t for b in BANDS for t in (per_band[b][0], per_band[b][-1])]  # two tasks of each band
    f1 = {t: 0.5 + 0.05 * i for i, t in enumerate(picked)}
    models = {"trained": {t: _entry(f) for t, f in f1.items()} | {"not_a_catalogue_task": _entry(1.0)},
              "untrained": {t: _entry(0.1, None) for t in picked}}
    out = judge_by_band(models, SUITE)
    for b in BANDS:
        row = out["bands"]["trained"][b]
        assert row["tasks"] == sorted({t for t in picked if by_band[t] == b})
        assert row["mean_f1"] == pytest.approx(np.mean([f1[t] for t in row["tasks"]]))
        assert row["mean_auc"] == pytest.approx(0.9)
        assert out["bands"]["untrained"][b]["mean_auc"] is None
    ts = sorted(set(picked))
    assert out["spearman"]["trained"]["overall"] == pytest.approx(
        spearman([scores[t]["overall"] for t in ts], [f1[t] for t in ts]))
    md = "\n".join(band_section(out))
    assert "## F1 per difficulty band (MCU)" in md and "| band | tasks | trained | untrained |" in md
    assert "not_a_catalogue_task" not in md


def test_no_catalogue_task_or_no_suite_gives_no_bands():
    assert judge_by_band({"trained": {"someone_elses_task": _entry(0.7)}}, SUITE) is None
    assert judge_by_band({"trained": {"harvest_wood": _entry(0.7)}}, None) is None
