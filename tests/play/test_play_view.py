"""Play in both views: the scripted agents plan on the map and act in the view's controls, and the
narration of a first-person clip names what its frames show."""

import random

import pytest

from mineclip.play.agents import RandomAgent, make_agent
from mineclip.play.narrate import clip_events, describe_scene, holds
from mineclip.play.record import run_episode
from mineclip.sim.env import CrafterEnv
from mineclip.sim.state import WorldState
from mineclip.sim.view import actions
from mineclip.tasks.registry import get_task

STEPS = ("move_forward", "move_back")


@pytest.mark.parametrize("task, world", [("harvest_wood", 2), ("hunt_cow", 2), ("place_table", 2), ("lay_stone_row", 2),
                                         ("build_bridge", 2), ("find_lava", 5)])  # lava: it turns to look at it
def test_the_scripted_agent_succeeds_in_first_person_turning_and_stepping(task, world):
    ep = run_episode(task, "scripted", seed=world, world_seed=world)
    eyes = run_episode(task, "scripted", seed=world, world_seed=world, view="first_person")
    assert ep.record["label"] == eyes.record["label"] == 1 and eyes.record["view"] == "first_person"
    names = [actions("first_person")[a] for a in eyes.record["actions"]]
    assert {"turn_left", "turn_right"} & set(names)  # it turns to face its way, as a person does
    for name, before, after in zip(names, eyes.states, eyes.states[1:]):
        if before.pos != after.pos:  # it walks only by stepping forward or back
            assert name in STEPS, (name, before.pos, after.pos)
        if before.facing != after.facing:  # and faces another way only by turning
            assert name.startswith("turn_"), (name, before.facing, after.facing)


def test_random_and_noisy_actions_are_drawn_from_the_views_actions():
    env = CrafterEnv(view="first_person")
    env.reset(seed=0)
    agent = RandomAgent(seed=0)
    drawn = {agent.act(env) for _ in range(400)}
    assert drawn == set(range(len(env.actions)))
    noisy = make_agent("noisy", get_task("harvest_wood"), noise=1.0, seed=0)
    noisy.reset(env)
    assert {noisy.act(env) for _ in range(400)} == set(range(len(env.actions)))


def cow_behind(view: str) -> CrafterEnv:
    env = CrafterEnv(init={"time": "noon", "facing": [0, 1], "place": [{"what": "cow", "at": [0, -2]}]}, view=view)
    env.reset(seed=0)
    return env


def test_the_narration_of_a_first_person_clip_names_what_its_frames_show():
    # a cow two tiles behind the player: in view from above, out of sight in first person
    clips = {}
    for view in ("top", "first_person"):
        env = cow_behind(view)
        states, events = [env.state], []
        for _ in range(3):
            env.step(0)
            states.append(env.state)
            events.append([])
        clips[view] = states
    assert "view:cow" in holds(clips["top"], [[]] * 3)
    assert not any(f.endswith(":cow") for f in holds(clips["first_person"], [[]] * 3))
    rng = random.Random(0)
    assert any("cow" in describe_scene(clips["top"][-1], rng)[0] for _ in range(10))
    assert not any("cow" in describe_scene(clips["first_person"][-1], rng)[0] for _ in range(10))
    env = cow_behind("first_person")
    for _ in range(2):  # turned round, the first-person clip shows the cow: its narration names it
        env.step(env.actions.index("turn_left"))
    assert "view:cow" in holds([env.state], [])


def test_reaching_a_cow_is_narrated_only_when_the_frames_show_it():
    def state(cow, shown):
        return WorldState(0, {"health": 9}, {}, (5, 5), (0, 1), "grass", False, 1.0,
                          view={"cow": [cow]} if shown else {}, around={"cow": [cow]})

    far = state((0, 4), True)
    assert "reach_cow" in clip_events([far, state((0, 1), True)], [[]])
    assert "reach_cow" not in clip_events([far, state((0, -1), False)], [[]])  # it walked up behind the player


def test_a_first_person_state_says_how_much_of_the_frame_each_kind_fills():
    from mineclip.sim.firstperson import visible_share

    near, top = cow_behind("first_person"), cow_behind("top")
    assert top.state.shares is None  # from above a tile looks the same at any distance
    assert "cow" not in near.state.shares and 0.99 < sum(near.state.shares.values()) <= 1.0 + 1e-9
    near.step(near.actions.index("turn_left"))
    near.step(near.actions.index("turn_left"))  # now facing the cow, two tiles away
    assert near.state.shares["cow"] == visible_share(near.first_person.semantic, "cow") > 0
