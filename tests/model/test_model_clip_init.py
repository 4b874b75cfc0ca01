"""OpenAI CLIP initialisation from local files in the OpenAI / open_clip layouts."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from mineclip.model import MineCLIP, get_config
from mineclip.model.clip_init import load_openai_clip
from mineclip.model.safe_load import CheckpointError
from mineclip.model.towers import resize_pos_embed


def openai_layout_state_dict(model: MineCLIP, seed: int = 0) -> dict[str, torch.Tensor]:
    """Random tensors named as in OpenAI's ViT-B/16 `.pt`, at the model's widths, 224x224 position table."""
    g = torch.Generator().manual_seed(seed)
    sd = {}
    for key, t in model.state_dict().items():
        if key.startswith("vision."):
            name = "visual." + key[len("vision."):]
        elif key.startswith("text."):
            name = key[len("text."):]
        elif key == "logit_scale":
            name = key
        else:
            continue
        shape = (197, t.shape[1]) if name == "visual.positional_embedding" else t.shape
        sd[name] = torch.randn(shape, generator=g) * 0.05
    sd["input_resolution"] = torch.tensor(224)  # non-parameters the OpenAI archive carries
    sd["context_length"] = torch.tensor(77)
    sd["vocab_size"] = torch.tensor(49408)
    return sd


def _nested_module(flat: dict[str, torch.Tensor]) -> nn.Module:
    """A module tree whose state_dict() has exactly these names (for a TorchScript archive)."""

    class Node(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x

    root = Node()
    for name, tensor in flat.items():
        *path, leaf = name.split(".")
        node = root
        for part in path:
            if not hasattr(node, part):
                node.add_module(part, Node())
            node = getattr(node, part)
        if tensor.is_floating_point():
            node.register_parameter(leaf, nn.Parameter(tensor.clone()))
        else:
            node.register_buffer(leaf, tensor.clone())
    return root


def _assert_loaded(model: MineCLIP, clip: dict[str, torch.Tensor]) -> None:
    sd = model.state_dict()
    assert torch.equal(sd["vision.conv1.weight"], clip["visual.conv1.weight"])
    assert torch.equal(sd["vision.proj"], clip["visual.proj"])
    assert torch.equal(sd["text.token_embedding.weight"], clip["token_embedding.weight"])
    assert torch.equal(sd["text.transformer.resblocks.3.mlp.c_proj.bias"], clip["transformer.resblocks.3.mlp.c_proj.bias"])
    assert torch.equal(sd["logit_scale"], clip["logit_scale"])
    pos = sd["vision.positional_embedding"]
    assert pos.shape == (161, model.config.vision.width)
    assert torch.equal(pos[0], clip["visual.positional_embedding"][0])  # CLS row kept
    assert torch.allclose(pos, resize_pos_embed(clip["visual.positional_embedding"], (10, 16)))


def test_openai_state_dict_initialises_towers_with_resized_positions(tmp_path):
    model = MineCLIP(get_config("tiny"))
    adapter_before = model.adapter.mlp[0].weight.clone()
    clip = openai_layout_state_dict(model)
    torch.save(clip, tmp_path / "ViT-B-16.pt")
    load_openai_clip(model, tmp_path / "ViT-B-16.pt")
    _assert_loaded(model, clip)
    assert torch.equal(model.adapter.mlp[0].weight, adapter_before)  # adapter keeps its init


def test_open_clip_checkpoint_with_module_prefix(tmp_path):
    model = MineCLIP(get_config("tiny"))
    clip = openai_layout_state_dict(model, seed=1)
    ckpt = {"epoch": 32, "name": "ViT-B-16", "state_dict": {"module." + k: v for k, v in clip.items()}}
    torch.save(ckpt, tmp_path / "epoch_32.pt")
    load_openai_clip(model, tmp_path / "epoch_32.pt")
    _assert_loaded(model, clip)


def test_torchscript_archive(tmp_path):
    model = MineCLIP(get_config("tiny"))
    clip = openai_layout_state_dict(model, seed=2)
    torch.jit.save(torch.jit.script(_nested_module(clip)), str(tmp_path / "ViT-B-16-jit.pt"))
    load_openai_clip(model, tmp_path / "ViT-B-16-jit.pt")
    _assert_loaded(model, clip)


def test_clip_of_another_width_is_refused_with_keys(tmp_path):
    model = MineCLIP(get_config("tiny"))
    clip = openai_layout_state_dict(model)
    clip["visual.conv1.weight"] = torch.zeros(768, 3, 16, 16)
    del clip["ln_final.bias"]
    clip["visual.attnpool.weight"] = torch.zeros(3)
    torch.save(clip, tmp_path / "other.pt")
    with pytest.raises(CheckpointError) as e:
        load_openai_clip(model, tmp_path / "other.pt")
    msg = str(e.value)
    width = model.config.vision.width
    assert f"visual.conv1.weight expected [{width}, 3, 16, 16] got [768, 3, 16, 16]" in msg
    assert "missing (1): ln_final.bias" in msg
    assert "unexpected (1): visual.attnpool.weight" in msg
