"""MineCLIP as a dense reward: formulas and the streaming cache (`reward`), the episode bookkeeping
between a stream and environments (`episodes`), gymnasium wrappers over it (`wrappers`)."""

from .reward import (
    FIRST_STEPS,
    MODES,
    RewardFunction,
    RewardModel,
    RewardStream,
    StepRewards,
    TrajectoryRewards,
    direct_reward,
    reward_from_probs,
)
from .episodes import RewardTracker, RunningStats, TrackedStep


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
    "RewardTracker",
    "RunningStats",
    "TrackedStep",
    "StepRewards",
    "TrajectoryRewards",
    "direct_reward",
    "reward_from_probs",
]
