"""MP5's Planner, Performer and Patroller for process-dependent tasks: sub-objectives from the task's
MCU pre-task graph, grounded by what the perceiver reports, executed by a Performer that sees only its
view, checked step by step, re-planned when a step fails; a Performer memory of the action sequences
that completed a sub-objective in a situation, replayed when the situation recurs.

**The loop** (`ProcessAgent.act(obs, sight)`, one call per step; `perform` plays an episode):

1. *Patroller*: is the current sub-objective done? A `find_<kind>` is done when the perceiver has
   shown the kind (it is in the agent's memory, which only perception fills); every other atom when
   crafter's record of the player's achievements counts one more (`collect_wood`, `place_table`,
   `make_wood_pickaxe`, `eat_cow`, ...). It has failed when its step budget (`BUDGET`) runs out, or at
   once when it cannot succeed (an ingredient or the tool is missing).
2. *Planner* (when there is no current sub-objective): `Planner.plan(situation)` walks the task's
   pre-task graph (`mineclip.tasks.pretasks.task_graph`: AND of all pre-tasks, OR of one) from its
   roots, with crafter's recipes for how many of each item a step consumes, against the situation:
   the inventory, the achievements, the kinds its memory holds (from perception) and the tables and
   furnaces it knows. Grounding: a `find_<kind>` whose kind is already seen is skipped ("a cow is in
   view: skip find"), an OR takes the alternative whose thing is seen, a table in view is not placed
   again, items held are not made again. Survival first (MP5's situation-aware planning): a zombie
   seen within `THREAT` tiles is fought, low drink or food is restored when water or a cow is known.
   After every sub-objective, done or failed, it plans again from the new situation (re-planning: a
   failed find searches on, a cow that walked off is found again).
3. *Performer* (`Performer.act(obs, sight, sub)`): finds by looking (the Seeker's search and paths,
   `mineclip.perception.seeker`), walks next to a remembered target, faces it and hits (`do`), places
   on a free tile it sees ahead (a furnace within reach of a known table, so that one tile has both
   in reach), crafts within reach of the table (and furnace). It remembers what it placed and what
   it collected (crafter's rules: a collected tree leaves grass).
4. *Performer memory* (`PerformerMemory`): when the Performer stands at a target (next to it, at a
   place to place or craft), the situation is a key (sub-objective, view, where the target is
   relative to it); the actions from there until the Patroller says done are stored, and replayed
   when the key recurs, in this episode or a later one; a replay that does not complete the
   sub-objective is forgotten.

**Ablations** (`ABLATIONS`, MP5's table 4 in kind): `full` is the loop above. `blind` plans the same
way but perceives nothing during execution: no answers, no places, so it cannot confirm a find and
its memory holds only what it did itself; its finds and collects are a fixed script (walk with a
persistent random heading; when a step is blocked, hit what blocks it a few times, then turn), its
crafting goes back to where its odometry says it placed the table; the Patroller still reads the
inventory. `fixed` keeps perception during execution but drops situation-aware planning: the plan is
made once at reset from the graph alone (no grounding, no survival steps) and run in order, each step
once until done or out of budget, and a failed step is not planned again. `no_memory` is the full
agent without the Performer memory: it never stores or replays a sequence, so the memory's effect
alone is the difference to `full`.

What the agent reads is the Seeker's: `Observation` (frame, inventory, achievements, pose from its
odometry) and `Sight` (the perceiver's places); it never holds the environment or its maps
(`tests/perception/test_perception_planner.py` runs it with them raising).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field

from mineclip.sim.view import action_id, turn_action
from mineclip.sim.vocab import COLLECT, CREATURES, MAKE, PLACE, SOURCES, VITALS, acted_on
from mineclip.tasks.env import CrafterTaskEnv
from mineclip.tasks.pretasks import PreTaskGraph, criterion_atoms, task_graph

from .seeker import FORGET, FP, NOOP, Observation, Seeker, Sight, _dist, observe, to_ego

PROCESS_TAG = "mp5-process"
LEVELS = ("basic", "wooden", "stone", "iron", "diamond")  # MP5's five process levels (its table 2)
ABLATIONS = ("full", "blind", "fixed", "no_memory")
# steps a sub-objective may take before the Patroller calls it failed, by the atom's kind
BUDGET = {"find": 120, "collect": 100, "eat": 100, "defeat": 40, "place": 40, "make": 60}
THREAT = 3  # a zombie remembered this near (Manhattan) is fought first
LOW = 1  # drink or food at or below this is restored first, when water or a cow is known (3 cost more than it saved)
HITS = 4  # blind: times it hits what blocked its step before turning away
SURVIVAL = ("defeat_zombie", "collect_drink", "eat_cow")
# the kinds of atom the Performer can do, in the order a step's pre-tasks are prepared: utilities,
# then tools, then what is consumed, then the thing to act on
ACTIONS = ("place", "make", "collect", "eat", "defeat", "find")


def process_level(task) -> str:
    """MP5's level of a process task from its `process-<level>` tag, else a ValueError."""
    levels = [t.split("-", 1)[1] for t in task.tags if t.startswith("process-") and t.split("-", 1)[1] in LEVELS]
    if not levels:
        raise ValueError(f"task {task.id} has no process-<level> tag ({list(LEVELS)}): not a process task")
    return levels[0]


