"""The released MineCLIP checkpoints (`attn.pth`, `avg.pth`) <-> our modules.

The released file is a Lightning-style `{"state_dict": {"model.<key>": tensor}}`. The official
module registers one CLIP model three times, so each vision tensor appears under three keys
(`image_encoder.*`, `reward_head.clip_model.vision_model.*`, `clip_model.vision_model.*`) and
each text tensor and the logit scale under two. The mapping below is derived from our parameter
names, so it holds for any config (the tiny ones included), not only the released size.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import re
import warnings
from pathlib import Path
from typing import Any

import torch

from .config import ModelConfig, get_config
from .mineclip import MineCLIP
from .safe_load import CheckpointError, UnsafeCheckpointError, safe_torch_load

log = logging.getLogger(__name__)

__all__ = [
    "OFFICIAL_PREFIXES",
    "RELEASED_MD5",
    "CheckpointError",
    "UnsafeCheckpointError",
    "is_official_layout",
    "load_official",
    "official_key_map",
    "official_state_dict",
    "save_official",
]

RELEASED_MD5 = {"attn": "b5ece9198337cfd117a3bfbd921e56da", "avg": "d97a07f2830095a2016a8da22abcff52"}
RELEASED_NAMES = {"attn.pth": "attn", "avg.pth": "avg"}

# Top-level key groups of the released checkpoints (after "model.").
OFFICIAL_PREFIXES = ("image_encoder.", "clip_model.", "temporal_encoder.", "reward_head.", "video_adapter.")
_VISION_PREFIXES = ("image_encoder.", "reward_head.clip_model.vision_model.", "clip_model.vision_model.")
_TEXT_PREFIXES = ("reward_head.clip_model.text_model.", "clip_model.text_model.")
_TEMPORAL_PREFIX = "temporal_encoder.attn.model."

# (our name pattern, official name) applied in order, first match wins; \g<n> copies groups.
_VISION_RULES = [
    (r"class_embedding", "cls_token"),
    (r"positional_embedding", "pos_embed"),
    (r"proj", "projection"),
    (r"transformer\.resblocks\.(\d+)\.(.+)", r"blocks.\1.\2"),
    (r"(conv1\.weight|ln_pre\.\w+|ln_post\.\w+)", r"\1"),
]
_TEXT_RULES = [
    (r"positional_embedding", "pos_embed"),
    (r"text_projection", "projection"),
    (r"transformer\.resblocks\.(\d+)\.(.+)", r"blocks.\1.\2"),
    (r"(token_embedding\.weight|ln_final\.\w+)", r"\1"),
]
_TEMPORAL_RULES = [
    (r"pos_emb\.emb\.weight", "pos_emb.emb.weight"),
    (r"encoder\.layers\.(\d+)\.0\.0\.(weight|bias)", r"attn_layers.layers.\1.0.0.\2"),
    (r"encoder\.layers\.(\d+)\.1\.(to_[qkv]|to_out)\.weight", r"attn_layers.layers.\1.1.\2.weight"),
    (r"encoder\.layers\.(\d+)\.1\.ff\.0\.proj\.(weight|bias)", r"attn_layers.layers.\1.1.net.0.proj.\2"),
    (r"encoder\.layers\.(\d+)\.1\.ff\.2\.(weight|bias)", r"attn_layers.layers.\1.1.net.3.\2"),
    (r"encoder\.final_norm\.(weight|bias)", r"norm.\1"),
]
_ADAPTER_RULES = [
    (r"residual_weight", "reward_head.video_residual_weight"),
    (r"mlp\.(\d+)\.(weight|bias)", r"reward_head.video_adapter.\1.\2"),
]
# Order of key groups in the released files.
_SECTION_ORDER = ("image_encoder.", "temporal_encoder.", "reward_head.video_residual_weight",
                  "reward_head.clip_model.", "reward_head.video_adapter.", "clip_model.")


def _apply(rules, name: str) -> str | None:
    for pattern, repl in rules:
        if re.fullmatch(pattern, name):
            return re.sub(f"^{pattern}$", repl, name)
    return None


def official_names(our_key: str) -> list[str]:
    """The released checkpoint's keys (without `model.`) for one of our state-dict keys; aliases in order."""
    head, _, rest = our_key.partition(".")
    mapped: str | None = None
    prefixes: tuple[str, ...] = ("",)
    if our_key == "logit_scale":
        return ["reward_head.clip_model.logit_scale", "clip_model.logit_scale"]
    if head == "vision":
        mapped, prefixes = _apply(_VISION_RULES, rest), _VISION_PREFIXES
    elif head == "text":
        mapped, prefixes = _apply(_TEXT_RULES, rest), _TEXT_PREFIXES
    elif head == "temporal":
        mapped, prefixes = _apply(_TEMPORAL_RULES, rest), (_TEMPORAL_PREFIX,)
    elif head == "adapter":
        mapped = _apply(_ADAPTER_RULES, rest)
    if mapped is None:
        raise KeyError(f"no released-checkpoint name for parameter {our_key!r}")
    return [p + mapped for p in prefixes]


