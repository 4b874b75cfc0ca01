"""What a frame shows, from the simulator's state: the training targets of the frame encoder's
auxiliary read-out (`mineclip.train.readout`).

Per frame, four things a picture of crafter shows and the narration says only now and then:

- `seen`: each kind of tile or creature the frame shows (water, sand, cow, ...): `WorldState.view`,
  the local window from above, what the first-person frame shows in first person;
- `near`: each kind within one tile of the player (what the player can drink, place next to,
  hit or pick up: where the tasks' events happen), in view or not: `WorldState.around`;
- `day`: whether it is day (the frame's light);
- `inv`: the inventory bar, every item's count (vitals 0-9, items clipped at 9).

Stored compactly in a clip's metadata, field `frame_labels` (`encode_frames`: `{"seen": [bits],
"near": [bits], "day": [0/1], "inv": [[counts]]}`, one entry per frame), and turned back into
tensors for the frames a training batch samples (`decode_frames`). The vocabularies are fixed here,
so that a stored clip and a model's read-out agree on what each bit means. `FRAME_LABELS` is
what training plugs in to decode them (`mineclip.train.supervision.FrameLabels`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from .state import WorldState
from .vocab import ITEM_MAX, ITEMS, KINDS

MAX_COUNT = ITEM_MAX  # the bar draws counts up to 9
NEAR = 1  # Manhattan distance of "next to the player"
FIELDS = ("seen", "near", "day", "inv")
SCENE_BITS = 2 * len(KINDS) + 1  # the binary targets' first columns: seen, near, day
BINARY = SCENE_BITS + len(ITEMS)  # then "has at least one" of each item


def _bits(kinds) -> int:
    return sum(1 << KINDS.index(k) for k in kinds if k in KINDS)


def frame_label(state: WorldState) -> tuple[int, int, int, list[int]]:
    """(seen bits, near bits, day, inventory counts) of one frame's state."""
    near = [k for k, offsets in state.around.items() if any(0 < abs(dx) + abs(dy) <= NEAR for dx, dy in offsets)]
    inv = [min(int(state.inventory.get(item, 0)), MAX_COUNT) for item in ITEMS]
    return _bits(state.view), _bits(near), int(state.time_of_day == "day"), inv


def encode_frames(states: Sequence[WorldState]) -> dict:
    """The labels of a clip's frames, JSON-ready (a clip's `frame_labels` metadata)."""
    rows = [frame_label(s) for s in states]
    return {name: [r[i] for r in rows] for i, name in enumerate(FIELDS)}


def decode_frames(labels: dict, indices: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """(binary targets float32 [T, BINARY], inventory counts / 9 float32 [T, len(ITEMS)]) of the
    frames `indices` of a clip's `frame_labels` metadata. Raises ValueError on metadata of another shape."""
    try:
        seen, near = (np.asarray(labels[k], dtype=np.int64)[list(indices)] for k in ("seen", "near"))
        day = np.asarray(labels["day"], dtype=np.float32)[list(indices)]
        inv = np.asarray(labels["inv"], dtype=np.float32)[list(indices)]
    except (KeyError, IndexError, TypeError, ValueError) as e:
        raise ValueError(f"frame labels must hold {FIELDS} with one entry per frame: {e}") from None
    if inv.ndim != 2 or inv.shape[1] != len(ITEMS):
        raise ValueError(f"frame labels' inv must be [frames, {len(ITEMS)}] counts, got {list(inv.shape)}")
    bit = 1 << np.arange(len(KINDS))
    binary = np.concatenate([(seen[:, None] & bit) > 0, (near[:, None] & bit) > 0, day[:, None] > 0, inv > 0], axis=1)
    return binary.astype(np.float32), np.clip(inv, 0, MAX_COUNT) / MAX_COUNT


class CrafterFrameLabels:
    """The crafter suite's frame labels as training's `FrameLabels` plug-in
    (`mineclip.train.supervision`): the binary targets `seen`, `near`, `day`, "has at least one" of
    each item, then the item counts / 9."""

    num_binary = BINARY
    num_counts = len(ITEMS)
    LABEL_SETS = {"all": (slice(0, BINARY), True), "inventory": (slice(SCENE_BITS, BINARY), True),
                  "scene": (slice(0, SCENE_BITS), False)}

    def columns(self, label_set: str) -> tuple[slice, bool]:
        if label_set not in self.LABEL_SETS:
            raise ValueError(f"crafter's frame labels have the sets {sorted(self.LABEL_SETS)}, got {label_set!r}")
        return self.LABEL_SETS[label_set]

    def num_frames(self, labels: dict) -> int:
        frames = len(labels.get("day") or ()) if isinstance(labels, dict) else 0
        if not frames:
            raise ValueError(f"frame labels must hold {FIELDS} with one entry per frame, got {str(labels)[:200]}")
        return frames

    decode = staticmethod(decode_frames)


FRAME_LABELS = CrafterFrameLabels()
