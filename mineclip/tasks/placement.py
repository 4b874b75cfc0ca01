"""Where a context task's scene is placed: as the task says (`scene`, the default: 3-7 tiles from the
spawn, what every earlier measurement used) or out of sight (`hidden`), so that even a perfect
perceiver has to search for it.

`placement_init(task, placement, world_seed)` is what to add to the task's initial conditions
(`CrafterEnv.reset(options={"init": ...})`; None for `scene`, which keeps the task's own). `hidden`:

- **a random spawn**: the player starts on a random walkable tile within `HIDDEN_SPAWN` tiles of the
  world's centre (`init.spawn_jitter`), facing one of the four ways at random (`init.facing`);
- **the scene behind the player**: the task's `place` entries keep their shape (a cow beside its pond,
  trees beside both) but are turned as a whole so that the scene lies behind the player, then moved
  `HIDDEN_SHIFT[level]` more tiles away, and sideways by up to `HIDDEN_SIDEWAYS` tiles; entries placed
  at random (`distance: [lo, hi]`) are drawn behind the player, `HIDDEN_SHIFT[level]` farther than the
  task says. Every placed tile is at least one tile behind the player's eyes (in first person nothing
  of the scene is in the first frame; from above, it is farther than the task's scene, but may still
  be in the 16x9 window);
- **the level**: the shift grows with MP5's level (1, 2, 3, 4-6 conditions: the task's
  `conditions-N` tag), so the harder levels' scenes are farther;
- **what stays**: the time of day and the light (`init.time`), the inventory, the task's step budget
  and success criterion. The world around (its own cows, lakes, trees) is as generated: a cow of the
  world found first is as good as the placed one.

The draw depends only on the task and the world seed (the same episode each time, whichever agent
or view plays it).
"""

from __future__ import annotations

import zlib

import numpy as np

PLACEMENTS = ("scene", "hidden")
DEFAULT_PLACEMENT = "scene"
HIDDEN_SPAWN = 8  # tiles around the world's centre the player may start on
HIDDEN_SHIFT = {1: 2, 2: 4, 3: 6, 4: 8}  # tiles farther than the task's scene, by level
HIDDEN_SIDEWAYS = 2  # at most this many tiles to either side
DIRECTIONS = ((0, 1), (1, 0), (0, -1), (-1, 0))


def check_placement(placement: str) -> str:
    """`placement` if it names one, else a ValueError naming them."""
    if placement not in PLACEMENTS:
        raise ValueError(f"unknown placement {placement!r}; expected one of {list(PLACEMENTS)}")
    return placement


def task_level(task) -> int:
    """MP5's level of a context task from its `conditions-N` tag (1, 2, 3; 4 for 4-6), else a ValueError."""
    counts = [int(t.split("-", 1)[1]) for t in task.tags if t.startswith("conditions-") and t[11:].isdigit()]
    if not counts:
        raise ValueError(f"task {task.id} has no conditions-N tag: not one of MP5's context tasks")
    return min(max(counts[0], 1), 4)


def _rotate(offset, quarter: int) -> tuple[int, int]:
    """An offset turned by `quarter` quarter turns (crafter's grid, as `sim.view.turn` turns right)."""
    x, y = int(offset[0]), int(offset[1])
    for _ in range(quarter % 4):
        x, y = -y, x
    return x, y


def _quarters(a, b) -> int:
    """The quarter turns that take grid direction `a` to `b`."""
    return next(q for q in range(4) if _rotate(a, q) == tuple(b))


def _tiles(at, area) -> list[tuple[int, int]]:
    return [(int(at[0]) + ax, int(at[1]) + ay) for ax in range(int(area[0])) for ay in range(int(area[1]))]


def _main_direction(tiles) -> tuple[int, int]:
    """The grid direction the scene lies in from the player (its centroid's larger axis)."""
    cx, cy = np.mean(tiles, axis=0)
    if abs(cx) >= abs(cy):
        return (1 if cx >= 0 else -1), 0
    return 0, (1 if cy >= 0 else -1)


