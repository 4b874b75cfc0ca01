"""A text-only planning environment over crafter's recipes (MCU's HorizonForge-text, app. D).

The state is an inventory and the stations placed so far (a table, a furnace); an action is one atom
task (`collect_wood`, `place_table`, `make_stone_pickaxe`, ...), and at each step the candidates are
the atoms whose dependencies the state satisfies: the items they use, the tools they need, the
stations they must be near. Navigation is abstracted away: a collected item is one step, a placed
station stays near. A goal ("make iron_pickaxe", "collect diamond", "place furnace") must be reached
within 100 steps. Observations are text (the goal, the step, the inventory, the stations, the
numbered candidates); `info["action_mask"]` marks the candidates; choosing another atom wastes the
step. Registered with gymnasium as `mineclip/horizon_text-v0`.

Baselines: `ScriptedPlanner` resolves the recipe graph depth-first (always succeeds when the goal
is reachable), `RandomPlanner` picks a candidate uniformly.
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field

import gymnasium as gym
import numpy as np

from mineclip.sim.vocab import COLLECT, HOLDABLE, ITEMS, MAKE, PLACE, SOURCES

MAX_STEPS = 100
STATIONS = ("table", "furnace")
DISTRACTORS = ("collect_drink", "eat_cow", "eat_plant")  # atoms no craft needs (MCU lists such candidates too)


@dataclass(frozen=True)
class Atom:
    """One atom task of the text world: what it uses up, what it needs held or near, what it gives."""

    name: str
    uses: dict = field(default_factory=dict)
    needs: dict = field(default_factory=dict)  # held, not used up
    near: tuple = ()  # stations
    gives: dict = field(default_factory=dict)
    station: str | None = None  # placed by this atom

    def ready(self, inventory: dict, stations: set) -> bool:
        """Whether the state satisfies this atom's dependencies."""
        return (all(inventory.get(k, 0) >= v for k, v in {**self.needs, **self.uses}.items())
                and all(s in stations for s in self.near))


def atoms() -> list[Atom]:
    """Every atom of the text world, from crafter's recipes (collect, place, make) and the distractors."""
    out = [Atom(f"collect_{item}", needs=dict(COLLECT[m]["require"]), gives={item: 1})
           for item, m in SOURCES.items() if item != "drink"]
    for what, r in PLACE.items():
        out.append(Atom(f"place_{what}", uses=dict(r["uses"]), near=tuple(r.get("nearby", [])),
                        station=what if what in STATIONS else None))
    for what, r in MAKE.items():
        out.append(Atom(f"make_{what}", uses=dict(r["uses"]), near=tuple(r.get("nearby", [])), gives={what: 1}))
    out += [Atom("collect_drink"), Atom("eat_cow"), Atom("eat_plant", needs={"sapling": 1})]
    return out


ATOMS = atoms()
ATOM_IDS = {a.name: i for i, a in enumerate(ATOMS)}
GOALS = tuple([f"make_{m}" for m in MAKE] + ["place_table", "place_furnace"] +
              [f"collect_{i}" for i in ("stone", "coal", "iron", "diamond")])


