"""An intent as tasks: the prerequisites the inventory lacks (`prereq`, along the suite's pre-task
graph), then a move where one is asked for, then the skills that do it (`mineclip.play.agents`)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from mineclip.sim.state import DAY
from mineclip.sim.vocab import PLACE

from . import lexicon as lx
from .intent import FIGHTS, Intent
from .jobs import ActAt, Loop, Sequence, SkillTask, Task, Tunnel, Turn, WalkDir, WalkTo
from .navigate import face_path
from .prereq import prerequisites
from .sites import find_strip

if TYPE_CHECKING:
    from .executor import Executor


def _utilities_near(ex: Executor, reach: int = 12) -> set[str]:
    """Tables and furnaces the skills would walk to rather than place anew."""
    out = set()
    for u in ("table", "furnace"):
        pos = ex.memory.nearest(u, ex.pos)
        if pos is not None and abs(pos[0] - ex.pos[0]) + abs(pos[1] - ex.pos[1]) <= reach:
            out.add(u)
    return out


def _collect(item: str, gain: int, label: str | None = None) -> Task:
    """Collect `gain` more of an item (the target is fixed when the task starts)."""
    target: dict = {}

    def plan(ex):
        target["n"] = ex.state.inventory.get(item, 0) + gain
        return [{"obtain": item, "count": target["n"]}]

    return SkillTask(label or f"collect {gain} {lx.display(item)}", plan,
                     check=lambda ex: ex.state.inventory.get(item, 0) >= target["n"], limit=150 + 60 * gain)


def prerequisite_tasks(goal: str, ex: Executor, consumes: dict | None = None) -> list[Task]:
    """Tasks for the prerequisites of an atom the inventory lacks."""
    tasks: list[Task] = []
    for kind, what, n in prerequisites(goal, ex.state.inventory, _utilities_near(ex), consumes):
        if kind == "collect":
            tasks.append(_collect(what, n, f"first collect {n} {lx.display(what)}"))
        elif kind == "make":
            tasks.append(SkillTask(f"first craft a {lx.display(what)}", [{"obtain": what}],
                                   check=lambda ex, w=what: ex.state.inventory.get(w, 0) >= 1))
        else:
            tasks.append(SkillTask(f"first place a {lx.display(what)}", [{"place": what}],
                                   check=lambda ex, w=what: bool(ex.state.view.get(w))))
    return tasks


def _move_task(target, ex: Executor, label: str) -> Task:
    if target.direction:
        return WalkDir(label, target.direction, target.steps, target.egocentric)
    if target.pos is not None:
        return WalkTo(label, target.pos, onto=target.kind is None)
    if target.kind == "lava":  # a move toward lava steps into it: stop short, as the suite's find_lava does
        return SkillTask(label, [{"goto": "lava", "within": 2}], check=lambda ex: ex.state.distance("lava") <= 2)
    return SkillTask(label, [{"goto": target.kind}], check=lambda ex: _near(ex, target.kind))


def _near(ex: Executor, kind: str) -> bool:
    return ex.state.facing_kind == kind or ex.state.distance(kind) <= (2 if kind in lx.CREATURES else 1)


def make_task(intent: Intent, ex: Executor) -> Task:
    """The task (with its sub-tasks, planned when it starts) that carries out an intent."""
    if intent.action == "TURN":
        return Turn(intent.describe(), intent.turn)
    if intent.turn:  # turn first, then the rest
        rest = replace(intent, turn=None)
        return Sequence(intent.describe(), lambda ex: [Turn(f"turn {intent.turn.lower()}", intent.turn),
                                                       make_task(rest, ex)])
    if intent.stop:
        return _loop(intent)
    a, label = intent.action, intent.describe()
    if a == "MOVE":
        return _move_task(intent.target, ex, label)
    if a == "DESTROY" and intent.tiles:
        return _destroy_built(intent, label)
    chosen = intent.target if a in ("COLLECT", "DESTROY", "FIGHT", "EAT") and intent.target is not None else None
    if chosen is not None:  # the one singled out ('the tree on your left'): go to it first
        inner = make_task(replace(intent, target=None), ex)
        return Sequence(label, lambda ex: [WalkTo(f"go to {chosen.describe()}", chosen.pos, onto=False), inner])
    if a in ("COLLECT", "DESTROY"):
        item = intent.thing
        return Sequence(label, lambda ex: prerequisite_tasks(f"collect_{item}", ex) + [_collect(item, intent.count)])
    if a == "BUILD":
        return Sequence(label, lambda ex: _build_plan(intent, ex))
    if a == "DIG":
        return Sequence(label, lambda ex: prerequisite_tasks("collect_stone", ex) + [
            Tunnel(f"dig {intent.count} tiles into the rock", intent.count)])
    if a == "FILL":
        world = ex.env.world  # what is a hole, water or lava now (not holes mined on the way)
        initial = {(int(x), int(y)) for x, y in zip(*((world._mat_map == world._mat_ids[intent.thing]).nonzero()))}
        return Sequence(label, lambda ex: prerequisite_tasks("place_stone", ex) + [
            Sequence(f"find the {lx.display(intent.thing)}", lambda ex: [_fill(intent.thing, ex, initial)])])
    if a == "CRAFT":
        tool = intent.thing

        def craft_plan(ex):
            goal = ex.state.inventory.get(tool, 0) + intent.count
            return prerequisite_tasks(f"make_{tool}", ex) + [SkillTask(
                f"craft {lx.display(tool)}", [{"obtain": tool, "count": goal}],
                check=lambda ex: ex.state.inventory.get(tool, 0) >= goal)]

        return Sequence(label, craft_plan)
    if a == "FIGHT":
        ach = FIGHTS[intent.thing]
        start: dict = {}

        def fight_plan(ex):
            start["n"] = ex.state.achievements.get(ach, 0)
            return [{"fight": intent.thing, "count": intent.count}]

        return SkillTask(label, fight_plan, check=lambda ex: ex.state.achievements.get(ach, 0) - start["n"]
                         >= intent.count, limit=250 * intent.count)
    if a == "EAT":
        return SkillTask(label, [{"fight": "cow"}] if intent.thing == "cow" else ["eat_plant"])
    if a == "DRINK":
        return SkillTask(label, [{"drink": intent.count}])
    if a == "SLEEP":
        return SkillTask(label, ["sleep"], check=lambda ex: ex.state.sleeping)
    if a == "UNDO":
        return _undo_task(intent)
    raise ValueError(f"no task for action {a!r}")


def _build_plan(intent: Intent, ex: Executor) -> list[Task]:
    block, n, shape = intent.thing, intent.count, intent.shape
    uses = {k: v * n for k, v in PLACE[block]["uses"].items()}
    if shape == "BRIDGE":
        uses = {"stone": 1}
    tasks = prerequisite_tasks(f"place_{block}", ex, consumes=uses)
    if shape == "BRIDGE":
        return tasks + [SkillTask(f"bridge {n} tiles of water", [{"bridge": n}], limit=200)]
    if intent.target is not None:
        tasks.append(_move_task(intent.target, ex, f"go to {intent.target.describe()}"))
    item = "sapling" if block == "plant" else block
    if shape == "BLOCK" and n == 1:
        tasks.append(SkillTask(f"place a {lx.display(block)}", [{"place": item}]))
    else:
        tasks.append(Sequence(f"place {n} {lx.display(block)} {'top to bottom' if shape == 'WALL' else 'side by side'}",
                              lambda ex: _line(block, n, shape != "WALL", ex)))
    return tasks


def _line(block: str, n: int, horizontal: bool, ex: Executor) -> list[Task]:
    """Place `n` blocks side by side on the nearest strip where they fit, one tile at a time."""
    where = tuple(PLACE[block]["where"])
    strip = find_strip(ex.env.world, ex.pos, n, horizontal, tuple(w for w in where if w not in ("water", "lava")),
                       avoid=ex.mined)  # a block put back where one was just mined shows no change
    if strip is None:
        raise ValueError(f"no free strip of {n} tiles nearby")
    action = f"place_{block}"
    return [ActAt(f"place a {lx.display(block)} at {t}", t, action, check=lambda ex, t=t: _has(ex, t, block))
            for t in strip]


def _has(ex: Executor, tile: tuple[int, int], block: str) -> bool:
    material, obj = ex.env.world[tile]
    return (obj is not None and type(obj).__name__.lower() == block) if block == "plant" else material == block


def _fill(thing: str, ex: Executor, initial: set) -> Task:
    """Place stone on the nearest tile of `thing` (one of `initial`) the agent can walk up to (a
    remembered hole first)."""
    world = ex.env.world
    tiles = [t for t in initial if world[t][0] == thing]
    remembered = ex.memory.nearest(thing, ex.pos) if thing == "path" else None
    tiles.sort(key=lambda t: (t != remembered, abs(t[0] - ex.pos[0]) + abs(t[1] - ex.pos[1])))
    for tile in tiles[:12]:
        if tile != ex.pos and face_path(world, ex.pos, ex.facing, tile) is not None:
            return ActAt(f"place stone on the {lx.display(thing)} at {tile}", tile, "place_stone",
                         check=lambda ex, t=tile: ex.env.world[t][0] == "stone")
    raise ValueError(f"no {lx.display(thing)} I can walk up to")


def _destroy_built(intent: Intent, label: str) -> Task:
    """Mine the stones of an object the agent built back, one by one (a pickaxe first, if none)."""
    def plan(ex):
        tiles = [t for t in intent.tiles if ex.env.world[t][0] == "stone"]
        return prerequisite_tasks("collect_stone", ex) + [
            ActAt(f"mine the stone at {t}", t, "do", check=lambda ex, t=t: ex.env.world[t][0] != "stone")
            for t in tiles]

    return Sequence(label, plan)


def _undo_task(intent: Intent) -> Task:
    entry = intent.undo_of
    eff = entry["effects"]
    if eff.get("moved_from"):
        return WalkTo(f"walk back to where I was before '{entry['label']}'", tuple(eff["moved_from"]))

    def plan(ex):
        tiles = [tuple(t[:2]) for t in eff["placed"] if ex.env.world[tuple(t[:2])][0] == "stone"]
        return prerequisite_tasks("collect_stone", ex) + [
            ActAt(f"mine the stone at {t} back", t, "do", check=lambda ex, t=t: ex.env.world[t][0] != "stone")
            for t in tiles]

    return Sequence(f"undo '{entry['label']}'", plan)


def _loop(intent: Intent) -> Task:
    stop = intent.stop
    inner = replace(intent, stop=None, count=1 if intent.action in ("COLLECT", "DESTROY") else intent.count)
    if stop["type"] == "HAVE":
        def done(ex):
            return ex.state.inventory.get(stop["item"], 0) >= stop["count"]
    elif stop["type"] == "NIGHT":
        def done(ex):
            return ex.state.time_of_day == "night"
    else:
        def done(ex):
            return ex.state.daylight >= DAY

    return Loop(intent.describe(), lambda ex: make_task(inner, ex), done, max_iterations=30)
