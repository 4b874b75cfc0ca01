import json
import tarfile

import pytest

from mineclip.data.video import video_info
from mineclip.tasks.cli import main
from mineclip.tasks.record import evalset, make_jobs, read_jsonl, record
from mineclip.tasks.seeds import EVAL_SEED_START, split_of, world_seeds

KEYS = {"id", "task_id", "prompt", "video", "label", "labeller", "seed", "world_seed", "agent", "noise", "fps",
        "num_steps", "actions", "events", "success"}


def test_record_writes_videos_and_json_lines_in_the_contract_format(tmp_path):
    jobs = make_jobs(["harvest_wood", "find_water"], ["scripted", "near_miss"], 1, worlds=1)
    path = record(jobs, tmp_path, workers=2, progress=False)
    recs = read_jsonl(path)
    assert len(recs) == 4
    for r in recs:
        assert KEYS <= set(r)
        assert len(r["actions"]) == len(r["events"]) == len(r["success"]) == r["num_steps"]
        assert r["label"] == int(r["success"][-1]) and r["fps"] == 8
        assert r["labeller"] == ("oracle" if r["task_id"] == "find_water" else "success-criterion")
        info = video_info(tmp_path / r["video"])
        assert info["frames"] == r["num_steps"] + 1 and (info["height"], info["width"]) == (160, 256)
        json.dumps(r)
    assert {r["label"] for r in recs if r["agent"] == "scripted"} == {1}


def test_seed_split_rule_keeps_train_and_eval_worlds_apart():
    assert split_of(world_seeds("train", 5)[-1]) == "train" and split_of(world_seeds("eval", 5)[0]) == "eval"
    assert set(world_seeds("train", 100)).isdisjoint(world_seeds("eval", 100))
    with pytest.raises(ValueError):
        world_seeds("train", 10, offset=EVAL_SEED_START - 5)


def test_evalset_has_n_successes_and_n_failures_on_eval_worlds(tmp_path):
    path, counts = evalset(["harvest_wood"], 2, tmp_path, workers=1, worlds=2, progress=False)
    recs = read_jsonl(path)
    assert counts == {"harvest_wood": (2, 2)}
    assert all(r["world_seed"] >= EVAL_SEED_START and r["split"] == "eval" for r in recs)


def test_evalset_lists_tasks_in_the_order_asked_whatever_finishes_first(tmp_path):
    # the slower task comes first: parallel workers must not reorder the file (runs are compared byte for byte)
    path, _ = evalset(["make_wood_pickaxe", "harvest_wood"], 1, tmp_path, workers=2, worlds=2, progress=False)
    tasks = [r["task_id"] for r in read_jsonl(path)]
    assert tasks == sorted(tasks, key=["make_wood_pickaxe", "harvest_wood"].index) and len(set(tasks)) == 2


def test_evalset_successes_go_on_for_the_tail_after_success(tmp_path):
    # every reward window that ends within `tail` steps after the success holds it; episodes are
    # at least 17 frames long, so an early success goes on longer
    for tail in (3, 9):
        path, _ = evalset(["harvest_wood"], 2, tmp_path / str(tail), workers=1, worlds=2, progress=False, tail=tail)
        successes = [r for r in read_jsonl(path) if r["label"]]
        assert len(successes) == 2
        for r in successes:
            first = r["success"].index(True)
            assert r["num_steps"] - 1 - first == max(tail, 15 - first)


def test_clips_command_writes_narrated_shards(tmp_path):
    out = tmp_path / "clips"
    assert main(["clips", "--out", str(out), "--num-clips", "12", "--workers", "1", "--tasks",
                 "harvest_wood,drink_water"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["total"] == 12
    with tarfile.open(out / "train-000000.tar") as tf:
        texts = [tf.extractfile(m).read().decode() for m in tf.getmembers() if m.name.endswith(".txt")]
    assert len(texts) == 12 and all(t.strip() for t in texts)


def test_list_and_show_commands(capsys):
    assert main(["list", "--category", "combat"]) == 0
    out = capsys.readouterr().out
    assert "combat_zombie" in out and "harvest_wood" not in out
    assert main(["show", "harvest_wood"]) == 0
    assert "chop a tree" in capsys.readouterr().out
    assert main(["show", "nope"]) == 1


def test_evalset_command_takes_the_tail(tmp_path):
    out = tmp_path / "ev"
    assert main(["evalset", "--out", str(out), "--tasks", "harvest_wood", "--per-label", "1", "--workers", "1",
                 "--tail", "11"]) == 0
    (success,) = [r for r in read_jsonl(out / "evalset.jsonl") if r["label"]]
    first = success["success"].index(True)
    assert success["num_steps"] - 1 - first == max(11, 15 - first)
