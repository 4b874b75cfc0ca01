"""The suite's tasks registered with gymnasium, one environment id per crafter task.

    import gymnasium as gym, mineclip.tasks
    env = gym.make("mineclip/harvest_wood-v0")                    # after `import mineclip.tasks`
    env = gym.make("mineclip.tasks:mineclip/harvest_wood-v0")     # or let gymnasium import it

Keyword arguments of `gym.make` go to `mineclip.tasks.env.CrafterTaskEnv` (max_steps, dense_reward,
terminate_on_success, ...). The environment module loads only when an environment is made.
"""

from __future__ import annotations

from .registry import list_tasks

ENV_NAMESPACE = "mineclip"
ENV_VERSION = 0


def env_id(task_id: str) -> str:
    """The gymnasium id of a suite task: 'mineclip/<task_id>-v0'."""
    return f"{ENV_NAMESPACE}/{task_id}-v{ENV_VERSION}"


def register_envs() -> list[str]:
    """Register every crafter task of the suite with gymnasium (idempotent); returns their ids."""
    import gymnasium as gym

    ids = []
    for task in list_tasks():
        name = env_id(task.id)
        if name not in gym.registry:
            gym.register(name, entry_point="mineclip.tasks.env:CrafterTaskEnv", kwargs={"task": task.id})
        ids.append(name)
    return ids
