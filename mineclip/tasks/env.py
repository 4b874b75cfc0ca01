"""A gymnasium environment over crafter: egocentric RGB 160x256 (16-px tiles), tasks, seeded resets.

The frame is the crafter view of 16x10 tiles at exactly 16 px each: 16x9 tiles of world around
the player and one row of inventory bar at the bottom (kept in view so items are visible).
"""

from __future__ import annotations

from collections import Counter, OrderedDict

import crafter
import gymnasium as gym
import numpy as np
from crafter import constants, objects, worldgen

from .spec import TaskSpec, compile_criterion
from .state import EpisodeContext, snapshot, step_events, object_kind

TILE = 16
VIEW = (16, 10)
FRAME_SIZE = (256, 160)  # crafter's (width, height)
AREA = (64, 64)
ACTIONS: list[str] = list(constants.actions)
ACTION_IDS = {name: i for i, name in enumerate(ACTIONS)}
DEFAULT_VITALS = {"food": 6, "drink": 6}  # below full so that eating and drinking change the bar
TIME_OFFSETS = {"day": 30, "noon": 60, "dusk": 150, "night": 195, "dawn": 250}
_WORLD_CACHE: "OrderedDict[int, tuple]" = OrderedDict()
WORLD_CACHE_SIZE = 128


_TEXTURES = {}


def _shared_textures(directory):
    """crafter loads every texture PNG per Env (~0.2 s); load them once per process."""
    key = str(directory)
    if key not in _TEXTURES:
        _TEXTURES[key] = _OriginalTextures(directory)
    return _TEXTURES[key]


_OriginalTextures = crafter.engine.Textures


class _Core(crafter.Env):
    """crafter.Env with a settable time of day and shared textures."""

    time_offset = 0

    def __init__(self, **kwargs):
        crafter.env.engine.Textures = _shared_textures
        try:
            super().__init__(**kwargs)
        finally:
            crafter.env.engine.Textures = _OriginalTextures

    def _update_time(self):
        progress = ((self._step + self.time_offset) / 300) % 1 + 0.3
        self._world.daylight = 1 - np.abs(np.cos(np.pi * progress)) ** 3

    def render(self, size=None):
        """crafter's picture, drawn with one texture-atlas lookup instead of a per-tile loop."""
        world, player, unit = self._world, self._player, TILE
        grid = self._local_view._grid
        atlas = self._atlas()
        x0, y0 = int(player.pos[0]) - grid[0] // 2, int(player.pos[1]) - grid[1] // 2
        ids = np.full((grid[0], grid[1]), len(atlas) - 1, np.int64)
        xs0, ys0 = max(x0, 0), max(y0, 0)
        xs1, ys1 = min(x0 + grid[0], world.area[0]), min(y0 + grid[1], world.area[1])
        ids[xs0 - x0:xs1 - x0, ys0 - y0:ys1 - y0] = world._mat_map[xs0:xs1, ys0:ys1]
        canvas = atlas[ids].transpose(0, 2, 1, 3, 4).reshape(grid[0] * unit, grid[1] * unit, 3)
        for obj in world.objects:
            ox, oy = int(obj.pos[0]) - x0, int(obj.pos[1]) - y0
            if 0 <= ox < grid[0] and 0 <= oy < grid[1]:
                crafter.engine._draw_alpha(canvas, (ox * unit, oy * unit), self._textures.get(obj.texture, (unit, unit)))
        canvas = self._light(canvas, world.daylight)
        if player.sleeping:
            canvas = self._local_view._sleep(canvas)
        items = self._item_view(player.inventory, np.array((unit, unit)))
        view = np.concatenate([canvas, items], 1).astype(np.uint8)
        return np.ascontiguousarray(view.transpose((1, 0, 2)))

    def _balance_object(self, chunk, objs, cls, material, span_dist, despan_dist,
                        spawn_prob, despawn_prob, ctor, target_fn):
        # crafter's own, except that creatures are taken in position order: crafter lists them
        # from a set (memory-address order), which made despawning irreproducible
        xmin, xmax, ymin, ymax = chunk
        random = self._world.random
        creatures = sorted((obj for obj in objs if isinstance(obj, cls)), key=lambda o: (int(o.pos[0]), int(o.pos[1])))
        mask = self._world.mask(*chunk, material)
        target_min, target_max = target_fn(len(creatures), mask.sum())
        if len(creatures) < int(target_min) and random.uniform() < spawn_prob:
            xs = np.tile(np.arange(xmin, xmax)[:, None], [1, ymax - ymin])
            ys = np.tile(np.arange(ymin, ymax)[None, :], [xmax - xmin, 1])
            xs, ys = xs[mask], ys[mask]
            i = random.randint(0, len(xs))
            pos = np.array((xs[i], ys[i]))
            empty = self._world[pos][1] is None
            away = self._player.distance(pos) >= span_dist
            if empty and away:
                self._world.add(ctor(pos))
        elif len(creatures) > int(target_max) and random.uniform() < despawn_prob:
            obj = creatures[random.randint(0, len(creatures))]
            away = self._player.distance(obj.pos) >= despan_dist
            if away:
                self._world.remove(obj)

    def _atlas(self) -> np.ndarray:
        names = self._world._mat_names
        if getattr(self, "_atlas_cache", None) is None or len(self._atlas_cache) != len(names) + 1:
            tiles = [self._textures.get(names[i], (TILE, TILE))[..., :3] for i in range(len(names))]
            tiles.append(np.full((TILE, TILE, 3), 127, np.uint8))
            self._atlas_cache = np.stack(tiles).astype(np.uint8)
        return self._atlas_cache

    def _light(self, canvas: np.ndarray, daylight: float) -> np.ndarray:
        """crafter's day/night shading (noise, desaturation, blue tint), vectorised."""
        if daylight >= 1.0:
            return canvas
        night = canvas.astype(np.float32)
        if daylight < 0.5:
            noise = self._world.random.uniform(32, 127, canvas.shape[:2])[..., None]
            mask = 2 * (0.5 - daylight) * self._local_view._vignette(canvas.shape, 0.5)[..., None]
            night = (1 - mask) * night + mask * noise
        night = night.astype(np.uint8).astype(np.float32)
        gray = np.floor(night @ np.array([0.299, 0.587, 0.114], np.float32) + 0.5)[..., None]
        night = np.clip(np.floor(gray + 0.4 * (night - gray) + 0.5), 0, 255)
        night = 0.5 * night + 0.5 * np.array((0, 16, 64), np.float32)
        return daylight * canvas + (1 - daylight) * night


