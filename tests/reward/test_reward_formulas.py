"""Reward formulas of the MineDojo paper on known probabilities."""

import numpy as np
import pytest
import torch

from mineclip.reward import direct_reward, progress_reward, reward_from_probs


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


def test_progress_reward_pays_directs_gain_over_the_episodes_best():
    # N = 4: Direct = max(P - 0.25, 0) = 0, 0.25, 0.05, 0.45, 0.35 -> best 0, .25, .25, .45, .45
    p = np.array([0.2, 0.5, 0.3, 0.7, 0.6])
    seq = reward_from_probs(p, 4, "progress")
    assert np.allclose(seq, [0.0, 0.25, 0.0, 0.2, 0.0])
    assert np.isclose(seq.sum(), direct_reward(p, 4).max() - direct_reward(p[:1], 4)[0])  # lingering earns nothing
    assert torch.allclose(reward_from_probs(torch.tensor(p), 4, "progress"), torch.tensor(seq))
    # one step, measured against the best P so far (what a stream's reference keeps)
    step = reward_from_probs(torch.tensor([0.6, 0.6, 0.1]), 4, "progress", prev_probs=torch.tensor([0.5, 0.7, 0.1]))
    assert torch.allclose(step, torch.tensor([0.1, 0.0, 0.0]))
    assert np.allclose(progress_reward(np.array([0.3]), 0.0, np.array([0.2])), [0.1])