def official_key_map(model: MineCLIP) -> dict[str, list[str]]:
    """Our state-dict key -> its alias group in the released layout (first name is canonical)."""
    return {k: official_names(k) for k in model.state_dict()}


_BLOCK_ORDER = ("attn.", "ln_1.", "mlp.", "ln_2.")  # parameter order inside a released CLIP block


def _release_order(entries: list[tuple[str, torch.Tensor]]) -> list[tuple[str, torch.Tensor]]:
    """Sections as in the released files; inside each CLIP block, attn, ln_1, mlp, ln_2."""
    def section(name: str) -> int:
        return next(i for i, p in enumerate(_SECTION_ORDER) if name.startswith(p))

    def inner(name: str) -> tuple[str, int]:
        m = re.match(r"(.*\.blocks\.\d+\.)(.+)$", name)
        if not m:
            return name, 0
        return m.group(1), next((i for i, p in enumerate(_BLOCK_ORDER) if m.group(2).startswith(p)), 0)

    entries = sorted(entries, key=lambda e: section(e[0]))  # stable
    first_seen: dict[str, int] = {}
    keyed = []
    for pos, (name, t) in enumerate(entries):
        group, rank = inner(name)
        keyed.append(((first_seen.setdefault(group, pos), rank), (name, t)))
    return [e for _, e in sorted(keyed, key=lambda k: k[0])]


# ------------------------------------------------------------------------------------ saving
def official_state_dict(model: MineCLIP) -> dict[str, torch.Tensor]:
    """`{"model.<key>": tensor}` in the released layout and key order; alias keys share one tensor."""
    entries = []
    for key, tensor in model.state_dict().items():
        t = tensor.detach().cpu()
        entries += [(name, t) for name in official_names(key)]
    return {"model." + name: t for name, t in _release_order(entries)}


def save_official(model: MineCLIP, path: str | Path) -> None:
    """Write `{"state_dict": {"model.<key>": tensor}}` in the released layout, aliases included.

    Alias keys share one tensor (stored once). Our architecture config rides along under
    `"mineclip"`, which code written for the released files ignores.
    """
    meta = {"model_config": model.config.to_dict(), "format_version": 1,
            "pooling": model.config.temporal.pooling}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"state_dict": official_state_dict(model), "mineclip": meta}, path)


# ----------------------------------------------------------------------------------- loading
def file_md5(path: str | Path, chunk: int = 1 << 22) -> str:
    h = hashlib.md5()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def _extract_state_dict(ckpt, path: Path) -> dict[str, torch.Tensor]:
    if isinstance(ckpt, dict) and isinstance(ckpt.get("state_dict"), dict):
        sd = ckpt["state_dict"]
    elif isinstance(ckpt, dict) and ckpt and all(isinstance(v, torch.Tensor) for v in ckpt.values()):
        sd = ckpt
    else:
        got = f"a dict with keys {sorted(map(str, ckpt))[:8]}" if isinstance(ckpt, dict) else type(ckpt).__name__
        raise CheckpointError(
            f"{path}: expected a MineCLIP checkpoint {{'state_dict': {{'model.<key>': tensor}}}}, got {got}"
        )
    not_tensors = [k for k, v in sd.items() if not isinstance(v, torch.Tensor)]
    if not_tensors:
        raise CheckpointError(f"{path}: expected tensors in state_dict, got non-tensor values at {not_tensors[:10]}")
    return {(k[len("model."):] if k.startswith("model.") else k): v for k, v in sd.items()}


