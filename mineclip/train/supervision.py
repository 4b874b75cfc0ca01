"""What the world that made the clips supervises, plugged into training by configuration.

Contrastive training needs nothing but clips and captions. Two optional losses use more of what a
simulator knows about its clips; training does not know the simulator, only these interfaces, and
a run names the object that implements each (`module:attribute`, imported when the loss is on):

- `FrameLabels` (`MineCLIPModule(frame_labels=...)`, for `frame_readout`): how a clip's
  `frame_labels` metadata becomes per-frame binary targets and counts. The crafter suite's:
  `mineclip.sim.labels:FRAME_LABELS`.
- `Phrasebook` (`MineCLIPModule(phrasebook=...)`, for `minimal_pairs`): the narrator's phrases for
  things in view, the time of day, idle talk and events, which minimal pairs swap. The crafter
  narrator's: `mineclip.play.narrate:PHRASEBOOK`.

The defaults name the crafter suite's; other data points them elsewhere (or leaves the losses off).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

LABEL_SETS = ("all", "inventory", "scene")  # which of a world's frame labels a read-out predicts
CRAFTER_FRAME_LABELS = "mineclip.sim.labels:FRAME_LABELS"
CRAFTER_PHRASEBOOK = "mineclip.play.narrate:PHRASEBOOK"


@runtime_checkable
class FrameLabels(Protocol):
    """Per-frame labels of a world's clips: `num_binary` binary targets and `num_counts` counts per
    frame; `columns(label_set)` -> (the binary columns of one of `LABEL_SETS`, whether its counts are
    read out too); `num_frames(frame_labels)` -> how many frames one clip's labels cover (ValueError
when they are not this world's); `decode(frame_labels, indices)` -> (binary float32 [T, num_binary], counts scaled to
    [0, 1] float32 [T, num_counts]) of the frames `indices` of one clip (ValueError on bad metadata)."""

    num_binary: int
    num_counts: int

    def columns(self, label_set: str) -> tuple[slice, bool]: ...

    def num_frames(self, labels: Mapping) -> int: ...

    def decode(self, labels: Mapping, indices: Sequence[int]) -> tuple[np.ndarray, np.ndarray]: ...


@runtime_checkable
class Phrasebook(Protocol):
    """A narrator's phrases: things in view (`view`: kind -> phrases) and close by (`near`), the time
    of day (`day`, `night`), idle talk (`idle`), events (`events`: event -> phrases), and the kinds a
    minimal pair may name as in view (`kinds`)."""

    kinds: Sequence[str]
    view: Mapping[str, Sequence[str]]
    near: Mapping[str, Sequence[str]]
    day: Sequence[str]
    night: Sequence[str]
    idle: Sequence[str]
    events: Mapping[str, Sequence[str]]


def check_label_set(labels: str) -> str:
    """`labels` if it names one of `LABEL_SETS`, else ValueError."""
    if labels not in LABEL_SETS:
        raise ValueError(f"frame_readout_labels must be one of {sorted(LABEL_SETS)}, got {labels!r}")
    return labels


def load_plugin(spec: str, protocol: type, option: str):
    """The object `spec` ("package.module:attribute") names, checked against `protocol`; a clear
    ValueError naming `option` when it cannot be imported or is not one."""
    module, _, attr = str(spec).partition(":")
    if not module or not attr:
        raise ValueError(f"{option} must name an object as 'package.module:attribute', got {spec!r}")
    try:
        obj = getattr(importlib.import_module(module), attr)
    except ImportError as e:
        raise ValueError(f"{option} {spec!r}: cannot import {module} ({e})") from e
    except AttributeError:
        raise ValueError(f"{option} {spec!r}: {module} has no {attr!r}") from None
    if not isinstance(obj, protocol):
        raise ValueError(f"{option} {spec!r} is not a {protocol.__name__} (mineclip.train.supervision)")
    return obj
