"""Read a trained model from any checkpoint kind, without running code stored in the file.

Kinds: a Lightning `.ckpt` file written by `mineclip.train` (state_dict keys `model.<name>`, plus
`checkpoint["mineclip"]["model_config"]`), a DeepSpeed checkpoint directory (ZeRO shards merged
to fp32), a released MineCLIP `attn.pth` / `avg.pth`, or an exported artifact directory.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from mineclip.model import MineCLIP, ModelConfig, get_config
from mineclip.model.official import saved_config
from mineclip.model.safe_load import CheckpointError, InertObject, UnsafeCheckpointError, safe_torch_load  # noqa: F401  (re-exported by mineclip.export)

log = logging.getLogger(__name__)

MODEL_PREFIX = "model."
# Key prefixes of the released checkpoints (MineDojo/MineCLIP), after "model.".
OFFICIAL_PREFIXES = ("image_encoder.", "clip_model.", "temporal_encoder.", "reward_head.", "video_adapter.")


# --------------------------------------------------------------------------- checkpoints
@dataclass
class LoadedCheckpoint:
    """A model read from a checkpoint, with what the checkpoint said about itself."""

    model: MineCLIP
    kind: str  # "lightning" | "deepspeed" | "official" | "artifact"
    source: str
    info: dict = field(default_factory=dict)  # the checkpoint's "mineclip" dict (data, metrics, ...)


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


def _config_from(info: dict, override: ModelConfig | str | None, source: str) -> ModelConfig:
    if override is not None:
        return get_config(override) if isinstance(override, str) else override
    cfg = info.get("model_config") if isinstance(info, dict) else None
    if not isinstance(cfg, dict):
        raise CheckpointError(f"{source}: no checkpoint['mineclip']['model_config'] found; pass the architecture "
                              "explicitly (--config NAME, e.g. mineclip_attn or tiny)")
    return saved_config(cfg, source)


def _is_official(state_dict: dict) -> bool:
    return any(isinstance(k, str) and k.startswith(MODEL_PREFIX + p) for k in state_dict for p in OFFICIAL_PREFIXES)


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


def _load_lightning_file(path: Path, config, official_loader) -> LoadedCheckpoint:
    ckpt = safe_torch_load(path)
    if not isinstance(ckpt, dict) or not isinstance(ckpt.get("state_dict"), dict):
        raise CheckpointError(f"{path}: expected a checkpoint dict with a 'state_dict', got {type(ckpt).__name__}"
                              + (f" ({ckpt!r})" if isinstance(ckpt, InertObject) else ""))
    info = ckpt.get("mineclip") if isinstance(ckpt.get("mineclip"), dict) else {}
    if _is_official(ckpt["state_dict"]):
        cfg = get_config(config) if isinstance(config, str) else config
        return LoadedCheckpoint(official_loader(path, cfg), "official", str(path), _plain(info))
    model = _model_from_state(ckpt["state_dict"], _config_from(info, config, str(path)), str(path))
    meta = _plain(info)
    for k in ("epoch", "global_step"):
        if k in ckpt and k not in meta:
            meta[k] = _plain(ckpt[k])
    return LoadedCheckpoint(model, "lightning", str(path), meta)


def _load_deepspeed_dir(path: Path, config, tag: str | None) -> LoadedCheckpoint:
    """Merge ZeRO shards to fp32. DeepSpeed's own merge helper unpickles its optimizer files
    without restriction: read only DeepSpeed directories you produced yourself."""
    try:
        from deepspeed.utils.zero_to_fp32 import get_fp32_state_dict_from_zero_checkpoint
    except Exception as e:  # deepspeed missing or broken
        raise CheckpointError(f"{path}: reading a DeepSpeed checkpoint needs the deepspeed package: {e}") from e
    tag = tag or ((path / "latest").read_text().strip() if (path / "latest").is_file() else None)
    if tag is None:
        raise CheckpointError(f"{path}: DeepSpeed checkpoint directory without a 'latest' file; pass tag=")
    state_dict = get_fp32_state_dict_from_zero_checkpoint(str(path), tag)
    state_dict = {k.removeprefix("_forward_module."): v for k, v in state_dict.items()}
    info: dict = {}
    model_files = sorted((path / tag).glob("*model_states.pt"))
    if model_files:
        client = safe_torch_load(model_files[0])
        if isinstance(client, dict) and isinstance(client.get("mineclip"), dict):
            info = client["mineclip"]
    model = _model_from_state(state_dict, _config_from(info, config, str(path)), str(path))
    return LoadedCheckpoint(model, "deepspeed", str(path), _plain(info))


def checkpoint_kind(path: str | os.PathLike) -> str:
    """'artifact', 'deepspeed' or 'file' (Lightning or released, told apart by their keys)."""
    path = Path(path)
    if path.is_dir():
        if (path / "config.json").is_file() and (path / "model.safetensors").is_file():
            return "artifact"
        if (path / "latest").is_file() or any(path.glob("*/*model_states.pt")):
            return "deepspeed"
        raise CheckpointError(f"{path}: a directory that is neither an artifact (config.json + model.safetensors) "
                              "nor a DeepSpeed checkpoint ('latest' + <tag>/*model_states.pt)")
    if not path.is_file():
        raise CheckpointError(f"checkpoint not found: {path}")
    return "file"


def load_checkpoint(path: str | os.PathLike, config: ModelConfig | str | None = None,
                    tag: str | None = None) -> LoadedCheckpoint:
    """Read a model from a Lightning .ckpt, a DeepSpeed directory, a released .pth or an artifact."""
    path = Path(path)
    kind = checkpoint_kind(path)
    if kind == "artifact":
        from .artifact import load_artifact, read_artifact_config

        return LoadedCheckpoint(load_artifact(path), "artifact", str(path), read_artifact_config(path).get("training", {}))
    if kind == "deepspeed":
        return _load_deepspeed_dir(path, config, tag)

    def official_loader(p, cfg):
        from mineclip.model.official import load_official

        return load_official(p, config=cfg).float().eval()

    return _load_lightning_file(path, config, official_loader)
