import math

import numpy as np
import pytest

from mineclip.tasks import get_task
from mineclip.tasks.difficulty import (SCORES, bands, calibrate, difficulty_band, load_scores, ordinal_pattern,
                                       permutation_entropy, planning_complexity, quintile_knots, scores_from_raw)
from mineclip.tasks.proxies import (end_state, intricacy, plan_precision, precision, rarefied_richness,
                                    text_novelty)


def test_ordinal_patterns_rank_ties_in_order_of_occurrence():
    # MCU app. A, footnote 5: (1,2,1) is (1,3,2) and (3,3,1) is (2,3,1)
    assert ordinal_pattern([1, 2, 1]) == (1, 3, 2)
    assert ordinal_pattern([3, 3, 1]) == (2, 3, 1)
    assert ordinal_pattern([5, 5, 5]) == (1, 2, 3)
    assert ordinal_pattern([9, 1, 4]) == (3, 1, 2)


def test_permutation_entropy_by_hand():
    # windows of [1,2,3,1,2]: (1,2,3) (2,3,1) (3,1,2): three patterns, each 1/3 -> ln 3 / ln 3!
    assert permutation_entropy([1, 2, 3, 1, 2]) == pytest.approx(math.log(3) / math.log(6))
    assert permutation_entropy([1, 2, 3, 1, 2], normalize=False) == pytest.approx(math.log(3))
    assert permutation_entropy([4, 4, 4, 4]) == 0.0  # ties keep their order: one pattern
    # (1,2,2) (2,2,1) (2,1,1): patterns 123, 231, 312 (ties by occurrence) -> three, equally often
    assert permutation_entropy([1, 2, 2, 1, 1]) == pytest.approx(math.log(3) / math.log(6))
    # 4 windows, two of one pattern: H = -(1/2 ln 1/2 + 2 * 1/4 ln 1/4)
    assert permutation_entropy([1, 2, 3, 4, 2, 1], normalize=False) == pytest.approx(1.5 * math.log(2))
    assert permutation_entropy([1, 2]) is None  # shorter than D: no pattern at all


def test_quintile_knots_merge_ties_at_their_mean_level():
    assert quintile_knots(range(11)) == [(0, 0), (2, 1), (4, 2), (6, 3), (8, 4), (10, 5)]
    knots = quintile_knots([1, 1, 1, 1, 1, 1, 1, 2, 3, 4])  # Q0..Q3 = 1
    assert knots[0] == (1.0, 1.5) and [k[1] for k in knots[1:]] == [4, 5]


def test_calibration_maps_quintiles_to_0_5_with_ties_and_outliers():
    raw = {str(i): float(i) for i in range(11)}
    cal = calibrate(raw)
    assert cal["0"] == 0 and cal["2"] == 1 and cal["5"] == 2.5 and cal["10"] == 5
    assert calibrate({"a": 3.0, "b": 3.0}) == {"a": 2.5, "b": 2.5}  # one tied knot: the mean level
    tied = calibrate({"a": 1, "b": 1, "c": 1, "d": 1, "e": 1, "f": 1, "g": 1, "h": 2, "i": 3, "j": 4})
    assert tied["a"] == 1.5 and tied["j"] == 5 and 1.5 < tied["h"] < tied["i"] < 5
    # knots from a reference subset; others clip to [0, 5]
    out = calibrate({"a": 0, "b": 10, "x": -5, "y": 50, "m": 5}, reference=["a", "b", "m"])
    assert out["x"] == 0 and out["y"] == 5 and out["a"] == 0 and out["b"] == 5


def test_scores_have_six_calibrated_values_and_human_ratings_override_proxies():
    raw = {t: {k: float(v) for k in SCORES} for t, v in (("a", 1), ("b", 2), ("c", 3))}
    s = scores_from_raw(raw, human={"c": {"creativity": 4.0}})
    assert all(k in s["a"] for k in SCORES) and s["a"]["time"] == 0 and s["c"]["time"] == 5
    assert s["c"]["creativity"] == 4.0 and s["c"]["source"]["creativity"] == "human"
    assert s["b"]["source"]["novelty"] == "proxy" and s["b"]["source"]["time"] == "measured"
    assert s["b"]["overall"] == pytest.approx(np.mean([s["b"][k] for k in SCORES]), abs=1e-3)
    with pytest.raises(ValueError, match="no novelty score"):
        scores_from_raw({"a": {k: 1.0 for k in SCORES if k != "novelty"}})


