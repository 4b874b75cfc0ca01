"""Where a shape fits: a straight strip of free tiles for a row or a wall of blocks, a straight run
of rock to dig a tunnel into; the nearest to the player, reachable on foot."""

from __future__ import annotations

import numpy as np

from .navigate import walkable


def _free(world, p: tuple[int, int], where: tuple[str, ...]) -> bool:
    w, h = world.area
    if not (1 <= p[0] < w - 1 and 1 <= p[1] < h - 1):
        return False
    material, obj = world[p]
    return material in where and obj is None


def find_strip(world, pos: tuple[int, int], n: int, horizontal: bool, where: tuple[str, ...],
               avoid: set | None = None, radius: int = 12) -> list[tuple[int, int]] | None:
    """The nearest `n` free tiles side by side (left to right, or top to bottom) that blocks can be
    placed on, with two walkable lanes alongside (a block is placed facing it, and the player faces a
    free tile only by stepping toward it); None if there is none nearby."""
    avoid = set(avoid or ())
    d = (1, 0) if horizontal else (0, 1)
    side = (0, 1) if horizontal else (1, 0)
    best, best_dist = None, None
    for dy in range(-radius, radius + 1):
        for dx in range(-radius, radius + 1):
            start = (pos[0] + dx, pos[1] + dy)
            tiles = [(start[0] + i * d[0], start[1] + i * d[1]) for i in range(n)]
            if pos in tiles or any(t in avoid or not _free(world, t, where) for t in tiles):
                continue
            for s in (1, -1):  # two walkable lanes beside the strip: to stand on, and to step in from facing it
                lane = [(t[0] + s * side[0], t[1] + s * side[1]) for t in tiles]
                outer = [(t[0] + 2 * s * side[0], t[1] + 2 * s * side[1]) for t in tiles]
                if all(walkable(world, q) for q in lane + outer):
                    dist = min(abs(t[0] - pos[0]) + abs(t[1] - pos[1]) for t in lane)
                    if best_dist is None or dist < best_dist:
                        best, best_dist = tiles, dist
                    break
    return best


def find_rock_run(world, pos: tuple[int, int], n: int, radius: int = 24) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """(first tile, direction) of the nearest straight run of `n` stone tiles whose entrance tile
    (before the first) can be stood on; None if there is none nearby."""
    stone = world._mat_map == world._mat_ids["stone"]
    best, best_dist = None, None
    w, h = world.area
    for x, y in np.argwhere(stone):
        x, y = int(x), int(y)
        dist = abs(x - pos[0]) + abs(y - pos[1])
        if dist > radius or (best_dist is not None and dist >= best_dist):
            continue
        for d in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            entrance = (x - d[0], y - d[1])
            run = [(x + i * d[0], y + i * d[1]) for i in range(n)]
            if not walkable(world, entrance) and entrance != pos:
                continue
            if all(0 <= rx < w and 0 <= ry < h and stone[rx, ry] and world[(rx, ry)][1] is None for rx, ry in run):
                best, best_dist = ((x, y), d), dist
                break
    return best
