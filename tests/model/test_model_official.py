"""Released-checkpoint loading: outputs match an independent reference, the layout, safety, errors."""

from __future__ import annotations

import logging
import os
import pickle
import warnings

import pytest
import torch

from mineclip.model import tokenize
from mineclip.model.official import (
    RELEASED_MD5,
    CheckpointError,
    UnsafeCheckpointError,
    load_official,
    official_key_map,
    official_state_dict,
    save_official,
)

from helpers import reference_official as ref
from helpers.official import released_layout

PROMPTS = ["hunt a cow", "chop a tree & collect wood", "combat a zombie at night"]


def rel_err(a: torch.Tensor, b: torch.Tensor) -> float:
    return ((a - b).norm() / b.norm()).item()


@pytest.mark.parametrize("pooling", ["attn", "avg"])
def test_full_size_outputs_match_official_reference(official_full, pooling):
    _, sd, model = official_full(pooling)
    g = torch.Generator().manual_seed(3)
    video = torch.randint(0, 256, (1, 2, 3, 160, 256), dtype=torch.uint8, generator=g)
    prompts = PROMPTS[:2]
    with torch.no_grad():
        frames = model.encode_frames(video)
        vid = model.aggregate(frames)  # = encode_video(video), checked on the tiny model
        txt = model.encode_text(prompts)
        logits = model.score(vid, txt)
        ref_frames = ref.frame_features(sd, video[0]).unsqueeze(0)
        ref_vid = ref.aggregate(sd, ref_frames)
        ref_txt = ref.text_features(sd, tokenize(prompts))
        ref_logits = ref.logits(sd, ref_vid, ref_txt)
    assert frames.shape == (1, 2, 512) and vid.shape == (1, 512) and txt.shape == (2, 512)
    assert rel_err(frames, ref_frames) < 1e-4
    assert rel_err(vid, ref_vid) < 1e-4
    assert rel_err(txt, ref_txt) < 1e-4
    assert rel_err(logits, ref_logits) < 1e-4


def test_full_size_parameter_counts_match_the_paper(official_full):
    assert official_full("avg")[2].num_parameters() == 150_118_402
    assert official_full("attn")[2].num_parameters() == 158_537_730


def test_pooling_detected_from_keys_and_metadata_objects_neutralised(official_full):
    assert official_full("attn")[2].config.temporal.pooling == "attn"
    assert official_full("avg")[2].config.temporal.pooling == "avg"  # file also held an argparse.Namespace
    assert official_full("attn")[2].checkpoint_info["released"] is False


def test_our_key_map_reproduces_the_released_layout(official_full):
    for pooling in ("attn", "avg"):
        layout = released_layout(pooling)
        model = official_full(pooling)[2]
        groups, state = official_key_map(model), model.state_dict()
        shapes = {name: list(state[k].shape) for k, names in groups.items() for name in names}
        assert shapes == {k: s for k, s in layout["keys"]}
        assert sorted(tuple(n) for n in groups.values() if len(n) > 1) == sorted(map(tuple, layout["aliases"]))


def test_save_official_writes_the_released_layout_so_a_full_round_trip_is_bit_exact(official_full):
    _, sd, model = official_full("attn")
    written = official_state_dict(model)  # what save_official pickles under "state_dict"
    layout = released_layout("attn")
    assert list(written) == ["model." + k for k, _ in layout["keys"]]  # same keys, same order
    assert all(torch.equal(written["model." + k], sd[k]) for k, _ in layout["keys"])
    vision = written["model.image_encoder.conv1.weight"]
    assert written["model.clip_model.vision_model.conv1.weight"] is vision  # aliases stored once


def test_save_then_load_is_bit_exact(tiny_model, tmp_path):
    save_official(tiny_model, tmp_path / "tiny.pth")
    assert "model.image_encoder.cls_token" in torch.load(tmp_path / "tiny.pth", weights_only=True)["state_dict"]
    again = load_official(tmp_path / "tiny.pth")
    for (name, a), b in zip(tiny_model.state_dict().items(), again.state_dict().values()):
        assert torch.equal(a, b), name


def test_tiny_round_trip_keeps_config_and_outputs(tiny_model, tmp_path, random_video):
    save_official(tiny_model, tmp_path / "tiny.pth")
    loaded = load_official(tmp_path / "tiny.pth")
    assert loaded.config == tiny_model.config
    with torch.no_grad():
        assert torch.equal(loaded.encode_video(random_video), tiny_model.encode_video(random_video))


