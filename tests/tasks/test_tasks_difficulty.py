import math

import pytest

from mineclip.tasks.difficulty import (calibrate, dependency_graph, permutation_entropy, planning_complexity,
                                       scores_from_raw)


def test_permutation_entropy_by_hand():
    # windows of [1,2,3,1,2]: (1,2,3) (2,3,1) (3,1,2) -> patterns 012, 201, 120: three equiprobable
    assert permutation_entropy([1, 2, 3, 1, 2]) == pytest.approx(math.log(3) / math.log(6))
    assert permutation_entropy([5, 5, 5, 5]) == 0.0  # ties keep order: one pattern
    assert permutation_entropy([1, 2]) == 0.0


def test_planning_complexity_of_wooden_pickaxe_by_hand():
    # wood_pickaxe <- wood, wood_pickaxe <- table, table <- wood, wood <- tree: V=4, E=4
    v, e = dependency_graph(["wood_pickaxe"])
    assert v == {"wood_pickaxe", "wood", "table", "tree"} and len(e) == 4
    assert planning_complexity(["wood_pickaxe"]) == 8
    # what the inventory already holds is not expanded
    assert planning_complexity(["stone_pickaxe"], {"wood_pickaxe": 1}) < planning_complexity(["stone_pickaxe"])


def test_calibration_maps_quintiles_to_0_5():
    raw = {str(i): float(i) for i in range(11)}  # 0..10: quintiles at 0, 2, 4, 6, 8, 10
    cal = calibrate(raw)
    assert cal["0"] == 0 and cal["2"] == 1 and cal["5"] == 2.5 and cal["10"] == 5
    assert calibrate({"a": 3.0, "b": 3.0}) == {"a": 0.0, "b": 0.0}


def test_scores_keep_raw_values_and_optional_human_ratings():
    raw = {"a": {"time": 1, "effort": 0.1, "planning": 2}, "b": {"time": 9, "effort": 0.9, "planning": 8}}
    s = scores_from_raw(raw, {"b": {"creativity": 4}})
    assert s["a"]["time"] == 0 and s["b"]["time"] == 5 and s["b"]["creativity"] == 4 and "raw" in s["a"]
