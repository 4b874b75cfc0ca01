"""Fixtures of the assistant's tests: a micro model exported as an artifact."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def micro_artifact(tmp_path_factory):
    """A micro MineCLIP (random weights) exported as an artifact folder."""
    from helpers.labelling import save_micro_artifact

    return save_micro_artifact(tmp_path_factory.mktemp("assist") / "micro")
