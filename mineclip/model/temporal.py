"""Temporal aggregators: per-frame embeddings [B, T, D] -> one video embedding [B, D]."""

from __future__ import annotations

import warnings

import torch
from torch import nn

with warnings.catch_warnings():
    # x-transformers decorates a helper with torch.jit.script at import, which torch 2.10+ reports as
    # deprecated on every run; the warning is about x-transformers' code, not anything done here
    warnings.filterwarnings("ignore", message=r"`torch\.jit\.script` is deprecated", category=FutureWarning)
    from x_transformers import Encoder
    from x_transformers.x_transformers import AbsolutePositionalEmbedding

from .config import TemporalConfig


class AvgPooling(nn.Module):
    """Mean over frames; no parameters."""

    def __init__(self, dim: int, cfg: TemporalConfig):
        super().__init__()
        self.max_frames = cfg.max_frames

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.mean(dim=1)


class AttnPooling(nn.Module):
    """Transformer encoder over frames (pre-norm, SwiGLU, learned positions), final norm, mean.

    Built on x-transformers' `Encoder`. Its norms are replaced by biased `nn.LayerNorm`, as in the
    x-transformers 0.27.1 pooler of the released MineCLIP (x-transformers 2.x defaults to bias-free
    norms with a unit offset, which cannot hold the released weights).
    """

    def __init__(self, dim: int, cfg: TemporalConfig):
        super().__init__()
        self.max_frames = cfg.max_frames
        self.pos_emb = AbsolutePositionalEmbedding(dim, cfg.max_frames)  # scaled by dim ** -0.5
        self.encoder = Encoder(
            dim=dim,
            depth=cfg.layers,
            heads=cfg.heads,
            attn_dim_head=cfg.dim_head,
            ff_mult=cfg.ff_mult,
            ff_glu=True,
            ff_swish=True,
        )
        for layer in self.encoder.layers:
            norms = layer[0]
            norms[0] = nn.LayerNorm(dim)
        self.encoder.final_norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.pos_emb(x)
        x = self.encoder(x)
        return x.mean(dim=1)


def build_temporal(dim: int, cfg: TemporalConfig) -> nn.Module:
    return {"avg": AvgPooling, "attn": AttnPooling}[cfg.pooling](dim, cfg)
