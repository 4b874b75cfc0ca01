"""Rule-based oracles for the creative tasks: they stand in for human judges when labelling
trajectories (labeller "oracle") and are never shown to agents or used as rewards."""

from __future__ import annotations

from typing import Callable

import numpy as np

from mineclip.sim.state import EpisodeContext, object_kind

Oracle = Callable[[EpisodeContext, object], bool]
ORACLES: dict[str, Oracle] = {}


def oracle(fn: Oracle) -> Oracle:
    ORACLES[fn.__name__] = fn
    return fn


def longest_line(points) -> int:
    """Longest run of horizontally or vertically adjacent points."""
    pts = {tuple(int(v) for v in p) for p in points}
    best = 0
    for x, y in pts:
        for dx, dy in ((1, 0), (0, 1)):
            if (x - dx, y - dy) in pts:
                continue
            n = 1
            while (x + n * dx, y + n * dy) in pts:
                n += 1
            best = max(best, n)
    return best


@oracle
def find_water(ctx: EpisodeContext, world=None) -> bool:
    """A lake: at least 8 water tiles in view and the player on its shore (within 1 tile), having
    started away from the shore."""
    return ctx.state.count("water") >= 8 and ctx.state.distance("water") <= 1 < ctx.start.distance("water")


@oracle
def find_lava(ctx: EpisodeContext, world=None) -> bool:
    """Lava in view within 3 tiles, and the player alive."""
    return ctx.state.count("lava") > 0 and ctx.state.distance("lava") <= 3 and ctx.state.health > 0


@oracle
def dig_tunnel(ctx: EpisodeContext, world=None) -> bool:
    """At least 3 stone tiles mined into a straight passage, with the player standing in it."""
    dug = ctx.changed("stone", "path")
    inside = any(tuple(p) == ctx.state.pos for p in dug)
    return len(dug) >= 3 and longest_line(dug) >= 3 and inside


@oracle
def lay_stone_row(ctx: EpisodeContext, world=None) -> bool:
    """At least 3 newly placed stone blocks in one straight contiguous row."""
    return longest_line(ctx.changed("*", "stone")) >= 3


@oracle
def plant_sapling_row(ctx: EpisodeContext, world=None) -> bool:
    """At least 3 saplings planted during the episode in one straight contiguous row."""
    if world is None:
        return False
    plants = [tuple(int(v) for v in o.pos) for o in world.objects if object_kind(o) == "plant"]
    new = [p for p in plants if tuple(p) not in ctx.start_plants]
    return longest_line(new) >= 3


@oracle
def build_bridge(ctx: EpisodeContext, world=None) -> bool:
    """At least 2 water tiles turned into walkable path, with the player standing on one."""
    made = ctx.changed("water", "path")
    return len(made) >= 2 and any(tuple(p) == ctx.state.pos for p in made)


@oracle
def find_diamond(ctx: EpisodeContext, world=None) -> bool:
    """A diamond right next to the player (within 1 tile)."""
    return ctx.state.distance("diamond") <= 1


@oracle
def set_up_camp(ctx: EpisodeContext, world=None) -> bool:
    """A newly placed table and furnace within 3 tiles of each other, both within 3 of the player."""
    tables, furnaces = ctx.changed("*", "table"), ctx.changed("*", "furnace")
    pos = np.array(ctx.state.pos)
    for t in tables:
        for f in furnaces:
            if np.abs(t - f).sum() <= 3 and np.abs(t - pos).sum() <= 3 and np.abs(f - pos).sum() <= 3:
                return True
    return False


def judge(name: str, ctx: EpisodeContext, world=None) -> bool:
    """Run the named oracle."""
    if name not in ORACLES:
        raise KeyError(f"unknown oracle {name!r}; expected one of {sorted(ORACLES)}")
    return bool(ORACLES[name](ctx, world))
