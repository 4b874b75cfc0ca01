"""The generated catalogue: programmatic tasks from templates over crafter's items, creatures, places
and tools (MineDojo's harvest / combat / techtree families, MCU's navigation, exploitation and
building skills, and MCU molecules built from them with the task algebra).

`candidates()` writes the templates out as suite entries (plain atoms and `compose:` molecules);
`build_catalogue()` validates them by running the scripted agent (a function passed in, e.g.
`mineclip.play.demos.validate`) and keeps, in `suite/generated.yaml` (catalogue `generated`), the
tasks it solves on at least `min_success` of the validation worlds whose atoms were kept too. The
summary (`suite/generated_summary.json`) counts candidates, refused compositions with their reasons
and validation failures per family.
"""

from __future__ import annotations

import itertools
import json
from importlib import resources
from pathlib import Path
from typing import Callable

import yaml

from mineclip.sim.vocab import CREATURE_ACHIEVEMENT

from .algebra import CompositionError, compose

CATALOGUE = "generated"
FILE = "generated.yaml"
SUMMARY = "generated_summary.json"
COUNT_WORDS = {1: "a", 2: "two", 3: "three", 4: "four", 5: "five"}
SWORD_NAMES = {"wood_sword": "a wooden sword", "stone_sword": "a stone sword", "iron_sword": "an iron sword"}
# item: (material it comes from, tools it needs, noun, plural, verb)
HARVEST = {
    "wood": ("tree", {}, "a piece of wood", "pieces of wood", "chop"),
    "sapling": ("grass", {}, "a sapling", "saplings", "collect"),
    "stone": ("stone", {"wood_pickaxe": 1}, "a stone block", "stone blocks", "mine"),
    "coal": ("coal", {"wood_pickaxe": 1}, "a lump of coal", "lumps of coal", "mine"),
    "iron": ("iron", {"wood_pickaxe": 1, "stone_pickaxe": 1}, "some iron ore", "pieces of iron ore", "mine"),
    "diamond": ("diamond", {"wood_pickaxe": 1, "stone_pickaxe": 1, "iron_pickaxe": 1}, "a diamond", "diamonds", "mine"),
}
CRAFT = {  # item: (uses, table and furnace placed, noun)
    "wood_pickaxe": ({"wood": 1}, ["table"], "a wooden pickaxe"),
    "stone_pickaxe": ({"wood": 1, "stone": 1}, ["table"], "a stone pickaxe"),
    "iron_pickaxe": ({"wood": 1, "coal": 1, "iron": 1}, ["table", "furnace"], "an iron pickaxe"),
    "wood_sword": ({"wood": 1}, ["table"], "a wooden sword"),
    "stone_sword": ({"wood": 1, "stone": 1}, ["table"], "a stone sword"),
    "iron_sword": ({"wood": 1, "coal": 1, "iron": 1}, ["table", "furnace"], "an iron sword"),
}
BUILD = {"table": ({"wood": 2}, "a crafting table"), "furnace": ({"stone": 4}, "a furnace"),
         "stone": ({"stone": 1}, "a stone block"), "plant": ({"sapling": 1}, "a sapling")}
FIND = {  # kind: (placement, noun, within)
    "water": ({"area": [2, 2]}, "water", 1), "tree": ({}, "a tree", 1), "stone": ({}, "stone", 1),
    "sand": ({"area": [3, 3]}, "sand", 1), "coal": ({}, "coal ore", 1), "iron": ({}, "iron ore", 1),
    "diamond": ({}, "a diamond", 1), "lava": ({"area": [2, 2]}, "lava", 2), "cow": ({}, "a cow", 1),
    "zombie": ({}, "a zombie", 1), "plant": ({"ripe": True}, "a bush of berries", 1),
}
EXPLORE = {"water": "a lake", "tree": "a forest", "stone": "the mountains", "sand": "a beach", "cow": "a cow",
           "path": "a cave", "coal": "coal ore"}
PLACES = {  # where: spawn conditions (MCU's "where")
    "beach": ({"floor": "sand"}, "starting on a beach"),
    "shore": ({"near": {"water": 2}}, "starting at the water's edge"),
    "forest": ({"near": {"tree": 1}}, "starting among the trees"),
    "mountain": ({"near": {"stone": 1}}, "starting at the foot of a mountain"),
    "cave": ({"floor": "path"}, "starting in a cave"),
}
SCRATCH_STEPS = {"wood_pickaxe": 150, "wood_sword": 150, "stone_pickaxe": 250, "stone_sword": 250,
                 "iron_pickaxe": 500, "iron_sword": 500, "table": 120, "furnace": 250, "stone": 200, "plant": 200}


