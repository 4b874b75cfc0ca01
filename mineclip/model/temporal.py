"""Temporal aggregators: per-frame embeddings [B, T, D] -> one video embedding [B, D]."""

from __future__ import annotations

import warnings

import torch
import torch.nn.functional as F
from torch import nn

with warnings.catch_warnings():
    # x-transformers decorates a helper with torch.jit.script at import, which torch 2.10+ reports as
    # deprecated on every run; the warning is about x-transformers' code, not anything done here
    warnings.filterwarnings("ignore", message=r"`torch\.jit\.script` is deprecated", category=FutureWarning)
    from x_transformers import Encoder
    from x_transformers.x_transformers import AbsolutePositionalEmbedding

from .config import TemporalConfig
from .fused import DerivedWeights


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

        self._derived: DerivedWeights | None = None  # built at the first inference call

    def __getstate__(self) -> dict:  # copies and pickles rebuild the inference weights when used
        return {**self.__dict__, "_derived": None}

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not torch.is_grad_enabled():
            return self._inference(x)
        x = x + self.pos_emb(x)
        x = self.encoder(x)
        return x.mean(dim=1)

    # Inference: the same function with a few fused ops (one qkv matrix multiply, the attention
    # scale folded into the queries, scaled_dot_product_attention, residual adds inside addmm): about
    # 30 tensor ops instead of x-transformers' 150-odd, which on a 16-frame window cost more than
    # the arithmetic. Tested equal to the module forward (float32 rounding).
    def _inference_weights(self) -> dict:
        layers = []
        for norms, block, _ in self.encoder.layers:
            ln = norms[0]
            entry = {"ln": (ln.normalized_shape, ln.weight, ln.bias, ln.eps)}
            if hasattr(block, "to_q"):
                q = block.to_q.weight * block.scale
                entry.update(qkv=torch.cat([q, block.to_k.weight, block.to_v.weight]).t().contiguous(),
                             out=block.to_out.weight.t().contiguous(), heads=block.heads)
            else:
                glu, out = block.ff[0], block.ff[2]
                entry.update(up_w=glu.proj.weight.t().contiguous(), up_b=glu.proj.bias,
                             down_w=out.weight.t().contiguous(), down_b=out.bias)
            layers.append(entry)
        fn = self.encoder.final_norm
        return {"pos": self.pos_emb.emb.weight * self.pos_emb.scale, "layers": layers,
                "final": (fn.normalized_shape, fn.weight, fn.bias, fn.eps)}

    def _inference(self, x: torch.Tensor) -> torch.Tensor:
        if self._derived is None:
            self._derived = DerivedWeights(self._inference_weights, list(self.parameters()))
        w = self._derived.get()
        n, t, d = x.shape
        h = (x + w["pos"][:t]).view(n * t, d)
        for layer in w["layers"]:
            y = F.layer_norm(h, *layer["ln"])
            if "qkv" in layer:
                heads = layer["heads"]
                q, k, v = (y @ layer["qkv"]).view(n, t, 3, heads, -1).permute(2, 0, 3, 1, 4).unbind(0)
                a = F.scaled_dot_product_attention(q, k, v, scale=1.0)  # q carries the scale
                h = torch.addmm(h, a.transpose(1, 2).reshape(n * t, -1), layer["out"])
            else:
                up, gate = torch.addmm(layer["up_b"], y, layer["up_w"]).chunk(2, dim=-1)
                h = torch.addmm(h, up * F.silu(gate), layer["down_w"]).add_(layer["down_b"])
        return F.layer_norm(h, *w["final"]).view(n, t, d).mean(dim=1)


def build_temporal(dim: int, cfg: TemporalConfig) -> nn.Module:
    return {"avg": AvgPooling, "attn": AttnPooling}[cfg.pooling](dim, cfg)
