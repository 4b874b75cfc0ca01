"""CraftAssist's 2019 action dictionaries (the annotation of its crowd-written commands) as ours.

    convert({"Build": {"schematic": {"has_name_": [2, 2]}}}, "build a boat .")
    -> Converted(text="build a boat.", words=["build", "a", "boat"],
                 action_dict={"dialogue_type": "HUMAN_GIVE_COMMAND",
                              "action": {"action_type": "BUILD", "schematic": {"has_name": [0, [2, 2]]}}})

The 2019 format has one top-level key naming the action (`KINDS`) and word spans `[start, end]`
over the space-separated words of the lower-cased, tokenised command. The text is joined back the
way people type it ("i 'm" -> "i'm", "boat ." -> "boat.") and every span is moved onto the words of
`tokens.tokenize`.

What each kind becomes (the rules are the docstrings below; docs/assist.md has the table):

- Build, FreeBuild -> BUILD: a shape word is our shape (house -> HOUSE), a block crafter can place
  is the block, anything else is the schematic's name ("a boat"); a tool -> CRAFT.
- Move -> MOVE to a reference object (with its side, "to the left of the house"), in a direction
  ("move forward"), or to the SPEAKER ("come here"); OTHER when it names none of these.
- Destroy -> DESTROY, or COLLECT / FIGHT when its verb is one of theirs ("chop down the tree",
  "kill the zombie"). Dig -> DIG, Fill -> FILL, Spawn -> SPAWN, Stop, Resume, Undo -> themselves.
- Tag -> PUT_MEMORY NAME; Answer -> GET_MEMORY (the question's kind from its words,
  `question_type`); Noop -> NOOP; CompositeAction -> COMPOSITE.
- OtherAction -> one of our actions when its leading verb is one of ours (one of the three files was
  annotated without Fill, Spawn and the others, so "fill the hole" is an OtherAction there), else
  OTHER with its reference object and location.

Dropped, as crafter has no use for them yet: colours and sizes that are not numbers, "all" and
"forever" repeats, repeats of actions that take no count, locations at the agent or the speaker
for anything but a move ("build it here" is where the agent is, as in the hand-written set).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from . import lexicon as lx
from .tokens import TOKEN

KINDS = ("Build", "FreeBuild", "Move", "Destroy", "Dig", "Fill", "Spawn", "Stop", "Resume", "Undo", "Tag", "Answer",
         "Noop", "OtherAction", "CompositeAction")
SIDES = {"LEFT": "LEFT", "RIGHT": "RIGHT", "FRONT": "FRONT", "BACK": "BEHIND", "UP": "ABOVE", "DOWN": "BELOW",
         "AWAY": "AWAY"}
# a move relative to the agent: CraftAssist's side of the agent, or the word that says it
AGENT_SIDES = {"FRONT": "FORWARD", "BACK": "BACK", "LEFT": "LEFT", "RIGHT": "RIGHT"}
DIRECTION_WORDS = {"left": "LEFT", "west": "LEFT", "right": "RIGHT", "east": "RIGHT", "north": "UP", "south": "DOWN",
                   "forward": "FORWARD", "forwards": "FORWARD", "ahead": "FORWARD", "straight": "FORWARD",
                   "back": "BACK", "backward": "BACK", "backwards": "BACK"}
STEP_WORDS = {"step", "steps", "block", "blocks", "tile", "tiles", "space", "spaces", "unit", "units", "square",
              "squares", "pace", "paces", "meter", "meters", "feet", "foot"}
DIG_SHAPES = {"tunnel": "TUNNEL", "passage": "TUNNEL", "hole": "HOLE", "pit": "HOLE"}
SIZE_KEYS = ("has_size_", "has_length_", "has_width_", "has_height_", "has_depth_")
# the words before a command's verb ("bot, can you please go and ...")
LEAD_WORDS = {"bot", "robot", "assistant", "please", "can", "could", "would", "will", "you", "go", "and", "i", "need",
              "want", "to", "help", "me", "hey", "now", "ok", "okay", "let", "let's", "lets", "us", "try", "i'd",
              "like", "just", "also", "then", "quickly", "start", "begin", "should", "must", "the", "a", "so", "first"}
# leading verbs of our actions (the generator's verbs, first words) -> the action they ask
VERBS = {
    "collect": "COLLECT", "gather": "COLLECT", "mine": "COLLECT", "chop": "COLLECT", "harvest": "COLLECT",
    "get": "COLLECT", "fetch": "COLLECT", "bring": "COLLECT", "grab": "COLLECT", "obtain": "COLLECT",
    "acquire": "COLLECT", "pick": "COLLECT", "cut": "COLLECT", "kill": "FIGHT", "attack": "FIGHT", "fight": "FIGHT",
    "hunt": "FIGHT", "slay": "FIGHT", "defeat": "FIGHT", "murder": "FIGHT", "hit": "FIGHT", "beat": "FIGHT",
    "strike": "FIGHT", "craft": "CRAFT", "forge": "CRAFT", "eat": "EAT", "drink": "DRINK", "sleep": "SLEEP",
    "nap": "SLEEP", "spawn": "SPAWN", "fill": "FILL", "find": "MOVE", "locate": "MOVE", "search": "MOVE",
    "place": "BUILD", "plant": "BUILD", "dig": "DIG", "excavate": "DIG",
}
PHRASAL = {("dig", "up"): "COLLECT", ("get", "rid"): "DESTROY", ("look", "for"): "MOVE"}
# words a reference object's span does not begin with, as in the hand-written set and the generator ("go to
# the tree" names "tree"); crowd annotators mark "the hill" or "hill" for the same command
DETERMINERS = {"the", "a", "an", "this", "that", "these", "those", "my", "your", "our", "their", "his", "her", "its",
               "some", "any", "every", "each"}


class ConversionError(ValueError):
    """A dictionary that is not CraftAssist's 2019 format."""


