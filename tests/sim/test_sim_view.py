"""The view setting: one owner of the names, egocentric controls that do what they say, and the
same simulation whichever view records it."""

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from mineclip.sim.engine import ACTIONS
from mineclip.sim.env import CrafterEnv
from mineclip.sim.firstperson import KIND_IDS
from mineclip.sim.view import (FIRST_PERSON_ACTIONS, MOVES, VIEWS, action_id, actions, check_view, engine_action,
                               move_action, turn, turn_action)


def test_views_and_their_actions():
    assert VIEWS == ("top", "first_person") and actions("top") == tuple(ACTIONS)
    assert len(FIRST_PERSON_ACTIONS) == len(ACTIONS) == 17
    for name in ("noop", "do", "sleep", "place_stone", "make_iron_sword"):  # shared actions keep their index
        assert action_id("top", name) == action_id("first_person", name)
    assert not {"move_left", "move_right", "move_up", "move_down"} & set(FIRST_PERSON_ACTIONS)


def test_unknown_view_and_action_are_named():
    with pytest.raises(ValueError, match=r"unknown view '3d'; expected one of \['top', 'first_person'\]"):
        check_view("3d")
    with pytest.raises(ValueError, match=r"unknown view 'firstperson'; expected one of \['top', 'first_person'\]"):
        CrafterEnv(view="firstperson")
    with pytest.raises(ValueError, match="the first_person view has no action 'move_left'"):
        action_id("first_person", "move_left")
    env = CrafterEnv(view="first_person")
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"expected an action in \[0, 17\) for the first_person view, got 17"):
        env.step(17)


def test_turns_go_round_the_compass():
    facing = (0, 1)
    for _ in range(4):
        right = turn(facing, "right")
        assert turn(right, "left") == facing and right != facing
        facing = right
    assert facing == (0, 1) and turn((0, -1), "right") == (1, 0)  # facing up (north), right is east
    assert engine_action("first_person", action_id("first_person", "move_forward"), (1, 0)).name == "move_right"
    back = engine_action("first_person", action_id("first_person", "move_back"), (1, 0))
    assert back.name == "move_left" and back.keep_facing
    assert engine_action("top", 1, (1, 0)).name == "move_left"


def open_ground(env):
    """Grass around the player, nothing on it."""
    world, player = env.world, env.player
    for obj in world.objects:
        if obj is not player and np.abs(obj.pos - player.pos).max() <= 3:
            world.remove(obj)
    px, py = (int(v) for v in player.pos)
    world._mat_map[px - 3:px + 4, py - 3:py + 4] = world._mat_ids["grass"]


def test_first_person_controls_turn_step_forward_and_back():
    env = CrafterEnv(init={"facing": [0, 1]}, view="first_person")
    env.reset(seed=4)
    open_ground(env)
    start = env.player.pos.copy()
    env.step(action_id("first_person", "move_forward"))
    assert tuple(env.player.pos - start) == (0, 1) and tuple(env.player.facing) == (0, 1)
    env.step(action_id("first_person", "move_back"))
    assert tuple(env.player.pos - start) == (0, 0) and tuple(env.player.facing) == (0, 1)
    env.step(action_id("first_person", "turn_right"))
    assert tuple(env.player.pos - start) == (0, 0) and tuple(env.player.facing) == (-1, 0)
    env.world[tuple(env.player.pos + (1, 0))] = "stone"  # the tile behind is blocked: no step back
    env.step(action_id("first_person", "move_back"))
    assert tuple(env.player.pos - start) == (0, 0) and tuple(env.player.facing) == (-1, 0)
    env.player.sleeping = True  # asleep, a turn does nothing (as crafter's moves do nothing)
    env.player.inventory["energy"] = 1
    env.step(action_id("first_person", "turn_left"))
    assert tuple(env.player.facing) == (-1, 0)


