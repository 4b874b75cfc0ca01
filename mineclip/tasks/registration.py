"""The catalogue's tasks registered with gymnasium, one environment id per crafter task (the suite's
and the generated catalogue's alike).

    import gymnasium as gym, mineclip.tasks
    env = gym.make("mineclip/harvest_wood-v0")                    # after `import mineclip.tasks`
    env = gym.make("mineclip/harvest_wood-v0", view="first_person")   # the player's eyes and controls
    env = gym.make("mineclip.tasks:mineclip/harvest_wood-v0")     # or let gymnasium import it
    env = gym.make("mineclip/horizon_text-v0", goal="make_iron_pickaxe")   # text-only planning

Keyword arguments of `gym.make` go to `mineclip.tasks.env.CrafterTaskEnv` (view, max_steps,
dense_reward, terminate_on_success, ...). The environment module loads only when an environment is made.
"""

from __future__ import annotations

from .registry import list_tasks

ENV_NAMESPACE = "mineclip"
ENV_VERSION = 0


def env_id(task_id: str) -> str:
    """The gymnasium id of a suite task: 'mineclip/<task_id>-v0'."""
    return f"{ENV_NAMESPACE}/{task_id}-v{ENV_VERSION}"


def register_envs() -> list[str]:
    """Register every crafter task of every catalogue with gymnasium (idempotent); returns their ids."""
    import gymnasium as gym

    ids = []
    for task in list_tasks(catalogue="all"):
        name = env_id(task.id)
        if name not in gym.registry:
            gym.register(name, entry_point="mineclip.tasks.env:CrafterTaskEnv", kwargs={"task": task.id})
        ids.append(name)
    text = f"{ENV_NAMESPACE}/horizon_text-v{ENV_VERSION}"
    if text not in gym.registry:  # the text-only planning environment (mineclip.tasks.textplan)
        gym.register(text, entry_point="mineclip.tasks.textplan:HorizonTextEnv")
    return ids
