"""A person in the loop: label trajectories in the browser (`mineclip label`), with an append-only
label store, active ordering by the judge's uncertainty, and task difficulty ratings."""

from .items import Item, LabelSet, read_set
from .session import LabelSession, LabelSettings
from .storage import DECISIONS, LabelError, LabelStore

__all__ = ["DECISIONS", "Item", "LabelError", "LabelSession", "LabelSet", "LabelSettings", "LabelStore", "read_set"]
