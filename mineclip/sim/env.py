"""The crafter world as a gymnasium environment: egocentric RGB 160x256 (16-px tiles), initial
conditions (inventory, placed blocks and creatures, time of day), seeded resets and per-step events.

The simulator knows nothing of tasks: `mineclip.tasks.env.CrafterTaskEnv` adds a task's success
criterion, dense reward and oracle on top of `CrafterEnv` through `_outcome`.
"""

from __future__ import annotations

from collections import Counter

import gymnasium as gym
import numpy as np
from crafter import constants, objects

from .engine import AREA, DEFAULT_VITALS, FRAME_SIZE, TIME_OFFSETS, VIEW, CrafterCore, generate_world, make_object
from .firstperson import FirstPersonFrame, FirstPersonRenderer, view_contents
from .state import EpisodeContext, WorldState, object_kind, snapshot, step_events
from .view import DEFAULT_VIEW, actions, check_view, engine_action

WORLD_SEEDS = range(0, 2**31 - 1)  # the worlds crafter can generate: its generator's seed range


def check_world_seed(seed) -> int:
    """`seed` as an int if it names a world (`WORLD_SEEDS`), else ValueError naming the range."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or int(seed) not in WORLD_SEEDS:
        raise ValueError(f"expected a world seed, an integer in [0, {WORLD_SEEDS.stop}), got {seed!r}")
    return int(seed)


INIT_KEYS = ("inventory", "naive", "place", "time", "facing", "spawn_jitter", "spawn")
SPAWN_KEYS = ("near", "floor")


class CrafterEnv(gym.Env):
    """crafter as a gymnasium env: obs uint8 [160, 256, 3], 17 discrete actions, reward 0.

    `view` (`mineclip.sim.view.VIEWS`) chooses the picture and the controls: `top` (crafter's
    16-px tiles around the player, crafter's actions) or `first_person` (the player's eyes,
    `mineclip.sim.firstperson`; turn, move forward and back, `view.FIRST_PERSON_ACTIONS`). The
    simulation is the same in both. In first person, `first_person` holds the last frame's semantic
    map and depth.

    `init` sets the initial conditions (`INIT_KEYS`: `inventory`, `naive` for an empty inventory,
    `place` blocks or creatures around the player, `time` of day, `facing`, `spawn_jitter`, and
    `spawn`, MCU's "where" as a spawn condition: `{near: {water: 2}, floor: sand}` moves the player to
    the nearest free tile of that floor with each kind within its distance, see `_spawn`).
    `reset(seed=s)` draws the world seed `s` (or `options["world_seed"]`) and the episode's
    randomness from `s`; the same seed gives the same episode; `options["init"]` adds to `init`.
    Generated worlds are cached per world seed (`reuse_worlds`) because crafter's world
    generation costs ~0.5 s. `info` holds the step's events, the inventory, daylight, world seed
    and step; `context` what happened since reset (for success checks and oracles).
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 8}

    def __init__(self, init: dict | None = None, *, max_steps: int = 100, reuse_worlds: bool = True,
                 spawn_jitter: int = 0, render_mode: str | None = "rgb_array", view: str = DEFAULT_VIEW):
        unknown = sorted(set(init or {}) - set(INIT_KEYS))
        if unknown:
            raise ValueError(f"unknown initial conditions {unknown}; expected some of {list(INIT_KEYS)}")
        self.init = dict(init or {})
        self.max_steps = max_steps
        self.reuse_worlds = reuse_worlds
        self.spawn_jitter = spawn_jitter
        self.render_mode = render_mode
        self.view = check_view(view)
        self.actions = actions(self.view)
        self._eyes = FirstPersonRenderer() if self.view == "first_person" else None
        self.first_person: FirstPersonFrame | None = None  # the last first-person frame and its maps
        self.core = CrafterCore(area=AREA, view=VIEW, size=FRAME_SIZE, reward=False, length=None, seed=0)
        self.observation_space = gym.spaces.Box(0, 255, (FRAME_SIZE[1], FRAME_SIZE[0], 3), np.uint8)
        self.action_space = gym.spaces.Discrete(len(self.actions))
        self.context: EpisodeContext | None = None
        self.world_seed: int | None = None
        self._frame: np.ndarray | None = None

    # -- crafter internals, for agents and oracles -------------------------------------------
    @property
    def world(self):
        return self.core._world

    @property
    def player(self):
        return self.core._player

    @property
    def state(self) -> WorldState:
        return self.context.state

    # -- gymnasium API ----------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        options = dict(options or {})
        episode_seed = int(self.np_random.integers(0, 2**31 - 1)) if seed is None else int(seed)
        self.world_seed = (check_world_seed(options["world_seed"]) if options.get("world_seed") is not None
                           else episode_seed % WORLD_SEEDS.stop)
        rng = np.random.RandomState(episode_seed % (2**32))
        core, world = self.core, self.core._world
        init = {**self.init, **options.get("init", {})}

        world.reset(seed=self.world_seed)
        core._step = 0
        core.time_offset = self._time_offset(init.get("time"), rng)
        core._update_time()
        center = (world.area[0] // 2, world.area[1] // 2)
        player = objects.Player(world, center)
        world.add(player)
        generate_world(world, player, self.world_seed, self.reuse_worlds)
        world.random.seed(episode_seed % (2**32))  # in place: objects keep their reference
        core._player, core._last_health, core._unlocked = player, player.health, set()
        self._apply_init(init, rng)

        self._frame = self._draw()
        state = self._snapshot()
        self.context = EpisodeContext(
            start=state, state=state, start_map=world._mat_map.copy(), world_map=world._mat_map,
            material_ids=dict(world._mat_ids), events=Counter(),
            start_plants={tuple(int(v) for v in o.pos) for o in world.objects if object_kind(o) == "plant"})
        return self._frame, self._info([], state)

    def _update_objects(self) -> None:
        """crafter's step of the world: every object within twice the view of the player updates, in
        the world's order. The distance is crafter's `player.distance(obj)` (Manhattan) in Python
        ints, with the player's place read afresh for each object as crafter does (the player moves
        in its own update): numpy's overhead on two-element arrays was a tenth of a top-down step."""
        player, reach = self.core._player, 2 * max(self.core._view)
        for obj in self.core._world.objects:
            (ox, oy), (px, py) = obj.pos.tolist(), player.pos.tolist()
            if abs(ox - px) + abs(oy - py) < reach:
                obj.update()

    def step(self, action):
        if self.context is None:
            raise RuntimeError("call reset() before step()")
        core, world, player = self.core, self.core._world, self.core._player
        move = engine_action(self.view, int(action), player.facing)
        facing = player.facing
        if move.face is not None and not player.sleeping:
            player.facing = move.face
        prev = self.context.state
        name = move.name
        target = self._facing_object()
        target_health = target.health if target is not None else None

        core._step += 1
        core._update_time()
        player.action = name
        self._update_objects()
        if move.keep_facing:
            player.facing = facing
        if core._step % 10 == 0:
            for chunk, objs in world.chunks.items():
                core._balance_chunk(chunk, objs)

        hit = None
        if name == "do" and target is not None and object_kind(target) in ("cow", "zombie", "skeleton"):
            if target.health < target_health:
                hit = object_kind(target)
        self._frame = self._draw()
        state = self._snapshot()
        events = step_events(prev, state, name, hit)
        self.context.state = state
        self.context.events.update(events)

        reward, finished = self._outcome(state, events)
        terminated = player.health <= 0 or finished
        truncated = core._step >= self.max_steps and not terminated
        return self._frame, reward, terminated, truncated, self._info(events, state)

    def render(self):
        return self._frame

    def _draw(self) -> np.ndarray:
        """The frame of the chosen view (once per reset and step: at night both views draw the same
        numbers from the world's random state, so the simulation does not depend on the view)."""
        if self._eyes is None:
            return self.core.render()
        self.first_person = self._eyes.render(self.core._world, self.core._player)
        return self.first_person.frame

    def _snapshot(self) -> WorldState:
        """The state after the frame is drawn: in first person, what is in view is what the frame shows,
        and `shares` how much of it each kind fills."""
        world, player = self.core._world, self.core._player
        if self._eyes is None:
            return snapshot(world, player, self.core._step)
        shown, shares = view_contents(self.first_person, world, player)
        state = snapshot(world, player, self.core._step, shown)
        state.shares = shares
        return state

    # -- hooks for what runs on top of the simulator ---------------------------------------
    def _outcome(self, state: WorldState, events: list[str]) -> tuple[float, bool]:
        """(reward, whether the episode ends) after a step; the bare simulator gives (0.0, False)."""
        return 0.0, False

    def _info(self, events: list[str], state: WorldState) -> dict:
        return {"events": events, "inventory": dict(state.inventory), "daylight": state.daylight,
                "world_seed": self.world_seed, "step": state.step}

    # -- initial conditions ------------------------------------------------------------------
    def _facing_object(self):
        player = self.core._player
        return self.core._world[player.pos + np.array(player.facing)][1]

    @staticmethod
    def _time_offset(time, rng) -> int:
        if time is None:
            return int(TIME_OFFSETS["day"])
        if isinstance(time, (int, float)):
            return int(time)
        if time == "any":
            return int(rng.randint(0, 300))
        if time not in TIME_OFFSETS:
            raise ValueError(f"expected init time in {sorted(TIME_OFFSETS)}, 'any' or a step, got {time!r}")
        return TIME_OFFSETS[time]

    def _apply_init(self, init: dict, rng: np.random.RandomState) -> None:
        player = self.core._player
        if self.spawn_jitter or init.get("spawn_jitter"):
            self._jitter_spawn(int(init.get("spawn_jitter", self.spawn_jitter)), rng)
        inventory = dict(DEFAULT_VITALS)
        if init.get("naive", False):  # MCU naive initialisation: empty inventory
            inventory.update({k: 0 for k, v in constants.items.items() if k not in ("health", "food", "drink", "energy")})
        inventory.update(init.get("inventory", {}))
        for item, amount in inventory.items():
            if item not in player.inventory:
                raise ValueError(f"unknown inventory item {item!r}; expected one of {sorted(player.inventory)}")
            player.inventory[item] = int(amount)
        player._last_health = player.health
        self.core._last_health = player.health
        if "facing" in init:
            player.facing = tuple(init["facing"])
        self._placed: set = set()
        self.spawn_found: bool | None = None  # set by a spawn condition
        if "spawn" in init:
            self._spawn(init["spawn"], rng)
        for entry in init.get("place", []):
            self._place(entry, rng)

    def _jitter_spawn(self, radius: int, rng) -> None:
        world, player = self.core._world, self.core._player
        for _ in range(50):
            pos = player.pos + rng.randint(-radius, radius + 1, size=2)
            if world[pos][0] in ("grass", "sand", "path") and world[pos][1] is None and 4 <= pos.min() and pos.max() < AREA[0] - 4:
                world.move(player, pos)
                return

    def _spawn(self, spec: dict, rng) -> None:
        """Move the player to the free walkable tile nearest the spawn that stands on `floor` and has
        every `near` kind (material or creature) within its Manhattan distance (ties: at random). A
        world without such a tile gets one made at the spawn: the floor laid under the player, the
        kinds placed within their distances. `self.spawn_found` says which happened."""
        if not isinstance(spec, dict) or not spec or set(spec) - set(SPAWN_KEYS):
            raise ValueError(f"expected init spawn: a mapping of {list(SPAWN_KEYS)}, got {spec!r}")
        near, floor = dict(spec.get("near") or {}), spec.get("floor")
        if floor is not None and floor not in constants.walkable:
            raise ValueError(f"spawn floor must be walkable, one of {sorted(constants.walkable)}; got {floor!r}")
        for kind, d in near.items():
            if kind not in constants.materials and kind not in ("cow", "zombie", "skeleton", "plant"):
                raise ValueError(f"cannot spawn near {kind!r}; expected a material or cow/zombie/skeleton/plant")
            if not isinstance(d, int) or d < 1:
                raise ValueError(f"spawn near {kind}: expected a distance >= 1, got {d!r}")
        world, player = self.core._world, self.core._player
        mat, ids = world._mat_map, world._mat_ids
        ok = np.isin(mat, [ids[m] for m in ([floor] if floor else constants.walkable)]) & (world._obj_map == 0)
        ok[:4], ok[-4:], ok[:, :4], ok[:, -4:] = False, False, False, False
        cand = np.argwhere(ok)
        for kind, d in near.items():
            if kind in ids:
                targets = np.argwhere(mat == ids[kind])
            else:
                targets = np.array([o.pos for o in world.objects if type(o).__name__.lower() == kind]).reshape(-1, 2)
            if len(targets) == 0 or len(cand) == 0:
                cand = cand[:0]
                break
            dist = np.full(len(cand), np.iinfo(np.int64).max)
            for chunk in np.array_split(targets, max(1, len(targets) // 256)):
                dist = np.minimum(dist, np.abs(cand[:, None, :] - chunk[None]).sum(-1).min(1))
            cand = cand[dist <= d]
        self.spawn_found = bool(len(cand))
        if self.spawn_found:
            gap = np.abs(cand - player.pos).sum(1)
            best = cand[gap == gap.min()]
            world.move(player, best[rng.randint(len(best))])
            return
        if floor is not None:
            world[player.pos] = floor
        for kind, d in near.items():
            self._place({"what": kind, "distance": [1, d]}, rng)

    def _place(self, entry: dict, rng) -> None:
        """Place `count` blocks or creatures at `at: [dx, dy]` or at random within `distance: [lo, hi]`."""
        world, player = self.core._world, self.core._player
        kind = entry["what"]
        count = int(entry.get("count", 1))
        under = entry.get("on", "grass" if kind in ("cow", "zombie", "plant") else "path")
        w, h = entry.get("area", (1, 1))
        if "at" not in entry:
            # An area's distance is that of its nearest tile: a lake "6 to 8 tiles away" must not
            # reach back to the player's side.
            lo, hi = entry.get("distance", [2, 5])
            candidates = [(dx, dy) for dx in range(-hi - w + 1, hi + 1) for dy in range(-min(hi, 4) - h + 1, min(hi, 4) + 1)
                          if lo <= _nearest_of_area(dx, dy, w, h) <= hi]
        for i in range(count):
            if "at" in entry:
                offsets = [tuple(entry["at"][i]) if isinstance(entry["at"][0], (list, tuple)) else tuple(entry["at"])]
            else:
                offsets = list(candidates)  # each placement shuffles the same candidates afresh
                rng.shuffle(offsets)
            for dx, dy in offsets:
                pos = player.pos + np.array((dx, dy))
                if not (1 <= pos[0] < AREA[0] - 1 and 1 <= pos[1] < AREA[1] - 1) or (dx, dy) == (0, 0):
                    continue
                if "at" not in entry and (tuple(pos) in self._placed or any(
                        (pos[0] + ex, pos[1] + ey) in self._placed for ex in (-1, 0, 1) for ey in (-1, 0, 1))):
                    continue  # random placements keep off (and one tile clear of) earlier ones
                obj = world[pos][1]
                if obj is not None:
                    if "at" not in entry:
                        continue
                    world.remove(obj)
                if kind in ("cow", "zombie", "skeleton", "plant"):
                    world[pos] = under
                    new = make_object(world, kind, pos, player)
                    if kind == "plant" and entry.get("ripe"):
                        new.grown = 400
                    world.add(new)
                else:
                    if kind not in constants.materials:
                        raise ValueError(f"cannot place {kind!r}; expected a material or cow/zombie/skeleton/plant")
                    for ax in range(w):
                        for ay in range(h):
                            q = pos + np.array((ax, ay))
                            if (q == player.pos).all() or not (1 <= q[0] < AREA[0] - 1 and 1 <= q[1] < AREA[1] - 1):
                                continue
                            if world[q][1] is not None:
                                world.remove(world[q][1])
                            world[q] = kind
                            self._placed.add(tuple(int(v) for v in q))
                self._placed.add(tuple(int(v) for v in pos))
                break




def _nearest_of_area(dx: int, dy: int, w: int, h: int) -> int:
    """Manhattan distance from the player to the nearest tile of a w x h area whose corner is at (dx, dy)."""
    return min(abs(dx + ax) + abs(dy + ay) for ax in range(w) for ay in range(h))