class HorizonTextEnv(gym.Env):
    """Text planning over crafter's recipes: reach `goal` (an atom) within `max_steps` steps."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, goal: str = "make_iron_pickaxe", inventory: dict | None = None, max_steps: int = MAX_STEPS,
                 render_mode: str | None = None):
        if goal not in ATOM_IDS or goal in DISTRACTORS or not (ATOMS[ATOM_IDS[goal]].gives or ATOMS[ATOM_IDS[goal]].station):
            raise ValueError(f"unknown goal {goal!r}; expected one of {GOALS} (or another recipe atom)")
        unknown = sorted(set(inventory or {}) - set(ITEMS))
        if unknown:
            raise ValueError(f"unknown inventory items {unknown}; expected some of {list(ITEMS)}")
        self.goal, self.start, self.max_steps, self.render_mode = goal, dict(inventory or {}), max_steps, render_mode
        self.observation_space = gym.spaces.Text(max_length=4096, charset=string.printable)
        self.action_space = gym.spaces.Discrete(len(ATOMS))

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.inventory = {k: 0 for k in HOLDABLE}
        self.inventory.update(self.start)
        self.stations: set[str] = set()
        self.t, self.done = 0, False
        return self._obs(), self._info(invalid=False)

    def candidates(self) -> list[str]:
        """The atoms whose dependencies the state satisfies."""
        return [a.name for a in ATOMS if a.ready(self.inventory, self.stations)]

    def reached(self) -> bool:
        """Whether the goal is reached."""
        atom = ATOMS[ATOM_IDS[self.goal]]
        if atom.station:
            return atom.station in self.stations
        return all(self.inventory.get(k, 0) >= 1 for k in atom.gives)

    def step(self, action):
        if not 0 <= int(action) < len(ATOMS):
            raise ValueError(f"expected an action in [0, {len(ATOMS)}), got {action}")
        atom = ATOMS[int(action)]
        invalid = not atom.ready(self.inventory, self.stations)
        if not invalid:
            for k, v in atom.uses.items():
                self.inventory[k] -= v
            for k, v in atom.gives.items():
                self.inventory[k] = self.inventory.get(k, 0) + v
            if atom.station:
                self.stations.add(atom.station)
        self.t += 1
        success = self.reached()
        truncated = self.t >= self.max_steps and not success
        return self._obs(), float(success), success, truncated, self._info(invalid)

    def render(self):
        return self._obs()

    def _info(self, invalid: bool) -> dict:
        mask = np.array([a.ready(self.inventory, self.stations) for a in ATOMS], dtype=np.int8)
        return {"candidates": self.candidates(), "action_mask": mask, "invalid": invalid,
                "inventory": {k: v for k, v in self.inventory.items() if v}, "stations": sorted(self.stations)}

    def _obs(self) -> str:
        inv = {k: v for k, v in self.inventory.items() if v}
        cands = "; ".join(f"{ATOM_IDS[c]}: {c.replace('_', ' ', 1)}" for c in self.candidates())
        return (f"Goal: {self.goal.replace('_', ' ', 1)}\nStep: {self.t}/{self.max_steps}\nInventory: {inv}\n"
                f"Near: {', '.join(sorted(self.stations)) or 'nothing'}\nCandidates: {cands}")


class RandomPlanner:
    """Picks one of the candidate atoms uniformly at random."""

    name = "random"

    def __init__(self, seed: int = 0):
        self.rng = np.random.default_rng(seed)

    def act(self, env: HorizonTextEnv) -> int:
        return ATOM_IDS[self.rng.choice(env.candidates())]


class ScriptedPlanner:
    """Resolves the recipe graph depth-first: the first unmet dependency of the goal, recursively."""

    name = "scripted"

    def act(self, env: HorizonTextEnv) -> int:
        return ATOM_IDS[self._next(env.goal, env, set())]

    def _next(self, name: str, env: HorizonTextEnv, seen: set) -> str:
        if name in seen:
            raise ValueError(f"the recipes loop through {name}")
        atom = ATOMS[ATOM_IDS[name]]
        for station in atom.near:
            if station not in env.stations:
                return self._next(f"place_{station}", env, seen | {name})
        for item, n in {**atom.needs, **atom.uses}.items():
            if env.inventory.get(item, 0) < n:
                return self._next(_producer(item), env, seen | {name})
        return name


def _producer(item: str) -> str:
    return f"collect_{item}" if item in SOURCES else f"make_{item}"


def run(env: HorizonTextEnv, planner, seed: int = 0) -> tuple[bool, int]:
    """One episode: (success, steps)."""
    env.reset(seed=seed)
    for t in range(env.max_steps):
        _, _, terminated, truncated, _ = env.step(planner.act(env))
        if terminated or truncated:
            return terminated, t + 1
    return False, env.max_steps


def baselines(episodes: int = 50, goals: tuple = GOALS, seed: int = 0) -> dict[str, dict[str, dict]]:
    """Success rate and mean steps of the scripted and the random planner per goal, from an empty
    inventory (`episodes` episodes per goal; the scripted planner is deterministic)."""
    out: dict[str, dict[str, dict]] = {}
    for planner_name in ("scripted", "random"):
        out[planner_name] = {}
        for g in goals:
            env = HorizonTextEnv(goal=g)
            runs = [run(env, ScriptedPlanner() if planner_name == "scripted" else RandomPlanner(seed + e), seed + e)
                    for e in range(episodes if planner_name == "random" else 1)]
            ok = [s for s, _ in runs if s]
            out[planner_name][g] = {"success": len(ok) / len(runs),
                                    "steps": float(np.mean([n for s, n in runs if s])) if ok else None,
                                    "episodes": len(runs)}
    return out
