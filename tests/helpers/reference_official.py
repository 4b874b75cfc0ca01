"""Independent plain-torch forward of the official MineCLIP, straight from a released-layout state dict.

Written from the public MineDojo/MineCLIP source (clip.py, pooling.py, head.py, base.py) and
x-transformers 0.27.1 semantics, without any of the library's modules, so that tests compare the
library against something it does not share code with. Keys are without the `model.` prefix.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

MEAN = torch.tensor((0.3331, 0.3245, 0.3051)).view(1, 3, 1, 1)
STD = torch.tensor((0.2439, 0.2493, 0.2873)).view(1, 3, 1, 1)


def _ln(x, sd, p):
    return F.layer_norm(x, x.shape[-1:], sd[p + ".weight"], sd[p + ".bias"], eps=1e-5)


def _mha(x, sd, p, heads, causal):
    """nn.MultiheadAttention with packed in_proj, as in CLIP's ResidualAttentionBlock."""
    b, n, d = x.shape
    q, k, v = (x @ sd[p + ".in_proj_weight"].t() + sd[p + ".in_proj_bias"]).chunk(3, dim=-1)
    q, k, v = (t.reshape(b, n, heads, d // heads).transpose(1, 2) for t in (q, k, v))
    dots = (q @ k.transpose(-1, -2)) * (d // heads) ** -0.5
    if causal:
        dots = dots + torch.full((n, n), float("-inf")).triu(1)
    out = (dots.softmax(-1) @ v).transpose(1, 2).reshape(b, n, d)
    return out @ sd[p + ".out_proj.weight"].t() + sd[p + ".out_proj.bias"]


def _block(x, sd, p, heads, causal=False):
    x = x + _mha(_ln(x, sd, p + ".ln_1"), sd, p + ".attn", heads, causal)
    h = _ln(x, sd, p + ".ln_2") @ sd[p + ".mlp.c_fc.weight"].t() + sd[p + ".mlp.c_fc.bias"]
    h = h * torch.sigmoid(1.702 * h)  # QuickGELU
    return x + h @ sd[p + ".mlp.c_proj.weight"].t() + sd[p + ".mlp.c_proj.bias"]


def _n_blocks(sd, prefix):
    return len({k[len(prefix):].split(".")[0] for k in sd if k.startswith(prefix)})


def frame_features(sd, frames, heads=None, prefix="image_encoder"):
    """uint8 [N, 3, H, W] -> [N, D]: projected, ln_post-ed CLS token."""
    x = (frames.float() / 255.0 - MEAN) / STD
    w = sd[prefix + ".conv1.weight"]
    width, patch = w.shape[0], w.shape[-1]
    x = F.conv2d(x, w, stride=patch).flatten(2).transpose(1, 2)
    cls = sd[prefix + ".cls_token"].expand(x.shape[0], 1, width)
    x = torch.cat([cls, x], dim=1) + sd[prefix + ".pos_embed"]
    x = _ln(x, sd, prefix + ".ln_pre")
    for i in range(_n_blocks(sd, prefix + ".blocks.")):
        x = _block(x, sd, f"{prefix}.blocks.{i}", heads=heads or width // 64)
    return _ln(x[:, 0], sd, prefix + ".ln_post") @ sd[prefix + ".projection"]


def text_features(sd, tokens, heads=8, prefix="clip_model.text_model"):
    x = sd[prefix + ".token_embedding.weight"][tokens] + sd[prefix + ".pos_embed"]
    for i in range(_n_blocks(sd, prefix + ".blocks.")):
        x = _block(x, sd, f"{prefix}.blocks.{i}", heads=heads, causal=True)
    x = _ln(x, sd, prefix + ".ln_final")
    return x[torch.arange(x.shape[0]), tokens.argmax(dim=-1)] @ sd[prefix + ".projection"]


def aggregate(sd, feats, heads=8):
    """x-transformers 0.27.1 ContinuousTransformerWrapper(Encoder(glu, swish)) + mean, or plain mean."""
    p = "temporal_encoder.attn.model."
    if p + "norm.weight" not in sd:
        return feats.mean(dim=1)
    b, t, d = feats.shape
    x = feats + sd[p + "pos_emb.emb.weight"][:t] * d ** -0.5
    n_layers = _n_blocks(sd, p + "attn_layers.layers.")
    for j in range(n_layers):
        q = f"{p}attn_layers.layers.{j}."
        h = _ln(x, sd, q + "0.0")
        if j % 2 == 0:  # attention, no bias, scale dim_head ** -0.5
            qq, kk, vv = (h @ sd[f"{q}1.to_{n}.weight"].t() for n in "qkv")
            dh = qq.shape[-1] // heads
            qq, kk, vv = (z.reshape(b, t, heads, dh).transpose(1, 2) for z in (qq, kk, vv))
            att = ((qq @ kk.transpose(-1, -2)) * dh ** -0.5).softmax(-1)
            out = (att @ vv).transpose(1, 2).reshape(b, t, -1) @ sd[q + "1.to_out.weight"].t()
        else:  # GLU feed-forward: value * silu(gate)
            val, gate = (h @ sd[q + "1.net.0.proj.weight"].t() + sd[q + "1.net.0.proj.bias"]).chunk(2, -1)
            out = (val * F.silu(gate)) @ sd[q + "1.net.3.weight"].t() + sd[q + "1.net.3.bias"]
        x = x + out
    return _ln(x, sd, p + "norm").mean(dim=1)


def logits(sd, video_feats, text_feats):
    """CLIPScoreHead: residual video adapter, then CLIP's cosine logits times exp(logit_scale)."""
    a = "reward_head.video_adapter."
    hidden = F.relu(video_feats @ sd[a + "0.weight"].t() + sd[a + "0.bias"])
    mlp = hidden @ sd[a + "3.weight"].t() + sd[a + "3.bias"]
    r = torch.sigmoid(sd["reward_head.video_residual_weight"])
    v = r * video_feats + (1 - r) * mlp
    v = v / v.norm(dim=1, keepdim=True)
    t = text_feats / text_feats.norm(dim=1, keepdim=True)
    return sd["reward_head.clip_model.logit_scale"].exp() * v @ t.t()
