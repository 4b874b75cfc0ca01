"""RL fixtures: a RewardModel over the shared tiny untrained model and short task episodes."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def tiny_reward_model(tiny_model):
    from mineclip.reward import RewardModel

    return RewardModel(tiny_model, window=4, batch_size=16)


@pytest.fixture
def short_vec_env():
    """Two harvest_wood envs, 6-step episodes, one world (world generation is the slow part)."""
    from mineclip.rl.envs import make_vec_env

    def make(variant: str = "sparse", num_envs: int = 2, max_steps: int = 6):
        return make_vec_env("harvest_wood", variant, num_envs, worlds=[0], seed=0, max_steps=max_steps)

    return make
