"""RL on the task suite with the learned reward: frame-feature policy input, PPO runs, table 1."""

from mineclip.extras import require

require("stable_baselines3", "gymnasium", feature="RL with the learned reward (mineclip.rl)")

__all__ = ["FrameFeatures", "RunConfig", "PPOSettings", "run", "write_report"]


def __getattr__(name):  # stable-baselines3 and torch load on first use
    if name == "FrameFeatures":
        from . import features

        return getattr(features, name)
    if name in ("RunConfig", "PPOSettings", "run"):
        from . import train

        return getattr(train, name)
    if name == "write_report":
        from .table import write_report

        return write_report
    raise AttributeError(name)
