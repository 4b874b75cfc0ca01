"""`mineclip rl --reward-mode proximity` (and proximity-progress): PPO with the learned proximity
reward (the Percipient's head beside the artifact) trains and logs it; an artifact without a head,
or a task whose target the head cannot see, is refused before any training; bench/shaping.py
measures the proximity."""

from __future__ import annotations

import json
import shutil

import pytest

from mineclip.perception.calibrate import collect_frames
from mineclip.perception.head import fit_head
from mineclip.reward import RewardModel
from mineclip.rl.cli import main
from mineclip.rl.runs import untrained_artifact
from mineclip.rl.shaping import reward_by_distance

ARGS = ["--seeds", "1", "--steps", "128", "--num-envs", "4", "--n-steps", "32", "--batch-size", "64",
        "--n-epochs", "1", "--max-steps", "16", "--worlds", "1", "--eval-episodes", "4", "--workers", "1",
        "--obs", "symbolic", "--reward-mode", "proximity", "--reward-coef", "0.05"]


def test_proximity_reward_trains_and_bad_setups_are_refused_up_front(tmp_path, capsys):
    artifact = untrained_artifact(tmp_path / "art")
    out = tmp_path / "rl"
    assert main(["--model", str(artifact), "--out", str(out), "--tasks", "punch_cow", "--variants", "mineclip",
                 *ARGS]) == 2
    assert "has none" in capsys.readouterr().err  # no perception_head.safetensors beside the artifact
    assert not (out / "runs").exists()

    rm = RewardModel.load(artifact)
    fit_head(rm, collect_frames("perception", 8, per_episode=6, steps=18)).save(artifact)
    assert main(["--model", str(artifact), "--out", str(out), "--tasks", "eat_plant", "--variants", "mineclip",
                 *ARGS]) == 2
    assert "cannot see" in capsys.readouterr().err  # plants are not among the kinds it was fitted on

    assert main(["--model", str(artifact), "--out", str(out), "--tasks", "punch_cow", "--variants", "mineclip,sparse",
                 *ARGS]) == 0
    result = json.loads((out / "runs" / "punch_cow" / "mineclip" / "seed0" / "result.json").read_text())
    scale = result["train"]["learned_reward_scale"]
    assert scale["steps"] == result["train"]["env_steps"] >= 128
    assert scale["min"] < 0 < scale["max"]  # delta of proximity: coming nearer and moving away
    assert result["config"]["reward_mode"] == "proximity"
    assert result["host"]["cores"] >= 1 and result["host"]["torch"]  # which machine made the run
    assert "| task | learned proximity + success |" in (out / "table.md").read_text()

    # proximity-progress pays only for coming nearer than ever; the bonus-only run of the same
    # task and seed is reused, since the learned reward's settings do not change it
    progress = tmp_path / "rl-progress"
    bonus = out / "runs" / "punch_cow" / "sparse" / "seed0" / "result.json"
    (progress / "runs" / "punch_cow" / "sparse" / "seed0").mkdir(parents=True)
    (progress / "runs" / "punch_cow" / "sparse" / "seed0" / "result.json").write_bytes(bonus.read_bytes())
    args = [a if a != "proximity" else "proximity-progress" for a in ARGS]
    assert main(["--model", str(artifact), "--out", str(progress), "--tasks", "punch_cow",
                 "--variants", "mineclip,sparse", *args]) == 0
    assert "for 1 runs" in capsys.readouterr().out
    assert (progress / "runs" / "punch_cow" / "sparse" / "seed0" / "result.json").read_bytes() == bonus.read_bytes()
    result = json.loads((progress / "runs" / "punch_cow" / "mineclip" / "seed0" / "result.json").read_text())
    assert result["config"]["reward_mode"] == "proximity-progress"
    assert result["train"]["learned_reward_scale"]["min"] >= 0  # never a penalty
    assert "| task | learned proximity progress + success | success only |" in (progress / "table.md").read_text()
    # the cells hold different seeds: the per-seed table says whose; --report-only keeps the command that ran them
    moved = progress / "runs" / "punch_cow" / "sparse" / "seed0" / "result.json"
    moved.write_text(json.dumps({**json.loads(moved.read_text()), "seed": 3}))
    assert main(["--model", str(artifact), "--out", str(progress), "--report-only"]) == 0
    table = (progress / "table.md").read_text()
    assert "learned proximity progress + success: 0; punch_cow success only: 3:" in table
    assert "--reward-mode proximity-progress" in table and "--report-only" not in table
    # a task's runs copied in from another folder: the stored command did not make them, the report's does
    shutil.copytree(progress / "runs" / "punch_cow", progress / "runs" / "hunt_cow")
    assert main(["--model", str(artifact), "--out", str(progress), "--tasks", "punch_cow,hunt_cow",
                 "--report-only"]) == 0
    assert "--tasks punch_cow,hunt_cow --report-only" in (progress / "table.md").read_text()
    assert "--report-only" in (progress / "command.txt").read_text()

    # bench/shaping.py's measurement groups the proximity itself (tiles, 0..12), not its change
    s = reward_by_distance(artifact, "punch_cow", steps=10, num_envs=2, reward_mode="proximity")
    assert s.by_distance and all(0 <= mean <= 12 for _, mean in s.by_distance.values())
    assert max(mean for _, mean in s.by_distance.values()) > 0.5  # a delta would average about 0
    # whatever the mode pays, the proximity it measures is the same (same worlds, same random actions)
    progress_s = reward_by_distance(artifact, "punch_cow", steps=10, num_envs=2, reward_mode="proximity-progress")
    assert progress_s.by_distance.keys() == s.by_distance.keys()
    for d, (n, mean) in s.by_distance.items():
        assert progress_s.by_distance[d][0] == n and progress_s.by_distance[d][1] == pytest.approx(mean, abs=1e-4)
