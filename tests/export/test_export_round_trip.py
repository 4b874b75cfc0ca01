"""Export: checkpoint -> artifact -> RewardModel gives bit-identical scores; loading never runs code."""

import json
import os
import pickle

import pytest
import torch

from mineclip.model.artifact import load_artifact
from mineclip.model.load import load_checkpoint
from mineclip.export.cli import main as export_main
from mineclip.reward import RewardModel

from helpers.models import MICRO_RES, make_micro

TEXTS = ["chop a tree", "drink water", "hunt a cow"]


def clip(n=1, t=16, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, 256, (n, t, 3, *MICRO_RES), dtype=torch.uint8, generator=g)


@pytest.fixture(scope="module")
def lightning_ckpt(tmp_path_factory):
    """A checkpoint as MineCLIPModule + Lightning write it (with pickled hyper-parameters)."""
    from mineclip.train.module import MineCLIPModule

    torch.manual_seed(0)
    module = MineCLIPModule(model_config="tiny", model_overrides={"vision": {"resolution": list(MICRO_RES)}}).eval()
    with torch.no_grad():  # move off the initialisation so that the round trip is a real check
        for p in module.model.parameters():
            p.add_(torch.randn_like(p) * 0.01)
    ckpt = {"state_dict": module.state_dict(), "epoch": 3, "global_step": 120,
            "hyper_parameters": module.hparams}
    module.on_save_checkpoint(ckpt)
    ckpt["mineclip"]["metrics"] = {"val/R@1_mean": 0.42}
    ckpt["mineclip"]["data"] = {"train_urls": "shards/train-{000000..000003}.tar"}
    path = tmp_path_factory.mktemp("ckpt") / "last.ckpt"
    torch.save(ckpt, path)
    return path, module