def _atom(prompt, category, guidance, success, solution, init=None, reward=None, max_steps=48, family="", **kw) -> dict:
    d = {"prompt": prompt, "category": category, "guidance": guidance, "success": success, "solution": solution,
         "max_steps": max_steps, "catalogue": CATALOGUE, "tags": ["generated", f"family-{family}"]}
    if init:
        d["init"] = init
    if reward:
        d["reward"] = reward
    d.update(kw)
    return d


def _molecule(recipe: dict, prompt: str, family: str, **kw) -> dict:
    return {"compose": recipe, "prompt": prompt, "catalogue": CATALOGUE,
            "tags": ["generated", f"family-{family}"], **kw}


def harvest_family() -> dict[str, dict]:
    """Collect 1-4 of each item, the tools it needs held, its source placed near; from scratch too."""
    out = {}
    for item, (material, tools, noun, plural, verb) in HARVEST.items():
        for n in (1, 2, 3, 4):
            what = noun if n == 1 else f"{COUNT_WORDS.get(n, n)} {plural}"
            place = [] if material == "grass" else [{"what": material, "distance": [2, 5], "count": max(2, n)}]
            out[f"collect_{item}_{n}"] = _atom(
                f"{verb} {what}", "harvest", f"Walk to the {material} and hit it until you hold {what}.",
                {"gain": {item: n}}, [{"obtain": item, "count": n}], {"inventory": dict(tools), "place": place},
                {"navigate": material, "success": 200} if material != "grass" else None,
                max_steps=(60 + 30 * n) if item == "sapling" else 40 + 12 * n, family="harvest")
        if tools:
            out[f"collect_{item}_from_scratch"] = _molecule(
                {"of": f"collect_{item}_1", "naive": "scratch"}, f"{verb} {noun} starting with nothing", "harvest",
                max_steps={"stone": 200, "coal": 200, "iron": 350, "diamond": 500}[item],
                guidance=f"From an empty inventory, make the tools {material} needs, then {verb} it.")
    return out


def combat_family() -> dict[str, dict]:
    """Fight and hit cows, zombies and skeletons; with each sword or bare-handed (how), by night (when)."""
    out = {}
    places = {"cow": [{"what": "cow", "distance": [3, 5]}], "zombie": [{"what": "zombie", "distance": [3, 5]}],
              "skeleton": [{"what": "path", "at": [[1, 0], [2, 0], [3, 0], [4, 0], [5, 0], [5, 1], [5, -1]], "count": 7},
                           {"what": "skeleton", "at": [4, 0], "on": "path"}]}
    verbs = {"cow": ("hunt", "a cow"), "zombie": ("fight", "a zombie"), "skeleton": ("fight", "a skeleton")}
    for kind, place in places.items():
        verb, noun = verbs[kind]
        reward = {"navigate": kind, "hit": kind, "hit_bonus": 5, "success": 200}
        out[f"fight_{kind}"] = _atom(f"{verb} {noun}", "combat", f"Go up to {noun} and hit it until it dies.",
                                     {"achieve": {CREATURE_ACHIEVEMENT[kind]: 1}}, [{"fight": kind}], {"place": place}, reward,
                                     max_steps=60, family="combat")
        out[f"hit_{kind}"] = _atom(f"hit {noun} once", "combat", f"Walk up to {noun} and strike it once.",
                                   {"event": {f"hit_{kind}": 1}}, [{"hit": kind}], {"place": place}, reward,
                                   family="combat")
        for tool, name in [("bare_hands", "bare-handed")] + [(s, f"with {n}") for s, n in SWORD_NAMES.items()]:
            how = "bare_hands" if tool == "bare_hands" else {"tool": tool}
            out[f"fight_{kind}_{tool}"] = _molecule({"of": f"fight_{kind}", "how": how}, f"{verb} {noun} {name}", "combat")
            if kind != "skeleton" and tool in ("bare_hands", "wood_sword", "iron_sword"):
                out[f"fight_{kind}_{tool}_night"] = _molecule(
                    {"of": f"fight_{kind}", "how": how, "when": "night"}, f"{verb} {noun} {name} at night", "combat")
    for kind in ("cow", "zombie"):
        verb, noun = verbs[kind]
        out[f"fight_two_{kind}s"] = _atom(
            f"{verb} two {kind}s", "combat", f"Kill one {kind}, then find the second and kill it too.",
            {"achieve": {CREATURE_ACHIEVEMENT[kind]: 2}}, [{"fight": kind, "count": 2}],
            {"place": [{"what": kind, "distance": [2, 5], "count": 2}], **({"inventory": {"wood_sword": 1}} if kind == "zombie" else {})},
            {"navigate": kind, "hit": kind, "hit_bonus": 5, "success": 200}, max_steps=90, family="combat")
    return out


