"""Agents for the crafter tasks: a scripted planner that reads the world state, a second scripted
planner that breaks path ties its own way (scripted_alt), the failing variants (noisy, near-miss,
wrong-target), and a random agent.

Every agent acts in the controls of the environment's view (`env.view`, `mineclip.sim.view`): the
scripted agents plan on the map in crafter's grid moves (they are demonstrators and may read it) and
make each move with `sim.view.move_action` (from above the move itself; in first person turns until
facing its way, then a step forward, or one step back); `do`, `place_*`, `make_*` and `sleep` act on
the facing tile and have the same index in both views. Random actions (the random agent, the noisy
agents' noise) are drawn from the view's actions.

The scripted agent runs a task's `solution`, a list of skills:

    obtain: ITEM [count: N]     get ITEM to N in the inventory, planning from crafter's recipes
    goto: KIND                  walk next to the nearest tile/creature of a kind and face it
    fight: KIND [count: N]      kill N creatures (cow, zombie, skeleton)
    hit: KIND                   one valid hit, no more
    drink [count: N]            drink water N times
    eat_plant                   eat a ripe plant
    place: ITEM                 place stone / table / furnace / plant in front
    place_row: ITEM [count: N]  a straight row of N placed blocks or saplings
    tunnel: N                   mine N stone tiles straight ahead, stepping into each
    bridge: N                   place stone on water, mine it to path, step on, N times
    sleep / sleep_until_awake
    survive                     fight zombies that come close, otherwise wait
    wait: N / explore: N
"""

from __future__ import annotations

import random as _random
from typing import Iterator

import numpy as np

from mineclip.sim.engine import ACTION_IDS, ACTIONS
from mineclip.sim.env import CrafterEnv
from mineclip.sim.paths import DIRS, find_path
from mineclip.sim.state import object_kind
from mineclip.sim.view import action_id, move_action, turn_action
from mineclip.sim.vocab import COLLECT, CREATURE_ACHIEVEMENT, MAKE, PLACE, SOURCES, WALKABLE

MOVE = {v: ACTION_IDS[f"move_{k}"] for k, v in DIRS.items()}  # crafter's grid moves, the top view's actions
NOOP = ACTION_IDS["noop"]  # noop, do, sleep, place_* and make_* have the same index in both views
DO = ACTION_IDS["do"]
ACTING = {a for a in ACTIONS if a == "do" or a == "sleep" or a.startswith(("place_", "make_"))}
STEP_BACK = action_id("first_person", "move_back")
MOVE_ACTIONS = 3  # the most actions a grid move takes (first person: two turns and a step)


def grid_move(env: CrafterEnv, move, last_action: int | None = None) -> tuple[int, bool]:
    """(the action of `env`'s view that makes the next progress on the grid move `move`, whether the
    move is made then): `sim.view.move_action` for the env's player; `last_action`, the agent's last."""
    player = env.player
    return move_action(env.view, player.facing, move, lambda m: bool(player.is_free(player.pos + np.array(m))),
                       env.view == "first_person" and last_action == STEP_BACK)
SKILLS = ("obtain", "goto", "fight", "hit", "drink", "eat_plant", "place", "place_row", "tunnel", "bridge",
          "sleep", "sleep_until_awake", "survive", "wait", "explore")


def parse_step(step) -> tuple[str, object, dict]:
    """A solution step as (skill, argument, options)."""
    if isinstance(step, str):
        name, arg, opts = step, None, {}
    else:
        names = [k for k in step if k in SKILLS]
        if len(names) != 1:
            raise ValueError(f"expected exactly one skill of {SKILLS} in solution step {step!r}")
        name = names[0]
        arg, opts = step[name], {k: v for k, v in step.items() if k != name}
    if name not in SKILLS:
        raise ValueError(f"unknown skill {name!r}; expected one of {SKILLS}")
    return name, arg, opts


class Agent:
    """Base agent: `reset(env)` at episode start, `act(env) -> action id` (of the env's view),
    `done` when it stops."""

    name = "agent"
    noise = 0.0
    done = False

    def reset(self, env: CrafterEnv) -> None:
        self.done = False

    def act(self, env: CrafterEnv) -> int:
        raise NotImplementedError


class RandomAgent(Agent):
    """Uniformly random actions of the env's view."""

    name = "random"

    def __init__(self, seed: int = 0):
        self.rng = np.random.RandomState(seed)

    def act(self, env):
        return int(self.rng.randint(len(env.actions)))


