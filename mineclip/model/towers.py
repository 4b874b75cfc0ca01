"""CLIP towers built from open_clip's modules: the ViT frame encoder and the GPT text encoder."""

from __future__ import annotations

import torch
from open_clip.transformer import TextTransformer, VisionTransformer

from .config import TextConfig, VisionConfig
from .layers import QuickGELU, use_self_attention


def build_vision_tower(cfg: VisionConfig, embed_dim: int) -> VisionTransformer:
    """CLIP ViT (pre-LN, QuickGELU) at a non-square resolution; output is the projected CLS token
    (`cfg.pool` "tok") or mean patch token ("avg"); its activation and attention are `mineclip.model.layers`'."""
    return use_self_attention(VisionTransformer(
        image_size=tuple(cfg.resolution),
        patch_size=cfg.patch_size,
        width=cfg.width,
        layers=cfg.layers,
        heads=cfg.heads,
        mlp_ratio=cfg.mlp_ratio,
        output_dim=embed_dim,
        pool_type=cfg.pool,
        act_layer=QuickGELU,
    ))


class CausalTextTransformer(TextTransformer):
    """open_clip's text transformer, also for token rows shorter than the context length (the
    causal mask is cut to the row length). With a causal mask and the feature read at the
    end-of-text token, the padding after the batch's last end-of-text token changes nothing, so
    callers may drop it (`trim_padding`): short prompts then cost a fraction of 77 positions."""

    def _embeds(self, text):
        x, attn_mask = super()._embeds(text)
        n = x.shape[1]
        if attn_mask is not None and attn_mask.shape[-1] != n:
            attn_mask = attn_mask[..., :n, :n]
        return x, attn_mask


def trim_padding(tokens: torch.Tensor, multiple: int = 16) -> torch.Tensor:
    """Token rows [N, L] cut after the last end-of-text token (the largest id) of the batch,
    rounded up to a multiple of `multiple` positions (few distinct shapes for compiled code)."""
    if tokens.numel() == 0:
        return tokens
    used = int(tokens.argmax(dim=-1).max()) + 1
    keep = min(tokens.shape[1], -(-used // multiple) * multiple)
    return tokens[:, :keep]


def build_text_tower(cfg: TextConfig, embed_dim: int) -> TextTransformer:
    """CLIP text transformer: causal, feature at the end-of-text token (the largest id), projected;
    its activation and attention are `mineclip.model.layers`'."""
    return use_self_attention(CausalTextTransformer(
        context_length=cfg.context_length,
        vocab_size=cfg.vocab_size,
        width=cfg.width,
        heads=cfg.heads,
        layers=cfg.layers,
        output_dim=embed_dim,
        act_layer=QuickGELU,
    ))


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
