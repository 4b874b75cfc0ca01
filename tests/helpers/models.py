"""The test models: the packaged `micro` config (mineclip/model/configs/micro.json, 32x64 pixels),
small enough that whole-window recomputation and a few training steps stay cheap."""

from __future__ import annotations

import torch

from mineclip.model import MineCLIP, get_config

MICRO = "micro"
MICRO_RES = tuple(get_config(MICRO).vision.resolution)


def make_micro(pooling: str = "attn", seed: int = 0, resolution: tuple[int, int] | None = None) -> MineCLIP:
    """A micro MineCLIP with random weights (seeded), in eval mode; `resolution` (h, w) overrides
    its 32x64 input (160x256: one patch per simulator tile, what the perception head reads)."""
    torch.manual_seed(seed)
    vision = {"resolution": list(resolution)} if resolution else {}
    return MineCLIP(get_config(MICRO, temporal={"pooling": pooling}, vision=vision)).eval()
