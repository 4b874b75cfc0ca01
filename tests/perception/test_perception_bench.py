"""bench/perception.py on a micro artifact: both tables, and --json with per-condition F1 and
per-level success for each perceiver."""

import json
import runpy
from pathlib import Path

from helpers.models import make_micro

from mineclip.model.artifact import save_artifact
from mineclip.perception.benchmark import BenchSettings, run_benchmark
from mineclip.pipeline import load_preset

REPO = Path(__file__).resolve().parents[2]


def test_bench_prints_the_tables_and_one_json_object(tmp_path):
    art = save_artifact(make_micro(), tmp_path / "artifact", window=2)
    result = run_benchmark(BenchSettings(str(art), episodes=1, fit_worlds=3, eval_worlds=2,
                                         tasks=["find_a_cow", "find_cow_day"], progress=False))
    bench = runpy.run_path(str(REPO / "bench" / "perception.py"))
    out = bench["summary"](result)
    assert set(out["success"]) == {"ground_truth", "active", "one_shot"}
    assert set(out["success"]["ground_truth"]) == {"1", "2"} and out["success"]["ground_truth"]["1"] == 1.0
    assert set(out["reliability_f1"]) == {"trained", "untrained"} and "time:night" in out["reliability_f1"]["trained"]
    # the micro model's patches are not the simulator's tiles: no head, its thresholds in words
    assert (art / "perception.json").is_file() and not (art / "perception_head.safetensors").exists()
    assert out["thresholds"]["trained"] == "thresholds (in words) fitted on training worlds and saved"
    text = bench["tables"](result)
    assert "Reliability per condition type" in text and "| ground_truth | 100%" in text
    assert bench["main"](["--model", str(tmp_path / "none")]) == 1


def test_a_model_that_reads_tiles_gets_a_head_saved_and_read_back(tmp_path):
    art = save_artifact(make_micro(resolution=(160, 256)), tmp_path / "artifact", window=2)
    settings = BenchSettings(str(art), episodes=1, fit_worlds=4, eval_worlds=2, untrained=False,
                             tasks=["find_cow_day"], progress=False)
    first = run_benchmark(settings)
    assert first["thresholds"]["trained"] == "head and thresholds fitted on training worlds and saved"
    assert (art / "perception_head.safetensors").is_file()
    bands = json.loads((art / "perception.json").read_text())["conditions"]
    assert bands and {b["by"] for b in bands.values()} <= {"head", "text"} and "head" in {b["by"] for b in bands.values()}
    again = run_benchmark(settings)
    assert again["thresholds"]["trained"] == "read from perception.json and perception_head.safetensors"
    in_words = run_benchmark(BenchSettings(**{**settings.__dict__, "head": False}))
    assert in_words["thresholds"]["trained"] == "thresholds (in words) fitted on training worlds"
    assert json.loads((art / "perception.json").read_text())["conditions"] == bands  # not overwritten


def test_the_judge_alone_on_a_validation_set_of_training_worlds(tmp_path, capsys):
    from mineclip.play.record import read_jsonl
    from mineclip.tasks.world_seeds import purpose_of

    art = save_artifact(make_micro(), tmp_path / "artifact", window=2)
    bench = runpy.run_path(str(REPO / "bench" / "perception.py"))
    valset = tmp_path / "valset"
    assert bench["main"](["--model", str(art), "--judge-only", "--labels", "", "--per-label", "1", "--tasks",
                          "find_a_tree", "--context-purpose", "perception", "--context-dir", str(valset),
                          "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out["judges"]) == ["context"] and "reliability" not in out
    assert out["mode"] == load_preset("default").mode  # judged as the default's perception stage judges
    assert {purpose_of(r["world_seed"]) for r in read_jsonl(valset / "evalset.jsonl")} == {"perception"}
    assert bench["main"](["--model", str(art), "--judge-only", "--no-judge"]) == 2
