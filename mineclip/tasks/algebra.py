"""MCU's task algebra: molecule tasks composed from atom tasks (MCU sec. 3, "molecule tasks").

A recipe (a suite entry's `compose:` mapping) names its atoms and the operations on them:

    and: [a, b, ...]          every atom's goal (success: all; plans run one after the other)
    or: [a, b, ...]           any atom's goal (success: any; the plan of the first, or of `how.method`'s)
    of: a                     one atom, changed by the operations below
    naive: true               empty inventory (what the atoms placed in the world stays)
    naive: scratch            MCU's full naive initialisation: empty inventory, nothing placed, the
                              world's own spawn ("craft X from scratch")
    when: day | night         the time of day at the start and at success
    where: {spawn: {near: {water: 2}, floor: sand}, area: {near: {water: 3}}}
                              spawn: where the player starts (`mineclip.sim.env.CrafterEnv._spawn`);
                              area: a condition on the place at success; a bare condition mapping
                              (`where: {near: {water: 3}}`) is an area condition
    how: bare_hands | {tool: iron_sword} | {method: eat_plant}
                              bare hands: no sword at the start nor at success; tool: start with it
                              and still hold it at success; method: the atom (an achievement or
                              `hit_<creature>`) the goal must be reached through

Initial conditions merge (placements add up, inventories take the larger count), pre-task graphs
unite (MCU: a molecule's pre-tasks are the union of its atoms'), and combinations that cannot hold
at once are refused with the reason (`CompositionError`): atoms that start at different times of day,
facing different ways, from different spawns, with an empty inventory and a full one, or with two
different things placed on the same tile; a constraint that contradicts an atom (`when: day` on a
night task, bare hands for a sword-making task, a method no atom offers); creative atoms (no success
criterion to combine).
"""

from __future__ import annotations

import copy


from mineclip.sim.vocab import ACHIEVEMENTS, CREATURE_ACHIEVEMENT, TOOLS

from .pretasks import GraphError, PreTaskGraph, criterion_atoms, expand, solution_atoms, task_graph
from .spec import TaskSpec

RECIPE_KEYS = ("and", "or", "of", "naive", "when", "where", "how")
WHEN = ("day", "night")
SWORDS = ("wood_sword", "stone_sword", "iron_sword")
CREATURES = ("cow", "zombie", "skeleton", "plant")


class CompositionError(ValueError):
    """A recipe that cannot make a task, with the reason."""