def process_tasks() -> list:
    """MP5's process-dependent tasks (catalogue `process`, tag `mp5-process`), by level."""
    from mineclip.tasks.registry import list_tasks

    return sorted(list_tasks(tag=PROCESS_TAG, catalogue="all"), key=lambda t: LEVELS.index(process_level(t)))


def split_atom(atom: str) -> tuple[str, str]:
    """('collect', 'wood') for `collect_wood`; `eat_cow` -> ('eat', 'cow')."""
    kind, _, what = atom.partition("_")
    return kind, what


def cheb(a, b) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


@dataclass
class Situation:
    """What the Planner grounds on: the inventory, the achievements so far, the kinds the agent has
    seen (its memory, filled by perception) and the utilities (table, furnace) it knows."""

    inventory: dict = field(default_factory=dict)
    achievements: dict = field(default_factory=dict)
    known: set = field(default_factory=set)
    placed: set = field(default_factory=set)


class Planner:
    """Sub-objectives from a pre-task graph and crafter's recipes (see the module)."""

    def __init__(self, graph: PreTaskGraph, roots: list[str] | None = None, grounded: bool = True,
                 blind: bool = False):
        self.graph = graph
        self.roots = list(roots or graph.roots)
        self.grounded = grounded
        self.blind = blind
        self.skipped: list[str] = []  # finds the last plan left out because perception had shown the thing

    def plan(self, s: Situation) -> list[str]:
        """The sub-objectives still to do, in order (empty: every root achieved)."""
        self._inv = Counter({k: v for k, v in s.inventory.items() if v > 0})
        self._known = set(s.known) if self.grounded else set()
        self._placed = set(s.placed) if self.grounded else set()
        self._out: list[str] = []
        self.skipped = []
        for root in self.roots:
            if s.achievements.get(root, 0) < 1:
                self._achieve(root, 1, root=True)
        return self._out

    def _emit(self, atom: str) -> None:
        self._out.append(atom)

    def _achieve(self, atom: str, n: int = 1, root: bool = False, depth: int = 0) -> None:
        if depth > 12 or len(self._out) > 200:
            raise RuntimeError(f"the plan for {self.roots} does not close (at {atom!r})")
        kind, what = split_atom(atom)
        if kind == "find":
            if what in self._known:
                if what not in self.skipped:
                    self.skipped.append(what)
                return
            if not self.blind:  # acting blind, a find cannot be confirmed: its collect searches
                self._emit(atom)
            self._known.add(what)  # found once, in the plan
            return
        if kind == "place" and not root and what in self._placed:
            return
        if kind in ("collect", "make") and not root:
            while self._inv[what] < n:
                self._once(atom, depth)
            return
        self._once(atom, depth)

    def _once(self, atom: str, depth: int) -> None:
        kind, what = split_atom(atom)
        recipe = MAKE.get(what, {}) if kind == "make" else PLACE.get(what, {}) if kind == "place" else {}
        uses = dict(recipe.get("uses", {}))
        needs = dict(COLLECT[SOURCES[what]]["require"]) if kind == "collect" and what in SOURCES else {}
        pre = list(self.graph.pre(atom))
        if self.graph.mode(atom) == "or" and pre:
            seen = [p for p in pre if acted_on(p) in self._known]
            pre = [(seen or pre)[0]]
        pre.sort(key=lambda p: ACTIONS.index(split_atom(p)[0]) if split_atom(p)[0] in ACTIONS else len(ACTIONS))
        for _ in range(6):  # preparing one need can consume another (a table eats the wood): until all hold
            for p in pre:
                item = split_atom(p)[1]
                self._achieve(p, uses.get(item, needs.get(item, 1)), depth=depth + 1)
            if all(self._inv[i] >= k for i, k in {**uses, **needs}.items()) and all(
                    u in self._placed for u in recipe.get("nearby", [])):
                break
        if kind in ACTIONS:  # abstract atoms (an OR like obtain_food) are done by their pre-tasks
            self._emit(atom)
        for item, k in uses.items():
            self._inv[item] -= k
        if kind == "make":
            self._inv[what] += int(recipe.get("gives", 1))
        elif kind == "collect":
            self._inv[what] += 1
        elif kind == "place":
            self._placed.add(what)


