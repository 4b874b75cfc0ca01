"""Gymnasium wrappers adding the MineCLIP reward to any environment that gives RGB frames."""

from __future__ import annotations

import logging
import math
from typing import Any, Callable, Sequence

import gymnasium as gym
import numpy as np

from .reward import RewardFunction, RewardModel

log = logging.getLogger(__name__)

COMBINES = ("add", "replace")
FRAME_KEYS = ("rgb", "pov", "image", "pixels", "frame")


def extract_frame(obs: Any, frame_key: str | None = None) -> np.ndarray | None:
    """The RGB frame of an observation: the array itself, or obs[frame_key] / a usual key of a dict
    observation (MineDojo's "rgb" is [3, H, W]; both layouts are accepted downstream)."""
    if frame_key is not None:
        return np.asarray(obs[frame_key])
    if isinstance(obs, dict):
        for k in FRAME_KEYS:
            if k in obs:
                return np.asarray(obs[k])
        return None
    obs = np.asarray(obs)
    if obs.dtype == np.uint8 and obs.ndim >= 3 and 3 in (obs.shape[-1], obs.shape[-3]):
        return obs
    return None


class RunningStats:
    """Mean, std, min and max of the learned reward over every step seen (to log its scale)."""

    def __init__(self):
        self.n, self.mean, self.m2, self.min, self.max = 0, 0.0, 0.0, math.inf, -math.inf

    def update(self, values) -> None:
        for x in np.atleast_1d(np.asarray(values, dtype=np.float64)):
            self.n += 1
            d = x - self.mean
            self.mean += d / self.n
            self.m2 += d * (x - self.mean)
            self.min, self.max = min(self.min, x), max(self.max, x)

    def summary(self) -> dict:
        std = math.sqrt(self.m2 / self.n) if self.n else 0.0
        return {"steps": self.n, "mean": self.mean, "std": std, "min": self.min if self.n else 0.0,
                "max": self.max if self.n else 0.0}


def _make_fn(reward: RewardFunction | None, reward_model, prompt, negatives, mode) -> RewardFunction:
    if reward is not None:
        return reward
    if reward_model is None or prompt is None:
        raise ValueError("pass reward=RewardFunction, or reward_model= (RewardModel or artifact dir) and prompt=")
    if not isinstance(reward_model, RewardModel):
        reward_model = RewardModel.load(reward_model)
    return reward_model.reward_fn(prompt, negatives, mode)


def _setup(wrapper, reward, reward_model, prompt, negatives, mode, combine, coef, frame_key, frame_fn,
           num_envs: int) -> None:
    """What both wrappers hold: the reward function, its stream over `num_envs`, the combine rule,
    where frames come from and the running reward statistics."""
    if combine not in COMBINES:
        raise ValueError(f"combine must be one of {COMBINES}, got {combine!r}")
    wrapper.fn = _make_fn(reward, reward_model, prompt, negatives, mode)
    wrapper.combine, wrapper.coef = combine, coef
    wrapper.frame_key, wrapper.frame_fn = frame_key, frame_fn
    wrapper.stream = wrapper.fn.stream(num_envs)
    wrapper.stats = RunningStats()


def _combine(env_reward, learned, combine: str, coef: float):
    return env_reward + coef * learned if combine == "add" else coef * learned


class MineCLIPReward(gym.Wrapper):
    """Adds (or substitutes) the MineCLIP reward of `prompt`.

    combine="add": env reward + coef * MineCLIP reward -- the paper's setup, where the env reward
    is the sparse success bonus (use the task env with dense_reward=False to reproduce it);
    combine="replace": coef * MineCLIP reward only. info["mineclip"] holds the learned reward,
    P of the prompt, the raw logits (prompt first, then the negatives) and the env's own reward;
    at the end of an episode info["mineclip_episode"] holds its return and the running reward scale.
    """

    def __init__(self, env: gym.Env, reward: RewardFunction | None = None, *, reward_model=None,
                 prompt: str | None = None, negatives: Sequence[str] | None = None, mode: str = "direct",
                 combine: str = "add", coef: float = 1.0, frame_key: str | None = None,
                 frame_fn: Callable[[Any], np.ndarray] | None = None):
        super().__init__(env)
        _setup(self, reward, reward_model, prompt, negatives, mode, combine, coef, frame_key, frame_fn, num_envs=1)
        self._episode: list[float] = []
        log.info("MineCLIPReward: %s, combine=%s, coef=%g", self.fn.describe(), combine, coef)

    def _frame(self, obs) -> np.ndarray:
        frame = self.frame_fn(obs) if self.frame_fn else extract_frame(obs, self.frame_key)
        if frame is None:
            frame = self.env.render()
        if frame is None:
            raise ValueError("no RGB frame in the observation and env.render() returned None; "
                             "pass frame_key= or frame_fn=, or make the env with render_mode='rgb_array'")
        return np.asarray(frame)[None]

    def reset(self, *, seed=None, options=None):
        obs, info = self.env.reset(seed=seed, options=options)
        out = self.stream.reset(self._frame(obs))
        self._episode = []
        info = dict(info)
        info["mineclip"] = {"reward": 0.0, "prob": float(out.prob[0]), "logits": out.logits[0].cpu().numpy(),
                            "env_reward": 0.0}
        return obs, info

    def step(self, action):
        obs, env_reward, terminated, truncated, info = self.env.step(action)
        out = self.stream.step(self._frame(obs))
        learned = float(out.reward[0])
        self.stats.update(learned)
        self._episode.append(learned)
        info = dict(info)
        info["mineclip"] = {"reward": learned, "prob": float(out.prob[0]), "logits": out.logits[0].cpu().numpy(),
                            "env_reward": float(env_reward)}
        if terminated or truncated:
            info["mineclip_episode"] = {"return": float(np.sum(self._episode)), "length": len(self._episode),
                                        "scale": self.stats.summary(), "num_prompts": self.fn.num_prompts}
            log.debug("MineCLIP episode %s", info["mineclip_episode"])
        return obs, _combine(float(env_reward), learned, self.combine, self.coef), terminated, truncated, info


