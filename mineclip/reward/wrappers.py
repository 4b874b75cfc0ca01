"""Gymnasium wrappers adding the MineCLIP reward to any environment that gives RGB frames: shells
over `RewardTracker` (mineclip.reward.episodes, which also documents the info schema). They get
frames out of observations (`mineclip.reward.frames`), hand them to the tracker and put its payload
into info."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from .episodes import COMBINES, RewardTracker, RunningStats, make_tracker  # noqa: F401  (re-exported)
from .frames import FRAME_KEYS, extract_frame, frames_of  # noqa: F401  (re-exported)
from .reward import RewardFunction

log = logging.getLogger(__name__)

# gymnasium's autoreset modes -> the tracker's (mineclip.reward.episodes)
AUTORESET = {gym.vector.AutoresetMode.NEXT_STEP: "next-step", gym.vector.AutoresetMode.SAME_STEP: "same-step",
             gym.vector.AutoresetMode.DISABLED: "none"}


class MineCLIPReward(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Adds (or substitutes) the MineCLIP reward of `prompt`.

    combine="add": env reward + coef * MineCLIP reward -- the paper's setup, where the env reward
    is the sparse success bonus (use the task env with dense_reward=False to reproduce it);
    combine="replace": coef * MineCLIP reward only. info["mineclip"] and, at an episode's end,
    info["mineclip_episode"] as documented in mineclip.reward.episodes. `precision` (auto, bf16, fp32)
    applies when `reward_model` is an artifact directory loaded here (mineclip.model.precision).
    """

    def __init__(self, env: gym.Env, reward: RewardFunction | None = None, *, reward_model=None,
                 prompt: str | None = None, negatives: Sequence[str] | None = None, mode: str = "direct",
                 combine: str = "add", coef: float = 1.0, frame_key: str | None = None,
                 frame_fn: Callable[[Any], np.ndarray] | None = None, precision: str | None = None):
        gym.utils.RecordConstructorArgs.__init__(self, reward=reward, reward_model=reward_model, prompt=prompt,
                                                 negatives=negatives, mode=mode, combine=combine, coef=coef,
                                                 frame_key=frame_key, frame_fn=frame_fn, precision=precision)
        gym.Wrapper.__init__(self, env)
        self.tracker = make_tracker(reward, reward_model, prompt, negatives, mode, combine, coef, 1, precision)
        self.frame_key, self.frame_fn = frame_key, frame_fn
        log.info("MineCLIPReward: %s, combine=%s, coef=%g", self.fn.describe(), combine, coef)

    @property
    def fn(self) -> RewardFunction:
        return self.tracker.fn

    def _frames(self, obs) -> np.ndarray:
        return frames_of(obs, self.frame_key, self.frame_fn, render=self.env.render)[None]

    def reset(self, *, seed=None, options=None):
        obs, info = self.env.reset(seed=seed, options=options)
        return obs, {**info, **self.tracker.reset(self._frames(obs)).payload(0)}

    def step(self, action):
        obs, env_reward, terminated, truncated, info = self.env.step(action)
        step = self.tracker.step(self._frames(obs), [env_reward], [terminated or truncated])
        return obs, float(step.reward[0]), terminated, truncated, {**info, **step.payload(0)}


class MineCLIPRewardVec(gym.vector.VectorWrapper):
    """The vector-env version: one forward over the N newest frames per step.

    Handles gymnasium's autoreset modes: NEXT_STEP (default; the step after an episode ends
    carries the reset frame and reward 0), SAME_STEP (the terminal frame is info["final_obs"]),
    and DISABLED (reset(options={"reset_mask": ...}) restarts the masked envs). info["mineclip"]
    and info["mineclip_episode"] hold arrays over envs (mineclip.reward.episodes).
    """

    def __init__(self, env: gym.vector.VectorEnv, reward: RewardFunction | None = None, *, reward_model=None,
                 prompt: str | None = None, negatives: Sequence[str] | None = None, mode: str = "direct",
                 combine: str = "add", coef: float = 1.0, frame_key: str | None = None,
                 frame_fn: Callable[[Any], np.ndarray] | None = None, precision: str | None = None):
        super().__init__(env)
        autoreset = gym.vector.AutoresetMode(env.metadata.get("autoreset_mode", gym.vector.AutoresetMode.NEXT_STEP))
        self.autoreset_mode = autoreset
        self.tracker = make_tracker(reward, reward_model, prompt, negatives, mode, combine, coef, self.num_envs,
                                    precision, autoreset=AUTORESET[autoreset])
        self.frame_key, self.frame_fn = frame_key, frame_fn
        log.info("MineCLIPRewardVec (%d envs, autoreset %s): %s, combine=%s, coef=%g", self.num_envs,
                 autoreset.value, self.fn.describe(), combine, coef)

    @property
    def fn(self) -> RewardFunction:
        return self.tracker.fn

    def _frames(self, obs) -> np.ndarray:
        return frames_of(obs, self.frame_key, self.frame_fn)

    def reset(self, *, seed=None, options=None):
        obs, info = self.env.reset(seed=seed, options=options)
        mask = (options or {}).get("reset_mask")
        ids = np.arange(self.num_envs) if mask is None else np.flatnonzero(mask)
        return obs, {**info, **self.tracker.reset(self._frames(obs)[ids], ids).vector_payload()}

    def step(self, actions):
        obs, env_reward, terminated, truncated, info = self.env.step(actions)
        done = np.logical_or(terminated, truncated)
        final = None  # SAME_STEP: the ended episodes' last frames, beside the next ones' first
        if self.autoreset_mode == gym.vector.AutoresetMode.SAME_STEP:
            final = [frames_of(info["final_obs"][i], self.frame_key, self.frame_fn) for i in np.flatnonzero(done)]
        step = self.tracker.step(self._frames(obs), env_reward, done, final)
        return obs, step.reward, terminated, truncated, {**info, **step.vector_payload()}
