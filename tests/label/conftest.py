"""Fixtures of the labelling tests: a small recorded set and a micro artifact."""

from __future__ import annotations

import shutil

import pytest


@pytest.fixture(scope="session")
def recorded_set(tmp_path_factory):
    """A real evaluation set: 2 tasks (one programmatic, one creative) x 2 successes + 2 failures."""
    from helpers.labelling import record_set

    return record_set(tmp_path_factory.mktemp("set"), ["harvest_wood", "lay_stone_row"], per_label=2)


@pytest.fixture
def fresh_set(recorded_set, tmp_path):
    """A private copy of the recorded set (tests may add files beside it)."""
    out = tmp_path / "set"
    shutil.copytree(recorded_set.parent, out)
    return out / recorded_set.name


@pytest.fixture(scope="session")
def micro_artifact(tmp_path_factory):
    """An exported artifact of a micro model (random weights)."""
    from helpers.labelling import save_micro_artifact

    return save_micro_artifact(tmp_path_factory.mktemp("artifact") / "micro")
