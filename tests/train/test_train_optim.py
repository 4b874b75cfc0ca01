import math

import pytest
import torch

from mineclip.model import MineCLIP
from mineclip.model import get_config
from mineclip.train.optim import OptimizerSettings, build_optimizer, build_scheduler, cosine_with_warmup, param_groups

from helpers.models import MICRO


def _lr_of(groups, name):
    return next(g for g in groups if name in g["names"])


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    return MineCLIP(get_config(MICRO))  # 2 blocks per tower, everything trains


def test_layer_decay_counts_blocks_from_the_top_of_each_tower(model):
    groups = param_groups(model, OptimizerSettings(lr=1.0, layer_decay=0.5))
    lr = lambda n: _lr_of(groups, n)["lr"]  # noqa: E731
    for tower in ("vision", "text"):
        assert lr(f"{tower}.transformer.resblocks.1.attn.in_proj_weight") == pytest.approx(0.5)
        assert lr(f"{tower}.transformer.resblocks.0.attn.in_proj_weight") == pytest.approx(0.25)
        assert lr(f"{tower}.positional_embedding") == pytest.approx(0.125)  # embeddings deepest
    assert lr("vision.conv1.weight") == pytest.approx(0.125)
    assert lr("text.token_embedding.weight") == pytest.approx(0.125)
    assert lr("vision.proj") == pytest.approx(1.0) and lr("text.ln_final.weight") == pytest.approx(1.0)
    for name in ("temporal.encoder.final_norm.weight", "adapter.mlp.0.weight", "logit_scale"):
        assert lr(name) == pytest.approx(1.0)


def test_pretrained_multiplier_applies_only_to_pretrained_parts(model):
    groups = param_groups(model, OptimizerSettings(lr=1.0, layer_decay=1.0, pretrained_lr_mult=0.5), pretrained=("vision", "text"))
    assert _lr_of(groups, "vision.proj")["lr"] == pytest.approx(0.5)
    assert _lr_of(groups, "text.token_embedding.weight")["lr"] == pytest.approx(0.5)
    assert _lr_of(groups, "adapter.mlp.0.weight")["lr"] == pytest.approx(1.0)
    assert _lr_of(groups, "temporal.encoder.final_norm.weight")["lr"] == pytest.approx(1.0)


def test_no_weight_decay_on_norms_biases_embeddings_and_logit_scale(model):
    groups = param_groups(model, OptimizerSettings(weight_decay=0.2))
    wd = lambda n: _lr_of(groups, n)["weight_decay"]  # noqa: E731
    for name in ("logit_scale", "vision.ln_pre.weight", "vision.transformer.resblocks.0.attn.in_proj_bias",
                 "text.token_embedding.weight", "text.positional_embedding", "vision.class_embedding",
                 "temporal.pos_emb.emb.weight", "adapter.residual_weight", "adapter.mlp.0.bias"):
        assert wd(name) == 0.0, name
    for name in ("vision.conv1.weight", "text.transformer.resblocks.1.mlp.c_fc.weight", "adapter.mlp.0.weight", "vision.proj"):
        assert wd(name) == 0.2, name


def test_frozen_parameters_are_not_given_to_the_optimizer():
    model = MineCLIP(get_config(MICRO, trainable_blocks=1))
    frozen = {n for n, p in model.named_parameters() if not p.requires_grad}
    assert "vision.transformer.resblocks.0.attn.in_proj_weight" in frozen and "text.token_embedding.weight" in frozen
    opt = build_optimizer(model)
    names = {n for g in opt.param_groups for n in g["names"]}
    assert names.isdisjoint(frozen)
    assert names == {n for n, p in model.named_parameters() if p.requires_grad}
    assert opt.defaults["betas"] == (0.9, 0.98)


def test_schedule_warms_up_linearly_then_follows_cosine_to_final_lr():
    peak, final, warm, total = 1.5e-4, 1e-5, 500, 10_000
    f = lambda s: peak * cosine_with_warmup(s, total, warm, peak, final)  # noqa: E731
    assert f(0) == pytest.approx(peak / warm)
    assert f(249) == pytest.approx(peak / 2)
    assert f(499) == pytest.approx(peak)
    mid = warm + (total - warm) // 2
    assert f(mid) == pytest.approx((peak + final) / 2, rel=1e-3)
    assert f(total) == pytest.approx(final) and f(total + 100) == pytest.approx(final)
    values = [f(s) for s in range(warm, total)]
    assert all(a >= b for a, b in zip(values, values[1:]))


def test_scheduler_scales_every_group_by_its_share_of_the_peak(model):
    s = OptimizerSettings(lr=1e-3, final_lr=1e-4, warmup_steps=2)
    opt = build_optimizer(model, s)
    sched = build_scheduler(opt, total_steps=10, settings=s)
    for _ in range(6):
        opt.step()
        sched.step()
    factor = cosine_with_warmup(6, 10, 2, 1e-3, 1e-4)
    for g in opt.param_groups:
        assert g["lr"] == pytest.approx(1e-3 * g["lr_scale"] * factor)
    assert not math.isnan(factor)


def test_the_optimizer_is_torchs_fused_adamw_where_the_parameters_allow(model):
    """One kernel over every parameter instead of a Python loop (7% of the tiny default's CPU step);
    a set it cannot step (integer tensors here) falls back to the loop rather than failing."""
    from mineclip.train.optim import fused_supported

    opt = build_optimizer(model)
    assert isinstance(opt, torch.optim.AdamW) and opt.defaults["fused"] is True
    before = [p.detach().clone() for p in model.parameters()]
    for p in model.parameters():
        p.grad = torch.ones_like(p)
    opt.step()
    assert all(not torch.equal(a, p) for a, p in zip(before, model.parameters()))
    assert not fused_supported([{"params": [torch.zeros(2, dtype=torch.long)]}])
