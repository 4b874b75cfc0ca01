"""Walking in a crafter world: which tiles a player can step on, and the one breadth-first path
search every walker uses (the scripted agents of `mineclip.play`, the assistant's navigation).

A tile is free when its material is walkable (`vocab.WALKABLE`: grass, sand, path) and no object
stands on it; the player's own tile counts as free (it moves off). Moves are (dx, dy) steps, tried
in the order of `DIRS` unless a walker passes its own order (a second demonstrator breaks path ties
its own way).
"""

from __future__ import annotations

from collections import deque
from typing import Callable, Sequence

import numpy as np

from .vocab import WALKABLE

Pos = tuple[int, int]
DIRS: dict[str, Pos] = {"left": (-1, 0), "right": (1, 0), "up": (0, -1), "down": (0, 1)}


def free_tiles(world) -> list[list[bool]]:
    """`free[x][y]`: whether a player can step on the tile (nested lists: the fastest lookup in a search)."""
    walk = np.isin(world._mat_map, [world._mat_ids[m] for m in WALKABLE])
    free = walk & (world._obj_map == 0)
    for obj in world.objects:
        if type(obj).__name__ == "Player" and walk[tuple(obj.pos)]:
            free[tuple(obj.pos)] = True
    return free.tolist()


def walkable(world, pos: Pos) -> bool:
    """Whether a player can step on the tile at `pos` (False outside the world)."""
    w, h = world.area
    if not (0 <= pos[0] < w and 0 <= pos[1] < h):
        return False
    material, obj = world[pos]
    return material in WALKABLE and (obj is None or type(obj).__name__ == "Player")


def neighbours(pos: Pos) -> list[Pos]:
    return [(pos[0] + d[0], pos[1] + d[1]) for d in DIRS.values()]


def unwind(prev: dict, node) -> list:
    """The moves of a breadth-first search from its start to `node`: `prev` maps each node reached to
    (the node it was reached from, the move), and the start to None."""
    moves = []
    while prev[node] is not None:
        node, move = prev[node]
        moves.append(move)
    return moves[::-1]


def find_path(world, start: Pos, goal: Callable[[Pos], bool], dirs: Sequence[Pos] | None = None,
              limit: int | None = None) -> list[Pos] | None:
    """The moves of a shortest walk over free tiles from `start` to a tile where `goal` holds ([] when
    `start` is one), or None when none is reachable (within `limit` tiles reached, when given)."""
    if goal(start):
        return []
    free = free_tiles(world)
    w, h = world.area
    dirs = list(DIRS.values()) if dirs is None else list(dirs)
    prev: dict = {start: None}
    queue = deque([start])
    while queue and (limit is None or len(prev) < limit):
        p = queue.popleft()
        for dx, dy in dirs:
            q = (p[0] + dx, p[1] + dy)
            if q in prev or not (0 <= q[0] < w and 0 <= q[1] < h) or not free[q[0]][q[1]]:
                continue
            prev[q] = (p, (dx, dy))
            if goal(q):
                return unwind(prev, q)
            queue.append(q)
    return None
