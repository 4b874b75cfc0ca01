"""Every task's success check on a passing and a failing case."""

from collections import Counter

import numpy as np
import pytest

from mineclip.tasks import list_tasks
from mineclip.tasks.env import CrafterTaskEnv
from mineclip.play.record import run_episode
from mineclip.tasks.spec import compile_criterion
from mineclip.sim.state import EpisodeContext, WorldState

ALL = [t.id for t in list_tasks()]


def _state(**kw):
    base = dict(step=0, inventory={"wood": 0, "health": 9, "drink": 5}, achievements={"collect_wood": 0},
                pos=(5, 5), facing=(0, 1), facing_kind="grass", sleeping=False, daylight=1.0, view={})
    base.update(kw)
    return WorldState(**base)


def _ctx(start, now, events=()):
    m = np.zeros((8, 8), np.uint8)
    return EpisodeContext(start=start, state=now, start_map=m, world_map=m, material_ids={}, events=Counter(events))


@pytest.mark.parametrize("spec,now,ok", [
    ({"achieve": {"collect_wood": 1}}, dict(achievements={"collect_wood": 1}), True),
    ({"achieve": {"collect_wood": 1}}, dict(), False),
    ({"gain": {"wood": 2}}, dict(inventory={"wood": 2, "health": 9, "drink": 5}), True),
    ({"have": {"wood": 1}}, dict(), False),
    ({"in_view": {"cow": 1}}, dict(view={"cow": [(2, 0)]}), True),
    ({"near": {"cow": 1}}, dict(view={"cow": [(2, 0)]}), False),
    ({"facing": "cow"}, dict(facing_kind="cow"), True),
    ({"time": "night"}, dict(daylight=0.1), True),
    ({"time": "night"}, dict(daylight=0.9), False),
    ({"survive": 10}, dict(step=10), True),
    ({"survive": 10}, dict(step=10, inventory={"wood": 0, "health": 0, "drink": 5}), False),
    ({"any": [{"facing": "cow"}, {"sleeping": True}]}, dict(sleeping=True), True),
    ({"all": [{"facing": "cow"}, {"sleeping": True}]}, dict(sleeping=True), False),
    ({"view_fraction": {"water": 0.1}}, dict(view={"water": [(0, i) for i in range(15)]}), True),
])
def test_each_condition_on_constructed_states(spec, now, ok):
    assert compile_criterion(spec)(_ctx(_state(), _state(**now))) is ok


def test_event_condition_counts_events_so_far():
    crit = compile_criterion({"event": {"hit_cow": 1}})
    assert crit(_ctx(_state(), _state(), ["hit_cow"])) and not crit(_ctx(_state(), _state()))


@pytest.mark.parametrize("task_id", ALL)
def test_success_check_fails_at_reset_and_passes_after_scripted_play(task_id, scripted_results):
    env = CrafterTaskEnv(task_id)
    env.reset(seed=7)
    assert not env.judge(), "no task may be solved at reset"
    if any(scripted_results[task_id]):
        return
    for seed in range(3, 8):  # passing case on other worlds if the first three failed
        if run_episode(task_id, "scripted", seed=seed, world_seed=seed, tail=0, min_frames=0).record["label"]:
            return
    pytest.fail(f"{task_id}: no passing case found")


@pytest.mark.parametrize("task_id", ["harvest_wood", "hunt_cow", "drink_water", "build_bridge", "lay_stone_row",
                                     "dig_tunnel", "combat_zombie", "make_stone_pickaxe"])
def test_near_miss_play_fails_the_check(task_id):
    rec = run_episode(task_id, "near_miss", seed=1, world_seed=1).record
    assert rec["label"] == 0 and rec["agent"] == "near_miss"
