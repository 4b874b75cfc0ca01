"""A context task's conditions as data (MP5's aspects), derived from its success criterion.

Every leaf of a task's `success` mapping that names something the agent can see or be becomes part
of one `Condition`, grouped by what it is about: `{near: {cow: 1}}` and `{in_view: {cow: 1}}` are
one condition ("a cow"), `{time: day}` another. Each condition has an aspect, a phrase (for
composing a whole description: "a cow", "near water", "during the day"), a text in the narrator's
words (what the learned model is asked: "there's a cow over here"), a ground-truth check on the
simulator's `WorldState`, and its minimal-pair alternatives: the same condition with only its
subject or value changed ("it's night" for "during the day, sun is up"; "on the beach" for
"some water over there"), which are its negatives when the model is asked about it.

No English is parsed: the phrases come from the tables below, keyed by the schema's kinds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from mineclip.sim.state import WorldState, brightness
from mineclip.sim.vocab import CREATURES
from mineclip.tasks.scenes import DAY, IDLE, NIGHT, VIEW

ASPECTS = ("object", "creature", "terrain", "time", "brightness", "agent", "event")
THINGS = ("creature", "terrain", "object")  # the aspects of things a frame shows in its tiles
TERRAIN = ("water", "sand", "grass", "lava")
OBJECTS = ("tree", "stone", "coal", "iron", "diamond", "table", "furnace", "plant")
TIMES = ("day", "night")
BRIGHTNESS = ("bright", "dark")
VIEW_KEYS = ("in_view", "near", "facing", "view_fraction")
AGENT_KEYS = ("have", "without", "health")
EVENT_KEYS = ("achieve", "gain", "event", "sleeping", "survive")

# What the learned model is asked: the narrator's own words for a kind in view, the time and the
# light (mineclip.tasks.scenes, what the training clips say); kinds the narrator never names get a
# plain phrase, and no thresholds unless a context task asks about them.
TEXT = {**{kind: captions[0] for kind, captions in VIEW.items()},
        "grass": "walking on the grass", "coal": "there's coal here", "iron": "some iron ore here",
        "plant": "a sapling here", "day": DAY[1], "night": NIGHT[0], "bright": DAY[0], "dark": NIGHT[1]}
PHRASE = {"cow": "a cow", "zombie": "a zombie", "skeleton": "a skeleton", "water": "near water",
          "sand": "on the sand", "grass": "on the grass", "lava": "near lava", "tree": "by the trees",
          "stone": "by the stone", "coal": "by coal", "iron": "by iron", "diamond": "by a diamond",
          "table": "by a crafting table", "furnace": "by a furnace", "plant": "by a sapling",
          "day": "during the day", "night": "at night", "bright": "in bright light", "dark": "in the dark"}
NOTHING = IDLE[2]  # the narrator's idle talk ("looking around"): the alternative "none of these in view"
ALTERNATIVES = {"creature": CREATURES, "terrain": TERRAIN, "object": OBJECTS, "time": TIMES,
                "brightness": BRIGHTNESS}
Check = Callable[[WorldState], bool]


def aspect_of(kind: str) -> str:
    """The MP5 aspect of a kind the schema names (cow -> creature, water -> terrain, tree -> object)."""
    if kind in CREATURES:
        return "creature"
    if kind in TERRAIN:
        return "terrain"
    if kind in OBJECTS:
        return "object"
    raise ValueError(f"no aspect for {kind!r}; expected one of {CREATURES + TERRAIN + OBJECTS}")


@dataclass(frozen=True)
class Condition:
    """One thing that must hold: its aspect, subject (cow, water, day, ...), the schema's checks on it."""

    aspect: str
    subject: str
    checks: tuple = field(default=(), compare=False)  # ((key, arg), ...) from the success mapping
    text_override: str | None = field(default=None, compare=False)  # event conditions: the task prompt

    @property
    def key(self) -> str:
        """'creature:cow', 'time:night': what thresholds and reliability tables are kept by."""
        return f"{self.aspect}:{self.subject}"

    @property
    def text(self) -> str:
        """What the learned model is asked about, in the narrator's words."""
        return self.text_override or TEXT.get(self.subject, self.subject.replace("_", " "))

    @property
    def phrase(self) -> str:
        return self.text_override or PHRASE.get(self.subject, self.subject.replace("_", " "))

    @property
    def perceivable(self) -> bool:
        """Whether the condition can be asked of a frame (event conditions need the whole clip)."""
        return self.aspect != "event"

    @property
    def need(self) -> int:
        """How many of the thing must be in view (`in_view`'s count; 1 when the schema says none)."""
        return max([arg for key, arg in self.checks if key == "in_view"] or [1])

    def holds(self, state: WorldState) -> bool:
        """The ground truth on the simulator's state."""
        return all(_check(key, arg, self.subject, state) for key, arg in self.checks)

    def seen(self, state: WorldState) -> bool:
        """What one frame can show: the thing in view (as many as the task asks), the time, the light.
        How near it is belongs to the agent's local sense (`local`), as MP5's 3x3x3 voxels do."""
        if self.aspect in THINGS:
            return state.count(self.subject) >= self.need
        return self.holds(state)

    def local(self, state: WorldState) -> bool:
        """The near-by part of the condition (`near`, `facing`), which the agent senses around itself."""
        return all(_check(key, arg, self.subject, state) for key, arg in self.checks if key in ("near", "facing"))

    def alternatives(self) -> list[Condition]:
        """Minimal pairs: this condition with only its subject changed (and, for things in view, none)."""
        options = ALTERNATIVES.get(self.aspect)
        if not options:
            return []
        return [replace(self, subject=s, checks=()) for s in options if s != self.subject]

    def alternative_texts(self) -> list[str]:
        """The negatives this condition's text is scored against."""
        texts = [c.text for c in self.alternatives()]
        return texts + ([NOTHING] if self.aspect in THINGS else [])


