"""bench/perception.py on a micro artifact: both tables, and --json with per-condition F1 and
per-level success for each perceiver."""

import runpy
from pathlib import Path

from helpers.models import make_micro

from mineclip.model.artifact import save_artifact
from mineclip.perception.benchmark import BenchSettings, run_benchmark

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
    assert (art / "perception.json").is_file() and out["thresholds"]["trained"].startswith("fitted")
    text = bench["tables"](result)
    assert "Reliability per condition type" in text and "| ground_truth | 100%" in text
    assert bench["main"](["--model", str(tmp_path / "none")]) == 1
