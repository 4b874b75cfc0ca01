import numpy as np
import pytest

from mineclip.tasks import get_task
from mineclip.tasks.benchmarks import CONTROL, draw_control, draw_planning, load_benchmark
from mineclip.tasks.difficulty import load_scores
from mineclip.tasks.space import farthest_points, plot_space, representative, skill_of, vectors


@pytest.mark.parametrize("task, skill", [
    ("combat_zombie", "combat"), ("hunt_cow", "combat"), ("make_wood_pickaxe", "crafting"), ("place_table", "crafting"),
    ("place_stone", "building"), ("lay_stone_row", "building"), ("harvest_iron", "mining"), ("dig_tunnel", "mining"),
    ("drink_water", "exploitation"), ("wake_up", "exploitation"), ("find_sand", "navigation"),
    ("find_cow_beach_day", "navigation"), ("wood_and_drink", "mining"), ("fill_food_bar", "combat"),
])
def test_mcu_skill_of_a_task_comes_from_the_atoms_it_asks_for(task, skill):
    assert skill_of(get_task(task)) == skill


def test_farthest_points_pick_the_medoid_then_the_most_dissimilar():
    x = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, 0.0], [10.0, 0.0], [0.5, 0.1]])
    picks = farthest_points(x, 3)
    assert picks[0] in (2, 4) and picks[1] == 3 and picks[2] == 0
    assert representative(list("abcde"), x, 2) == [["c", "e"][picks[0] == 4], "d"]
    assert farthest_points(x, 0) == [] and len(farthest_points(x, 9)) == 5


def test_vectors_and_the_map_png(tmp_path):
    ids, x = vectors()
    assert x.shape == (len(ids), 6) and x.min() >= 0 and x.max() <= 5
    with pytest.raises(ValueError, match="no task has all six"):
        vectors({})
    coords = np.random.default_rng(0).normal(size=(4, 2))
    path = plot_space(list("abcd"), coords, {"category": ["x", "x", "y", "y"]}, tmp_path / "m.png", {"b": {"a"}})
    assert path.stat().st_size > 1000


def test_the_two_benchmarks_are_drawn_as_mcu_draws_them():
    scores = load_scores()
    control = draw_control(scores)
    for skill, k in CONTROL.items():
        group = control["by_group"][skill]
        assert 0 < len(group) <= k and all(skill_of(get_task(t)) == skill for t in group), skill
        assert all(scores[t]["time"] <= 3 and "mcu-molecule" not in get_task(t).tags for t in group)
    assert len(control["by_group"]["molecules"]) == 8
    assert all("mcu-molecule" in get_task(t).tags for t in control["by_group"]["molecules"])
    planning = draw_planning(scores)
    assert len(planning["tasks"]) >= 8 and "naive_stone_pickaxe" in planning["tasks"]
    assert all("naive" in get_task(t).tags for t in planning["tasks"])
    levels = [planning["planning"][t] for t in planning["tasks"]]
    assert levels == sorted(levels)
    assert load_benchmark("control")["tasks"] and load_benchmark("planning")["tasks"]
    with pytest.raises(ValueError, match="unknown benchmark"):
        load_benchmark("speedrun")
