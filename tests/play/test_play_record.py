import json

import pytest

from mineclip.data.video import video_info
from mineclip.play.cli import main
from mineclip.play.record import make_jobs, read_jsonl, record
from mineclip.tasks.world_seeds import purpose_of

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
        assert purpose_of(r["world_seed"]) == "play" and r["split"] == "train"
        info = video_info(tmp_path / r["video"])
        assert info["frames"] == r["num_steps"] + 1 and (info["height"], info["width"]) == (160, 256)
        json.dumps(r)
    assert {r["label"] for r in recs if r["agent"] == "scripted"} == {1}


def test_no_episodes_or_no_worlds_are_refused_with_a_clear_error(capsys, tmp_path):
    # --episodes -2 wrote an empty file and exited 0; --worlds 0 was a ZeroDivisionError's traceback
    for kwargs in (dict(episodes=0), dict(episodes=-2), dict(episodes=1, worlds=0)):
        with pytest.raises(ValueError, match="expected at least 1 episode and 1 world"):
            make_jobs(["harvest_wood"], ["scripted"], **kwargs)
    for argv in (["--episodes", "-2"], ["--worlds", "0"]):
        assert main(["record", "--tasks", "harvest_wood", "--out", str(tmp_path / "r"), *argv]) == 1
        assert "expected at least 1 episode and 1 world" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()
