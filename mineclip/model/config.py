"""Model configurations: the dataclasses, and the named configs (JSON files in `configs/`: the
released MineCLIP sizes, `tiny` ones for CPU work, `micro` for tests) found by a registry."""

from __future__ import annotations

import copy
import dataclasses
import json
import os
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

# Pixel statistics measured on 2.8M Minecraft frames (MineDojo paper, appendix E).
MC_IMAGE_MEAN = (0.3331, 0.3245, 0.3051)
MC_IMAGE_STD = (0.2439, 0.2493, 0.2873)

POOLINGS = ("avg", "attn")
FRAME_POOLS = ("tok", "avg")


# The MineDojo paper's clip (sec. 4.2), in one place: every default that means "a clip" or "a
# reward window" (the data's frames per clip, the artifact's window, the judge's top-k, the suite's
# clips and tail after success) and every frame size (the model's input, the simulator's frames)
CLIP_FRAMES = 16  # frames per clip and per reward window
RESOLUTION = (160, 256)  # (height, width) of a frame


@dataclass
class VisionConfig:
    """CLIP ViT frame encoder."""

    width: int = 768
    layers: int = 12
    heads: int = 12
    patch_size: int = 16
    resolution: tuple[int, int] = RESOLUTION  # (height, width)
    mlp_ratio: float = 4.0
    # What the frame embedding is made of: `tok` the CLS token (CLIP, MineCLIP), `avg` the mean of the
    # patch tokens (open_clip's pool_type), where each 16-px tile's token reaches the embedding directly
    pool: str = "tok"
    # Rows at the bottom of every frame that the encoder never sees: they are filled with the mean
    # colour (`image_mean`) before the patch embedding, in training and at inference alike. For an
    # overlay drawn over the view (an inventory bar) that tells a caption's event without the world.
    blank_bottom: int = 0


@dataclass
class TextConfig:
    """CLIP GPT-style text encoder."""

    width: int = 512
    layers: int = 12
    heads: int = 8
    context_length: int = 77
    vocab_size: int = 49408


@dataclass
class TemporalConfig:
    """Aggregator over per-frame embeddings: `avg` (no parameters) or `attn`."""

    pooling: str = "attn"
    layers: int = 2
    heads: int = 8
    dim_head: int = 64
    ff_mult: int = 4
    max_frames: int = 32


@dataclass
class ModelConfig:
    """Everything that decides the architecture; the defaults are MineCLIP (attn)."""

    embed_dim: int = 512
    vision: VisionConfig = field(default_factory=VisionConfig)
    text: TextConfig = field(default_factory=TextConfig)
    temporal: TemporalConfig = field(default_factory=TemporalConfig)
    adapter_layers: int = 2
    adapter_residual_init: float = 4.0
    logit_scale_init: float = 2.6592600262251173  # log(1 / 0.07)
    logit_scale_max: float = 4.605170185988092  # log(100)
    image_mean: tuple[float, float, float] = MC_IMAGE_MEAN
    image_std: tuple[float, float, float] = MC_IMAGE_STD
    # How many of the last transformer blocks of each tower train; -1 = all, 0 = none.
    # The aggregator, adapter and logit scale always train.
    trainable_blocks: int = 2

    def __post_init__(self) -> None:
        if isinstance(self.vision, dict):
            self.vision = _build(VisionConfig, self.vision, "vision.")
        if isinstance(self.text, dict):
            self.text = _build(TextConfig, self.text, "text.")
        if isinstance(self.temporal, dict):
            self.temporal = _build(TemporalConfig, self.temporal, "temporal.")
        self.vision.resolution = tuple(self.vision.resolution)
        self.image_mean = tuple(self.image_mean)
        self.image_std = tuple(self.image_std)
        if self.temporal.pooling not in POOLINGS:
            raise ValueError(f"temporal.pooling must be one of {POOLINGS}, got {self.temporal.pooling!r}")
        if self.vision.pool not in FRAME_POOLS:
            raise ValueError(f"vision.pool must be one of {FRAME_POOLS}, got {self.vision.pool!r}")
        h, w = self.vision.resolution
        p = self.vision.patch_size
        if h % p or w % p:
            raise ValueError(f"resolution {h}x{w} is not a multiple of patch size {p}")
        if type(self.vision.blank_bottom) is not int or not 0 <= self.vision.blank_bottom < h:  # not a bool either
            raise ValueError(f"vision.blank_bottom is a number of frame rows in [0, {h}), got {self.vision.blank_bottom!r}")

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "ModelConfig":
        """The config of `to_dict()`; a field this version does not know is a ValueError that names it."""
        return _build(cls, d, "")


def _build(cls, d: dict, where: str):
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(d) - known)
    if unknown:
        raise ValueError(f"unknown model config field(s) {', '.join(where + k for k in unknown)} (written by another "
                         f"version of mineclip?); {cls.__name__} has: {', '.join(sorted(known))}")
    return cls(**d)


# Named configs are JSON files, one per name, in mineclip/model/configs/ and in folders added with
# `add_model_config` (as open_clip's model_configs/); a later folder's file wins over an earlier one.
_CONFIG_DIRS: list[Path] = [Path(str(resources.files("mineclip.model").joinpath("configs")))]
ALIASES = {"tiny": "tiny_attn"}  # the built-in default's model


def add_model_config(path: str | os.PathLike) -> None:
    """Make the JSON configs of a folder (or one JSON file) available by their file names."""
    path = Path(path)
    if not (path.is_dir() or (path.is_file() and path.suffix == ".json")):
        raise FileNotFoundError(f"expected a folder of model config JSON files or one such file, got {path}")
    _CONFIG_DIRS.append(path)


def _config_files() -> dict[str, Path]:
    files: dict[str, Path] = {}
    for d in _CONFIG_DIRS:
        for f in ([d] if d.is_file() else sorted(d.glob("*.json"))):
            files[f.stem] = f
    return files


def list_configs() -> list[str]:
    """Names of every known model config (aliases included)."""
    return sorted(set(_config_files()) | set(ALIASES))


def merge_overrides(base: dict, overrides: dict, where: str = "") -> dict:
    """`base` with nested `overrides` merged in (a copy); a key `base` does not have is a KeyError."""
    out = copy.deepcopy(base)
    for k, v in (overrides or {}).items():
        if k not in out:
            raise KeyError(f"unknown model config field {where}{k!r}; known: {', '.join(out)}")
        if isinstance(out[k], dict) and isinstance(v, dict):
            out[k] = merge_overrides(out[k], v, f"{where}{k}.")
        else:
            out[k] = copy.deepcopy(v)
    return out


def get_config(name: str, **overrides) -> ModelConfig:
    """A named configuration with fields overridden by keyword, nested ones by dicts:
    `get_config("tiny", trainable_blocks=2, vision={"resolution": [32, 64]})`."""
    files = _config_files()
    path = files.get(ALIASES.get(name, name))
    if path is None:
        raise KeyError(f"unknown model config {name!r}; known: {', '.join(list_configs())}")
    try:
        d = json.loads(path.read_text())
    except ValueError as e:
        raise ValueError(f"{path}: not a JSON model config: {e}") from e
    base = ModelConfig.from_dict(d).to_dict()  # fields the file leaves out take their defaults
    return ModelConfig.from_dict(merge_overrides(base, overrides))
