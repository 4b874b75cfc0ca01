"""The policy's input: the frozen frame encoder's features of the latest frame(s), for a vector env.

`FrameFeatures` wraps a stable-baselines3 VecEnv of RGB-frame environments. Each step it encodes
the N newest frames in one forward of the (frozen) MineCLIP frame encoder and returns, per env,
the features of the last `stack` frames as a float32 vector [stack * D]. Given a reward function
it also adds the learned MineCLIP reward, computed from the same features (each frame is encoded
once for both the policy and the reward) by a `RewardTracker`, with its info schema
(mineclip.reward.episodes).
"""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import torch
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper

from mineclip.reward import RewardFunction, RewardModel
from mineclip.reward.episodes import RewardTracker
from mineclip.reward.sb3 import frames_of, step_frames


class FrameFeatures(VecEnvWrapper):
    """Observations -> frozen frame-encoder features of the last `stack` frames, float32 [stack * D].

    Features are L2-normalised and scaled by sqrt(D) so that entries are of order 1. With
    `reward=` (a RewardFunction of the same RewardModel) the step reward becomes
    env reward + coef * MineCLIP reward (combine="add", the paper's setup with the sparse success
    bonus) or coef * MineCLIP reward (combine="replace"); every info then holds "mineclip" and, at
    an episode's end, "mineclip_episode".
    """

    def __init__(self, venv: VecEnv, reward_model: RewardModel, *, stack: int = 1,
                 reward: RewardFunction | None = None, combine: str = "add", coef: float = 1.0):
        if stack < 1:
            raise ValueError(f"expected stack >= 1 frames, got {stack}")
        if reward is not None and reward.rm is not reward_model:
            raise ValueError("the reward function must use the same RewardModel as the features (one encoding)")
        self.rm, self.stack = reward_model, stack
        self.dim = int(reward_model.model.config.embed_dim)
        space = gym.spaces.Box(-np.inf, np.inf, (stack * self.dim,), np.float32)
        super().__init__(venv, observation_space=space)
        self.history = torch.zeros(self.num_envs, stack, self.dim)
        # fed with the features computed for the policy
        self.tracker = RewardTracker(reward, self.num_envs, combine, coef) if reward is not None else None
        self.frames_encoded = 0

    @property
    def fn(self) -> RewardFunction | None:
        return self.tracker.fn if self.tracker else None

    @property
    def stats(self):
        return self.tracker.stats if self.tracker else None

    # ---------------------------------------------------------------- encoding
    def encode(self, frames: np.ndarray) -> torch.Tensor:
        """uint8 frames [n, H, W, 3] -> normalised features [n, D] (one forward)."""
        feats = self.rm.frame_features(frames).float().cpu()
        self.frames_encoded += len(frames)
        return feats

    def _normalise(self, feats: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.normalize(feats, dim=-1) * math.sqrt(self.dim)

    def _obs(self, ids=None) -> np.ndarray:
        h = self.history if ids is None else self.history[ids]
        return self._normalise(h).reshape(len(h), -1).numpy().astype(np.float32)

    def _start(self, ids: np.ndarray, feats: torch.Tensor) -> None:
        self.history[ids] = feats[:, None, :].expand(-1, self.stack, -1)
        if self.tracker is not None:
            self.tracker.reset(feats.to(self.rm.device), ids)

    # ---------------------------------------------------------------- VecEnv API
    def reset(self) -> np.ndarray:
        frames = frames_of(self.venv.reset())
        self._start(np.arange(self.num_envs), self.encode(frames))
        return self._obs()

    def step_wait(self):
        obs, env_reward, dones, infos = self.venv.step_wait()
        own, first, done_ids = step_frames(obs, dones, infos)
        feats = self.encode(np.concatenate([own, first]) if len(done_ids) else own)
        step_feats, reset_feats = feats[: self.num_envs], feats[self.num_envs:]
        self.history = torch.cat([self.history[:, 1:], step_feats[:, None, :]], dim=1)
        reward = np.asarray(env_reward, dtype=np.float64)
        if self.tracker is not None:
            step = self.tracker.step(step_feats.to(self.rm.device), env_reward, dones)
            reward = step.reward
            for i in range(self.num_envs):
                infos[i]["mineclip"] = step.info(i)
            for i, episode in step.episodes.items():
                infos[i]["mineclip_episode"] = episode
        for i in done_ids:
            infos[i]["terminal_observation"] = self._obs([i])[0]
        if len(done_ids):
            self._start(done_ids, reset_feats)
        return self._obs(), reward.astype(np.float32), dones, infos
