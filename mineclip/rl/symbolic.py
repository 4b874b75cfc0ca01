"""What MineDojo's agent saw besides the frame: the local view as symbols, the inventory, the position.

`symbols(env)` reads them from the simulator (never from the frame) as one float32 vector:

| part | size | content |
|---|---:|---|
| local view | 16 x 9 x 20 | one-hot class of each tile of the local window (from above, what the frame shows; x from -8 to +7, y from -4 to +4 around the player; the player's tile is (8, 4)): crafter's semantic ids (materials `None`, water, grass, stone, path, sand, tree, lava, coal, iron, diamond, table, furnace; objects player, cow, zombie, skeleton, arrow, plant) plus a class of its own for a ripe plant; tiles outside the world are class 0 (`None`) |
| inventory | 16 | crafter's items (health, food, drink, energy, sapling, wood, ..., iron_sword) / 9, crafter's maximum |
| position | 2 | (x, y) / 64, the world's size |
| facing | 4 | one-hot of left, right, up, down |

`SymbolicInfo` (a gymnasium wrapper) puts that vector in `info["symbols"]` at every reset and
step, so that a vector-env wrapper (`FrameFeatures`) can join it to the frame features: the
observation stays the frame, which the learned reward needs.
In both views (`mineclip rl --view`) the local view here is the map's 16 x 9 window around the
player, north up, read from the world: in first person it holds what is behind and beside the
player, which the frame does not show, and the facing tells the policy which way it looks. That is
on purpose: MineDojo's agent had such local symbols (the voxels around it, the compass) besides its
first-person frame, and they are the policy's input only; the learned reward and the frame
features read the frames of the run's view.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from crafter import objects

from mineclip.sim import vocab
from mineclip.sim.state import LOCAL_VIEW, VIEW_OFFSET

MATERIALS = [None] + list(vocab.MATERIALS)  # crafter's material ids (world._mat_ids)
OBJECTS = [objects.Player, objects.Cow, objects.Zombie, objects.Skeleton, objects.Arrow, objects.Plant]
CLASSES = [str(m) for m in MATERIALS] + [c.__name__.lower() for c in OBJECTS] + ["plant-ripe"]
RIPE = len(CLASSES) - 1
INVENTORY = list(vocab.ITEMS)
INVENTORY_MAX = float(vocab.ITEM_MAX)
FACINGS = [(-1, 0), (1, 0), (0, -1), (0, 1)]
WORLD_SIZE = 64.0

VIEW_SIZE = LOCAL_VIEW[0] * LOCAL_VIEW[1] * len(CLASSES)
LAYOUT = {  # name -> slice of the vector
    "view": slice(0, VIEW_SIZE),
    "inventory": slice(VIEW_SIZE, VIEW_SIZE + len(INVENTORY)),
    "position": slice(VIEW_SIZE + len(INVENTORY), VIEW_SIZE + len(INVENTORY) + 2),
    "facing": slice(VIEW_SIZE + len(INVENTORY) + 2, VIEW_SIZE + len(INVENTORY) + 2 + len(FACINGS)),
}
SIZE = LAYOUT["facing"].stop
_OBJECT_CLASS = {c: len(MATERIALS) + i for i, c in enumerate(OBJECTS)}


def class_map(world, player) -> np.ndarray:
    """int64 [16, 9]: the class id (index into CLASSES) of each tile of the local view."""
    w, h = LOCAL_VIEW
    px, py = (int(v) for v in player.pos)
    x0, y0 = px - VIEW_OFFSET[0], py - VIEW_OFFSET[1]
    ids = np.zeros((w, h), np.int64)
    xs0, ys0 = max(x0, 0), max(y0, 0)
    xs1, ys1 = min(x0 + w, world.area[0]), min(y0 + h, world.area[1])
    if xs1 <= xs0 or ys1 <= ys0:
        return ids
    ids[xs0 - x0:xs1 - x0, ys0 - y0:ys1 - y0] = world._mat_map[xs0:xs1, ys0:ys1]
    objs = world._obj_map[xs0:xs1, ys0:ys1]
    for ox, oy in zip(*np.nonzero(objs)):
        obj = world._objects[int(objs[ox, oy])]
        if obj is None:
            continue
        cls = _OBJECT_CLASS.get(type(obj), 0)
        if isinstance(obj, objects.Plant) and obj.ripe:
            cls = RIPE
        ids[ox + xs0 - x0, oy + ys0 - y0] = cls
    return ids


def symbols(env) -> np.ndarray:
    """float32 [SIZE]: local view one-hot, inventory, position, facing of a crafter env (CrafterEnv)."""
    base = env.unwrapped
    world, player = base.core._world, base.core._player
    out = np.zeros(SIZE, np.float32)
    ids = class_map(world, player)
    view = out[LAYOUT["view"]].reshape(LOCAL_VIEW[0], LOCAL_VIEW[1], len(CLASSES))
    np.put_along_axis(view, ids[..., None], 1.0, axis=-1)
    out[LAYOUT["inventory"]] = [player.inventory.get(k, 0) / INVENTORY_MAX for k in INVENTORY]
    out[LAYOUT["position"]] = np.asarray(player.pos, np.float32) / WORLD_SIZE
    facing = tuple(int(v) for v in player.facing)
    if facing in FACINGS:
        out[LAYOUT["facing"].start + FACINGS.index(facing)] = 1.0
    return out


def view_classes(vector: np.ndarray) -> np.ndarray:
    """The class ids [16, 9] of a symbols vector's local view (the inverse of its one-hot)."""
    view = np.asarray(vector)[LAYOUT["view"]].reshape(LOCAL_VIEW[0], LOCAL_VIEW[1], len(CLASSES))
    return view.argmax(-1)


class SymbolicInfo(gym.Wrapper):
    """Adds `info["symbols"]` (see `symbols`) at every reset and step; observations are unchanged."""

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        info["symbols"] = symbols(self.env)
        return obs, info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        info["symbols"] = symbols(self.env)
        return obs, reward, terminated, truncated, info
