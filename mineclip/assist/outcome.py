"""Did it happen? The simulator's ground truth for a command: the world before and after it, read
against what the intent asks (inventory, achievements, tiles, position, time of day) — never
against how it was carried out."""

from __future__ import annotations

from dataclasses import replace

from mineclip.sim.state import DAY
from mineclip.tasks.oracles import longest_line

from .executor import Snapshot
from .intent import FIGHTS, Intent, turned
from .jobs import direction_vector
from .lexicon import CREATURES, display


def _dist(a: tuple[int, int], b: tuple[int, int]) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def _things(snap: Snapshot, kind: str) -> set[tuple[int, int]]:
    return snap.objects_of(kind) if kind in CREATURES or kind == "plant" else snap.tiles(kind)


def placed(intent_thing: str, before: Snapshot, after: Snapshot) -> set[tuple[int, int]]:
    """Tiles (or sapling positions) where the block appeared between two snapshots."""
    return _things(after, intent_thing) - _things(before, intent_thing)


def ground_truth(intent: Intent, before: Snapshot, after: Snapshot) -> tuple[bool, str]:
    """(whether the world changed as the command asks, why)."""
    b, a = before.state, after.state

    def gained(achievement: str) -> int:
        return a.achievements.get(achievement, 0) - b.achievements.get(achievement, 0)

    if intent.stop:
        s = intent.stop
        if s["type"] == "HAVE":
            have = a.inventory.get(s["item"], 0)
            return have >= s["count"], f"I have {have} {display(s['item'])} (asked: {s['count']})"
        ok = a.time_of_day == "night" if s["type"] == "NIGHT" else a.daylight >= DAY
        return ok, f"it is {a.time_of_day} now"
    act, thing, n = intent.action, intent.thing, intent.count
    if act == "TURN":
        goal = turned(b.facing, intent.turn)
        return tuple(a.facing) == goal, f"facing {tuple(a.facing)} (asked: {goal})"
    if act == "DESTROY" and intent.tiles:
        left = [t for t in intent.tiles if t in after.tiles("stone")]
        return not left, f"{len(intent.tiles) - len(left)} of the {len(intent.tiles)} stones of {intent.target.describe()} broken"
    chosen = intent.target if act in ("COLLECT", "DESTROY", "FIGHT", "EAT") and intent.target is not None else None
    if chosen is not None and chosen.pos is not None:  # the one singled out, and what it asks of it
        ok, why = ground_truth(replace(intent, target=None, turn=None), before, after)
        gone = chosen.kind not in CREATURES and chosen.pos not in _things(after, chosen.kind)
        there = gone or _dist(a.pos, chosen.pos) <= (2 if chosen.kind in CREATURES else 1)
        return ok and there, why + (f", at {chosen.describe()}" if there else f", but not at {chosen.describe()} "
                                    f"({_dist(a.pos, chosen.pos)} tiles from it)")
    if act == "MOVE":
        t = intent.target
        if t.direction:
            d = direction_vector(t.direction, turned(b.facing, intent.turn), t.egocentric)
            goal = (b.pos[0] + d[0] * t.steps, b.pos[1] + d[1] * t.steps)
            return a.pos == goal, f"moved from {b.pos} to {a.pos} (asked: {goal})"
        if t.pos is not None:  # a named place (stood on, or next to it when taken) or a chosen tile
            d = _dist(a.pos, t.pos)
            return d <= 1, f"{d} tiles from {t.describe()}"
        there = _things(after, t.kind)
        d = min((_dist(a.pos, p) for p in there), default=None)
        reach = 2 if t.kind in CREATURES or t.kind == "lava" else 1
        return d is not None and d <= reach, f"nearest {display(t.kind)} {d} tiles away" if d is not None else \
            f"no {display(t.kind)} left in the world"
    if act in ("COLLECT", "DESTROY"):
        got = gained(f"collect_{thing}")
        return got >= n, f"collected {got} {display(thing)} (asked: {n})"
    if act == "BUILD":
        if intent.shape == "BRIDGE":
            crossed = len(before.tiles("water") & (after.tiles("path") | after.tiles("stone")))
            return crossed >= min(n, 2), f"{crossed} water tiles bridged"
        new = placed(thing, before, after)
        size = len(new) if intent.shape == "BLOCK" else longest_line(new)
        ok = size >= n
        why = f"{len(new)} {display(thing)} placed" + ("" if intent.shape == "BLOCK" else f", longest line {size}")
        if ok and intent.target is not None:
            ref = {intent.target.pos} if intent.target.pos else _things(after, intent.target.kind)
            near = any(_dist(p, r) <= 3 for p in new for r in ref)
            ok, why = near, why + (f", next to {intent.target.describe()}" if near else
                                   f", but not next to {intent.target.describe()}")
        return ok, why
    if act == "DIG":
        dug = len(before.tiles("stone") & after.tiles("path"))
        return dug >= n, f"{dug} stone tiles dug out (asked: {n})"
    if act == "FILL":
        filled = len(before.tiles(thing) & after.tiles("stone"))
        return filled >= 1, f"{filled} {display(thing)} tiles covered with stone"
    if act == "CRAFT":
        got = gained(f"make_{thing}")
        return got >= n, f"crafted {got} {display(thing)} (asked: {n})"
    if act == "FIGHT":
        got = gained(FIGHTS[thing])
        return got >= n, f"{got} {display(thing)} defeated (asked: {n})"
    if act == "EAT":
        got = gained("eat_cow") + gained("eat_plant")
        return got >= 1, f"food {b.inventory.get('food')} -> {a.inventory.get('food')}"
    if act == "DRINK":
        got = gained("collect_drink")
        return got >= n, f"drank {got} times (asked: {n})"
    if act == "SLEEP":
        return a.sleeping, "asleep" if a.sleeping else "awake"
    if act == "UNDO":
        eff = intent.undo_of["effects"]
        if eff.get("moved_from"):
            back = tuple(eff["moved_from"])
            return a.pos == back, f"at {a.pos} (was at {back} before)"
        left = [tuple(t[:2]) for t in eff["placed"] if tuple(t[:2]) in after.tiles(t[2])]
        return not left, f"{len(eff['placed']) - len(left)} of {len(eff['placed'])} placed blocks removed"
    if act == "STOP":
        return True, "stopped"
    raise ValueError(f"no ground truth for action {act!r}")
