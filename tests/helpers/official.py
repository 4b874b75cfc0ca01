"""Helpers for the model tests: random checkpoints in the released layout."""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import torch

LAYOUT_PATH = Path(__file__).parent / "data" / "mineclip_official_layout.json.gz"


def released_layout(pooling: str) -> dict:
    """{'keys': [[key, shape], ...], 'aliases': [[key, ...], ...]} of the released file (no `model.`)."""
    with gzip.open(LAYOUT_PATH, "rt") as f:
        return json.load(f)["variants"][pooling]


def _uniform(shape, g: torch.Generator) -> torch.Tensor:
    """Zero-mean, unit-variance uniform noise (cheaper to draw than normal for 150M values)."""
    return (torch.rand(shape, generator=g) - 0.5) * math.sqrt(12.0)


def random_tensor(name: str, shape: list[int], g: torch.Generator) -> torch.Tensor:
    """Values of a plausible scale for a parameter of that name (keeps deep random nets finite)."""
    if name.endswith("logit_scale"):
        return torch.tensor(math.log(1 / 0.07) + 0.5 * torch.randn((), generator=g).item())
    if name.endswith("video_residual_weight"):
        return torch.tensor(0.5 + torch.randn((), generator=g).item())  # r ~ 0.6: both adapter paths count
    if len(shape) == 1 and name.endswith(".weight"):  # LayerNorm gains
        return 1.0 + 0.1 * _uniform(shape, g)
    if name.endswith("bias") or name.endswith("cls_token"):
        return 0.05 * _uniform(shape, g)
    fan_in = shape[0] if name.endswith("projection") else math.prod(shape[1:])
    return _uniform(shape, g) * fan_in**-0.5


def make_official_state_dict(pooling: str, seed: int = 0) -> dict[str, torch.Tensor]:
    """Random weights in the released layout, `model.`-prefixed, alias keys sharing one tensor."""
    layout = released_layout(pooling)
    g = torch.Generator().manual_seed(seed)
    alias_of = {k: group[0] for group in layout["aliases"] for k in group}
    tensors: dict[str, torch.Tensor] = {}
    for key, shape in layout["keys"]:
        canonical = alias_of.get(key, key)
        if canonical not in tensors:
            tensors[canonical] = random_tensor(canonical, shape, g)
        tensors[key] = tensors[canonical]
    return {"model." + k: tensors[k] for k, _ in layout["keys"]}


def lightning_checkpoint(state_dict: dict, extra_metadata: dict | None = None) -> dict:
    """A Lightning-style checkpoint dict around a state dict."""
    ckpt = {
        "epoch": 7,
        "global_step": 12345,
        "pytorch-lightning_version": "1.6.4",
        "state_dict": state_dict,
        "hyper_parameters": {"arch": "vit_base_p16_fz.v2.t2", "hidden_dim": 512, "resolution": [160, 256]},
    }
    ckpt.update(extra_metadata or {})
    return ckpt
