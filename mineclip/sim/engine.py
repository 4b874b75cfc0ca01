"""crafter, patched for this project: 16-px tiles at 160x256, a settable time of day, shared
textures, a vectorised renderer (texture atlas, in-place lighting, inventory bar drawn once per
inventory), reproducible creature balancing, and a cache of generated worlds.

The frame is the crafter view of 16x10 tiles at exactly 16 px each: 16x9 tiles of world around
the player and one row of inventory bar at the bottom (kept in view so items are visible).
"""

from __future__ import annotations

from collections import OrderedDict

import crafter
import numpy as np
from numba import njit
from crafter import constants, objects, worldgen

from mineclip.model.config import RESOLUTION

TILE = 16
VIEW = (16, 10)
FRAME_SIZE = (RESOLUTION[1], RESOLUTION[0])  # crafter's (width, height): the model's frame
AREA = (64, 64)
ACTIONS: list[str] = list(constants.actions)
ACTION_IDS = {name: i for i, name in enumerate(ACTIONS)}
DEFAULT_VITALS = {"food": 6, "drink": 6}  # below full so that eating and drinking change the bar
TIME_OFFSETS = {"day": 30, "noon": 60, "dusk": 150, "night": 195, "dawn": 250}
_WORLD_CACHE: "OrderedDict[int, tuple]" = OrderedDict()
WORLD_CACHE_SIZE = 128
ITEMS_CACHE_SIZE = 64  # inventory bars kept per environment


_TEXTURES = {}


def _shared_textures(directory):
    """crafter loads every texture PNG per Env (~0.2 s); load them once per process."""
    key = str(directory)
    if key not in _TEXTURES:
        _TEXTURES[key] = _OriginalTextures(directory)
    return _TEXTURES[key]


_OriginalTextures = crafter.engine.Textures


class CrafterCore(crafter.Env):
    """crafter.Env with a settable time of day and shared textures."""

    time_offset = 0

    def __init__(self, **kwargs):
        crafter.env.engine.Textures = _shared_textures
        try:
            super().__init__(**kwargs)
        finally:
            crafter.env.engine.Textures = _OriginalTextures
        self._items_cache: OrderedDict[tuple, np.ndarray] = OrderedDict()  # inventory -> its bar

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
            canvas = self._local_view._sleep(canvas).astype(np.uint8)
        return _frame(canvas, self._items(player.inventory))

    def _items(self, inventory: dict) -> np.ndarray:
        """crafter's inventory bar, drawn once per distinct inventory (it changes a few times an episode)."""
        cache, key = self._items_cache, tuple(inventory.items())
        if key not in cache:
            bar = self._item_view(inventory, np.array((TILE, TILE)))
            bar.flags.writeable = False
            cache[key] = bar
            if len(cache) > ITEMS_CACHE_SIZE:
                cache.popitem(last=False)
        return cache[key]

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
        """crafter's day/night shading (noise, desaturation, blue tint), vectorised, as uint8.

        The float arithmetic is that of the first vectorised version (float32 night, float64 mix,
        truncated to uint8 as the frame is), done in place: frames are byte-identical to it
        (tests/sim/test_sim_render.py keeps that version as the reference)."""
        if daylight >= 1.0:
            return canvas
        canvas = np.ascontiguousarray(canvas)  # the kernel walks every array as one flat run
        if daylight < 0.5:
            noise = self._world.random.uniform(32, 127, canvas.shape[:2])
            night = _noisy_night(canvas, 2 * (0.5 - daylight), self._local_view._vignette(canvas.shape, 0.5), noise)
        else:
            night = canvas.astype(np.float32)
        gray = night @ np.array([0.299, 0.587, 0.114], np.float32)
        return _mix_night(canvas, night, gray, float(daylight))


@njit(cache=True)
def _frame(canvas, items):
    """The [X, Y, 3] canvas and the [X, Y', 3] inventory bar below it as one [Y + Y', X, 3] frame:
    numpy's transposed copy of 3-byte pixels took 0.24 ms a frame, an eighth of a top-down step,
    this loop 0.04 (2026-11-30, the Intel Xeon host); the same bytes."""
    width, rows, bar = canvas.shape[0], canvas.shape[1], items.shape[1]
    out = np.empty((rows + bar, width, 3), np.uint8)
    for x in range(width):
        for y in range(rows):
            out[y, x, 0], out[y, x, 1], out[y, x, 2] = canvas[x, y, 0], canvas[x, y, 1], canvas[x, y, 2]
        for y in range(bar):
            out[rows + y, x, 0], out[rows + y, x, 1], out[rows + y, x, 2] = items[x, y, 0], items[x, y, 1], items[x, y, 2]
    return out