def test_planning_complexity_counts_what_is_not_already_there():
    # both have the table and the trees placed: make_wood_pickaxe <- collect_wood, E + V = 3
    assert planning_complexity(get_task("make_wood_pickaxe")) == planning_complexity(get_task("naive_wood_pickaxe")) == 3
    # naive: the wooden pickaxe and the wood are gone from the inventory, the stone chain comes back
    assert planning_complexity(get_task("naive_stone_pickaxe")) == 8 > planning_complexity(get_task("make_stone_pickaxe"))
    # "find X" is a search, not obtaining X
    assert planning_complexity(get_task("find_diamond")) == planning_complexity(get_task("find_sand")) == 1
    assert planning_complexity(get_task("harvest_diamond")) == 1  # the pickaxes are held, the diamond placed
    assert planning_complexity(get_task("wake_up")) == 3  # wake_up <- sleep


def test_intricacy_is_the_precision_the_condition_demands():
    assert precision({"achieve": {"collect_wood": 1}}) == 1
    assert precision({"facing": "cow"}) == 2
    assert precision({"near": {"water": 1}}) == 2 and precision({"near": {"water": 4}}) == 1.25
    assert precision({"all": [{"achieve": {"eat_cow": 2}}, {"time": "night"}]}) == 3
    assert precision({"any": [{"achieve": {"eat_cow": 2}}, {"in_view": {"cow": 1}}]}) == 0.5
    assert plan_precision([{"place_row": "stone", "count": 4}]) == 6 and plan_precision([{"goto": "lava", "within": 2}]) == 1.5
    assert intricacy(get_task("lay_stone_row")) > intricacy(get_task("find_water"))  # creative: from the plan
    with pytest.raises(ValueError, match="no precision"):
        precision({"teleport": 1})


def test_rarefied_richness_by_hand():
    assert rarefied_richness(["a", "a", "b"], k=8) == 2  # at most k: observed
    # 10 draws of a, 2 of b; k=8 of 12: P(no b) = C(10,8)/C(12,8) = 45/495
    assert rarefied_richness(["a"] * 10 + ["b"] * 2, k=8) == pytest.approx(1 + 1 - 45 / 495)


def test_end_state_is_a_shape_up_to_translation_rotation_and_mirroring():
    from types import SimpleNamespace

    def ctx(cells):
        start = np.zeros((8, 8), int)
        now = start.copy()
        for x, y in cells:
            now[x, y] = 2
        st = SimpleNamespace(achievements={"place_stone": len(cells)}, inventory={"stone": 0, "food": 3})
        s0 = SimpleNamespace(achievements={"place_stone": 0}, inventory={"stone": len(cells), "food": 5})
        return SimpleNamespace(start=s0, state=st, start_map=start, world_map=now,
                               material_ids={"grass": 0, "stone": 2}, start_plants=set())

    row_a, row_b = end_state(ctx([(1, 1), (2, 1), (3, 1)])), end_state(ctx([(5, 2), (5, 3), (5, 4)]))
    bent = end_state(ctx([(1, 1), (2, 1), (2, 2)]))
    assert row_a == row_b != bent
    assert row_a[0] == (("place_stone", 3),) and row_a[1] == (("stone", -3),)  # food is a vital: left out


def test_text_novelty_by_hand_and_with_a_micro_model(micro_model):
    caps = np.array([[1.0, 0.0], [0.0, 1.0]])
    nov = text_novelty(np.array([[1.0, 0.0], [1.0, 1.0]]), caps, k=1)
    assert nov[0] == pytest.approx(0) and nov[1] == pytest.approx(1 - 1 / math.sqrt(2))
    from mineclip.tasks.proxies import encoder_novelty, lexical_novelty

    captions = ["chopping a tree", "drinking some water", "a cow nearby"]
    m = encoder_novelty(["chopping a tree", "craft an iron sword"], captions, micro_model, k=1)
    assert m[0] == pytest.approx(0, abs=1e-5) and m[1] > 1e-4
    lex = lexical_novelty(["chopping a tree", "craft an iron sword"], captions, k=1)
    assert lex[0] == pytest.approx(0, abs=1e-9) and lex[1] == pytest.approx(1)


def test_cached_scores_are_six_for_every_task_and_bands_split_them():
    from mineclip.tasks import list_tasks

    scores = load_scores()
    tasks = list_tasks(catalogue="suite") + list_tasks(catalogue="generated")  # MP5's context levels are unscored
    assert tasks and all(all(k in scores[t.id] for k in (*SCORES, "overall")) for t in tasks)
    for name in SCORES:
        values = [scores[t.id][name] for t in tasks]
        assert min(values) >= 0 and max(values) <= 5 and len(set(values)) >= 4, name
    b = bands(scores=scores)
    assert set(b.values()) == {"easy", "medium", "hard"}
    assert difficulty_band("harvest_wood") in ("easy", "medium", "hard")
    with pytest.raises(KeyError, match="no difficulty scores"):
        difficulty_band("no_such_task")