class ScriptedAgent(Agent):
    """Runs a list of skills by BFS path-finding over the world state.

    noise: probability of replacing each action with a random one. near_miss: walk to the
    target and face it but never act (acting actions become noops).
    """

    name = "scripted"

    def __init__(self, solution: list, noise: float = 0.0, near_miss: bool = False, seed: int = 0,
                 give_up: int = 400):
        self.solution = [parse_step(s) for s in solution]
        self.noise = float(noise)
        self.near_miss = near_miss
        self.seed = seed
        self.give_up = give_up
        if near_miss:
            self.name = "near_miss"
        elif noise > 0:
            self.name = "noisy"

    def reset(self, env):
        self.done = False
        self.rng = _random.Random(self.seed)
        self.env = env
        self._emptied = None  # the tile this agent last mined empty (see _place)
        self._last: int | None = None  # the last action (a step back is taken once in a row)
        self._plan = self._run()

    def act(self, env):
        self.env = env
        if self.done:
            action = NOOP
        else:
            try:
                action = next(self._plan)
            except StopIteration:
                self.done = True
                action = NOOP
        if self.near_miss and env.actions[action] in ACTING:
            action = NOOP
        if self.noise and self.rng.random() < self.noise:
            action = self.rng.randrange(len(env.actions))
        self._last = int(action)
        return int(action)

    def _move(self, move) -> Iterator[int]:
        """The actions of the env's view that make crafter's grid move `move` (`grid_move`): one from
        above; in first person up to three (a move the player, asleep, cannot turn for is given up)."""
        for _ in range(MOVE_ACTIONS):
            action, done = grid_move(self.env, move, self._last)
            yield action
            if done:
                return

    # -- world access ----------------------------------------------------------------------
    @property
    def inv(self) -> dict:
        return self.env.player.inventory

    @property
    def ach(self) -> dict:
        return self.env.player.achievements

    def _pos(self) -> tuple[int, int]:
        p = self.env.player.pos
        return int(p[0]), int(p[1])

    def _facing(self) -> tuple[int, int]:
        f = self.env.player.facing
        return int(f[0]), int(f[1])

    def _ahead_pos(self) -> tuple[int, int]:
        (x, y), (dx, dy) = self._pos(), self._facing()
        return x + dx, y + dy

    def _ahead(self):
        return self.env.world[self._ahead_pos()]

    def _ahead_kind(self) -> str | None:
        material, obj = self._ahead()
        return object_kind(obj) if obj is not None else material

    def _targets(self, kind: str, ripe: bool = False) -> list[tuple[int, int]]:
        world = self.env.world
        if kind in world._mat_ids:
            return [tuple(int(v) for v in p) for p in np.argwhere(world._mat_map == world._mat_ids[kind])]
        return [tuple(int(v) for v in o.pos) for o in world.objects
                if object_kind(o) == kind and (not ripe or getattr(o, "ripe", False))]

    # -- skills ----------------------------------------------------------------------------
    def _run(self) -> Iterator[int]:
        for name, arg, opts in self.solution:
            yield from getattr(self, f"_skill_{name}")(arg, **opts)

    def _skill_wait(self, n, **_):
        for _ in range(int(n or 1)):
            yield NOOP

    def _skill_explore(self, n, **_):
        yield from self._explore(int(n or 8))

    def _skill_goto(self, kind, ripe=False, within=None, **_):
        if within is None:
            yield from self._goto(kind, ripe=ripe)
            return
        for _ in range(self.give_up):  # stop short (lava kills on contact)
            (x, y) = self._pos()
            targets = self._targets(kind)
            if targets and min(abs(t[0] - x) + abs(t[1] - y) for t in targets) <= int(within):
                yield from self._look_toward(min(targets, key=lambda t: abs(t[0] - x) + abs(t[1] - y)))
                return
            path = self._bfs(set(targets)) if targets else None
            if path:
                yield from self._move(path[0])
            else:
                yield from self._explore(6)

    def _skill_obtain(self, item, count=1, **_):
        yield from self._obtain(item, int(count))

    def _skill_fight(self, kind, count=1, **_):
        ach = CREATURE_ACHIEVEMENT[kind]
        goal = self.ach[ach] + int(count)
        for _ in range(self.give_up):
            if self.ach[ach] >= goal:
                return
            if (yield from self._goto(kind, budget=1)):
                yield DO

    def _skill_hit(self, kind, **_):
        key = f"hit_{kind}"
        start = self.env.context.events[key]
        for _ in range(self.give_up):
            if self.env.context.events[key] > start:
                return
            if (yield from self._goto(kind, budget=1)):
                yield DO

    def _skill_drink(self, count=1, **_):
        goal = self.ach["collect_drink"] + int(count or 1)
        for _ in range(self.give_up):
            if self.ach["collect_drink"] >= goal:
                return
            if (yield from self._goto("water", budget=1)):
                yield DO

    def _skill_eat_plant(self, _=None, **__):
        goal = self.ach["eat_plant"] + 1
        for _ in range(self.give_up):
            if self.ach["eat_plant"] >= goal:
                return
            if (yield from self._goto("plant", ripe=True, budget=1)):
                yield DO

    def _skill_place(self, item, **_):
        yield from self._place(item)

    def _skill_place_row(self, item, count=3, **_):
        # Zig-zag: face down onto the row, place, step up-right-down, place again.
        item_name = "plant" if item in ("sapling", "plant") else item
        need = PLACE[item_name]["uses"]
        for k, v in need.items():
            yield from self._obtain(k, v * int(count))
        yield from self._face_free("down")
        for i in range(int(count)):
            yield ACTION_IDS[f"place_{item_name}"]
            if i + 1 < int(count):
                for d in ("up", "right", "down"):
                    yield from self._move(DIRS[d])

    def _skill_tunnel(self, n, **_):
        yield from self._obtain("wood_pickaxe", 1)
        if not (yield from self._goto("stone")):
            return
        for _ in range(int(n)):
            if self._ahead_kind() != "stone":
                return
            yield DO
            yield from self._move(self._facing())

    def _skill_bridge(self, n, **_):
        yield from self._obtain("wood_pickaxe", 1)
        yield from self._obtain("stone", 1)
        if not (yield from self._goto("water")):
            return
        for _ in range(int(n)):
            if self._ahead_kind() != "water" or self.inv["stone"] < 1:
                return
            yield ACTION_IDS["place_stone"]
            yield DO
            yield from self._move(self._facing())

    def _skill_sleep(self, _=None, **__):
        for _ in range(20):
            if self.env.player.sleeping:
                return
            yield ACTION_IDS["sleep"]

    def _skill_sleep_until_awake(self, _=None, **__):
        goal = self.ach["wake_up"] + 1
        for _ in range(self.give_up):
            if self.ach["wake_up"] >= goal:
                return
            yield ACTION_IDS["sleep"]

    def _skill_survive(self, _=None, **__):
        while True:
            zombies = self._targets("zombie")
            (x, y) = self._pos()
            if any(abs(zx - x) + abs(zy - y) <= 3 for zx, zy in zombies):
                if (yield from self._goto("zombie", budget=1)):
                    yield DO
            else:
                yield NOOP

    # -- planning from crafter's recipes -----------------------------------------------------
    def _obtain(self, item: str, count: int) -> Iterator[int]:
        for _ in range(self.give_up):
            if self.inv[item] >= count:
                return
            if item in MAKE:
                recipe = MAKE[item]
                utils = recipe.get("nearby", [])
                yield from self._near_utilities(utils)
                for k, v in recipe["uses"].items():
                    yield from self._obtain(k, v)
                yield from self._near_utilities(utils)
                yield ACTION_IDS[f"make_{item}"]
            elif item == "drink":
                yield from self._skill_drink(1)
            elif item == "food":
                yield from self._skill_fight("cow", 1)
            elif item == "sapling":
                yield from self._collect_grass()
            elif item in SOURCES:
                material = SOURCES[item]
                for k, v in COLLECT[material]["require"].items():
                    yield from self._obtain(k, v)
                if (yield from self._goto(material, budget=60)):
                    tile = self._ahead_pos()
                    yield DO
                    if self.env.world[tile][0] != material:
                        self._emptied = tile
                else:
                    yield from self._explore(8)
            else:
                raise ValueError(f"the scripted agent cannot obtain {item!r}")

    def _near_utilities(self, utils: list[str]) -> Iterator[int]:
        """Stand within reach of every utility (table, furnace), walking to or placing them."""
        world = self.env.world
        for _ in range(4):
            nearby, _ = world.nearby(self.env.player.pos, 1)
            missing = [u for u in utils if u not in nearby]
            if not missing:
                return
            (x, y) = self._pos()
            close = {u: [t for t in self._targets(u) if abs(t[0] - x) + abs(t[1] - y) <= 12] for u in missing}
            reachable = [u for u in missing if close[u]]
            if reachable and (yield from self._goto(reachable[0], budget=40)):
                nearby, _ = world.nearby(self.env.player.pos, 1)
                if all(u in nearby for u in utils):
                    return
                missing = [u for u in utils if u not in nearby]
            yield from self._place(missing[0])
    def _place(self, item: str) -> Iterator[int]:
        item_name = "plant" if item == "sapling" else item
        info = PLACE[item_name]
        for k, v in info["uses"].items():
            yield from self._obtain(k, v)
        for _ in range(12):
            material, obj = self._ahead()
            # not back into the hole just mined for it: that shows no placement at all (the block
            # blinks out and back in one frame), neither to a viewer nor to a video model
            if obj is None and material in info["where"] and self._ahead_pos() != self._emptied:
                yield ACTION_IDS[f"place_{item_name}"]
                return
            yield from self._face_valid(info["where"])

    def _face_valid(self, where) -> Iterator[int]:
        """Step once so that the tile ahead can take a placement."""
        world = self.env.world
        (x, y) = self._pos()
        dirs = list(DIRS.values())
        self.rng.shuffle(dirs)
        for dx, dy in dirs:
            m1, o1 = world[(x + dx, y + dy)]
            m2, o2 = world[(x + 2 * dx, y + 2 * dy)]
            if m1 in WALKABLE and o1 is None and m2 in where and o2 is None:
                yield from self._move((dx, dy))
                return
        yield from self._move(dirs[0])

    def _look_toward(self, target: tuple[int, int]) -> Iterator[int]:
        """Turn toward a tile that is not next to the player (the way it lies farthest), so that it is in
        view: in first person only (from above everything near is in view, and turning means moving)."""
        (x, y), (tx, ty) = self._pos(), target
        dx, dy = tx - x, ty - y
        way = (int(np.sign(dx)), 0) if abs(dx) >= abs(dy) else (0, int(np.sign(dy)))
        for _ in range(2):
            turning = turn_action(self.env.view, self._facing(), way)
            if turning is None:
                return
            yield turning

    def _face_free(self, direction: str) -> Iterator[int]:
        """Face `direction` with a free tile ahead, so it can take a placement: in first person by
        turning; from above, where a player faces a way only by moving, by arriving on a tile moving
        that way."""
        dx, dy = DIRS[direction]
        back = (-dx, -dy)
        world = self.env.world
        for _ in range(10):
            (x, y) = self._pos()
            if self._facing() == (dx, dy) and world[(x + dx, y + dy)][0] in ("grass", "sand", "path") \
                    and world[(x + dx, y + dy)][1] is None:
                return
            turning = turn_action(self.env.view, self._facing(), (dx, dy))
            if turning is not None:
                yield turning
                continue
            m, o = world[(x + back[0], y + back[1])]
            if m in WALKABLE and o is None:
                yield from self._move(back)
                yield from self._move((dx, dy))
            else:
                yield from self._move(self.rng.choice(list(DIRS.values())))

    def _collect_grass(self) -> Iterator[int]:
        goal = self.inv["sapling"] + 1
        for _ in range(self.give_up):
            if self.inv["sapling"] >= goal:
                return
            material, obj = self._ahead()
            if material == "grass" and obj is None:
                yield DO
            else:
                yield from self._face_valid(("grass",))

    def _explore(self, n: int) -> Iterator[int]:
        """Walk in a straight line, turning at obstacles; never into water or lava."""
        d = self.rng.choice(list(DIRS.values()))
        for _ in range(n):
            (x, y) = self._pos()
            free = [e for e in DIRS.values() if self.env.world[(x + e[0], y + e[1])][0] in WALKABLE
                    and self.env.world[(x + e[0], y + e[1])][1] is None]
            if not free:
                yield NOOP
                continue
            if d not in free:
                d = self.rng.choice(free)
            yield from self._move(d)

    def _goto(self, kind: str, ripe: bool = False, budget: int = 200) -> Iterator[int]:
        """Walk next to the nearest `kind` and face it; True when facing it. `budget` caps the steps."""
        for _ in range(budget):
            if self._ahead_kind() == kind and (not ripe or getattr(self._ahead()[1], "ripe", False)):
                return True
            targets = self._targets(kind, ripe=ripe)
            if not targets:
                yield from self._explore(6)
                continue
            path = self._bfs(set(targets))
            if path is None:
                yield from self._explore(6)
                continue
            if not path:  # adjacent: turn toward it (the target blocks the move)
                (x, y) = self._pos()
                for t in targets:
                    d = (t[0] - x, t[1] - y)
                    if d in MOVE:
                        yield from self._move(d)
                        break
                continue
            yield from self._move(path[0])
        return self._ahead_kind() == kind

    def _path_dirs(self) -> list:
        """The order in which path-finding tries the four directions (which shortest path it takes)."""
        return list(DIRS.values())

    def _bfs(self, targets: set) -> list | None:
        """Moves to a walkable tile next to any target ([] if already next to one), or None."""
        dirs = self._path_dirs()

        def adjacent(p):
            return any((p[0] + dx, p[1] + dy) in targets for dx, dy in dirs)

        return find_path(self.env.world, self._pos(), adjacent, dirs)