def compose(task_id: str, recipe: dict, atoms: dict[str, TaskSpec], **overrides) -> TaskSpec:
    """An MCU molecule task from atoms: AND, OR, naive initialisation, when/where/how constraints."""
    def fail(why: str):
        raise CompositionError(f"task {task_id}: {why}")

    if not isinstance(recipe, dict):
        fail(f"expected a composition mapping, got {recipe!r}")
    unknown = sorted(set(recipe) - set(RECIPE_KEYS))
    if unknown:
        fail(f"unknown composition keys {unknown}; expected some of {list(RECIPE_KEYS)}")
    ops = [k for k in ("and", "or", "of") if k in recipe]
    if len(ops) != 1:
        fail(f"a composition needs exactly one of and/or/of, got {ops or 'none'}")
    op = ops[0]
    names = [recipe["of"]] if op == "of" else list(recipe[op] or [])
    missing = [n for n in names if n not in atoms]
    if missing:
        fail(f"composition refers to unknown task {missing[0]!r}")
    if op != "of" and len(names) < 2:
        fail(f"{op} needs at least two atoms, got {names}")
    if len(set(names)) != len(names):
        fail(f"{op} lists an atom twice: {names}")
    parts = [atoms[n] for n in names]
    for p in parts:
        if p.simulator != "crafter" or not p.success:
            fail(f"{p.id} has no success criterion on crafter (a creative or imported task) and cannot be composed")

    init = _merge_inits(parts, fail)
    graph = _graph(parts, op, fail)
    success = [p.success for p in parts] if op != "or" else [{"any": [p.success for p in parts]}]
    solution = list(parts[0].solution) if op == "or" else [s for p in parts for s in p.solution]
    tags = ["mcu-molecule"] + (["or"] if op == "or" else [])

    naive = recipe.get("naive")
    if naive:
        if naive not in (True, "scratch"):
            fail(f"naive: expected true or scratch, got {naive!r}")
        init["naive"] = True
        init.pop("inventory", None)
        if naive == "scratch":
            init["place"] = []
            init.pop("spawn", None)
        tags.append("naive")
    when = recipe.get("when")
    if when:
        if when not in WHEN:
            fail(f"when: expected one of {WHEN}, got {when!r}")
        starts = {p.init.get("time") for p in parts} - {None, when}
        if starts:
            fail(f"when: {when} contradicts an atom that starts at {sorted(map(str, starts))[0]}")
        init["time"] = when
        success.append({"time": when})
        tags.append(f"when-{when}")
    where = recipe.get("where")
    if where:
        spawn, area = _where(where, fail)
        if spawn:
            if init.get("spawn") not in (None, spawn):
                fail(f"where: spawn {spawn} contradicts an atom's spawn {init['spawn']}")
            init["spawn"] = spawn
            tags.append("where-spawn")
        if area:
            success.append(area)
            roots, extra = criterion_atoms(area)
            graph = graph.union(expand(roots, PreTaskGraph(extra)))
        tags.append("where")
    how = recipe.get("how")
    if how:
        solution = _how(how, parts, op, init, success, solution, tags, fail)

    extra_init = dict(overrides.pop("init", {}))
    init["place"] += extra_init.pop("place", [])
    init.update(extra_init)
    joiner = " or " if op == "or" else " and "
    fields = dict(
        prompt=overrides.pop("prompt", joiner.join(p.prompt for p in parts)),
        category=parts[0].category, kind="programmatic",
        guidance=(" Or: " if op == "or" else " Then ").join(p.guidance for p in parts if p.guidance),
        init=init, success={"all": success} if len(success) > 1 else success[0],
        solution=solution,
        goal=list(dict.fromkeys(g for p in parts for g in p.goal)), reward=parts[0].reward,
        max_steps=max(p.max_steps for p in parts) if op == "or" else sum(p.max_steps for p in parts),
        tags=tags, source=f"compose({', '.join(names)})", pre_tasks=graph.to_dict(),
    )
    fields.update(overrides)
    fields["tags"] = sorted(set(fields["tags"]) | set(tags))
    return TaskSpec.from_dict(task_id, fields)


def _merge_inits(parts: list[TaskSpec], fail) -> dict:
    """The atoms' initial conditions together: placements add up, inventories take the larger count."""
    init: dict = {"place": []}
    seen: dict[str, tuple[str, object]] = {}
    tiles: dict[tuple, tuple[str, str]] = {}
    for p in parts:
        pi = copy.deepcopy(p.init)
        for entry in pi.get("place", []):
            at = entry.get("at")
            spots = [tuple(a) for a in at] if at and isinstance(at[0], (list, tuple)) else [tuple(at)] if at else []
            layer = "object" if entry["what"] in CREATURES else "material"  # a creature may stand on a block
            for spot in spots:
                other = tiles.get((spot, layer))
                if other and other[1] != p.id and other[0] != entry["what"]:
                    fail(f"{other[1]} places {other[0]} at {list(spot)} where {p.id} places {entry['what']}")
                tiles[(spot, layer)] = (entry["what"], p.id)
        for key in ("time", "facing", "spawn", "spawn_jitter"):
            if key in pi:
                if key in seen and seen[key][1] != pi[key]:
                    fail(f"{seen[key][0]} and {p.id} start with different {key}: {seen[key][1]} vs {pi[key]}")
                seen[key] = (p.id, pi[key])
        init["place"] += pi.pop("place", [])
        inv = {**init.get("inventory", {})}
        for k, v in pi.pop("inventory", {}).items():
            inv[k] = max(inv.get(k, 0), v)
        init["inventory"] = inv
        init.update(pi)
    naive = [p.id for p in parts if p.init.get("naive")]
    stocked = [(p.id, k) for p in parts for k, v in (p.init.get("inventory") or {}).items() if v > 0]
    if naive and stocked:
        fail(f"{naive[0]} starts with an empty inventory but {stocked[0][0]} starts with {stocked[0][1]}")
    return init


