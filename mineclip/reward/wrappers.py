"""Gymnasium wrappers adding the MineCLIP reward to any environment that gives RGB frames: thin
shells over `RewardTracker` (mineclip.reward.episodes, which also documents the info schema)."""

from __future__ import annotations

import logging
from typing import Any, Callable, Sequence

import gymnasium as gym
import numpy as np

from .episodes import COMBINES, RewardTracker, RunningStats  # noqa: F401  (re-exported)
from .reward import RewardFunction, RewardModel

log = logging.getLogger(__name__)

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


def make_tracker(reward: RewardFunction | None, reward_model, prompt, negatives, mode, combine: str, coef: float,
                 num_envs: int, precision: str | None = None) -> RewardTracker:
    """The tracker of a wrapper: from a RewardFunction, or from a RewardModel (or an artifact
    directory, loaded at `precision`: auto / bf16 / fp32, None = $MINECLIP_PRECISION or auto), a prompt
    and its negatives."""
    if reward is None:
        if reward_model is None or prompt is None or negatives is None:
            raise ValueError("pass reward=RewardFunction, or reward_model= (RewardModel or artifact dir), prompt= "
                             "and negatives=")
        if not isinstance(reward_model, RewardModel):
            reward_model = RewardModel.load(reward_model, precision=precision)
        reward = reward_model.reward_fn(prompt, negatives, mode)
    return RewardTracker(reward, num_envs, combine, coef)


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
        self.tracker = make_tracker(reward, reward_model, prompt, negatives, mode, combine, coef, num_envs=1,
                                    precision=precision)
        self.fn = self.tracker.fn
        self.frame_key, self.frame_fn = frame_key, frame_fn
        log.info("MineCLIPReward: %s, combine=%s, coef=%g", self.fn.describe(), combine, coef)

    def _features(self, obs):
        frame = self.frame_fn(obs) if self.frame_fn else extract_frame(obs, self.frame_key)
        if frame is None:
            frame = self.env.render()
        if frame is None:
            raise ValueError("no RGB frame in the observation and env.render() returned None; "
                             "pass frame_key= or frame_fn=, or make the env with render_mode='rgb_array'")
        return self.fn.encode(np.asarray(frame)[None])

    def reset(self, *, seed=None, options=None):
        obs, info = self.env.reset(seed=seed, options=options)
        out = self.tracker.reset(self._features(obs))
        info = dict(info)
        info["mineclip"] = {"reward": 0.0, "prob": float(out.prob[0]), "logits": out.logits[0].cpu().numpy(),
                            "env_reward": 0.0}
        return obs, info

    def step(self, action):
        obs, env_reward, terminated, truncated, info = self.env.step(action)
        step = self.tracker.step(self._features(obs), [env_reward], [terminated or truncated])
        info = dict(info)
        info["mineclip"] = step.info(0)
        if 0 in step.episodes:
            info["mineclip_episode"] = step.episodes[0]
            log.debug("MineCLIP episode %s", step.episodes[0])
        return obs, float(step.reward[0]), terminated, truncated, info


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
        self.tracker = make_tracker(reward, reward_model, prompt, negatives, mode, combine, coef, self.num_envs,
                                    precision)
        self.fn = self.tracker.fn
        self.frame_key, self.frame_fn = frame_key, frame_fn
        mode_ = env.metadata.get("autoreset_mode", gym.vector.AutoresetMode.NEXT_STEP)
        self.autoreset_mode = gym.vector.AutoresetMode(mode_) if isinstance(mode_, str) else mode_
        self._needs_reset = np.zeros(self.num_envs, dtype=bool)
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
        out = self.tracker.reset(self.fn.encode(frames[ids]), ids)
        self._needs_reset[ids] = False
        prob = np.zeros(self.num_envs, dtype=np.float32)
        prob[ids] = out.prob.cpu().numpy()
        info = dict(info)
        info["mineclip"] = {"reward": np.zeros(self.num_envs), "prob": prob,
                            "env_reward": np.zeros(self.num_envs)}
        info["_mineclip"] = np.isin(np.arange(self.num_envs), ids)
        return obs, info

    def step(self, actions):
        obs, env_reward, terminated, truncated, info = self.env.step(actions)
        frames = self._frames(obs)
        done = np.logical_or(terminated, truncated)
        same_step = self.autoreset_mode == gym.vector.AutoresetMode.SAME_STEP
        step_frames = frames.copy()
        if same_step and done.any():
            final = info.get("final_obs")
            for i in np.flatnonzero(done):  # the terminal frame, not the next episode's first
                step_frames[i] = self.frame_fn(final[i]) if self.frame_fn else extract_frame(final[i], self.frame_key)
        restarted = self._needs_reset if self.autoreset_mode == gym.vector.AutoresetMode.NEXT_STEP else None
        step = self.tracker.step(self.fn.encode(step_frames), env_reward, done, restarted)
        if same_step and done.any():
            ids = np.flatnonzero(done)
            self.tracker.reset(self.fn.encode(frames[ids]), ids)
        self._needs_reset = done.copy()
        info = dict(info)
        info["mineclip"] = {"reward": step.learned, "prob": step.prob, "logits": step.logits,
                            "env_reward": step.env_reward}
        info["_mineclip"] = np.ones(self.num_envs, dtype=bool)
        if step.episodes:
            ended = np.zeros(self.num_envs, dtype=bool)
            ended[list(step.episodes)] = True
            returns, lengths = np.zeros(self.num_envs), np.zeros(self.num_envs, dtype=np.int64)
            for i, ep in step.episodes.items():
                returns[i], lengths[i] = ep["return"], ep["length"]
            info["mineclip_episode"] = {"return": returns, "length": lengths, "scale": self.tracker.stats.summary(),
                                        "num_prompts": self.fn.num_prompts}
            info["_mineclip_episode"] = ended
        return obs, step.reward, terminated, truncated, info
