"""The model's API: shapes, frame counts, trainable setting, logit scale, and errors on bad input."""

from __future__ import annotations

import json
import math

import pytest
import torch

from mineclip.model import MineCLIP, build_model, get_config


def test_tiny_config_has_a_few_million_parameters(tiny_model):
    assert 1_000_000 < tiny_model.num_parameters() < 20_000_000
    assert tiny_model.num_parameters() == 7_876_738


def test_attn_pooling_takes_any_frame_count_from_1_to_32(tiny_model):
    for frames in range(1, 33):
        with torch.no_grad():
            out = tiny_model.aggregate(torch.randn(2, frames, 128))
        assert out.shape == (2, 128) and torch.isfinite(out).all(), frames


def test_encoders_and_score_shapes(tiny_model, random_video):
    with torch.no_grad():
        frames = tiny_model.encode_frames(random_video)
        video = tiny_model.encode_video(random_video)
        text = tiny_model.encode_text(["hunt a cow", "chop a tree", "swim"])
        logits = tiny_model.score(video, text)
    assert frames.shape == (2, 4, 128) and video.shape == (2, 128) and text.shape == (3, 128)
    assert logits.shape == (2, 3)
    assert torch.allclose(video, tiny_model.aggregate(frames))
    assert logits.abs().max() <= math.exp(tiny_model.logit_scale.item()) + 1e-4


def test_default_trainable_setting_trains_last_two_blocks_aggregator_adapter_and_scale(random_video):
    model = MineCLIP(get_config("tiny", trainable_blocks=2))
    model.score(model.encode_video(random_video), model.encode_text(["hunt a cow", "swim"])).sum().backward()
    trains = {n for n, p in model.named_parameters() if p.requires_grad}
    for n, p in model.named_parameters():
        assert (p.grad is not None) == (n in trains), n  # frozen ones get no grad
    assert "logit_scale" in trains and "adapter.residual_weight" in trains
    assert all(n in trains for n, _ in model.temporal.named_parameters(prefix="temporal"))
    for tower, layers in (("vision", model.config.vision.layers), ("text", model.config.text.layers)):
        for i in range(layers):
            block = f"{tower}.transformer.resblocks.{i}.ln_1.weight"
            assert (block in trains) == (i >= layers - 2), block
    assert "vision.conv1.weight" not in trains and "text.token_embedding.weight" not in trains
    assert "vision.proj" in trains and "text.text_projection" in trains


def test_trainable_setting_all_and_none():
    model = build_model("tiny_avg")
    model.set_trainable(-1)
    assert all(p.requires_grad for p in model.parameters())
    model.set_trainable(0)
    trains = {n for n, p in model.named_parameters() if p.requires_grad}
    assert trains == {"logit_scale", "adapter.residual_weight", "adapter.mlp.0.weight", "adapter.mlp.0.bias",
                      "adapter.mlp.3.weight", "adapter.mlp.3.bias"}


def test_logit_scale_starts_at_log_1_over_007_and_clamps_to_log_100():
    model = build_model("tiny_avg")
    assert model.logit_scale.item() == pytest.approx(math.log(1 / 0.07))
    with torch.no_grad():
        model.logit_scale.fill_(7.0)
    model.clamp_logit_scale()
    assert model.logit_scale.item() == pytest.approx(math.log(100))


def test_avg_pooling_is_the_mean_over_frames():
    model = build_model("tiny_avg")
    x = torch.randn(2, 5, 128)
    assert torch.allclose(model.aggregate(x), x.mean(1))


def test_frame_pool_avg_embeds_the_mean_patch_token_and_travels_with_an_artifact(tmp_path):
    from mineclip.model.artifact import load_artifact, save_artifact

    model = build_model("micro", vision={"pool": "avg"}).eval()
    assert model.vision.pool_type == "avg" and build_model("micro").vision.pool_type == "tok"
    x = torch.randint(0, 256, (2, 3, *model.config.vision.resolution), dtype=torch.uint8)
    with torch.enable_grad():  # the module forward, against the mean of the ln_post'd patch tokens by hand
        v = model.vision
        h = (x.float() - model.image_mean * 255) / (model.image_std * 255)
        t = v.conv1(h).flatten(2).transpose(1, 2)
        t = torch.cat([v.class_embedding.expand(len(t), 1, -1), t], 1) + v.positional_embedding
        t = v.ln_post(v.transformer(v.ln_pre(t)))
        assert torch.allclose(model.encode_images(x), t[:, 1:].mean(1) @ v.proj, atol=1e-5)
    save_artifact(model, tmp_path / "a")
    back = load_artifact(tmp_path / "a")
    assert back.config.vision.pool == "avg"
    with torch.inference_mode():
        assert torch.allclose(back.encode_images(x), model.encode_images(x), atol=1e-6)


