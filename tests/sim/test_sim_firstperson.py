"""The first-person renderer draws the world where its projection says, hides what is behind
blocks, labels every pixel with what it draws, shades the night as crafter does, and gives the
same bytes in every process."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from crafter import objects

from mineclip.sim import firstperson as fp
from mineclip.sim.env import CrafterEnv
from mineclip.sim.firstperson import (FRAME_SHAPE, KIND_IDS, WORLD_ROWS, FirstPersonRenderer, load_atlas, project,
                                      visible_share)
from mineclip.sim.view import turn

CENTRE = FRAME_SHAPE[1] // 2
MAGENTA = np.array((255, 0, 255), np.uint8)


def flat_world(facing=(0, 1), radius=int(fp.MAX_DEPTH) + 1):
    """A reset environment whose player stands on open grass (no blocks or creatures within
    `radius` tiles), at noon (daylight 1: no shading), facing `facing`."""
    env = CrafterEnv(init={"time": "noon", "facing": list(facing)}, view="first_person", max_steps=1000)
    env.reset(seed=0)
    world, player = env.world, env.player
    for obj in world.objects:
        if obj is not player and np.abs(obj.pos - player.pos).max() <= radius:
            world.remove(obj)
    px, py = (int(v) for v in player.pos)
    world._mat_map[px - radius:px + radius + 1, py - radius:py + radius + 1] = world._mat_ids["grass"]
    world.daylight = 1.0
    return env


def ahead(env, forward, right=0):
    """The tile `forward` tiles ahead of the player and `right` tiles to its right."""
    f, r = np.array(env.player.facing), np.array(turn(env.player.facing, "right"))
    return tuple(int(v) for v in env.player.pos + forward * f + right * r)


def add(env, kind, pos):
    cls = {"cow": objects.Cow, "plant": objects.Plant}.get(kind)
    if cls is not None:
        env.world.add(cls(env.world, pos))
    elif kind == "zombie":
        env.world.add(objects.Zombie(env.world, pos, env.player))
    else:
        env.world[pos] = kind


def look(env, renderer=None):
    return (renderer or FirstPersonRenderer()).render(env.world, env.player)


def pixel_rows(top: float, bottom: float) -> set[int]:
    """World rows whose pixel centre lies between two projected rows."""
    return {r for r in range(WORLD_ROWS) if top <= r + 0.5 <= bottom}


@pytest.mark.parametrize("facing", [(0, 1), (1, 0)])
@pytest.mark.parametrize("forward", [1, 2, 4])
def test_a_block_ahead_covers_the_rows_and_columns_the_projection_predicts(forward, facing):
    # a furnace (1 tile high, above the eye) and a table (0.6, below it: its top shows)
    for kind, high in (("furnace", 1.0), ("table", 0.6)):
        env = flat_world(facing)
        add(env, kind, ahead(env, forward))
        seen = look(env).semantic[:WORLD_ROWS] == KIND_IDS[kind]
        near, far = forward - 0.5, forward + 0.5  # the block's front face and back edge
        top = project(far, height=high)[0] if high < fp.EYE else project(near, height=high)[0]
        assert set(np.nonzero(seen[:, CENTRE])[0]) == pixel_rows(top, project(near)[0])
        row = min(int(project(near, height=high / 2)[0]), WORLD_ROWS - 1)  # a row of the front face
        left, right = project(near, right=-0.5)[1], project(near, right=0.5)[1]
        assert set(np.nonzero(seen[row])[0]) == {c for c in range(FRAME_SHAPE[1]) if left <= c + 0.5 <= right}


def test_a_cows_pixel_count_falls_with_each_tile_from_1_to_8():
    counts = []
    for forward in range(1, 9):
        env = flat_world()
        add(env, "cow", ahead(env, forward))
        counts.append(int((look(env).semantic == KIND_IDS["cow"]).sum()))
    assert all(a > b for a, b in zip(counts, counts[1:])), counts
    assert counts[-1] >= 50  # still plainly visible 8 tiles ahead (about 15 x 10 px)
    scaled = [n * d * d / counts[0] for d, n in enumerate(counts, 1)]  # width and height both shrink as 1/d
    assert all(0.7 < s < 1.3 for s in scaled), scaled


def test_after_a_left_turn_what_was_on_the_left_is_ahead():
    env = flat_world((0, 1))
    add(env, "table", ahead(env, 0, right=-1))
    add(env, "tree", ahead(env, 0, right=1))
    env.step(0)
    assert visible_share(env.first_person.semantic, "table") == 0
    env.step(env.actions.index("turn_left"))
    assert tuple(env.player.facing) == (1, 0) and env.state.facing_kind == "table"
    semantic = env.first_person.semantic[:WORLD_ROWS]
    assert semantic[WORLD_ROWS - 1, CENTRE] == KIND_IDS["table"] and not (semantic == KIND_IDS["tree"]).any()


@pytest.mark.parametrize("kind", ["cow", "zombie", "plant", "water", "lava", "sand", "stone", "tree", "table",
                                  "furnace", "coal", "diamond"])
def test_the_tile_the_player_acts_on_is_in_view(kind):
    env = flat_world((-1, 0))
    add(env, kind, ahead(env, 1))
    out = look(env)
    column = out.semantic[:WORLD_ROWS, CENTRE - 32:CENTRE + 32]
    depth = out.depth[:WORLD_ROWS, CENTRE - 32:CENTRE + 32]
    on_tile = (column == KIND_IDS[kind]) & (depth >= 0.5) & (depth <= 1.5)
    assert on_tile.sum() >= 200, f"{kind} on the facing tile covers {on_tile.sum()} px of the centre"


def test_the_facing_cow_in_view_is_the_one_do_hits():
    env = flat_world((0, -1))
    add(env, "cow", ahead(env, 1))
    out = look(env)
    cows = out.semantic == KIND_IDS["cow"]
    assert cows[:, CENTRE].any() and np.allclose(out.depth[cows], 1.0)
    _, _, _, _, info = env.step(env.actions.index("do"))
    assert "hit_cow" in info["events"]


def test_a_block_hides_a_creature_behind_it():
    env = flat_world()
    add(env, "cow", ahead(env, 3))
    assert visible_share(look(env).semantic, "cow") > 0
    add(env, "stone", ahead(env, 2))
    assert visible_share(look(env).semantic, "cow") == 0
    env = flat_world()  # a low block hides only the lower part of a zombie
    add(env, "zombie", ahead(env, 3))
    whole = visible_share(look(env).semantic, "zombie")
    add(env, "table", ahead(env, 2))
    out = look(env)
    assert 0 < visible_share(out.semantic, "zombie") < whole
    rows = np.nonzero((out.semantic == KIND_IDS["zombie"]).any(1))[0]
    assert rows.max() < np.nonzero((out.semantic == KIND_IDS["table"]).any(1))[0].min()


def scene():
    """Cows near and far, one half behind a stone, one behind a table, on open grass at noon."""
    env = flat_world()
    for forward, right in ((1, 0), (3, -2), (5, 3), (7, 0), (4, 1)):
        add(env, "cow", ahead(env, forward, right))
    add(env, "stone", ahead(env, 3, 1))
    add(env, "table", ahead(env, 6, 0))
    add(env, "zombie", ahead(env, 2, 2))
    add(env, "plant", ahead(env, 2, -1))
    return env


def test_the_semantic_map_calls_cow_exactly_the_pixels_drawn_from_the_cow_texture():
    env = scene()
    atlas = load_atlas()
    cow = atlas.index("cow")
    opaque = atlas.rgba[cow, ..., 3] >= fp.OPAQUE
    atlas.rgba[cow, ..., :3][opaque] = MAGENTA  # a colour no other texture has
    marked = FirstPersonRenderer(atlas=atlas).render(env.world, env.player)
    is_cow = marked.semantic == KIND_IDS["cow"]
    assert is_cow.sum() > 1000
    assert np.array_equal((marked.frame == MAGENTA).all(-1), is_cow)
    real = look(env)
    assert np.array_equal(real.semantic, marked.semantic) and np.array_equal(real.depth, marked.depth)
    palette = {tuple(c) for c in load_atlas().rgba[cow][opaque][:, :3]}
    assert {tuple(c) for c in real.frame[is_cow]} <= palette


def test_sky_hotbar_and_depth_are_labelled():
    out = look(scene())
    assert (out.semantic[WORLD_ROWS:] == KIND_IDS["hotbar"]).all() and (out.depth[WORLD_ROWS:] == 0).all()
    sky = out.semantic == KIND_IDS["sky"]
    assert sky[:, 0].any() and np.isinf(out.depth[sky]).all() and np.isfinite(out.depth[~sky]).all()
    assert set(np.unique(out.semantic)) <= set(range(len(fp.KINDS)))


@pytest.mark.parametrize("daylight", [0.97, 0.6, 0.3, 0.03])
def test_night_is_shaded_as_crafter_shades_the_top_down_frame(daylight):
    env = CrafterEnv()
    env.reset(seed=1)
    core = env.core
    canvas = np.random.RandomState(0).randint(0, 256, (WORLD_ROWS, FRAME_SHAPE[1], 3)).astype(np.uint8)
    state = core._world.random.get_state()
    crafter_night = core._light(canvas.transpose(1, 0, 2), daylight).transpose(1, 0, 2)
    core._world.random.set_state(state)
    noise = core._world.random.uniform(32, 127, (FRAME_SHAPE[1], WORLD_ROWS)) if daylight < 0.5 else fp._NO_NOISE
    ours = np.empty(FRAME_SHAPE + (3,), np.uint8)
    fp._shade(canvas.astype(np.float32), daylight, noise, fp._vignette(), False, ours)
    assert np.abs(ours[:WORLD_ROWS].astype(int) - crafter_night.astype(int)).max() <= 1
    fp._shade(canvas.astype(np.float32), daylight, noise, fp._vignette(), True, ours)
    asleep = core._local_view._sleep(crafter_night).astype(np.uint8)
    assert np.abs(ours[:WORLD_ROWS].astype(int) - asleep.astype(int)).max() <= 1


def reference_shade(rgb, daylight, noise, vignette, sleeping, out):
    """`fp._shade` as it was before its flat loop: pixel by pixel, branching on every one."""
    for r in range(rgb.shape[0]):
        for c in range(rgb.shape[1]):
            # float32 rounding, then float64 as numba typed the variables (numpy would stay in float32)
            red, green, blue = (np.float64(np.floor(rgb[r, c, i] + np.float32(0.5))) for i in range(3))
            if daylight < 1.0:
                nr, ng, nb = red, green, blue
                if noise.shape[0] > 0:
                    mask = 2 * (0.5 - daylight) * vignette[r, c]
                    nr, ng, nb = (np.floor(v * (1 - mask) + mask * noise[c, r]) for v in (red, green, blue))
                gray = np.floor(nr * 0.299 + ng * 0.587 + nb * 0.114 + 0.5)
                red, green, blue = (np.floor(daylight * v + (1 - daylight) * (min(max(np.floor(gray + 0.4 * (n - gray) + 0.5), 0.0), 255.0) * 0.5 + tint))
                                    for v, n, tint in ((red, nr, 0.0), (green, ng, 8.0), (blue, nb, 32.0)))
            if sleeping:
                gray = (red * 19595 + green * 38470 + blue * 7471 + 32768) // 65536
                red, green, blue = np.floor(0.5 * gray), np.floor(0.5 * gray), np.floor(0.5 * gray + 8.0)
            out[r, c] = [np.uint8(min(max(v, 0.0), 255.0)) for v in (red, green, blue)]


@pytest.mark.parametrize("daylight,sleeping", [(1.0, False), (0.8, False), (0.5, False), (0.3, False), (0.02, False),
                                               (0.3, True), (1.0, True)])
def test_the_flat_shading_loop_draws_the_bytes_of_the_per_pixel_one(daylight, sleeping):
    """Frames are byte-identical from clone to clone and the measurements rest on them: the faster
    shading must not move a pixel (values beyond 0-255 included, where the clamps act)."""
    rng = np.random.default_rng(int(daylight * 100) + sleeping)
    rows = 24  # a band of the frame: the reference runs in Python
    rgb = rng.uniform(-5, 300, (rows, FRAME_SHAPE[1], 3)).astype(np.float32)
    noise = rng.uniform(32, 127, (FRAME_SHAPE[1], rows)) if daylight < 0.5 else fp._NO_NOISE
    vignette = np.ascontiguousarray(fp._vignette()[:rows])
    ours, theirs = (np.empty((rows, FRAME_SHAPE[1], 3), np.uint8) for _ in range(2))
    fp._shade(rgb, daylight, noise, vignette, sleeping, ours)
    reference_shade(rgb, daylight, noise, vignette, sleeping, theirs)
    assert np.array_equal(ours, theirs)


EPISODE = """
import hashlib, numpy as np
from mineclip.sim.env import CrafterEnv
env = CrafterEnv(init={"time": "dusk"}, view="first_person", max_steps=1000)
env.reset(seed=3)
digest, rng = hashlib.sha256(), np.random.RandomState(0)
for t in range(40):  # from dusk into the night: shading with and without noise
    obs, *_ = env.step(int(rng.randint(17)))
    for a in (obs, env.first_person.semantic, env.first_person.depth, env.first_person.tiles):
        digest.update(a.tobytes())