@dataclass
class Converted:
    """A crowd command as the assistant reads it: the text, its words and our action dictionary."""

    text: str
    words: list[str]
    action_dict: dict


def detokenize(crowd_text: str) -> tuple[str, list[tuple[int, int] | None]]:
    """The command as people type it, and each crowd word's character range in it (None: an empty word
    of a double space, which the spans still count)."""
    out, ranges = "", []
    for w in crowd_text.split(" "):
        if not w:
            ranges.append(None)
            continue
        attach = out and (re.fullmatch(r"[.,!?;:)\]]+|'|n't|'[a-z]+", w) is not None)
        if out and not attach:
            out += " "
        ranges.append((len(out), len(out) + len(w)))
        out += w
    return out, ranges


def align(crowd_text: str) -> tuple[str, list[str], list[tuple[int, int] | None]]:
    """(text, our words, each crowd word's range of our words or None when it has none, e.g. '.')."""
    text, ranges = detokenize(crowd_text)
    tokens = [(m.start(), m.end(), m.group()) for m in TOKEN.finditer(text.lower())]
    index: list[tuple[int, int] | None] = []
    for r in ranges:
        hit = [i for i, (a, b, _) in enumerate(tokens) if r is not None and a < r[1] and b > r[0]]
        index.append((hit[0], hit[-1]) if hit else None)
    return text, [t for _, _, t in tokens], index


def question_type(words: list[str]) -> str:
    """The kind of a question from its words: VITALS, TASK, INVENTORY, PLACE, SCENE, else OTHER."""
    text = " " + " ".join(words) + " "
    rules = (("VITALS", (" health ", " hungry ", " thirsty ", " tired ", " hurt ", " feel ", " feeling ",
                         " how are you ", " sleepy ", " energy ")),
             ("TASK", (" you doing ", " you working on ", " you building ", " your task ", " are you done ",
                       " you busy ", " you up to ")),
             ("INVENTORY", (" you have ", " have you got ", " you got ", " inventory ", " you carrying ",
                            " your bag ")),
             ("PLACE", (" where ",)),
             ("SCENE", (" you see ", " can see ", " nearby ", " around ", " is there ", " are there ", " near ",
                        " in front of you ", " in sight ")))
    for kind, phrases in rules:
        if any(p in text for p in phrases):
            return kind
    return "OTHER"