_INIT_FUNCTIONS = ("uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_", "eye_",
                   "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_")


@contextlib.contextmanager
def _skip_random_init():
    """Build modules without running torch.nn.init (every parameter is overwritten right after)."""
    saved = {name: getattr(torch.nn.init, name) for name in _INIT_FUNCTIONS}
    try:
        for name in _INIT_FUNCTIONS:
            setattr(torch.nn.init, name, lambda tensor, *args, **kwargs: tensor)
        yield
    finally:
        for name, fn in saved.items():
            setattr(torch.nn.init, name, fn)


def is_official_layout(keys) -> bool:
    """Whether state-dict keys (with or without `model.`) are those of the released checkpoints."""
    return any(isinstance(k, str) and k.removeprefix("model.").startswith(OFFICIAL_PREFIXES) for k in keys)


def detect_pooling(keys) -> str:
    """'attn' or 'avg' from the keys of a released-layout state dict (without `model.`)."""
    keys = list(keys)
    if any(k.startswith("temporal_encoder.attn.") for k in keys):
        return "attn"
    if is_official_layout(keys):
        return "avg"
    looks = ""
    if any(str(k).startswith(("vision.", "text.", "temporal.", "adapter.")) for k in keys):
        looks = "; it looks like a checkpoint of `mineclip train`: export it first (mineclip export CKPT --out DIR)"
    elif any(str(k).removeprefix("module.").startswith("visual.") for k in keys):
        looks = "; it looks like an OpenAI/open_clip CLIP file, which initialises towers (--model.init clip:PATH)"
    raise CheckpointError(
        "not a MineCLIP checkpoint: expected keys under image_encoder., temporal_encoder., reward_head., "
        f"clip_model. (with the 'model.' prefix), got {len(keys)} keys such as {keys[:6]}{looks}"
    )


def _listing(title: str, items: list[str], limit: int = 12) -> str:
    more = f" ... and {len(items) - limit} more" if len(items) > limit else ""
    return f"  {title} ({len(items)}): " + ", ".join(items[:limit]) + more


def _check_md5(path: Path, pooling: str, strict: bool) -> dict:
    md5 = file_md5(path)
    released_as = next((k for k, v in RELEASED_MD5.items() if v == md5), None)
    looks_released = path.name.lower() in RELEASED_NAMES
    info = {"md5": md5, "released": released_as is not None}
    if released_as is not None:
        if released_as != pooling:
            raise CheckpointError(f"{path}: MD5 is that of the released {released_as}.pth but its keys say {pooling}")
        log.info("%s: MD5 %s verified: released MineCLIP %s checkpoint", path, md5, pooling)
    elif looks_released or strict:
        expected = RELEASED_MD5[RELEASED_NAMES.get(path.name.lower(), pooling)]
        msg = (f"{path}: MD5 {md5} does not match the released {pooling}.pth ({expected}); "
               "the file is not the released checkpoint (modified, truncated or converted)")
        if strict:
            raise CheckpointError(msg)
        warnings.warn(msg, stacklevel=3)
    else:
        log.info("%s: MD5 %s; not a released MineCLIP checkpoint (released: attn %s, avg %s)",
                 path, md5, RELEASED_MD5["attn"], RELEASED_MD5["avg"])
    return info


