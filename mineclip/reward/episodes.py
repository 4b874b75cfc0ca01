"""The bookkeeping between a reward stream and N environments, written once.

`RewardTracker` owns what every wrapper needs besides the stream itself: starting envs' windows,
an autoreset step that only restarts an env (gymnasium's NEXT_STEP mode), the combine rule, the
episode returns and lengths, the running statistics of the learned reward, and the info payload.
The gymnasium wrappers (`mineclip.reward.wrappers`) and stable-baselines3's `FrameFeatures`
(`mineclip.rl.features`) are thin shells over it: they get frames out of observations, encode
them and format the payload for their API.

Info schema (one for every shell):
    info["mineclip"]          {"reward": learned reward, "prob": P of the prompt,
                               "logits": [K] (prompt first, then the negatives), "env_reward": the env's own}
    info["mineclip_episode"]  at an episode's last step: {"return": sum of learned rewards,
                               "length": steps, "scale": running {"steps", "mean", "std", "min", "max"}
                               over all steps so far, "num_prompts": K}
A single env's info holds these dicts; stable-baselines3's infos hold one per env; a gymnasium
vector env's info holds them with arrays over envs as values (its convention), beside boolean
masks `_mineclip` and `_mineclip_episode` that say which envs hold an entry.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import torch

from .reward import RewardFunction, StepRewards

COMBINES = ("add", "replace")


class RunningStats:
    """Mean, std, min and max of the learned reward over every step seen (to log its scale); the
    moments are gymnasium's `RunningMeanStd` (the one stable-baselines3 and NormalizeReward use)."""

    def __init__(self):
        from gymnasium.wrappers.utils import RunningMeanStd

        self.moments = RunningMeanStd(shape=())
        self.n, self.min, self.max = 0, math.inf, -math.inf

    def update(self, values) -> None:
        x = np.atleast_1d(np.asarray(values, dtype=np.float64))
        if x.size:
            self.moments.update(x)
            self.n += int(x.size)
            self.min, self.max = min(self.min, float(x.min())), max(self.max, float(x.max()))

    def summary(self) -> dict:
        if not self.n:
            return {"steps": 0, "mean": 0.0, "std": 0.0, "min": 0.0, "max": 0.0}
        return {"steps": self.n, "mean": float(self.moments.mean), "std": float(np.sqrt(self.moments.var)),
                "min": self.min, "max": self.max}


@dataclass
class TrackedStep:
    """One step of N envs: the reward to return, the learned reward and its parts, and the summaries
    of the episodes that ended at this step (env index -> mineclip_episode payload)."""

    reward: np.ndarray  # [N] float64, env reward combined with the learned one
    learned: np.ndarray  # [N] float64 (0 for envs this step only restarted)
    prob: np.ndarray  # [N]
    logits: np.ndarray  # [N, K]
    env_reward: np.ndarray  # [N] float64
    episodes: dict[int, dict] = field(default_factory=dict)

    def info(self, i: int) -> dict:
        """The `mineclip` payload of env i."""
        return {"reward": float(self.learned[i]), "prob": float(self.prob[i]), "logits": self.logits[i],
                "env_reward": float(self.env_reward[i])}


class RewardTracker:
    """A reward stream over N envs plus the episode bookkeeping around it (see the module docstring).

    combine="add": env reward + coef * learned reward (the paper's setup when the env reward is the
    sparse success bonus); "replace": coef * learned reward only.
    """

    def __init__(self, fn: RewardFunction, num_envs: int, combine: str = "add", coef: float = 1.0):
        if combine not in COMBINES:
            raise ValueError(f"combine must be one of {COMBINES}, got {combine!r}")
        self.fn, self.num_envs, self.combine, self.coef = fn, num_envs, combine, coef
        self.stream = fn.stream(num_envs)
        self.stats = RunningStats()
        self.returns = np.zeros(num_envs)
        self.lengths = np.zeros(num_envs, dtype=np.int64)

    def reset(self, feats: torch.Tensor, ids: Sequence[int] | None = None) -> StepRewards:
        """Start the episodes of envs `ids` (default all) from their first frames' features [n, D]."""
        ids = np.arange(self.num_envs) if ids is None else np.asarray(ids, dtype=np.int64)
        self.returns[ids] = 0.0
        self.lengths[ids] = 0
        return self.stream.reset_features(feats, ids)

    def step(self, feats: torch.Tensor, env_reward, done, restarted=None) -> TrackedStep:
        """One step from the features [N, D] of each env's frame of this step (an ended episode's
        last frame, not the next episode's first). `restarted`: envs whose step only restarted them
        (their frame is the new episode's first; learned reward 0). Envs that ended here are
        restarted by the caller with `reset` once it has their next first frame."""
        out = self.stream.step_features(feats)
        learned = out.reward.float().cpu().numpy().astype(np.float64)
        restarted = np.zeros(self.num_envs, bool) if restarted is None else np.asarray(restarted, bool)
        if restarted.any():
            ids = np.flatnonzero(restarted)
            self.stream.reset_features(feats[torch.as_tensor(ids)], ids)
            learned[ids] = 0.0
        counted = ~restarted
        self.stats.update(learned[counted])
        self.returns[counted] += learned[counted]
        self.lengths[counted] += 1
        env_reward = np.asarray(env_reward, dtype=np.float64)
        done = np.asarray(done, bool) & counted
        episodes = {int(i): {"return": float(self.returns[i]), "length": int(self.lengths[i]),
                             "scale": self.stats.summary(), "num_prompts": self.fn.num_prompts}
                    for i in np.flatnonzero(done)}
        self.returns[restarted], self.lengths[restarted] = 0.0, 0
        reward = env_reward + self.coef * learned if self.combine == "add" else self.coef * learned
        return TrackedStep(reward, learned, out.prob.float().cpu().numpy(), out.logits.float().cpu().numpy(),
                           env_reward, episodes)
