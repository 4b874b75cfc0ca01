"""Does the learned reward shape? Its mean per step against the distance to the task's target.

The hand-written dense reward pays for every tile the agent comes closer to its target; a learned
reward helps PPO where the bonus alone rarely succeeds only if it, too, rises as the agent nears
the target. `reward_by_distance` measures that before any PPO run: random play on the task's
training worlds, the learned reward of every step (the `mineclip` variant's reward: the task's
prompt against its negatives over the 16-frame window) grouped by the Manhattan distance from the
player to the nearest tile of the dense reward's navigation target in the local view (read from
the simulator's symbols, `mineclip.rl.symbolic`; "not in view" beyond it). `python
bench/shaping.py` prints it for several tasks and artifacts side by side. With `reward_mode=
"proximity"` (`mineclip.perception.proximity`) the value grouped is the proximity itself, the potential
whose change is the reward: it should fall with distance.

Its successor, in both views and with more measures than the distance (the share of the view the
target fills, the value-order correlation along successful episodes, the EPIC distance to the
dense reward), is `mineclip.rl.shaping_study`; `bench/shaping.py --by-distance` still prints this
one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mineclip.tasks import get_task

from .symbolic import CLASSES, view_classes
from .train import PROXIMITY_REWARD_MODES, RunConfig, build_env, reward_model, training_worlds

PLAYER = (8, 4)  # the player's tile in the local view
NOT_IN_VIEW = -1


@dataclass
class Shaping:
    """Learned reward per step by distance to the target (tiles; NOT_IN_VIEW when it is not in view)."""

    task: str
    target: str
    by_distance: dict[int, tuple[int, float]]  # distance -> (steps, mean learned reward, or proximity)
    spearman: float  # rank correlation of reward and distance over the steps with the target in view

    def rows(self) -> list[tuple[str, int, float]]:
        return [("not in view" if d == NOT_IN_VIEW else str(d), n, r) for d, (n, r) in sorted(
            self.by_distance.items(), key=lambda kv: (kv[0] == NOT_IN_VIEW, kv[0]))]


def target_classes(task_id: str) -> tuple[str, list[int]]:
    """The dense reward's navigation target of a task and its classes in the symbolic view."""
    reward = get_task(task_id).reward or {}
    kind = reward.get("navigate")
    if not kind:
        raise ValueError(f"task {task_id!r} has no navigation target in its dense reward: nothing to measure against")
    names = [kind] + (["plant-ripe"] if kind == "plant" else [])
    missing = [n for n in names if n not in CLASSES]
    if missing:
        raise ValueError(f"task {task_id!r} navigates to {kind!r}, which the symbolic view does not show")
    return kind, [CLASSES.index(n) for n in names]


def reward_by_distance(artifact: str, task_id: str, steps: int = 300, num_envs: int = 8, seed: int = 0,
                       negatives: str = "distinct", reward_mode: str = "direct") -> Shaping:
    """Random play for `steps` vector steps of `num_envs` envs; the learned reward of each step by
    the distance to the target (see the module)."""
    from scipy.stats import spearmanr

    kind, classes = target_classes(task_id)
    cfg = RunConfig(task=task_id, variant="mineclip", seed=seed, artifact=artifact, num_envs=num_envs,
                    obs="symbolic", negatives=negatives, reward_mode=reward_mode)
    env = build_env(cfg, reward_model(artifact), training_worlds(cfg), seed)
    rng = np.random.default_rng(seed)
    env.reset()
    dist, reward = [], []
    try:
        for _ in range(steps):
            _, _, dones, infos = env.step(rng.integers(0, env.action_space.n, size=env.num_envs))
            for i, info in enumerate(infos):
                if dones[i]:  # its symbols are the next episode's, its frame the last one's
                    continue
                xs, ys = np.nonzero(np.isin(view_classes(info["symbols"]), classes))
                d = np.abs(xs - PLAYER[0]) + np.abs(ys - PLAYER[1])
                dist.append(int(d.min()) if len(d) else NOT_IN_VIEW)
                reward.append(info["mineclip"]["prob" if reward_mode in PROXIMITY_REWARD_MODES else "reward"])
    finally:
        env.close()
    dist_a, reward_a = np.array(dist), np.array(reward)
    table = {int(d): (int((dist_a == d).sum()), float(reward_a[dist_a == d].mean())) for d in np.unique(dist_a)}
    seen = dist_a != NOT_IN_VIEW
    rho = float(spearmanr(dist_a[seen], reward_a[seen])[0]) if seen.sum() > 2 else float("nan")
    return Shaping(task_id, kind, table, rho)
