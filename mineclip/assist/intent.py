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
    egocentric: bool = False  # a direction of the agent's body ('to your left'), not of the screen
    built_id: int | None = None  # an object the agent built (memory.built)
    side: str | None = None  # how it was singled out, for replies ('on your left', 'the farthest')

    def describe(self) -> str:
        if self.name:
            return self.name
        if self.direction:
            return f"{self.steps} steps {_way(self)}"
        if self.kind:
            return f"the {lx.display(self.kind)}" + (f" {self.side}" if self.side else "")
        return f"({self.pos[0]}, {self.pos[1]})"


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
    turn: str | None = None  # LEFT, RIGHT, AROUND: turn first (or only, for TURN)
    tiles: tuple = ()  # the tiles of the built object a DESTROY breaks

    def describe(self) -> str:
        """A short description for replies ('collect 3 wood', 'go to the tree')."""
        thing = lx.display(self.thing) if self.thing else ""
        n = f"{self.count} " if self.explicit_count or self.count > 1 else ""
        base = {
            "MOVE": (f"walk {self.target.steps} steps {_way(self.target)}" if self.target and
                     self.target.direction else f"go to {self.target.describe()}" if self.target else "move"),
            "COLLECT": f"collect {n}{thing}", "DESTROY": f"break {n}{thing}",
            "BUILD": (f"place a {thing}" if self.shape == "BLOCK" else f"build a {self.shape.lower()} of {self.count} "
                      f"{thing}"),
            "DIG": f"dig a {self.shape.lower()} {self.count} long", "FILL": f"fill the {thing} with stone",
            "CRAFT": f"craft {n}{thing}", "FIGHT": f"fight {n}{thing}", "EAT": f"eat {thing or 'something'}",
            "DRINK": f"drink water{f' {self.count} times' if self.count > 1 else ''}", "SLEEP": "sleep", "STOP": "stop", "UNDO": "undo",
            "RESUME": "carry on", "TURN": f"turn {(self.turn or '').lower()}",
        }[self.action]
        if self.action == "DESTROY" and self.target is not None and self.target.built_id is not None:
            base = f"break {self.target.describe()}"
        elif self.action in ("COLLECT", "DESTROY", "FIGHT", "EAT") and self.target is not None:
            base += f" ({self.target.describe()})"
        if self.turn and self.action != "TURN":
            base = f"turn {self.turn.lower()} and {base}"
        if self.target and self.action in ("BUILD", "DIG"):
            base += f" near {self.target.describe()}"
        if self.stop and self.stop["type"] == "HAVE":
            base += f" until I have {self.stop['count']} {lx.display(self.stop['item'])}"
        elif self.stop:
            base += " until night" if self.stop["type"] == "NIGHT" else " until it is day"
        return base


def _way(t: Target) -> str:
    if t.egocentric and t.direction in ("LEFT", "RIGHT"):
        return f"to my {t.direction.lower()}"
    if t.egocentric:
        return {"UP": "forward", "DOWN": "back"}.get(t.direction, t.direction.lower())
    return t.direction.lower()


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
    confirm: bool = False  # a yes/no about the first option ("do you mean the tree on your left?")


def referent_of(intent: Intent) -> tuple[str | None, tuple[int, int] | None, int | None] | None:
    """What a command was about, for the next 'it': (kind, tile, built object id), or None."""
    t = intent.target
    if t is not None and (t.kind or t.built_id is not None):
        return t.kind, t.pos, t.built_id
    if intent.action in ("FIGHT", "EAT", "FILL") and intent.thing:
        return intent.thing, None, None
    if intent.action in ("COLLECT", "DESTROY") and intent.thing:
        kind = next((k for k, item in lx.COLLECT_ITEM.items() if item == intent.thing), None)
        return (kind, None, None) if kind else None
    return None


def _count(words: list[str], span, default: int = 1) -> int | None:
    if span is None:
        return default
    return lx.number_of(span_text(words, span))


SIDE_PHRASES = {"FRONT": "in front of you", "LEFT": "on your left", "RIGHT": "on your right", "BEHIND": "behind you"}
ME = {"FRONT": "in front of me", "LEFT": "on my left", "RIGHT": "on my right", "BEHIND": "behind me"}
TURNED = {"LEFT": "left", "RIGHT": "right"}


