"""Active labelling: the trajectories nearest the judge's threshold first, by hand and on a real set."""

import pytest

from mineclip.label.active import active_order, judge_view, margins, task_thresholds
from mineclip.label.items import read_set


def test_margins_and_order_by_hand():
    # task a: scores 0, 1, 0.4, 0.6 -> K-means centroids 0.2 and 0.8 (SSE 0.16 against 0.187 for
    # the 1|3 split), threshold 0.5, spread 0.6: margins 5/6, 5/6, 1/6, 1/6.
    # task b: scores 10, 20, 12 -> centroids 11 and 20, threshold 15.5, spread 9: 5.5/9, 4.5/9, 3.5/9.
    tasks = ["a", "a", "a", "a", "b", "b", "b"]
    scores = [0.0, 1.0, 0.4, 0.6, 10.0, 20.0, 12.0]
    m, preds, th = margins(tasks, scores)
    assert th["a"] == {"threshold": pytest.approx(0.5), "spread": pytest.approx(0.6), "source": "kmeans"}
    assert th["b"] == {"threshold": pytest.approx(15.5), "spread": pytest.approx(9.0), "source": "kmeans"}
    assert m == pytest.approx([5 / 6, 5 / 6, 1 / 6, 1 / 6, 5.5 / 9, 4.5 / 9, 3.5 / 9])
    assert preds == [0, 1, 0, 1, 0, 1, 0]
    assert active_order(m) == [2, 3, 6, 5, 4, 0, 1]


def test_a_calibrated_threshold_of_the_artifact_is_used_and_unscored_items_go_last():
    th = task_thresholds(["a", "a", "b", "b"], [0.0, 1.0, 0.0, 1.0], {"a": {"mean": 0.9}})
    assert th["a"]["threshold"] == 0.9 and th["a"]["source"] == "calibrated"
    assert th["b"]["threshold"] == 0.5 and th["b"]["source"] == "kmeans"
    assert active_order([0.3, None, 0.1, 0.3]) == [2, 0, 3, 1]
    # one score, or all equal: the spread falls back to 1 instead of dividing by zero
    assert task_thresholds(["c", "c"], [2.0, 2.0])["c"]["spread"] == 1.0


def test_the_judge_scores_a_real_set_once_and_reads_the_cache_afterwards(fresh_set, micro_artifact, tmp_path,
                                                                          monkeypatch):
    s = read_set(fresh_set)
    cache = tmp_path / "labels.scores.json"
    # direct-naive: the mean P of the prompt (a random micro model's `direct` reward, P - 1/N, is clipped to 0)
    view = judge_view(s, micro_artifact, mode="direct-naive", cache=cache, progress=False)
    ids = [it.id for it in s.items]
    assert set(view.scores) == set(ids) and not view.failed and cache.is_file()
    assert len(set(view.margins.values())) == len(ids)  # distinct: the order below means something
    assert set(view.preds.values()) == {0, 1}
    order = view.order(ids)
    assert sorted(order) == sorted(ids)
    assert [view.margins[i] for i in order] == sorted(view.margins.values())

    from mineclip.reward import RewardModel

    def no_model(*a, **k):
        raise AssertionError("scored again although the cache holds every score")

    monkeypatch.setattr(RewardModel, "load", no_model)
    again = judge_view(s, micro_artifact, mode="direct-naive", cache=cache, progress=False)
    assert again.scores == pytest.approx(view.scores)
    # another reward mode is another judge: the cache does not answer for it
    with pytest.raises(AssertionError, match="scored again"):
        judge_view(s, micro_artifact, mode="delta", cache=cache, progress=False)


def test_an_unreadable_video_is_listed_with_its_error_and_ordered_last(fresh_set, micro_artifact):
    s = read_set(fresh_set)
    (s.root / s.items[2].media).write_bytes(b"not a video")
    view = judge_view(s, micro_artifact, mode="direct-naive", progress=False)
    assert list(view.failed) == [s.items[2].id]
    assert view.order([it.id for it in s.items])[-1] == s.items[2].id


def test_the_session_orders_by_judge_set_or_shuffle_and_refuses_a_judge_order_without_a_judge(fresh_set, tmp_path):
    from mineclip.label.active import JudgeView, random_order
    from mineclip.label.session import LabelSession
    from mineclip.label.storage import LabelError, LabelStore

    s = read_set(fresh_set)
    store = LabelStore(tmp_path / "labels.jsonl", s)
    ids = [it.id for it in s.items]
    margins = {i: float(k % 3) + k / 100 for k, i in enumerate(ids)}
    view = JudgeView("a", {i: 0.0 for i in ids}, margins, {i: 0 for i in ids}, {})
    assert LabelSession(s, store, view, tmp_path / "r.jsonl").order == sorted(ids, key=margins.get)
    assert LabelSession(s, store, None, tmp_path / "r.jsonl").order == ids
    shuffled = LabelSession(s, store, None, tmp_path / "r.jsonl", order="random").order
    assert sorted(shuffled) == sorted(ids) and shuffled != ids and shuffled == random_order(list(reversed(ids)))
    with pytest.raises(LabelError, match="needs --model"):
        LabelSession(s, store, None, tmp_path / "r.jsonl", order="judge")
