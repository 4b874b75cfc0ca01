"""Every kind of checkpoint, told apart in one place and loaded through one function, without
running code stored in a file.

Kinds (`checkpoint_kind`):
    artifact    a directory from `mineclip export` (model.safetensors + config.json), or its
                model.safetensors file
    deepspeed   a DeepSpeed checkpoint directory (`latest` + `<tag>/*model_states.pt`; ZeRO shards)
    lightning   a Lightning `.ckpt` written by `mineclip train` (state_dict keys `model.<name>`,
                architecture in `checkpoint["mineclip"]["model_config"]`)
    official    a released MineCLIP `attn.pth` / `avg.pth`, or one written by `save_official`
    clip        an OpenAI CLIP ViT-B/16 file (TorchScript archive or state dict with `visual.*`),
                or an open_clip checkpoint: it initialises the towers of a new model
                (`mineclip.model.clip_init`), it is not a MineCLIP model

`load_checkpoint` returns the MineCLIP model of the first four kinds, with what the file said
about itself; `mineclip export`, training's `init`, `RewardModel.load` and `load_official` users
all come through here.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from .config import ModelConfig, get_config
from .mineclip import MineCLIP
from .official import is_official_layout, load_official, saved_config
from .safe_load import CheckpointError, InertObject, safe_torch_load, torch_loading_safely

log = logging.getLogger(__name__)

KINDS = ("artifact", "deepspeed", "lightning", "official", "clip")
MODEL_PREFIX = "model."


@dataclass
class LoadedCheckpoint:
    """A model read from a checkpoint, with what the checkpoint said about itself."""

    model: MineCLIP
    kind: str  # one of KINDS, but "clip"
    source: str
    info: dict = field(default_factory=dict)  # the checkpoint's "mineclip" dict (data, metrics, ...)


# --------------------------------------------------------------------------- telling kinds apart
def _directory_kind(path: Path) -> str:
    from .artifact import CONFIG, WEIGHTS

    if (path / CONFIG).is_file() and (path / WEIGHTS).is_file():
        return "artifact"
    if (path / "latest").is_file() or any(path.glob("*/*model_states.pt")):
        return "deepspeed"
    found = sorted(p.name for p in path.iterdir())[:10]
    raise CheckpointError(f"{path}: a directory that is neither an artifact ({CONFIG} + {WEIGHTS}) nor a DeepSpeed "
                          f"checkpoint ('latest' + <tag>/*model_states.pt); it holds {found}")


def _state_dict_of(obj: Any) -> dict | None:
    if isinstance(obj, dict) and isinstance(obj.get("state_dict"), dict):
        return obj["state_dict"]
    if isinstance(obj, dict) and obj and all(isinstance(v, torch.Tensor) for v in obj.values()):
        return obj
    return None


def kind_of_contents(obj: Any, source: str) -> str:
    """'lightning', 'official' or 'clip' for the contents of a checkpoint file (from `safe_torch_load`)."""
    sd = _state_dict_of(obj)
    if sd is None:
        got = f"a dict with keys {sorted(map(str, obj))[:8]}" if isinstance(obj, dict) else type(obj).__name__
        if isinstance(obj, InertObject):
            got += f" ({obj!r})"
        raise CheckpointError(f"{source}: expected a checkpoint dict with a 'state_dict' (or a state dict of "
                              f"tensors), got {got}")
    keys = [k for k in sd if isinstance(k, str)]
    if is_official_layout(keys):
        return "official"
    if any(k.removeprefix("module.").startswith("visual.") for k in keys):
        return "clip"
    if any(k.startswith(MODEL_PREFIX) for k in keys):
        return "lightning"
    raise CheckpointError(f"{source}: not a MineCLIP, Lightning or CLIP checkpoint: expected state_dict keys "
                          f"'model.<parameter>', the released 'model.image_encoder.*' or CLIP's 'visual.*', "
                          f"got {len(keys)} keys such as {keys[:5]}")


def checkpoint_kind(path: str | os.PathLike) -> str:
    """One of KINDS for a checkpoint file or directory (a file is read safely to tell its kind)."""
    from .clip_init import is_torchscript

    path = Path(path)
    if path.is_dir():
        return _directory_kind(path)
    if not path.is_file():
        raise CheckpointError(f"checkpoint not found: {path}")
    if path.suffix == ".safetensors":
        return "artifact"
    if is_torchscript(path):
        return "clip"
    return kind_of_contents(safe_torch_load(path), str(path))


# --------------------------------------------------------------------------- loading
def _plain(obj: Any) -> Any:
    """Keep JSON-able metadata only (inert stand-ins become their names)."""
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if isinstance(obj, (str, int, float, bool)) or obj is None:
        return obj
    if isinstance(obj, torch.Tensor) and obj.numel() == 1:
        return obj.item()
    return repr(obj)


def _config_from(info: dict, override: ModelConfig | str | None, source: str) -> ModelConfig:
    if override is not None:
        return get_config(override) if isinstance(override, str) else override
    cfg = info.get("model_config") if isinstance(info, dict) else None
    if not isinstance(cfg, dict):
        raise CheckpointError(f"{source}: no checkpoint['mineclip']['model_config'] found; pass the architecture "
                              "explicitly (--config NAME, e.g. mineclip_attn or tiny)")
    return saved_config(cfg, source)


def _model_from_state(state_dict: dict, config: ModelConfig, source: str) -> MineCLIP:
    sd = {}
    for k, v in state_dict.items():
        if isinstance(k, str) and k.startswith(MODEL_PREFIX):
            if not isinstance(v, torch.Tensor):
                raise CheckpointError(f"{source}: expected a tensor for {k!r}, got {type(v).__name__} ({v!r})")
            sd[k[len(MODEL_PREFIX):]] = v
    if not sd:
        raise CheckpointError(f"{source}: expected state_dict keys 'model.<parameter>', found none "
                              f"(first keys: {list(state_dict)[:5]})")
    model = MineCLIP(config)
    missing, unexpected = model.load_state_dict(sd, strict=False)
    if missing or unexpected:
        raise CheckpointError(f"{source}: state_dict does not match the architecture in its config: "
                              f"missing {missing[:8]}{'...' if len(missing) > 8 else ''}, "
                              f"unexpected {unexpected[:8]}{'...' if len(unexpected) > 8 else ''}")
    return model.float().eval()


def _load_file(path: Path, config: ModelConfig | str | None) -> LoadedCheckpoint:
    ckpt = safe_torch_load(path)
    kind = kind_of_contents(ckpt, str(path))
    info = ckpt.get("mineclip") if isinstance(ckpt, dict) and isinstance(ckpt.get("mineclip"), dict) else {}
    if kind == "clip":
        raise CheckpointError(f"{path}: an OpenAI/open_clip CLIP file, not a MineCLIP model: it initialises the "
                              "towers of a new model (train with --model.init clip:PATH)")
    if kind == "official":
        cfg = get_config(config) if isinstance(config, str) else config
        model = load_official(path, config=cfg, checkpoint=ckpt).float().eval()
        return LoadedCheckpoint(model, "official", str(path), _plain(info))
    model = _model_from_state(_state_dict_of(ckpt), _config_from(info, config, str(path)), str(path))
    meta = _plain(info)
    for k in ("epoch", "global_step"):
        if k in ckpt and k not in meta:
            meta[k] = _plain(ckpt[k])
    return LoadedCheckpoint(model, "lightning", str(path), meta)


def _load_deepspeed_dir(path: Path, config: ModelConfig | str | None, tag: str | None) -> LoadedCheckpoint:
    """Merge ZeRO shards to fp32 with DeepSpeed's own helper, whose files it reads through the
    restricted unpickler (the helper itself calls `torch.load(..., weights_only=False)`, which
    would run any code pickled into a shard)."""
    try:
        from unittest import mock

        from deepspeed.utils import zero_to_fp32
    except ImportError as e:
        raise CheckpointError(f"{path}: reading a DeepSpeed checkpoint needs the deepspeed package: {e}") from e
    tag = tag or ((path / "latest").read_text().strip() if (path / "latest").is_file() else None)
    if tag is None:
        raise CheckpointError(f"{path}: DeepSpeed checkpoint directory without a 'latest' file; pass tag=")
    with mock.patch.object(zero_to_fp32, "torch", torch_loading_safely):
        state_dict = zero_to_fp32.get_fp32_state_dict_from_zero_checkpoint(str(path), tag)
    state_dict = {k.removeprefix("_forward_module."): v for k, v in state_dict.items()}
    info: dict = {}
    model_files = sorted((path / tag).glob("*model_states.pt"))
    if model_files:
        client = safe_torch_load(model_files[0])
        if isinstance(client, dict) and isinstance(client.get("mineclip"), dict):
            info = client["mineclip"]
    model = _model_from_state(state_dict, _config_from(info, config, str(path)), str(path))
    return LoadedCheckpoint(model, "deepspeed", str(path), _plain(info))


def load_checkpoint(path: str | os.PathLike, config: ModelConfig | str | None = None,
                    tag: str | None = None) -> LoadedCheckpoint:
    """The MineCLIP model of an artifact, a DeepSpeed directory, a Lightning .ckpt or a released .pth.

    `config` overrides the architecture the checkpoint records (needed when it records none);
    `tag` picks a DeepSpeed tag (default: its `latest` file)."""
    from .artifact import load_artifact, read_artifact_config

    path = Path(path)
    if path.is_file() and path.suffix == ".safetensors":
        path = path.parent  # the weights file of an artifact directory
    if path.is_dir():
        kind = _directory_kind(path)
        if kind == "artifact":
            return LoadedCheckpoint(load_artifact(path), "artifact", str(path),
                                    read_artifact_config(path).get("training", {}))
        return _load_deepspeed_dir(path, config, tag)
    if not path.is_file():
        raise CheckpointError(f"checkpoint not found: {path}")
    from .clip_init import is_torchscript

    if is_torchscript(path):
        raise CheckpointError(f"{path}: a TorchScript CLIP archive, not a MineCLIP model: it initialises the towers "
                              "of a new model (train with --model.init clip:PATH)")
    return _load_file(path, config)
