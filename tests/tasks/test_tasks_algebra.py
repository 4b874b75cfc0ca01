import pytest

from mineclip.tasks import get_task, list_tasks
from mineclip.tasks.algebra import CompositionError, compose
from mineclip.tasks.registry import load_yaml_tasks

ATOMS = {t.id: t for t in list_tasks()}


def c(recipe, **kw):
    return compose("m", recipe, ATOMS, **kw)


def test_the_suite_molecules_keep_their_composition():
    t = get_task("wood_and_drink")
    assert t.success == {"all": [{"achieve": {"collect_wood": 1}}, {"achieve": {"collect_drink": 1}}]}
    assert t.init == {"place": get_task("harvest_wood").init["place"] + get_task("drink_water").init["place"],
                      "inventory": {}}
    assert t.solution == [{"obtain": "wood"}, "drink"] and t.max_steps == 96
    assert t.pre_tasks["roots"] == ["collect_drink", "collect_wood"]  # the union of the atoms' graphs


def test_or_succeeds_on_either_goal_and_runs_the_first_plan():
    t = c({"or": ["harvest_wood", "drink_water"]})
    assert t.success == {"any": [{"achieve": {"collect_wood": 1}}, {"achieve": {"collect_drink": 1}}]}
    assert t.solution == [{"obtain": "wood"}] and t.max_steps == 48 and "or" in t.tags
    root = t.pre_tasks["roots"][0]
    assert t.pre_tasks["graph"][root] == {"or": ["collect_wood", "collect_drink"]}


def test_naive_empties_the_inventory_and_scratch_the_world_too():
    t = c({"of": "make_stone_pickaxe", "naive": True})
    assert t.init["naive"] and "inventory" not in t.init and t.init["place"]
    s = c({"of": "make_stone_pickaxe", "naive": "scratch"})
    assert s.init["naive"] and s.init["place"] == [] and "naive" in s.tags


def test_where_is_a_spawn_or_an_area_condition():
    t = c({"of": "harvest_wood", "where": {"spawn": {"near": {"water": 2}}, "area": {"in_view": {"water": 3}}}})
    assert t.init["spawn"] == {"near": {"water": 2}} and {"in_view": {"water": 3}} in t.success["all"]
    assert "find_water" in t.pre_tasks["roots"] and "where-spawn" in t.tags
    old = c({"of": "harvest_wood", "where": {"near": {"water": 3}}})  # a bare condition: area only
    assert "spawn" not in old.init and {"near": {"water": 3}} in old.success["all"]


def test_how_tool_bare_hands_and_method():
    sword = c({"of": "combat_zombie", "how": {"tool": "iron_sword"}})
    assert sword.init["inventory"] == {"wood_sword": 0, "stone_sword": 0, "iron_sword": 1}
    assert {"have": {"iron_sword": 1}} in sword.success["all"]
    bare = c({"of": "combat_zombie", "how": "bare_hands"})
    assert bare.init["inventory"]["wood_sword"] == 0
    assert {"without": ["wood_sword", "stone_sword", "iron_sword"]} in bare.success["all"]
    food = c({"or": ["hunt_cow", "eat_plant"], "how": {"method": "eat_plant"}})
    assert food.solution == ["eat_plant"] and {"achieve": {"eat_plant": 1}} in food.success["all"]


def test_how_bare_hands_reproduces_the_hand_written_barehanded_zombie_fight():
    from mineclip.play.agents import ScriptedAgent
    from mineclip.tasks.env import CrafterTaskEnv

    written = get_task("combat_zombie_barehand")
    composed = c({"of": "combat_zombie", "how": "bare_hands"})
    assert composed.solution == written.solution and composed.init["place"] == written.init["place"]
    assert sum(composed.init["inventory"].values()) == 0
    env = CrafterTaskEnv(composed)
    env.reset(seed=3)
    agent = ScriptedAgent(composed.solution, seed=3)
    agent.reset(env)
    for _ in range(composed.max_steps):
        _, _, terminated, truncated, info = env.step(agent.act(env))
        assert info["inventory"]["wood_sword"] == 0
        if terminated or truncated:
            break
    assert info["success"] and env.context.events["hit_zombie"] >= 5  # five bare-handed blows


@pytest.mark.parametrize("recipe, why", [
    ({"and": ["harvest_wood"]}, "at least two atoms"),
    ({"and": ["harvest_wood", "harvest_wood"]}, "twice"),
    ({"of": "harvest_wood", "and": ["a", "b"]}, "exactly one of and/or/of"),
    ({"of": "harvest_wood", "colour": "red"}, "unknown composition keys"),
    ({"of": "nope"}, "unknown task 'nope'"),
    ({"of": "dig_tunnel", "when": "night"}, "no success criterion"),
    ({"and": ["go_to_sleep", "combat_zombie_night"]}, "different time: dusk vs night"),
    ({"and": ["combat_skeleton", "find_cow_near_water_day"]},
     "combat_skeleton places path at \\[5, 1\\] where find_cow_near_water_day places water"),
    ({"and": ["combat_zombie_barehand", "combat_zombie"]}, "empty inventory but combat_zombie starts with wood_sword"),
    ({"of": "combat_zombie_night", "when": "day"}, "contradicts an atom that starts at night"),
    ({"of": "harvest_wood", "when": "teatime"}, "when: expected one of"),
    ({"of": "make_wood_sword", "how": "bare_hands"}, "bare hands contradicts make_wood_sword"),
    ({"of": "combat_zombie", "how": {"tool": "bow"}}, "tool must be one of"),
    ({"of": "hunt_cow", "how": {"method": "eat_plant"}}, "not a way to do"),
    ({"of": "harvest_wood", "naive": "sometimes"}, "naive: expected true or scratch"),
    ({"of": "harvest_wood", "where": {"spawn": {"beach": True}}}, "spawn expects a mapping of near/floor"),
])
def test_illegal_compositions_are_refused_with_the_reason(recipe, why):
    with pytest.raises(CompositionError, match=why):
        c(recipe)


def test_conflicting_placements_on_one_tile_are_refused():
    atoms = load_yaml_tasks("""
a: {prompt: a, category: harvest, success: {achieve: {collect_wood: 1}}, init: {place: [{what: tree, at: [2, 0]}]}}
b: {prompt: b, category: survival, success: {achieve: {collect_drink: 1}}, init: {place: [{what: water, at: [2, 0]}]}}
c: {prompt: c, category: combat, success: {achieve: {eat_cow: 1}}, init: {place: [{what: cow, at: [2, 0]}]}}
""")
    with pytest.raises(CompositionError, match="a places tree at \\[2, 0\\] where b places water"):
        compose("m", {"and": ["a", "b"]}, atoms)
    assert compose("m", {"and": ["a", "c"]}, atoms).init["place"]  # a creature stands on its own layer


def test_a_yaml_composition_error_names_the_task():
    with pytest.raises(ValueError, match="task bad: when: expected one of"):
        load_yaml_tasks("bad: {compose: {of: harvest_wood, when: later}}", known=ATOMS)