def techtree_family() -> dict[str, dict]:
    """MCU's "craft X" atoms (the ingredients held, the table and furnace placed) and their naive
    versions from scratch; placing a table, furnace, stone or sapling likewise."""
    out = {}
    for item, (uses, stations, noun) in CRAFT.items():
        place = [{"what": s, "at": at} for s, at in zip(stations, ([1, 0], [-1, 0]))]
        out[f"craft_{item}"] = _atom(
            f"craft {noun}", "techtree", f"Stand by the {' and the '.join(stations)} and craft {noun}.",
            {"achieve": {f"make_{item}": 1}}, [{"obtain": item}], {"inventory": dict(uses), "place": place},
            max_steps=30, family="techtree")
        out[f"craft_{item}_from_scratch"] = _molecule(
            {"of": f"craft_{item}", "naive": "scratch"}, f"craft {noun} from scratch", "techtree",
            max_steps=SCRATCH_STEPS[item], guidance=f"Start with nothing: gather, build and craft your way to {noun}.")
    for what, (uses, noun) in BUILD.items():
        atom = "place_plant" if what == "plant" else f"place_{what}"
        out[f"build_{what}"] = _atom(
            f"place {noun}", "techtree", f"Put {noun} down in front of you.", {"achieve": {atom: 1}},
            [{"place": "sapling" if what == "plant" else what}], {"inventory": dict(uses)}, max_steps=30,
            family="building")
        out[f"build_{what}_from_scratch"] = _molecule(
            {"of": f"build_{what}", "naive": "scratch"}, f"place {noun} starting with nothing", "techtree",
            max_steps=SCRATCH_STEPS[what], guidance=f"Gather what {noun} needs, then place it.")
    return out


def building_family() -> dict[str, dict]:
    """Rows of stone blocks and saplings, two tables."""
    out = {}
    for n in (2, 3, 4, 5):
        out[f"build_stone_row_{n}"] = _atom(
            f"place {COUNT_WORDS[n]} stone blocks in a row", "techtree", "Lay stone blocks side by side in a line.",
            {"achieve": {"place_stone": n}}, [{"place_row": "stone", "count": n}], {"inventory": {"stone": n}},
            max_steps=20 + 6 * n, family="building")
    for n in (2, 3):
        out[f"plant_sapling_row_{n}"] = _atom(
            f"plant {COUNT_WORDS[n]} saplings in a row", "survival", "Plant saplings next to each other in a line.",
            {"achieve": {"place_plant": n}}, [{"place_row": "sapling", "count": n}], {"inventory": {"sapling": n}},
            max_steps=20 + 6 * n, family="building")
    out["build_two_tables"] = _atom(
        "place two crafting tables", "techtree", "Place one crafting table, step aside and place another.",
        {"achieve": {"place_table": 2}}, [{"place": "table"}, {"explore": 2}, {"place": "table"}],
        {"inventory": {"wood": 4}}, max_steps=40, family="building")
    return out


def navigation_family() -> dict[str, dict]:
    """Find a placed block or creature, or explore the world's own; by night (when)."""
    out = {}
    for kind, (extra, noun, within) in FIND.items():
        out[f"find_{kind}_nearby"] = _atom(
            f"find {noun}", "survival", f"Look around for {noun} and walk right up to it.",
            {"near": {kind: within}}, [{"goto": kind, **({"within": within} if within > 1 else {})}],
            {"place": [{"what": kind, "distance": [5, 8], **extra}]}, {"navigate": kind, "success": 200},
            max_steps=48, family="navigation")
    for kind, noun in EXPLORE.items():
        out[f"explore_to_{kind}"] = _atom(
            f"explore the world to find {noun}", "survival", f"Walk through the world until you reach {noun}.",
            {"near": {kind: 1}}, [{"goto": kind}], max_steps=120, family="navigation")
    for kind in ("cow", "zombie", "tree", "water", "stone"):
        out[f"find_{kind}_nearby_night"] = _molecule({"of": f"find_{kind}_nearby", "when": "night"},
                                                     f"find {FIND[kind][1]} at night", "navigation")
    return out


