"""The inference forwards (fused frame encoder, lean aggregator and adapter) compute what the modules do."""

import pytest
import torch

from helpers.models import make_micro

from mineclip.model import build_model, fused


def randomised(model):
    """Non-trivial LayerNorm and adapter parameters (the defaults of 1 and 0 would hide folding errors)."""
    g = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.LayerNorm):
                m.weight.copy_(1 + 0.2 * torch.randn(m.weight.shape, generator=g))
                m.bias.copy_(0.2 * torch.randn(m.bias.shape, generator=g))
        model.adapter.residual_weight.fill_(0.5)
    return model


def frames(model, n=3, seed=0):
    h, w = model.config.vision.resolution
    return torch.randint(0, 256, (n, 3, h, w), dtype=torch.uint8, generator=torch.Generator().manual_seed(seed))


def module_features(model, x):
    with torch.enable_grad():  # gradients on: the module forward
        return model.encode_images(x).detach()


@pytest.mark.parametrize("name", ["micro", "tiny", "tiny, vision.pool avg"])
def test_fused_frame_encoder_equals_the_module_forward_in_float32(name):
    model = make_micro() if name == "micro" else build_model("tiny", vision={"pool": name.split()[-1]} if "pool" in name else {})
    model = randomised(model.eval())
    assert fused.supports(model.vision)
    x = frames(model)
    ref = module_features(model, x)
    channels_last = x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)  # what [N, H, W, 3] arrays give
    with torch.inference_mode():
        for got in (model.encode_images(x), model.encode_images(channels_last)):
            assert got.dtype == torch.float32
            assert (got - ref).abs().max() < 1e-5 * ref.abs().max()  # float rounding only


def test_fused_frame_encoder_without_onednn_equals_the_module_forward(monkeypatch):
    # the path GPUs and CPUs without oneDNN take: plain linear ops, the same folded weights
    model = randomised(make_micro())
    monkeypatch.setattr(fused, "_mkldnn_ok", lambda device, dtype: False)
    x = frames(model)
    with torch.no_grad():
        got = model.encode_images(x)
    ref = module_features(model, x)
    assert (got - ref).abs().max() < 1e-5 * ref.abs().max()


def test_bf16_frame_encoder_is_close_to_float32_and_returns_float32():
    model = randomised(make_micro())
    x = frames(model, n=4)
    ref = module_features(model, x)
    with torch.inference_mode():
        got = model.encode_images(x, torch.bfloat16)
    assert got.dtype == torch.float32
    assert torch.nn.functional.cosine_similarity(got, ref).min() > 0.999
    assert (got - ref).abs().max() < 0.05 * ref.abs().max()


def test_fused_weights_follow_parameter_updates():
    model, other = randomised(make_micro(seed=0)), make_micro(seed=1)
    x = frames(model)
    with torch.no_grad():
        before = model.encode_images(x)
        model.load_state_dict(other.state_dict())  # in place: the tensors' versions change
        after = model.encode_images(x)
        model.vision.transformer.resblocks[0].mlp.c_fc.weight.mul_(1.5)  # as an optimizer step would
        changed = model.encode_images(x)
    assert not torch.allclose(before, after)
    assert (after - module_features(other, x)).abs().max() < 1e-5
    assert (changed - module_features(model, x)).abs().max() < 1e-5 and not torch.allclose(after, changed)


def test_training_keeps_the_module_forward_and_its_gradients():
    model = make_micro()
    out = model.encode_images(frames(model))
    assert out.requires_grad
    out.sum().backward()
    assert model.vision.conv1.weight.grad is not None


def test_a_vision_tower_the_fused_forward_does_not_know_uses_the_module():
    from open_clip.transformer import VisionTransformer

    scaled = VisionTransformer(image_size=(32, 64), patch_size=16, width=32, layers=1, heads=2, mlp_ratio=2.0,
                               ls_init_value=0.1, output_dim=16)
    assert not fused.supports(scaled)
    assert fused.supports(make_micro().vision)


@pytest.mark.parametrize("pooling", ["attn", "avg"])
@pytest.mark.parametrize("frames_in_window", [1, 5, 16])
def test_inference_aggregator_and_adapter_equal_the_modules(pooling, frames_in_window):
    model = randomised(make_micro(pooling))
    with torch.no_grad():
        for p in model.temporal.parameters():
            p.add_(0.05 * torch.randn_like(p))
    x = torch.randn(3, frames_in_window, model.config.embed_dim)
    with torch.enable_grad():
        ref_video = model.aggregate(x).detach()
        ref_adapted = model.adapt(ref_video).detach()
    with torch.inference_mode():
        video = model.aggregate(x)
        adapted = model.adapt(ref_video)
    assert (video - ref_video).abs().max() < 1e-5
    assert (adapted - ref_adapted).abs().max() < 1e-6


@pytest.mark.parametrize("pool", ["tok", "avg"])
def test_patch_tokens_come_from_the_same_pass_and_equal_open_clips_intermediates(pool):
    # what the Percipient's head reads: the last block's patch tokens after ln_post
    model = randomised(build_model("tiny", vision={"pool": pool}).eval())
    x = frames(model)
    with torch.inference_mode():
        feats, tokens = model.encode_images(x, tokens=True)
        assert torch.equal(feats, model.encode_images(x))
        norm = ((x.float() / 255 - model.image_mean.view(1, 3, 1, 1)) / model.image_std.view(1, 3, 1, 1))
        ref = model.vision.forward_intermediates(norm, indices=1, normalize_intermediates=True,
                                                 intermediates_only=True, output_fmt="NLC")["image_intermediates"][0]
    h, w = model.config.vision.resolution
    assert tokens.shape == ref.shape == (3, (h // 16) * (w // 16), model.config.vision.width)
    assert (tokens - ref).abs().max() < 1e-4 * ref.abs().max()
    with torch.enable_grad():  # the module path gives the same pair
        f2, t2 = model.encode_images(x, tokens=True)
    assert (f2.detach() - feats).abs().max() < 1e-5 * feats.abs().max()
    assert (t2.detach() - tokens).abs().max() < 1e-4 * ref.abs().max()
