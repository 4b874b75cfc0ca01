"""The towers' activation and attention (`mineclip.model.layers`) against open_clip's and torch's own."""

import pytest
import torch
from open_clip.transformer import QuickGELU as OpenClipQuickGELU
from open_clip.transformer import TextTransformer, VisionTransformer
from torch import nn

from mineclip.model.config import get_config
from mineclip.model.layers import QuickGELU, SelfAttention, use_self_attention
from mineclip.model.towers import build_text_tower, build_vision_tower


def _grads(fn, *inputs):
    out = fn(*inputs)
    g = torch.randn_like(out, generator=torch.Generator().manual_seed(1))
    return out, torch.autograd.grad(out, inputs, g)


def test_quick_gelu_matches_open_clips_value_and_gradient():
    z = (torch.randn(4, 7, 33, generator=torch.Generator().manual_seed(0)) * 4).requires_grad_(True)
    ours, (g_ours,) = _grads(QuickGELU(), z)
    ref, (g_ref,) = _grads(OpenClipQuickGELU(), z)
    torch.testing.assert_close(ours, ref, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(g_ours, g_ref, rtol=1e-5, atol=1e-6)
    assert isinstance(QuickGELU(), OpenClipQuickGELU)  # the fused inference forward recognises it


def _pair(width=24, heads=3):
    torch.manual_seed(0)
    ref = nn.MultiheadAttention(width, heads, batch_first=True)
    ours = nn.MultiheadAttention(width, heads, batch_first=True)
    ours.load_state_dict(ref.state_dict())
    use_self_attention(ours)
    with torch.no_grad():  # biases are zero at init: make them count
        for p in list(ref.parameters()):
            p.add_(torch.randn_like(p) * 0.1)
        ours.load_state_dict(ref.state_dict())
    return ours, ref


@pytest.mark.parametrize("mask", [None, "causal_float", "causal_bool"])
def test_self_attention_matches_torchs_in_output_and_every_gradient(mask):
    ours, ref = _pair()
    assert type(ours) is SelfAttention and ours.state_dict().keys() == ref.state_dict().keys()
    n, length = 5, 9
    x = torch.randn(n, length, 24, generator=torch.Generator().manual_seed(2), requires_grad=True)
    attn_mask = None
    if mask == "causal_float":  # open_clip's text mask: -inf above the diagonal
        attn_mask = torch.full((length, length), float("-inf")).triu_(1)
    elif mask == "causal_bool":
        attn_mask = torch.ones(length, length, dtype=torch.bool).triu_(1)
    g = torch.randn(n, length, 24, generator=torch.Generator().manual_seed(3))
    outs = []
    for m in (ours, ref):
        out = m(x, x, x, need_weights=False, attn_mask=attn_mask)[0]
        grads = torch.autograd.grad(out, [x, *m.parameters()], g)
        outs.append((out, grads))
    torch.testing.assert_close(outs[0][0], outs[1][0], rtol=1e-5, atol=1e-5)
    for a, b in zip(outs[0][1], outs[1][1]):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)


def test_self_attention_leaves_other_calls_to_torch():
    ours, ref = _pair()
    x = torch.randn(2, 6, 24, generator=torch.Generator().manual_seed(2))
    y = torch.randn(2, 4, 24, generator=torch.Generator().manual_seed(3))
    out, weights = ours(x, x, x)  # attention weights asked for
    ref_out, ref_weights = ref(x, x, x)
    torch.testing.assert_close(weights, ref_weights)
    torch.testing.assert_close(out, ref_out)
    torch.testing.assert_close(ours(x, y, y, need_weights=False)[0], ref(x, y, y, need_weights=False)[0])  # cross
    pad = torch.zeros(2, 6, dtype=torch.bool)
    pad[:, -2:] = True
    torch.testing.assert_close(ours(x, x, x, key_padding_mask=pad, need_weights=False)[0],
                               ref(x, x, x, key_padding_mask=pad, need_weights=False)[0])


def test_towers_use_the_layers_and_draw_the_same_initial_weights():
    cfg = get_config("micro")
    torch.manual_seed(0)
    vision, text = build_vision_tower(cfg.vision, cfg.embed_dim), build_text_tower(cfg.text, cfg.embed_dim)
    torch.manual_seed(0)  # the same towers from open_clip's classes alone
    plain_vision = VisionTransformer(image_size=tuple(cfg.vision.resolution), patch_size=cfg.vision.patch_size,
                                     width=cfg.vision.width, layers=cfg.vision.layers, heads=cfg.vision.heads,
                                     mlp_ratio=cfg.vision.mlp_ratio, output_dim=cfg.embed_dim,
                                     pool_type=cfg.vision.pool, act_layer=OpenClipQuickGELU)
    plain_text = TextTransformer(context_length=cfg.text.context_length, vocab_size=cfg.text.vocab_size,
                                 width=cfg.text.width, heads=cfg.text.heads, layers=cfg.text.layers,
                                 output_dim=cfg.embed_dim, act_layer=OpenClipQuickGELU)
    for ours, plain in ((vision, plain_vision), (text, plain_text)):
        attns = [m for m in ours.modules() if isinstance(m, nn.MultiheadAttention)]
        assert attns and all(type(m) is SelfAttention for m in attns)
        assert all(type(b.mlp.gelu) is QuickGELU for b in ours.transformer.resblocks)
        a, b = ours.state_dict(), plain.state_dict()
        assert a.keys() == b.keys()
        assert all(torch.equal(a[k], b[k]) for k in a)
