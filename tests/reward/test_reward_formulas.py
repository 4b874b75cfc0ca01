"""Reward formulas of the MineDojo paper on known probabilities."""

import numpy as np
import pytest
import torch

from mineclip.reward import direct_reward, reward_from_probs


def test_direct_reward_subtracts_chance_and_clips_at_zero():
    p = torch.tensor([0.1, 0.25, 0.5, 1.0])
    assert torch.allclose(direct_reward(p, 4), torch.tensor([0.0, 0.0, 0.25, 0.75]))
    assert np.allclose(direct_reward(np.array([0.2, 0.7]), 2), [0.0, 0.2])


def test_direct_naive_reward_is_the_probability():
    p = torch.tensor([0.1, 0.9])
    assert torch.equal(reward_from_probs(p, 5, "direct-naive"), p)


def test_delta_reward_is_the_change_of_probability():
    p = np.array([0.2, 0.5, 0.4, 0.9])
    assert np.allclose(reward_from_probs(p, 3, "delta"), [0.0, 0.3, -0.1, 0.5])
    step = reward_from_probs(torch.tensor([0.6]), 3, "delta", prev_probs=torch.tensor([0.25]))
    assert torch.allclose(step, torch.tensor([0.35]))


def test_unknown_mode_is_rejected():
    with pytest.raises(ValueError, match="direct-naive"):
        reward_from_probs(np.array([0.5]), 2, "sparse")
