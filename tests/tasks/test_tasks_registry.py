from mineclip.tasks import all_prompts, get_task, list_tasks
from mineclip.tasks.registry import compose, load_yaml_tasks
import pytest


def test_suite_has_enough_programmatic_and_creative_tasks():
    prog = list_tasks(kind="programmatic")
    creative = list_tasks(kind="creative")
    assert len(prog) >= 24 and len(creative) >= 8
    assert {t.category for t in prog} >= {"harvest", "combat", "techtree", "survival"}
    assert all(t.oracle and t.labeller == "oracle" for t in creative)
    assert all(t.labeller == "success-criterion" for t in prog)


def test_table1_analogue_has_four_animal_four_combat_four_creative():
    t1 = list_tasks(tag="table1")
    animal = [t for t in t1 if "animal" in t.tags]
    combat = [t for t in t1 if t.category == "combat" and "animal" not in t.tags]
    creative = [t for t in t1 if t.kind == "creative"]
    assert (len(animal), len(combat), len(creative)) == (4, 4, 4)


def test_get_task_exposes_prompt_guidance_category_kind():
    t = get_task("harvest_wood")
    assert t.prompt == "chop a tree" and t.guidance and t.category == "harvest" and t.kind == "programmatic"
    with pytest.raises(KeyError, match="unknown task"):
        get_task("no_such_task")


def test_all_prompts_are_distinct_and_cover_the_suite():
    prompts = all_prompts()
    assert len(prompts) == len(set(prompts)) >= 32
    assert "chop a tree" in prompts


def test_mcu_molecules_compose_and_naive_and_constraints():
    t = get_task("wood_and_drink")
    assert "mcu-molecule" in t.tags and len(t.success["all"]) == 2
    naive = get_task("naive_wood_pickaxe")
    assert naive.init["naive"] and "inventory" not in naive.init
    night = get_task("drink_at_night")
    assert night.init["time"] == "night" and {"time": "night"} in night.success["all"]
    where = get_task("wood_near_water")
    assert {"near": {"water": 3}} in where.success["all"]


def test_mp5_context_tasks_have_one_to_five_conditions():
    ctx = list_tasks(tag="mp5-context")
    counts = {int(tag.split("-")[1]) for t in ctx for tag in t.tags if tag.startswith("conditions-")}
    assert counts == {1, 2, 3, 4, 5}


def test_yaml_loader_rejects_unknown_fields_and_conditions():
    with pytest.raises(ValueError, match="unknown fields"):
        load_yaml_tasks("x: {prompt: p, category: harvest, success: {achieve: {collect_wood: 1}}, colour: red}")
    with pytest.raises(ValueError, match="unknown success condition"):
        load_yaml_tasks("x: {prompt: p, category: harvest, success: {teleport: 1}}")
    with pytest.raises(ValueError, match="unknown task"):
        compose("m", {"and": ["nope"]}, {})


def test_yaml_on_off_yes_no_are_words_not_booleans():
    """YAML 1.1 reads `on: sand` as {True: "sand"}; the suite's placements would lose their floor."""
    spec = load_yaml_tasks("x: {prompt: p, category: combat, success: {achieve: {eat_cow: 1}}, "
                           "init: {place: [{what: cow, at: [4, 0], on: sand}]}}")["x"]
    assert spec.init["place"][0]["on"] == "sand"
    assert load_yaml_tasks("x: {prompt: p, category: harvest, success: {achieve: {collect_wood: 1}}, "
                           "init: {place: [{what: plant, distance: [2, 3], ripe: true}]}}")["x"].init["place"][0]["ripe"] is True
    context = [t for t in list_tasks(catalogue="context") if any("at" in e for e in t.init.get("place", []))]
    assert any(e.get("on") == "sand" for t in context for e in t.init["place"])
    assert not any(True in e for t in context for e in t.init["place"])


def test_context_task_cow_stands_on_the_sand_it_describes():
    from mineclip.tasks.env import make_env

    env = make_env("find_cow_beach_day")
    env.reset(seed=3)
    world, player = env.world, env.player
    cow_pos = tuple(int(v) for v in player.pos + (4, 0))
    assert world[cow_pos][0] == "sand"
    assert type(world[cow_pos][1]).__name__ == "Cow"
