"""The MineCLIP reward for stable-baselines3 vector environments: a `VecEnvWrapper` that scores the
frames of all N envs in one batched forward in the main process, so that envs stepped in
subprocesses (`SubprocVecEnv`) never load a model. A shell over `RewardTracker`
(mineclip.reward.episodes, which documents the info schema); needs stable-baselines3 (the `rl` extra).

    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv
    venv = make_vec_env("mineclip/harvest_wood-v0", n_envs=8, vec_env_cls=SubprocVecEnv)
    venv = MineCLIPVecEnvReward(venv, rm.reward_fn("chop a tree", negatives), coef=0.1)
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from mineclip.extras import require

require("stable_baselines3", feature="the stable-baselines3 reward wrapper (mineclip.reward.sb3)")

from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper  # noqa: E402

from .episodes import RewardTracker, make_tracker  # noqa: E402
from .frames import frames_of  # noqa: E402
from .reward import RewardFunction  # noqa: E402


def terminal_frames(infos, dones, frame_key: str | None = None) -> list[np.ndarray]:
    """The last frames of the episodes that ended in a step, in env order: stable-baselines3 resets
    such an env within the step, so its observation is the next episode's first frame and the
    ended one's last is `infos[i]["terminal_observation"]`."""
    return [frames_of(infos[i]["terminal_observation"], frame_key) for i in np.flatnonzero(dones)]


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
                                                   self.num_envs, precision, autoreset="same-step")
        self.frame_key = frame_key

    @property
    def fn(self) -> RewardFunction:
        return self.tracker.fn

    def reset(self):
        obs = self.venv.reset()
        self.tracker.reset(frames_of(obs, self.frame_key))
        return obs

    def step_wait(self):
        obs, env_reward, dones, infos = self.venv.step_wait()
        step = self.tracker.step(frames_of(obs, self.frame_key), env_reward, dones,
                                 terminal_frames(infos, dones, self.frame_key))
        for i, info in enumerate(infos):
            info.update(step.payload(i))
        return obs, step.reward.astype(np.float32), dones, infos
