"""Task difficulty ratings (mineclip.tasks.ratings): mean over raters, each rater's latest counting, appended
as the labels are (locked, synced, a torn last line kept apart)."""

import json

import pytest

from mineclip.tasks.ratings import RATING_DIMENSIONS, append_rating, load_ratings


def test_the_mean_over_raters_of_each_rater_s_latest_rating(tmp_path):
    path = tmp_path / "ratings.jsonl"
    for rater, scores, day in [("ana", (1, 2, 3), 1), ("bo", (3, 4, 5), 2), ("ana", (5, 0, 1), 3)]:
        append_rating(path, "dig_tunnel", rater, dict(zip(RATING_DIMENSIONS, scores)), time=f"2024-01-0{day}T00:00:00")
    append_rating(path, "find_water", "ana", {"intricacy": 0.5, "creativity": 0, "novelty": 0})
    assert load_ratings(path) == {"dig_tunnel": {"intricacy": 4.0, "creativity": 2.0, "novelty": 3.0},
                                  "find_water": {"intricacy": 0.5, "creativity": 0.0, "novelty": 0.0}}
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert len(lines) == 4 and set(lines[0]) == {"task_id", "rater", "time", *RATING_DIMENSIONS}


def test_bad_ratings_are_refused_and_broken_lines_skipped(tmp_path):
    path = tmp_path / "ratings.jsonl"
    ok = {"intricacy": 1, "creativity": 1, "novelty": 1}
    for scores, message in [({**ok, "novelty": 5.5}, "0 to 5"), ({**ok, "novelty": True}, "0 to 5"),
                            ({"intricacy": 1, "creativity": 1}, "missing"), ({**ok, "speed": 1}, "unknown"),
                            ({**ok, "novelty": float("nan")}, "0 to 5")]:
        with pytest.raises(ValueError, match=message):
            append_rating(path, "t", "ana", scores)
    with pytest.raises(ValueError, match="rater"):
        append_rating(path, "t", " ", ok)
    assert not path.exists()
    append_rating(path, "t", "ana", ok)
    with open(path, "a") as f:
        f.write("{broken\n" + json.dumps({"task_id": "t", "rater": "bo", "intricacy": 9, "creativity": 1,
                                           "novelty": 1}) + "\n")
    with pytest.warns(UserWarning, match="broken rating line"):
        assert load_ratings(path) == {"t": {"intricacy": 1.0, "creativity": 1.0, "novelty": 1.0}}


def test_no_file_has_no_ratings(tmp_path):
    assert load_ratings(tmp_path / "none.jsonl") == {} and load_ratings(None) == {}


def test_a_torn_last_line_stays_apart_and_the_next_rating_is_whole(tmp_path):
    path = tmp_path / "ratings.jsonl"
    append_rating(path, "t", "ana", {"intricacy": 1, "creativity": 1, "novelty": 1})
    with open(path, "a") as f:
        f.write('{"task_id": "t", "rater": "bo", "intri')  # a crash mid-write
    append_rating(path, "t", "cy", {"intricacy": 3, "creativity": 3, "novelty": 3})
    lines = path.read_text().splitlines()
    assert len(lines) == 3 and json.loads(lines[2])["rater"] == "cy"
    with pytest.warns(UserWarning, match="broken rating line"):
        assert load_ratings(path) == {"t": {"intricacy": 2.0, "creativity": 2.0, "novelty": 2.0}}


def test_a_rating_is_appended_under_the_lock_and_synced(tmp_path, monkeypatch):
    import fcntl
    import os
    import threading

    path = tmp_path / "ratings.jsonl"
    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd) or real_fsync(fd))
    holder = open(path, "a")
    fcntl.flock(holder, fcntl.LOCK_EX)  # another writer (a second server on the same file) is appending
    writer = threading.Thread(target=append_rating, args=(path, "t", "ana", {"intricacy": 1, "creativity": 1,
                                                                                 "novelty": 1}))
    writer.start()
    writer.join(0.5)
    assert writer.is_alive() and path.read_text() == ""  # waits for the lock
    holder.close()
    writer.join(10)
    assert not writer.is_alive() and len(path.read_text().splitlines()) == 1 and synced


def test_the_ratings_and_the_labels_share_one_append():
    import inspect

    from mineclip.label import storage
    from mineclip.tasks import ratings

    assert "append_line" in inspect.getsource(ratings.append_rating)
    assert "append_to" in inspect.getsource(storage.LabelStore.add)
    assert "fsync" not in inspect.getsource(ratings) and "flock" not in inspect.getsource(storage)