def test_tiny_outputs_match_reference_with_released_code_path(tiny_model, tmp_path, random_video):
    save_official(tiny_model, tmp_path / "tiny.pth")
    sd = {k[6:]: v for k, v in torch.load(tmp_path / "tiny.pth", weights_only=True)["state_dict"].items()}
    tokens = tokenize(PROMPTS)
    with torch.no_grad():
        video = tiny_model.encode_video(random_video)
        text = tiny_model.encode_text(PROMPTS)
        ours = tiny_model.score(video, text)
        cfg = tiny_model.config
        feats = ref.frame_features(sd, random_video.flatten(0, 1), heads=cfg.vision.heads).view(2, 4, -1)
        ref_video = ref.aggregate(sd, feats, heads=cfg.temporal.heads)
        ref_text = ref.text_features(sd, tokens, heads=cfg.text.heads)
        theirs = ref.logits(sd, ref_video, ref_text)
        assert torch.equal(tiny_model.encode_text(tokens), text)
    assert rel_err(video, ref_video) < 1e-4 and rel_err(text, ref_text) < 1e-4
    assert rel_err(ours, theirs) < 1e-4


def test_md5_mismatch_is_reported_for_a_file_named_like_a_release(tiny_model, tmp_path):
    path = tmp_path / "attn.pth"
    save_official(tiny_model, path)
    with pytest.warns(UserWarning, match="does not match the released attn.pth"):
        load_official(path)
    with pytest.raises(CheckpointError, match=RELEASED_MD5["attn"]):
        load_official(path, strict_md5=True)


def test_md5_logged_for_other_files(tiny_model, tmp_path, caplog):
    path = tmp_path / "mine.pth"
    save_official(tiny_model, path)
    with caplog.at_level(logging.INFO, logger="mineclip.model.official"), warnings.catch_warnings():
        warnings.simplefilter("error")
        model = load_official(path)
    assert "not a released MineCLIP checkpoint" in caplog.text
    assert model.checkpoint_info["md5"] in caplog.text


# ------------------------------------------------------------------------------ bad checkpoints
@pytest.fixture
def tiny_official_sd(tiny_model, tmp_path):
    save_official(tiny_model, tmp_path / "base.pth")
    return torch.load(tmp_path / "base.pth", weights_only=True)


def test_missing_extra_and_wrong_shape_keys_are_listed(tiny_official_sd, tmp_path):
    sd = dict(tiny_official_sd["state_dict"])
    del sd["model.reward_head.video_adapter.3.bias"]
    sd["model.reward_head.text_adapter.0.weight"] = torch.zeros(3)
    sd["model.temporal_encoder.attn.model.norm.weight"] = torch.zeros(7)
    torch.save({**tiny_official_sd, "state_dict": sd}, tmp_path / "bad.pth")
    with pytest.raises(CheckpointError) as e:
        load_official(tmp_path / "bad.pth")
    msg = str(e.value)
    assert "missing keys (1): model.reward_head.video_adapter.3.bias" in msg
    assert "unexpected keys (1): model.reward_head.text_adapter.0.weight" in msg
    assert "model.temporal_encoder.attn.model.norm.weight expected [128] got [7]" in msg


def test_alias_keys_must_hold_equal_tensors(tiny_official_sd, tmp_path):
    sd = {k: v.clone() for k, v in tiny_official_sd["state_dict"].items()}  # separate storage: still fine
    torch.save({"state_dict": sd, "mineclip": tiny_official_sd["mineclip"]}, tmp_path / "copies.pth")
    load_official(tmp_path / "copies.pth")
    sd["model.clip_model.vision_model.ln_pre.bias"] += 1.0
    torch.save({"state_dict": sd, "mineclip": tiny_official_sd["mineclip"]}, tmp_path / "differ.pth")
    with pytest.raises(CheckpointError, match=r"model.clip_model.vision_model.ln_pre.bias != model.image_encoder.ln_pre.bias"):
        load_official(tmp_path / "differ.pth")


