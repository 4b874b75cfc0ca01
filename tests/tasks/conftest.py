"""Fixtures for the crafter task suite tests."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def scripted_results():
    """Scripted-agent outcome per task over a few training worlds: {task_id: [label, ...]}."""
    from mineclip.tasks.record import run_episode
    from mineclip.tasks.registry import list_tasks

    out = {}
    for t in list_tasks():
        labels = []
        for seed in range(3):
            ep = run_episode(t.id, "scripted", seed=seed, world_seed=seed, tail=0, min_frames=0)
            labels.append(ep.record["label"])
        out[t.id] = labels
    return out