def test_a_grid_move_is_made_in_each_views_controls():
    # from above crafter's move; in first person turns until facing, then a step (straight back: one step back)
    assert move_action("top", (0, 1), (1, 0), lambda m: True) == (action_id("top", "move_right"), True)
    back = action_id("first_person", "move_back")
    for facing in MOVES:
        for move in MOVES:
            for blocked in (False, True):
                env = CrafterEnv(init={"facing": list(facing)}, view="first_person")
                env.reset(seed=4)
                open_ground(env)
                start = env.player.pos.copy()
                if blocked:
                    env.world[tuple(start + move)] = "stone"
                taken = []
                while len(taken) < 4:
                    action, done = move_action("first_person", env.player.facing, move,
                                               lambda m: env.player.is_free(env.player.pos + np.array(m)),
                                               bool(taken) and taken[-1] == back)
                    env.step(action)
                    taken.append(action)
                    if done:
                        break
                behind = move == (-facing[0], -facing[1])
                fewest = 1 if move == facing else (2 if blocked else 1) if behind else (1 if blocked else 2)
                assert done and len(taken) == fewest, (facing, move, blocked, taken)
                moved = tuple(int(v) for v in env.player.pos - start)
                if blocked:  # a move into a blocked tile only turns the player toward it, as crafter's does
                    assert moved == (0, 0) and tuple(env.player.facing) == move
                else:
                    assert moved == move
                    assert tuple(env.player.facing) == move or taken == [back]
    # a turn without a step: only in first person
    assert turn_action("first_person", (0, 1), (1, 0)) == action_id("first_person", "turn_left")
    assert turn_action("first_person", (0, 1), (0, -1)) == action_id("first_person", "turn_right")
    assert turn_action("first_person", (0, 1), (0, 1)) is None and turn_action("top", (0, 1), (1, 0)) is None
    # a second step back in a row turns round instead
    free = lambda m: True  # noqa: E731
    assert move_action("first_person", (0, 1), (0, -1), free)[0] == back
    assert move_action("first_person", (0, 1), (0, -1), free, stepped_back=True) == (
        action_id("first_person", "turn_right"), False)
    with pytest.raises(ValueError, match=r"expected a grid move of one tile.*got \(2, 0\)"):
        move_action("first_person", (0, 1), (2, 0), free)


def test_first_person_env_passes_gymnasium_checker_and_keeps_its_maps():
    env = CrafterEnv(view="first_person")
    check_env(env, skip_render_check=True)
    obs, _ = env.reset(seed=2)
    assert obs.shape == (160, 256, 3) and obs.dtype == np.uint8 and obs is env.first_person.frame
    assert env.first_person.semantic.shape == (160, 256) and env.first_person.depth.dtype == np.float32
    assert (env.first_person.semantic[-1] == KIND_IDS["hotbar"]).all()
    top = CrafterEnv()
    top.reset(seed=2)
    assert top.first_person is None and top.view == "top"


def world_facts(state) -> tuple[dict, dict]:
    """A state's facts about the world (all but what the frame shows) and the window around the player."""
    return {k: v for k, v in state.to_dict().items() if k not in ("view", "around")}, state.around


@pytest.mark.parametrize("time", ["dusk", "night"])
def test_the_simulation_is_the_same_in_both_views(time):
    # the night shading draws noise from the world's random state: both views must draw the same
    top = CrafterEnv(init={"time": time}, max_steps=1000)
    eyes = CrafterEnv(init={"time": time}, view="first_person", max_steps=1000)
    top.reset(seed=7)
    eyes.reset(seed=7)
    rng = np.random.RandomState(1)
    shared = [a for a in FIRST_PERSON_ACTIONS if not a.startswith("turn_") and a != "move_back"]
    for _ in range(60):
        name = shared[rng.randint(len(shared))]
        if rng.rand() < 0.2:  # a turn; the top view has none: its player is turned by hand, the world steps
            name = "turn_left"
        if name == "turn_left":
            if not top.player.sleeping:
                top.player.facing = turn(top.player.facing, "left")
            eyes.step(action_id("first_person", "turn_left"))
            top.step(action_id("top", "noop"))
        else:
            top_name = MOVES[tuple(top.player.facing)] if name == "move_forward" else name
            eyes.step(action_id("first_person", name))
            top.step(action_id("top", top_name))
        assert world_facts(top.state) == world_facts(eyes.state)  # what is in view differs; the world does not
        assert np.array_equal(top.world._mat_map, eyes.world._mat_map)
        assert [tuple(o.pos) for o in top.world.objects] == [tuple(o.pos) for o in eyes.world.objects]
    assert top.world.daylight < 0.5  # the noise was drawn
