"""Model configurations: the released MineCLIP sizes and small ones for CPU work."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

# Pixel statistics measured on 2.8M Minecraft frames (MineDojo paper, appendix E).
MC_IMAGE_MEAN = (0.3331, 0.3245, 0.3051)
MC_IMAGE_STD = (0.2439, 0.2493, 0.2873)

POOLINGS = ("avg", "attn")


@dataclass
class VisionConfig:
    """CLIP ViT frame encoder."""

    width: int = 768
    layers: int = 12
    heads: int = 12
    patch_size: int = 16
    resolution: tuple[int, int] = (160, 256)  # (height, width)
    mlp_ratio: float = 4.0


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
        h, w = self.vision.resolution
        p = self.vision.patch_size
        if h % p or w % p:
            raise ValueError(f"resolution {h}x{w} is not a multiple of patch size {p}")

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


def _mineclip(pooling: str) -> ModelConfig:
    return ModelConfig(temporal=TemporalConfig(pooling=pooling))


def _tiny(pooling: str) -> ModelConfig:
    return ModelConfig(
        embed_dim=128,
        vision=VisionConfig(width=64, layers=2, heads=2),
        text=TextConfig(width=128, layers=4, heads=4),
        temporal=TemporalConfig(pooling=pooling, layers=2, heads=4, dim_head=32),
        trainable_blocks=-1,
    )


CONFIGS = {
    "mineclip_attn": lambda: _mineclip("attn"),
    "mineclip_avg": lambda: _mineclip("avg"),
    "tiny": lambda: _tiny("attn"),
    "tiny_attn": lambda: _tiny("attn"),
    "tiny_avg": lambda: _tiny("avg"),
}


def list_configs() -> list[str]:
    return sorted(CONFIGS)


def get_config(name: str, **overrides) -> ModelConfig:
    """A named configuration, with top-level fields overridden by keyword."""
    if name not in CONFIGS:
        raise KeyError(f"unknown model config {name!r}; known: {', '.join(list_configs())}")
    cfg = CONFIGS[name]()
    return dataclasses.replace(cfg, **overrides) if overrides else cfg
