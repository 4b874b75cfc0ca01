"""An inference-only forward of the frame encoder (open_clip's `VisionTransformer`) with fused ops.

The module forward spends a third of a ViT-B/16's CPU time outside its matrix multiplies: the
bias copied into every output, QuickGELU's three passes over the 3072-wide hidden layer, separate
residual adds, the attention's head reshapes, the pixel normalisation. This forward computes the
same function from the same parameters with fewer passes:

- pixels: the normalisation `(x / 255 - mean) / std` is folded into the patch-embedding weights
  and a bias; uint8 frames [N, 3, H, W] are cut into patches and converted in one copy, then
  embedded by one matrix multiply; channels-last frames (a permuted [N, H, W, 3] array, what
  environments give) are converted in place and embedded by a channels-last convolution;
- linears on the CPU are oneDNN's fused `_linear_pointwise`: bias in the epilogue, the residual
  add fused into the output projections, and QuickGELU `z * sigmoid(1.702 z)` computed as
  `swish(1.702 z) / 1.702`, 1.702 folded into `ln_2` (weight, bias) and `c_fc`'s bias, 1 / 1.702
  into `c_proj` (a copy of it: the one extra weight in float32);
- attention is `scaled_dot_product_attention` on views of the fused qkv output;
- only the CLS token goes through `ln_post` (LayerNorm is per token, the others are dropped);
  with `pool_type="avg"` (the tiny configs' `vision.pool: avg`) every patch token does, then their mean.

In float32 its features equal the module's up to rounding (tested: max abs difference ~1e-6 of
features of norm ~1); in bfloat16 every weight is a bf16 copy and the features come back as
float32. The prepared weights are copies, rebuilt when a source parameter changes (optimizer
steps and `load_state_dict` bump a tensor's version), so it never serves stale weights; it is used
only where no gradient is wanted (`MineCLIP.encode_images`), training keeps the module forward.
"""

from __future__ import annotations

import math
from typing import Callable

import torch
import torch.nn.functional as F
from torch import nn

from .layers import QUICK_GELU


def supports(vision: nn.Module) -> bool:
    """Whether `vision` is the plain CLIP ViT this forward reproduces (CLS or mean-token pooling; no
    layer scale, attention pooling, patch dropout, token output or custom blocks); otherwise use the module."""
    from open_clip.transformer import QuickGELU, ResidualAttentionBlock, VisionTransformer

    if type(vision) is not VisionTransformer or getattr(vision, "attn_pool", None) is not None:
        return False
    if vision.output_tokens or getattr(vision, "pool_type", "tok") not in ("tok", "avg") or vision.final_ln_after_pool:
        return False
    if not isinstance(vision.patch_dropout, nn.Identity) or vision.proj is None or vision.conv1.bias is not None:
        return False
    for blk in vision.transformer.resblocks:
        if type(blk) is not ResidualAttentionBlock or hasattr(blk, "ln_1_kv"):
            return False
        if not (isinstance(blk.ls_1, nn.Identity) and isinstance(blk.ls_2, nn.Identity)):
            return False
        if not isinstance(blk.mlp.gelu, QuickGELU) or not blk.attn._qkv_same_embed_dim or blk.attn.in_proj_bias is None:
            return False
    return True


def _mkldnn_ok(device: torch.device, dtype: torch.dtype) -> bool:
    if device.type != "cpu" or not torch.backends.mkldnn.is_available():
        return False
    if dtype == torch.bfloat16:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    return dtype == torch.float32


def _f32(t: torch.Tensor) -> torch.Tensor:
    return t.detach().to(torch.float32)


class DerivedWeights:
    """Tensors derived from parameters (casts, folded constants, concatenations), built on first use
    and rebuilt when any source changes: its storage (`.to()`, `.data = ...`) or its version counter
    (in-place updates: optimizer steps, `load_state_dict`). The sources are tensor objects: code that
    replaces a module's Parameter objects (not their values) needs a new DerivedWeights."""

    def __init__(self, build: Callable[[], dict], sources: list[torch.Tensor]):
        self.build, self.sources = build, list(sources)
        self._key: tuple | None = None
        self._value: dict = {}

    def get(self) -> dict:
        key = (tuple(t._version for t in self.sources), tuple(t.data_ptr() for t in self.sources))
        if key != self._key:
            with torch.no_grad():
                self._value = self.build()
            self._key = key
        return self._value


