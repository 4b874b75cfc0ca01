"""The Percipient: per-condition probabilities against minimal pairs, decided with an unsure band;
bad input gives a clear error or an unsure answer, never a confident guess."""

import numpy as np
import pytest

from mineclip.perception.calibrate import fit_band, load_thresholds, save_thresholds
from mineclip.perception.conditions import Condition, conditions_of
from mineclip.perception.percipient import Percipient, decide
from mineclip.tasks import get_task

FRAME = np.zeros((160, 256, 3), np.uint8)
BANDS = {"conditions": {"creature:cow": {"lo": 0.2, "hi": 0.6}, "time:day": {"lo": 0.4, "hi": 0.5}}}


def test_probabilities_are_against_minimal_pairs_and_decisions_follow_the_band(reward_model):
    p = Percipient(reward_model, BANDS)
    cow, water, day = conditions_of(get_task("find_cow_near_water_day"))
    answers = p.perceive(FRAME, [cow, water, day])
    assert [a.condition for a in answers] == [cow, water, day]
    assert all(0 < a.prob < 1 for a in answers)
    assert answers[1].decision == "unsure" and "not calibrated" in answers[1].why  # no band for water
    assert decide(0.7, BANDS["conditions"]["creature:cow"])[0] == "yes"
    assert decide(0.1, BANDS["conditions"]["creature:cow"])[0] == "no"
    assert decide(0.3, BANDS["conditions"]["creature:cow"])[0] == "unsure"


def test_untrained_for_conditions_are_unsure_never_a_guess(reward_model):
    answers = Percipient(reward_model, {}).perceive(FRAME, conditions_of(get_task("find_cow_day")))
    assert {a.decision for a in answers} == {"unsure"}
    inventory = Condition("agent", "wood_sword", (("have", 1),))  # no minimal pairs: a frame cannot tell
    (answer,) = Percipient(reward_model, BANDS).perceive(FRAME, [inventory])
    assert answer.decision == "unsure" and "not visible" in answer.why


def test_contradictory_and_empty_conditions_are_errors(reward_model):
    p = Percipient(reward_model, BANDS)
    with pytest.raises(ValueError, match="contradictory"):
        p.perceive(FRAME, [Condition("time", "day"), Condition("time", "night")])
    with pytest.raises(ValueError, match="empty"):
        p.perceive(FRAME, [])


@pytest.mark.parametrize("frames", [np.zeros((160, 160, 3), np.uint8), np.zeros((2, 3, 160, 256), np.uint8),
                                    np.zeros((160, 256, 3), np.float32), np.zeros((0, 160, 256, 3), np.uint8)])
def test_frames_of_the_wrong_size_or_type_are_errors(reward_model, frames):
    with pytest.raises(ValueError, match=r"expected uint8 frames \[T, 160, 256, 3\]"):
        Percipient(reward_model, BANDS).perceive(frames, [Condition("time", "day")])


def test_bands_reach_the_target_precision_or_stay_open_and_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    labels = rng.random(400) < 0.5
    probs = np.clip(labels * 0.5 + rng.random(400) * 0.5, 0, 1)  # separable above 0.5 and below 0.5
    band = fit_band(probs, labels)
    assert band["lo"] < band["hi"] and labels[probs >= band["hi"]].mean() >= 0.9
    assert (~labels[probs <= band["lo"]]).mean() >= 0.9
    noise = fit_band(rng.random(200), rng.random(200) < 0.5)  # P says nothing: never a confident answer
    assert noise["hi"] is None or noise["hi"] > 0.95
    assert fit_band(probs[:5], labels[:5]) is None  # too few frames of each label: no band, always unsure
    save_thresholds(tmp_path, {"conditions": {"creature:cow": band}})
    assert load_thresholds(tmp_path)["conditions"]["creature:cow"] == band and load_thresholds(tmp_path / "x") == {}