class PerformerMemory:
    """MP5's Performer memory: the action sequences that completed a sub-objective, keyed by the
    situation they started from (sub-objective, view, where the target was relative to the agent)."""

    def __init__(self):
        self.entries: dict[tuple, tuple[int, ...]] = {}
        self.stored = self.reused = self.forgotten = 0

    def recall(self, key: tuple) -> tuple[int, ...] | None:
        return self.entries.get(key)

    def store(self, key: tuple, actions: list[int]) -> None:
        if actions and key not in self.entries:
            self.entries[key] = tuple(actions)
            self.stored += 1

    def forget(self, key: tuple) -> None:
        if self.entries.pop(key, None) is not None:
            self.forgotten += 1


class Performer(Seeker):
    """Executes one sub-objective at a time from its view and memory (see the module); `blind`: with
    nothing perceived, by a fixed script. Reuses the Seeker's memory, search and paths."""

    name = "performer"

    def __init__(self, view: str = FP, seed: int = 0, blind: bool = False, skills: PerformerMemory | None = None,
                 remember: bool = True):
        self.blind = blind
        self.remember = remember  # False: no Performer memory (the `no_memory` ablation)
        self.skills = skills if skills is not None else PerformerMemory()
        super().__init__([], view, done_action=-1, seed=seed)

    def reset(self) -> None:
        super().reset()
        if self.blind:
            self.turns_left = 0
        self.prev: tuple[Observation, int] | None = None
        self.bumped = False
        self.hits = 0
        self.wander: tuple[int, int] | None = None
        self.replay: list[int] = []
        self.replay_key: tuple | None = None
        self.recording: tuple[tuple, list[int]] | None = None
        self.tried: dict[tuple, int] = {}  # (tile, facing) -> step a place there failed

    # -- what it sees and did ---------------------------------------------------------------------
    def observe(self, obs: Observation, sight: Sight) -> None:
        """Update memory from this step's sight and from what its last action did (own placements,
        collections, failed steps)."""
        mem = self.memory
        self.bumped = self.expect is not None and obs.pose != self.expect and obs.pose == self._from
        if self.bumped:
            mem.blocked[self.expect] = obs.step
        self.expect = None
        mem.update(obs, sight)
        if self.prev is None:
            return
        before, action = self.prev
        ahead = (before.pose[0] + before.facing[0], before.pose[1] + before.facing[1])
        for name, count in obs.achievements.items():
            if count <= before.achievements.get(name, 0):
                continue
            kind, what = split_atom(name)
            if kind == "place":
                mem.kind[ahead] = what
            elif kind == "collect" and what in SOURCES:
                mem.kind[ahead] = COLLECT[SOURCES[what]]["leaves"]
            elif kind in ("eat", "defeat") and what in CREATURES:
                mem.creatures.get(what, {}).pop(ahead, None)
        if action in PLACE_ACTIONS.values() and not any(
                obs.achievements.get(n, 0) > before.achievements.get(n, 0) for n in obs.achievements):
            self.tried[(ahead, before.facing)] = obs.step

    def finish(self, done: bool) -> None:
        """The Patroller's verdict on the sub-objective: store what completed it, forget a failed replay."""
        if self.replay_key is not None and not done:
            self.skills.forget(self.replay_key)
        elif self.recording is not None and done and self.replay_key is None:
            self.skills.store(*self.recording)
        self.replay, self.replay_key, self.recording = [], None, None
        self.hits = 0

    # -- the decision -----------------------------------------------------------------------------
    def act(self, obs: Observation, sight: Sight, sub: str) -> int:
        """The action for sub-objective `sub` now (call `observe` first)."""
        if self.replay:
            return self._act(obs, self.replay.pop(0))
        kind, what = split_atom(sub)
        if kind == "find":
            return self._explore(obs)
        if kind in ("collect", "eat", "defeat"):
            return self._interact(obs, sub, acted_on(sub))
        if kind == "place":
            return self._place(obs, sub, what)
        if kind == "make":
            return self._make(obs, sub, what)
        return self._act(obs, NOOP)

    def _explore(self, obs: Observation) -> int:
        return self._forage(obs) if self.blind else self._search(obs)

    def _at_target(self, obs: Observation, key: tuple) -> int | None:
        """At a situation the memory may know: replay its sequence, else start recording."""
        if not self.remember or self.recording is not None and self.recording[0] == key:
            return None
        seq = self.skills.recall(key)
        if seq:
            self.skills.reused += 1
            self.replay, self.replay_key = list(seq[1:]), key
            return self._act(obs, seq[0])
        self.recording = (key, [])
        return None

    def _interact(self, obs: Observation, sub: str, target: str | None) -> int:
        """Walk next to a remembered `target`, face it and hit it."""
        mem = self.memory
        tiles = mem.where(target, obs.step, FORGET if target in CREATURES else None) if target else []
        if self.blind or not tiles:
            self.recording = None
            return self._explore(obs)
        adjacent = sorted((t for t in tiles if _dist(t, obs.pose) == 1),
                          key=lambda t: (t[0] - obs.pose[0], t[1] - obs.pose[1]) != obs.facing)
        if adjacent:
            d = (adjacent[0][0] - obs.pose[0], adjacent[0][1] - obs.pose[1])
            replayed = self._at_target(obs, (sub, self.view, to_ego(obs.facing, d)))
            if replayed is not None:
                return replayed
            if obs.facing == d:
                return self._act(obs, DO)
            return self._face(obs, d)
        self.recording = None
        goals = {(t[0] + dx, t[1] + dy) for t in tiles for dx, dy in ((0, 1), (1, 0), (0, -1), (-1, 0))}
        goals = {g for g in goals if mem.free(g, obs.step) or g == obs.pose}
        move = self._path(obs, goals) if goals else None
        return self._search(obs) if move is None else self._step(obs, move)

    def _face(self, obs: Observation, d) -> int:
        """Turn toward grid direction `d` (from above: crafter's move that way, which only turns the
        player when the tile there cannot be entered)."""
        return self._act(obs, turn_action(self.view, obs.facing, d)) if self.view == FP else self._step(obs, d)

    def _forage(self, obs: Observation) -> int:
        """Blind: walk a persistent random heading; when a step is blocked, hit what blocks it, then turn."""
        if self.bumped or 0 < self.hits < HITS:
            self.hits += 1
            return self._act(obs, DO)
        if self.hits >= HITS or self.wander is None or self.rng.uniform() < 0.08:
            self.hits = 0
            ways = [d for d in ((0, 1), (1, 0), (0, -1), (-1, 0)) if d != self.wander]
            self.wander = ways[self.rng.randint(len(ways))]
        return self._step(obs, self.wander)

    def _placeable(self, tile, where, step: int, facing) -> bool:
        if (tile, facing) in self.tried and step - self.tried[(tile, facing)] <= 20:
            return False
        kind = self.memory.kind.get(tile)
        if kind is None:  # never seen: try (acting blind, nothing is ever seen)
            return True
        return kind in where and tile not in self.memory.occupied

    def _place(self, obs: Observation, sub: str, what: str) -> int:
        """Place `what` on a free tile ahead (a furnace within reach of a known table)."""
        mem = self.memory
        where = PLACE[what]["where"]
        reach = mem.where("table", obs.step) if what == "furnace" else []
        ok_here = not reach or any(cheb(obs.pose, t) <= 1 for t in reach)
        ahead = (obs.pose[0] + obs.facing[0], obs.pose[1] + obs.facing[1])
        if ok_here:
            if self._placeable(ahead, where, obs.step, obs.facing):
                replayed = self._at_target(obs, (sub, self.view, "ahead"))
                return replayed if replayed is not None else self._act(obs, PLACE_ACTIONS[what])
            if self.view == FP:
                return self._act(obs, action_id(FP, "turn_right"))
            ways = [d for d in ((0, 1), (1, 0), (0, -1), (-1, 0))
                    if mem.free((obs.pose[0] + d[0], obs.pose[1] + d[1]), obs.step)
                    and (not reach or any(cheb((obs.pose[0] + d[0], obs.pose[1] + d[1]), t) <= 1 for t in reach))]
            if ways:
                return self._step(obs, ways[self.rng.randint(len(ways))])
            return self._explore(obs)
        goals = {(t[0] + dx, t[1] + dy) for t in reach for dx in (-1, 0, 1) for dy in (-1, 0, 1)}
        move = self._path(obs, {g for g in goals if mem.free(g, obs.step)})
        return self._explore(obs) if move is None else self._step(obs, move)

    def _make(self, obs: Observation, sub: str, what: str) -> int:
        """Craft `what` within reach (one tile, diagonals too) of a table (and a furnace)."""
        mem = self.memory
        sets = [mem.where(u, obs.step) for u in MAKE[what].get("nearby", [])]
        if any(not s for s in sets):
            return self._explore(obs)
        if all(any(cheb(obs.pose, t) <= 1 for t in s) for s in sets):
            replayed = self._at_target(obs, (sub, self.view, "in reach"))
            return replayed if replayed is not None else self._act(obs, action_id(self.view, f"make_{what}"))
        goals = {(t[0] + dx, t[1] + dy) for t in sets[0] for dx in (-1, 0, 1) for dy in (-1, 0, 1)}
        goals = {g for g in goals if mem.free(g, obs.step) and all(any(cheb(g, t) <= 1 for t in s) for s in sets)}
        move = self._path(obs, goals) if goals else None
        return self._explore(obs) if move is None else self._step(obs, move)

    def _act(self, obs: Observation, action: int) -> int:
        if self.recording is not None and self.replay_key is None:
            self.recording[1].append(int(action))
        self.prev = (obs, int(action))
        self.last = int(action)
        return int(action)


