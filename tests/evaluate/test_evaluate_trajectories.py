"""One line format, one line checker: the judge's reader (`read_labels`) and the labelling app's
(`mineclip.label.items`) report the same problems for the same lines, and keep the same lines."""

import json

from mineclip.evaluate.trajectories import read_labels
from mineclip.tasks.judging import SUITE


def test_the_judge_and_the_labelling_app_read_a_set_alike(tmp_path):
    from mineclip.label.items import read_set

    (tmp_path / "v.mp4").write_bytes(b"not decoded here")
    lines = [{"id": "a", "task_id": "harvest_wood", "video": "v.mp4", "label": 1},
             {"id": "b", "prompt": "chop a tree", "video": "v.mp4", "label": None},
             {"id": "c", "task_id": "no_such_task", "video": "v.mp4", "label": 0},
             {"id": "d", "task_id": "harvest_wood", "video": "v.mp4", "label": "yes"},
             {"id": "e", "task_id": "harvest_wood", "label": 1},
             {"id": "f", "video": "v.mp4", "label": 1},
             {"id": "g", "task_id": "harvest_wood", "video": "gone.mp4", "label": 1}]
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\nnot json\n")
    trajs, problems, n = read_labels(path, SUITE.prompt)
    label_set = read_set(path)
    assert n == 8 and [t.id for t in trajs] == [it.id for it in label_set.items] == ["a", "b"]
    kinds = [(p.line, p.kind) for p in problems]
    assert kinds == [(p.line, p.kind) for p in label_set.problems] == [
        (3, "unknown_task"), (4, "bad_label"), (5, "missing_field"), (6, "missing_field"), (7, "missing_video"),
        (8, "broken_json")]
    assert trajs[0].prompt == label_set.items[0].prompt == SUITE.prompt("harvest_wood")
