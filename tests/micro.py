"""A micro MineCLIP (tiny config at 32x48 pixels) so that whole-window recomputation stays cheap.

Shared by the reward, export and evaluate tests; `micro_model` (tests/conftest.py) is its fixture.
"""

from __future__ import annotations

import torch

from mineclip.model import MineCLIP, get_config

MICRO_RES = (32, 48)


def make_micro(pooling: str = "attn", seed: int = 0) -> MineCLIP:
    cfg = get_config(f"tiny_{pooling}")
    cfg.vision.resolution = MICRO_RES
    torch.manual_seed(seed)
    return MineCLIP(cfg).eval()
