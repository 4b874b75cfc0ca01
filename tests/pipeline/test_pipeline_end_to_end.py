"""The main job end to end, at the `quick` size: every stage leaves its outputs and the report parses."""

from __future__ import annotations

import json

import pytest

from mineclip.evaluate.report import task_f1
from mineclip.pipeline import PRESETS, STAGES, main


@pytest.mark.slow
def test_quick_pipeline_produces_every_stage_output_and_a_parsable_report(tmp_path, capsys):
    run = tmp_path / "run"
    assert main(["--preset", "quick", "--out", str(run)]) == 0
    out = capsys.readouterr().out

    for stage in STAGES:
        assert (run / "stages" / f"{stage}.json").is_file(), stage
    assert json.loads((run / "shards" / "train" / "manifest.json").read_text())["total"] > 0
    assert json.loads((run / "shards" / "val" / "manifest.json").read_text())["total"] > 0
    labels = [json.loads(line) for line in (run / "evalset" / "evalset.jsonl").read_text().splitlines()]
    assert {r["task_id"] for r in labels} == set(PRESETS["quick"].eval_tasks)
    assert {r["label"] for r in labels} == {0, 1}
    assert any((run / "train" / "checkpoints").glob("*.ckpt"))
    # the quick preset does not validate inside training, so no checkpoint is called best by R@1
    assert not PRESETS["quick"].validate_in_training
    assert json.loads((run / "stages" / "train.json").read_text())["best_by_val_r1"] is None
    assert (run / "artifact" / "model.safetensors").is_file()
    assert json.loads((run / "artifact" / "config.json").read_text())["frames"]["window"] == PRESETS["quick"].num_frames

    metrics = json.loads((run / "report" / "metrics.json").read_text())
    trained = next(iter(metrics["models"].values()))
    assert set(trained) == set(PRESETS["quick"].eval_tasks)
    for entry in trained.values():
        assert 0.0 <= task_f1(entry) <= 1.0
    assert any(r.get("v2t_R@1") is not None for r in metrics["retrieval"].values())
    assert (run / "report" / "report.md").read_text().startswith("# ")
    assert list((run / "report").glob("*.png"))

    assert "mean programmatic" in out and "wall time:" in out and "report:" in out

    # a second run finds every stage done and only prints the summary again
    assert main(["--preset", "quick", "--out", str(run)]) == 0
    assert "done before" in capsys.readouterr().out
