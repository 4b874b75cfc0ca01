"""crafter's vocabulary, in one place: what a world holds, what the player carries, what it can
achieve, and the recipes that connect them. Everything that names a material, a creature, an item,
a vital or an achievement (tasks, play, perception, rl, assist) takes it from here.

    MATERIALS            crafter's tile materials (`water`, `grass`, `stone`, `tree`, ...)
    CREATURES            the creatures a player fights or hunts (`cow`, `zombie`, `skeleton`)
    OBJECT_KINDS         every non-player object: the creatures, `plant` (a sapling) and `arrow`
    KINDS                everything a frame can show: materials, then objects
    ITEMS                the inventory's items, vitals first (crafter's order: the inventory bar's)
    VITALS               the four bars (`health`, `food`, `drink`, `energy`), not things one holds
    HOLDABLE             the items that are not vitals
    ACHIEVEMENTS         crafter's 22 achievements (`collect_wood`, `eat_cow`, ...)
    CREATURE_ACHIEVEMENT the achievement of killing each creature (`cow` -> `eat_cow`)
    SOURCES              item -> the material it is collected from (`wood` -> `tree`, `drink` -> `water`)
    acted_on             the kind an event or atom acts on (`collect_wood` -> `tree`, `eat_cow` -> `cow`)
    COLLECT, MAKE, PLACE crafter's recipes (`crafter/data.yaml`): requirements, uses, where
    TOOLS                pickaxes and swords
    WALKABLE             the materials a player can stand on
    ITEM_MAX             how many of an item the inventory holds
"""

from __future__ import annotations

from crafter import constants

MATERIALS: tuple[str, ...] = tuple(constants.materials)
CREATURES: tuple[str, ...] = ("cow", "zombie", "skeleton")
OBJECT_KINDS: tuple[str, ...] = (*CREATURES, "plant", "arrow")
KINDS: tuple[str, ...] = (*MATERIALS, *OBJECT_KINDS)
ITEMS: tuple[str, ...] = tuple(constants.items)
VITALS: tuple[str, ...] = ("health", "food", "drink", "energy")
HOLDABLE: tuple[str, ...] = tuple(i for i in ITEMS if i not in VITALS)
ACHIEVEMENTS: tuple[str, ...] = tuple(constants.achievements)
CREATURE_ACHIEVEMENT: dict[str, str] = {"cow": "eat_cow", "zombie": "defeat_zombie", "skeleton": "defeat_skeleton"}
COLLECT: dict = constants.collect
MAKE: dict = constants.make
PLACE: dict = constants.place
SOURCES: dict[str, str] = {next(iter(v["receive"])): k for k, v in COLLECT.items()}
TOOLS: tuple[str, ...] = tuple(i for i in ITEMS if i.endswith(("_pickaxe", "_sword")))
WALKABLE: tuple[str, ...] = ("grass", "sand", "path")
ITEM_MAX = 9
VITAL_MAX: dict[str, int] = {v: int(constants.items[v]["max"]) for v in VITALS}


ACTING_VERBS: tuple[str, ...] = ("hit", "eat", "defeat", "reach", "find")


def acted_on(name: str) -> str | None:
    """The material or creature an event or task atom acts on, as a frame shows it:
    `collect_wood` -> tree, `collect_drink` -> water, `eat_cow` -> cow, `hit_zombie` -> zombie,
    `reach_lava` / `find_lava` -> lava; None for what acts on no kind (crafting, placing, the time,
    sleep)."""
    verb, _, what = name.partition("_")
    if verb == "collect":
        return SOURCES.get(what)
    return what if verb in ACTING_VERBS and what else None
