"""`mineclip rl --obs/--view-net`: option parsing, and a tiny run with the symbolic input whose table
holds IQMs with bootstrap intervals."""

from __future__ import annotations

import json

import pytest

from mineclip.rl.cli import build_parser, main, run_configs
from mineclip.rl.train import RunConfig


def _configs(*extra):
    args = build_parser().parse_args(["--model", "m", "--out", "o", "--tasks", "harvest_wood,hunt_cow",
                                      "--seeds", "2", *extra])
    return run_configs(args, "m")


def test_obs_option_reaches_every_run_and_defaults_to_features_plus_symbols():
    default = _configs()
    assert len(default) == 2 * 3 * 2
    assert {c.obs for c in default} == {"features+symbolic"} == {RunConfig.obs}
    assert {c.ppo.view_net for c in default} == {"conv"}
    old = _configs("--obs", "features", "--view-net", "mlp")
    assert {c.obs for c in old} == {"features"} and {c.ppo.view_net for c in old} == {"mlp"}
    assert {c.obs for c in _configs("--obs", "symbolic")} == {"symbolic"}
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--model", "m", "--out", "o", "--obs", "voxels"])


def test_first_seed_runs_more_seeds_of_a_study_already_run():
    assert sorted({c.seed for c in _configs()}) == [0, 1]
    more = _configs("--first-seed", "5")
    assert sorted({c.seed for c in more}) == [5, 6] and len(more) == 2 * 3 * 2
    for bad in (("--first-seed", "-1"), ("--seeds", "0")):
        with pytest.raises(ValueError, match="--seeds >= 1 and --first-seed >= 0"):
            _configs(*bad)


@pytest.mark.parametrize("option, value, message", [
    ("--steps", "0", "steps must be at least 1, got 0"),
    ("--num-envs", "0", "num_envs must be at least 1, got 0"),
    ("--eval-episodes", "0", "eval_episodes must be at least 1, got 0"),
    ("--worlds", "0", "worlds must be at least 1, got 0"),
    ("--max-steps", "0", "max_steps must be at least 1"),
    ("--n-steps", "0", "PPO's n_steps must be at least 1"),
    ("--batch-size", "-1", "PPO's batch_size must be at least 1"),
    ("--lr", "0", "PPO's learning_rate must be above 0"),
])
def test_settings_that_train_or_judge_nothing_are_refused_before_any_run(option, value, message, tmp_path, capsys):
    # --steps 0 and --eval-episodes 0 wrote a table of NaN; --num-envs 0 failed in every worker (IndexError)
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        _configs(option, value)
    out = tmp_path / "rl"
    assert main(["--model", "untrained-tiny", "--out", str(out), "--tasks", "harvest_wood", option, value]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()  # not even the untrained artifact


def test_an_unknown_task_is_refused_before_anything_is_written(tmp_path, capsys):
    out = tmp_path / "rl"
    assert main(["--model", "untrained-tiny", "--out", str(out), "--tasks", "harvest_wood,harvest_wod"]) == 2
    assert capsys.readouterr().err.startswith("mineclip rl: unknown task 'harvest_wod'")
    assert not out.exists()


def test_a_missing_model_is_refused_before_any_run_starts(tmp_path, capsys):
    out = tmp_path / "rl"
    missing = tmp_path / "no-such-artifact"
    assert main(["--model", str(missing), "--out", str(out), "--tasks", "harvest_wood",
                 "--steps", "64", "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert f"mineclip rl: --model: checkpoint not found: {missing}" in err and "FAILED" not in err
    assert not out.exists()  # nothing started, nothing written
    # a folder that holds no checkpoint is refused the same way, by the same dispatcher
    (tmp_path / "empty").mkdir()
    assert main(["--model", str(tmp_path / "empty"), "--out", str(out), "--tasks", "harvest_wood"]) == 2
    assert "neither an artifact" in capsys.readouterr().err
    assert not out.exists()


def test_rl_run_on_symbols_alone_trains_with_the_learned_reward_and_reports_iqm(tmp_path):
    out = tmp_path / "rl"
    argv = ["--model", "untrained-tiny", "--out", str(out), "--tasks", "harvest_wood", "--variants",
            "mineclip,sparse", "--seeds", "2", "--steps", "64", "--num-envs", "2", "--n-steps", "16",
            "--batch-size", "16", "--n-epochs", "1", "--max-steps", "8", "--worlds", "1",
            "--eval-episodes", "2", "--workers", "1", "--obs", "symbolic"]
    assert main(argv) == 0
    table = json.loads((out / "table.json").read_text())
    for v in ("mineclip", "sparse"):
        cell = table["cells"]["harvest_wood"][v]
        assert cell["obs"] == "symbolic" and len(cell["per_seed"]) == 2
        lo, hi = cell["ci"]
        assert min(cell["per_seed"]) <= lo <= cell["iqm"] <= hi <= max(cell["per_seed"])
    comp = table["comparisons"]["harvest_wood"]["mineclip_vs_sparse"]
    assert comp["difference"] == pytest.approx(table["cells"]["harvest_wood"]["mineclip"]["iqm"]
                                               - table["cells"]["harvest_wood"]["sparse"]["iqm"])
    assert table["compute"]["runs"] == 4 and table["compute"]["env_steps_total"] >= 4 * 64
    md = (out / "table.md").read_text()
    assert "interquartile mean over 2 seeds" in md and "Per-seed success" in md and "`symbolic`" in md
    run = json.loads((out / "runs" / "harvest_wood" / "mineclip" / "seed0" / "result.json").read_text())
    # the policy saw only symbols, yet the learned reward was computed from the frames on every step
    assert run["train"]["learned_reward_scale"]["steps"] == run["train"]["env_steps"]
    assert run["train"]["frames_encoded"] >= run["train"]["env_steps"]
    # one more seed into the same folder: the table holds all three, and names both commands
    more = [a for a in argv if a != "mineclip,sparse"]
    more[more.index("--variants") + 1:more.index("--variants") + 1] = ["sparse"]
    more[more.index("--seeds") + 1] = "1"
    assert main([*more, "--first-seed", "2"]) == 0
    table = json.loads((out / "table.json").read_text())
    assert table["cells"]["harvest_wood"]["sparse"]["seeds"] == [0, 1, 2]
    assert table["cells"]["harvest_wood"]["mineclip"]["seeds"] == [0, 1]
    commands = (out / "command.txt").read_text().splitlines()
    assert len(commands) == 2 and "--first-seed" not in commands[0] and "--first-seed 2" in commands[1]
    assert "; then mineclip rl" in (out / "table.md").read_text()
    assert main([*more, "--first-seed", "2", "--report-only"]) == 0  # the report keeps both commands
    assert (out / "command.txt").read_text().splitlines() == commands
