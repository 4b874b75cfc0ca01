"""RewardModel.load reads every checkpoint through the one dispatcher (`mineclip.model.load`): a
Lightning .ckpt of `mineclip train` loads as the model it holds, a DeepSpeed folder is read as one,
a folder that is neither is refused in the dispatcher's words, and an artifact and a released .pth
keep their reward settings."""

from __future__ import annotations

import pytest
import torch
from helpers.models import MICRO, MICRO_RES

from mineclip.model.safe_load import CheckpointError
from mineclip.reward import RewardModel

TEXTS = ["chop a tree", "drink water", "hunt a cow"]


def video(t: int = 4) -> torch.Tensor:
    g = torch.Generator().manual_seed(1)
    return torch.randint(0, 256, (1, t, 3, *MICRO_RES), dtype=torch.uint8, generator=g)


def scores(model) -> torch.Tensor:
    with torch.no_grad():
        return model(video(), TEXTS)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """(path, model): a micro model checkpointed as `mineclip train` does: Lightning's dict with
    `model.<name>` keys, and the module's own record (`MineCLIPModule.on_save_checkpoint`)."""
    pytest.importorskip("pytorch_lightning")
    from mineclip.train.module import MineCLIPModule

    torch.manual_seed(0)
    module = MineCLIPModule(model_config=MICRO).eval()
    with torch.no_grad():  # off the initialisation, so that loading the wrong weights shows
        for p in module.model.parameters():
            p.add_(torch.randn_like(p) * 0.01)
    ckpt = {"state_dict": module.state_dict(), "epoch": 1, "global_step": 10, "hyper_parameters": module.hparams}
    module.on_save_checkpoint(ckpt)
    path = tmp_path_factory.mktemp("train") / "last.ckpt"
    torch.save(ckpt, path)
    return path, module.model


def test_a_lightning_checkpoint_of_mineclip_train_loads_as_the_model_it_holds(trained):
    path, model = trained
    rm = RewardModel.load(path, precision="fp32")
    assert rm.model.config == model.config
    assert torch.equal(scores(rm.model), scores(model))
    # a training checkpoint records no reward settings: what `mineclip export` writes by default
    assert (rm.window, rm.frame_stride, rm.resize, rm.config) == (16, 1, "pad", {})


def test_a_folder_that_is_neither_an_artifact_nor_a_deepspeed_checkpoint_is_refused_by_the_dispatcher(tmp_path):
    (tmp_path / "config.json").write_text("{}")  # a config alone is no artifact
    (tmp_path / "notes.txt").write_text("not a checkpoint")
    with pytest.raises(CheckpointError, match="neither an artifact .* nor a DeepSpeed checkpoint"):
        RewardModel.load(tmp_path)
    with pytest.raises(FileNotFoundError, match="no artifact directory"):
        RewardModel.load(tmp_path / "missing")


def test_a_deepspeed_folder_is_read_as_deepspeed_not_as_an_artifact(trained, tmp_path, monkeypatch):
    """The folder's layout and its client state are real; only DeepSpeed's merge of ZeRO shards is
    stood in for (tests/export/test_export_deepspeed.py trains a real one)."""
    pytest.importorskip("deepspeed")
    import deepspeed.utils.zero_to_fp32 as zero

    _, model = trained
    (tmp_path / "latest").write_text("global_step10")
    (tmp_path / "global_step10").mkdir()
    torch.save({"mineclip": {"model_config": model.config.to_dict()}},
               tmp_path / "global_step10" / "mp_rank_00_model_states.pt")
    merged = {f"_forward_module.model.{k}": v.clone() for k, v in model.state_dict().items()}
    asked = []
    monkeypatch.setattr(zero, "get_fp32_state_dict_from_zero_checkpoint",
                        lambda path, tag: asked.append(tag) or merged)
    rm = RewardModel.load(tmp_path, precision="fp32")
    assert asked == ["global_step10"]
    assert torch.equal(scores(rm.model), scores(model))
    assert (rm.window, rm.frame_stride) == (16, 1)


def test_every_kind_goes_through_the_one_dispatcher_and_artifacts_keep_their_reward_settings(
        trained, tmp_path, monkeypatch):
    import mineclip.model.load as dispatcher
    from mineclip.export.cli import main as export_main
    from mineclip.model.official import save_official

    path, model = trained
    artifact = tmp_path / "artifact"
    assert export_main([str(path), "--out", str(artifact), "--window", "8", "--frame-stride", "2"]) == 0
    save_official(model, tmp_path / "released.pth")
    real, kinds = dispatcher.load_checkpoint, []

    def spy(*args, **kwargs):
        loaded = real(*args, **kwargs)
        kinds.append(loaded.kind)
        return loaded

    monkeypatch.setattr(dispatcher, "load_checkpoint", spy)
    expect = scores(model)
    settings = {}
    for source in (artifact, artifact / "model.safetensors", tmp_path / "released.pth", path):
        rm = RewardModel.load(source, precision="fp32")
        assert torch.equal(scores(rm.model), expect), source
        settings[source.name] = (rm.window, rm.frame_stride)
    assert kinds == ["artifact", "artifact", "official", "lightning"]
    assert settings == {"artifact": (8, 2), "model.safetensors": (8, 2), "released.pth": (16, 1), "last.ckpt": (16, 1)}
