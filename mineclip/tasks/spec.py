"""Task specifications (one YAML mapping each) and their success criteria on the world state.

A success criterion is a mapping of conditions that must all hold at one step (AND); `any:` and
`all:` nest lists of such mappings. Conditions (counts are "at least"):

    achieve: {collect_wood: 1}     achievements unlocked since reset
    gain: {wood: 2}                inventory increase since reset
    have: {wood_pickaxe: 1}        inventory now
    event: {hit_cow: 1}            events so far (see state.step_events)
    in_view: {cow: 1, water: 3}    visible tiles or objects
    view_fraction: {water: 0.2}    share of the 16x9 view covered by a material
    near: {water: 2}               Manhattan distance to the nearest visible one, at most
    facing: cow                    the tile or object right ahead
    time: day | night              daylight >= 0.5 | < 0.35
    brightness: bright | dark      daylight >= 0.75 | < 0.35 (the light the frame is drawn with)
    sleeping: true
    survive: 40                    alive after this many steps
    health: 5                      health at least
    without: [wood_sword, ...]     none of these items in the inventory now (MCU's "bare hands")
"""

from __future__ import annotations

from dataclasses import dataclass, field, asdict
from typing import Any, Callable

from mineclip.sim.state import EpisodeContext

CATEGORIES = ("harvest", "combat", "techtree", "survival", "creative")
KINDS = ("programmatic", "creative")
# the hand-written suite; the template-generated catalogue (tasks.generator); MP5's context tasks at
# four levels that are not in the suite (its training clips and negatives stay as they are); MP5's
# process-dependent tasks at five levels, from scratch (`suite/process.yaml`), not in the suite either
CATALOGUES = ("suite", "generated", "context", "process")
Criterion = Callable[[EpisodeContext], bool]


@dataclass
class TaskSpec:
    """One task: prompt, guidance, initial conditions, success criterion or oracle, dense reward."""

    id: str
    prompt: str
    category: str
    kind: str = "programmatic"
    guidance: str = ""
    init: dict = field(default_factory=dict)
    success: dict | None = None  # programmatic tasks
    oracle: str | None = None  # creative tasks: name in mineclip.tasks.oracles, used only for labels; none: people label
    reward: dict | None = None  # {navigate: kind, hit: kind, hit_bonus: 5, success: 200}
    solution: list = field(default_factory=list)  # the scripted agent's plan
    max_steps: int = 100
    tags: list[str] = field(default_factory=list)  # table1, animal, mcu-molecule, mp5-context, ...
    goal: list[str] = field(default_factory=list)  # dependency-graph goals (items/achievements)
    human: dict = field(default_factory=dict)  # optional MCU human ratings: intricacy, creativity, novelty
    simulator: str = "crafter"  # "minedojo" for imported descriptions
    source: str = ""
    pre_tasks: dict = field(default_factory=dict)  # MCU pre-task graph {atom: {and|or: [atoms]}}; tasks.pretasks
    catalogue: str = "suite"  # which catalogue: the suite (training, negatives) or the generated one

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"task {self.id}: expected kind in {KINDS}, got {self.kind!r}")
        if self.simulator == "crafter":
            if self.category not in CATEGORIES:
                raise ValueError(f"task {self.id}: expected category in {CATEGORIES}, got {self.category!r}")
            if self.kind == "programmatic" and not self.success:
                raise ValueError(f"task {self.id}: a programmatic task needs a success criterion")
            if self.success:
                compile_criterion(self.success)  # fail early on typos
        if self.catalogue not in CATALOGUES:
            raise ValueError(f"task {self.id}: expected catalogue in {CATALOGUES}, got {self.catalogue!r}")
        if self.pre_tasks:
            from .pretasks import PreTaskGraph

            PreTaskGraph.from_dict(self.pre_tasks, where=f"task {self.id}")  # fail early on a malformed graph

    @property
    def labeller(self) -> str:
        """Who labels recorded episodes: the success criterion, a creative task's oracle, or people."""
        if self.kind != "creative":
            return "success-criterion"
        return "oracle" if self.oracle else "human"  # a creative task without an oracle: people judge it

    def to_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v not in (None, [], {}, "")}

    @classmethod
    def from_dict(cls, task_id: str, d: dict) -> "TaskSpec":
        known = set(cls.__dataclass_fields__)
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"task {task_id}: unknown fields {sorted(unknown)}; expected some of {sorted(known)}")
        return cls(**{**d, "id": task_id})


def _at_least(values: dict[str, float], get: Callable[[str], float]) -> Criterion:
    items = list(values.items())
    return lambda ctx: all(get(ctx, k) >= v for k, v in items)


def compile_criterion(spec: dict) -> Criterion:
    """Turn a success mapping into a function of the episode context."""
    if not isinstance(spec, dict) or not spec:
        raise ValueError(f"expected a non-empty mapping of conditions, got {spec!r}")
    checks: list[Criterion] = []
    for key, arg in spec.items():
        checks.append(_condition(key, arg))
    return lambda ctx: all(c(ctx) for c in checks)


def _condition(key: str, arg: Any) -> Criterion:
    if key == "all":
        subs = [compile_criterion(s) for s in arg]
        return lambda ctx: all(s(ctx) for s in subs)
    if key == "any":
        subs = [compile_criterion(s) for s in arg]
        return lambda ctx: any(s(ctx) for s in subs)
    if key == "achieve":
        return _at_least(arg, lambda ctx, k: ctx.state.achievements[k] - ctx.start.achievements[k])
    if key == "gain":
        return _at_least(arg, lambda ctx, k: ctx.state.inventory[k] - ctx.start.inventory[k])
    if key == "have":
        return _at_least(arg, lambda ctx, k: ctx.state.inventory[k])
    if key == "event":
        return _at_least(arg, lambda ctx, k: ctx.events[k])
    if key == "in_view":
        return _at_least(arg, lambda ctx, k: ctx.state.count(k))
    if key == "view_fraction":
        return _at_least(arg, lambda ctx, k: ctx.state.count(k) / 144.0)
    if key == "near":
        items = list(arg.items())
        return lambda ctx: all(ctx.state.distance(k) <= d for k, d in items)
    if key == "facing":
        return lambda ctx: ctx.state.facing_kind == arg
    if key == "time":
        if arg not in ("day", "night"):
            raise ValueError(f"expected time: day or night, got {arg!r}")
        return lambda ctx: ctx.state.time_of_day == arg
    if key == "brightness":
        if arg not in ("bright", "dark"):
            raise ValueError(f"expected brightness: bright or dark, got {arg!r}")
        from mineclip.sim.state import brightness

        return lambda ctx: brightness(ctx.state.daylight) == arg
    if key == "sleeping":
        return lambda ctx: ctx.state.sleeping == bool(arg)
    if key == "survive":
        return lambda ctx: ctx.state.step >= int(arg) and ctx.state.health > 0
    if key == "health":
        return lambda ctx: ctx.state.health >= int(arg)
    if key == "without":
        if not isinstance(arg, list) or not arg:
            raise ValueError(f"expected without: a list of items, got {arg!r}")
        items = list(arg)
        return lambda ctx: all(ctx.state.inventory.get(k, 0) <= 0 for k in items)
    raise ValueError(f"unknown success condition {key!r}; expected one of all, any, achieve, gain, have, event, "
                     "in_view, view_fraction, near, facing, time, brightness, sleeping, survive, health, without")