class MineCLIPRewardVec(gym.vector.VectorWrapper):
    """The vector-env version: one forward over the N newest frames per step.

    Handles gymnasium's autoreset modes: NEXT_STEP (default; the step after an episode ends
    carries the reset frame and reward 0), SAME_STEP (the terminal frame is info["final_obs"]),
    and DISABLED (reset(options={"reset_mask": ...}) restarts the masked envs).
    info["mineclip_reward"], ["mineclip_prob"], ["mineclip_logits"] and ["mineclip_env_reward"]
    are arrays over envs.
    """

    def __init__(self, env: gym.vector.VectorEnv, reward: RewardFunction | None = None, *, reward_model=None,
                 prompt: str | None = None, negatives: Sequence[str] | None = None, mode: str = "direct",
                 combine: str = "add", coef: float = 1.0, frame_key: str | None = None,
                 frame_fn: Callable[[Any], np.ndarray] | None = None):
        super().__init__(env)
        _setup(self, reward, reward_model, prompt, negatives, mode, combine, coef, frame_key, frame_fn,
               num_envs=self.num_envs)
        mode_ = env.metadata.get("autoreset_mode", gym.vector.AutoresetMode.NEXT_STEP)
        self.autoreset_mode = gym.vector.AutoresetMode(mode_) if isinstance(mode_, str) else mode_
        self._needs_reset = np.zeros(self.num_envs, dtype=bool)
        self._returns = np.zeros(self.num_envs)
        log.info("MineCLIPRewardVec (%d envs, autoreset %s): %s, combine=%s, coef=%g", self.num_envs,
                 getattr(self.autoreset_mode, "value", self.autoreset_mode), self.fn.describe(), combine, coef)

    def _frames(self, obs) -> np.ndarray:
        frames = self.frame_fn(obs) if self.frame_fn else extract_frame(obs, self.frame_key)
        if frames is None:
            raise ValueError("no RGB frames in the vector observation; pass frame_key= or frame_fn=")
        return np.asarray(frames)

    def reset(self, *, seed=None, options=None):
        obs, info = self.env.reset(seed=seed, options=options)
        frames = self._frames(obs)
        mask = (options or {}).get("reset_mask")
        ids = np.arange(self.num_envs) if mask is None else np.flatnonzero(mask)
        out = self.stream.reset(frames[ids], env_ids=ids)
        self._needs_reset[ids] = False
        self._returns[ids] = 0.0
        info = dict(info)
        prob = np.zeros(self.num_envs, dtype=np.float32)
        prob[ids] = out.prob.cpu().numpy()
        info["mineclip_prob"] = prob
        return obs, info

    def step(self, actions):
        obs, env_reward, terminated, truncated, info = self.env.step(actions)
        frames = self._frames(obs)
        done = np.logical_or(terminated, truncated)
        step_frames = frames.copy()
        if self.autoreset_mode == gym.vector.AutoresetMode.SAME_STEP and done.any():
            final = info.get("final_obs")
            for i in np.flatnonzero(done):  # the terminal frame, not the next episode's first
                step_frames[i] = extract_frame(final[i], self.frame_key) if self.frame_fn is None else \
                    self.frame_fn(final[i])
        out = self.stream.step(step_frames)
        learned = out.reward.cpu().numpy().astype(np.float64)
        restarted = self._needs_reset.copy() if self.autoreset_mode == gym.vector.AutoresetMode.NEXT_STEP else \
            np.zeros(self.num_envs, dtype=bool)
        if restarted.any():  # this step only reset those envs: their frame starts a new window
            ids = np.flatnonzero(restarted)
            self.stream.reset(frames[ids], env_ids=ids)
            learned[ids] = 0.0
        if self.autoreset_mode == gym.vector.AutoresetMode.SAME_STEP and done.any():
            ids = np.flatnonzero(done)
            self.stream.reset(frames[ids], env_ids=ids)
        self.stats.update(learned[~restarted])
        self._returns[~restarted] += learned[~restarted]
        self._returns[restarted] = 0.0
        self._needs_reset = done.copy()
        info = dict(info)
        info["mineclip_reward"] = learned
        info["mineclip_prob"] = out.prob.cpu().numpy()
        info["mineclip_logits"] = out.logits.cpu().numpy()
        info["mineclip_env_reward"] = np.asarray(env_reward, dtype=np.float64)
        if done.any():
            info["mineclip_episode_return"] = np.where(done, self._returns, 0.0)
            info["mineclip_scale"] = self.stats.summary()
        reward = _combine(np.asarray(env_reward, dtype=np.float64), learned, self.combine, self.coef)
        return obs, reward, terminated, truncated, info
