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


def test_cross_calibration_fits_on_one_half_and_judges_the_other():
    from mineclip.evaluate.thresholds import calibrate_threshold, cross_calibrated_f1

    # separable by any threshold between 0.2 and 0.8 in both halves: every judgement right
    assert cross_calibrated_f1([0.9, 0.1, 0.8, 0.2, 0.85, 0.15], [1, 0, 1, 0, 1, 0]) == 1.0
    # separable as a whole, but each half's own fit misjudges one of the other half (see
    # tests/pipeline/test_pipeline_quality.py): 1 TP, 1 FP, 1 FN -> F1 0.5, where fitting on all four claims 1.0
    assert cross_calibrated_f1([0.9, 0.5, 0.4, 0.1], [1, 1, 0, 0]) == pytest.approx(0.5)
    assert calibrate_threshold([0.9, 0.5, 0.4, 0.1], [1, 1, 0, 0]) == pytest.approx(0.45)