class _Converter:
    def __init__(self, crowd_text: str):
        self.text, self.words, self.index = align(crowd_text)

    # -- spans -----------------------------------------------------------------------------------
    def span(self, s) -> list | None:
        """Our span `[0, [start, end]]` of a crowd span `[start, end]` (None when it covers no word)."""
        if not (isinstance(s, list) and len(s) == 2 and all(isinstance(i, int) for i in s)):
            raise ConversionError(f"expected a span [start, end], got {s!r}")
        hits = [r for r in self.index[max(0, s[0]):s[1] + 1] if r is not None]
        return [0, [hits[0][0], hits[-1][1]]] if hits else None

    def number(self, s) -> list | None:
        """The first number word of a crowd span ('30 spaces' -> '30'), or None."""
        sp = self.span(s) if s is not None else None
        if sp is None:
            return None
        for i in range(sp[1][0], sp[1][1] + 1):
            if self.words[i].isdigit() or (self.words[i] in lx.NUMBER_WORDS and self.words[i] not in ("a", "an")):
                return [0, [i, i]]
        return None

    def text_of(self, span) -> str:
        return " ".join(self.words[span[1][0]:span[1][1] + 1])

    def thing(self, obj: dict | None, merge_block: bool = True) -> list | None:
        """The span naming a reference object: its name, with its block type when that comes right before
        it ('iron ore', 'stone wall'); the block type alone when there is no name."""
        if not obj:
            return None
        name, block = obj.get("has_name_"), obj.get("has_block_type_")
        if name and block and merge_block and block[1] + 1 == name[0]:
            return self.bare(self.span([block[0], name[1]]))
        return self.bare(self.span(name) if name else (self.span(block) if block else None))

    def bare(self, span: list | None) -> list | None:
        """A span without its leading determiners ('the old fence' -> 'old fence'; 'this' alone stays)."""
        if span is None:
            return None
        a, b = span[1]
        while a < b and self.words[a] in DETERMINERS:
            a += 1
        return [0, [a, b]]

    def count(self, *repeats: dict | None) -> dict | None:
        """{"repeat_count": span} from the first repeat that says how many ('all', 'forever': None)."""
        for r in repeats:
            if r and r.get("repeat_count") is not None:
                n = self.number(r["repeat_count"])
                if n is not None:
                    return {"repeat_count": n}
        return None

    def size(self, d: dict) -> list | None:
        for key in SIZE_KEYS:
            n = self.number(d.get(key))
            if n is not None:
                return n
        return None

    def verb(self) -> tuple[str | None, int]:
        """Our action its leading verb asks for (None when it is not one of ours), and the verb's index."""
        for i, w in enumerate(self.words):
            if w in LEAD_WORDS:
                continue
            nxt = self.words[i + 1] if i + 1 < len(self.words) else ""
            return PHRASAL.get((w, nxt), VERBS.get(w)), i
        return None, len(self.words)

    # -- locations ---------------------------------------------------------------------------------
    def location(self, loc: dict | None) -> dict | None:
        """A location at a reference object (with its side); None for the agent's or the speaker's place."""
        if not loc:
            return None
        ref = self.thing(loc.get("location_reference_object"))
        if ref is None:
            return None
        out: dict = {"location_type": "REFERENCE_OBJECT", "reference_object": {"has_name": ref}}
        side = SIDES.get(loc.get("relative_direction") or "")
        if side:
            out["relative_direction"] = side
        return out

    def move_location(self, loc: dict | None) -> dict | None:
        """Where a move goes: a reference object, the speaker, or a direction (from CraftAssist's side of
        the agent or the command's words, with the number before 'steps' as the steps)."""
        at = self.location(loc)
        if at is not None:
            return at
        kind = (loc or {}).get("location_type")
        if kind in ("SpeakerPos", "SpeakerLook"):
            return {"location_type": "SPEAKER"}
        direction = AGENT_SIDES.get((loc or {}).get("relative_direction") or "")
        direction = direction or next((DIRECTION_WORDS[w] for w in self.words if w in DIRECTION_WORDS), None)
        if direction is None:
            return None
        out = {"location_type": "DIRECTION", "direction": direction}
        for i, w in enumerate(self.words[:-1]):
            if self.words[i + 1] in STEP_WORDS and self.number([i, i]) is not None and self._plain(i):
                out["steps"] = [0, [i, i]]
                break
        return out

    def _plain(self, i: int) -> bool:
        """Our word i is its own crowd word (so a crowd span of it is exact)."""
        return any(r == (i, i) for r in self.index)

    # -- actions -------------------------------------------------------------------------------------
    def build(self, body: dict, repeat: dict | None) -> dict:
        """BUILD: a shape word -> has_shape (its block type the block); a block crafter places -> the block;
        anything else -> has_name; a tool -> CRAFT."""
        schem = body.get("schematic") or {}
        aro = body.get("action_reference_object") or {}
        source = schem if (schem.get("has_name_") or schem.get("has_block_type_")) else aro
        name = self.span(source["has_name_"]) if source.get("has_name_") else None
        block = self.span(source["has_block_type_"]) if source.get("has_block_type_") else None
        whole = self.thing(source)
        verb, _ = self.verb()
        if whole is not None and (verb == "CRAFT" or self._tool(whole)):
            return self._with({"action_type": "CRAFT", "recipe": {"has_name": whole}},
                              "repeat", self.count(repeat, schem.get("repeat"), aro.get("repeat")))
        out: dict = {}
        shape = lx.shape_of(self.words[name[1][1]]) if name else None
        if shape:
            out["has_shape"] = shape
            if block is not None and not _overlaps(block, name):
                out["has_block_type"] = block
        elif whole is not None and lx.placeable_of(self.text_of(whole)) is not None:
            out = {"has_block_type": whole, "has_shape": "BLOCK"}
        elif name is not None:
            out["has_name"] = name
            if block is not None and not _overlaps(block, name):
                out["has_block_type"] = block
        else:
            out["has_shape"] = "BLOCK"
        size = self.size(schem)
        if size is not None and not any(_overlaps(size, s) for s in out.values() if isinstance(s, list)):
            out["has_size"] = size
        return self._with({"action_type": "BUILD", "schematic": out}, "location", self.location(body.get("location")))

    def _tool(self, span) -> bool:
        words = [lx.singular(w) for w in self.text_of(span).split()]
        return any(w in names for names in lx.TOOL_WORDS.values() for w in words)

    def dig(self, body: dict) -> dict:
        """DIG: TUNNEL or HOLE when the command says so, the first number of a size as the size."""
        schem: dict = {}
        shape = next((DIG_SHAPES[lx.singular(w)] for w in self.words if lx.singular(w) in DIG_SHAPES), None)
        if shape:
            schem["has_shape"] = shape
        size = self.size(body)
        if size is not None:
            schem["has_size"] = size
        return self._with(self._with({"action_type": "DIG"}, "schematic", schem or None),
                          "location", self.location(body.get("location")))

    def fill(self, body: dict, obj: dict | None = None) -> dict:
        """FILL: the thing filled (the location's object, else the first word naming water, lava or a hole),
        the block type as the block to fill with."""
        aro = body.get("action_reference_object") or {}
        target = self.thing(obj) if obj else self.thing((body.get("location") or {}).get("location_reference_object"))
        if target is None:
            _, v = self.verb()
            target = next(([0, [i, i]] for i in range(v, len(self.words))
                           if lx.kind_of(self.words[i]) in ("water", "lava", "path")), None)
        a = self._with({"action_type": "FILL"}, "reference_object", {"has_name": target} if target else None)
        block = self.span(aro["has_block_type_"]) if aro.get("has_block_type_") else None
        if block is not None and not (target and _overlaps(block, target)):
            a["schematic"] = {"has_block_type": block}
        return a

    def with_object(self, kind: str, body: dict, repeat: dict | None) -> dict | None:
        """One of our actions on the command's reference object (None when the action needs one and there
        is none)."""
        aro = body.get("action_reference_object") or {}
        ref = self.thing(aro) or (self.span(body["has_name_"]) if body.get("has_name_") else None)
        counted = ("COLLECT", "DESTROY", "FIGHT", "CRAFT", "SPAWN")
        n = self.count(repeat, aro.get("repeat")) if kind in counted else None
        if kind in ("COLLECT", "FIGHT", "CRAFT") and ref is None:
            return None
        if kind == "CRAFT":
            return self._with({"action_type": kind, "recipe": {"has_name": ref}}, "repeat", n)
        if kind == "MOVE":
            return {"action_type": "MOVE", "location": {"location_type": "REFERENCE_OBJECT",
                                                        "reference_object": {"has_name": ref}}} if ref else None
        if kind == "BUILD":
            return self.build({"schematic": aro, "location": body.get("location")}, repeat)
        if kind == "FILL":
            return self.fill(body, aro)
        if kind == "DIG":
            return self.dig(body)
        if kind in ("DRINK", "SLEEP"):
            return {"action_type": kind}
        if kind == "EAT" and ref is None:
            return {"action_type": "EAT"}
        a = self._with({"action_type": kind}, "reference_object", {"has_name": ref} if ref else None)
        if kind == "OTHER":
            a = self._with(a, "location", self.location(body.get("location")))
        return self._with(a, "repeat", n)

    @staticmethod
    def _with(d: dict, key: str, value: Any) -> dict:
        return {**d, key: value} if value is not None else d

    def action(self, kind: str, body: dict, repeat: dict | None) -> dict:
        verb, _ = self.verb()
        if kind in ("Build", "FreeBuild"):
            return self.build(body, repeat)
        if kind == "Move":
            loc = self.move_location(body.get("location"))
            return {"action_type": "MOVE", "location": loc} if loc else {"action_type": "OTHER"}
        if kind == "Destroy":
            return self.with_object(verb if verb in ("COLLECT", "FIGHT") else "DESTROY", body, repeat) or \
                self.with_object("DESTROY", body, repeat)
        if kind == "Dig":
            return self.dig(body)
        if kind == "Fill":
            return self.fill(body)
        if kind == "Spawn":
            return self.with_object("SPAWN", body, repeat)
        if kind in ("Stop", "Resume", "Undo"):
            return {"action_type": kind.upper()}
        if kind == "CompositeAction":
            return {"action_type": "COMPOSITE"}
        ours = self.with_object(verb, body, repeat) if verb else None  # OtherAction
        return ours or self.with_object("OTHER", body, repeat)