DO = action_id(FP, "do")  # the same index in both views
DANGER = 4  # tiles round a dead player within which the runner records what was there (ProcessOutcome)
HOSTILE = ("zombie", "skeleton", "arrow")
PLACE_ACTIONS = {what: action_id(FP, f"place_{what}") for what in PLACE}


class ProcessAgent:
    """Planner + Performer + Patroller for one process task, as `ablation` says (`ABLATIONS`).
    `act(obs, sight)` -> an action, or None when its plan is spent (`fixed`)."""

    def __init__(self, task, view: str = FP, ablation: str = "full", seed: int = 0,
                 skills: PerformerMemory | None = None):
        if ablation not in ABLATIONS:
            raise ValueError(f"unknown ablation {ablation!r}; expected one of {list(ABLATIONS)}")
        self.task_id = task.id
        self.ablation = ablation
        self.situated = ablation in ("full", "no_memory")  # grounded planning and survival steps
        roots = criterion_atoms(task.success)[0] if task.success else None
        self.planner = Planner(task_graph(task), roots, grounded=self.situated, blind=ablation == "blind")
        self.performer = Performer(view, seed, blind=ablation == "blind", skills=skills,
                                   remember=ablation != "no_memory")
        self.reset()

    def reset(self) -> None:
        self.performer.reset()
        self.plan: list[str] | None = None
        self.sub: str | None = None
        self.started = 0
        self.before: Observation | None = None
        self.done: list[str] = []
        self.failed: list[str] = []
        self.replans = 0  # plans made again after a failed sub-objective
        self.skipped: set[str] = set()  # finds left out because perception had shown the thing

    def situation(self, obs: Observation) -> Situation:
        mem = self.performer.memory
        known = {k for k in mem.kind.values()} | {k for k, tiles in mem.creatures.items()
                                                   if any(obs.step - s <= FORGET for s in tiles.values())}
        return Situation(obs.inventory, obs.achievements, known, {u for u in ("table", "furnace") if u in known})

    def _urgent(self, obs: Observation) -> str | None:
        """Survival first (situation-aware planning only): a zombie near, then thirst, then hunger."""
        mem = self.performer.memory
        if any(_dist(t, obs.pose) <= THREAT for t in mem.where("zombie", obs.step, 3)):
            return "defeat_zombie"
        if self.sub in SURVIVAL:
            return None
        if obs.inventory.get("drink", 9) <= LOW and mem.where("water", obs.step):
            return "collect_drink"
        if obs.inventory.get("food", 9) <= LOW and mem.where("cow", obs.step):
            return "eat_cow"
        return None

    def _check(self, obs: Observation) -> str | None:
        """The Patroller's verdict on the current sub-objective: done, failed, or None (go on)."""
        sub, before = self.sub, self.before
        kind, what = split_atom(sub)
        if kind == "find":
            if self.performer.memory.where(what, obs.step):
                return "done"
        elif obs.achievements.get(sub, 0) > before.achievements.get(sub, 0):
            return "done"
        elif sub == "defeat_zombie" and obs.step - self.started >= 4 and not any(
                _dist(t, obs.pose) <= THREAT + 2 for t in self.performer.memory.where("zombie", obs.step, 4)):
            return "done"  # the threat is gone (none seen near for four steps)
        if obs.step - self.started >= BUDGET.get(kind, 60) or not self._possible(sub, obs.inventory):
            return "failed"
        return None

    @staticmethod
    def _possible(sub: str, inventory: dict) -> bool:
        kind, what = split_atom(sub)
        recipe = MAKE.get(what) if kind == "make" else PLACE.get(what) if kind == "place" else None
        needs = dict(recipe["uses"]) if recipe else {}
        if kind == "collect" and what in SOURCES:
            needs = dict(COLLECT[SOURCES[what]]["require"])
        return all(inventory.get(i, 0) >= k for i, k in needs.items())

    def act(self, obs: Observation, sight: Sight) -> int | None:
        perf = self.performer
        perf.observe(obs, sight)
        if self.sub is not None:
            verdict = self._check(obs)
            if verdict is not None:
                (self.done if verdict == "done" else self.failed).append(self.sub)
                perf.finish(verdict == "done")
                self.replans += verdict == "failed" and self.ablation != "fixed"
                self.sub = None
        if self.situated and self.sub != "defeat_zombie":
            urgent = self._urgent(obs)
            if urgent is not None and urgent != self.sub:
                if self.sub is not None:
                    perf.finish(False)
                self.sub, self.started, self.before = urgent, obs.step, obs
        if self.sub is None:
            if self.ablation == "fixed":
                if self.plan is None:
                    self.plan = self.planner.plan(Situation())
                if not self.plan:
                    return None
                self.sub = self.plan.pop(0)
            else:
                plan = self.planner.plan(self.situation(obs))
                self.skipped |= set(self.planner.skipped)
                if not plan:
                    return None
                self.sub = plan[0]
            self.started, self.before = obs.step, obs
        return perf.act(obs, sight, self.sub)


