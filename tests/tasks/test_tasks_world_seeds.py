"""World seeds: every purpose has its own range, and the defaults of every command stay in theirs."""

import pytest

from mineclip.tasks.world_seeds import EVAL_SEED_START, RANGES, purpose_of, split_of, world_seeds


def test_ranges_are_disjoint_and_eval_purposes_are_in_the_eval_split():
    spans = sorted(RANGES.values())
    assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:]))
    assert {p for p, (start, _) in RANGES.items() if start >= EVAL_SEED_START} == {"evalset", "perception_eval", "rl_eval"}
    assert split_of(world_seeds("clips", 5)[-1]) == "train" and split_of(world_seeds("evalset", 5)[0]) == "eval"
    with pytest.raises(ValueError, match="leave the 'clips' range"):
        world_seeds("clips", 10, offset=RANGES["clips"][1] - RANGES["clips"][0] - 5)
    with pytest.raises(ValueError, match="expected a world purpose"):
        world_seeds("train", 3)


def default_worlds() -> dict[str, set[int]]:
    """The worlds each command plays with its default arguments, found through the command's own code."""
    from mineclip.pipeline import load_preset
    from mineclip.pipeline.run import clip_settings, evalset_settings
    from mineclip.play import cli as play_cli
    from mineclip.play.clips import plan_episodes
    from mineclip.play.demos import demo_worlds
    from mineclip.play.evalset import evalset_worlds
    from mineclip.rl import cli as rl_cli
    from mineclip.rl.train import evaluation_worlds, training_worlds

    worlds: dict[str, set[int]] = {}
    preset = clip_settings(load_preset("default"))
    worlds["pipeline training clips"] = {j["world_seed"] for j in plan_episodes(preset["train"])}
    worlds["pipeline held-out clips"] = {j["world_seed"] for j in plan_episodes(preset["val"])}
    worlds["pipeline evaluation set"] = set(evalset_worlds(evalset_settings(load_preset("default")).worlds))
    parser = play_cli.build_parser()
    worlds["play clips"] = {j["world_seed"] for j in plan_episodes(play_cli.clip_settings(parser.parse_args(["clips"])))}
    worlds["play record"] = {j["world_seed"] for j in play_cli.record_jobs(parser.parse_args(["record"]))}
    worlds["play evalset"] = set(evalset_worlds(play_cli.evalset_settings(parser.parse_args(["evalset"])).worlds))
    configs = rl_cli.run_configs(rl_cli.build_parser().parse_args(["--model", "unused", "--out", "unused"]), "unused")
    worlds["rl training"] = {w for c in configs for w in training_worlds(c)}
    worlds["rl evaluation"] = {w for c in configs for w in evaluation_worlds(c)}
    worlds["difficulty demos"] = set(demo_worlds(4))
    return worlds


# what may share worlds: the same kind of use (training clips made by the pipeline or by hand)
SAME_USE = [{"pipeline training clips", "play clips"}, {"pipeline evaluation set", "play evalset"}]


def test_the_defaults_of_every_command_play_disjoint_worlds():
    worlds = default_worlds()
    assert all(worlds.values())
    names = sorted(worlds)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if {a, b} in SAME_USE:
                continue
            shared = worlds[a] & worlds[b]
            assert not shared, f"{a} and {b} share worlds {sorted(shared)[:5]}"
    assert {purpose_of(w) for w in worlds["rl evaluation"]} == {"rl_eval"}
    assert {split_of(w) for w in worlds["pipeline evaluation set"] | worlds["rl evaluation"]} == {"eval"}


def test_the_suites_purposes_lie_inside_the_worlds_crafter_generates():
    from mineclip.sim.env import WORLD_SEEDS, check_world_seed

    assert all(start in WORLD_SEEDS and end - 1 in WORLD_SEEDS for start, end in RANGES.values())
    for bad in (-1, WORLD_SEEDS.stop, 1.5, "3", True):
        with pytest.raises(ValueError, match=r"expected a world seed, an integer in \[0, 2147483647\)"):
            check_world_seed(bad)
