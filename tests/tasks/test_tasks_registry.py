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