def test_checkpoint_of_another_model_is_refused_with_what_came(tmp_path):
    import torchvision

    torch.save(torchvision.models.resnet18().state_dict(), tmp_path / "resnet.pth")
    with pytest.raises(CheckpointError, match=r"not a MineCLIP checkpoint.*conv1.weight"):
        load_official(tmp_path / "resnet.pth")
    torch.save([1, 2, 3], tmp_path / "list.pth")
    with pytest.raises(CheckpointError, match="expected a MineCLIP checkpoint.*got list"):
        load_official(tmp_path / "list.pth")
    (tmp_path / "junk.pth").write_bytes(b"not a checkpoint at all")
    with pytest.raises(CheckpointError, match="could not read"):
        load_official(tmp_path / "junk.pth")
    with pytest.raises(FileNotFoundError):
        load_official(tmp_path / "absent.pth")


def test_unresized_position_table_is_refused_not_resized(tiny_official_sd, tmp_path):
    sd = dict(tiny_official_sd["state_dict"])
    for prefix in ("image_encoder.", "clip_model.vision_model.", "reward_head.clip_model.vision_model."):
        width = sd[f"model.{prefix}pos_embed"].shape[1]
        sd[f"model.{prefix}pos_embed"] = torch.zeros(197, width)  # a 224x224 table
    torch.save({**tiny_official_sd, "state_dict": sd}, tmp_path / "pos224.pth")
    with pytest.raises(CheckpointError, match=rf"model.image_encoder.pos_embed expected \[161, {width}\] got \[197, {width}\]"):
        load_official(tmp_path / "pos224.pth")


# ------------------------------------------------------------------------------ code in pickles
class _RunsCode:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


class _EvalsCode:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (eval, (f"open({str(self.marker)!r}, 'w').write('pwned')",))


class _HParams:
    """A config class that the loading process cannot (and must not) import."""

    def __init__(self):
        self.lr = 1e-4
        self.name = "run"


@pytest.mark.parametrize("payload", [_RunsCode, _EvalsCode])
def test_pickle_that_runs_code_is_refused_and_never_runs(tiny_official_sd, tmp_path, payload):
    marker = tmp_path / "side_effect"
    ckpt = {**tiny_official_sd, "hyper_parameters": {"x": payload(marker)}}
    torch.save(ckpt, tmp_path / "evil.pth")
    with pytest.raises(UnsafeCheckpointError, match="refused"):
        load_official(tmp_path / "evil.pth")
    assert not marker.exists()


@pytest.mark.filterwarnings("ignore:Detected pickle protocol")
def test_plain_pickle_with_code_is_refused(tmp_path):
    marker = tmp_path / "side_effect"
    with open(tmp_path / "evil_plain.pth", "wb") as f:
        pickle.dump({"state_dict": {}, "x": _RunsCode(marker)}, f)
    with pytest.raises(CheckpointError):
        load_official(tmp_path / "evil_plain.pth")
    assert not marker.exists()


def test_unknown_metadata_classes_become_inert_stand_ins(tiny_official_sd, tmp_path, caplog):
    from mineclip.model.safe_load import InertObject, safe_torch_load

    torch.save({**tiny_official_sd, "hparams": _HParams()}, tmp_path / "meta.pth")
    with caplog.at_level(logging.WARNING):
        model = load_official(tmp_path / "meta.pth")
    assert "_HParams" in caplog.text and "inert stand-ins" in caplog.text
    assert model.config.temporal.pooling == "attn"
    obj = safe_torch_load(tmp_path / "meta.pth")["hparams"]
    assert isinstance(obj, InertObject) and obj.state == {"lr": 1e-4, "name": "run"}


def test_python2_builtins_in_old_protocol_pickles_read_as_builtins_and_eval_is_still_refused(tiny_official_sd,
                                                                                             tmp_path):
    # DeepSpeed 0.15 writes its client state with protocol 2, which names builtins `__builtin__`
    from mineclip.model.safe_load import safe_torch_load

    # (a class weights_only refuses sends the file through the restricted unpickler)
    torch.save({**tiny_official_sd, "tags": {"a", "b"}, "hparams": _HParams()}, tmp_path / "old.pth",
               pickle_protocol=2)
    assert safe_torch_load(tmp_path / "old.pth")["tags"] == {"a", "b"}
    marker = tmp_path / "side_effect"
    torch.save({**tiny_official_sd, "x": _EvalsCode(marker)}, tmp_path / "old_evil.pth", pickle_protocol=2)
    with pytest.raises(UnsafeCheckpointError, match="refused to unpickle builtins.eval"):
        safe_torch_load(tmp_path / "old_evil.pth")
    assert not marker.exists()
