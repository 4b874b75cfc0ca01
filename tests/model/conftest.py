"""Fixtures for the model tests: full-size models loaded from random released-layout checkpoints."""

from __future__ import annotations

import pytest
import torch

from helpers.official import lightning_checkpoint, make_official_state_dict


@pytest.fixture(scope="session")
def official_full(tmp_path_factory):
    """pooling -> (path, state dict without `model.`, loaded model), built once per pooling."""
    from mineclip.model.official import load_official

    cache: dict[str, tuple] = {}

    def get(pooling: str):
        if pooling not in cache:
            import argparse

            sd = make_official_state_dict(pooling, seed={"attn": 1, "avg": 2}[pooling])
            # avg also carries a pickled config object, which sends it through the restricted unpickler
            extra = {"hparams_obj": argparse.Namespace(pool_type=pooling)} if pooling == "avg" else {}
            path = tmp_path_factory.mktemp("official") / f"random_{pooling}.pth"
            torch.save(lightning_checkpoint(sd, extra), path)
            model = load_official(path)
            cache[pooling] = (path, {k[len("model."):]: v for k, v in sd.items()}, model)
        return cache[pooling]

    return get