print(digest.hexdigest())
"""


def test_the_same_seed_gives_the_same_bytes_in_two_processes_and_with_1_and_2_threads():
    root = Path(__file__).resolve().parents[2]
    runs = []
    for threads in ("1", "2"):  # both processes at once
        env = {**os.environ, "NUMBA_NUM_THREADS": threads, "OMP_NUM_THREADS": threads,
               "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
        runs.append(subprocess.Popen([sys.executable, "-c", EPISODE], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env=env, cwd=root))
    here = {}
    exec(EPISODE.replace("print(digest.hexdigest())", "here['digest'] = digest.hexdigest()"), {"here": here})
    digests = []
    for run in runs:
        out, err = run.communicate(timeout=300)
        assert run.returncode == 0, err[-2000:]
        digests.append(out.strip())
    assert digests[0] == digests[1] == here["digest"]


def test_unsupported_frame_size_and_missing_player_are_named():
    with pytest.raises(ValueError, match=r"160x256 \(height x width\) only; got \(128, 128\)"):
        FirstPersonRenderer(shape=(128, 128))
    env = CrafterEnv(view="first_person")
    with pytest.raises(ValueError, match="expected a world with its player"):
        FirstPersonRenderer().render(env.world, env.player)  # never reset: no player
    env.reset(seed=0)
    env.world.remove(env.player)
    with pytest.raises(ValueError, match="expected a world with its player"):
        FirstPersonRenderer().render(env.world, env.player)
    with pytest.raises(ValueError, match="unknown kind 'horse'; expected one of"):
        visible_share(np.zeros(FRAME_SHAPE, np.uint8), "horse")
