"""The policy's input: the frozen frame encoder's features of the latest frame(s), for a vector env,
optionally joined by the symbols MineDojo's agent had besides them (mineclip.rl.symbolic).

`FrameFeatures` wraps a stable-baselines3 VecEnv of RGB-frame environments. Each step it encodes
the N newest frames in one forward of the (frozen) MineCLIP frame encoder and returns, per env,
the features of the last `stack` frames as a float32 vector [stack * D], followed (`obs=
"features+symbolic"`) by the env's `info["symbols"]` (local window one-hot, inventory, position,
facing: from the map in both views, mineclip.rl.symbolic), or only those symbols (`obs="symbolic"`): the `PolicyObservation` it keeps. Given a
reward function it also adds the learned MineCLIP reward: the reward library's `RewardTracker`
(mineclip.reward.episodes, with its info schema) encodes the frames and this wrapper reads the
same features, so each frame is encoded once for both the policy and the reward. Frames are
encoded only when the policy or the reward needs them.
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


class PolicyObservation:
    """The policy's observation of N envs, kept between steps (as stable-baselines3's
    `StackedObservations` is for `VecFrameStack`): the features of each env's last `stack` frames,
    L2-normalised and scaled by sqrt(D) so that entries are of order 1, float32 [stack * D],
    followed (`obs="features+symbolic"`) by its symbols, or only those (`obs="symbolic"`)."""

    def __init__(self, num_envs: int, dim: int, stack: int = 1, obs: str = "features"):
        if stack < 1:
            raise ValueError(f"expected stack >= 1 frames, got {stack}")
        if obs not in OBS:
            raise ValueError(f"expected obs in {OBS}, got {obs!r}")
        from .symbolic import SIZE

        self.kind, self.dim, self.stack = obs, dim, stack
        self.use_features, self.use_symbols = obs != "symbolic", obs != "features"
        self.history = torch.zeros(num_envs, stack, dim)
        self.symbols = np.zeros((num_envs, SIZE if self.use_symbols else 0), np.float32)
        self.size = (stack * dim if self.use_features else 0) + self.symbols.shape[1]

    def start(self, encoded: EncodedStep) -> None:
        """Fill the stacks of the envs whose episodes start with their first frames' features."""
        if len(encoded.started):
            first = encoded.start_features[:, :self.dim].float().cpu()
            self.history[encoded.started] = first[:, None, :].expand(-1, self.stack, -1)

    def push(self, encoded: EncodedStep) -> None:
        """Each env's frame of a step enters its stack (the reward's features: the embedding first)."""
        own = encoded.features[:, :self.dim].float().cpu()
        self.history = torch.cat([self.history[:, 1:], own[:, None]], dim=1)

    def read_symbols(self, infos, ids) -> None:
        """The symbols of envs `ids` from their infos (`SymbolicInfo`)."""
        if not self.use_symbols:
            return
        for i in ids:
            if "symbols" not in infos[i]:
                raise KeyError(f"obs={self.kind!r} needs info['symbols'] from every env: wrap them with "
                               "mineclip.rl.symbolic.SymbolicInfo (make_vec_env(..., symbols=True))")
            self.symbols[i] = infos[i]["symbols"]

    def __call__(self, ids=None) -> np.ndarray:
        """The observations [len(ids), size] of envs `ids` (default all)."""
        ids = np.arange(len(self.history)) if ids is None else np.asarray(ids)
        parts = []
        if self.use_features:
            h = self.history[ids]
            parts.append((torch.nn.functional.normalize(h, dim=-1) * math.sqrt(self.dim))
                         .reshape(len(h), -1).numpy().astype(np.float32))
        if self.use_symbols:
            parts.append(self.symbols[ids])
        return np.concatenate(parts, axis=1) if len(parts) > 1 else parts[0]


class FrameFeatures(VecEnvWrapper):
    """Observations -> frozen frame-encoder features of the last `stack` frames, float32 [stack * D],
    and/or the symbols (`PolicyObservation`). With `reward=` (a RewardFunction of the same
    RewardModel, or one with its `encode` and `stream`: the proximity reward of
    `mineclip.perception.proximity`; each frame is encoded once, by `reward.encode`, whose first D
    columns are the embedding) the step reward becomes env reward + coef * MineCLIP reward
    (combine="add", the paper's setup with the sparse success bonus) or coef * MineCLIP reward
    (combine="replace"); every info then holds "mineclip" and, at an episode's end,
    "mineclip_episode".

    `obs` ("features", "symbolic", "features+symbolic"): the symbols come from `info["symbols"]` of
    the wrapped envs (`SymbolicInfo`, `make_vec_env(..., symbols=True)`); at an auto-reset those
    of the next episode's first step from the vector env's `reset_infos`.
    """

    def __init__(self, venv: VecEnv, reward_model: RewardModel, *, stack: int = 1,
                 reward: RewardFunction | None = None, combine: str = "add", coef: float = 1.0,
                 obs: str = "features"):
        if reward is not None and reward.rm is not reward_model:
            raise ValueError("the reward function must use the same RewardModel as the features (one encoding)")
        self.rm = reward_model
        self.policy_obs = po = PolicyObservation(venv.num_envs, int(reward_model.model.config.embed_dim), stack, obs)
        self.stack, self.dim, self.use_features, self.use_symbols = stack, po.dim, po.use_features, po.use_symbols
        super().__init__(venv, observation_space=gym.spaces.Box(-np.inf, np.inf, (po.size,), np.float32))
        self.tracker = (RewardTracker(reward, self.num_envs, combine, coef, autoreset="same-step")
                        if reward is not None else None)
        # the frames' encoder: the tracker's (the reward's features), else the frame encoder's when
        # the policy reads features, else none
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

    def reset(self) -> np.ndarray:
        obs = self.venv.reset()
        self.policy_obs.read_symbols(self.venv.reset_infos, range(self.num_envs))
        if self.tracker is not None:
            self.policy_obs.start(self.tracker.reset(frames_of(obs)).encoded)
        elif self.encoder is not None:
            self.policy_obs.start(self.encoder.reset(frames_of(obs), np.arange(self.num_envs)))
        return self.policy_obs()

    def step_wait(self):
        obs, env_reward, dones, infos = self.venv.step_wait()
        reward, encoded = np.asarray(env_reward, dtype=np.float64), None
        if self.tracker is not None:
            step = self.tracker.step(frames_of(obs), env_reward, dones, terminal_frames(infos, dones))
            reward, encoded = step.reward, step.encoded
            for i, info in enumerate(infos):
                info.update(step.payload(i))
        elif self.encoder is not None:
            encoded = self.encoder.step(frames_of(obs), dones, terminal_frames(infos, dones))
        if encoded is not None:
            self.policy_obs.push(encoded)
        self.policy_obs.read_symbols(infos, range(self.num_envs))  # a finished episode's: its last step
        for i in np.flatnonzero(dones):
            infos[i]["terminal_observation"] = self.policy_obs([i])[0]
        if dones.any():
            self.policy_obs.read_symbols(self.venv.reset_infos, np.flatnonzero(dones))  # the next episode's first
            if encoded is not None:
                self.policy_obs.start(encoded)
        return self.policy_obs(), reward.astype(np.float32), dones, infos