def _overlaps(a, b) -> bool:
    return not (a[1][1] < b[1][0] or b[1][1] < a[1][0])


def kind_of_2019(d: dict) -> str:
    """The top-level kind of a 2019 dictionary (its one key besides `repeat`)."""
    keys = [k for k in d if k != "repeat"] if isinstance(d, dict) else []
    if len(keys) != 1 or keys[0] not in KINDS:
        raise ConversionError(f"expected one top-level key of {KINDS} (and an optional 'repeat'), got {keys}")
    return keys[0]


def convert(d: dict, crowd_text: str) -> Converted:
    """Our action dictionary (valid, spans over `tokenize(text)`) for a 2019 dictionary of a crowd command."""
    from .schema import validate

    kind = kind_of_2019(d)
    body, repeat = d[kind] or {}, d.get("repeat")
    c = _Converter(crowd_text)
    if kind == "Noop":
        out: dict = {"dialogue_type": "NOOP"}
    elif kind == "Answer":
        out = {"dialogue_type": "GET_MEMORY", "filters": {"memory_type": question_type(c.words)}}
    elif kind == "Tag":
        upsert: dict = {"memory_type": "NAME"}
        name = c.span(body["tag"]) if body.get("tag") else None
        what = c.thing(body.get("action_reference_object")) or c.thing(
            (body.get("location") or {}).get("location_reference_object"))
        if name is not None:
            upsert["has_name"] = name
        if what is not None and not (name and _overlaps(what, name)):
            upsert["reference_object"] = {"has_name": what}
        out = {"dialogue_type": "PUT_MEMORY", "upsert": upsert}
    else:
        out = {"dialogue_type": "HUMAN_GIVE_COMMAND", "action": c.action(kind, body, repeat)}
    return Converted(c.text, c.words, validate(_untangle(out), num_words=len(c.words)))


def _untangle(d: dict) -> dict:
    """Drop a span that overlaps an earlier one (one word tags one slot), in the order the keys come,
    and what is left empty by it (a reference object, a repeat, a location at no object)."""
    seen: list = []

    def walk(node):
        if not isinstance(node, dict):
            return node
        out = {}
        for k, v in node.items():
            if _is_span(v):
                if any(_overlaps(v, s) for s in seen):
                    continue
                seen.append(v)
                out[k] = v
            elif (w := walk(v)) is not None:
                out[k] = w
        if out == {} and node != {}:
            return None
        if out.get("location_type") == "REFERENCE_OBJECT" and "reference_object" not in out:
            return None
        return out

    return walk(d)


def _is_span(v) -> bool:
    return isinstance(v, list) and len(v) == 2 and isinstance(v[0], int) and isinstance(v[1], list)
