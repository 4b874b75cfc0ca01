"""`mineclip pipeline`: presets (`presets`), the stages composed in one process (`run`), the
one-screen summary (`summary`), training seeds (`multiseed`) and the quality report over runs
(`quality`)."""

from .presets import Preset, list_presets, load_preset
from .run import STAGES, StageError, run_pipeline

__all__ = ["STAGES", "Preset", "StageError", "list_presets", "load_preset", "run_pipeline"]
