"""The Patroller: asks about unconfirmed conditions, declares done itself; MP5's failure modes counted."""

import pytest

from mineclip.perception.calibrate import collect_frames, fit_thresholds, probes
from mineclip.perception.patroller import PERCEIVERS, make_perceiver, patrol
from mineclip.perception.percipient import Percipient
from mineclip.tasks.world_seeds import split_of, world_seeds

WORLD = world_seeds("perception_eval", 1)[0]


def test_with_the_ground_truth_it_declares_done_when_every_condition_holds():
    for task in ("find_a_cow", "find_cow_near_water_day", "find_cow_beach_day_bright"):
        out = patrol(task, make_perceiver("ground_truth"), WORLD)
        assert out.success and out.declared and not out.false_done and out.questions >= 1


def test_an_uncalibrated_percipient_abstains_so_the_agent_never_declares(reward_model):
    out = patrol("find_cow_day", make_perceiver("active", Percipient(reward_model, {})), WORLD)
    assert not out.declared and not out.success and out.missed  # failure mode two, never a confident guess


def test_a_percipient_that_always_says_yes_declares_too_early_and_is_counted(reward_model):
    always = {"conditions": {c.key: {"lo": None, "hi": 0.0} for c in probes()}, "whole": {"lo": None, "hi": 0.0}}
    for name in ("active", "one_shot"):
        out = patrol("find_cow_day", make_perceiver(name, Percipient(reward_model, always)), WORLD,
                     max_steps=64, init={"time": "night"})
        assert out.declared and out.false_done and not out.success


def test_perceivers_by_name_and_training_frames_come_from_training_worlds(reward_model):
    assert PERCEIVERS == ("ground_truth", "active", "one_shot")
    with pytest.raises(ValueError, match="needs a Percipient"):
        make_perceiver("active")
    frames = collect_frames("perception", 2, per_episode=3, steps=9)
    assert frames and {split_of(w) for w in world_seeds("perception", 2)} == {"train"}
    th = fit_thresholds(Percipient(reward_model, {}), frames)
    assert th["frames"] == len(frames) and set(th) >= {"conditions", "whole", "target_precision"}
