"""CLIP towers built from open_clip's modules: the ViT frame encoder and the GPT text encoder."""

from __future__ import annotations

import torch
from open_clip.transformer import QuickGELU, TextTransformer, VisionTransformer

from .config import TextConfig, VisionConfig


def build_vision_tower(cfg: VisionConfig, embed_dim: int) -> VisionTransformer:
    """CLIP ViT (pre-LN, QuickGELU) at a non-square resolution; output is the projected CLS token."""
    return VisionTransformer(
        image_size=tuple(cfg.resolution),
        patch_size=cfg.patch_size,
        width=cfg.width,
        layers=cfg.layers,
        heads=cfg.heads,
        mlp_ratio=cfg.mlp_ratio,
        output_dim=embed_dim,
        act_layer=QuickGELU,
    )


def build_text_tower(cfg: TextConfig, embed_dim: int) -> TextTransformer:
    """CLIP text transformer: causal, feature at the end-of-text token (the largest id), projected."""
    return TextTransformer(
        context_length=cfg.context_length,
        vocab_size=cfg.vocab_size,
        width=cfg.width,
        heads=cfg.heads,
        layers=cfg.layers,
        output_dim=embed_dim,
        act_layer=QuickGELU,
    )


def resize_pos_embed(pos_embed: torch.Tensor, new_grid: tuple[int, int], num_prefix: int = 1) -> torch.Tensor:
    """Bicubically resize a square ViT position table (CLS first) to another patch grid."""
    prefix, grid = pos_embed[:num_prefix], pos_embed[num_prefix:]
    old = int(round(grid.shape[0] ** 0.5))
    if old * old != grid.shape[0]:
        raise ValueError(f"position table of {pos_embed.shape[0]} rows is not {num_prefix} + a square grid")
    if (old, old) == tuple(new_grid):
        return pos_embed
    dim = grid.shape[1]
    grid = grid.reshape(1, old, old, dim).permute(0, 3, 1, 2).float()
    grid = torch.nn.functional.interpolate(grid, size=tuple(new_grid), mode="bicubic", align_corners=False)
    grid = grid.permute(0, 2, 3, 1).reshape(-1, dim).to(pos_embed.dtype)
    return torch.cat([prefix, grid], dim=0)
