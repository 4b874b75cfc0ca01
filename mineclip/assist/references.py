"""The references people use, read by rules over the parser's dictionary (rule-based, not learned).

The packaged parser (`parser/`) was trained on schema 1.1.0 and marks only the words that name a
thing. How people single one out is added here, deterministically, from the message's words
around those spans (schema 1.2.0's keys):

    relative_to_agent   "the tree in front of you", "the cow to your left", "the stone behind you"
    selector            "the nearest / farthest / second cow", "the biggest lake"
    coref               "it", "that one", "this one"
    built_by_agent      "the wall you built", "the one you just placed", "the tunnel you dug"
    turn                "turn around and chop the tree" (the rest parsed on its own, its spans moved)
    TURN                "turn around", "turn left"
    relative_to AGENT   "walk 3 steps to your left"
    naming an object    "call that wall home", "call it home" (a reference object for the name)

`resolve(parser, text)` is what the dialogue manager calls: the parse with these keys added, checked
against the schema like every dictionary. The interpreter (`intent.py`) acts on every key or refuses
saying why; none is ignored.
"""

from __future__ import annotations

import copy

from . import lexicon as lx
from .schema import check
from .tokens import tokenize

TURN_WORDS = {"around": "AROUND", "round": "AROUND", "back": "AROUND", "left": "LEFT", "right": "RIGHT"}
PRONOUNS = {"it", "that", "this", "them", "one"}
SELECT_WORDS = {"nearest": ("NEAREST", 1), "closest": ("NEAREST", 1), "farthest": ("FARTHEST", 1),
                "furthest": ("FARTHEST", 1), "biggest": ("BIGGEST", 1), "largest": ("BIGGEST", 1),
                "smallest": ("SMALLEST", 1), "tiniest": ("SMALLEST", 1)}
ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5}
BUILT_VERBS = {"built", "placed", "made", "put", "dug", "build", "place", "make", "dig", "created"}
YOU = {"you", "you've", "u"}
PLACE_WORDS = {"spot", "place", "here", "location", "position", "tile"}


def _agent_side(words: list[str], i: int) -> tuple[str | None, int]:
    """The side of the agent the words from `i` name ('in front of you', 'to your left', 'behind you',
    'on the left'), and how many words it takes."""
    w = words[i:i + 4] + [""] * 4
    if w[0] in ("in", "right") and w[1] == "front" and w[2] == "of" and w[3] in YOU | {"me"}:
        return "FRONT", 4
    if w[0] == "ahead" and w[1] == "of" and w[2] in YOU:
        return "FRONT", 3
    if w[0] == "ahead":
        return "FRONT", 1
    if w[0] == "behind" and w[1] in YOU:
        return "BEHIND", 2
    if w[0] in ("to", "on", "at") and w[1] in ("your", "the", "ur") and w[2] in ("left", "right"):
        return w[2].upper(), 3
    if w[0] in ("to", "on", "at") and w[1] in ("your", "ur") and w[2] in ("back",):
        return "BEHIND", 3
    return None, 0


def _built(words: list[str], i: int) -> bool:
    """'you (just / have) built / placed / dug' from word `i` (after the thing's name)."""
    w = words[i:i + 4]
    if not w or w[0] not in YOU and w[0] not in ("that", "which", "i"):
        return False
    return any(x in BUILT_VERBS for x in w[1:4])