def saved_config(d: dict, source) -> ModelConfig:
    """The ModelConfig a checkpoint recorded (`checkpoint['mineclip']['model_config']`); one that does not
    fit this version (a field it does not know, a wrong type) is a CheckpointError naming the file."""
    try:
        return ModelConfig.from_dict(d)
    except (TypeError, ValueError) as e:
        raise CheckpointError(f"{source}: its model config does not fit this version: {e}") from e


def load_official(path: str | Path, strict_md5: bool = False, config: ModelConfig | None = None, *,
                  checkpoint: Any = None) -> MineCLIP:
    """Load a released MineCLIP checkpoint (or one written by `save_official`) without running its code;
    an exported artifact (its directory or its model.safetensors) loads too.

    The pooling kind comes from the keys; the architecture from `config`, else the config saved by
    `save_official`, else the released MineCLIP size. Every tensor must be used and every
    parameter filled; alias keys must hold equal tensors. The MD5 is checked against the released
    files when the name is `attn.pth`/`avg.pth` or `strict_md5` is set (mismatch: warning, or error
    when strict), and logged otherwise. `checkpoint`: the file's contents when the caller already
    read them with `safe_torch_load` (mineclip.model.load reads a file once to tell its kind).
    """
    path = Path(path)
    if checkpoint is None and (path.is_dir() or path.suffix == ".safetensors"):
        from .artifact import load_artifact

        return load_artifact(path.parent if path.suffix == ".safetensors" else path)
    ckpt = safe_torch_load(path) if checkpoint is None else checkpoint
    sd = _extract_state_dict(ckpt, path)
    pooling = detect_pooling(sd)
    md5_info = _check_md5(path, pooling, strict_md5)

    if config is None:
        saved = ckpt.get("mineclip") if isinstance(ckpt, dict) else None
        if isinstance(saved, dict) and isinstance(saved.get("model_config"), dict):
            config = saved_config(saved["model_config"], path)
        else:
            config = get_config(f"mineclip_{pooling}")
    if config.temporal.pooling != pooling:
        raise CheckpointError(f"{path}: keys say {pooling} pooling, config says {config.temporal.pooling}")

    with _skip_random_init():
        model = MineCLIP(config)
    groups = official_key_map(model)
    targets = model.state_dict()
    expected = {name: key for key, names in groups.items() for name in names}

    missing = [n for n in expected if n not in sd]
    unexpected = [n for n in sd if n not in expected]
    wrong_shape, wrong_dtype = [], []
    for name, t in sd.items():
        if name in expected:
            want = targets[expected[name]]
            if tuple(t.shape) != tuple(want.shape):
                wrong_shape.append(f"{name} expected {list(want.shape)} got {list(t.shape)}")
            elif not t.is_floating_point():
                wrong_dtype.append(f"{name} expected floating point got {t.dtype}")
    if missing or unexpected or wrong_shape or wrong_dtype:
        lines = [f"{path} does not fit MineCLIP ({pooling} pooling, embed_dim {config.embed_dim}):"]
        for title, items in (("missing keys", missing), ("unexpected keys", unexpected),
                             ("wrong shape", wrong_shape), ("wrong dtype", wrong_dtype)):
            if items:
                lines.append(_listing(title, ["model." + i for i in items]))
        raise CheckpointError("\n".join(lines))

    differing = []
    for names in groups.values():
        first = sd[names[0]]
        for other in names[1:]:
            t = sd[other]
            same_view = (t.untyped_storage().data_ptr() == first.untyped_storage().data_ptr()
                         and t.storage_offset() == first.storage_offset() and t.stride() == first.stride())
            if not same_view and not torch.equal(t, first):
                differing.append(f"model.{other} != model.{names[0]}")
    if differing:
        raise CheckpointError(f"{path}: keys that alias one tensor in MineCLIP hold different values:\n"
                              + _listing("differing", differing))

    with torch.no_grad():
        for key, names in groups.items():
            targets[key].copy_(sd[names[0]])
    model.eval()
    model.checkpoint_info = {"path": str(path), "pooling": pooling, **md5_info}
    log.info("loaded %s (%s pooling, %d tensors under %d keys)", path, pooling, len(groups), len(sd))
    return model
