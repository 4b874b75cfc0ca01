"""`mineclip pipeline`: presets (`presets`), the stages composed in one process (`run`), and the
one-screen summary (`summary`)."""

from .presets import Preset, list_presets, load_preset
from .run import STAGES, StageError, run_pipeline

__all__ = ["STAGES", "Preset", "StageError", "list_presets", "load_preset", "run_pipeline"]