def _references(node, path=()):
    """(path, reference object) of every reference object in a dictionary."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k in ("reference_object", "recipe") and isinstance(v, dict) and "has_name" in v:
                yield path + (k,), v
            else:
                yield from _references(v, path + (k,))


def _annotate(ref: dict, words: list[str]) -> None:
    """Add the keys the words around `ref`'s span say (in place)."""
    sent, (start, end) = ref["has_name"]
    if end + 1 < len(words) and (words[end] in SELECT_WORDS or words[end] in ORDINALS) and lx.kind_of(words[end + 1]):
        start = end = end + 1  # 'the second cow' marked as 'second': the thing is the next word
    # selector words inside the span ('the nearest cow' marked as 'nearest cow') move out of it
    while start < end and (words[start] in SELECT_WORDS or words[start] in ORDINALS or words[start] == "the"):
        start += 1
    head = words[end]
    before = words[max(0, start - 3):start]
    order = None
    for j, w in enumerate(before):
        if w in SELECT_WORDS:
            order = SELECT_WORDS[w]
            if j > 0 and before[j - 1] in ORDINALS:  # 'the second nearest'
                order = (order[0], ORDINALS[before[j - 1]])
        elif w in ORDINALS and order is None and head not in PRONOUNS | {"spot"}:
            order = ("NEAREST", ORDINALS[w])
    if order is not None:
        ref["selector"] = {"order": order[0], "rank": order[1]}
    after = end + 1
    if after < len(words) and words[after] in ("that", "which"):
        after += 1
    if _built(words, after) or _built(words, end + 1):
        ref["built_by_agent"] = True
    elif head in PRONOUNS and not order and (start == end or words[start] in ("that", "this", "the")):
        prev = words[start - 1] if start > 0 else ""
        if head != "one" or prev in ("that", "this") or words[start] in ("that", "this"):
            ref["coref"] = "LAST"
    side, _ = _agent_side(words, end + 1)
    if side is None and end + 1 < len(words) and words[end + 1] in ("that", "which") and end + 2 < len(words) \
            and words[end + 2] in ("is", "are", "'s"):
        side, _ = _agent_side(words, end + 3)
    if side is not None:
        ref["relative_to_agent"] = side
    ref["has_name"] = [sent, [start, end]]


def annotate(d: dict, words: list[str]) -> dict:
    """A copy of a parsed dictionary with the reference keys the words say (see the module's doc)."""
    d = copy.deepcopy(d)
    for _, ref in _references(d):
        _annotate(ref, words)
    a = d.get("action") or {}
    if a.get("action_type") in ("DESTROY", "FILL", "EAT", "FIGHT", "COLLECT") and "reference_object" not in a \
            and len(words) >= 2 and words[-1] in PRONOUNS - {"one"}:  # 'destroy that': no span marked
        a["reference_object"] = {"has_name": [0, [len(words) - 1, len(words) - 1]], "coref": "LAST"}
    if d.get("dialogue_type") == "HUMAN_GIVE_COMMAND" and d["action"]["action_type"] == "MOVE":
        walk = _walk_to_side(words)
        loc = d["action"]["location"]
        if walk is not None and (loc["location_type"] == "DIRECTION" or
                                 lx.kind_of(words[loc["reference_object"]["has_name"][1][1]]) is None):
            d["action"]["location"] = walk
    up = d.get("upsert") or {}
    if d.get("dialogue_type") == "PUT_MEMORY" and up.get("memory_type") == "NAME" and words[:1] in (["call"], ["name"]):
        ref = up.get("reference_object")
        if "has_name" not in up and ref is not None and ref["has_name"][1][1] == len(words) - 1:
            up["has_name"] = ref.pop("has_name")  # 'call it home' read as naming 'home' nothing: 'home' is the name
            up.pop("reference_object")
        if "reference_object" not in up and "has_name" in up:
            named = _named_object(words, up["has_name"][1][0])
            if named is not None:
                up["reference_object"] = named
        elif "has_name" in up and "has_name" in up.get("reference_object", {}):  # the parser marked the object
            _mark_named(up["reference_object"], words)  # (its other keys were read with every reference's)
    return d


