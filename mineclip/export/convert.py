"""A checkpoint of any kind becomes an artifact (safetensors + JSON + model card) or a file in the
released layout. `mineclip export` and the pipeline call `export_checkpoint`."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import torch

from mineclip.model.artifact import DEFAULT_WINDOW, Artifact, JudgeSettings, load_artifact
from mineclip.model.load import load_checkpoint

FORMATS = ("artifact", "official")
RESIZE = ("pad", "crop", "stretch")


class ExportError(ValueError):
    """The written artifact scores differently from the checkpoint."""


class ExportSettingsError(ExportError):
    """The export settings do not fit the checkpoint (a window longer than the model takes, ...)."""


@dataclass
class ExportSettings:
    """What `export_checkpoint` writes; the defaults are `mineclip export`'s."""

    checkpoint: str  # file or directory of any kind mineclip.model.load reads
    out: str  # artifact directory, or a .pth file with format "official"
    format: str = "artifact"
    config: str | None = None  # architecture name when the checkpoint records none
    tag: str | None = None  # DeepSpeed tag (default: its 'latest' file)
    name: str | None = None  # title of the model card
    resize: str = "pad"  # how the reward fits frames of another size
    window: int = DEFAULT_WINDOW  # frames per reward window
    frame_stride: int = 1  # steps between a window's frames
    verify: bool = True  # reload the artifact and compare scores
    judge: JudgeSettings | None = None  # the judge's settings to record (judge.json); None: the defaults


@dataclass
class ExportResult:
    """What `export_checkpoint` wrote."""

    out: str
    format: str
    kind: str  # the checkpoint's kind
    parameters: int
    pooling: str
    max_score_diff: float | None  # round trip (None when not verified)
    seconds: float


def verify_round_trip(model, out: str | Path) -> float:
    """Max |score difference| between the model and the artifact reloaded from disk (expected 0.0)."""
    h, w = model.config.vision.resolution
    g = torch.Generator().manual_seed(0)
    video = torch.randint(0, 256, (1, 4, 3, h, w), dtype=torch.uint8, generator=g)
    texts = ["chop a tree", "drink water"]
    reloaded = load_artifact(out)
    with torch.no_grad():
        a = model.eval()(video, texts)
        b = reloaded(video, texts)
    return float((a - b).abs().max())


def export_checkpoint(s: ExportSettings) -> ExportResult:
    """Read `s.checkpoint` (any kind) and write it as an artifact or in the released layout."""
    t0 = time.time()
    if s.format not in FORMATS:
        raise ExportSettingsError(f"format must be one of {FORMATS}, got {s.format!r}")
    loaded = load_checkpoint(s.checkpoint, config=s.config, tag=s.tag)
    model, out = loaded.model, Path(s.out)
    if s.format == "official":
        from mineclip.model.official import save_official

        out.parent.mkdir(parents=True, exist_ok=True)
        save_official(model, out)
        return ExportResult(str(out), s.format, loaded.kind, model.num_parameters(), model.config.temporal.pooling,
                            None, time.time() - t0)
    if not 1 <= s.window <= model.max_frames:
        raise ExportSettingsError(f"--window must be 1 to {model.max_frames}, got {s.window}")
    if s.frame_stride < 1:
        raise ExportSettingsError(f"--frame-stride must be at least 1, got {s.frame_stride}")
    if s.resize not in RESIZE:
        raise ExportSettingsError(f"--resize must be one of {RESIZE}, got {s.resize!r}")
    source = {"kind": loaded.kind, "path": str(Path(s.checkpoint).resolve()), "name": s.name}
    Artifact.create(model, out, source=source, training=loaded.info, resize=s.resize, name=s.name, window=s.window,
                    frame_stride=s.frame_stride, judge=s.judge)
    diff = verify_round_trip(model, out) if s.verify else None
    if diff is not None and diff != 0.0:
        raise ExportError(f"round trip changed scores by up to {diff:g} (expected 0)")
    return ExportResult(str(out), s.format, loaded.kind, model.num_parameters(), model.config.temporal.pooling, diff,
                        time.time() - t0)
