"""Loose first-person narration of a clip, like a gameplay video's transcript.

The text comes from what happens in the clip (events, creatures and blocks in view, inventory
changes, time of day) through templates with many paraphrases. `misalign` is the chance that
the narration talks about a neighbouring stretch of the episode instead (transcripts lag or lead
the picture); `filler` controls the chance of filler words and off-topic chatter.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import NamedTuple

from mineclip.sim.state import WorldState
from mineclip.sim.vocab import VITALS, acted_on
from mineclip.tasks.oracles import longest_line
from mineclip.tasks.scenes import (
    CLOSE,
    DAY,
    FAR,
    IDLE,
    NIGHT,
    VIEW,
    VIEW_CLOSE,
    VIEW_FAR,
    VIEW_NEAR,
    VIEW_UNNAMED,
)

EVENTS: dict[str, list[str]] = {
    "collect_wood": ["i'm chopping this tree", "chop a tree real quick", "getting some wood off this tree",
                     "punching the tree for wood", "let me chop down this tree", "collecting wood from the tree",
                     "collect some wood"],
    "collect_sapling": ["got a sapling out of the grass", "collecting a sapling", "picking up a sapling from the grass",
                        "collect this sapling"],
    "collect_stone": ["mining some stone", "mine this stone block", "breaking the stone with my pickaxe",
                      "digging into the rock"],
    "collect_coal": ["mining coal", "there's coal, mine it", "grabbing this coal ore"],
    "collect_iron": ["mining iron ore", "got some iron", "mine the iron with the stone pickaxe"],
    "collect_diamond": ["mining a diamond", "yes, a diamond, mine it", "got the diamond"],
    "collect_drink": ["drinking water from the lake", "drink some water", "getting a drink at the water",
                      "quick sip of water, thirst going up"],
    "hit_cow": ["punching the cow", "hitting this cow", "smack the cow", "hunting a cow", "chasing this cow down",
                "punch the cow"],
    "eat_cow": ["hunted the cow and ate it", "killed the cow, food is up", "got the cow, hunting done",
                "hunt a cow for food, done"],
    "hit_zombie": ["fighting this zombie", "hitting the zombie", "combat with a zombie here", "attack the zombie"],
    "defeat_zombie": ["killed the zombie", "zombie defeated", "that zombie is dead"],
    "hit_skeleton": ["fighting the skeleton", "hitting this skeleton", "attack the skeleton"],
    "defeat_skeleton": ["killed the skeleton", "skeleton down"],
    "place_table": ["placing a crafting table", "put down a crafting table", "set a table down here",
                    "let me place a crafting table"],
    "place_furnace": ["building a furnace", "placing the furnace", "put a furnace next to the table",
                      "let me build the furnace here"],
    "place_stone": ["placing a stone block", "lay a stone down", "putting stone blocks down", "place a stone right here"],
    "place_plant": ["planting a sapling", "plant the sapling here", "putting a sapling in the ground"],
    "eat_plant": ["eating the ripe plant", "eat this plant", "munching on a ripe plant"],
    "make_wood_pickaxe": ["crafting a wooden pickaxe", "craft a wood pickaxe", "made a wooden pickaxe"],
    "make_stone_pickaxe": ["crafting a stone pickaxe", "craft the stone pickaxe", "made a stone pickaxe"],
    "make_iron_pickaxe": ["crafting an iron pickaxe", "made an iron pickaxe finally"],
    "make_wood_sword": ["crafting a wooden sword", "made a wood sword"],
    "make_stone_sword": ["crafting a stone sword", "made a stone sword"],
    "make_iron_sword": ["crafting an iron sword", "made an iron sword"],
    "fall_asleep": ["going to sleep", "time to sleep", "lying down to sleep"],
    "wake_up": ["woke up, fully rested", "waking up now", "slept until rested", "time to wake up"],
    "hurt": ["ouch, taking damage", "i'm getting hurt", "losing health"],
    "nightfall": ["it's getting dark", "night is falling", "night is coming, gotta survive"],
    "sunrise": ["the sun is coming up", "morning now"],
    "reach_cow": ["found a cow", "walking up to this cow", "there's a cow, go to it", "trying to find a cow, there's one"],
    "reach_water": ["found the lake", "made it to the water's edge", "exploring and i found a lake",
                    "finally, a lake", "we found a lake, standing on the shore", "let's find a lake, oh there it is",
                    "went to explore and found a lake"],
    "reach_lava": ["found lava", "careful, lava right here", "exploring and i found lava", "finally found some lava",
                   "let's find some lava, there it is", "went to explore and found lava"],
    "reach_diamond": ["found a diamond", "look, a diamond in the rock", "trying to find a diamond, there it is"],
    "reach_zombie": ["a zombie is right here", "found a zombie"],
    "reach_sand": ["found a sandy beach", "on the sand now", "let's find the beach, here's sand"],
    "dig_tunnel": ["digging a tunnel into the rock", "tunneling into the stone", "mining a tunnel",
                   "let's dig straight into the rock", "dig a tunnel in here"],
    "build_bridge": ["building a bridge over the water", "bridging across the water",
                     "putting stone in the water to make a bridge", "bridge over the water, block by block",
                     "let's build a bridge across"],
    "stone_row": ["laying a row of stone blocks", "making a line of stone"],
    "sapling_row": ["planting a row of saplings", "saplings in a line"],
}
PRIORITY = [  # most specific first; a step outranks the steps it needs (placing stone needs mining it)
    "collect_diamond", "dig_tunnel", "build_bridge", "stone_row", "sapling_row", "defeat_skeleton",
    "defeat_zombie", "eat_cow", "make_iron_pickaxe", "make_iron_sword", "make_stone_pickaxe", "make_stone_sword",
    "make_wood_pickaxe", "make_wood_sword", "place_furnace", "place_table", "place_stone", "collect_iron",
    "collect_coal", "collect_stone", "collect_wood", "collect_drink", "eat_plant", "place_plant", "collect_sapling",
    "wake_up", "fall_asleep", "hit_skeleton", "hit_zombie", "hit_cow", "reach_diamond", "reach_lava",
    "reach_cow", "reach_zombie", "reach_water", "reach_sand", "hurt", "nightfall", "sunrise",
]
FILLER = ["okay so", "alright", "um", "so yeah", "let's see", "right", "and uh", "okay guys", "so"]
CHATTER = ["don't forget to subscribe", "this world seed is pretty nice", "anyway", "where was i",
           "that's kind of funny", "let me know in the comments"]
NUMBERS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
REACH = {"cow": 1, "water": 1, "lava": 2, "diamond": 1, "zombie": 1, "sand": 0}
ITEM_NAMES = {"wood_pickaxe": "wooden pickaxe", "stone_pickaxe": "stone pickaxe", "iron_pickaxe": "iron pickaxe",
              "wood_sword": "wooden sword", "stone_sword": "stone sword", "iron_sword": "iron sword"}


# Steps that make up a composite event: not narrated again as "then ..." after it.
PARTS_OF = {"build_bridge": ("place_stone", "collect_stone"), "dig_tunnel": ("collect_stone",),
            "stone_row": ("place_stone",), "sapling_row": ("place_plant",), "eat_cow": ("hit_cow",),
            "defeat_zombie": ("hit_zombie",), "defeat_skeleton": ("hit_skeleton",)}
FIGHTS = ("hit_zombie", "defeat_zombie", "hit_skeleton", "defeat_skeleton", "hit_cow", "eat_cow")


@dataclass(frozen=True)
class NarratorPhrases:
    """The narrator's phrases as training's minimal pairs read them (`mineclip.train.supervision.
    Phrasebook`): `kinds` are the things in view a swap may name, the creatures and terrain of MP5's
    context tasks and the suite's own (not the rare diamond, table and furnace, which the narrator
    names only for the clips that place or find them)."""

    kinds: tuple = ("cow", "zombie", "skeleton", "water", "lava", "tree", "sand", "stone")
    view: dict = field(default_factory=lambda: VIEW)
    near: dict = field(default_factory=lambda: VIEW_NEAR)
    day: list = field(default_factory=lambda: DAY)
    night: list = field(default_factory=lambda: NIGHT)
    idle: list = field(default_factory=lambda: IDLE)
    events: dict = field(default_factory=lambda: EVENTS)


PHRASEBOOK = NarratorPhrases()  # what `MineCLIPModule(phrasebook=...)` names by default


def _weapon(state: WorldState) -> str | None:
    """The best sword in the inventory (narrators say what they fight with)."""
    for item in ("iron_sword", "stone_sword", "wood_sword"):
        if state.inventory.get(item, 0) > 0:
            return item
    return None


def clip_events(states: list[WorldState], events: list[list[str]]) -> list[str]:
    """Events of a window (step events plus derived ones: reaching things, tunnels, bridges, rows)."""
    out = [e for step in events for e in step]
    if len(states) >= 2:
        first, last = states[0], states[-1]
        for kind, d in REACH.items():  # got there (a fact about the world), and it shows (first person)
            if last.distance(kind) <= d < first.distance(kind) and last.count(kind):
                out.append(f"reach_{kind}")
        # Bridging is placing stone into water and mining it flat: it mines stone and places
        # stone, so it is neither a tunnel nor a row of stone.
        bridging = "place_stone" in out and "collect_stone" in out and last.count("water") > 0
        if bridging:
            out.append("build_bridge")
        elif out.count("collect_stone") >= 2 and last.facing_kind in ("stone", "path"):
            out.append("dig_tunnel")
        elif longest_line(_placed(states, events, "place_stone")) >= 2:
            out.append("stone_row")
        if longest_line(_placed(states, events, "place_plant")) >= 2:
            out.append("sapling_row")
    return out


def _placed(states: list[WorldState], events: list[list[str]], event: str) -> list[tuple[int, int]]:
    """Tiles on which `event` put a block: the tile the player faced at that step. Blocks dropped
    here and there are not a row; only adjacent ones in a straight line are (as the oracles judge)."""
    return [(states[j].pos[0] + states[j].facing[0], states[j].pos[1] + states[j].facing[1])
            for j, step in enumerate(events[:len(states)]) if event in step]


def primary_event(evs: list[str]) -> str | None:
    """The most specific event of a window."""
    present = set(evs)
    return next((e for e in PRIORITY if e in present), None)


def _visible(state: WorldState, ores: bool = False) -> list[str]:
    """The kinds of VIEW a narrator would mention in a state (a few tiles of terrain, any creature);
    `ores`, also the ores and plants in view (`VIEW_UNNAMED`)."""
    kinds = [k for k in VIEW if state.count(k) > (2 if k in ("stone", "tree", "sand", "water") else 0)]
    return kinds + [k for k in VIEW_UNNAMED if state.count(k) > 0] if ores else kinds


def _named(state: WorldState, in_view: str = "any", rng: random.Random | None = None) -> list[str]:
    """The kinds in view a caption may name under `in_view` (IN_VIEW); "salient" draws each kind
    with its `salience` from `rng` (without one, every kind it could name)."""
    kinds = _visible(state, ores=in_view != "any")
    if in_view == "near":
        return [k for k in kinds if _seen(state, k, in_view)[0].startswith("near:")]
    if in_view == "salient" and rng is not None:
        return [k for k in kinds if rng.random() < salience(state, k)]
    return kinds


def salience(state: WorldState, kind: str) -> float:
    """The chance that a "salient" narrator names a kind in view: 1 / the tiles to the nearest one
    the frame shows (1 within a tile, 1/2 at 2, 1/8 at 8; 0 out of view)."""
    return 1.0 / max(1.0, state.view_distance(kind))


# Facts: what a caption states and what is true of a clip, as short strings ("event:collect_wood",
# "event:none", "view:cow", "near:water", "far:cow", "time:night", "gain:wood", "have:wood_sword"). A caption
# is true of a clip when every fact it states holds there; training with `positives: truth` uses
# exactly that as the InfoNCE positives (mineclip.train.loss).
def _near(state: WorldState, kind: str) -> bool:
    return kind in VIEW_NEAR and state.distance(kind) <= REACH[kind]


def _seen(state: WorldState, kind: str, in_view: str = "any") -> tuple[str, list[str]]:
    """The fact a caption about a kind in view states, and the phrases that state it: near by the
    narrator's reach (water, lava), else `view`; "ranged" and "near" (IN_VIEW) tell it by the
    distance of the nearest one the frame shows: `near` within CLOSE tiles, and "ranged" `far` from
    FAR on."""
    if _near(state, kind):
        return f"near:{kind}", VIEW_NEAR[kind]
    if in_view in ("ranged", "near"):
        d = state.view_distance(kind)
        if d <= CLOSE and kind in VIEW_CLOSE:
            return f"near:{kind}", VIEW_CLOSE[kind]
        if in_view == "ranged" and FAR <= d < float("inf") and kind in VIEW_FAR:
            return f"far:{kind}", VIEW_FAR[kind]
    return f"view:{kind}", VIEW[kind] if kind in VIEW else VIEW_UNNAMED[kind]


def _time(state: WorldState) -> str:
    return "time:" + ("night" if state.time_of_day == "night" else "day")


def _gained(states: list[WorldState]) -> list[str]:
    first, last = states[0], states[-1]
    return [k for k in last.inventory
            if last.inventory[k] - first.inventory[k] > 0 and k not in VITALS]


def holds(states: list[WorldState], events: list[list[str]], in_view: str = "any") -> tuple[str, ...]:
    """Every fact any caption of this window could state truly: its narrated events (or
    "event:none"), each kind in view (and near or far, where the narrator has a phrase for it:
    `_seen`), the time of day, the items gained and held."""
    evs = clip_events(states, events)
    last = states[-1]
    out = {f"event:{e}" for e in evs if e in EVENTS}
    if primary_event(evs) is None:
        out.add("event:none")
    for k in _visible(last, ores=in_view != "any"):
        out.add(f"view:{k}")
        out.add(_seen(last, k, in_view)[0])
    out.add(_time(last))
    out.update(f"gain:{k}" for k in _gained(states))
    out.update(f"have:{k}" for k, v in last.inventory.items() if v > 0 and k not in VITALS)
    return tuple(sorted(out))


SEEN_FACTS = ("view", "near", "far")  # the facts that name a thing in view


def completion(says: tuple[str, ...] | list[str], state: WorldState) -> float:
    """How fully the frame of `state` shows what a caption names (CLIP4MC's task-completion degree,
    a clip's meta `completion` for training's `graded_targets`): 1 / the tiles to the nearest one in
    view of each thing the caption names as seen (its `SEEN_FACTS`), the least of them; 0 when one
    is out of view (a caption lagging the picture); 1 when it names nothing seen (an event, the
    time). In first person a thing's size in the frame falls with those tiles, as CLIP4MC's
    target size in the frame does; the distance is defined the same in both views."""
    kinds = {fact.split(":", 1)[1] for fact in says if fact.split(":", 1)[0] in SEEN_FACTS}
    return min((1.0 / max(1.0, state.view_distance(k)) for k in sorted(kinds)), default=1.0)


def named_kinds(says: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The kinds a caption asks to see fully (training's `size_ranking`): those it names as in view
    or near (`view:`, `near:`; not `far:`, which asks for a small one) and its events' objects
    (`sim.vocab.acted_on`), sorted."""
    kinds = {fact.split(":", 1)[1] for fact in says if fact.split(":", 1)[0] in ("view", "near")}
    kinds |= {acted_on(fact[len("event:"):]) for fact in says if fact.startswith("event:")}
    return tuple(sorted(k for k in kinds if k))


