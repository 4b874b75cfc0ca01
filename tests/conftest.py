"""Shared fixtures: small real things (a tiny model, frames) for tests across the library."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch

os.environ.setdefault("MPLBACKEND", "Agg")
torch.set_num_threads(min(2, os.cpu_count() or 1))

SLOW_TIMEOUT = 1800  # seconds for a `slow` end-to-end test (pyproject.toml's `timeout` holds the others)


def pytest_collection_modifyitems(session, config, items):
    """The slow end-to-end tests get a longer time limit than the default, unless they set their own."""
    for item in items:
        if item.get_closest_marker("slow") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(SLOW_TIMEOUT))


@pytest.fixture(scope="session")
def tiny_model():
    """A tiny MineCLIP (attn pooling), random weights, eval mode; do not modify it in tests."""
    from mineclip.model import build_model

    torch.manual_seed(0)
    return build_model("tiny").eval()


@pytest.fixture
def random_video():
    """uint8 video [2, 4, 3, 160, 256]."""
    g = torch.Generator().manual_seed(0)
    return torch.randint(0, 256, (2, 4, 3, 160, 256), dtype=torch.uint8, generator=g)


@pytest.fixture
def rng():
    return np.random.default_rng(0)


@pytest.fixture(scope="module")
def micro_model():
    """A micro MineCLIP (the packaged `micro` config, 32x64 pixels), see helpers/models.py."""
    from helpers.models import make_micro

    return make_micro()


@pytest.fixture(scope="session")
def sim_model():
    """An untrained micro reward model (window 3) whose 16-pixel patches are the simulator's tiles."""
    from helpers.models import make_micro

    from mineclip.reward import RewardModel

    return RewardModel(make_micro(resolution=(160, 256)), window=3)


@pytest.fixture(scope="session")
def sim_head(sim_model):
    """(head, fit, held_out): a perception head fitted on `sim_model`'s patch tokens of the frames
    `fit` (16 training worlds), and frames of 10 held-out worlds; do not modify them in tests."""
    from mineclip.perception.calibrate import collect_frames
    from mineclip.perception.head import fit_head

    fit = collect_frames("perception", 16, per_episode=6, steps=18)
    held_out = collect_frames("perception_eval", 10, per_episode=6, steps=18, seed=1)
    return fit_head(sim_model, fit), fit, held_out


@pytest.fixture(scope="session")
def scripted_results():
    """Scripted-agent outcome per task over a few training worlds: {task_id: [label, ...]}."""
    from mineclip.play.record import run_episode
    from mineclip.tasks.registry import list_tasks

    out = {}
    for t in list_tasks():
        labels = []
        for seed in range(3):
            ep = run_episode(t.id, "scripted", seed=seed, world_seed=seed, tail=0, min_frames=0)
            labels.append(ep.record["label"])
        out[t.id] = labels
    return out
