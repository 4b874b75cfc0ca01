"""`mineclip rl --view first_person`: PPO trains and is evaluated on the player's eyes with the
first-person controls, and the run and its table say so."""

from __future__ import annotations

import json

from mineclip.rl.cli import main
from mineclip.rl.table import collect


def test_a_first_person_run_trains_and_evaluates_in_first_person_and_a_top_run_is_not_reused(tmp_path):
    out = tmp_path / "rl"
    argv = ["--model", "untrained-tiny", "--out", str(out), "--tasks", "harvest_wood", "--variants", "sparse",
            "--seeds", "1", "--steps", "64", "--num-envs", "2", "--n-steps", "32", "--batch-size", "64",
            "--n-epochs", "1", "--max-steps", "8", "--worlds", "1", "--eval-episodes", "2", "--workers", "1"]
    assert main(argv + ["--view", "first_person"]) == 0
    (run,) = collect(out)
    assert run["view"] == "first_person" and run["config"]["view"] == "first_person"
    table = json.loads((out / "table.json").read_text())
    assert table["meta"]["view"] == "first_person" and "--view first_person" in table["meta"]["command"]
    result = out / "runs" / "harvest_wood" / "sparse" / "seed0" / "result.json"
    before = result.stat().st_mtime_ns
    assert main(argv) == 0  # the top view: the first-person run is not taken for it
    (run,) = collect(out)
    assert run["config"]["view"] == "top" and result.stat().st_mtime_ns != before
