"""The main job end to end, at the `quick` size: every stage leaves its outputs and the report parses."""

from __future__ import annotations

import dataclasses
import json
import runpy

import pytest

from mineclip.evaluate.report import task_f1
from mineclip.pipeline import PRESETS, REPO, STAGES, main


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

    # another training seed on the same data: the data stages are reused, not played again
    seed1 = tmp_path / "seed1"
    assert main(["--preset", "quick", "--out", str(seed1), "--data-from", str(run), "--train-arg=--seed_everything=1"]) == 0
    out = capsys.readouterr().out
    assert "[clips] done before" in out and "[evalset] done before" in out and "[train] ..." in out
    assert (seed1 / "shards").resolve() == (run / "shards").resolve()
    models = json.loads((seed1 / "report" / "metrics.json").read_text())["models"]
    assert set(next(iter(models.values()))) == set(PRESETS["quick"].eval_tasks)

    # bench/quality.py reads both runs and prints the spread over them
    quality = runpy.run_path(str(REPO / "bench" / "quality.py"))
    assert quality["main"](["--run", str(run), "--run", str(seed1)]) == 0
    out = capsys.readouterr().out
    assert "mean +- std over 2 runs" in out and " of 2\n" in out and "fitted on half" in out


def test_data_from_refuses_an_unfinished_run_or_other_sizes(tmp_path, capsys):
    source = tmp_path / "source"
    assert main(["--preset", "quick", "--out", str(tmp_path / "a"), "--data-from", str(source)]) == 1
    assert "has not finished" in capsys.readouterr().err
    for stage in ("clips", "evalset"):
        (source / "stages").mkdir(parents=True, exist_ok=True)
        (source / "stages" / f"{stage}.json").write_text(json.dumps({"seconds": 1.0}))
    (source / "preset.json").write_text(json.dumps(dataclasses.asdict(PRESETS["default"])))
    assert main(["--preset", "quick", "--out", str(tmp_path / "b"), "--data-from", str(source)]) == 1
    assert "other sizes" in capsys.readouterr().err
    assert not (tmp_path / "b" / "shards").exists()