def placement_init(task, placement: str = DEFAULT_PLACEMENT, world_seed: int = 0,
                   level: int | None = None) -> dict | None:
    """The initial conditions that place `task`'s scene as `placement` says on world `world_seed`
    (to merge over the task's own: `reset(options={"init": ...})`); None for `scene` (the task's own
    placement). `level`: MP5's level (default: the task's `conditions-N` tag)."""
    if check_placement(placement) == "scene":
        return None
    level = task_level(task) if level is None else int(level)
    if level not in HIDDEN_SHIFT:
        raise ValueError(f"expected a level in {sorted(HIDDEN_SHIFT)}, got {level}")
    shift = HIDDEN_SHIFT[level]
    rng = np.random.RandomState((zlib.crc32(task.id.encode()) + 7919 * int(world_seed)) % (2**32))
    facing = DIRECTIONS[rng.randint(4)]
    back = (-facing[0], -facing[1])
    side = (facing[1], -facing[0])
    sideways = int(rng.randint(-HIDDEN_SIDEWAYS, HIDDEN_SIDEWAYS + 1))
    entries = [dict(e) for e in (task.init or {}).get("place", [])]
    fixed = [e for e in entries if "at" in e]
    taken: set[tuple[int, int]] = set()
    out = []
    if fixed:  # the scene's fixed part, turned as one so that it lies behind the player, and moved off
        tiles = []
        for e in fixed:
            ats = e["at"] if isinstance(e["at"][0], (list, tuple)) else [e["at"]]
            for at in ats:
                tiles += _tiles(at, e.get("area", (1, 1)))
        q = _quarters(_main_direction(tiles), back)
        move = (back[0] * shift + side[0] * sideways, back[1] * shift + side[1] * sideways)
        for e in fixed:
            w, h = e.get("area", (1, 1))
            ats = e["at"] if isinstance(e["at"][0], (list, tuple)) else [e["at"]]
            new_ats = []
            for at in ats:
                turned = [_rotate(t, q) for t in _tiles(at, (w, h))]
                corner = (min(x for x, _ in turned) + move[0], min(y for _, y in turned) + move[1])
                new_ats.append(list(corner))
                taken |= {(x + move[0], y + move[1]) for x, y in turned}
            moved = {**e, "at": new_ats if len(new_ats) > 1 else new_ats[0]}
            if "area" in e:
                moved["area"] = [w, h] if q % 2 == 0 else [h, w]
            out.append(moved)
    for e in entries:  # the parts placed at random: drawn behind the player, farther than the task says
        if "at" in e:
            continue
        lo, hi = e.get("distance", [2, 5])
        lo, hi = int(lo) + shift, int(hi) + shift
        w, h = (int(v) for v in e.get("area", (1, 1)))
        candidates = []
        for dx in range(-hi - w, hi + 1):
            for dy in range(-hi - h, hi + 1):
                tiles = _tiles((dx, dy), (w, h))
                ahead = [x * facing[0] + y * facing[1] for x, y in tiles]
                across = [abs(x * side[0] + y * side[1]) for x, y in tiles]
                nearest = min(abs(x) + abs(y) for x, y in tiles)
                # behind the player (at least a tile), within the cone behind it, at the distance asked
                if max(ahead) <= -1 and max(across) <= -max(ahead) + 2 and lo <= nearest <= hi:
                    candidates.append((dx, dy))
        ats = []
        for _ in range(int(e.get("count", 1))):
            order = rng.permutation(len(candidates))
            for i in order:
                tiles = _tiles(candidates[i], (w, h))
                if any((x + ex, y + ey) in taken for x, y in tiles for ex in (-1, 0, 1) for ey in (-1, 0, 1)):
                    continue  # one tile clear of what is placed already, as random placements keep
                ats.append(list(candidates[i]))
                taken |= set(tiles)
                break
        if ats:
            moved = {k: v for k, v in e.items() if k not in ("distance", "count")}
            moved.update(at=ats if len(ats) > 1 else ats[0], count=len(ats))
            out.append(moved)
    return {"spawn_jitter": HIDDEN_SPAWN, "facing": list(facing), "place": out}
