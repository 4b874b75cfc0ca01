"""The bundled simulator task suite on crafter: tasks as data, environment, agents, recording,
narrated training clips, difficulty scores and MineDojo import."""

from .registry import all_prompts, get_task, list_tasks, scene_prompts
from .spec import TaskSpec

__all__ = ["TaskSpec", "all_prompts", "get_task", "list_tasks", "make_env", "scene_prompts"]


def make_env(task_id: str, **kwargs):
    """The gymnasium environment for a registered crafter task (see env.CrafterTaskEnv)."""
    from .env import CrafterTaskEnv

    return CrafterTaskEnv(task_id, **kwargs)