def _walk_to_side(words: list[str]) -> dict | None:
    """'walk 3 steps to your left', 'go right': a move in a direction of the agent's body, or None."""
    for i in range(len(words) - 1):
        if words[i] in ("your", "ur") and words[i + 1] in ("left", "right"):
            before = words[max(0, i - 4):i]
            if any(lx.kind_of(w) for w in before if w not in ("to", "on")):
                return None  # 'the tree on your left': a reference, not a direction
            loc = {"location_type": "DIRECTION", "direction": words[i + 1].upper(), "relative_to": "AGENT"}
            nums = [j for j in range(max(0, i - 4), i) if lx.number_of(words[j]) and words[j] not in ("a", "an")]
            if nums:
                loc["steps"] = [0, [nums[0], nums[0]]]
            return loc
    return None


def _named_object(words: list[str], name_start: int) -> dict | None:
    """'call that wall home', 'call it home', 'name the bridge you built bob': the object named (words
    between the verb and the name), or None for 'call this spot home'."""
    if not words or words[0] not in ("call", "name", "label", "tag"):
        return None
    between = list(range(1, name_start))
    nouns = [i for i in between if words[i] not in ("that", "this", "the", "a", "your", "my", "our")]
    if not nouns or any(words[i] in PLACE_WORDS for i in nouns):
        return None
    head = nouns[0]
    ref = _mark_named({"has_name": [0, [head, head]]}, words)
    _annotate(ref, words)
    return ref


def _mark_named(ref: dict, words: list[str]) -> dict:
    """The object a name is given to, marked: the last thing talked about ('call it home') or something the
    agent built ('call that wall home': crafter's walls, shapes and paths are built, not found)."""
    if "coref" in ref or "built_by_agent" in ref:
        return ref
    head = ref["has_name"][1][1]
    if words[head] in PRONOUNS:
        ref["coref"] = "LAST"
    elif lx.shape_of(words[head]) or lx.kind_of(words[head]) in ("path",) or words[head] in ("one", "thing"):
        ref["built_by_agent"] = True
    return ref


def _turn(words: list[str]) -> tuple[str, int] | None:
    """('AROUND' / 'LEFT' / 'RIGHT', words it takes) when the message starts with a turn."""
    if not words or words[0] not in ("turn", "spin", "face"):
        return None
    rest = words[1:4] + [""] * 3
    if rest[0] in ("to", "towards") and rest[1] in ("your", "the") and rest[2] in ("left", "right"):
        return rest[2].upper(), 4
    if rest[0] in ("your", "ur") and rest[1] in ("back",):
        return "AROUND", 3
    if rest[0] in TURN_WORDS:
        return TURN_WORDS[rest[0]], 2
    return None


def _shift(node, by: int):
    """The dictionary with every span moved `by` words to the right."""
    if isinstance(node, dict):
        return {k: _shift(v, by) for k, v in node.items()}
    if isinstance(node, list) and len(node) == 2 and isinstance(node[0], int) and isinstance(node[1], list) \
            and len(node[1]) == 2 and all(isinstance(x, int) for x in node[1]):
        return [node[0], [node[1][0] + by, node[1][1] + by]]
    if isinstance(node, list):
        return [_shift(v, by) for v in node]
    return node


def resolve(parser, text: str):
    """The parse of a message with the references added (a `Parse` like `parser.parse`'s)."""
    words = tokenize(text)
    turn = _turn(words)
    if turn is not None:
        direction, n = turn
        rest = words[n:]
        if rest[:1] == ["and"]:
            rest, n = rest[1:], n + 1
        if rest[:1] == ["then"]:
            rest, n = rest[1:], n + 1
        if not rest:
            parse = parser.parse(text)
            parse.action_dict = {"dialogue_type": "HUMAN_GIVE_COMMAND",
                                 "action": {"action_type": "TURN", "direction": direction}}
            return parse
        parse = parser.parse(" ".join(rest))
        parse.words = words
        d = _shift(parse.action_dict, n)
        if d.get("dialogue_type") == "HUMAN_GIVE_COMMAND":
            d["turn"] = direction
        parse.action_dict = annotate(d, words)
        return parse
    parse = parser.parse(text)
    if not check(parse.action_dict, len(words)):
        parse.action_dict = annotate(parse.action_dict, words)
    return parse
