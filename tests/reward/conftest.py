"""A micro MineCLIP (tiny config at 32x48 pixels) so that whole-window recomputation stays cheap."""

from __future__ import annotations

import pytest
import torch

from mineclip.model import MineCLIP, get_config

MICRO_RES = (32, 48)


def make_micro(pooling: str = "attn", seed: int = 0) -> MineCLIP:
    cfg = get_config(f"tiny_{pooling}")
    cfg.vision.resolution = MICRO_RES
    torch.manual_seed(seed)
    return MineCLIP(cfg).eval()


@pytest.fixture(scope="module")
def micro_model() -> MineCLIP:
    return make_micro()
