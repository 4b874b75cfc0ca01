"""Fixtures of the evaluation tests that judge against people."""

import pytest


@pytest.fixture(scope="module")
def micro_artifact(tmp_path_factory):
    """An exported artifact of a micro model (random weights)."""
    from helpers.labelling import save_micro_artifact

    return save_micro_artifact(tmp_path_factory.mktemp("artifact") / "micro")