class FusedVision:
    """The frame encoder's inference forward in `dtype` (see the module docstring)."""

    def __init__(self, vision: nn.Module, image_mean: torch.Tensor, image_std: torch.Tensor,
                 dtype: torch.dtype = torch.float32):
        self.vision, self.dtype = vision, dtype
        self.image_mean, self.image_std = image_mean, image_std
        self.weights = DerivedWeights(self._prepare, [*vision.parameters(), image_mean, image_std])

    # ---------------------------------------------------------------- weights
    def _prepare(self) -> dict:
        v, dt = self.vision, self.dtype
        dev = v.conv1.weight.device
        self.mkldnn = _mkldnn_ok(dev, dt)
        # bf16 on the CPU: two batched matmuls and a softmax took half the time of the fused
        # attention kernel (measured at 161 tokens, 12 heads); float32 and GPUs: the fused kernel
        self.explicit_attention = dev.type == "cpu" and dt == torch.bfloat16
        width, c, p, _ = v.conv1.weight.shape
        scale = 1.0 / (255.0 * _f32(self.image_std).view(c))  # folded in float32, then cast once
        shift = _f32(self.image_mean).view(c) * 255.0
        patch_w = (_f32(v.conv1.weight) * scale.view(1, c, 1, 1)).reshape(width, c * p * p)
        patch_b = -(patch_w.view(width, c, p * p) * shift.view(1, c, 1)).sum((1, 2))
        pos = _f32(v.positional_embedding)
        return {"patch_w": self._pack(patch_w.to(dt)), "patch_b": patch_b.to(dt),
                "patch_conv": patch_w.view(width, c, p, p).to(dt).contiguous(memory_format=torch.channels_last),
                "cls": (_f32(v.class_embedding) + pos[0]).to(dt), "pos": pos[1:].to(dt).contiguous(),
                "ln_pre": self._ln(v.ln_pre), "ln_post": self._ln(v.ln_post), "proj": _f32(v.proj).to(dt),
                "blocks": [self._block_weights(blk) for blk in v.transformer.resblocks]}

    def _block_weights(self, blk: nn.Module) -> dict:
        dt, a, fc, pr = self.dtype, blk.attn, blk.mlp.c_fc, blk.mlp.c_proj
        qkv_w, qkv_b = a.in_proj_weight.detach(), a.in_proj_bias.detach()
        if self.explicit_attention:  # the attention scale folded into the query projection
            q_scale = torch.ones(qkv_w.shape[0], 1, device=qkv_w.device)
            q_scale[: qkv_w.shape[1]] = (qkv_w.shape[1] // a.num_heads) ** -0.5
            qkv_w, qkv_b = _f32(qkv_w) * q_scale, _f32(qkv_b) * q_scale.view(-1)
        return {"ln_1": self._ln(blk.ln_1), "ln_2": self._ln(blk.ln_2, QUICK_GELU), "heads": a.num_heads,
                "qkv_w": self._pack(qkv_w.to(dt)), "qkv_b": qkv_b.to(dt),
                "out_w": self._pack(a.out_proj.weight.detach().to(dt)), "out_b": a.out_proj.bias.detach().to(dt),
                "fc_w": self._pack(fc.weight.detach().to(dt)), "fc_b": (_f32(fc.bias) * QUICK_GELU).to(dt),
                "proj_w": self._pack((_f32(pr.weight) / QUICK_GELU).to(dt)), "proj_b": pr.bias.detach().to(dt)}

    def _pack(self, w: torch.Tensor) -> torch.Tensor:
        """bf16 linear weights in oneDNN's blocked layout (5-8% faster products, measured; the bf16 weights
        are copies anyway). float32 keeps the parameters themselves: packing would copy them all."""
        if self.mkldnn and self.dtype == torch.bfloat16:
            return torch.ops.mkldnn._reorder_linear_weight(w, None)
        return w

    def _ln(self, ln: nn.Module, scale: float = 1.0) -> tuple:
        """LayerNorm arguments; `scale` multiplies its output (folded into its weight and bias)."""
        w, b = ln.weight.detach(), ln.bias.detach()
        if scale != 1.0:
            w, b = w.float() * scale, b.float() * scale
        return (ln.normalized_shape, w.to(self.dtype), b.to(self.dtype), ln.eps)

    # ---------------------------------------------------------------- forward
    def _linear(self, x, w, b, act: str = "none", residual=None):
        """x W^T + b, then swish (`act="swish"`) or + residual, fused into one oneDNN call on the CPU."""
        if self.mkldnn:
            if residual is not None:
                return torch.ops.mkldnn._linear_pointwise.binary(x, residual, w, b, "add")
            return torch.ops.mkldnn._linear_pointwise(x, w, b, act, [], "")
        y = F.linear(x, w, b)
        if act == "swish":
            return F.silu(y, inplace=True)
        return y.add_(residual) if residual is not None else y

    def embed_patches(self, frames: torch.Tensor, w: dict) -> torch.Tensor:
        """uint8 frames [N, 3, H, W] (any strides) -> patch embeddings [N * gh * gw, D] in `dtype`."""
        n, c, h, wd = frames.shape
        p = self.vision.conv1.kernel_size[0]
        if frames.permute(0, 2, 3, 1).is_contiguous():  # channels last (frames from [N, H, W, 3] arrays)
            # converted where they lie (one vectorised pass), then a channels-last convolution: cutting
            # this layout into patches first is a slow strided copy (measured 2x the time)
            y = F.conv2d(frames.to(self.dtype), w["patch_conv"], w["patch_b"], stride=p)  # [N, D, gh, gw]
            return y.permute(0, 2, 3, 1).reshape(n * (h // p) * (wd // p), -1)
        x = frames.unflatten(3, (wd // p, p)).unflatten(2, (h // p, p))  # [N, c, gh, p, gw, p]
        out = torch.empty(n, h // p, wd // p, c, p, p, dtype=self.dtype, device=frames.device)
        out.copy_(x.permute(0, 2, 4, 1, 3, 5))  # cut into patches and convert in one pass
        return self._linear(out.view(-1, c * p * p), w["patch_w"], w["patch_b"])

    def __call__(self, frames: torch.Tensor, tokens: bool = False):
        """uint8 RGB frames [N, 3, H, W] -> features [N, D] in float32; with `tokens`, (features, the
        last block's patch tokens after `ln_post` [N, L, width] in float32: open_clip's
        `forward_intermediates(normalize_intermediates=True)`), from the same pass."""
        w = self.weights.get()
        n = frames.shape[0]
        tok = self.embed_patches(frames, w)  # [N * L', D]
        d = tok.shape[-1]
        seq = w["pos"].shape[0] + 1
        x = torch.empty(n, seq, d, dtype=self.dtype, device=tok.device)
        x[:, 0] = w["cls"]
        torch.add(tok.view(n, seq - 1, d), w["pos"], out=x[:, 1:])
        x = F.layer_norm(x.view(n * seq, d), *w["ln_pre"])
        for b in w["blocks"]:
            x = self._block(x, b, n, seq, d)
        x = x.view(n, seq, d)
        avg = getattr(self.vision, "pool_type", "tok") == "avg"
        patches = F.layer_norm(x[:, 1:], *w["ln_post"]) if avg or tokens else None
        pooled = patches.mean(1) if avg else F.layer_norm(x[:, 0], *w["ln_post"])
        features = (pooled @ w["proj"]).float()
        return (features, patches.float()) if tokens else features

    def _block(self, x, b, n, seq, d):
        heads = b["heads"]
        h = F.layer_norm(x, *b["ln_1"])
        qkv = self._linear(h, b["qkv_w"], b["qkv_b"]).view(n, seq, 3, heads, d // heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)  # [N, heads, seq, head_dim] views
        if self.explicit_attention:  # q is already scaled
            a = torch.matmul(torch.matmul(q, k.transpose(-1, -2)).softmax(-1), v)
        else:
            a = F.scaled_dot_product_attention(q, k, v, scale=1.0 / math.sqrt(d // heads))
        a = a.transpose(1, 2).reshape(n * seq, d)  # SDPA wrote [N, seq, heads, head_dim]: then a view
        x = self._linear(a, b["out_w"], b["out_b"], residual=x)
        h = self._linear(F.layer_norm(x, *b["ln_2"]), b["fc_w"], b["fc_b"], act="swish")
        return self._linear(h, b["proj_w"], b["proj_b"], residual=x)
