"""The sub-tasks a command needs first when the inventory lacks what it uses, following the task
suite's pre-task graph (`mineclip.tasks.pretasks`: MCU's dependency graph over crafter's atoms,
expanded through the recipes and pruned of what the agent already holds), with the amounts the
recipes consume.

    prerequisites("place_stone", {}, near=set())
    -> [("collect", "wood", 3), ("place", "table", 1), ("make", "wood_pickaxe", 1), ("collect", "stone", 1)]
"""

from __future__ import annotations

from collections import Counter


from mineclip.sim.vocab import MAKE, PLACE, VITALS
from mineclip.tasks.pretasks import expand, producer


def _consumes(atom: str) -> dict[str, int]:
    kind, _, what = atom.partition("_")
    if kind == "make" and what in MAKE:
        return dict(MAKE[what]["uses"])
    if kind == "place" and what in PLACE:
        return dict(PLACE[what]["uses"])
    return {}


def prerequisites(goal: str, inventory: dict[str, int], near: set[str] = frozenset(),
                  consumes: dict[str, int] | None = None) -> list[tuple[str, str, int]]:
    """Ordered (kind, what, count) sub-tasks before atom `goal` (`collect` ITEM N more, `place` a
    utility, `make` a tool); `near`: utilities (table, furnace) already within reach; `consumes`: what
    the goal itself uses (default: its recipe once)."""
    inventory = {k: int(v) for k, v in inventory.items() if k not in VITALS}
    goal_uses = Counter(consumes if consumes is not None else _consumes(goal))
    present = {producer(i) for i, n in inventory.items() if n > 0 and producer(i)} | {f"place_{u}" for u in near}
    while True:
        graph = expand([goal]).prune(present)
        order = [a for a in graph.order() if a != goal and not a.startswith("find_")]
        need = Counter(goal_uses)
        for atom in order:
            need.update(_consumes(atom))
        short = {producer(i) for i, n in need.items() if n > inventory.get(i, 0)} & present
        if not short:
            break
        present -= short  # held, but not enough for everything: collect more
    steps = []
    for atom in order:
        kind, _, what = atom.partition("_")
        if kind == "collect" and what != "drink":
            steps.append(("collect", what, max(need[what] - inventory.get(what, 0), 1)))
        elif kind in ("make", "place"):
            steps.append((kind, what, 1))
    return steps
