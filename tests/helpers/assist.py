"""Helpers for the assistant's tests: what a session's world and memory look like, to check that a
message changed nothing."""

from __future__ import annotations


def world_fingerprint(session) -> tuple:
    """Everything about the world a message could change: position, facing, inventory, tiles, objects, steps."""
    ex = session.ex
    world = ex.env.world
    objects = sorted((type(o).__name__, int(o.pos[0]), int(o.pos[1])) for o in world.objects)
    return (ex.pos, ex.facing, tuple(sorted(ex.state.inventory.items())), world._mat_map.tobytes(), tuple(objects),
            ex.total_steps, len(ex.stack))


def memory_fingerprint(session) -> dict:
    """The memory's tables (the chat log aside: it records every message, as CraftAssist's did)."""
    return session.memory.snapshot(include_chats=False)


def task_labels(task: dict) -> list[str]:
    """Labels of a task tree (as `tasks` in a reply), depth first."""
    return [task["label"]] + [lb for c in task.get("subtasks", []) for lb in task_labels(c)]