@dataclass
class ProcessOutcome:
    """One episode of a process task: MP5's success and failures (death, time-out)."""

    task: str
    level: str
    ablation: str
    perceiver: str
    world_seed: int
    view: str
    success: bool
    died: bool
    timed_out: bool  # the step budget ran out (or a fixed plan was spent) without success
    steps: int
    done: int  # sub-objectives the Patroller confirmed
    failed: int  # sub-objectives that ran out of budget or could not succeed
    replans: int
    skipped_finds: int  # finds the planner left out because perception had already shown the thing
    reused: int  # Performer-memory replays in this episode
    dropped: int = 0  # items Random Drop took away
    # at a death, what the runner saw round the player (never the agent): the kinds of hostile
    # objects within DANGER tiles (zombie, skeleton, arrow) and the world's daylight (0 dark .. 1)
    threats: tuple[str, ...] = ()
    daylight: float | None = None

    def to_dict(self) -> dict:
        return asdict(self)


def sight_of(perceiver, env, frame, facing) -> Sight:
    """What `perceiver` places on `frame` (kinds and the tiles the frame shows); nothing without `locate`."""
    where, visible = perceiver.locate(env, frame, facing) if hasattr(perceiver, "locate") else ({}, None)
    return Sight({}, where, visible)


def random_drop(env, done: list[str], rng) -> str | None:
    """MP5's Random Drop: discard what one completed sub-objective (a collect or a make) put in the
    inventory, chosen at random among those whose item is still held; the item dropped, or None."""
    items = [what for kind, what in map(split_atom, done) if kind in ("collect", "make")]
    held = [i for i in items if (i in MAKE or i in SOURCES) and i not in VITALS and env.player.inventory.get(i, 0) > 0]
    if not held:
        return None
    item = held[rng.randint(len(held))]
    env.player.inventory[item] -= 1
    return item


