"""MineCLIP as a dense reward: formulas, streaming cache over parallel envs, gymnasium wrappers."""

from .reward import (
    FIRST_STEPS,
    MODES,
    RewardFunction,
    RewardModel,
    RewardStream,
    StepRewards,
    TrajectoryRewards,
    default_negatives,
    direct_reward,
    reward_from_probs,
)


def __getattr__(name):  # the wrappers import gymnasium; load them on first use
    if name in ("MineCLIPReward", "MineCLIPRewardVec"):
        from . import wrappers

        return getattr(wrappers, name)
    raise AttributeError(name)


__all__ = [
    "FIRST_STEPS",
    "MODES",
    "MineCLIPReward",
    "MineCLIPRewardVec",
    "RewardFunction",
    "RewardModel",
    "RewardStream",
    "StepRewards",
    "TrajectoryRewards",
    "default_negatives",
    "direct_reward",
    "reward_from_probs",
]
