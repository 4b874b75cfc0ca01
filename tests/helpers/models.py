"""The test models: the packaged `micro` config (mineclip/model/configs/micro.json, 32x64 pixels),
small enough that whole-window recomputation and a few training steps stay cheap."""

from __future__ import annotations

import torch

from mineclip.model import MineCLIP, get_config

MICRO = "micro"
MICRO_RES = tuple(get_config(MICRO).vision.resolution)


def make_micro(pooling: str = "attn", seed: int = 0) -> MineCLIP:
    """A micro MineCLIP with random weights (seeded), in eval mode."""
    torch.manual_seed(seed)
    return MineCLIP(get_config(MICRO, temporal={"pooling": pooling})).eval()
