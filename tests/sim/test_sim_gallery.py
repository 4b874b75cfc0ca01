"""The pictures' episode is played with the first-person controls alone, by a planner on the map."""

from mineclip.sim.env import CrafterEnv
from mineclip.sim.gallery import errand_action
from mineclip.sim.view import action_id


def test_a_planner_collects_wood_with_first_person_controls():
    env = CrafterEnv(init={"time": "noon"}, view="first_person")
    env.reset(seed=1)
    names = []
    for _ in range(30):
        names.append(errand_action(env, "tree"))
        env.step(action_id("first_person", names[-1]))
        if env.player.inventory["wood"]:
            break
    assert env.player.inventory["wood"] == 1 and {"move_forward", "do"} <= set(names)

