"""The main job end to end, at the `quick` size: every stage leaves its outputs and the report parses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from mineclip.evaluate.report import task_f1
from mineclip.pipeline import STAGES, load_preset
from mineclip.pipeline.cli import main, parse_override
from mineclip.pipeline.quality import QualitySettings, quality_report

REPO = Path(__file__).resolve().parents[2]
QUICK = load_preset("quick")


@pytest.mark.slow
def test_quick_pipeline_produces_every_stage_output_and_a_parsable_report(tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    monkeypatch.chdir(tmp_path)  # a relative --out, as in the README (runs/default): records hold relative paths
    assert main(["--preset", "quick", "--out", "run"]) == 0
    out = capsys.readouterr().out

    for stage in STAGES:
        assert (run / "stages" / f"{stage}.json").is_file(), stage
    assert json.loads((run / "shards" / "train" / "manifest.json").read_text())["total"] > 0
    assert json.loads((run / "shards" / "val" / "manifest.json").read_text())["total"] > 0
    labels = [json.loads(line) for line in (run / "evalset" / "evalset.jsonl").read_text().splitlines()]
    assert {r["task_id"] for r in labels} == set(QUICK.evalset.tasks)
    assert {r["label"] for r in labels} == {0, 1}
    assert any((run / "train" / "checkpoints").glob("*.ckpt"))
    # the quick preset does not validate inside training, so no checkpoint is called best by R@1
    assert QUICK.training_config["trainer"]["limit_val_batches"] == 0
    assert json.loads((run / "stages" / "train.json").read_text())["best_by_val_r1"] is None
    assert (run / "artifact" / "model.safetensors").is_file()
    assert json.loads((run / "artifact" / "config.json").read_text())["frames"]["window"] == QUICK.num_frames

    metrics = json.loads((run / "report" / "metrics.json").read_text())
    trained = next(iter(metrics["models"].values()))
    assert set(trained) == set(QUICK.evalset.tasks)
    for entry in trained.values():
        assert 0.0 <= task_f1(entry) <= 1.0
    assert any(r.get("v2t_R@1") is not None for r in metrics["retrieval"].values())
    assert metrics["settings"]["negatives"] == "scene" == QUICK.negatives
    assert metrics["settings"]["mode"] == "direct-naive" == QUICK.mode  # the preset's judge reward reached the stage
    assert (run / "report" / "report.md").read_text().startswith("# ")
    assert list((run / "report").glob("*.png"))

    assert "mean programmatic" in out and "wall time:" in out and "report:" in out
    host = json.loads((run / "stages" / "train.json").read_text())["host"]  # what the seconds depend on
    assert host["cores"] >= 1 and host["cpu_capability"] and f"{host['cores']} cores, {host['cpu_capability']})" in out
    assert "mean direct-naive step reward" in out and "negatives: scene)" in out  # the summary says how it judged

    # a second run finds every stage done and only prints the summary again
    assert main(["--preset", "quick", "--out", str(run)]) == 0
    assert "done before" in capsys.readouterr().out

    # another training seed on the same data, from another folder: the data stages are reused, not
    # played again, and the reused evaluation set is found through the new run's own folder
    monkeypatch.chdir(REPO)
    seed1 = tmp_path / "seed1"
    assert main(["--preset", "quick", "--out", str(seed1), "--data-from", str(run), "--train-arg=--seed_everything=1"]) == 0
    out = capsys.readouterr().out
    assert "[clips] done before" in out and "[evalset] done before" in out and "[train] ..." in out
    assert (seed1 / "shards").resolve() == (run / "shards").resolve()
    # the context tasks' set is data too: recorded once by the evalset stage, judged by every seed
    assert (run / "evalset" / "context" / "evalset.jsonl").is_file() and not (seed1 / "perception").exists()
    assert "evalset/context" in json.loads((seed1 / "report" / "perception.json").read_text())["judges"]["sets"][
        "context"]["labels"]
    models = json.loads((seed1 / "report" / "metrics.json").read_text())["models"]
    assert set(next(iter(models.values()))) == set(QUICK.evalset.tasks)

    # the quality report (bench/quality.py --run --run --also-mode direct) reads both runs and shows the spread
    report = quality_report(QualitySettings([run, seed1], also_mode="direct"))
    assert report.failed == {}
    out = report.text
    assert "mean +- std [95%] over 2" in out and " of 2\n" in out and "fitted on half" in out
    assert "worst task" in out and "9 of 10 seeds meet both with no task below 0.60" in out
    # and beside it the same runs judged with the paper's negatives (one more eval each), with the
    # run's own reward formula
    assert "reward: direct-naive" in out and "the same runs judged with the paper's negatives" in out
    paper = json.loads((seed1 / "report-suite-negatives" / "metrics.json").read_text())
    assert paper["settings"]["negatives"] == "suite" and set(paper["models"]) == {"artifact"}
    assert paper["settings"]["mode"] == "direct-naive"
    # and with the paper's Direct reward, the run's negatives kept (--also-mode)
    assert "the same runs judged with the direct reward" in out
    direct = json.loads((seed1 / "report-direct" / "metrics.json").read_text())
    assert (direct["settings"]["mode"], direct["settings"]["negatives"]) == ("direct", "scene")

    # an option over two more seeds on that data, both at once (bench/quality.py --seed --train-arg --jobs):
    # each trains with the option and its own seed, in spawned processes that log to the run folder
    evt = tmp_path / "evt"
    report = quality_report(QualitySettings([evt], "quick", [0, 2], parse_override("--model.lr=2e-4"), run, jobs=2,
                                            perception=False, paper_negatives=False))
    assert report.failed == {}
    out = report.text
    assert "mean +- std [95%] over 2" in out and "evt-seed2" in out  # run names: their last 28 characters
    for folder, seed in ((evt, 0), (tmp_path / "evt-seed2", 2)):
        config = yaml.safe_load((folder / "train" / "checkpoints" / "config.yaml").read_text())
        assert config["seed_everything"] == seed and config["model"]["lr"] == 2e-4
        assert (folder / "shards").resolve() == (run / "shards").resolve()
        log = (folder / "pipeline.log").read_text()
        assert "[train] ..." in log and "the preset has no perception section" in json.loads(
            (folder / "stages" / "perception.json").read_text())["skipped"]


def test_data_from_refuses_an_unfinished_run_or_other_sizes(tmp_path, capsys):
    source = tmp_path / "source"
    assert main(["--preset", "quick", "--out", str(tmp_path / "a"), "--data-from", str(source)]) == 1
    assert "has not finished" in capsys.readouterr().err
    for stage in ("clips", "evalset"):
        (source / "stages").mkdir(parents=True, exist_ok=True)
        (source / "stages" / f"{stage}.json").write_text(json.dumps({"seconds": 1.0}))
    (source / "preset.json").write_text(json.dumps(load_preset("default").to_dict()))
    assert main(["--preset", "quick", "--out", str(tmp_path / "b"), "--data-from", str(source)]) == 1
    assert "other sizes" in capsys.readouterr().err
    assert not (tmp_path / "b" / "shards").exists()

    # same sizes, but --force would redo the other run's data, and an existing folder is not replaced
    (source / "preset.json").write_text(json.dumps(QUICK.to_dict()))
    for folder in ("shards", "evalset"):
        (source / folder).mkdir()
    assert main(["--preset", "quick", "--out", str(tmp_path / "c"), "--data-from", str(source), "--force"]) == 1
    assert "--force" in capsys.readouterr().err
    (tmp_path / "d" / "shards").mkdir(parents=True)
    assert main(["--preset", "quick", "--out", str(tmp_path / "d"), "--data-from", str(source)]) == 1
    assert "exists; use a new run folder" in capsys.readouterr().err
    assert not (tmp_path / "d" / "shards").is_symlink()


def test_evalset_stage_records_one_clip_length_after_each_success(tmp_path):
    # the judge's window is the preset's clip length: every window that holds the success is recorded
    from mineclip.pipeline.presets import preset_from_dict
    from mineclip.pipeline.run import stage_evalset

    preset = preset_from_dict("test", {"evalset": {"tasks": ["harvest_wood"], "per_label": 1},
                                       "train": {"defaults": ["tiny"], "data": {"init_args": {"num_frames": 11}}}})
    assert preset.num_frames == 11
    stage_evalset(tmp_path, preset, workers=1)
    (success,) = [r for r in map(json.loads, (tmp_path / "evalset" / "evalset.jsonl").read_text().splitlines())
                  if r["label"]]
    first = success["success"].index(True)
    assert success["num_steps"] - 1 - first == max(11, 15 - first)


def test_evalset_stage_records_the_context_set_afresh_beside_the_evaluation_set(tmp_path):
    # a preset with a perception section: its context tasks' set is data, recorded with the set
    # (never a stale one left by another preset in the same folder)
    from mineclip.pipeline.presets import preset_from_dict
    from mineclip.pipeline.run import context_dir, stage_evalset

    preset = preset_from_dict("test", {"evalset": {"tasks": ["harvest_wood"], "per_label": 1},
                                       "train": {"defaults": ["tiny"]},
                                       "perception": {"tasks": ["find_cow_day"], "per_label": 1, "fit_worlds": 2}})
    stale = context_dir(tmp_path) / "evalset.jsonl"
    stale.parent.mkdir(parents=True)
    stale.write_text('{"id": "left over"}\n')
    record = stage_evalset(tmp_path, preset, workers=1)
    lines = [json.loads(x) for x in stale.read_text().splitlines()]
    assert record["context"] == str(stale) and len(lines) == 2 and {r["task_id"] for r in lines} == {"find_cow_day"}


def test_data_from_reads_a_run_made_before_a_size_existed_at_its_default(tmp_path, capsys):
    # a run folder whose preset.json predates `clips.worlds` was made with 64 worlds: reusable by a
    # preset of 64, refused by one of 256; training clips are played on the preset's worlds
    from mineclip.pipeline.presets import preset_from_dict
    from mineclip.pipeline.run import clip_settings, reuse_data

    source = tmp_path / "source"
    (source / "stages").mkdir(parents=True)
    for stage, folder in (("clips", "shards"), ("evalset", "evalset")):
        (source / "stages" / f"{stage}.json").write_text(json.dumps({"seconds": 1.0}))
        (source / folder).mkdir()
    old = QUICK.to_dict()
    del old["clips"]["worlds"]
    (source / "preset.json").write_text(json.dumps(old))
    reuse_data(tmp_path / "a", source, QUICK)
    assert (tmp_path / "a" / "shards").resolve() == (source / "shards").resolve()

    more = preset_from_dict("more", {**QUICK.to_dict(), "clips": {**QUICK.to_dict()["clips"], "worlds": 256}})
    assert clip_settings(more)["train"].worlds == 256 and clip_settings(QUICK)["train"].worlds == 64
    assert main(["--preset", str(_write(tmp_path / "more.yaml", more.to_dict())), "--out", str(tmp_path / "b"),
                 "--data-from", str(source)]) == 1
    assert "other sizes (clips)" in capsys.readouterr().err
    (source / "preset.json").write_text(json.dumps({**old, "clips": {**old["clips"], "colour": 1}}))
    assert main(["--preset", "quick", "--out", str(tmp_path / "c"), "--data-from", str(source)]) == 1
    assert "cannot read its preset.json" in capsys.readouterr().err

    # a preset with no worlds to play on: one line from the clips stage, no shards written
    none = preset_from_dict("none", {**QUICK.to_dict(), "clips": {**QUICK.to_dict()["clips"], "worlds": 0}})
    assert main(["--preset", str(_write(tmp_path / "none.yaml", none.to_dict())), "--out", str(tmp_path / "d"),
                 "--until", "clips"]) == 1
    assert "clips: worlds is the number of distinct worlds played, at least 1, got 0" in capsys.readouterr().err
    assert not (tmp_path / "d" / "shards").exists()


def _write(path: Path, data: dict) -> Path:
    path.write_text(json.dumps(data))
    return path
