"""The MineCLIP reward for stable-baselines3 vector environments: a `VecEnvWrapper` that scores the
frames of all N envs in one batched forward in the main process, so that envs stepped in
subprocesses (`SubprocVecEnv`) never load a model. A thin shell over `RewardTracker`
(mineclip.reward.episodes, which documents the info schema); needs stable-baselines3 (the `rl` extra).

    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv
    venv = make_vec_env("mineclip/harvest_wood-v0", n_envs=8, vec_env_cls=SubprocVecEnv)
    venv = MineCLIPVecEnvReward(venv, rm.reward_fn("chop a tree", negatives), coef=0.1)
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import torch

from mineclip.extras import require

require("stable_baselines3", feature="the stable-baselines3 reward wrapper (mineclip.reward.sb3)")

from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper  # noqa: E402

from .episodes import RewardTracker  # noqa: E402
from .reward import RewardFunction, RewardModel  # noqa: E402
from .wrappers import extract_frame, make_tracker  # noqa: E402


def frames_of(obs, frame_key: str | None = None) -> np.ndarray:
    """The uint8 RGB frames [N, H, W, 3] (or [N, 3, H, W]) of a vector observation."""
    frames = extract_frame(obs, frame_key)
    if frames is None:
        raise ValueError(f"expected uint8 RGB frames [N, H, W, 3] from the env, got "
                         f"{getattr(obs, 'dtype', type(obs).__name__)} {list(np.shape(obs))}; pass frame_key=")
    return np.asarray(frames)


def step_frames(obs, dones, infos, frame_key: str | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(each env's frame of this step, the first frames of the episodes that start, their env ids).

    stable-baselines3 resets an env whose episode ended within the same step: its observation is
    the next episode's first frame and the step's own last frame is `infos[i]["terminal_observation"]`."""
    frames = frames_of(obs, frame_key)
    done_ids = np.flatnonzero(dones)
    own = frames.copy()
    for i in done_ids:
        terminal = infos[i]["terminal_observation"]
        one = {k: np.asarray(v)[None] for k, v in terminal.items()} if isinstance(terminal, dict) else \
            np.asarray(terminal)[None]
        own[i] = frames_of(one, frame_key)[0]
    return own, frames[done_ids], done_ids


class MineCLIPVecEnvReward(VecEnvWrapper):
    """Adds (combine="add") or substitutes (combine="replace") the MineCLIP reward of a prompt;
    observations pass through unchanged. infos hold "mineclip" and, at episode ends,
    "mineclip_episode"."""

    def __init__(self, venv: VecEnv, reward: RewardFunction | None = None, *, reward_model=None,
                 prompt: str | None = None, negatives: Sequence[str] | None = None, mode: str = "direct",
                 combine: str = "add", coef: float = 1.0, frame_key: str | None = None,
                 precision: str | None = None):
        super().__init__(venv)
        self.tracker: RewardTracker = make_tracker(reward, reward_model, prompt, negatives, mode, combine, coef,
                                                   self.num_envs, precision)
        self.frame_key = frame_key

    @property
    def rm(self) -> RewardModel:
        return self.tracker.fn.rm

    def _features(self, frames: np.ndarray) -> torch.Tensor:
        return self.tracker.fn.encode(frames)

    def reset(self):
        obs = self.venv.reset()
        self.tracker.reset(self._features(frames_of(obs, self.frame_key)))
        return obs

    def step_wait(self):
        obs, env_reward, dones, infos = self.venv.step_wait()
        own, first, done_ids = step_frames(obs, dones, infos, self.frame_key)
        feats = self._features(np.concatenate([own, first]) if len(done_ids) else own)  # one forward for all
        step = self.tracker.step(feats[: self.num_envs], env_reward, dones)
        for i in range(self.num_envs):
            infos[i]["mineclip"] = step.info(i)
        for i, episode in step.episodes.items():
            infos[i]["mineclip_episode"] = episode
        if len(done_ids):
            self.tracker.reset(feats[self.num_envs:], done_ids)
        return obs, step.reward.astype(np.float32), dones, infos