@njit(cache=True, error_model="numpy")
def _noisy_night(canvas, strength, vignette, noise):
    """`_light`'s night below daylight 0.5: each pixel (1 - mask) of itself and mask of the noise,
    mask = strength x crafter's vignette, in float64 as numpy's passes did (canvas x (1 - mask),
    plus mask x noise), truncated to uint8 and returned as float32; four passes and their float64
    temporaries made one."""
    width, rows = canvas.shape[0], canvas.shape[1]
    out = np.empty((width, rows, 3), np.float32)
    for x in range(width):
        for y in range(rows):
            m = strength * vignette[x, y]
            keep, grain = 1.0 - m, m * noise[x, y]
            for c in range(3):
                out[x, y, c] = np.float32(np.uint8(np.float64(canvas[x, y, c]) * keep + grain))
    return out


@njit(cache=True, error_model="numpy")
def _mix_night(canvas, night, gray, daylight):
    """The rest of `_light` per pixel, in the dtypes and order of its numpy version: float32 gray
    rounded, desaturated, rounded, clipped and tinted, mixed with the day in float64 and truncated
    to uint8. No fastmath, so no contraction into fused multiply-adds: every pixel is bit-identical
    to the numpy passes (tests/sim/test_sim_render.py). Ten passes over the frame made one: `_light`
    at night 0.71 -> 0.35 ms a frame (the noise drawn in numpy is 0.21 of it), a top-down step 2.21
    -> 1.82 ms (process time of one thread, 2026-11-29); the evaluation set's night scenes spent a
    third of their recording in `_light`. One flat loop over the pixels with the three channels
    written out (no per-channel tuple lookup) lets LLVM vectorise it: 0.39 -> 0.09 ms a 160x256
    frame (2026-11-30, the Intel Xeon host; the same bytes on random frames and every daylight)."""
    h, w = canvas.shape[0], canvas.shape[1]
    out = np.empty((h, w, 3), np.uint8)
    rgb, lit, grey, flat = canvas.reshape(h * w * 3), night.reshape(h * w * 3), gray.reshape(h * w), out.reshape(h * w * 3)
    half, keep = np.float32(0.5), np.float32(0.4)
    low, high = np.float32(0.0), np.float32(255.0)
    green_tint, blue_tint = np.float32(8.0), np.float32(32.0)
    day, dusk = np.float64(daylight), 1.0 - np.float64(daylight)
    for p in range(h * w):
        g = np.floor(grey[p] + half)
        k = 3 * p
        red = min(max(np.floor((lit[k] - g) * keep + g + half), low), high) * half  # the red tint is 0
        green = min(max(np.floor((lit[k + 1] - g) * keep + g + half), low), high) * half + green_tint
        blue = min(max(np.floor((lit[k + 2] - g) * keep + g + half), low), high) * half + blue_tint
        flat[k] = np.uint8(np.float64(rgb[k]) * day + np.float64(red) * dusk)
        flat[k + 1] = np.uint8(np.float64(rgb[k + 1]) * day + np.float64(green) * dusk)
        flat[k + 2] = np.uint8(np.float64(rgb[k + 2]) * day + np.float64(blue) * dusk)
    return out


def save_world(world) -> tuple:
    """Materials and creatures of a generated world (everything but the player), to restore later."""
    objs = []
    for obj in world.objects:
        if isinstance(obj, objects.Player):
            continue
        extra = {k: getattr(obj, k) for k in ("grown", "cooldown", "reload", "facing") if hasattr(obj, k)}
        objs.append((type(obj), tuple(int(v) for v in obj.pos), obj.health, extra))
    return world._mat_map.copy(), objs


def load_world(world, player, saved: tuple) -> None:
    """Put a saved world back into `world` around `player`."""
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


def make_object(world, kind: str, pos, player):
    """A new creature or plant of a kind at pos (not yet added to the world)."""
    cls = {"cow": objects.Cow, "zombie": objects.Zombie, "skeleton": objects.Skeleton, "plant": objects.Plant}[kind]
    return cls(world, pos, player) if kind in ("zombie", "skeleton") else cls(world, pos)


def generate_world(world, player, world_seed: int, reuse: bool = True) -> None:
    """Fill a freshly reset world around `player`: crafter's generator, or the cached result of an
    earlier generation of the same seed (crafter's generation costs ~0.5 s per world)."""
    cached = _WORLD_CACHE.get(world_seed) if reuse else None
    if cached is None:
        worldgen.generate_world(world, player)
        if reuse:
            _WORLD_CACHE[world_seed] = save_world(world)
            while len(_WORLD_CACHE) > WORLD_CACHE_SIZE:
                _WORLD_CACHE.popitem(last=False)
    else:
        _WORLD_CACHE.move_to_end(world_seed)
        load_world(world, player, cached)