def _graph(parts: list[TaskSpec], op: str, fail) -> PreTaskGraph:
    """The union of the atoms' pre-task graphs; OR adds one node that needs any of them."""
    graphs = [task_graph(p) for p in parts]
    try:
        out = graphs[0]
        for g in graphs[1:]:
            out = out.union(g)
    except GraphError as e:
        fail(str(e))
    if op != "or":
        return out
    nodes, alts = dict(out.nodes), []
    for g in graphs:
        if len(g.roots) == 1:
            alts.append(g.roots[0])
        else:
            name = f"all({'+'.join(g.roots)})"
            nodes[name] = ("and", tuple(g.roots))
            alts.append(name)
    name = f"any({'|'.join(sorted(alts))})"
    nodes[name] = ("or", tuple(alts))
    return PreTaskGraph(nodes, (name,))


def _where(where: dict, fail) -> tuple[dict | None, dict | None]:
    """(spawn condition, area condition) of a `where:` constraint."""
    if not isinstance(where, dict) or not where:
        fail(f"where: expected a mapping, got {where!r}")
    if set(where) & {"spawn", "area"}:
        unknown = sorted(set(where) - {"spawn", "area"})
        if unknown:
            fail(f"where: expected spawn and/or area, got also {unknown}")
        spawn = where.get("spawn")
        if spawn is not None and (not isinstance(spawn, dict) or not spawn or set(spawn) - {"near", "floor"}):
            fail(f"where: spawn expects a mapping of near/floor, got {spawn!r}")
        return spawn, where.get("area")
    return None, where


def method_plan(method: str) -> list:
    """A scripted plan that reaches an atom (for `how: {method: ...}`)."""
    kind, _, what = method.partition("_")
    creature = {v: k for k, v in CREATURE_ACHIEVEMENT.items()}
    if method in creature:
        return [{"fight": creature[method]}]
    if kind == "hit":
        return [{"hit": what}]
    if kind in ("collect", "make") and what != "drink":
        return [{"obtain": what}]
    if kind == "place":
        return [{"place": "sapling" if what == "plant" else what}]
    return {"eat_plant": ["eat_plant"], "collect_drink": ["drink"], "wake_up": ["sleep_until_awake"]}[method]


def _how(how, parts, op, init, success, solution, tags, fail) -> list:
    """Apply a how constraint to the init and success; return the plan the agent runs."""
    if how in ("bare_hands", {"bare_hands": True}):
        for p in parts:
            wants = {a for a in task_graph(p).roots} | set((p.success or {}).get("have", {}))
            swords = sorted(s for s in SWORDS if s in wants or f"make_{s}" in wants)
            if swords:
                fail(f"how: bare hands contradicts {p.id}, whose goal is a {swords[0]}")
        init.setdefault("inventory", {})
        init["inventory"].update({s: 0 for s in SWORDS})
        success.append({"without": list(SWORDS)})
        tags.append("how-bare-hands")
        return solution
    if not isinstance(how, dict) or len(how) != 1 or next(iter(how)) not in ("tool", "method"):
        fail(f"how: expected bare_hands, {{tool: ITEM}} or {{method: ATOM}}, got {how!r}")
    if "tool" in how:
        tool = how["tool"]
        if tool not in TOOLS:
            fail(f"how: tool must be one of {list(TOOLS)}, got {tool!r}")
        init.setdefault("inventory", {})
        if tool in SWORDS:
            init["inventory"].update({s: 0 for s in SWORDS})
        init["inventory"][tool] = 1
        success.append({"have": {tool: 1}})
        tags.append(f"how-{tool}")
        return solution
    method = how["method"]
    if method not in ACHIEVEMENTS and not str(method).startswith("hit_"):
        fail(f"how: method must be an achievement or hit_<creature>, got {method!r}")
    offering = [p for p in parts if method in task_graph(p).vertices]
    if not offering:
        fail(f"how: method {method} is not a way to do any of {[p.id for p in parts]}")
    success.append({"achieve": {method: 1}} if method in ACHIEVEMENTS else {"event": {method: 1}})
    tags.append(f"how-{method}")
    if op == "or":  # the agent takes the branch the method belongs to
        solution = list(offering[0].solution)
    if method not in solution_atoms(solution):  # steps that reach an alternative of the method make way for it
        others = {c for p in offering for mode, pre in task_graph(p).nodes.values()
                  if mode == "or" and method in pre for c in pre} - {method}
        solution = [s for s in solution if not set(solution_atoms([s])) & others] + method_plan(method)
    return solution
