"""A compact picture of the scene for the terminal: the 16 x 9 tiles in view as letters, the
player as an arrow, and the inventory."""

from __future__ import annotations

from mineclip.sim.state import LOCAL_VIEW, VIEW_OFFSET
from mineclip.sim.vocab import VITALS

SYMBOLS = {"grass": ".", "sand": ":", "path": "_", "water": "~", "lava": "%", "stone": "#", "tree": "T",
           "coal": "c", "iron": "i", "diamond": "d", "table": "t", "furnace": "f", "plant": "p", "cow": "C",
           "zombie": "Z", "skeleton": "S", "arrow": "'"}
ARROWS = {(-1, 0): "<", (1, 0): ">", (0, -1): "^", (0, 1): "v"}
LEGEND = "T tree  ~ water  # stone  : sand  _ path  % lava  c coal  i iron  d diamond  t table  f furnace  " \
         "p sapling  C cow  Z zombie  S skeleton"


def render_view(state) -> str:
    """The view of a WorldState as lines of text (objects drawn over materials)."""
    grid = [["?"] * LOCAL_VIEW[0] for _ in range(LOCAL_VIEW[1])]
    objects = ("cow", "zombie", "skeleton", "plant", "arrow")
    for layer in (False, True):
        for kind, offsets in state.view.items():
            if (kind in objects) != layer:
                continue
            for dx, dy in offsets:
                x, y = dx + VIEW_OFFSET[0], dy + VIEW_OFFSET[1]
                if 0 <= x < LOCAL_VIEW[0] and 0 <= y < LOCAL_VIEW[1]:
                    grid[y][x] = SYMBOLS.get(kind, "?")
    grid[VIEW_OFFSET[1]][VIEW_OFFSET[0]] = ARROWS.get(tuple(state.facing), "@")
    inv = {k: v for k, v in state.inventory.items() if v and k not in VITALS}
    vitals = " ".join(f"{k} {state.inventory.get(k)}" for k in VITALS)
    lines = ["".join(row) for row in grid]
    lines.append(f"{vitals} | {state.time_of_day} | " + (", ".join(f"{k} {v}" for k, v in inv.items()) or "empty"))
    return "\n".join(lines)