def test_blanked_bottom_rows_are_never_seen_on_either_path_and_travel_with_an_artifact(tmp_path):
    from mineclip.model.artifact import load_artifact, save_artifact

    model = build_model("micro", vision={"blank_bottom": 5}).eval()
    h, w = model.config.vision.resolution
    x = torch.randint(0, 256, (3, 3, h, w), dtype=torch.uint8, generator=torch.Generator().manual_seed(0))
    other_bar = x.clone()
    other_bar[..., -5:, :] = 255 - other_bar[..., -5:, :]
    above = x.clone()
    above[..., -6, :] = 255 - above[..., -6, :]
    kept = x.clone()
    for grad in (True, False):  # the module forward (training) and the fused one (inference)
        with torch.set_grad_enabled(grad):
            f = model.encode_images(x)
            assert torch.equal(model.encode_images(other_bar), f)
            assert not torch.allclose(model.encode_images(above), f)
    assert torch.equal(x, kept)  # the caller's frames are not written to
    # what it sees there is the mean colour: the same weights without blanking, on frames drawn so
    plain = build_model("micro").eval()
    plain.load_state_dict(model.state_dict())
    mean_bar = x.clone()
    mean_bar[..., -5:, :] = torch.tensor([85, 83, 78], dtype=torch.uint8).view(3, 1, 1)  # MC_IMAGE_MEAN x 255
    with torch.no_grad():
        assert torch.equal(plain.encode_images(mean_bar), model.encode_images(x))
    save_artifact(model, tmp_path / "a")
    back = load_artifact(tmp_path / "a")
    assert back.config.vision.blank_bottom == 5
    config = json.loads((tmp_path / "a" / "config.json").read_text())
    assert config["normalisation"]["blank_bottom"]["rows"] == 5  # for readers that preprocess themselves
    assert "bottom 5 rows" in (tmp_path / "a" / "README.md").read_text()
    with torch.inference_mode():
        assert torch.equal(back.encode_images(other_bar), back.encode_images(x))


@pytest.mark.parametrize("rows", [-1, 160, 2.5, True, "16"])
def test_blanking_more_rows_than_the_frame_has_is_refused(rows):
    with pytest.raises(ValueError, match=r"vision.blank_bottom is a number of frame rows in \[0, 160\)"):
        get_config("tiny", vision={"blank_bottom": rows})


def test_an_unknown_frame_pool_is_refused():
    with pytest.raises(ValueError, match="vision.pool must be one of"):
        get_config("micro", vision={"pool": "max"})


# ----------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "video, expected",
    [
        (torch.zeros(2, 4, 3, 160, 256), r"expected uint8 video \[B, T, 3, 160, 256\], got float32 \[2, 4, 3, 160, 256\]"),
        (torch.zeros(2, 3, 224, 224, dtype=torch.uint8), r"got uint8 \[2, 3, 224, 224\]"),
        (torch.zeros(1, 4, 3, 224, 224, dtype=torch.uint8), r"expected uint8 video .* got uint8 \[1, 4, 3, 224, 224\]"),
        (torch.zeros(1, 4, 160, 256, 3, dtype=torch.uint8), r"got uint8 \[1, 4, 160, 256, 3\]"),
    ],
    ids=["float", "4d", "resolution", "channels-last"],
)
def test_bad_videos_say_what_was_expected_and_what_came(tiny_model, video, expected):
    with pytest.raises(ValueError, match=expected):
        tiny_model.encode_frames(video)


def test_more_than_32_frames_is_refused_for_attn(tiny_model):
    with pytest.raises(ValueError, match="expected 1 to 32 frames for attn pooling, got 33"):
        tiny_model.aggregate(torch.randn(1, 33, 128))
    with pytest.raises(ValueError, match="expected 1 to 32 frames, got 33"):
        tiny_model.encode_video(torch.zeros(1, 33, 3, 160, 256, dtype=torch.uint8))


def test_bad_features_and_prompts_are_refused(tiny_model):
    with pytest.raises(ValueError, match=r"expected frame features \[B, T, 128\], got \[2, 128\]"):
        tiny_model.aggregate(torch.randn(2, 128))
    with pytest.raises(ValueError, match="expected at least one prompt, got an empty list"):
        tiny_model.encode_text([])
    with pytest.raises(TypeError, match="got a single str"):
        tiny_model.encode_text("hunt a cow")
    with pytest.raises(ValueError, match=r"expected int64 tokens \[N, 77\]"):
        tiny_model.encode_text(torch.zeros(2, 10, dtype=torch.long))
    with pytest.raises(ValueError, match=r"expected video features \[\*, 128\], got \[2, 512\]"):
        tiny_model.score(torch.randn(2, 512), torch.randn(3, 128))
    with pytest.raises(TypeError, match="expected a uint8 torch.Tensor video"):
        tiny_model.encode_frames([[0]])


def test_padding_after_the_longest_prompt_is_dropped_without_changing_features(tiny_model):
    from mineclip.model import tokenize
    from mineclip.model.towers import trim_padding

    texts = ["chop a tree", "okay so, i'm chopping this tree, then placing a stone block, cows around"]
    tokens = tokenize(texts)
    trimmed = trim_padding(tokens)
    assert trimmed.shape[1] == 32 and torch.equal(trimmed, tokens[:, :32])  # 20-odd tokens -> 2 x 16
    with torch.no_grad():
        full = tiny_model.text(tokens)  # all 77 positions
        assert torch.allclose(tiny_model.encode_text(texts), full, atol=1e-5)
        assert torch.allclose(tiny_model.text(trimmed), full, atol=1e-5)
    assert trim_padding(tokenize(["x" * 400])).shape[1] == 77  # a prompt that fills the context keeps it all
