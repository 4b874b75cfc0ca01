"""What the world looks like at one step: the player, what the frame shows, what is around, and
per-step events.

Two maps of kinds to offsets from the player: `view`, what the frame shows (from above the local
window of 16x9 tiles, in first person the tiles and objects the first-person frame shows at least
one pixel of, `firstperson.in_view`), which is what "in view", "seen" and counts mean; and `around`,
the same local window whatever the view, which is what distances and "near" mean (facts about the
world, not the picture). From above the two are the same map."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from .vocab import CREATURES

LOCAL_VIEW = (16, 9)  # tiles of world shown above the inventory bar (x, y)
VIEW_OFFSET = (LOCAL_VIEW[0] // 2, LOCAL_VIEW[1] // 2)
DAY, NIGHT = 0.5, 0.35  # daylight above DAY is day, below NIGHT is night
BRIGHT = 0.75  # daylight above BRIGHT is bright, below NIGHT dark (the frame's light, MP5's brightness)


def brightness(daylight: float) -> str:
    """'bright', 'dark' or 'dim' (in between): how lit the frame is drawn."""
    return "bright" if daylight >= BRIGHT else "dark" if daylight < NIGHT else "dim"


def object_kind(obj) -> str:
    """Lower-case class name of a crafter object ('cow', 'zombie', 'plant', ...)."""
    return type(obj).__name__.lower()


@dataclass
class WorldState:
    """A compact, picklable snapshot of everything success checks, agents and narration read."""

    step: int
    inventory: dict[str, int]
    achievements: dict[str, int]
    pos: tuple[int, int]
    facing: tuple[int, int]
    facing_kind: str | None  # object kind if an object is ahead, else the material ahead
    sleeping: bool
    daylight: float
    view: dict[str, list[tuple[int, int]]] = field(default_factory=dict)  # kind -> offsets the frame shows
    around: dict[str, list[tuple[int, int]]] | None = None  # kind -> offsets in the local window; None: `view`
    shares: dict[str, float] | None = None  # first person: kind -> its share of the frame's world pixels

    def __post_init__(self):
        if self.around is None:
            self.around = self.view

    @property
    def health(self) -> int:
        return self.inventory["health"]

    @property
    def time_of_day(self) -> str:
        return "day" if self.daylight >= DAY else "night" if self.daylight < NIGHT else "dusk"

    def count(self, kind: str) -> int:
        """How many tiles or objects of a kind are in view (the frame shows them)."""
        return len(self.view.get(kind, ()))

    def distance(self, kind: str) -> float:
        """Manhattan distance to the nearest tile or object of a kind in the local window around the
        player, in view or not (inf if none)."""
        offsets = self.around.get(kind)
        if not offsets:
            return float("inf")
        return float(min(abs(dx) + abs(dy) for dx, dy in offsets))

    def view_distance(self, kind: str) -> float:
        """Manhattan distance to the nearest tile or object of a kind the frame shows (inf if none)."""
        offsets = self.view.get(kind)
        if not offsets:
            return float("inf")
        return float(min(abs(dx) + abs(dy) for dx, dy in offsets))

    def to_dict(self) -> dict:
        return {
            "step": self.step, "pos": list(self.pos), "facing": list(self.facing),
            "facing_kind": self.facing_kind, "sleeping": self.sleeping,
            "daylight": round(self.daylight, 3), "inventory": dict(self.inventory),
            "view": {k: len(v) for k, v in self.view.items()},
        } | ({} if self.around is self.view else {"around": {k: len(v) for k, v in self.around.items()}})


def snapshot(world, player, step: int, shown: dict[str, list[tuple[int, int]]] | None = None) -> WorldState:
    """Read a WorldState from a crafter world and player; `shown`: what the frame shows, when it is not
    the local window (the first-person frame's `firstperson.in_view`)."""
    px, py = (int(v) for v in player.pos)
    x0, y0 = px - VIEW_OFFSET[0], py - VIEW_OFFSET[1]
    view: dict[str, list[tuple[int, int]]] = {}
    area = world.area
    xs0, ys0 = max(x0, 0), max(y0, 0)
    xs1, ys1 = min(x0 + LOCAL_VIEW[0], area[0]), min(y0 + LOCAL_VIEW[1], area[1])
    window = world._mat_map[xs0:xs1, ys0:ys1]
    names = world._mat_names
    # every material's tiles in the window, materials by id and tiles in row-major order (what
    # np.unique and np.nonzero per material gave), from one stable sort: a tenth of a top-down step
    ids = window.ravel()
    order = np.argsort(ids, kind="stable")
    ranked = ids[order]
    xs = (order // window.shape[1] + (xs0 - px)).tolist()
    ys = (order % window.shape[1] + (ys0 - py)).tolist()
    start = 0
    for end in [*(np.flatnonzero(np.diff(ranked)) + 1).tolist(), len(ranked)]:
        view[names[int(ranked[start])]] = list(zip(xs[start:end], ys[start:end]))
        start = end
    for obj in world.objects:
        ox, oy = int(obj.pos[0]) - px, int(obj.pos[1]) - py
        if obj is player or not (-VIEW_OFFSET[0] <= ox < LOCAL_VIEW[0] - VIEW_OFFSET[0]):
            continue
        if not -VIEW_OFFSET[1] <= oy < LOCAL_VIEW[1] - VIEW_OFFSET[1]:
            continue
        view.setdefault(object_kind(obj), []).append((ox, oy))
    around, view = view, (view if shown is None else shown)
    fx, fy = int(player.facing[0]), int(player.facing[1])
    material, obj = world[(px + fx, py + fy)]
    return WorldState(
        step=step,
        inventory=dict(player.inventory),
        achievements=dict(player.achievements),
        pos=(px, py),
        facing=(fx, fy),
        facing_kind=object_kind(obj) if obj is not None else material,
        sleeping=bool(player.sleeping),
        daylight=float(world.daylight),
        view=view,
        around=around,
    )


def step_events(prev: WorldState, now: WorldState, action: str, hit: str | None) -> list[str]:
    """Names of what happened between two states: achievements, hits, item changes, time, sleep."""
    events = []
    for name, count in now.achievements.items():
        if count > prev.achievements.get(name, 0):
            events.append(name)
    if hit:
        events.append(f"hit_{hit}")
    for item, amount in now.inventory.items():
        delta = amount - prev.inventory.get(item, 0)
        if delta > 0:
            events.append(f"gain_{item}")
        elif delta < 0:
            events.append("hurt" if item == "health" else f"lose_{item}")
    if now.sleeping and not prev.sleeping:
        events.append("fall_asleep")
    if prev.daylight >= NIGHT > now.daylight:
        events.append("nightfall")
    if prev.daylight < DAY <= now.daylight:
        events.append("sunrise")
    for kind in CREATURES:
        if now.count(kind) > prev.count(kind):
            events.append(f"see_{kind}")
    return events


@dataclass
class EpisodeContext:
    """What success checks and oracles may read: the start, the current state, all events so far."""

    start: WorldState
    state: WorldState
    start_map: np.ndarray  # material ids at reset
    world_map: np.ndarray  # material ids now (a live view, do not modify)
    material_ids: dict[str, int]
    events: Counter = field(default_factory=Counter)
    start_plants: set = field(default_factory=set)  # plant positions at reset

    def changed(self, before: str, after: str) -> np.ndarray:
        """Tile positions [K, 2] whose material went from `before` (or any, '*') to `after`."""
        now = self.world_map == self.material_ids[after]
        was = self.start_map != self.material_ids[after] if before == "*" else self.start_map == self.material_ids[before]
        return np.argwhere(now & was)
