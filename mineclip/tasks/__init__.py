"""The task catalogue on crafter: task specifications, the registry of `suite/*.yaml`, success
criteria and oracles, world seeds, negative prompts, scene phrases, difficulty scores and MineDojo
import.

Importing this package registers every crafter task with gymnasium as `mineclip/<task_id>-v0`
(`mineclip.tasks.registration`); `make_env(task_id)` builds one directly.
"""

from __future__ import annotations

import importlib.util

from .registration import env_id, register_envs
from .registry import all_prompts, get_task, list_tasks, select_tasks
from .spec import TaskSpec

__all__ = ["CrafterTaskEnv", "TaskSpec", "all_prompts", "env_id", "get_task", "list_tasks", "make_env",
           "register_envs", "select_tasks"]

if importlib.util.find_spec("gymnasium") is not None:  # without it there is no environment to register
    register_envs()


def __getattr__(name: str):  # the environment loads the simulator (crafter): only on first use
    if name in ("CrafterTaskEnv", "make_env"):
        from . import env

        return getattr(env, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
