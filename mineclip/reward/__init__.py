"""MineCLIP as a dense reward: formulas and the streaming cache (`reward`), the reward by conditions
combined by a soft AND (`factored`), the core between a reward and N environments that every wrapper
hands its work to (`episodes`: encoding, windows, episodes, autoreset, the info payload), frames out
of observations (`frames`), and the shells over the core: gymnasium wrappers (`wrappers`) and the
stable-baselines3 one (`sb3`). Nothing here imports the simulator."""

from .reward import (
    FIRST_STEPS,
    MODES,
    RewardFunction,
    RewardModel,
    RewardStream,
    StepRewards,
    TrajectoryRewards,
    direct_reward,
    progress_reward,
    reward_from_probs,
)
from .episodes import RewardTracker, RunningStats, TrackedStep
from .factored import COMBINE, FactoredRewardFunction, soft_and


def __getattr__(name):  # the wrappers import gymnasium, the SB3 one stable-baselines3: load them on first use
    if name in ("MineCLIPReward", "MineCLIPRewardVec"):
        from . import wrappers

        return getattr(wrappers, name)
    if name == "MineCLIPVecEnvReward":
        from . import sb3

        return sb3.MineCLIPVecEnvReward
    raise AttributeError(name)


__all__ = [
    "COMBINE",
    "FactoredRewardFunction",
    "FIRST_STEPS",
    "MODES",
    "MineCLIPReward",
    "MineCLIPRewardVec",
    "MineCLIPVecEnvReward",
    "RewardFunction",
    "RewardModel",
    "RewardStream",
    "RewardTracker",
    "RunningStats",
    "TrackedStep",
    "StepRewards",
    "TrajectoryRewards",
    "direct_reward",
    "progress_reward",
    "reward_from_probs",
    "soft_and",
]
