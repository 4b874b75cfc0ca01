"""`mineclip rl` end to end on one task: a few hundred PPO steps with the learned reward, then the table."""

from __future__ import annotations

import json

from mineclip.rl.cli import main
from mineclip.rl.table import collect


def test_rl_smoke_run_trains_with_the_learned_reward_and_writes_a_table_that_parses(tmp_path):
    out = tmp_path / "rl"
    rc = main(["--model", "untrained-tiny", "--out", str(out), "--tasks", "harvest_wood",
               "--variants", "mineclip,sparse", "--seeds", "1", "--steps", "256", "--num-envs", "4",
               "--n-steps", "32", "--batch-size", "64", "--n-epochs", "1", "--max-steps", "16",
               "--worlds", "1", "--eval-episodes", "4", "--workers", "1"])
    assert rc == 0

    table = json.loads((out / "table.json").read_text())
    assert table["tasks"] == ["harvest_wood"] and table["variants"] == ["mineclip", "sparse"]
    for variant in ("mineclip", "sparse"):
        cell = table["cells"]["harvest_wood"][variant]
        assert 0.0 <= cell["mean"] <= 1.0 and cell["seeds"] == [0] and cell["eval_episodes"] == 4
    md = (out / "table.md").read_text()
    assert md.splitlines()[0].startswith("| task |") and "| harvest_wood |" in md
    assert (out / "curves.png").stat().st_size > 0

    runs = {r["variant"]: r for r in collect(out)}
    learned = runs["mineclip"]
    assert learned["train"]["env_steps"] >= 256
    # the learned reward was computed on every training step; episodes logged its return
    assert learned["train"]["learned_reward_scale"]["steps"] == learned["train"]["env_steps"]
    assert learned["curve"] and all(len(e) == 3 for e in learned["curve"])
    assert runs["sparse"]["train"]["learned_reward_scale"] is None
    assert (learned["config"]["task"], learned["config"]["variant"]) == ("harvest_wood", "mineclip")
    ppo_log = (out / "runs" / "harvest_wood" / "mineclip" / "seed0" / "ppo" / "progress.csv").read_text()
    assert "train/policy_gradient_loss" in ppo_log.splitlines()[0]  # PPO's statistics, in the run folder

    # a re-run finds the finished runs and only rebuilds the table
    assert main(["--model", "untrained-tiny", "--out", str(out), "--tasks", "harvest_wood",
                 "--variants", "mineclip,sparse", "--seeds", "1", "--steps", "256", "--num-envs", "4",
                 "--n-steps", "32", "--batch-size", "64", "--n-epochs", "1", "--max-steps", "16",
                 "--worlds", "1", "--eval-episodes", "4", "--workers", "1"]) == 0