def exploitation_family() -> dict[str, dict]:
    """Drink, eat, sleep, wake up, survive, fill the food bar."""
    out = {}
    for n in (1, 2, 3):
        out[f"drink_water_{n}"] = _atom(
            "drink water" if n == 1 else f"drink water {COUNT_WORDS[n]} times", "survival",
            "Face the water and drink.", {"achieve": {"collect_drink": n}}, [{"drink": n}],
            {"place": [{"what": "water", "distance": [2, 5], "count": 3}]}, {"navigate": "water", "success": 200},
            family="exploitation")
    out["eat_ripe_plant"] = _atom("eat the berries of a bush", "survival", "Find a ripe plant and eat from it.",
                                  {"achieve": {"eat_plant": 1}}, ["eat_plant"],
                                  {"place": [{"what": "plant", "distance": [2, 4], "ripe": True}]},
                                  {"navigate": "plant", "success": 200}, family="exploitation")
    for when in ("dusk", "night"):
        out[f"sleep_at_{when}"] = _atom(f"lie down to sleep at {when}", "survival", "Lie down and sleep.",
                                        {"sleeping": True}, ["sleep"], {"time": when, "inventory": {"energy": 3}},
                                        max_steps=30, family="exploitation")
    out["sleep_and_wake_up"] = _atom("sleep through until morning", "survival", "Sleep until you wake up rested.",
                                     {"achieve": {"wake_up": 1}}, ["sleep_until_awake"], {"inventory": {"energy": 6}},
                                     max_steps=90, family="exploitation")
    for steps, sword in ((30, "wood_sword"), (60, "stone_sword"), (30, None)):
        inv = {sword: 1} if sword else {}
        out[f"survive_night_{steps}{'' if sword else '_bare'}"] = _atom(
            f"stay alive for {steps} steps at night" + ("" if sword else " without a weapon"), "survival",
            "Keep the zombies off you until the time is up.", {"survive": steps}, ["survive"],
            {"time": "night", "inventory": inv, "place": [{"what": "zombie", "distance": [4, 6]}]},
            max_steps=steps, family="exploitation")
    out["fill_food_bar"] = _atom(
        "get something to eat", "survival", "Hunt the cow or eat the berries, whichever you like.",
        {"any": [{"achieve": {"eat_cow": 1}}, {"achieve": {"eat_plant": 1}}]}, [{"fight": "cow"}],
        {"place": [{"what": "cow", "distance": [3, 5]}, {"what": "plant", "distance": [2, 4], "ripe": True}]},
        max_steps=60, family="exploitation")
    out["fill_food_bar_with_berries"] = _molecule({"of": "fill_food_bar", "how": {"method": "eat_plant"}},
                                                  "get something to eat from a berry bush", "exploitation")
    out["fill_food_bar_by_hunting"] = _molecule({"of": "fill_food_bar", "how": {"method": "eat_cow"}},
                                                "get something to eat by hunting a cow", "exploitation")
    return out


MOLECULE_POOL = ["collect_wood_1", "drink_water_1", "fight_cow", "eat_ripe_plant", "collect_sapling_1",
                 "build_stone", "collect_stone_1", "build_plant", "find_cow_nearby", "find_water_nearby",
                 "craft_wood_pickaxe", "build_table"]
WHEN_POOL = ["collect_wood_1", "drink_water_1", "collect_stone_1", "fight_cow", "eat_ripe_plant", "craft_wood_pickaxe",
             "build_table", "build_stone", "collect_sapling_1", "build_plant", "collect_coal_1", "craft_stone_sword"]
WHERE_POOL = ["collect_wood_1", "drink_water_1", "fight_cow", "find_cow_nearby", "craft_wood_pickaxe", "build_table",
              "collect_stone_1", "eat_ripe_plant"]


def molecule_family(atoms: dict[str, dict]) -> dict[str, dict]:
    """MCU molecules over the atoms above: AND and OR pairs, when (day/night), where (spawn places)."""
    out = {}
    prompt = lambda a: atoms[a]["prompt"]  # noqa: E731
    for a, b in itertools.combinations(MOLECULE_POOL, 2):
        out[f"{a}_and_{b}"] = _molecule({"and": [a, b]}, f"{prompt(a)} and {prompt(b)}", "molecule-and")
    for a, b in list(itertools.combinations(MOLECULE_POOL, 2))[::3]:
        out[f"{a}_or_{b}"] = _molecule({"or": [a, b]}, f"{prompt(a)} or {prompt(b)}", "molecule-or")
    for a in WHEN_POOL:
        out[f"{a}_at_night"] = _molecule({"of": a, "when": "night"}, f"{prompt(a)} at night", "molecule-when")
    for a in WHEN_POOL[:6]:
        out[f"{a}_by_day"] = _molecule({"of": a, "when": "day"}, f"{prompt(a)} by day", "molecule-when")
    for a in WHERE_POOL:
        for place, (spawn, words) in PLACES.items():
            out[f"{a}_from_{place}"] = _molecule({"of": a, "where": {"spawn": spawn}}, f"{prompt(a)} {words}",
                                                 "molecule-where")
    out["drink_water_on_the_beach"] = _molecule(
        {"of": "drink_water_1", "where": {"spawn": {"floor": "sand"}, "area": {"in_view": {"sand": 3}}}},
        "drink water on a sandy beach", "molecule-where")
    out["collect_wood_in_the_forest"] = _molecule(
        {"of": "collect_wood_1", "where": {"spawn": {"near": {"tree": 1}}, "area": {"in_view": {"tree": 4}}}},
        "chop wood in a forest", "molecule-where")
    return out


