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

Agents that plan on the map (the scripted demonstrators) think in crafter's grid moves; `move_action`
says which action of a view makes the next bit of progress on one: from above the move itself, in
first person turns until facing its way, then `move_forward` (one step straight back onto a free
tile is `move_back`, as a person steps back; a second step back in a row turns round instead). A move
toward a tile the player cannot enter only turns the player, as crafter's move does: in first
person it is made once the player faces that tile. `turn_action` turns a first-person player toward a
way without stepping (from above a player can face a way only by moving).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

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


def turn_toward(facing, direction) -> str | None:
    """The turn (`turn_left` or `turn_right`; right when `direction` is behind) that brings a player
    facing `facing` round toward `direction`, or None when it faces that way."""
    facing, direction = (int(facing[0]), int(facing[1])), (int(direction[0]), int(direction[1]))
    if direction not in MOVES:
        raise ValueError(f"expected a grid direction, one of {list(MOVES)}, got {direction}")
    if facing == direction:
        return None
    return "turn_left" if turn(facing, "left") == direction else "turn_right"


def turn_action(view: str, facing, direction) -> int | None:
    """The action of `view` that turns the player toward `direction` without stepping, or None: when
    it faces that way, or from above, where a player faces a way only by moving."""
    name = turn_toward(facing, direction)
    return None if check_view(view) == "top" or name is None else action_id(view, name)


def move_action(view: str, facing, move, free: Callable[[tuple[int, int]], bool],
                stepped_back: bool = False) -> tuple[int, bool]:
    """(the action of `view` that makes the next progress on crafter's grid move `move` ((dx, dy), one
    tile) for a player facing `facing`, whether the move is made once that action runs).

    `free(move)` says whether the player can step that way (crafter's `Player.is_free`);
    `stepped_back`, whether the player's last action was `move_back`. From above: crafter's move,
    made at once. In first person: `move_forward` when facing that way; `move_back` when the move is
    straight behind, free, and the last action was not already a step back; otherwise the turn toward
    it (left when it is on the left; right when on the right or behind), which makes the move when
    it leaves the player facing a tile it cannot enter (a grid move into a blocked tile only turns)."""
    move = (int(move[0]), int(move[1]))
    if move not in MOVES:
        raise ValueError(f"expected a grid move of one tile, one of {list(MOVES)}, got {move}")
    if check_view(view) == "top":
        return action_id(view, MOVES[move]), True
    facing = (int(facing[0]), int(facing[1]))
    if move == facing:
        return action_id(view, "move_forward"), True
    if move == (-facing[0], -facing[1]) and not stepped_back and free(move):
        return action_id(view, "move_back"), True
    name = turn_toward(facing, move)
    return action_id(view, name), turn(facing, name[len("turn_"):]) == move and not free(move)
