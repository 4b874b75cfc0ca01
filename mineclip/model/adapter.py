"""Residual CLIP-Adapter on the video embedding (MineDojo appendix E)."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class VideoAdapter(nn.Module):
    """`out = r * x + (1 - r) * mlp(x)` with `r = sigmoid(residual_weight)`.

    The MLP is `Linear -> ReLU -> Linear` per pair of layers; module indices follow the released
    checkpoint (`video_adapter.0`, `video_adapter.3`), hence the parameter-free slot at index 2.
    """

    def __init__(self, dim: int, layers: int = 2, residual_init: float = 4.0):
        super().__init__()
        if layers < 1:
            raise ValueError(f"adapter needs at least one layer, got {layers}")
        mods: list[nn.Module] = []
        for i in range(layers):
            mods.append(nn.Linear(dim, dim))
            if i < layers - 1:
                mods += [nn.ReLU(), nn.Identity()]
        self.mlp = nn.Sequential(*mods)
        self.residual_weight = nn.Parameter(torch.tensor(float(residual_init)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        r = torch.sigmoid(self.residual_weight)
        if torch.is_grad_enabled():
            return r * x + (1.0 - r) * self.mlp(x)
        # inference: the same arithmetic without the Sequential's module calls, in place where it can
        h = x
        for m in self.mlp:
            if isinstance(m, nn.Linear):
                h = F.linear(h, m.weight, m.bias)
            elif isinstance(m, nn.ReLU):
                h = h.relu_()
        return h.mul_(1.0 - r).add_(x * r)