def candidates(known: dict | None = None) -> tuple[dict[str, dict], dict[str, str]]:
    """Every template's suite entry, and the compositions the algebra refused with their reasons."""
    atoms = {**harvest_family(), **combat_family(), **techtree_family(), **building_family(),
             **navigation_family(), **exploitation_family()}
    entries = {**atoms, **molecule_family(atoms)}
    from .registry import load_yaml_tasks

    plain = {k: v for k, v in entries.items() if "compose" not in v}
    specs = load_yaml_tasks(yaml.safe_dump(plain), FILE)
    specs.update(known or {})
    refused = {}
    for task_id, fields in entries.items():
        if "compose" not in fields:
            continue
        f = dict(fields)
        try:
            compose(task_id, f.pop("compose"), specs, **f)
        except CompositionError as e:
            refused[task_id] = str(e)
    return {k: v for k, v in entries.items() if k not in refused}, refused


def family(fields: dict) -> str:
    """The template family of a generated entry."""
    return next(t for t in fields["tags"] if t.startswith("family-"))[len("family-"):]


def catalogue_path(name: str = FILE) -> Path:
    """A file of the generated catalogue in the package's suite folder."""
    return Path(str(resources.files("mineclip.tasks").joinpath("suite", name)))


def write_catalogue(entries: dict[str, dict], path: Path | None = None, header: str = "") -> Path:
    """Write entries as a suite file of the generated catalogue."""
    path = path or catalogue_path()
    text = "# The generated catalogue (`mineclip tasks generate`, mineclip/tasks/generator.py): do not edit.\n"
    text += "".join(f"# {line}\n" for line in header.splitlines())
    path.write_text(text + yaml.safe_dump(entries, sort_keys=False, width=120))
    return path


def build_catalogue(validate: Callable[[list[str]], dict[str, float]], min_success: float = 2 / 3,
                    path: Path | None = None) -> dict:
    """Generate the candidates, validate them with `validate(task_ids) -> success rates` (the
    scripted agent), keep those solved often enough whose atoms were kept, write the catalogue and
    its summary; returns the summary. The candidates are written first (the agent plays registered
    tasks), then replaced by the kept ones."""
    from .registry import list_tasks, reload

    path = path or catalogue_path()
    suite = {t.id: t for t in list_tasks()}
    entries, refused = candidates(suite)
    clash = sorted(set(entries) & set(suite))
    if clash:
        raise ValueError(f"generated task ids clash with the suite's: {clash[:5]}")
    write_catalogue(entries, path, "candidates, not yet validated")
    reload()
    rates = validate(list(entries))
    keep = {t for t, r in rates.items() if r >= min_success}
    changed = True
    while changed:  # a molecule needs its atoms in the catalogue
        changed = False
        for t in sorted(keep):
            recipe = entries[t].get("compose") or {}
            parts = (recipe.get("and") or recipe.get("or") or [recipe["of"]]) if recipe else []
            if any(p in entries and p not in keep for p in parts):
                keep.discard(t)
                changed = True
    kept = {t: f for t, f in entries.items() if t in keep}
    families = sorted({family(f) for f in entries.values()})
    summary = {
        "candidates": len(entries) + len(refused), "refused": refused, "validated": len(entries),
        "kept": len(kept), "min_success": round(min_success, 3),
        "pass_rate": round(len(kept) / max(len(entries), 1), 3),
        "failed": {t: rates[t] for t in entries if t not in keep},
        "per_family": {fam: {"candidates": sum(family(f) == fam for f in entries.values()),
                             "kept": sum(family(f) == fam for f in kept.values())} for fam in families},
    }
    write_catalogue(kept, path, f"{len(kept)} tasks the scripted agent solved on >= {min_success:.0%} of "
                                f"the validation worlds, of {len(entries)} candidates")
    path.with_name(SUMMARY).write_text(json.dumps(summary, indent=1) + "\n")
    reload()
    return summary
