"""Two of open_clip's layers with forwards that make fewer passes over memory, for training.

The tiny configs' towers are narrow (a 64-wide ViT over 161 tokens of 256 frames a step), so a
CPU training step is bound by elementwise passes and copies, not by matrix multiplies. Two layers
spent about a third of the frame encoder's forward and backward on them:

- `QuickGELU` z * sigmoid(1.702 z): autograd keeps the product's pieces and its backward makes five
  passes over the 4x-wide hidden layer; here it is silu(1.702 z) / 1.702, which keeps only 1.702 z
  and whose backward is one `silu_backward` on it (the same function; rounding differs by ~1 ulp).
- `nn.MultiheadAttention` self-attention (batch-first, packed in-projection): torch's functional
  form transposes the batch to [L, N, E], splits q, k, v into a fresh [3, L, N, E] copy, and its
  backward zero-fills and adds three such buffers; `SelfAttention` hands views of the one
  in-projection output to `scaled_dot_product_attention` (the same kernel the functional form
  calls), whose backward is one stack.

Both keep the modules' parameters and state-dict keys (checkpoints and released weights load as
before) and fall back to the parent's forward for anything else (cross-attention, masks by key,
attention weights, dropout, not batch-first). `python bench/layers.py` measures them against the
parents in one run; their outputs and gradients are tested against the parents'.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from open_clip.transformer import QuickGELU as OpenClipQuickGELU
from torch import nn

QUICK_GELU = 1.702  # QuickGELU(z) = z * sigmoid(1.702 z) = silu(1.702 z) / 1.702


class _QuickGELUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, z: torch.Tensor) -> torch.Tensor:
        scaled = z * QUICK_GELU
        ctx.save_for_backward(scaled)  # rather than z: the backward needs only 1.702 z
        return F.silu(scaled).mul_(1.0 / QUICK_GELU)

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> torch.Tensor:
        (scaled,) = ctx.saved_tensors
        return torch.ops.aten.silu_backward(grad, scaled)  # d/dz silu(a z) / a = silu'(a z)


class QuickGELU(OpenClipQuickGELU):
    """CLIP's activation z * sigmoid(1.702 z), computed as silu(1.702 z) / 1.702 with a one-pass
    backward (a subclass of open_clip's, so code that asks `isinstance(..., QuickGELU)` still sees it)."""

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        return _QuickGELUFunction.apply(z)


class SelfAttention(nn.MultiheadAttention):
    """`nn.MultiheadAttention` whose batch-first self-attention runs on views of the packed
    in-projection: no transposed copies of the batch and of q, k, v, and a backward without the
    zero-filled [3, ...] buffers. The same parameters, the same function; other calls go to the parent."""

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        if (key_padding_mask is not None or need_weights or is_causal or not self.batch_first
                or not self._qkv_same_embed_dim or self.in_proj_bias is None or self.bias_k is not None
                or (self.dropout and self.training) or query.ndim != 3
                or key is not query or value is not query or not torch.is_grad_enabled()):
            # inference keeps torch's fused fast path; anything unusual keeps the general form
            return super().forward(query, key, value, key_padding_mask=key_padding_mask, need_weights=need_weights,
                                   attn_mask=attn_mask, average_attn_weights=average_attn_weights,
                                   is_causal=is_causal)
        n, length, width = query.shape
        heads = self.num_heads
        qkv = F.linear(query, self.in_proj_weight, self.in_proj_bias)
        q, k, v = qkv.view(n, length, 3, heads, width // heads).permute(2, 0, 3, 1, 4).unbind(0)  # [N, H, L, D]
        if attn_mask is not None:  # torch's: True = may not attend, or added; sdpa's: True = may attend
            attn_mask = ~attn_mask if attn_mask.dtype == torch.bool else attn_mask.to(q.dtype)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask)
        out = out.transpose(1, 2).reshape(n, length, width)
        return F.linear(out, self.out_proj.weight, self.out_proj.bias), None


def use_self_attention(module: nn.Module) -> nn.Module:
    """Give every `nn.MultiheadAttention` inside `module` the forward of `SelfAttention`, in place
    (the same objects and parameters: no new weights are drawn, so a model built with the same seed
    has the same initial weights as with torch's class). Returns `module`."""
    for m in module.modules():
        if type(m) is nn.MultiheadAttention:
            m.__class__ = SelfAttention
    return module
