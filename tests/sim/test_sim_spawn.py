"""MCU's "where" as a spawn condition: the player starts where the condition holds."""

import numpy as np
import pytest

from mineclip.sim.env import CrafterEnv


@pytest.mark.parametrize("spec, check", [
    ({"near": {"water": 2}}, lambda env: env.state.distance("water") <= 2),
    ({"floor": "sand"}, lambda env: env.world[env.player.pos][0] == "sand"),
    ({"near": {"tree": 1}, "floor": "grass"}, lambda env: env.state.distance("tree") <= 1
     and env.world[env.player.pos][0] == "grass"),
])
def test_spawn_moves_the_player_to_a_place_that_meets_the_condition(spec, check):
    for seed in (500, 501, 502):
        env = CrafterEnv({"spawn": spec})
        env.reset(seed=seed)
        assert env.spawn_found and check(env), (spec, seed)


def test_spawn_is_the_nearest_such_place_and_reproducible():
    a, b = CrafterEnv({"spawn": {"floor": "sand"}}), CrafterEnv({"spawn": {"floor": "sand"}})
    oa, _ = a.reset(seed=7)
    ob, _ = b.reset(seed=7)
    assert np.array_equal(oa, ob) and tuple(a.player.pos) == tuple(b.player.pos)
    plain = CrafterEnv()
    plain.reset(seed=7)
    sand = np.argwhere(plain.world._mat_map == plain.world._mat_ids["sand"])
    sand = sand[(sand >= 4).all(1) & (sand < 60).all(1)]  # the margins a spawn keeps
    assert np.abs(a.player.pos - plain.player.pos).sum() == np.abs(sand - plain.player.pos).sum(1).min()


def test_a_world_without_such_a_place_gets_one_made_at_the_spawn():
    env = CrafterEnv({"spawn": {"near": {"table": 2}, "floor": "path"}})  # crafter generates no tables
    env.reset(seed=3)
    assert env.spawn_found is False
    assert env.state.distance("table") <= 2 and env.world[env.player.pos][0] == "path"


def test_placements_are_made_around_the_new_spawn_and_without_spawn_nothing_moves():
    env = CrafterEnv({"spawn": {"floor": "sand"}, "place": [{"what": "cow", "at": [1, 0]}]})
    env.reset(seed=5)
    assert env.world[env.player.pos][0] == "sand"
    assert (1, 0) in env.state.view["cow"]
    a, b = CrafterEnv(), CrafterEnv({"place": []})
    a.reset(seed=5)
    b.reset(seed=5)
    assert tuple(a.player.pos) == tuple(b.player.pos) == (32, 32) and a.spawn_found is None


@pytest.mark.parametrize("spec, why", [
    ({"beach": True}, "expected init spawn"),
    ({"floor": "water"}, "floor must be walkable"),
    ({"near": {"castle": 2}}, "cannot spawn near 'castle'"),
    ({"near": {"water": 0}}, "distance >= 1"),
])
def test_bad_spawn_conditions_are_refused(spec, why):
    with pytest.raises(ValueError, match=why):
        CrafterEnv({"spawn": spec}).reset(seed=0)