def side_of(dx: int, dy: int, facing: tuple[int, int]) -> str | None:
    """Which side of a player facing `facing` the offset (dx, dy) is on, relative to its body (the same
    in both views), as people say it: LEFT or RIGHT of the line of sight (ahead or abreast: 'the tree on
    your left' is often in view, ahead and to the left), FRONT straight ahead, BEHIND in the quarter
    behind; None for its own tile."""
    ahead, right = _body(dx, dy, facing)
    if (dx, dy) == (0, 0):
        return None
    if right == 0:
        return "FRONT" if ahead > 0 else "BEHIND"
    if ahead < 0 and abs(right) <= -ahead:
        return "BEHIND"
    return "RIGHT" if right > 0 else "LEFT"


def on_side(dx: int, dy: int, facing: tuple[int, int], side: str) -> bool:
    """Whether an offset is on a side of the agent: FRONT and BEHIND are the quarters ahead and behind
    (diagonals included), LEFT and RIGHT the halves beside the line of sight less the quarter behind.
    A thing ahead and to the left is both in front and on the left."""
    ahead, right = _body(dx, dy, facing)
    if side == "FRONT":
        return ahead > 0 and abs(right) <= ahead
    if side == "BEHIND":
        return ahead < 0 and abs(right) <= -ahead
    return side_of(dx, dy, facing) == side


def _body(dx: int, dy: int, facing: tuple[int, int]) -> tuple[int, int]:
    """(tiles ahead, tiles to the right) of an offset for a player facing `facing` (crafter's grid: x
    right, y down)."""
    fx, fy = facing
    return dx * fx + dy * fy, dx * -fy + dy * fx


def turned(facing: tuple[int, int], turn: str | None) -> tuple[int, int]:
    """The facing after a turn (LEFT, RIGHT, AROUND, or None: no turn)."""
    from mineclip.sim.view import turn as turn_once

    if turn is None:
        return tuple(facing)
    if turn == "AROUND":
        return (-facing[0], -facing[1])
    return turn_once(facing, TURNED[turn])


def _dist(a, b) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def _components(tiles: set[tuple[int, int]]) -> list[set[tuple[int, int]]]:
    """4-connected groups of tiles."""
    left, out = set(tiles), []
    while left:
        stack, group = [left.pop()], set()
        while stack:
            t = stack.pop()
            group.add(t)
            for d in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                n = (t[0] + d[0], t[1] + d[1])
                if n in left:
                    left.remove(n)
                    stack.append(n)
        out.append(group)
    return out


def resolve_place(words: list[str], ref: dict, ex: Executor, intent: Intent, slot: str = "target",
                  facing: tuple[int, int] | None = None) -> Target | Refusal | Clarify:
    """A reference object as a place: a named place or object, an object the agent built, what 'it' is,
    or a kind of thing, singled out by a side of the agent (relative to `facing`, default the agent's)
    or a selector. Asks when the thing is not in sight, and asks to confirm when 'the X' could be two."""
    span = ref["has_name"]
    facing = tuple(facing or ex.facing)
    text = span_text(words, span)
    if ref.get("coref"):
        return _coreferent(text, ex)
    if ref.get("built_by_agent"):
        return _built_by_agent(text, ref, ex)
    named = ex.memory.place(text) or ex.memory.place(lx.singular(text))
    if named is not None:
        return Target(pos=named, name=text)
    obj = ex.memory.built_named(text) or ex.memory.built_named(lx.singular(text))
    if obj is not None:
        return _built_target(obj, ex, text)
    kind = lx.kind_of(text)
    if kind is None:
        names = ", ".join(sorted(set(ex.memory.places()) | {o["name"] for o in ex.memory.built() if o["name"]}))
        return Refusal(f"I don't know what '{text}' is. I know trees, water, stone, sand, lava, coal, iron, diamonds, "
                       f"grass, tables, furnaces, saplings, holes, cows, zombies and skeletons, and the places you "
                       f"named ({names or 'none yet'}); to name this spot, say 'call this spot {text}'.")
    side, selector = ref.get("relative_to_agent"), ref.get("selector")
    if side or selector:
        return _single_out(kind, side, selector, ex, facing)
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
        for dx, dy in sorted(in_view, key=lambda o: ("FRONT", "LEFT", "RIGHT", "BEHIND").index(side_of(*o, facing))
                             if side_of(*o, facing) else 0):
            if abs(dx) + abs(dy) == best and side_of(dx, dy, facing):
                options.setdefault(SIDE_PHRASES[side_of(dx, dy, facing)], (ex.pos[0] + dx, ex.pos[1] + dy))
        if len(options) > 1:
            return confirm_question(kind, replace(intent, **{slot: Target(kind=kind)}), options, slot)
    return Target(kind=kind)


