"""The parser's flat view of an action dictionary: one class per field and word spans per slot
(the "linearised" dictionary that TTAD-style parsers predict), with the exact maps both ways.

    Frame(classes={"dialogue_type": "HUMAN_GIVE_COMMAND", "action_type": "MOVE", ...},
          spans={"LOC": (3, 3)})   <->   {"dialogue_type": "HUMAN_GIVE_COMMAND", "action": {...}}

`flatten(assemble(f)) == f` for every frame that `assemble` accepts and `assemble(flatten(d)) == d`
for every valid dictionary, which `tests/assist/test_assist_semantic_frame.py` checks on generated pairs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

DIALOGUE_TYPES = ("HUMAN_GIVE_COMMAND", "GET_MEMORY", "PUT_MEMORY", "NOOP")
ACTION_TYPES = ("MOVE", "COLLECT", "DESTROY", "BUILD", "DIG", "FILL", "CRAFT", "FIGHT", "EAT", "DRINK", "SLEEP",
                "STOP", "UNDO", "RESUME", "SPAWN", "OTHER", "COMPOSITE")
CLASSES: dict[str, tuple[str, ...]] = {
    "dialogue_type": DIALOGUE_TYPES,
    "action_type": ("NONE",) + ACTION_TYPES,
    "stop": ("NONE", "HAVE", "NIGHT", "DAY"),  # a stop condition makes the action a LOOP
    "direction": ("NONE", "LEFT", "RIGHT", "UP", "DOWN", "FORWARD", "BACK"),
    "shape": ("NONE", "ROW", "WALL", "PILLAR", "HOUSE", "BRIDGE", "TUNNEL", "HOLE"),  # NONE: one block (BUILD)
    "memory_type": ("NONE", "INVENTORY", "SCENE", "PLACE", "TASK", "VITALS", "NAME", "FEEDBACK", "OTHER"),
    "feedback": ("NONE", "POSITIVE", "NEGATIVE"),
    "side": ("NONE", "LEFT", "RIGHT", "FRONT", "BEHIND", "ABOVE", "BELOW", "AWAY"),  # of a location's object
    "speaker": ("NONE", "SPEAKER"),  # a location at the speaker ("come here")
}
SLOTS = ("OBJ", "BLOCK", "LOC", "COUNT", "SIZE", "STEPS", "NAME", "UNTIL_OBJ", "UNTIL_COUNT")
TAGS = ("O",) + tuple(f"{p}-{s}" for s in SLOTS for p in ("B", "I"))
GET_TYPES = ("INVENTORY", "SCENE", "PLACE", "TASK", "VITALS", "OTHER")
PUT_TYPES = ("NAME", "FEEDBACK")


@dataclass
class Frame:
    """Classes of the dictionary's fields and word spans (start, end inclusive) of its slots."""

    classes: dict[str, str] = field(default_factory=dict)
    spans: dict[str, tuple[int, int]] = field(default_factory=dict)

    def get(self, name: str) -> str:
        return self.classes.get(name, CLASSES[name][0])

    def normalised(self) -> Frame:
        """Every class field present (defaults filled in)."""
        return Frame({k: self.get(k) for k in CLASSES}, dict(self.spans))


def _span(s: tuple[int, int]) -> list:
    return [0, [int(s[0]), int(s[1])]]


def _location(f: Frame) -> dict | None:
    if f.get("speaker") != "NONE":
        return {"location_type": "SPEAKER"}
    if f.get("direction") != "NONE":
        loc = {"location_type": "DIRECTION", "direction": f.get("direction")}
        if "STEPS" in f.spans:
            loc["steps"] = _span(f.spans["STEPS"])
        return loc
    if "LOC" in f.spans:
        loc = {"location_type": "REFERENCE_OBJECT", "reference_object": {"has_name": _span(f.spans["LOC"])}}
        if f.get("side") != "NONE":
            loc["relative_direction"] = f.get("side")
        return loc
    return None


def _simple_action(f: Frame, kind: str) -> dict:
    a: dict = {"action_type": kind}
    sp = f.spans
    ref = {"has_name": _span(sp["OBJ"])} if "OBJ" in sp else None
    if kind == "MOVE":
        a["location"] = _location(f)
    elif kind in ("COLLECT", "DESTROY", "FIGHT", "FILL", "EAT", "SPAWN", "OTHER") and ref:
        a["reference_object"] = ref
    elif kind == "CRAFT" and ref:
        a["recipe"] = ref
    if kind == "OTHER" and _location(f) is not None:
        a["location"] = _location(f)
    if kind in ("BUILD", "DIG", "FILL"):
        schem: dict = {}
        if "BLOCK" in sp and kind != "DIG":
            schem["has_block_type"] = _span(sp["BLOCK"])
        shape = f.get("shape")
        if kind == "BUILD" and ref:  # something to build that is no block or shape: its name
            schem["has_name"] = ref["has_name"]
        if kind == "BUILD" and (shape != "NONE" or not ref):
            schem["has_shape"] = shape if shape != "NONE" else "BLOCK"
        elif kind == "DIG" and shape != "NONE":
            schem["has_shape"] = shape
        if "SIZE" in sp and kind != "FILL":
            schem["has_size"] = _span(sp["SIZE"])
        if schem or kind == "BUILD":
            a["schematic"] = schem
        if kind in ("BUILD", "DIG") and _location(f) is not None:
            a["location"] = _location(f)
    if kind in ("COLLECT", "DESTROY", "FIGHT", "CRAFT", "DRINK", "SPAWN") and "COUNT" in sp:
        a["repeat"] = {"repeat_count": _span(sp["COUNT"])}
    return {k: v for k, v in a.items() if v is not None}


