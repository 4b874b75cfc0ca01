"""Conditions as data: derived from the success schema, with minimal pairs and a ground truth."""

import pytest

from mineclip.perception.conditions import (
    TEXT,
    Condition,
    check_conditions,
    conditions_of,
    describe,
    level_of,
    minimal_pairs,
)
from mineclip.sim.state import WorldState
from mineclip.tasks import get_task, list_tasks


def state(daylight=1.0, view=None, inventory=None) -> WorldState:
    return WorldState(step=0, inventory={"health": 9, **(inventory or {})}, achievements={}, pos=(0, 0),
                      facing=(1, 0), facing_kind="grass", sleeping=False, daylight=daylight, view=view or {})


def test_conditions_come_from_the_success_schema_one_per_thing_in_view():
    conds = conditions_of(get_task("find_cow_near_water_day"))
    assert [c.key for c in conds] == ["creature:cow", "terrain:water", "time:day"]
    cow = conds[0]
    assert [k for k, _ in cow.checks] == ["near"] and cow.aspect == "creature"
    assert [c.key for c in conditions_of(get_task("find_sand"))] == ["terrain:sand"]  # in_view + near: one thing


def test_ground_truth_checks_read_the_world_state():
    cow, water, day = conditions_of(get_task("find_cow_near_water_day"))
    near = state(view={"cow": [(1, 0)], "water": [(3, 0)] * 3})
    assert cow.holds(near) and water.holds(near) and day.holds(near)
    assert not cow.holds(state(view={"cow": [(4, 0)]})) and not day.holds(state(daylight=0.1))
    bright = conditions_of({"brightness": "bright"})[0]
    assert bright.holds(state(daylight=0.9)) and not bright.holds(state(daylight=0.6))


def test_minimal_pairs_change_one_condition_and_are_its_negatives():
    cow, water, day = conditions_of(get_task("find_cow_near_water_day"))
    assert day.alternative_texts() == ["it's night"]
    assert TEXT["sand"] in water.alternative_texts() and water.text not in water.alternative_texts()
    pairs = minimal_pairs([cow, water, day])
    assert "find a cow near water at night" in pairs and "find a zombie near water during the day" in pairs
    assert describe([cow, water, day]) not in pairs


def test_context_levels_hold_four_tasks_each_with_time_and_brightness():
    levels: dict[int, list] = {}
    for t in list_tasks(tag="mp5-context", catalogue="all"):
        levels.setdefault(level_of(conditions_of(t)), []).append(t)
    assert sorted(levels) == [1, 2, 3, 4] and all(len(v) >= 4 for v in levels.values())
    aspects = {c.aspect for t in list_tasks(tag="mp5-context", catalogue="all") for c in conditions_of(t)}
    assert {"time", "brightness", "creature", "terrain", "object"} <= aspects


def test_empty_and_contradictory_conditions_are_clear_errors():
    with pytest.raises(ValueError, match="empty"):
        check_conditions([])
    with pytest.raises(ValueError, match="contradictory.*during the day and at night|at night and during the day"):
        check_conditions([Condition("time", "day"), Condition("time", "night")])
    with pytest.raises(ValueError, match="no single list"):
        conditions_of({"any": [{"time": "day"}, {"time": "night"}]})


def test_event_tasks_keep_their_prompt_as_one_condition():
    conds = conditions_of(get_task("harvest_wood"))
    assert [c.aspect for c in conds] == ["event"] and conds[0].text == "chop a tree" and not conds[0].perceivable
