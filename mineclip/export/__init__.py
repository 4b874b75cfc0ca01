"""Checkpoints (Lightning, DeepSpeed, released) -> artifacts (safetensors + JSON + model card)."""

from .artifact import ArtifactError, load_artifact, read_artifact_config, save_artifact
from .checkpoint import CheckpointError, LoadedCheckpoint, UnsafeCheckpointError, load_checkpoint, safe_torch_load

__all__ = [
    "ArtifactError",
    "CheckpointError",
    "LoadedCheckpoint",
    "UnsafeCheckpointError",
    "load_artifact",
    "load_checkpoint",
    "read_artifact_config",
    "safe_torch_load",
    "save_artifact",
]
