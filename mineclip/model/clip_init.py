"""Initialise the MineCLIP towers from a local OpenAI CLIP ViT-B/16 file (the paper's init).

Reads the OpenAI `.pt` (a TorchScript archive or a plain state dict) or an open_clip checkpoint
(same names, possibly under `state_dict` and with a `module.` prefix). The 224x224 position table
(14x14 + CLS) is resized bicubically to the model's patch grid (10x16 + CLS at 160x256). The
temporal aggregator and the adapter keep their initialisation. Nothing is downloaded.
"""

from __future__ import annotations

import logging
import zipfile
from pathlib import Path

import torch

from .mineclip import MineCLIP
from .safe_load import CheckpointError, safe_torch_load
from .towers import resize_pos_embed

log = logging.getLogger(__name__)

# Entries of the OpenAI TorchScript state dict that are not parameters.
_IGNORED = {"input_resolution", "context_length", "vocab_size"}


def is_torchscript(path: str | Path) -> bool:
    """Whether a file is a TorchScript archive (as OpenAI distributes CLIP)."""
    if not zipfile.is_zipfile(path):
        return False
    with zipfile.ZipFile(path) as z:
        return any(n.endswith("constants.pkl") or "/code/" in n for n in z.namelist())


def read_clip_state_dict(path: str | Path) -> dict[str, torch.Tensor]:
    """OpenAI-named CLIP tensors from a TorchScript archive, a plain state dict or an open_clip checkpoint.

    Plain files go through `safe_torch_load`. TorchScript archives need `torch.jit.load` (as OpenAI's
    own loader does), which can run TorchScript code from the archive: use only files you trust.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"CLIP weights not found: {path}")
    if is_torchscript(path):
        sd = torch.jit.load(str(path), map_location="cpu").state_dict()
    else:
        sd = safe_torch_load(path)
        if isinstance(sd, dict) and isinstance(sd.get("state_dict"), dict):
            sd = sd["state_dict"]
    if not isinstance(sd, dict):
        raise CheckpointError(f"{path}: expected a CLIP state dict, got {type(sd).__name__}")
    out = {}
    for k, v in sd.items():
        k = k[len("module."):] if k.startswith("module.") else k
        if k not in _IGNORED and isinstance(v, torch.Tensor):
            out[k] = v
    return out


def _our_name(clip_key: str) -> str | None:
    if clip_key.startswith("visual."):
        return "vision." + clip_key[len("visual."):]
    if clip_key.startswith(("transformer.", "token_embedding.", "positional_embedding", "ln_final.", "text_projection")):
        return "text." + clip_key
    if clip_key == "logit_scale":
        return "logit_scale"
    return None


def _clip_name(our_key: str) -> str:
    if our_key.startswith("vision."):
        return "visual." + our_key[len("vision."):]
    return our_key[len("text."):] if our_key.startswith("text.") else our_key


def load_openai_clip(model: MineCLIP, path: str | Path) -> MineCLIP:
    """Fill `model.vision`, `model.text` and `logit_scale` from a local CLIP ViT-B/16 file; returns `model`.

    Every CLIP tensor must be used and every tower parameter filled; mismatches are listed by key.
    """
    path = Path(path)
    clip = read_clip_state_dict(path)
    if "text_projection.weight" in clip:  # open_clip with a Linear text projection
        clip["text_projection"] = clip.pop("text_projection.weight").t()
    targets = {k: v for k, v in model.state_dict().items() if k.startswith(("vision.", "text.")) or k == "logit_scale"}
    grid = tuple(r // model.config.vision.patch_size for r in model.config.vision.resolution)

    values, unexpected, wrong_shape = {}, [], []
    for key, tensor in clip.items():
        ours = _our_name(key)
        if ours not in targets:
            unexpected.append(key)
            continue
        want = targets[ours]
        if key == "visual.positional_embedding" and tensor.shape != want.shape and tensor.ndim == 2:
            try:
                tensor = resize_pos_embed(tensor, grid)
                log.info("resized CLIP position table %s -> %s", list(clip[key].shape), list(tensor.shape))
            except ValueError as e:
                wrong_shape.append(f"{key}: {e}")
                continue
        if tuple(tensor.shape) != tuple(want.shape):
            wrong_shape.append(f"{key} expected {list(want.shape)} got {list(tensor.shape)}")
            continue
        values[ours] = tensor
    present = {_our_name(c) for c in clip}
    missing = [_clip_name(k) for k in targets if k not in values and k not in present]
    if unexpected or wrong_shape or missing:
        lines = [f"{path} does not fit the CLIP towers of this model (vision width {model.config.vision.width}, "
                 f"text width {model.config.text.width}, embed_dim {model.config.embed_dim}):"]
        for title, items in (("missing", missing), ("unexpected", unexpected), ("wrong shape", wrong_shape)):
            if items:
                lines.append(f"  {title} ({len(items)}): " + ", ".join(items[:12]) + (" ..." if len(items) > 12 else ""))
        raise CheckpointError("\n".join(lines))
    with torch.no_grad():
        for key, tensor in values.items():
            targets[key].copy_(tensor)
    log.info("initialised %d tensors of the CLIP towers from %s", len(values), path)
    return model
