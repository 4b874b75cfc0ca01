"""Task-suite environments for RL: reward variants of table 1 and a pool of reusable worlds."""

from __future__ import annotations

from typing import Sequence

import gymnasium as gym
import numpy as np
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv

from mineclip.sim.view import DEFAULT_VIEW, check_view

# The reward variants of the MineDojo paper's table 1, in units of the success bonus (= 1).
VARIANTS = {
    "mineclip": "learned MineCLIP reward + success bonus",
    "sparse": "success bonus only",
    "dense": "the suite's hand-written dense reward",
}


class WorldPool(gym.Wrapper):
    """Each reset draws a world seed from `worlds` and a fresh episode seed (placements, mobs)."""

    def __init__(self, env: gym.Env, worlds: Sequence[int], seed: int):
        super().__init__(env)
        self.worlds = list(worlds)
        self.rng = np.random.default_rng(seed)

    def reset(self, *, seed=None, options=None):
        options = dict(options or {})
        options.setdefault("world_seed", int(self.rng.choice(self.worlds)))
        episode_seed = int(self.rng.integers(0, 2**31 - 1)) if seed is None else seed
        return self.env.reset(seed=episode_seed, options=options)


class ScaleReward(gym.RewardWrapper):
    """Multiply the env reward by `scale` (the dense reward in units of its success bonus)."""

    def __init__(self, env: gym.Env, scale: float):
        super().__init__(env)
        self.scale = scale

    def reward(self, reward):
        return reward * self.scale


def has_dense_reward(task_id: str) -> bool:
    """Whether the task defines a hand-written dense reward (otherwise "dense" is "sparse")."""
    from mineclip.tasks import get_task

    return bool(get_task(task_id).reward)


def make_task_env(task_id: str, variant: str, worlds: Sequence[int], seed: int,
                  max_steps: int | None = None, symbols: bool = False, view: str = DEFAULT_VIEW) -> gym.Env:
    """One crafter task env whose reward is the variant's env part (success bonus 1, or dense / bonus),
    drawn in `view` and played with its controls (`mineclip.sim.view`: in first person the policy
    turns and steps); with `symbols`, every info also holds the local window as symbols, inventory
    and position (mineclip.rl.symbolic: read from the map in both views)."""
    from mineclip.tasks import get_task, make_env

    if variant not in VARIANTS:
        raise ValueError(f"expected a reward variant in {sorted(VARIANTS)}, got {variant!r}")
    task = get_task(task_id)
    if task.kind != "programmatic":
        raise ValueError(f"task {task_id!r} is {task.kind}: RL needs a programmatic task (success criterion)")
    env = make_env(task_id, dense_reward=variant == "dense", max_steps=max_steps, view=check_view(view))
    if variant == "dense" and task.reward:
        env = ScaleReward(env, 1.0 / float(task.reward.get("success", 200.0)))
    if symbols:
        from .symbolic import SymbolicInfo

        env = SymbolicInfo(env)
    # stable-baselines3's episode statistics (info["episode"]: return, length, is_success)
    return Monitor(WorldPool(env, worlds, seed), info_keywords=("is_success",))


def make_vec_env(task_id: str, variant: str, num_envs: int, worlds: Sequence[int], seed: int,
                 max_steps: int | None = None, symbols: bool = False, view: str = DEFAULT_VIEW) -> DummyVecEnv:
    """`num_envs` copies in this process (runs are parallelised over processes, not envs), in `view`."""
    check_view(view)
    fns = [lambda i=i: make_task_env(task_id, variant, worlds, seed * 1000 + i, max_steps, symbols, view)
           for i in range(num_envs)]
    return DummyVecEnv(fns)
