import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import mineclip.tasks  # noqa: F401  (registers the environments)
from mineclip.tasks.textplan import (ATOM_IDS, GOALS, MAX_STEPS, HorizonTextEnv, RandomPlanner, ScriptedPlanner,
                                     baselines, run)


def test_candidates_are_the_atoms_whose_dependencies_the_inventory_satisfies():
    env = HorizonTextEnv("make_wood_pickaxe")
    obs, info = env.reset()
    assert "collect_wood" in info["candidates"] and "make_wood_pickaxe" not in info["candidates"]
    assert "collect_stone" not in info["candidates"]  # needs a wooden pickaxe
    assert "Step: 0/100" in obs and "Candidates:" in obs
    env.step(ATOM_IDS["collect_wood"])
    env.step(ATOM_IDS["collect_wood"])
    _, _, _, _, info = env.step(ATOM_IDS["place_table"])
    assert info["stations"] == ["table"] and "wood" not in info["inventory"]
    env.step(ATOM_IDS["collect_wood"])
    _, reward, terminated, _, info = env.step(ATOM_IDS["make_wood_pickaxe"])
    assert terminated and reward == 1.0 and info["inventory"]["wood_pickaxe"] == 1


def test_an_unavailable_atom_wastes_the_step_and_the_budget_is_100_steps():
    env = HorizonTextEnv("make_iron_pickaxe")
    env.reset()
    _, _, _, _, info = env.step(ATOM_IDS["make_iron_pickaxe"])
    assert info["invalid"] and not info["inventory"] and info["action_mask"][ATOM_IDS["collect_wood"]] == 1
    for _ in range(MAX_STEPS - 2):
        _, _, terminated, truncated, _ = env.step(ATOM_IDS["collect_drink"])
    assert not truncated
    assert env.step(ATOM_IDS["collect_drink"])[3]


def test_the_scripted_planner_reaches_every_goal_and_beats_the_random_one():
    for g in GOALS:
        ok, steps = run(HorizonTextEnv(g), ScriptedPlanner())
        assert ok and steps < MAX_STEPS, g
    res = baselines(episodes=10, goals=("make_wood_pickaxe", "make_iron_pickaxe"))
    assert res["scripted"]["make_iron_pickaxe"]["success"] == 1.0
    assert res["random"]["make_iron_pickaxe"]["success"] < 0.5 < res["random"]["make_wood_pickaxe"]["success"]
    assert run(HorizonTextEnv("collect_coal"), RandomPlanner(3), 3) == run(HorizonTextEnv("collect_coal"), RandomPlanner(3), 3)


def test_it_is_a_gymnasium_text_environment():
    check_env(HorizonTextEnv("make_stone_sword"), skip_render_check=True)
    env = gym.make("mineclip/horizon_text-v0", goal="place_furnace")
    obs, _ = env.reset(seed=0)
    assert obs.startswith("Goal: place furnace")
    with pytest.raises(ValueError, match="unknown goal"):
        HorizonTextEnv("eat_cow")
    with pytest.raises(ValueError, match="unknown inventory items"):
        HorizonTextEnv(inventory={"gold": 1})
