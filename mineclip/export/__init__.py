"""Export: a checkpoint of any kind (`mineclip.model.load`) becomes an artifact
(`mineclip.model.artifact`: safetensors + JSON + model card) or a file in the released layout."""

from .convert import (ExportError, ExportResult, ExportSettings, ExportSettingsError, export_checkpoint,
                      verify_round_trip)

__all__ = ["ExportError", "ExportResult", "ExportSettings", "ExportSettingsError", "export_checkpoint", "verify_round_trip"]