def confirm_question(kind: str, intent: Intent, options: dict[str, tuple[int, int]], slot: str = "target") -> Clarify:
    """'Do you mean the tree on your left? (There is one on your right too.)': a yes/no about the first
    option; the answer may also name another ('the right one')."""
    labels = list(options)
    others = " and ".join(labels[1:])
    name = lx.display(kind)
    return Clarify(f"Do you mean the {name} {labels[0]}? (There is one {others} too.)", intent, options, slot,
                   confirm=True)


def _candidates(kind: str, ex: Executor) -> set[tuple[int, int]]:
    """Where things of a kind are, as far as the agent knows: in view now, or remembered (creatures:
    only in view, they move)."""
    here = {(ex.pos[0] + dx, ex.pos[1] + dy) for dx, dy in ex.state.view.get(kind, [])}
    return here | (set() if kind in lx.CREATURES else set(ex.memory.seen(kind)))


def _single_out(kind: str, side: str | None, selector: dict | None, ex: Executor,
                facing: tuple[int, int]) -> Target | Refusal | Clarify:
    """The one thing of a kind on a side of the agent and / or picked by a selector."""
    name = lx.display(kind)
    cands = _candidates(kind, ex)
    if side:
        cands = {p for p in cands if on_side(p[0] - ex.pos[0], p[1] - ex.pos[1], facing, side)}
        if not cands:
            hint = (" I can't see behind me in first person: say 'turn around' first." if side == "BEHIND" and
                    getattr(ex.env, "view", "top") == "first_person" else "")
            return Refusal(f"I don't see any {name} {ME[side]}.{hint}")
    if not cands:
        return Refusal(f"I don't see any {name}.")
    said = SIDE_PHRASES[side] if side else ""
    if selector is None:  # the nearest one on that side
        best = min(_dist(p, ex.pos) for p in cands)
        return Target(kind=kind, pos=min(p for p in cands if _dist(p, ex.pos) == best), side=said)
    order, rank = selector["order"], selector["rank"]
    what = {"NEAREST": "nearest", "FARTHEST": "farthest", "BIGGEST": "biggest", "SMALLEST": "smallest"}[order]
    nth = {1: "", 2: "second ", 3: "third "}.get(rank, f"number {rank} ")
    if order in ("NEAREST", "FARTHEST"):
        ranked = sorted(cands, key=lambda p: (_dist(p, ex.pos), p), reverse=order == "FARTHEST")
        if rank > len(ranked):
            return Refusal(f"I only know of {len(ranked)} {name}{'' if len(ranked) == 1 else 's'}"
                           f"{' ' + ME[side] if side else ''}, so there is no {nth}{what} one.")
        return Target(kind=kind, pos=ranked[rank - 1], side=f"({nth}{what}{', ' + said if said else ''})")
    if kind in lx.CREATURES:
        return Refusal(f"Every {name} is the same size in crafter; say 'the nearest {name}' or 'the second {name}'.")
    groups = sorted(_components(cands), key=lambda g: (len(g), min(g)), reverse=order == "BIGGEST")
    if rank > len(groups):
        return Refusal(f"I only know of {len(groups)} separate {name} area{'' if len(groups) == 1 else 's'}.")
    group = groups[rank - 1]
    pos = min(group, key=lambda p: (_dist(p, ex.pos), p))
    return Target(kind=kind, pos=pos, side=f"({nth}{what}: {len(group)} tiles seen{', ' + said if said else ''})")


def _built_target(obj: dict, ex: Executor, name: str | None = None) -> Target:
    pos = min(obj["tiles"], key=lambda p: (_dist(p, ex.pos), p))
    return Target(pos=pos, name=name or f"the {obj['shape']} I built", built_id=obj["id"])


def _built_by_agent(text: str, ref: dict, ex: Executor) -> Target | Refusal:
    """'the wall you built', 'the one you just placed': the latest object the agent built of that shape
    or block (the selector's rank counts back from it)."""
    objs = ex.memory.built()
    shape = lx.shape_of(text)
    kind = lx.kind_of(text)
    if shape:
        objs = [o for o in objs if o["shape"] == shape.lower()]
    elif kind == "path":
        objs = [o for o in objs if o["shape"] == "tunnel"]
    elif kind is not None:
        objs = [o for o in objs if o["block"] == kind]
    if not objs:
        said = "" if text in ("one", "it", "thing", "that", "this") else f" {lx.display(kind) if kind and not shape else text}"
        return Refusal(f"I haven't built any{said} that is still standing.")
    rank = ref.get("selector", {}).get("rank", 1)
    if rank > len(objs):
        return Refusal(f"I have built only {len(objs)} of those.")
    return _built_target(objs[-rank], ex)


