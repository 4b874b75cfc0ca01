"""The renderer's in-place lighting and cached inventory bar draw the same bytes as before, and the
step's faster object loop updates the objects crafter's own loop updates.

Training clips and evaluation videos are byte-identical from clone to clone, and the README's
measurements rest on them, so a faster renderer must not move a single pixel. `reference_light`
is the vectorised lighting as it was before the in-place version (float64 result, truncated to
uint8 with the inventory bar); each frame is drawn by both from the same world RNG state."""

import numpy as np
import pytest

from mineclip.sim.engine import TILE, CrafterCore
from mineclip.sim.env import CrafterEnv


def reference_light(self, canvas, daylight):
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


def reference_frame(core: CrafterCore, monkeypatch) -> np.ndarray:
    with monkeypatch.context() as m:
        m.setattr(CrafterCore, "_light", reference_light)
        m.setattr(CrafterCore, "_items", lambda self, inv: self._item_view(inv, np.array((TILE, TILE))))
        return core.render().astype(np.uint8)


@pytest.mark.parametrize("time", [0, 100, 150, 195, 250])  # daylight 0.80, 0.93; 0.47, 0.04, 0.24 (over noise)
def test_frames_equal_the_reference_renderer_by_day_at_night_and_asleep(time, monkeypatch):
    env = CrafterEnv(init={"time": time, "inventory": {"wood": 3, "sapling": 1}}, max_steps=200)
    env.reset(seed=5)
    rng = np.random.RandomState(time)
    core, checked, bars = env.core, 0, set()
    for t in range(60):
        env.step(int(rng.randint(17)))
        if t == 40:
            core._player.sleeping = True  # the sleep view's desaturation and tint on top of the light
        state = core._world.random.get_state()
        ours = core.render()
        core._world.random.set_state(state)  # the night noise draws the same numbers again
        ref = reference_frame(core, monkeypatch)
        assert ours.dtype == np.uint8 and ours.shape == (160, 256, 3)
        assert np.array_equal(ours, ref), f"frame {t} at time {time} (daylight {core._world.daylight:.3f})"
        checked += 1
        bars.add(tuple(core._player.inventory.items()))
    assert checked == 60 and len(bars) > 1  # the inventory changed, so the cached bar was redrawn


def test_cached_inventory_bar_is_read_only_and_follows_the_inventory():
    env = CrafterEnv(init={"inventory": {"wood": 2}})
    env.reset(seed=1)
    core = env.core
    bar = core._items(core._player.inventory)
    assert not bar.flags.writeable and core._items(core._player.inventory) is bar
    core._player.inventory["wood"] = 5
    other = core._items(core._player.inventory)
    assert other is not bar and not np.array_equal(other, bar)


def crafter_update_objects(self):
    """crafter's own loop of `Env.step`: numpy's `player.distance` per object."""
    player = self.core._player
    for obj in self.core._world.objects:
        if player.distance(obj) < 2 * max(self.core._view):
            obj.update()


@pytest.mark.parametrize("seed,time", [(2, 0), (7, 180)])  # by day, and at night when zombies come
def test_the_world_steps_as_crafters_own_object_loop_steps_it(seed, time, monkeypatch):
    """The faster distance test of `_update_objects` updates the same objects as crafter's: two
    environments, one with crafter's loop, play the same actions to the same frames and objects."""
    ours, theirs = (CrafterEnv(init={"time": time}, max_steps=400) for _ in range(2))
    ours.reset(seed=seed)
    theirs.reset(seed=seed)
    rng = np.random.RandomState(seed)
    for t in range(300):
        action = int(rng.randint(17))
        a = ours.step(action)[0]
        with monkeypatch.context() as m:
            m.setattr(CrafterEnv, "_update_objects", crafter_update_objects)
            b = theirs.step(action)[0]
        places = [[(type(o).__name__, *o.pos.tolist()) for o in env.core._world.objects] for env in (ours, theirs)]
        assert places[0] == places[1] and np.array_equal(a, b), f"step {t}"
