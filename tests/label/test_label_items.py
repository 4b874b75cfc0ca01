"""Reading a set to label: every broken or unsafe line reported with its line number and skipped."""

import json
import os

import pytest

from mineclip.data.video import write_mp4
from mineclip.label.items import read_set

from helpers.labelling import people_task


def test_a_recorded_set_reads_with_prompts_references_and_fps(fresh_set):
    s = read_set(fresh_set)
    assert len(s.items) == 8 and not s.problems
    it = s.items[0]
    assert it.task == "harvest_wood" and it.prompt == "chop a tree" and it.fps == 8.0
    assert it.media.startswith("videos/") and (s.root / it.media).is_file()
    assert it.reference == 1 and it.reference_labeller == "success-criterion" and it.line == 1


def test_broken_lines_are_reported_with_their_line_number_and_skipped(fresh_set, tmp_path):
    good = fresh_set.read_text().splitlines()
    first = json.loads(good[0])
    outside = tmp_path / "elsewhere.mp4"
    outside.write_bytes(b"x")
    os.symlink(outside, fresh_set.parent / "videos" / "link.mp4")
    bad = [
        '{"id": "half a line", ',                                                      # 2
        json.dumps({**first, "id": "t-abs", "video": str(outside)}),                   # 3
        json.dumps({**first, "id": "t-up", "video": "../elsewhere.mp4"}),              # 4
        json.dumps({**first, "id": "t-link", "video": "videos/link.mp4"}),             # 5
        json.dumps({**first, "id": "t-gone", "video": "videos/none.mp4"}),             # 6
        json.dumps({**first, "id": "t-task", "task_id": "no_such_task"}),              # 7
        json.dumps({"id": "t-noprompt", "video": first["video"]}),                     # 8
        json.dumps({**first}),                                                         # 9: same id as line 1
        "[1, 2]",                                                                      # 10
    ]
    fresh_set.write_text("\n".join([good[0]] + bad + good[1:]) + "\n")
    s = read_set(fresh_set)
    assert len(s.items) == 8
    found = {(p.line, p.kind) for p in s.problems}
    assert found == {(2, "broken_json"), (3, "outside_set"), (4, "outside_set"), (5, "outside_set"),
                     (6, "missing_video"), (7, "unknown_task"), (8, "missing_field"), (9, "duplicate_id"),
                     (10, "broken_json")}
    assert "line 5 (t-link): outside_set" in str(next(p for p in s.problems if p.line == 5))


def test_a_folder_of_videos_takes_a_prompt_per_video(tmp_path, rng):
    folder = tmp_path / "clips"
    for name in ("a", "b", "sub/c"):
        write_mp4(folder / f"{name}.mp4", rng.integers(0, 255, (4, 32, 48, 3), dtype="uint8"), fps=4)
    (folder / "a.txt").write_text("\nbuild a house\n")
    (folder / "sub" / "c.txt").write_text("dig a hole")
    s = read_set(folder)
    assert [(it.id, it.prompt) for it in s.items] == [("a.mp4", "build a house"), ("sub/c.mp4", "dig a hole")]
    assert s.items[0].fps == pytest.approx(4.0) and s.items[0].reference is None
    assert [(p.kind, p.id) for p in s.problems] == [("missing_field", "b.mp4")]
    s = read_set(folder, prompt="do something")
    assert [it.prompt for it in s.items] == ["build a house", "do something", "dig a hole"]


def test_a_missing_set_and_an_empty_folder_say_so(tmp_path):
    with pytest.raises(FileNotFoundError, match="no set to label"):
        read_set(tmp_path / "nothing.jsonl")
    (tmp_path / "empty").mkdir()
    assert [p.kind for p in read_set(tmp_path / "empty").problems] == ["missing_video"]


def test_an_unlabelled_set_of_a_people_task_reads_without_references(tmp_path):
    from helpers.labelling import record_set

    with people_task(tmp_path) as task:
        s = read_set(record_set(tmp_path / "set", [task], per_label=1))
    assert len(s.items) == 2 and all(it.reference is None and it.task == task for it in s.items)