def _check(key: str, arg, subject: str, state: WorldState) -> bool:
    if key == "in_view":
        return state.count(subject) >= arg
    if key == "view_fraction":
        return state.count(subject) / 144.0 >= arg
    if key == "near":
        return state.distance(subject) <= arg
    if key == "facing":
        return state.facing_kind == subject
    if key == "time":
        return state.time_of_day == subject
    if key == "brightness":
        return brightness(state.daylight) == subject
    if key == "have":
        return state.inventory.get(subject, 0) >= arg
    if key == "without":
        return state.inventory.get(arg, 0) <= 0
    if key == "health":
        return state.health >= arg
    raise ValueError(f"condition check {key!r} is not a check on one state")


def _leaves(success: dict) -> list[tuple[str, object]]:
    """The (key, arg) leaves of a success mapping joined by AND; `any:` cannot be factored."""
    out = []
    for key, arg in success.items():
        if key == "all":
            for sub in arg:
                out += _leaves(sub)
        elif key == "any":
            raise ValueError("a success criterion with `any:` has no single list of conditions")
        else:
            out.append((key, arg))
    return out


def conditions_of(task) -> list[Condition]:
    """The conditions of a task (a TaskSpec, or its success mapping), in schema order.

    Checks on one kind are one condition (in_view and near of a cow: "a cow"). A task whose success
    also needs events (achievements, gains) gets one `event` condition with the task's prompt."""
    success = task if isinstance(task, dict) else task.success
    if not success:
        raise ValueError(f"task {getattr(task, 'id', '?')} has no success criterion to take conditions from")
    grouped: dict[tuple[str, str], list] = {}
    events = False
    for key, arg in _leaves(success):
        if key in VIEW_KEYS:
            for kind, value in ({arg: 0} if key == "facing" else dict(arg)).items():
                grouped.setdefault((aspect_of(kind), kind), []).append((key, value))
        elif key in ("time", "brightness"):
            grouped.setdefault((key, arg), []).append((key, arg))
        elif key == "health":
            grouped.setdefault(("agent", "health"), []).append((key, arg))
        elif key == "have":
            for item, value in dict(arg).items():
                grouped.setdefault(("agent", item), []).append((key, value))
        elif key == "without":
            for item in arg:
                grouped.setdefault(("agent", f"no {item}"), []).append((key, item))
        elif key in EVENT_KEYS:
            events = True
        else:
            raise ValueError(f"unknown success condition {key!r}")
    conds = [Condition(aspect, subject, tuple(checks)) for (aspect, subject), checks in grouped.items()]
    if events:
        conds.append(Condition("event", getattr(task, "id", "task"), (), getattr(task, "prompt", "the task")))
    return conds


def check_conditions(conditions: list[Condition]) -> None:
    """Raise a ValueError for an empty list or contradictory conditions ("during the day" and
    "at night"; "bright" and "dark"): no frame can satisfy them, so no answer would mean anything."""
    if not conditions:
        raise ValueError("expected at least one condition, got an empty list")
    for aspect in ("time", "brightness"):
        values = sorted({c.subject for c in conditions if c.aspect == aspect})
        if len(values) > 1:
            raise ValueError(f"contradictory conditions: {' and '.join(PHRASE[v] for v in values)} cannot both hold")


def describe(conditions: list[Condition], verb: str = "find") -> str:
    """A whole description composed from the conditions' phrases ("find a cow near water during the day")."""
    check_conditions(conditions)
    return " ".join([verb, *(c.phrase for c in conditions)])


def minimal_pairs(conditions: list[Condition], verb: str = "find") -> list[str]:
    """The description with one condition changed at a time (each alternative of each condition)."""
    out = []
    for i, c in enumerate(conditions):
        for alt in c.alternatives():
            if alt.subject in {d.subject for d in conditions}:
                continue
            out.append(describe(conditions[:i] + [alt] + conditions[i + 1:], verb))
    return list(dict.fromkeys(out))


def level_of(conditions: list[Condition]) -> int:
    """MP5's level by number of conditions: 1 easy, 2 mid, 3 hard, 4 complex (4-6)."""
    n = len(conditions)
    if not 1 <= n <= 6:
        raise ValueError(f"MP5's levels hold 1-6 conditions, got {n}")
    return min(n, 4)