def _save_world(world) -> tuple:
    objs = []
    for obj in world.objects:
        if isinstance(obj, objects.Player):
            continue
        extra = {k: getattr(obj, k) for k in ("grown", "cooldown", "reload", "facing") if hasattr(obj, k)}
        objs.append((type(obj), tuple(int(v) for v in obj.pos), obj.health, extra))
    return world._mat_map.copy(), objs


def _load_world(world, player, saved: tuple) -> None:
    mat_map, objs = saved
    world._mat_map[...] = mat_map
    for cls, pos, health, extra in objs:
        obj = cls(world, pos, player) if cls in (objects.Zombie, objects.Skeleton) else (
            cls(world, pos, extra["facing"]) if cls is objects.Arrow else cls(world, pos))
        obj.health = health
        for k, v in extra.items():
            setattr(obj, k, v)
        if world[pos][1] is None:
            world.add(obj)


def _make_object(world, kind: str, pos, player):
    cls = {"cow": objects.Cow, "zombie": objects.Zombie, "skeleton": objects.Skeleton, "plant": objects.Plant}[kind]
    return cls(world, pos, player) if kind in ("zombie", "skeleton") else cls(world, pos)


class CrafterTaskEnv(gym.Env):
    """One task on crafter as a gymnasium env: obs uint8 [160, 256, 3], 17 discrete actions.

    `reset(seed=s)` draws the world seed `s` (or `options["world_seed"]`) and the episode's
    randomness from `s`; the same seed gives the same episode. Generated worlds are cached per
    world seed (`reuse_worlds`) because crafter's world generation costs ~0.5 s.
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 8}

    def __init__(
        self,
        task: TaskSpec | str | None = None,
        *,
        max_steps: int | None = None,
        dense_reward: bool = True,
        terminate_on_success: bool = True,
        reuse_worlds: bool = True,
        spawn_jitter: int = 0,
        render_mode: str | None = "rgb_array",
    ):
        from .registry import get_task

        if isinstance(task, str):
            task = get_task(task)
        self.task = task
        self.max_steps = max_steps or (task.max_steps if task else 100)
        self.dense_reward = dense_reward
        self.terminate_on_success = terminate_on_success
        self.reuse_worlds = reuse_worlds
        self.spawn_jitter = spawn_jitter
        self.render_mode = render_mode
        self._criterion = compile_criterion(task.success) if task is not None and task.success else None
        self.core = _Core(area=AREA, view=VIEW, size=FRAME_SIZE, reward=False, length=None, seed=0)
        self.observation_space = gym.spaces.Box(0, 255, (FRAME_SIZE[1], FRAME_SIZE[0], 3), np.uint8)
        self.action_space = gym.spaces.Discrete(len(ACTIONS))
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
    def state(self):
        return self.context.state

    # -- gymnasium API ----------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        options = dict(options or {})
        episode_seed = int(self.np_random.integers(0, 2**31 - 1)) if seed is None else int(seed)
        self.world_seed = int(options.get("world_seed", episode_seed))
        rng = np.random.RandomState(episode_seed % (2**32))
        core, world = self.core, self.core._world
        init = dict(self.task.init) if self.task else {}
        init.update(options.get("init", {}))

        world.reset(seed=self.world_seed % (2**31 - 1))
        core._step = 0
        core.time_offset = self._time_offset(init.get("time"), rng)
        core._update_time()
        center = (world.area[0] // 2, world.area[1] // 2)
        player = objects.Player(world, center)
        world.add(player)
        cached = _WORLD_CACHE.get(self.world_seed) if self.reuse_worlds else None
        if cached is None:
            worldgen.generate_world(world, player)
            if self.reuse_worlds:
                _WORLD_CACHE[self.world_seed] = _save_world(world)
                while len(_WORLD_CACHE) > WORLD_CACHE_SIZE:
                    _WORLD_CACHE.popitem(last=False)
        else:
            _WORLD_CACHE.move_to_end(self.world_seed)
            _load_world(world, player, cached)
        world.random.seed(episode_seed % (2**32))  # in place: objects keep their reference
        core._player, core._last_health, core._unlocked = player, player.health, set()
        self._apply_init(init, rng)
        self._nav_best = None

        state = snapshot(world, player, 0)
        self.context = EpisodeContext(
            start=state, state=state, start_map=world._mat_map.copy(), world_map=world._mat_map,
            material_ids=dict(world._mat_ids), events=Counter(),
            start_plants={tuple(int(v) for v in o.pos) for o in world.objects if object_kind(o) == "plant"})
        self._success = False
        self._frame = core.render()
        return self._frame, self._info([], state)

    def step(self, action):
        if self.context is None:
            raise RuntimeError("call reset() before step()")
        action = int(action)
        if not 0 <= action < len(ACTIONS):
            raise ValueError(f"expected an action in [0, {len(ACTIONS)}), got {action}")
        core, world, player = self.core, self.core._world, self.core._player
        prev = self.context.state
        name = ACTIONS[action]
        target = self._facing_object()
        target_health = target.health if target is not None else None

        core._step += 1
        core._update_time()
        player.action = name
        for obj in world.objects:
            if player.distance(obj) < 2 * max(core._view):
                obj.update()
        if core._step % 10 == 0:
            for chunk, objs in world.chunks.items():
                core._balance_chunk(chunk, objs)

        hit = None
        if name == "do" and target is not None and object_kind(target) in ("cow", "zombie", "skeleton"):
            if target.health < target_health:
                hit = object_kind(target)
        state = snapshot(world, player, core._step)
        events = step_events(prev, state, name, hit)
        ctx = self.context
        ctx.state = state
        ctx.events.update(events)

        newly = False
        if self._criterion is not None and not self._success and self._criterion(ctx):
            self._success = newly = True
        reward = self._reward(state, events, newly)
        dead = player.health <= 0
        terminated = dead or (self._success and self.terminate_on_success)
        truncated = core._step >= self.max_steps and not terminated
        self._frame = core.render()
        return self._frame, reward, terminated, truncated, self._info(events, state)

    def render(self):
        return self._frame

    def judge(self) -> bool:
        """The label of the episode so far: the success criterion, or the creative task's oracle.

        Oracles are for labelling recorded play only; agents never see them."""
        if self._criterion is not None:
            return self._success
        if self.task is not None and self.task.oracle:
            from .oracles import judge

            return judge(self.task.oracle, self.context, self.world)
        return False

    # -- helpers ---------------------------------------------------------------------------
    def _info(self, events: list[str], state) -> dict:
        info = {"events": events, "inventory": dict(state.inventory), "daylight": state.daylight,
                "world_seed": self.world_seed, "step": state.step}
        if self._criterion is not None:
            info["success"] = self._success
        return info

    def _facing_object(self):
        player = self.core._player
        return self.core._world[player.pos + np.array(player.facing)][1]

    def _reward(self, state, events: list[str], newly_succeeded: bool) -> float:
        spec = (self.task.reward if self.task else None) or {}
        if not self.dense_reward or not spec:
            return 1.0 if newly_succeeded else 0.0
        reward = 0.0
        kind = spec.get("navigate")
        if kind:
            d = state.distance(kind)
            if d != float("inf"):
                if self._nav_best is not None:
                    reward += 10.0 * max(self._nav_best - d, 0.0)
                self._nav_best = d if self._nav_best is None else min(self._nav_best, d)
        hit = spec.get("hit")
        if hit and f"hit_{hit}" in events:
            reward += float(spec.get("hit_bonus", 5.0))
        if newly_succeeded:
            reward += float(spec.get("success", 200.0))
        return reward

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
        for entry in init.get("place", []):
            self._place(entry, rng)

    def _jitter_spawn(self, radius: int, rng) -> None:
        world, player = self.core._world, self.core._player
        for _ in range(50):
            pos = player.pos + rng.randint(-radius, radius + 1, size=2)
            if world[pos][0] in ("grass", "sand", "path") and world[pos][1] is None and 4 <= pos.min() and pos.max() < AREA[0] - 4:
                world.move(player, pos)
                return

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
                    new = _make_object(world, kind, pos, player)
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


def make_env(task_id: str, **kwargs) -> CrafterTaskEnv:
    """Build the environment for a registered crafter task."""
    return CrafterTaskEnv(task_id, **kwargs)
