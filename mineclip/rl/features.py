"""The policy's input: the frozen frame encoder's features of the latest frame(s), for a vector env,
optionally joined by the symbols MineDojo's agent had besides them (mineclip.rl.symbolic).

`FrameFeatures` wraps a stable-baselines3 VecEnv of RGB-frame environments. Each step it encodes
the N newest frames in one forward of the (frozen) MineCLIP frame encoder and returns, per env,
the features of the last `stack` frames as a float32 vector [stack * D], followed (`obs=
"features+symbolic"`) by the env's `info["symbols"]` (local view one-hot, inventory, position,
facing), or only those symbols (`obs="symbolic"`). Given a reward function it also adds the
learned MineCLIP reward: the reward library's `RewardTracker` (mineclip.reward.episodes, with its
info schema) encodes the frames and this wrapper reads the same features, so each frame is encoded
once for both the policy and the reward. Frames are encoded only when the policy or the reward
needs them.
"""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import torch
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper

from mineclip.reward import RewardFunction, RewardModel
from mineclip.reward.episodes import EncodedStep, RewardTracker, StepEncoder
from mineclip.reward.frames import frames_of
from mineclip.reward.sb3 import terminal_frames

# the policy's input: frame features, the symbols, or both (features first)
OBS = ("features", "symbolic", "features+symbolic")


class FrameFeatures(VecEnvWrapper):
    """Observations -> frozen frame-encoder features of the last `stack` frames, float32 [stack * D].

    Features are L2-normalised and scaled by sqrt(D) so that entries are of order 1. With
    `reward=` (a RewardFunction of the same RewardModel, or one with its `encode` and `stream`: the
    proximity reward of `mineclip.perception.proximity`; each frame is encoded once, by `reward.encode`,
    whose first D columns are the embedding) the step reward becomes
    env reward + coef * MineCLIP reward (combine="add", the paper's setup with the sparse success
    bonus) or coef * MineCLIP reward (combine="replace"); every info then holds "mineclip" and, at
    an episode's end, "mineclip_episode".

    `obs` ("features", "symbolic", "features+symbolic"): the symbols come from `info["symbols"]` of
    the wrapped envs (`SymbolicInfo`, `make_vec_env(..., symbols=True)`); at an auto-reset those
    of the next episode's first step from the vector env's `reset_infos`.
    """

    def __init__(self, venv: VecEnv, reward_model: RewardModel, *, stack: int = 1,
                 reward: RewardFunction | None = None, combine: str = "add", coef: float = 1.0,
                 obs: str = "features"):
        if stack < 1:
            raise ValueError(f"expected stack >= 1 frames, got {stack}")
        if obs not in OBS:
            raise ValueError(f"expected obs in {OBS}, got {obs!r}")
        if reward is not None and reward.rm is not reward_model:
            raise ValueError("the reward function must use the same RewardModel as the features (one encoding)")
        from .symbolic import SIZE

        self.rm, self.stack, self.obs_kind = reward_model, stack, obs
        self.use_features, self.use_symbols = obs != "symbolic", obs != "features"
        self.dim = int(reward_model.model.config.embed_dim)
        self.symbol_dim = SIZE if self.use_symbols else 0
        size = (stack * self.dim if self.use_features else 0) + self.symbol_dim
        super().__init__(venv, observation_space=gym.spaces.Box(-np.inf, np.inf, (size,), np.float32))
        self.history = torch.zeros(self.num_envs, stack, self.dim)
        self.symbols = np.zeros((self.num_envs, self.symbol_dim), np.float32)
        self.tracker = (RewardTracker(reward, self.num_envs, combine, coef, autoreset="same-step")
                        if reward is not None else None)
        # what encodes the frames: the tracker's encoder (the reward's features, the embedding first),
        # else the frame encoder alone when the policy reads features, else nothing
        self.encoder = self.tracker.encoder if self.tracker is not None else (
            StepEncoder(reward_model.frame_features, self.num_envs, "same-step") if self.use_features else None)

    @property
    def fn(self) -> RewardFunction | None:
        return self.tracker.fn if self.tracker else None

    @property
    def stats(self):
        return self.tracker.stats if self.tracker else None

    @property
    def frames_encoded(self) -> int:
        return self.encoder.frames_encoded if self.encoder is not None else 0

    # ---------------------------------------------------------------- the policy's observation
    def _obs(self, ids=None) -> np.ndarray:
        ids = np.arange(self.num_envs) if ids is None else np.asarray(ids)
        parts = []
        if self.use_features:
            h = self.history[ids]
            parts.append((torch.nn.functional.normalize(h, dim=-1) * math.sqrt(self.dim))
                         .reshape(len(h), -1).numpy().astype(np.float32))
        if self.use_symbols:
            parts.append(self.symbols[ids])
        return np.concatenate(parts, axis=1) if len(parts) > 1 else parts[0]

    def _read_symbols(self, infos, ids) -> None:
        if not self.use_symbols:
            return
        for i in ids:
            if "symbols" not in infos[i]:
                raise KeyError(f"obs={self.obs_kind!r} needs info['symbols'] from every env: wrap them with "
                               "mineclip.rl.symbolic.SymbolicInfo (make_vec_env(..., symbols=True))")
            self.symbols[i] = infos[i]["symbols"]

    def _start(self, encoded: EncodedStep) -> None:
        """Fill the stacks of the envs whose episodes start with their first frames' features."""
        if len(encoded.started):
            first = encoded.start_features[:, :self.dim].float().cpu()
            self.history[encoded.started] = first[:, None, :].expand(-1, self.stack, -1)

    # ---------------------------------------------------------------- VecEnv API
    def reset(self) -> np.ndarray:
        obs = self.venv.reset()
        ids = np.arange(self.num_envs)
        self._read_symbols(self.venv.reset_infos, ids)
        if self.tracker is not None:
            self._start(self.tracker.reset(frames_of(obs)).encoded)
        elif self.encoder is not None:
            self._start(self.encoder.reset(frames_of(obs), ids))
        return self._obs()

    def step_wait(self):
        obs, env_reward, dones, infos = self.venv.step_wait()
        reward, encoded = np.asarray(env_reward, dtype=np.float64), None
        if self.encoder is not None:
            frames, final = frames_of(obs), terminal_frames(infos, dones)
            if self.tracker is not None:
                step = self.tracker.step(frames, env_reward, dones, final)
                reward, encoded = step.reward, step.encoded
                for i, info in enumerate(infos):
                    info.update(step.payload(i))
            else:
                encoded = self.encoder.step(frames, dones, final)
            own = encoded.features[:, :self.dim].float().cpu()
            self.history = torch.cat([self.history[:, 1:], own[:, None]], dim=1)
        self._read_symbols(infos, range(self.num_envs))  # a finished episode's: its last step
        done_ids = np.flatnonzero(dones)
        for i in done_ids:
            infos[i]["terminal_observation"] = self._obs([i])[0]
        if len(done_ids):
            self._read_symbols(self.venv.reset_infos, done_ids)  # the next episode's first step
            if encoded is not None:
                self._start(encoded)
        return self._obs(), reward.astype(np.float32), dones, infos