def describe_scene(state: WorldState, rng: random.Random, in_view: str = "any") -> tuple[str, tuple[str, ...]]:
    """A caption of the scenery alone, and the facts it states: every kind in view (near or far)
    and the time of day, in a random order: the conditions MP5's Percipient asks about (creature,
    terrain, time), which a caption naming one of them half the time rarely says. Tried once on the
    default, it did not teach the model to see cows, water or sand (docs/quality.md), so it is off
    by default."""
    seen = [_seen(state, k, in_view) for k in _named(state, in_view)]
    parts = [rng.choice(phrases) for _, phrases in seen]
    parts.append(rng.choice(NIGHT if state.time_of_day == "night" else DAY))
    rng.shuffle(parts)
    says = {fact for fact, _ in seen} | {_time(state)}
    return ", ".join(parts), tuple(sorted(says))


def narrate(states: list[WorldState], events: list[list[str]], rng: random.Random,
            filler: float = 0.3, scenery: float = 0.0, in_view: str = "any") -> tuple[str, str | None, tuple[str, ...]]:
    """One caption for a window of states/events; returns (text, primary event, the facts the text
    states). With probability `scenery` a window in which nothing happens is captioned by its whole
    scene (`describe_scene`); `in_view` is how things in view are named (IN_VIEW; "any", the
    default's captions, unless asked)."""
    evs = clip_events(states, events)
    main = primary_event(evs)
    if scenery and main is None and rng.random() < scenery:  # no draw at 0: the default's captions stay
        text, says = describe_scene(states[-1], rng, in_view)
        return text, None, says
    parts, says = [], set()
    if rng.random() < filler:
        parts.append(rng.choice(FILLER))
    if main:
        text = rng.choice(EVENTS[main])
        says.add(f"event:{main}")
        weapon = _weapon(states[-1])
        if main in FIGHTS and weapon and rng.random() < 0.6:
            name = ITEM_NAMES[weapon]
            text += f" with my {name}" if main.startswith("hit_") else f", using my {name}"
            says.add(f"have:{weapon}")
        others = [e for e in evs if e != main and e in EVENTS and e not in PARTS_OF.get(main, ())
                  and not e.startswith(("hurt", "reach"))]
        second = primary_event(others)
        if second and rng.random() < 0.5:  # two things happen: told in the order they happened
            told = [text, rng.choice(EVENTS[second])]
            says.add(f"event:{second}")
            if evs.index(second) < evs.index(main):
                told.reverse()
            parts += [told[0], "then " + told[1]]
        else:
            parts.append(text)
    else:
        parts.append(rng.choice(IDLE))
        says.add("event:none")
    last = states[-1]
    visible = _named(last, in_view, rng)
    if visible and rng.random() < 0.5:
        fact, phrases = _seen(last, rng.choice(visible), in_view)
        parts.append(rng.choice(phrases))
        says.add(fact)
    if last.time_of_day == "night" and rng.random() < 0.5:
        parts.append(rng.choice(NIGHT))
        says.add("time:night")
    elif last.time_of_day != "night" and rng.random() < 0.1:
        parts.append(rng.choice(DAY))
        says.add("time:day")
    items = _gained(states)
    if items and rng.random() < 0.4:
        k = rng.choice(items)
        n = last.inventory[k]
        count = NUMBERS[n] if n < len(NUMBERS) and rng.random() < 0.5 else str(n)
        parts.append(f"now i've got {count} {'pieces of wood' if k == 'wood' and n > 1 else ITEM_NAMES.get(k, k)}")
        says.add(f"gain:{k}")
    if rng.random() < filler / 3:
        parts.append(rng.choice(CHATTER))
    text = ", ".join(parts)
    return text, main, tuple(sorted(says))


