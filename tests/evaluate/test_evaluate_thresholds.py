"""The judge's thresholds in one place: the two K-means implementations agree, and calibrated
thresholds are refused under settings other than those they were fitted under."""

import numpy as np
import pytest

from mineclip.evaluate.thresholds import Calibration, CalibrationMismatch, kmeans_threshold, kmeans_thresholds


def test_the_vectorised_kmeans_is_the_single_one_row_by_row():
    rng = np.random.default_rng(0)
    rows = np.concatenate([rng.normal(size=(40, 12)), rng.exponential(size=(40, 12)),
                           np.full((2, 12), 0.25)])  # constant rows: the value itself
    assert kmeans_thresholds(rows) == pytest.approx([kmeans_threshold(r) for r in rows], abs=1e-12)


def test_a_calibration_answers_only_for_its_own_settings():
    cal = Calibration.from_dict({"mode": "direct", "topk": 16, "window": 16, "frame_stride": 1,
                                 "negatives": "scene", "labels": "l.jsonl", "tasks": {"t": {"mean": 0.3}}})
    same = dict(mode="direct", topk=16, window=16, frame_stride=1, negatives="scene")
    assert cal.threshold("t", "mean", **same) == 0.3 and cal.threshold("u", "mean", **same) is None
    for key, other in (("mode", "delta"), ("topk", 4), ("window", 8), ("frame_stride", 2), ("negatives", "suite")):
        with pytest.raises(CalibrationMismatch, match=f"{key} .* \\(now {other!r}\\)"):
            cal.thresholds_for(**{**same, key: other})
    # fitted by a version that did not record its negatives: that one setting cannot be checked
    old = Calibration.from_dict({"mode": "direct", "tasks": {"t": {"mean": 0.3}}})
    assert old.thresholds_for(**{**same, "negatives": "suite"}) == {"t": {"mean": 0.3}}
    assert Calibration.from_dict({}) is None and Calibration.from_dict({"tasks": {}}) is None
