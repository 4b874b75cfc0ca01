"""Pictures of the two views: the same moments from above and in first person, and a short
episode in both, for the README and docs/sim.md.

    python -m mineclip.sim.gallery [docs/img]

writes `views.png` (moments side by side: top-down left, first person right) and
`views_episode.gif` (a first-person errand: wood from trees, a table placed, a pickaxe made,
stone mined, a cow eaten, water drunk; the top-down view of the same world beside it). Everything is drawn from seeds: the same files on every run.
"""

from __future__ import annotations

import sys
from collections import deque
from pathlib import Path

import numpy as np

from .env import CrafterEnv
from .view import action_id, turn

# (caption, world seed, initial conditions, what to face)
MOMENTS = (
    ("a cow ahead", 1, {"spawn": {"near": {"cow": 3}}}, "cow"),
    ("facing water", 2, {"spawn": {"near": {"water": 2}}}, "water"),
    ("trees", 3, {"spawn": {"near": {"tree": 2}}}, "tree"),
    ("a tunnel through the cliffs", 7, {"spawn": {"near": {"stone": 1, "iron": 4}, "floor": "path"}}, "open"),
    ("night, a zombie", 5, {"time": "night", "place": [{"what": "zombie", "distance": [2, 3]}]}, "zombie"),
)
WALKABLE = ("grass", "sand", "path")
# the episode's errands: (what to act on, how many times); place_*: on the facing grass; make_*: here
GOALS = (("tree", 4), ("place_table", 1), ("make_wood_pickaxe", 1), ("stone", 3), ("cow", 3), ("water", 3))


def _targets(env: CrafterEnv, kind: str) -> list[tuple[int, int]]:
    world = env.world
    if kind in world._mat_ids:
        return [tuple(int(v) for v in p) for p in np.argwhere(world._mat_map == world._mat_ids[kind])]
    return [tuple(int(v) for v in o.pos) for o in world.objects if type(o).__name__.lower() == kind]


def face_towards(env: CrafterEnv, kind: str) -> None:
    """Turn the player to the nearest tile or creature of `kind` (along the longer axis), or with
    `open`, along the longest free way."""
    px, py = (int(v) for v in env.player.pos)
    if kind == "open":
        env.player.facing = max(((1, 0), (-1, 0), (0, 1), (0, -1)), key=lambda d: _free_run(env, d))
        return
    found = [t for t in _targets(env, kind) if t != (px, py)]
    if not found:
        return
    tx, ty = min(found, key=lambda t: (abs(t[0] - px) + abs(t[1] - py), t))
    dx, dy = tx - px, ty - py
    env.player.facing = (int(np.sign(dx)), 0) if abs(dx) >= abs(dy) else (0, int(np.sign(dy)))


def _free_run(env: CrafterEnv, direction, limit: int = 12) -> int:
    pos, run = np.array(env.player.pos), 0
    while run < limit:
        pos = pos + direction
        material, obj = env.world[pos]
        if material not in WALKABLE or obj is not None:
            break
        run += 1
    return run


def moment(seed: int, init: dict, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """(top-down frame, first-person frame) of one moment."""
    frames = []
    for view in ("top", "first_person"):
        env = CrafterEnv(init={"time": "noon", **init}, view=view)
        env.reset(seed=seed)
        face_towards(env, kind)
        env.step(action_id(view, "noop"))  # draw the turned player; same world, same randomness
        frames.append(env.render())
    return frames[0], frames[1]


def moments_image(moments=MOMENTS) -> np.ndarray:
    """The moments one above the other, each as [top-down | first person], 4 px apart."""
    rows = []
    for _, seed, init, kind in moments:
        top, eyes = moment(seed, init, kind)
        rows.append(np.concatenate([top, np.full((top.shape[0], 4, 3), 255, np.uint8), eyes], 1))
        rows.append(np.full((4, rows[-1].shape[1], 3), 255, np.uint8))
    return np.concatenate(rows[:-1], 0)


def _path(env: CrafterEnv, kind: str) -> list[tuple[int, int]] | None:
    """Shortest walk (tiles) to a tile next to the nearest `kind`, then the target itself."""
    world = env.world
    start = tuple(int(v) for v in env.player.pos)
    goals = set(_targets(env, kind))
    seen, queue = {start: None}, deque([start])
    while queue:
        here = queue.popleft()
        for d in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            nxt = (here[0] + d[0], here[1] + d[1])
            if nxt in goals:
                path = [nxt]
                while here is not None:
                    path.append(here)
                    here = seen[here]
                return path[::-1]
            material, obj = world[nxt]
            if nxt not in seen and material in WALKABLE and obj is None:
                seen[nxt] = here
                queue.append(nxt)
    return None


def errand_action(env: CrafterEnv, kind: str) -> str:
    """The first-person action that brings the player one step nearer to acting on `kind`."""
    if kind.startswith("make_"):
        return kind
    if kind.startswith("place_"):
        ahead = env.world[env.player.pos + np.array(env.player.facing)]
        return kind if ahead == ("grass", None) else "turn_left"
    path = _path(env, kind)
    if path is None:
        return "turn_left"
    step = (path[1][0] - path[0][0], path[1][1] - path[0][1])
    facing = tuple(int(v) for v in env.player.facing)
    if step == facing:
        return "do" if len(path) == 2 else "move_forward"
    return "turn_right" if turn(facing, "right") == step else "turn_left"


def episode_frames(seed: int = 1, steps: int = 120) -> list[np.ndarray]:
    """A first-person walk through the errands (`GOALS`), each frame [top-down | first person] of
    the same world (by day: drawing the top-down frame does not change the simulation)."""
    env = CrafterEnv(init={"time": "noon"}, view="first_person", max_steps=steps)
    obs, _ = env.reset(seed=seed)
    gap = np.full((obs.shape[0], 4, 3), 255, np.uint8)
    frames = [np.concatenate([env.core.render(), gap, obs], 1)]
    goals = list(GOALS)
    done = 0
    for _ in range(steps):
        if not goals:
            break
        kind, times = goals[0]
        name = errand_action(env, kind)
        obs, _, terminated, truncated, _ = env.step(action_id("first_person", name))
        frames.append(np.concatenate([env.core.render(), gap, obs], 1))
        done += name == "do" or name == kind
        if done >= times:
            goals.pop(0)
            done = 0
        if terminated or truncated:
            break
    return frames


def main(out: str = "docs/img") -> None:
    from PIL import Image

    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    Image.fromarray(moments_image()).save(folder / "views.png")
    frames = [Image.fromarray(f) for f in episode_frames()]
    frames[0].save(folder / "views_episode.gif", save_all=True, append_images=frames[1:], duration=125, loop=0)
    print(f"wrote {folder / 'views.png'} and {folder / 'views_episode.gif'} ({len(frames)} frames)")


if __name__ == "__main__":
    main(*sys.argv[1:])
