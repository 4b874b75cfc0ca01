"""Fixtures for training tests: small shards with learnable captions (helpers/training.py)."""

from __future__ import annotations

import pytest

from helpers.training import write_shards


@pytest.fixture(scope="session")
def shards(tmp_path_factory):
    """{'train': folder (24 clips, 2 shards), 'val': folder (12 clips)} of raw 4-frame 32x64 clips."""
    root = tmp_path_factory.mktemp("shards")
    return {
        "train": write_shards(root / "train", "train", 24, seed=0),
        "val": write_shards(root / "val", "val", 12, seed=1),
    }