class Caption(NamedTuple):
    """One narrated clip window: its first frame, the caption, the caption's primary event, the facts
    the caption states and the facts true of the clip's own frames (`holds`, which include what the
    caption states: a caption lagging or leading the picture is taken as the clip's truth)."""

    start: int
    text: str
    event: str | None
    says: tuple[str, ...]
    holds: tuple[str, ...]


def narrate_episode(states: list[WorldState], events: list[list[str]], clip_len: int = 16, stride: int = 8,
                    misalign: float = 0.2, filler: float = 0.3, seed: int = 0,
                    scenery: float = 0.0, in_view: str = "any") -> list[Caption]:
    """A `Caption` (first frame index, caption, primary event, facts) for each clip window of an episode.

    Frame i shows the state after events[i - 1]; a clip of frames [s, s + clip_len) covers the
    events of steps s .. s + clip_len - 2. With probability `misalign` the caption is taken from
    a window shifted by up to half a clip.
    """
    rng = random.Random(seed)
    out = []
    n = len(states)
    for start in range(0, max(n - clip_len, 0) + 1, stride):
        s = start
        if rng.random() < misalign:
            s = min(max(start + rng.choice([-1, 1]) * rng.randint(clip_len // 4, clip_len // 2), 0), max(n - clip_len, 0))
        window = states[s:s + clip_len]
        evs = events[s: s + clip_len - 1]
        text, main, says = narrate(window, evs, rng, filler, scenery, in_view)
        true = holds(states[start:start + clip_len], events[start:start + clip_len - 1], in_view)
        out.append(Caption(start, text, main, says, tuple(sorted(set(true) | set(says)))))
    return out
