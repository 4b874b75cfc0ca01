"""Which view an environment shows (`top` or `first_person`), the actions of each view, and how a
first-person action becomes crafter's: the one owner of the view setting.

The top-down view keeps crafter's 17 actions. The first-person view has 17 too, egocentric, with
the same index for every action the two share (`noop`, `do`, `sleep`, `place_*`, `make_*`), and
turning and walking where crafter has its four moves:

| index | top          | first_person  | what the first-person action does                                 |
|------:|--------------|---------------|-------------------------------------------------------------------|
| 0     | noop         | noop          |                                                                   |
| 1     | move_left    | turn_left     | face the tile to the left, stay on the tile                       |
| 2     | move_right   | turn_right    | face the tile to the right, stay on the tile                      |
| 3     | move_up      | move_forward  | step onto the facing tile if it is free (crafter's move that way) |
| 4     | move_down    | move_back     | step backwards if that tile is free, keeping the facing           |
| 5-16  | crafter's    | crafter's     | `do` and `place_*` act on the facing tile                         |

A turn changes the facing before the world's step (the world goes on for that step as under
`noop`; asleep, a turn does nothing, as crafter's moves do nothing); a step back is crafter's move
away from the facing, after which the facing is put back.
"""

from __future__ import annotations

from dataclasses import dataclass

from .engine import ACTIONS

VIEWS = ("top", "first_person")
DEFAULT_VIEW = "top"
FIRST_PERSON_ACTIONS: tuple[str, ...] = ("noop", "turn_left", "turn_right", "move_forward", "move_back",
                                         *ACTIONS[5:])
VIEW_ACTIONS: dict[str, tuple[str, ...]] = {"top": tuple(ACTIONS), "first_person": FIRST_PERSON_ACTIONS}
MOVES = {(-1, 0): "move_left", (1, 0): "move_right", (0, -1): "move_up", (0, 1): "move_down"}


def check_view(view: str) -> str:
    """`view` if it names a view; a ValueError naming the views otherwise."""
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}; expected one of {list(VIEWS)}")
    return view


def actions(view: str) -> tuple[str, ...]:
    """The action names of a view, in index order."""
    return VIEW_ACTIONS[check_view(view)]


def action_id(view: str, name: str) -> int:
    """The index of an action of a view."""
    names = actions(view)
    if name not in names:
        raise ValueError(f"the {view} view has no action {name!r}; expected one of {list(names)}")
    return names.index(name)


def turn(facing, direction: str) -> tuple[int, int]:
    """The facing after a turn to the `left` or `right` (crafter's grid: x right, y down)."""
    fx, fy = int(facing[0]), int(facing[1])
    if direction == "left":
        return fy, -fx
    if direction == "right":
        return -fy, fx
    raise ValueError(f"expected a turn 'left' or 'right', got {direction!r}")


@dataclass(frozen=True)
class EngineAction:
    """What crafter's engine runs for a view's action: its action name, the facing to take before
    the step (a turn), and whether to put the facing back after it (a step backwards)."""

    name: str
    face: tuple[int, int] | None = None
    keep_facing: bool = False


def engine_action(view: str, action: int, facing) -> EngineAction:
    """crafter's action for action index `action` of `view`, for a player facing `facing`."""
    names = actions(view)
    if not 0 <= int(action) < len(names):
        raise ValueError(f"expected an action in [0, {len(names)}) for the {view} view, got {action}")
    name = names[int(action)]
    facing = (int(facing[0]), int(facing[1]))
    if view == "top" or name not in ("turn_left", "turn_right", "move_forward", "move_back"):
        return EngineAction(name)
    if name == "move_forward":
        return EngineAction(MOVES[facing])
    if name == "move_back":
        return EngineAction(MOVES[(-facing[0], -facing[1])], keep_facing=True)
    return EngineAction("noop", face=turn(facing, name[len("turn_"):]))
