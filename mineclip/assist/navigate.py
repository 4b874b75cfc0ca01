"""Walking to a position (the one path search of `mineclip.sim.paths`), and turning to face a tile,
for the tasks the suite's skills do not cover (a named place, a chosen tile, a way back)."""

from __future__ import annotations

from collections import deque

from mineclip.play.agents import MOVE
from mineclip.sim.paths import DIRS, find_path, neighbours, unwind, walkable


def path_to(world, start: tuple[int, int], goals: set[tuple[int, int]], limit: int = 4096) -> list | None:
    """Moves (dx, dy) from `start` onto any goal tile ([] if already there), or None if none is reachable."""
    return find_path(world, start, goals.__contains__, limit=limit)


def face_path(world, start: tuple[int, int], facing: tuple[int, int], target: tuple[int, int],
              limit: int = 12_000, direction: tuple[int, int] | None = None) -> list | None:
    """Moves (dx, dy) that leave the player next to `target` and facing it (facing `direction`, when
    given) ([] if it already is), or None. Searches (position, facing) states with crafter's move
    rule: a move turns the player and steps when the tile is free; a move toward lava would step
    into it, so none is ever made."""
    def goal(p, f):
        return (p[0] + f[0], p[1] + f[1]) == target and (direction is None or tuple(f) == tuple(direction))

    if goal(start, facing):
        return []
    first = (start, tuple(facing))
    prev = {first: None}
    queue = deque([first])
    while queue and len(prev) < limit:
        p, f = queue.popleft()
        for d in DIRS.values():
            nxt = (p[0] + d[0], p[1] + d[1])
            w, h = world.area
            if not (0 <= nxt[0] < w and 0 <= nxt[1] < h) or world[nxt][0] == "lava":
                continue
            state = (nxt if walkable(world, nxt) else p, d)
            if state in prev:
                continue
            prev[state] = ((p, f), d)
            if goal(*state):
                return unwind(prev, state)
            queue.append(state)
    return None


def step_toward(world, start: tuple[int, int], facing: tuple[int, int], target: tuple[int, int],
                onto: bool = True) -> int | None:
    """The next action to stand on `target` (onto) or next to it facing it; None when there."""
    if onto and start == target:
        return None
    if not onto and target in neighbours(start):
        d = (target[0] - start[0], target[1] - start[1])
        return None if facing == d else MOVE[d]  # a move toward a blocked tile only turns the player
    goals = {target} if onto and walkable(world, target) else {n for n in neighbours(target) if walkable(world, n)}
    moves = path_to(world, start, goals)
    if moves is None:
        return -1
    if not moves:  # on a goal tile already (onto an unwalkable target: next to it)
        d = (target[0] - start[0], target[1] - start[1])
        return MOVE[d] if d in MOVE and facing != d else None
    return MOVE[moves[0]]