def perform(task, perceiver, world_seed: int, view: str = FP, ablation: str = "full",
            max_steps: int | None = None, init: dict | None = None, agent: ProcessAgent | None = None,
            drop: float = 0.0) -> ProcessOutcome:
    """Play one episode of a process task with `ProcessAgent` (`ablation`) and `perceiver`
    (`patroller.make_perceiver`; not asked when `blind`). The runner reads the environment to build
    the agent's `Observation` and to let the perceiver look; the agent reads only what it is given.
    `drop`: MP5's Random Drop, with this probability at the start of each new sub-objective
    (`random_drop`), which tests the Patroller's checks and re-planning."""
    import numpy as np

    from mineclip.tasks.registry import get_task

    task = get_task(task) if isinstance(task, str) else task
    fitted = getattr(getattr(perceiver, "percipient", None), "view", None)
    if fitted is not None and fitted != view:
        raise ValueError(f"the {perceiver.name} perceiver's Percipient was fitted in the {fitted} view; "
                         f"this episode is in the {view} view")
    env = CrafterTaskEnv(task, max_steps=max_steps, view=view)
    env.reset(seed=world_seed, options={"init": init} if init else None)
    agent = agent or ProcessAgent(task, view, ablation, seed=world_seed)
    agent.reset()
    reused = agent.performer.skills.reused
    start = (int(env.player.pos[0]), int(env.player.pos[1]))
    rng = np.random.RandomState(world_seed)
    info: dict = {}
    dropped = 0
    for _ in range(env.max_steps):
        obs = observe(env, start)
        sight = Sight() if agent.ablation == "blind" else sight_of(perceiver, env, obs.frame, obs.facing)
        sub = (agent.sub, agent.started)
        action = agent.act(obs, sight)
        if action is None:  # nothing left to do (a fixed plan spent): the rest would be waiting
            break
        if drop and (agent.sub, agent.started) != sub and rng.uniform() < drop:
            dropped += random_drop(env, agent.done, rng) is not None
        _, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    success = bool(info.get("success"))
    died = not success and env.player.health <= 0
    threats, daylight = (), None
    if died:
        px, py = env.player.pos
        threats = tuple(sorted({kind for o in env.world.objects if (kind := type(o).__name__.lower()) in HOSTILE
                                and abs(o.pos[0] - px) + abs(o.pos[1] - py) <= DANGER}))
        daylight = round(float(env.world.daylight), 3)
    return ProcessOutcome(task.id, process_level(task), agent.ablation, perceiver.name, world_seed, view, success,
                          died, not success and not died, int(env.state.step), len(agent.done), len(agent.failed),
                          agent.replans, len(agent.skipped), agent.performer.skills.reused - reused, dropped,
                          threats, daylight)
