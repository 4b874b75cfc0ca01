"""A clip's metadata as a typed record: what a writer of shards records beside the video and its
caption, and what training reads back.

Every shard sample carries a JSON object (`<key>.json`); the batch reader turns it into a
`ClipMeta`. The fields training understands are typed; everything else a writer recorded (a task
id, an agent, a transcript file) stays in `other`, by name, and can still group clips
(`positives: meta.<field>`).

    key           the sample's key in its shard
    source        where the clip comes from (a video file, `crafter:<episode>`)
    fps           frames per second of the clip
    num_frames    frames in the clip
    says          facts the caption states ("view:cow", "event:collect_wood", "time:night")
    holds         facts true of the clip (what a caption may state without lying)
    frame_labels  per-frame supervision from the world that made the clip, opaque here: a training
                  plug-in decodes it (`mineclip.train.supervision`)
    completion    how fully the clip shows what its caption names, in [0, 1] (CLIP4MC's
                  task-completion degree; training's `graded_targets` reads it)
    named         the kinds the caption asks to see fully: named as in view, or acted on by its
                  event (first-person clips; training's `size_ranking` reads it)
    shares        kind -> the share of the clip's last frame it fills (first-person clips;
                  training's `size_ranking` reads it)

`says` and `holds` are what the crafter narrator records (`mineclip play clips`); clips of other
data have neither, and training options that need them say so.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Mapping

_MISSING = object()


@dataclass
class ClipMeta:
    """The metadata of one clip (see the module). Not frozen: Lightning rebuilds the dataclasses of a
    batch when it moves the batch to a device."""

    key: str | None = None
    source: str | None = None
    fps: float | None = None
    num_frames: int | None = None
    says: tuple[str, ...] | None = None
    holds: tuple[str, ...] | None = None
    frame_labels: Mapping | None = None
    completion: float | None = None
    named: tuple[str, ...] | None = None
    shares: Mapping[str, float] | None = None
    other: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, meta: Mapping | None) -> "ClipMeta":
        """The record of a sample's JSON metadata (None or {}: an empty record)."""
        if isinstance(meta, ClipMeta):
            return meta
        if meta is None:
            return cls()
        if not isinstance(meta, Mapping):
            raise ValueError(f"a clip's metadata must be a JSON object, got {type(meta).__name__}: {str(meta)[:100]}")
        typed = {f.name for f in fields(cls)} - {"other"}
        kwargs = {k: meta[k] for k in typed if k in meta}
        for facts in ("says", "holds", "named"):
            if kwargs.get(facts) is not None:
                kwargs[facts] = tuple(str(f) for f in kwargs[facts])
        return cls(**kwargs, other={k: v for k, v in meta.items() if k not in typed})

    def to_dict(self) -> dict:
        """The JSON object a shard stores (typed fields that are set, then `other`)."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "other"}
        out = {k: list(v) if isinstance(v, tuple) else v for k, v in out.items() if v is not None}
        return {**out, **self.other}

    def value(self, name: str, default: Any = _MISSING) -> Any:
        """The field `name`, typed or not; `default` (or KeyError) when the clip has none."""
        if name != "other" and name in {f.name for f in fields(self)} and getattr(self, name) is not None:
            return getattr(self, name)
        if name in self.other:
            return self.other[name]
        if default is _MISSING:
            raise KeyError(name)
        return default

    def has(self, name: str) -> bool:
        """Whether the clip has the field `name` (a typed field that is set, or any other field)."""
        typed = name != "other" and name in {f.name for f in fields(self)}
        return (typed and getattr(self, name) is not None) or name in self.other