def _coreferent(text: str, ex: Executor) -> Target | Refusal:
    """What 'it' / 'that one' means: the last thing a command referred to (a built object, a tile, a kind)."""
    last = ex.memory.last_referent()
    if last is None:
        return Refusal(f"What do you mean by '{text}'? We haven't talked about anything yet: name it, like 'the tree'.")
    if last["built_id"] is not None:
        obj = ex.memory.built_object(last["built_id"])
        if obj is None:
            return Refusal(f"'{text}' was something I built, but it is gone now.")
        return _built_target(obj, ex)
    kind = last["kind"]
    if kind in lx.CREATURES or last["pos"] is None or ex.env.world[last["pos"]][0] != kind:
        return Target(kind=kind)
    return Target(kind=kind, pos=last["pos"], side="(the one we talked about)")


def interpret(d: dict, words: list[str], ex: Executor) -> Intent | Refusal | Clarify:
    """The intent of a HUMAN_GIVE_COMMAND dictionary in this world, or a reply."""
    action = d["action"]
    stop = None
    if action["action_type"] == "LOOP":
        stop = action["stop_condition"]
        action = action["action"]
    kind = action["action_type"]
    turn = d.get("turn")
    intent = Intent(kind, text=" ".join(words), turn=turn if kind != "TURN" else action["direction"])
    if kind == "TURN":
        return intent
    facing = turned(ex.facing, turn)  # what the action says relative to the agent is after the turn
    result = _beyond_crafter(kind, action, words, ex) or _simple(kind, action, words, ex, intent, facing)
    if not isinstance(result, Intent) or stop is None:
        return result
    return _with_stop(result, stop, words, ex)


NEW_KEYS = ("relative_to_agent", "selector", "coref", "built_by_agent")


def _singled_out(ref: dict | None, words: list[str], ex: Executor) -> bool:
    """Whether a reference object picks one thing (a side, a selector, 'it', something built or named)
    rather than naming a kind."""
    if not ref:
        return False
    text = span_text(words, ref["has_name"])
    return any(k in ref for k in NEW_KEYS) or ex.memory.built_named(text) is not None


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


def _simple(kind: str, a: dict, words: list[str], ex: Executor, intent: Intent,
            facing: tuple[int, int]) -> Intent | Refusal | Clarify:
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
            ego = loc.get("relative_to") == "AGENT" or getattr(ex.env, "view", "top") == "first_person"
            return replace(intent, target=Target(direction=loc["direction"], steps=steps, egocentric=ego))
        target = resolve_place(words, loc["reference_object"], ex, intent, facing=facing)
        return replace(intent, target=target) if isinstance(target, Target) else target
    if kind in ("COLLECT", "DESTROY", "FIGHT", "EAT", "FILL") and _singled_out(a.get("reference_object"), words, ex):
        target = resolve_place(words, a["reference_object"], ex, intent, facing=facing)
        if not isinstance(target, Target):
            return target
        if target.built_id is not None:
            return _destroy_built(kind, target, ex, intent)
        intent = replace(intent, target=target if target.pos is not None else None)
        ref_text = target.kind
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
        return _build(a, words, ex, intent, facing)
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


def _build(a: dict, words: list[str], ex: Executor, intent: Intent,
           facing: tuple[int, int]) -> Intent | Refusal | Clarify:
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
    target = resolve_place(words, loc["reference_object"], ex, intent, facing=facing)
    return replace(intent, target=target) if isinstance(target, Target) else target


def _destroy_built(kind: str, target: Target, ex: Executor, intent: Intent) -> Intent | Refusal:
    """Breaking an object the agent built: its stones mined back (crafter gives no way to remove a
    table, a furnace or a sapling; a tunnel or bridge is filled or crossed, not broken)."""
    obj = ex.memory.built_object(target.built_id)
    what = target.describe()
    if kind != "DESTROY":
        verb = {"COLLECT": "collect", "FIGHT": "fight", "EAT": "eat", "FILL": "fill"}[kind]
        return Refusal(f"I can't {verb} {what}; I can break it ('destroy the {obj['shape']} you built') or go to it.")
    if obj["block"] != "stone":
        return Refusal(f"I can't break {what}: crafter gives no way to remove a {lx.display(obj['block'])}.")
    return replace(intent, thing="stone", target=target, tiles=tuple(obj["tiles"]), count=len(obj["tiles"]))


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
