"""MP5's process-dependent tasks (suite/process.yaml, catalogue `process`): at least 12 on crafter's
technology tree at MP5's five levels, deeper graphs at higher levels, from scratch at a random spawn,
some with a perception-dependent first step, and kept out of the suite the pipeline trains on."""

import itertools

import numpy as np
import pytest

from mineclip.perception.planner import LEVELS, process_level, process_tasks
from mineclip.tasks.env import CrafterTaskEnv
from mineclip.tasks.pretasks import task_graph
from mineclip.tasks.registry import all_prompts, get_task, list_tasks


def test_at_least_twelve_process_tasks_cover_mp5s_five_levels_with_deeper_graphs_higher_up():
    tasks = process_tasks()
    assert len(tasks) >= 12 and {process_level(t) for t in tasks} == set(LEVELS)
    depth = {lv: np.mean([len(task_graph(t).vertices) for t in tasks if process_level(t) == lv]) for lv in LEVELS}
    assert all(depth[a] < depth[b] for a, b in itertools.pairwise(LEVELS)), depth
    assert {"wood_pickaxe", "stone_pickaxe", "furnace", "iron_pickaxe", "diamond"} <= {
        a.split("_", 1)[1] for t in tasks for a in task_graph(t).roots}


def test_process_tasks_start_from_scratch_at_a_random_spawn_and_stay_out_of_the_suite():
    suite = set(all_prompts())
    for t in process_tasks():
        assert t.catalogue == "process" and t.init.get("naive") and t.init.get("spawn_jitter"), t.id
        assert t.prompt not in suite and t not in list_tasks()
    starts = set()
    for seed in (1_400_000, 1_400_001, 1_400_002):
        env = CrafterTaskEnv("mp5_wood_pickaxe")
        env.reset(seed=seed)
        assert not any(env.player.inventory[i] for i in ("wood", "wood_pickaxe", "stone"))
        starts.add(tuple(int(v) for v in env.player.pos))
    assert len(starts) == 3


def test_some_process_tasks_need_water_or_a_cow_found_first():
    finds = {t.id: {a for a in task_graph(t).vertices if a in ("find_water", "find_cow")} for t in process_tasks()}
    assert sum(bool(f) for f in finds.values()) >= 3


def test_a_task_without_a_process_level_is_refused():
    with pytest.raises(ValueError, match="process-<level>"):
        process_level(get_task("find_a_cow"))
