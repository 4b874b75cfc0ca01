"""From an action dictionary to what it asks of this world (an `Intent`), or a reply when it cannot
be done (`Refusal`) or needs a question first (`Clarify`): the interpreter, which resolves the
spans' words against the lexicon, the memory and the view, and checks what crafter permits."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from mineclip.sim.vocab import CREATURE_ACHIEVEMENT, ITEM_MAX, VITAL_MAX


from . import lexicon as lx
from .tokens import span_text

if TYPE_CHECKING:
    from .executor import Executor

DEFINITE = ("the", "that", "this", "those", "these")
FIGHTS = CREATURE_ACHIEVEMENT  # creature -> the achievement of killing it
PLACEABLE = "I can place stone, a crafting table, a furnace or a sapling"
BUILDABLE = ("I can place stone, a crafting table, a furnace or a sapling, build a row or a wall of stone or saplings, "
             "or a bridge of stone over water")
CAN_DO = ("I can go to things and named places, collect wood, stone, coal, iron, diamonds and saplings, place blocks, "
          "build rows, walls and bridges, dig, fill holes and water, craft pickaxes and swords, fight, eat, drink, "
          "sleep, stop, undo and resume")
SIDE_WORDS = {"LEFT": "to its left", "RIGHT": "to its right", "FRONT": "in front of it", "BEHIND": "behind it",
              "ABOVE": "on top of it", "BELOW": "under it", "AWAY": "away from it"}


@dataclass
class Target:
    """Where to go: a kind of thing, a position (a named place, a chosen tile) or a direction."""

    kind: str | None = None
    pos: tuple[int, int] | None = None
    name: str | None = None
    direction: str | None = None
    steps: int = 0

    def describe(self) -> str:
        if self.name:
            return self.name
        if self.direction:
            return f"{self.steps} steps {self.direction.lower()}"
        return f"the {lx.display(self.kind)}" if self.kind else f"({self.pos[0]}, {self.pos[1]})"


@dataclass
class Intent:
    """What a command asks, resolved: the action, its thing, how many, a shape, a place, a stop condition."""

    action: str
    thing: str | None = None
    count: int = 1
    shape: str = "BLOCK"
    target: Target | None = None
    stop: dict | None = None  # {"type": HAVE|NIGHT|DAY, "item", "count"}
    text: str = ""
    explicit_count: bool = False
    undo_of: dict | None = None  # the history entry an UNDO reverts

    def describe(self) -> str:
        """A short description for replies ('collect 3 wood', 'go to the tree')."""
        thing = lx.display(self.thing) if self.thing else ""
        n = f"{self.count} " if self.explicit_count or self.count > 1 else ""
        base = {
            "MOVE": (f"walk {self.target.steps} steps {self.target.direction.lower()}" if self.target and
                     self.target.direction else f"go to {self.target.describe()}" if self.target else "move"),
            "COLLECT": f"collect {n}{thing}", "DESTROY": f"break {n}{thing}",
            "BUILD": (f"place a {thing}" if self.shape == "BLOCK" else f"build a {self.shape.lower()} of {self.count} "
                      f"{thing}"),
            "DIG": f"dig a {self.shape.lower()} {self.count} long", "FILL": f"fill the {thing} with stone",
            "CRAFT": f"craft {n}{thing}", "FIGHT": f"fight {n}{thing}", "EAT": f"eat {thing or 'something'}",
            "DRINK": f"drink water{f' {self.count} times' if self.count > 1 else ''}", "SLEEP": "sleep", "STOP": "stop", "UNDO": "undo",
            "RESUME": "carry on",
        }[self.action]
        if self.target and self.action in ("BUILD", "DIG"):
            base += f" near {self.target.describe()}"
        if self.stop and self.stop["type"] == "HAVE":
            base += f" until I have {self.stop['count']} {lx.display(self.stop['item'])}"
        elif self.stop:
            base += " until night" if self.stop["type"] == "NIGHT" else " until it is day"
        return base


@dataclass
class Refusal:
    """The command cannot be carried out here; `reply` says why."""

    reply: str


@dataclass
class Clarify:
    """A question to ask before acting: yes/no, or a choice between `options` (label -> position)."""

    question: str
    intent: Intent
    options: dict[str, tuple[int, int]] = field(default_factory=dict)
    slot: str = "target"  # which part of the intent the answer fills


def _count(words: list[str], span, default: int = 1) -> int | None:
    if span is None:
        return default
    return lx.number_of(span_text(words, span))


def _relative(dx: int, dy: int, facing: tuple[int, int]) -> str:
    if (dx, dy) != (0, 0) and (int(dx > 0) - int(dx < 0), int(dy > 0) - int(dy < 0)) == facing and 0 in (dx, dy):
        return "ahead"
    if abs(dx) >= abs(dy):
        return "to the left" if dx < 0 else "to the right"
    return "above" if dy < 0 else "below"


def resolve_place(words: list[str], span, ex: Executor, intent: Intent, slot: str = "target"
                  ) -> Target | Refusal | Clarify:
    """A reference to a place: a named place, or a kind of thing (asking when it is not in sight or
    when 'the X' could be two things)."""
    text = span_text(words, span)
    named = ex.memory.place(text) or ex.memory.place(lx.singular(text))
    if named is not None:
        return Target(pos=named, name=text)
    kind = lx.kind_of(text)
    if kind is None:
        names = ", ".join(ex.memory.places()) or "none yet"
        return Refusal(f"I don't know what '{text}' is. I know trees, water, stone, sand, lava, coal, iron, diamonds, "
                       f"grass, tables, furnaces, saplings, holes, cows, zombies and skeletons, and the places you "
                       f"named ({names}); to name this spot, say 'call this spot {text}'.")
    in_view = ex.state.view.get(kind, [])
    if not in_view:
        if kind in ("table", "furnace") and ex.memory.nearest(kind, ex.pos) is None:
            return Refusal(f"I haven't seen any {lx.display(kind)}: they are only where someone placed one. Say "
                           f"'place a {lx.display(kind)}' first.")
        if ex.memory.nearest(kind, ex.pos) is None:
            return Clarify(f"I don't see any {lx.display(kind)}: should I explore?",
                           replace(intent, **{slot: Target(kind=kind)}) if slot != "thing" else intent)
        return Target(kind=kind)
    start = span[1][0]
    definite = start > 0 and words[start - 1] in DEFINITE
    if definite and kind != "water":
        best = min(abs(dx) + abs(dy) for dx, dy in in_view)
        options: dict[str, tuple[int, int]] = {}
        for dx, dy in sorted(in_view):
            if abs(dx) + abs(dy) == best:
                options.setdefault(_relative(dx, dy, ex.facing), (ex.pos[0] + dx, ex.pos[1] + dy))
        if len(options) > 1:
            labels = [f"the one {o}" if o != "ahead" else "the one ahead" for o in options]
            question = f"Which {lx.display(kind)}: {', '.join(labels[:-1])} or {labels[-1]}?"
            return Clarify(question, replace(intent, **{slot: Target(kind=kind)}), options, slot)
    return Target(kind=kind)


def interpret(d: dict, words: list[str], ex: Executor) -> Intent | Refusal | Clarify:
    """The intent of a HUMAN_GIVE_COMMAND dictionary in this world, or a reply."""
    action = d["action"]
    stop = None
    if action["action_type"] == "LOOP":
        stop = action["stop_condition"]
        action = action["action"]
    kind = action["action_type"]
    intent = Intent(kind, text=" ".join(words))
    result = _beyond_crafter(kind, action, words, ex) or _simple(kind, action, words, ex, intent)
    if not isinstance(result, Intent) or stop is None:
        return result
    return _with_stop(result, stop, words, ex)


def _beyond_crafter(kind: str, a: dict, words: list[str], ex: Executor) -> Refusal | None:
    """A plain refusal, naming what the assistant can do, for requests crafter cannot serve (parsed as
    what they ask: never carried out as something else); None for the rest."""
    ref = a.get("reference_object", {}).get("has_name")
    what = span_text(words, ref) if ref else ""
    if kind == "OTHER":
        said = f" ({what})" if what else ""
        return Refusal(f"I can't do that in this world{said}. {CAN_DO}.")
    if kind == "COMPOSITE":
        return Refusal("One thing at a time, please: tell me the first step, and the next one when it's done.")
    if kind == "SPAWN":
        return Refusal(f"I can't make {what or 'things'} appear: crafter spawns cows, zombies and skeletons by "
                       "itself. I can go to one, fight it or eat a cow.")
    if kind == "RESUME" and not ex.stack:
        return Refusal("There is nothing to resume: I'm not in the middle of anything.")
    loc = a.get("location") or {}
    if loc.get("location_type") == "SPEAKER":
        return Refusal("I can't see you in this world, so I can't come to you: name a thing or a place, like 'go to "
                       "the tree' or 'go home'.")
    if loc.get("relative_direction"):
        thing = span_text(words, loc["reference_object"]["has_name"])
        return Refusal(f"I can go next to the {thing}, but not {SIDE_WORDS[loc['relative_direction']]} yet: say "
                       f"'next to the {thing}'.")
    if kind in ("DESTROY", "FILL") and ref is None:
        return Refusal("Break what? Say, for example, 'break the stone'." if kind == "DESTROY" else
                       "Fill what? I can fill water, lava or holes with stone.")
    return None


def _with_stop(intent: Intent, stop: dict, words: list[str], ex: Executor) -> Intent | Refusal:
    kind = stop["condition_type"]
    if kind in ("NIGHT", "DAY"):
        now = ex.state.time_of_day
        if (kind == "NIGHT" and now == "night") or (kind == "DAY" and now == "day"):
            return Refusal(f"It is already {now}, so there is nothing to repeat.")
        return replace(intent, stop={"type": kind})
    item = lx.item_of(span_text(words, stop["has_name"])) if "has_name" in stop else None
    item = item or (intent.thing if intent.action in ("COLLECT", "DESTROY") else None)
    if item is None:
        return Refusal("Until I have how much of what? Say, for example, 'until you have 5 wood'.")
    n = _count(words, stop.get("count"), default=ITEM_MAX)
    if n is None or not 1 <= n <= ITEM_MAX:
        return Refusal(f"I can carry at most {ITEM_MAX} {lx.display(item)}.")
    if ex.state.inventory.get(item, 0) >= n:
        return Refusal(f"I already have {ex.state.inventory[item]} {lx.display(item)}.")
    return replace(intent, stop={"type": "HAVE", "item": item, "count": n})


def _simple(kind: str, a: dict, words: list[str], ex: Executor, intent: Intent) -> Intent | Refusal | Clarify:
    ref = a.get("reference_object", a.get("recipe", {})).get("has_name")
    ref_text = span_text(words, ref) if ref else ""
    n = _count(words, a.get("repeat", {}).get("repeat_count"))
    if n is None or n < 1:
        return Refusal(f"I can't tell how many: '{span_text(words, a['repeat']['repeat_count'])}'.")
    intent = replace(intent, count=n, explicit_count="repeat" in a)
    if kind == "MOVE":
        loc = a["location"]
        if loc["location_type"] == "DIRECTION":
            steps = _count(words, loc.get("steps"), default=3)
            if steps is None or not 1 <= steps <= 30:
                return Refusal("I can walk 1 to 30 steps at a time in one direction.")
            return replace(intent, target=Target(direction=loc["direction"], steps=steps))
        target = resolve_place(words, loc["reference_object"]["has_name"], ex, intent)
        return replace(intent, target=target) if isinstance(target, Target) else target
    if kind in ("COLLECT", "DESTROY"):
        item = lx.item_of(ref_text)
        if kind == "DESTROY":
            what = lx.kind_of(ref_text)
            if what in ("table", "furnace", "plant", "water", "lava", "grass", "sand", "path") + lx.CREATURES:
                verb = "fight" if what in lx.CREATURES else "break"
                return Refusal(f"crafter gives me no way to {verb} a {lx.display(what)} that way"
                               + (": say 'kill the ...' to fight it." if what in lx.CREATURES else "."))
        if item is None or item in lx.TOOLS or item.endswith(("pickaxe", "sword")):
            return Refusal(f"I can't collect '{ref_text}': I can collect wood, stone, coal, iron, diamonds, "
                           "saplings and water.")
        if item == "drink":
            return replace(intent, action="DRINK", thing=None)
        if n > ITEM_MAX:
            return Refusal(f"I can carry at most {ITEM_MAX} {lx.display(item)}.")
        return replace(intent, thing=item)
    if kind == "BUILD":
        return _build(a, words, ex, intent)
    if kind == "DIG":
        shape = a.get("schematic", {}).get("has_shape", "TUNNEL")
        size = _count(words, a.get("schematic", {}).get("has_size"), default=4 if shape == "TUNNEL" else 1)
        if size is None or not 1 <= size <= 8:
            return Refusal("I can dig 1 to 8 tiles into the rock at a time.")
        loc = a.get("location")
        if loc and loc["location_type"] == "REFERENCE_OBJECT":
            where = lx.kind_of(span_text(words, loc["reference_object"]["has_name"]))
            if where not in (None, "stone", "coal", "iron", "diamond"):
                return Refusal(f"I can only dig into rock, not into {span_text(words, loc['reference_object']['has_name'])}.")
        return replace(intent, shape=shape if shape in ("TUNNEL", "HOLE") else "TUNNEL", count=size, thing="stone")
    if kind == "FILL":
        what = lx.kind_of(ref_text)
        if what not in ("water", "lava", "path"):
            return Refusal(f"I can fill water, lava or holes, not '{ref_text}'.")
        block = a.get("schematic", {}).get("has_block_type")
        if block is not None and lx.placeable_of(span_text(words, block)) != "stone":
            return Refusal(f"Only stone can go on {lx.display(what)} in crafter.")
        if what == "path" and not ex.state.view.get("path") and ex.memory.nearest("path", ex.pos) is None:
            return Refusal("I don't see any hole to fill.")
        return replace(intent, thing=what)
    if kind == "CRAFT":
        tool = lx.tool_of(ref_text)
        if tool is None:
            return Refusal(f"I can't craft '{ref_text}': I can craft pickaxes and swords of wood, stone or iron.")
        if n > ITEM_MAX:
            return Refusal(f"I can carry at most {ITEM_MAX} of a tool.")
        return replace(intent, thing=tool)
    if kind == "FIGHT":
        what = lx.kind_of(ref_text)
        if what not in lx.CREATURES:
            return Refusal(f"I can fight cows, zombies and skeletons, not '{ref_text}'.")
        if n > 5:
            return Refusal("That is a lot of fighting: at most 5 at a time.")
        return replace(intent, thing=what)
    if kind == "EAT":
        what = lx.kind_of(ref_text) if ref else "cow"
        if what not in ("cow", "plant"):
            return Refusal(f"I can eat cows or ripe plants, not '{ref_text}'.")
        if what == "plant" and not any(getattr(o, "ripe", False) for o in ex.env.world.objects):
            return Refusal("There is no ripe plant in this world yet; I could eat a cow instead.")
        return replace(intent, thing=what)
    if kind == "DRINK":
        if n > ITEM_MAX:
            return Refusal(f"I can drink at most {ITEM_MAX} times in a row.")
        return intent
    if kind == "SLEEP":
        energy = ex.state.inventory.get("energy", 0)
        if energy >= VITAL_MAX["energy"]:
            return Refusal(f"I'm not tired (energy {energy}/{VITAL_MAX['energy']}): crafter won't let me "
                           "sleep.")
        return intent
    if kind == "UNDO":
        return _undo(ex, intent)
    if kind == "STOP" and not ex.stack:
        return Refusal("I wasn't doing anything.")
    return intent  # STOP


def _build(a: dict, words: list[str], ex: Executor, intent: Intent) -> Intent | Refusal | Clarify:
    schem = a["schematic"]
    if "has_name" in schem:  # something to build that is no block or shape: one of ours after all, or refused
        name = span_text(words, schem["has_name"])
        if lx.shape_of(name):
            schem = {**{k: v for k, v in schem.items() if k != "has_name"}, "has_shape": lx.shape_of(name)}
        elif lx.placeable_of(name) is not None and "has_block_type" not in schem:
            schem = {"has_block_type": schem["has_name"], "has_shape": "BLOCK"}
        else:
            return Refusal(f"I can't build {_a(name)} in crafter: {BUILDABLE}.")
    shape = schem.get("has_shape", "BLOCK")
    if shape in ("PILLAR", "HOUSE"):
        return Refusal(f"crafter's world is flat, seen from above: I can't build a {shape.lower()}. I can place a "
                       "block, a row or a wall of stone, a row of saplings, or a bridge over water.")
    text = span_text(words, schem["has_block_type"]) if "has_block_type" in schem else ("stone" if shape != "BLOCK"
                                                                                        else "")
    if not text:
        return Refusal(f"Build what? {PLACEABLE}.")
    block = lx.placeable_of(text)
    if block is None or lx.names_other(text, block):  # "a diamond block" is no stone block
        return Refusal(f"I can't place {text}: {PLACEABLE}.")
    size = _count(words, schem.get("has_size"), default=1 if shape == "BLOCK" else 4)
    if shape == "BRIDGE":
        block, size = "stone", _count(words, schem.get("has_size"), default=3)
    if size is None or not 1 <= size <= ITEM_MAX:
        return Refusal(f"I can place 1 to {ITEM_MAX} blocks in one go.")
    if shape in ("ROW", "WALL") and block not in ("stone", "plant"):
        return Refusal(f"I can build rows and walls of stone or saplings, not of {text}.")
    intent = replace(intent, thing=block, shape=shape, count=size)
    loc = a.get("location")
    if shape == "BRIDGE":
        loc_span = loc["reference_object"]["has_name"] if loc and loc["location_type"] == "REFERENCE_OBJECT" else None
        if loc_span is not None and lx.kind_of(span_text(words, loc_span)) != "water":
            return Refusal("Bridges go over water.")
        return replace(intent, target=Target(kind="water"))
    if loc is None:
        return intent
    if loc["location_type"] == "DIRECTION":
        return Refusal("Say where with a thing or a named place, like 'next to the tree'.")
    target = resolve_place(words, loc["reference_object"]["has_name"], ex, intent)
    return replace(intent, target=target) if isinstance(target, Target) else target


def _a(phrase: str) -> str:
    """'a boat', 'an apple tree', 'the old house' (a phrase that has its own article keeps it)."""
    if phrase.split()[0] in ("a", "an", "the", "my", "your", "some", "this", "that"):
        return phrase
    return ("an " if phrase[0] in "aeiou" else "a ") + phrase


def _undo(ex: Executor, intent: Intent) -> Intent | Refusal:
    for entry in reversed(ex.memory.tasks()):
        eff = entry["effects"]
        if entry["status"] != "done" or eff.get("undone") or not (eff.get("placed") or eff.get("moved_from")):
            continue
        if any(t[1] == "undone" for t in ex.memory.triples(f"task:{entry['id']}")):
            continue
        placed = eff.get("placed") or []
        if placed and any(m != "stone" for _, _, m in placed):
            m = next(m for _, _, m in placed if m != "stone")
            return Refusal(f"I can't undo '{entry['label']}': crafter gives no way to remove a {lx.display(m)}.")
        return replace(intent, undo_of=entry)
    return Refusal("There is nothing to undo.")
