import itertools
import json
import tarfile
from collections import Counter

import pytest

from mineclip.play.cli import main
from mineclip.play.clips import ClipSettings, plan_episodes, task_schedule
from mineclip.play.narrate import named_kinds

TASKS = ["harvest_wood", "build_bridge", "drink_water", "dig_tunnel"]  # programmatic, creative, ...


def _take(n, *args):
    return list(itertools.islice(task_schedule(*args), n))


def test_unweighted_schedule_is_plain_round_robin():
    assert _take(10, TASKS) == [TASKS[i % 4] for i in range(10)]
    assert _take(10, TASKS, {"creative": 1.0}) == _take(10, TASKS)


def test_weights_by_kind_and_by_task_set_how_often_each_task_plays():
    counts = Counter(_take(600, TASKS, {"creative": 2}))
    assert counts == {"build_bridge": 200, "dig_tunnel": 200, "harvest_wood": 100, "drink_water": 100}
    # a task's own weight outranks its kind's; weight 0 leaves a task out
    counts = Counter(_take(700, TASKS, {"creative": 2, "dig_tunnel": 0.5, "drink_water": 0}))
    assert counts == {"build_bridge": 400, "harvest_wood": 200, "dig_tunnel": 100}
    # spread out, not in runs: every stretch of 3 episodes holds a creative one
    seq = _take(60, TASKS, {"creative": 2})
    assert all({"build_bridge", "dig_tunnel"} & set(seq[i:i + 3]) for i in range(58))


def test_bad_weights_are_refused():
    with pytest.raises(ValueError, match="neither a played task nor a kind"):
        _take(1, TASKS, {"creativ": 2})
    with pytest.raises(ValueError, match=">= 0"):
        _take(1, TASKS, {"harvest_wood": -1})
    with pytest.raises(ValueError, match="no task"):
        _take(1, TASKS, dict.fromkeys(TASKS, 0))


def test_zero_worlds_are_refused_with_a_clear_error(capsys):
    # episodes take the worlds in turn: none to take was a ZeroDivisionError deep in the plan
    with pytest.raises(ValueError, match="at least 1, got 0"):
        ClipSettings(10, worlds=0)
    assert main(["clips", "--worlds", "0", "--num-clips", "2"]) == 1
    assert "at least 1, got 0" in capsys.readouterr().err


@pytest.mark.parametrize("bad, message", [
    (dict(num_clips=0), "num_clips must be at least 1, got 0"),
    (dict(num_clips=-5), "num_clips must be at least 1, got -5"),
    (dict(stride=0), "stride must be at least 1"),
    (dict(clip_len=0), "clip_len must be at least 1"),
    (dict(episode_len=8, clip_len=16), "episode_len (8) must be at least clip_len (16)"),
    (dict(misalign=1.5), "misalign is a probability"),
    (dict(filler=-0.1), "filler is a probability"),
])
def test_settings_that_make_no_clip_are_refused_with_a_clear_error(bad, message):
    with pytest.raises(ValueError) as e:
        ClipSettings(**bad)
    assert message in str(e.value)


def test_a_negative_clip_count_is_refused_by_the_command(capsys, tmp_path):
    # it was "wrote 0 clips in 0 shards", exit 1, no reason given
    assert main(["clips", "--num-clips", "-5", "--out", str(tmp_path / "clips")]) == 1
    assert "num_clips must be at least 1, got -5" in capsys.readouterr().err
    assert not (tmp_path / "clips").exists()


def test_weighted_jobs_keep_the_unweighted_worlds_and_agents():
    # weights change which task an episode plays, not its world, agent or seed: the data stay comparable
    plain = plan_episodes(ClipSettings(400, tasks=TASKS))
    weighted = plan_episodes(ClipSettings(400, tasks=TASKS, task_weights={"creative": 3}))
    strip = lambda jobs: [{k: v for k, v in j.items() if k != "task_id"} for j in jobs]  # noqa: E731
    assert strip(plain) == strip(weighted)
    assert Counter(j["task_id"] for j in weighted)["build_bridge"] > 1.4 * Counter(j["task_id"] for j in plain)["build_bridge"]


def test_clips_command_takes_task_weights(tmp_path, capsys):
    out = tmp_path / "clips"
    assert main(["clips", "--out", str(out), "--num-clips", "8", "--workers", "1", "--tasks",
                 "harvest_wood,lay_stone_row", "--task-weight", "harvest_wood=0"]) == 0
    with tarfile.open(out / "train-000000.tar") as tf:
        metas = [json.load(tf.extractfile(m)) for m in tf.getmembers() if m.name.endswith(".json")]
    assert len(metas) == 8 and {m["task_id"] for m in metas} == {"lay_stone_row"}
    assert json.loads((out / "manifest.json").read_text())["settings"]["task_weights"] == {"harvest_wood": 0.0}
    with pytest.raises(SystemExit):
        main(["clips", "--out", str(out), "--task-weight", "creative"])
    assert "TASK_OR_KIND=WEIGHT" in capsys.readouterr().err
    # a weight for a task that is not played fails before any play, and leaves the shards as they were
    before = sorted(p.name for p in out.iterdir())
    assert main(["clips", "--out", str(out), "--num-clips", "8", "--workers", "1", "--tasks", "harvest_wood",
                 "--task-weight", "hunt_cow=2"]) == 1
    assert "neither a played task nor a kind" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == before


def test_clips_command_writes_narrated_shards(tmp_path):
    out = tmp_path / "clips"
    assert main(["clips", "--out", str(out), "--num-clips", "12", "--workers", "1", "--tasks",
                 "harvest_wood,drink_water"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["total"] == 12
    with tarfile.open(out / "train-000000.tar") as tf:
        texts = [tf.extractfile(m).read().decode() for m in tf.getmembers() if m.name.endswith(".txt")]
        metas = [json.load(tf.extractfile(m)) for m in tf.getmembers() if m.name.endswith(".json")]
    assert len(texts) == 12 and all(t.strip() for t in texts)
    # every clip says what each of its 16 frames shows (the frame read-out's targets)
    assert all(len(m["frame_labels"][f]) == 16 for m in metas for f in ("seen", "near", "day", "inv"))
    # and how fully it shows what its caption names (training's graded_targets)
    assert all(0.0 <= m["completion"] <= 1.0 for m in metas)
    assert all(m["completion"] == 1.0 for m in metas if not any(f.split(":")[0] in ("view", "near", "far") for f in m["says"]))
    # training's size_ranking fields are first person's: top-down shards keep the bytes they had
    assert not any("named" in m or "shares" in m for m in metas)


def test_first_person_clips_say_how_much_of_their_last_frame_each_kind_fills(tmp_path):
    out = tmp_path / "clips"
    assert main(["clips", "--out", str(out), "--num-clips", "6", "--workers", "1", "--tasks", "hunt_cow",
                 "--view", "first_person"]) == 0
    with tarfile.open(out / "train-000000.tar") as tf:
        metas = [json.load(tf.extractfile(m)) for m in tf.getmembers() if m.name.endswith(".json")]
    assert len(metas) == 6
    assert any(m["named"] for m in metas)
    for m in metas:  # training's size_ranking reads both
        assert tuple(m["named"]) == named_kinds(m["says"])
        assert m["shares"] and all(0 < v <= 1 for v in m["shares"].values()) and sum(m["shares"].values()) <= 1.0001
        assert set(m["shares"]) >= {f.split(":", 1)[1] for f in m["holds"] if f.startswith(("view:", "near:"))}
