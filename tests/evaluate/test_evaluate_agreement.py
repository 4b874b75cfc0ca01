"""Agreement statistics and the F1 estimate against hand-computed values."""

from fractions import Fraction

import numpy as np
import pytest

from mineclip.evaluate.agreement import cohen_kappa, fleiss_from_votes, fleiss_kappa, majority, pairwise_kappas
from mineclip.evaluate.estimate import estimate_f1
from mineclip.evaluate.judge import binary_metrics


def test_majority_is_the_most_common_vote_and_none_on_a_tie():
    assert majority([1, 1, 0]) == 1
    assert majority([0]) == 0
    assert majority([1, 0]) is None
    assert majority([]) is None


def test_cohen_kappa_of_the_textbook_example():
    # 50 items: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no -> p_o 0.7, p_e 0.5, kappa 0.4
    a = [1] * 25 + [0] * 25
    b = [1] * 20 + [0] * 5 + [1] * 10 + [0] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    assert cohen_kappa(a, a) == pytest.approx(1.0)
    assert cohen_kappa([1, 0], [0, 1]) == pytest.approx(-1.0)


def test_cohen_kappa_is_undefined_when_chance_agreement_is_certain():
    assert cohen_kappa([1, 1, 1], [1, 1, 1]) is None
    assert cohen_kappa([], []) is None
    with pytest.raises(ValueError, match="same length"):
        cohen_kappa([1], [1, 0])


def test_fleiss_kappa_of_the_textbook_example():
    # 10 subjects, 14 raters, 5 categories (Fleiss 1971, as on Wikipedia): kappa 0.210
    table = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
             [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    assert fleiss_kappa(np.array(table)) == pytest.approx(0.2099, abs=1e-4)


def test_fleiss_kappa_by_hand_with_three_raters_and_with_varying_raters():
    # votes [1,1,1], [1,1,0], [0,0,0]: P = (1 + 1/3 + 1) / 3 = 7/9, p1 = 5/9, P_e = 41/81 -> 22/40
    votes = {0: {"a": 1, "b": 1, "c": 1}, 1: {"a": 1, "b": 1, "c": 0}, 2: {"a": 0, "b": 0, "c": 0}}
    kappa, n = fleiss_from_votes(votes)
    assert (kappa, n) == (pytest.approx(22 / 40), 3)
    # an item with one rater is left out; one with two counts with n_i = 2
    votes[3] = {"a": 1}
    votes[4] = {"a": 1, "b": 0}
    kappa, n = fleiss_from_votes(votes)
    p_bar = Fraction(1 + Fraction(1, 3) + 1 + 0, 4)
    p1 = Fraction(3 + 2 + 0 + 1, 11)
    p_e = p1 ** 2 + (1 - p1) ** 2
    assert n == 4 and kappa == pytest.approx(float((p_bar - p_e) / (1 - p_e)))
    assert fleiss_kappa(np.array([[3, 0], [2, 0]])) is None  # everyone said the same: undefined


def test_pairwise_kappas_use_the_items_both_raters_labelled():
    votes = {0: {"a": 1, "b": 1, "c": 1}, 1: {"a": 0, "b": 0}, 2: {"a": 1, "b": 0, "c": 1}, 3: {"c": 0}}
    rows = {(r["a"], r["b"]): r for r in pairwise_kappas(votes)}
    assert rows[("a", "b")]["n"] == 3 and rows[("a", "b")]["agreement"] == pytest.approx(2 / 3)
    assert rows[("a", "b")]["kappa"] == pytest.approx(cohen_kappa([1, 0, 1], [1, 0, 0]))
    assert rows[("a", "c")]["n"] == 2 and rows[("a", "c")]["kappa"] is None  # both 1, 1: undefined
    assert rows[("b", "c")]["n"] == 2 and rows[("b", "c")]["agreement"] == pytest.approx(0.5)


def _toy(n=60, seed=1):
    rng = np.random.default_rng(seed)
    tasks = [f"t{i % 3}" for i in range(n)]
    y = rng.integers(0, 2, n)
    preds = np.where(rng.random(n) < 0.85, y, 1 - y)
    return tasks, preds.tolist(), y.tolist()


def test_f1_estimate_is_exact_once_every_trajectory_is_labelled():
    tasks, preds, y = _toy()
    est = estimate_f1(tasks, preds, y)
    per_task = {t: [i for i in range(len(y)) if tasks[i] == t] for t in ("t0", "t1", "t2")}
    exact = np.mean([binary_metrics([y[i] for i in ix], [preds[i] for i in ix])["f1"] for ix in per_task.values()])
    assert est.estimate == pytest.approx(exact) and est.low == pytest.approx(exact) and est.high == pytest.approx(exact)
    assert est.labelled == est.total == 60 and set(est.tasks) == {"t0", "t1", "t2"}


def test_f1_estimate_interval_narrows_as_labels_come_in():
    tasks, preds, y = _toy()
    order = np.random.default_rng(2).permutation(len(y))
    widths = []
    for k in (0, 15, 30, 45, 60):
        labels = [None] * len(y)
        for i in order[:k]:
            labels[i] = y[i]
        est = estimate_f1(tasks, preds, labels)
        assert est.low <= est.estimate <= est.high and est.labelled == k
        widths.append(est.high - est.low)
    assert widths[0] > 0.3 and widths[-1] == pytest.approx(0.0)
    assert all(a > b for a, b in zip(widths, widths[1:])), widths


def test_f1_estimate_refuses_mismatched_input():
    with pytest.raises(ValueError, match="as many"):
        estimate_f1(["a", "a"], [1], [None, 1])
    with pytest.raises(ValueError, match="at least one"):
        estimate_f1([], [], [])