def test_lightning_checkpoint_exports_to_an_artifact_with_bit_identical_scores(lightning_ckpt, tmp_path):
    path, module = lightning_ckpt
    out = tmp_path / "artifact"
    assert export_main([str(path), "--out", str(out), "--name", "micro"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "config.json", "model.safetensors"]
    config = json.loads((out / "config.json").read_text())
    from mineclip.model import ModelConfig

    assert ModelConfig.from_dict(config["architecture"]) == module.model.config
    assert config["frames"]["window"] == 16 and config["resolution"]["height"] == MICRO_RES[0]
    assert config["normalisation"]["mean"] == list(module.model.config.image_mean)
    assert config["tokenizer"]["context_length"] == 77
    card = (out / "README.md").read_text()
    assert "val/R@1_mean" in card and "train-{000000..000003}" in card and "RewardModel.load" in card

    rm = RewardModel.load(out, precision="fp32")  # compared with float32 to 1e-6
    video = clip(2)
    with torch.no_grad():
        expected = module.model(video, TEXTS)
        got = rm.model(video, TEXTS)
    assert torch.equal(expected, got)
    fn = rm.reward_fn(TEXTS[0], TEXTS[1:])
    frames = video[0].permute(0, 2, 3, 1).numpy()
    with torch.no_grad():
        p_module = module.model(video[:1], TEXTS).softmax(-1)[0, 0].item()
    assert abs(fn.trajectory(frames).prob[-1] - p_module) < 1e-6  # other batch shapes: float rounding only


def test_reward_window_and_frame_stride_travel_with_the_artifact(lightning_ckpt, tmp_path):
    path, _ = lightning_ckpt
    out = tmp_path / "strided"
    assert export_main([str(path), "--out", str(out), "--no-verify", "--window", "8", "--frame-stride", "2"]) == 0
    rm = RewardModel.load(out, precision="fp32")  # compared with float32 to 1e-6
    assert (rm.window, rm.frame_stride, rm.span) == (8, 2, 15)
    assert "every 2 step(s)" in (out / "README.md").read_text()
    assert export_main([str(path), "--out", str(tmp_path / "bad"), "--frame-stride", "0"]) == 2


def test_artifact_loading_never_unpickles(lightning_ckpt, tmp_path, monkeypatch):
    path, _ = lightning_ckpt
    out = tmp_path / "a"
    export_main([str(path), "--out", str(out), "--no-verify"])

    def refuse(*a, **k):
        raise AssertionError("artifact loading unpickled something")

    monkeypatch.setattr(torch, "load", refuse)
    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(pickle, "loads", refuse)
    assert load_artifact(out).config.embed_dim == 128


def test_a_pickle_carrying_code_is_refused(tmp_path):
    marker = tmp_path / "pwned"

    class Payload:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    model = make_micro()
    bad = tmp_path / "bad.ckpt"
    torch.save({"state_dict": {"model." + k: v for k, v in model.state_dict().items()},
                "mineclip": {"model_config": model.config.to_dict()}, "hyper_parameters": {"x": Payload()}}, bad)
    with pytest.raises(Exception, match="refused"):
        load_checkpoint(bad)
    assert export_main([str(bad), "--out", str(tmp_path / "out")]) != 0
    assert not marker.exists() and not (tmp_path / "out" / "model.safetensors").exists()


def test_an_artifact_whose_weights_are_a_pickle_is_not_loaded(lightning_ckpt, tmp_path):
    path, _ = lightning_ckpt
    out = tmp_path / "a"
    export_main([str(path), "--out", str(out), "--no-verify"])
    marker = tmp_path / "pwned"

    class Payload:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    (out / "model.safetensors").write_bytes(pickle.dumps(Payload()))
    with pytest.raises(Exception):
        load_artifact(out)
    assert not marker.exists()


def test_checkpoint_without_model_config_needs_an_explicit_architecture(tmp_path):
    model = make_micro()
    path = tmp_path / "bare.ckpt"
    torch.save({"state_dict": {"model." + k: v for k, v in model.state_dict().items()}}, path)
    with pytest.raises(ValueError, match="--config"):
        load_checkpoint(path)


def test_a_config_field_from_another_version_is_named_in_the_error(lightning_ckpt, tmp_path):
    from mineclip.model.artifact import ArtifactError
    from mineclip.model.load import CheckpointError

    path, _ = lightning_ckpt
    ckpt = torch.load(path, map_location="cpu", weights_only=False)
    ckpt["mineclip"]["model_config"]["vision"]["init"] = "trunc_normal"  # a field this version lacks
    newer = tmp_path / "newer.ckpt"
    torch.save(ckpt, newer)
    with pytest.raises(CheckpointError, match=r"vision\.init"):
        load_checkpoint(newer)
    assert export_main([str(newer), "--out", str(tmp_path / "x")]) != 0
    assert not (tmp_path / "x").exists()

    official = tmp_path / "official.pth"  # the released layout also records the model config
    assert export_main([str(path), "--out", str(official), "--format", "official", "--no-verify"]) == 0
    saved = torch.load(official, map_location="cpu", weights_only=False)
    saved["mineclip"]["model_config"]["temporal"]["rope"] = True
    torch.save(saved, official)
    with pytest.raises(CheckpointError, match=r"official\.pth.*temporal\.rope"):
        load_checkpoint(official)
    assert export_main([str(official), "--out", str(tmp_path / "y")]) != 0

    out = tmp_path / "artifact"
    assert export_main([str(path), "--out", str(out), "--no-verify"]) == 0
    config = json.loads((out / "config.json").read_text())
    config["architecture"]["logit_bias"] = 0.0
    (out / "config.json").write_text(json.dumps(config))
    with pytest.raises(ArtifactError, match="logit_bias"):
        load_artifact(out)


def test_official_format_export_loads_back_with_the_same_scores(lightning_ckpt, tmp_path):
    from mineclip.model.official import load_official

    path, module = lightning_ckpt
    out = tmp_path / "exported_attn.pth"
    assert export_main([str(path), "--out", str(out), "--format", "official"]) == 0
    back = load_official(out)
    video = clip(1, 4)
    with torch.no_grad():
        assert torch.equal(back(video, TEXTS), module.model(video, TEXTS))
    # and an official file exports to an artifact too
    art = tmp_path / "from_official"
    assert export_main([str(out), "--out", str(art)]) == 0
    assert json.loads((art / "config.json").read_text())["source"]["kind"] == "official"


def test_model_card_has_front_matter_and_says_what_the_model_is_for(lightning_ckpt, tmp_path):
    import yaml

    path, _ = lightning_ckpt
    assert export_main([str(path), "--out", str(tmp_path / "art")]) == 0
    card = (tmp_path / "art" / "README.md").read_text()
    assert card.startswith("---\n")
    meta = yaml.safe_load(card.split("---\n")[1])
    assert meta["license"] == "mit" and meta["library_name"] == "mineclip" and "reward-model" in meta["tags"]
    assert "base_model" not in meta  # trained from scratch
    assert "## Intended use" in card and "## Limits" in card


def test_reward_and_official_loaders_take_a_directory_its_safetensors_or_a_released_pth(lightning_ckpt, tmp_path):
    from mineclip.model.official import load_official, save_official
    from mineclip.model.safe_load import CheckpointError

    path, module = lightning_ckpt
    out = tmp_path / "art"
    assert export_main([str(path), "--out", str(out), "--window", "8"]) == 0
    save_official(module.model, tmp_path / "released.pth")
    video = clip(t=8)
    with torch.no_grad():
        expect = module.model.float().eval()(video, TEXTS)
    for source in (out, out / "model.safetensors", tmp_path / "released.pth"):
        rm = RewardModel.load(source)
        with torch.no_grad():
            assert torch.equal(rm.model(video, TEXTS), expect), source
        assert rm.window == (8 if source != tmp_path / "released.pth" else 16)
        with torch.no_grad():
            assert torch.equal(load_official(source)(video, TEXTS), expect), source
    with pytest.raises(CheckpointError, match="export it first"):
        load_official(path)  # a training checkpoint: the error says what it is and what to do
    with torch.no_grad():  # RewardModel.load reads it through mineclip.model.load, with export's defaults
        assert torch.equal(RewardModel.load(path).model(video, TEXTS), expect)
    with pytest.raises(FileNotFoundError, match="no artifact directory"):
        RewardModel.load(tmp_path / "nothing")