def assemble(f: Frame) -> dict:
    """The action dictionary a frame stands for (may break the schema when the frame is incomplete:
    callers validate)."""
    kind = f.get("dialogue_type")
    if kind == "NOOP":
        return {"dialogue_type": "NOOP"}
    if kind == "GET_MEMORY":
        filters: dict = {"memory_type": f.get("memory_type") if f.get("memory_type") in GET_TYPES else "SCENE"}
        if "OBJ" in f.spans:
            filters["reference_object"] = {"has_name": _span(f.spans["OBJ"])}
        return {"dialogue_type": kind, "filters": filters}
    if kind == "PUT_MEMORY":
        if f.get("memory_type") == "FEEDBACK" or ("NAME" not in f.spans and f.get("feedback") != "NONE"):
            return {"dialogue_type": kind, "upsert": {"memory_type": "FEEDBACK",
                                                      "has_feedback": f.get("feedback") if f.get("feedback") != "NONE"
                                                      else "POSITIVE"}}
        upsert: dict = {"memory_type": "NAME"}
        if "NAME" in f.spans:
            upsert["has_name"] = _span(f.spans["NAME"])
        if "OBJ" in f.spans:
            upsert["reference_object"] = {"has_name": _span(f.spans["OBJ"])}
        return {"dialogue_type": kind, "upsert": upsert}
    action = _simple_action(f, f.get("action_type"))
    if f.get("stop") != "NONE":
        stop: dict = {"condition_type": f.get("stop")}
        if f.get("stop") == "HAVE":
            for slot, key in (("UNTIL_OBJ", "has_name"), ("UNTIL_COUNT", "count")):
                if slot in f.spans:
                    stop[key] = _span(f.spans[slot])
        action = {"action_type": "LOOP", "action": action, "stop_condition": stop}
    return {"dialogue_type": kind, "action": action}


def _s(span) -> tuple[int, int]:
    return (int(span[1][0]), int(span[1][1]))


def _flatten_location(loc: dict, f: Frame) -> None:
    if loc["location_type"] == "SPEAKER":
        f.classes["speaker"] = "SPEAKER"
    elif loc["location_type"] == "DIRECTION":
        f.classes["direction"] = loc["direction"]
        if "steps" in loc:
            f.spans["STEPS"] = _s(loc["steps"])
    else:
        f.spans["LOC"] = _s(loc["reference_object"]["has_name"])
        if "relative_direction" in loc:
            f.classes["side"] = loc["relative_direction"]


def flatten(d: dict) -> Frame:
    """The frame of a (valid) action dictionary."""
    f = Frame({"dialogue_type": d["dialogue_type"]})
    if d["dialogue_type"] == "GET_MEMORY":
        f.classes["memory_type"] = d["filters"]["memory_type"]
        if "reference_object" in d["filters"]:
            f.spans["OBJ"] = _s(d["filters"]["reference_object"]["has_name"])
    elif d["dialogue_type"] == "PUT_MEMORY":
        up = d["upsert"]
        f.classes["memory_type"] = up["memory_type"]
        if up["memory_type"] == "FEEDBACK":
            f.classes["feedback"] = up["has_feedback"]
        else:
            if "has_name" in up:
                f.spans["NAME"] = _s(up["has_name"])
            if "reference_object" in up:
                f.spans["OBJ"] = _s(up["reference_object"]["has_name"])
    elif d["dialogue_type"] == "HUMAN_GIVE_COMMAND":
        a = d["action"]
        if a["action_type"] == "LOOP":
            stop = a["stop_condition"]
            f.classes["stop"] = stop["condition_type"]
            if "has_name" in stop:
                f.spans["UNTIL_OBJ"] = _s(stop["has_name"])
            if "count" in stop:
                f.spans["UNTIL_COUNT"] = _s(stop["count"])
            a = a["action"]
        f.classes["action_type"] = a["action_type"]
        for key in ("reference_object", "recipe"):
            if key in a:
                f.spans["OBJ"] = _s(a[key]["has_name"])
        if "location" in a:
            _flatten_location(a["location"], f)
        schem = a.get("schematic", {})
        if "has_name" in schem:
            f.spans["OBJ"] = _s(schem["has_name"])
        if "has_block_type" in schem:
            f.spans["BLOCK"] = _s(schem["has_block_type"])
        if "has_size" in schem:
            f.spans["SIZE"] = _s(schem["has_size"])
        if schem.get("has_shape") and not (a["action_type"] == "BUILD" and schem["has_shape"] == "BLOCK"):
            f.classes["shape"] = schem["has_shape"]
        if "repeat" in a:
            f.spans["COUNT"] = _s(a["repeat"]["repeat_count"])
    return f.normalised()


def tags_of(spans: dict[str, tuple[int, int]], num_words: int) -> list[str]:
    """BIO tags of the words (later slots do not overwrite earlier ones)."""
    tags = ["O"] * num_words
    for slot, (start, end) in spans.items():
        for i in range(start, min(end, num_words - 1) + 1):
            if tags[i] == "O":
                tags[i] = ("B-" if i == start else "I-") + slot
    return tags


def spans_of(tags: list[str]) -> dict[str, tuple[int, int]]:
    """Slot spans from BIO tags: the first run of each slot (an I- without a B- starts a run)."""
    spans: dict[str, tuple[int, int]] = {}
    current: str | None = None
    for i, tag in enumerate(tags):
        if tag == "O":
            current = None
            continue
        prefix, slot = tag.split("-", 1)
        if prefix == "I" and current == slot:
            start, _ = spans[slot]
            spans[slot] = (start, i)
        elif slot not in spans:
            spans[slot] = (i, i)
            current = slot
        else:
            current = None
    return spans
