"""The label store: every decision appended and synced, later decisions supersede earlier ones in
OUT.jsonl without leaving the history, concurrent writers lose nothing, bad input changes nothing."""

import json
import multiprocessing as mp
import threading

import pytest

from mineclip.evaluate.trajectories import read_labels
from mineclip.label.items import read_set
from mineclip.label.storage import LabelError, LabelStore, history_path


def _lines(path):
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


@pytest.fixture
def store(fresh_set, tmp_path):
    return LabelStore(tmp_path / "out" / "labels.jsonl", read_set(fresh_set))


def test_each_decision_is_appended_at_once_and_the_output_is_the_eval_format(store, fresh_set):
    ids = [it.id for it in store.set.items]
    store.add(ids[0], "success", "ana")
    hist = _lines(store.history)  # on disk before add() returned
    assert len(hist) == 1
    assert hist[0]["id"] == ids[0] and hist[0]["labeller"] == "human:ana" and hist[0]["decision"] == "success"
    assert hist[0]["label"] == 1 and hist[0]["time"].endswith("+00:00")
    store.add(ids[1], "failure", "ana")
    out = _lines(store.out)
    assert [(r["id"], r["label"], r["labeller"]) for r in out] == [(ids[0], 1, "human:ana"), (ids[1], 0, "human:ana")]
    set_lines = {r["id"]: r for r in _lines(fresh_set)}
    assert out[0]["reference_label"] == set_lines[ids[0]]["label"]
    assert out[0]["reference_labeller"] == "success-criterion" and "time" in out[0]
    # the set lives elsewhere: paths are relative to OUT's folder, and eval reads the file as it is
    assert out[0]["video"].startswith("../set/videos/")
    trajs, problems, n = read_labels(store.out)
    assert n == 2 and not problems and all(t.source.is_file() for t in trajs)
    assert [t.labeller for t in trajs] == ["human:ana", "human:ana"]


def test_output_beside_the_set_keeps_the_set_s_relative_paths(fresh_set):
    s = LabelStore(fresh_set.parent / "people.jsonl", read_set(fresh_set))
    item = s.set.items[0]
    s.add(item.id, "failure", "ana")
    assert _lines(s.out)[0]["video"] == item.media


def test_a_later_decision_supersedes_in_the_output_and_stays_in_the_history(store):
    a, b = store.set.items[0].id, store.set.items[1].id
    store.add(a, "success", "ana")
    store.add(a, "failure", "ana")
    store.add(b, "success", "ana")
    store.add(b, "unsure", "ana")  # unsure and skipped are remembered, not labels
    store.add(a, "success", "bo")
    assert [e["decision"] for e in store.entries()] == ["success", "failure", "success", "unsure", "success"]
    out = {(r["id"], r["labeller"]): r["label"] for r in _lines(store.out)}
    assert out == {(a, "human:ana"): 0, (a, "human:bo"): 1}
    assert store.decisions_of("human:ana")[b]["decision"] == "unsure"


def test_a_restarted_store_resumes_with_every_decision(store, fresh_set):
    ids = [it.id for it in store.set.items]
    for i, d in zip(ids, ["success", "failure", "skip"]):
        store.add(i, d, "ana")
    again = LabelStore(store.out, read_set(fresh_set))
    assert {k: v["decision"] for k, v in again.decisions_of("human:ana").items()} == dict(
        zip(ids, ["success", "failure", "skip"]))
    again.add(ids[3], "failure", "ana")
    assert len(_lines(again.history)) == 4 and len(_lines(again.out)) == 3


def test_concurrent_writers_in_one_process_lose_nothing(store):
    ids = [it.id for it in store.set.items]

    def tab(name):
        for k in range(10):
            store.add(ids[k % len(ids)], ["success", "failure"][k % 2], name)

    threads = [threading.Thread(target=tab, args=(f"p{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    hist = _lines(store.history)
    assert len(hist) == 40 and {h["labeller"] for h in hist} == {f"human:p{i}" for i in range(4)}
    assert len(_lines(store.out)) == 4 * min(10, len(ids))


def _other_server(args):
    out, set_path, name = args
    s = LabelStore(out, read_set(set_path))
    for k in range(15):
        s.add(s.set.items[k % len(s.set.items)].id, "success" if k % 3 else "failure", name)
    return name


def test_two_servers_on_the_same_file_do_not_overwrite_each_other(fresh_set, tmp_path):
    out = tmp_path / "shared.jsonl"
    LabelStore(out, read_set(fresh_set))
    ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    with ctx.Pool(2) as pool:
        pool.map(_other_server, [(out, fresh_set, "ana"), (out, fresh_set, "bo")])
    hist = _lines(history_path(out))
    assert len(hist) == 30
    labels = _lines(out)
    assert {r["labeller"] for r in labels} == {"human:ana", "human:bo"} and len(labels) == 2 * 8


def test_bad_decisions_are_refused_and_change_nothing(store):
    item = store.set.items[0].id
    store.add(item, "success", "ana")
    before = (store.history.read_bytes(), store.out.read_bytes())
    for args, message in [(("nope", "success", "ana"), "unknown trajectory"),
                          ((item, "maybe", "ana"), "decision"),
                          ((item, "success", ""), "labeller name"),
                          ((item, "success", "a/b"), "labeller name"),
                          ((item, "success", "x" * 65), "labeller name"),
                          ((item, "success", "ana", "c" * 65), "client")]:
        with pytest.raises(LabelError, match=message):
            store.add(*args)
    assert (store.history.read_bytes(), store.out.read_bytes()) == before


def test_a_torn_last_line_is_skipped_and_the_next_decision_stays_whole(store, fresh_set):
    ids = [it.id for it in store.set.items]
    store.add(ids[0], "success", "ana")
    with open(store.history, "a") as f:
        f.write('{"id": "half a li')  # a crash in the middle of a write
    with pytest.warns(UserWarning, match="broken lines"):
        again = LabelStore(store.out, read_set(fresh_set))
    again.add(ids[1], "failure", "ana")
    assert again.broken_lines == [2]
    assert [e["id"] for e in again.entries()] == [ids[0], ids[1]]


def test_the_store_refuses_to_overwrite_the_set_or_a_foreign_labels_file(fresh_set, tmp_path):
    s = read_set(fresh_set)
    with pytest.raises(LabelError, match="overwrite the set"):
        LabelStore(fresh_set, s)
    foreign = tmp_path / "mine.jsonl"
    foreign.write_text('{"id": "x", "label": 1}\n')
    with pytest.raises(LabelError, match="without its history"):
        LabelStore(foreign, s)
    assert foreign.read_text() == '{"id": "x", "label": 1}\n'