class AltScriptedAgent(ScriptedAgent):
    """The scripted planner with its own tie-breaking: path-finding tries the directions in an order
    shuffled at every step (seeded), so it walks other shortest paths and turns at other moments. A
    second demonstrator with the same skills (MCU's operational effort averages over demonstrations)."""

    name = "scripted_alt"

    def reset(self, env):
        super().reset(env)
        self._dir_rng = _random.Random(self.seed * 7919 + 1)

    def _path_dirs(self) -> list:
        dirs = list(DIRS.values())
        self._dir_rng.shuffle(dirs)
        return dirs


class AvoidAgent(ScriptedAgent):
    """A failing agent for tasks won by getting somewhere ("find a zombie at night"): each step it
    takes the free move that puts it farthest from the nearest thing its task's plan goes to, so
    that a failure looks like searching elsewhere. A near miss of such a task (walk there, never
    act) is a success, and a zombie at night finds noisy and random players, so without this agent
    those tasks have almost no failures to judge."""

    name = "avoid"

    def __init__(self, solution: list, seed: int = 0):
        super().__init__(solution, seed=seed)
        self.kinds = [arg for skill, arg, _ in self.solution if skill in ("goto", "fight", "hit")]

    def act(self, env):
        self.env = env
        (x, y), world = self._pos(), env.world
        free = [d for d in DIRS.values() if world[(x + d[0], y + d[1])][0] in WALKABLE
                and world[(x + d[0], y + d[1])][1] is None]
        if not free:
            self._last = NOOP
            return NOOP
        targets = np.array([t for kind in self.kinds for t in self._targets(kind)] or [(x, y)])

        def away(d) -> tuple[int, float]:
            return int(np.abs(targets - (x + d[0], y + d[1])).sum(1).min()), self.rng.random()

        self._last = grid_move(env, max(free, key=away), self._last)[0]
        return int(self._last)


