"""The reward by conditions: per-condition P against its own negatives, combined by a soft AND."""

import numpy as np
import pytest
import torch
from helpers.models import make_micro

from mineclip.reward import FactoredRewardFunction, RewardModel, soft_and


def test_soft_and_is_one_only_when_every_condition_holds_and_follows_the_weakest():
    p = torch.tensor([[1.0, 1.0], [0.9, 0.1], [0.5, 0.5], [1.0, 0.0]])
    for how in ("geomean", "softmin"):
        c = soft_and(p, how)
        assert c[0] == pytest.approx(1.0) and c[3] < 0.05 and c[1] < c[2]
    assert float(soft_and(torch.tensor([0.25, 1.0]))) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="soft AND"):
        soft_and(p, "max")


def test_one_condition_equals_the_prompt_reward_and_more_conditions_combine():
    rm = RewardModel(make_micro(), window=2)
    frames = np.random.default_rng(0).integers(0, 255, (5, 32, 64, 3), dtype=np.uint8)
    single = rm.reward_fn("chop a tree", ["hunt a cow", "drink water"], mode="direct-naive").trajectory(frames)
    one = FactoredRewardFunction(rm, [("chop a tree", ["hunt a cow", "drink water"])], mode="direct-naive")
    one = one.trajectory(frames)
    np.testing.assert_allclose(one.prob, single.prob, atol=1e-5)
    two = FactoredRewardFunction(rm, [("chop a tree", ["hunt a cow"]), ("it's night", ["during the day, sun is up"])])
    res = two.trajectory(frames)
    assert res.logits.shape == (5, 2) and two.chance == pytest.approx(0.5)
    np.testing.assert_allclose(res.prob, np.sqrt(res.logits.prod(-1)), rtol=1e-4)
    assert (res.reward >= 0).all() and np.allclose(res.reward, np.maximum(res.prob - 0.5, 0), atol=1e-6)
    with pytest.raises(ValueError, match="at least one negative"):
        FactoredRewardFunction(rm, [("chop a tree", ["chop a tree"])])


@pytest.mark.parametrize("mode", ["direct", "delta", "progress"])
def test_the_streamed_reward_by_conditions_equals_the_stored_trajectorys(mode):
    """One frame encoding per env step through the cached window, the same rewards as in one call."""
    rm = RewardModel(make_micro(), window=3)
    conditions = [("chop a tree", ["hunt a cow", "drink water"]), ("it's night", ["during the day"])]
    fn = FactoredRewardFunction(rm, conditions, mode=mode, combine="softmin")
    rng = np.random.default_rng(1)
    episodes = rng.integers(0, 255, (2, 6, 32, 64, 3), dtype=np.uint8)  # 2 envs, 6 frames each
    stream = fn.stream(2)
    steps = [stream.reset(episodes[:, 0])] + [stream.step(episodes[:, t]) for t in range(1, 6)]
    for env in range(2):
        whole = fn.trajectory(episodes[env])
        np.testing.assert_allclose([float(s.prob[env]) for s in steps], whole.prob, atol=1e-5)
        np.testing.assert_allclose([float(s.reward[env]) for s in steps], whole.reward, atol=1e-5)
        np.testing.assert_allclose(np.stack([s.logits[env].numpy() for s in steps]), whole.logits, atol=1e-5)