def make_agent(kind: str, task, noise: float = 0.0, seed: int = 0, other=None) -> Agent:
    """Build an agent by name: scripted, scripted_alt, noisy, near_miss, wrong_target (needs `other`
    task), avoid or random."""
    if kind == "random":
        return RandomAgent(seed)
    if kind == "scripted":
        return ScriptedAgent(task.solution, noise=noise, seed=seed)
    if kind == "scripted_alt":
        agent = AltScriptedAgent(task.solution, noise=noise, seed=seed)
        agent.name = "scripted_alt" if not noise else "noisy_alt"
        return agent
    if kind == "noisy":
        return ScriptedAgent(task.solution, noise=noise or 0.5, seed=seed)
    if kind == "near_miss":
        return ScriptedAgent(task.solution, noise=noise, near_miss=True, seed=seed)
    if kind == "wrong_target":
        if other is None:
            raise ValueError("a wrong_target agent needs another task whose plan it follows")
        agent = ScriptedAgent(other.solution, noise=noise, seed=seed)
        agent.name = "wrong_target"
        return agent
    if kind == "avoid":
        return AvoidAgent(task.solution, seed=seed)
    raise ValueError(f"unknown agent {kind!r}; expected scripted, scripted_alt, noisy, near_miss, wrong_target, "
                     "avoid or random")


AGENTS = ("scripted", "noisy", "near_miss", "wrong_target", "random", "scripted_alt", "avoid")
