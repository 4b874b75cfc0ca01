import pytest

from mineclip.play.cli import main
from mineclip.play.evalset import EvalsetSettings, record_evalset
from mineclip.play.record import read_jsonl
from mineclip.tasks.world_seeds import EVAL_SEED_START, purpose_of


def _evalset(out, tasks, per_label, workers=1, tail=16):
    return record_evalset(out, EvalsetSettings(tasks, per_label, worlds=2, tail=tail), workers=workers, progress=False)


def test_evalset_has_n_successes_and_n_failures_on_eval_worlds(tmp_path):
    result = _evalset(tmp_path, ["harvest_wood"], 2)
    recs = read_jsonl(result.labels)
    assert result.counts == {"harvest_wood": [2, 2]}
    assert all(r["world_seed"] >= EVAL_SEED_START and r["split"] == "eval" for r in recs)
    assert {purpose_of(r["world_seed"]) for r in recs} == {"evalset"}


def test_a_validation_set_can_be_recorded_on_the_perception_training_worlds(tmp_path):
    result = record_evalset(tmp_path, EvalsetSettings(["find_a_lake"], 1, worlds=2, tail=2, purpose="perception"),
                            workers=1, progress=False)
    recs = read_jsonl(result.labels)
    assert len(recs) == 2 and {purpose_of(r["world_seed"]) for r in recs} == {"perception"}
    assert all(r["split"] == "train" for r in recs)


def test_evalset_lists_tasks_in_the_order_asked_whatever_finishes_first(tmp_path):
    # the slower task comes first: parallel workers must not reorder the file (runs are compared byte for byte)
    result = _evalset(tmp_path, ["make_wood_pickaxe", "harvest_wood"], 1, workers=2)
    tasks = [r["task_id"] for r in read_jsonl(result.labels)]
    assert tasks == sorted(tasks, key=["make_wood_pickaxe", "harvest_wood"].index) and len(set(tasks)) == 2


def test_evalset_successes_go_on_for_the_tail_after_success(tmp_path):
    # every reward window that ends within `tail` steps after the success holds it; episodes are
    # at least 17 frames long, so an early success goes on longer
    for tail in (3, 9):
        result = _evalset(tmp_path / str(tail), ["harvest_wood"], 2, tail=tail)
        successes = [r for r in read_jsonl(result.labels) if r["label"]]
        assert len(successes) == 2
        for r in successes:
            first = r["success"].index(True)
            assert r["num_steps"] - 1 - first == max(tail, 15 - first)


def test_evalset_command_takes_the_tail(tmp_path):
    out = tmp_path / "ev"
    assert main(["evalset", "--out", str(out), "--tasks", "harvest_wood", "--per-label", "1", "--workers", "1",
                 "--tail", "11"]) == 0
    (success,) = [r for r in read_jsonl(out / "evalset.jsonl") if r["label"]]
    first = success["success"].index(True)
    assert success["num_steps"] - 1 - first == max(11, 15 - first)


def test_evalset_command_refuses_an_unknown_task_before_playing(tmp_path, capsys):
    assert main(["evalset", "--out", str(tmp_path / "ev"), "--tasks", "harvest_wod", "--per-label", "1"]) == 1
    # one plain line: not the quotes a KeyError's str() puts around its message
    assert capsys.readouterr().err.startswith("mineclip play: unknown task 'harvest_wod'")
    assert not (tmp_path / "ev").exists()


def test_a_recording_killed_half_way_leaves_no_evalset_to_mistake_for_a_whole_one(tmp_path, monkeypatch):
    import mineclip.play.evalset as evalset

    record = evalset._record_task

    def dies_on_the_second(args):
        if args[0] == "find_water":
            raise KeyboardInterrupt("killed")
        return record(args)

    monkeypatch.setattr(evalset, "_record_task", dies_on_the_second)
    with pytest.raises(KeyboardInterrupt):
        record_evalset(tmp_path, EvalsetSettings(["harvest_wood", "find_water"], 1, worlds=2), workers=1, progress=False)
    assert not (tmp_path / "evalset.jsonl").exists()  # the perception stage records again, not half a set
    monkeypatch.setattr(evalset, "_record_task", record)
    result = record_evalset(tmp_path, EvalsetSettings(["harvest_wood", "find_water"], 1, worlds=2), workers=1, progress=False)
    assert set(result.counts) == {"harvest_wood", "find_water"} and (tmp_path / "evalset.jsonl").is_file()
    assert not (tmp_path / "evalset.jsonl.partial").exists()


def test_context_tasks_get_failures_that_walk_away_or_come_at_the_other_time_of_day(tmp_path):
    # a zombie at night finds near misses, noisy and random players: before these failing attempts,
    # "find a zombie at night" had 1 failure in 315 attempts
    from mineclip.play.evalset import CONTEXT_FAILURES, failure_kinds
    from mineclip.tasks.registry import get_task

    result = record_evalset(tmp_path, EvalsetSettings(["find_zombie_night"], 3, worlds=3, tail=2,
                                                      failures=CONTEXT_FAILURES), workers=1, progress=False)
    assert result.counts == {"find_zombie_night": [3, 3]}
    failed = [r for r in read_jsonl(result.labels) if r["label"] == 0]
    assert any(r.get("init") == {"time": "day"} and r["agent"] == "scripted" and "other_time" in r["id"]
               for r in failed)
    # a find with no time of day in its success takes no other-time attempt
    kinds = [agent for agent, _ in failure_kinds(get_task("find_a_cow"), CONTEXT_FAILURES)]
    assert kinds == ["avoid", "random", "wrong_target"]
    assert failure_kinds(get_task("find_cow_day"), CONTEXT_FAILURES)[1] == ("scripted", {"time": "night"})
    with pytest.raises(ValueError, match="unknown"):
        record_evalset(tmp_path / "x", EvalsetSettings(["find_a_cow"], 1, failures=("sulking",)), progress=False)


@pytest.mark.parametrize("bad, message", [
    (dict(per_label=0), "per_label must be at least 1, got 0"),
    (dict(per_label=-1), "per_label must be at least 1, got -1"),
    (dict(worlds=0), "worlds must be at least 1, got 0"),
    (dict(max_attempts=0), "max_attempts must be at least 1"),
    (dict(tail=-1), "tail is the steps recorded after a success"),
])
def test_settings_that_record_nothing_are_refused_with_a_clear_error(bad, message):
    with pytest.raises(ValueError) as e:
        EvalsetSettings(["harvest_wood"], **bad)
    assert message in str(e.value)


def test_the_command_refuses_them_before_writing(capsys, tmp_path):
    # --per-label -1 wrote an empty set and exited 0; --worlds 0 was a ZeroDivisionError's traceback
    for argv, message in ((["--per-label", "-1"], "per_label must be at least 1"),
                          (["--worlds", "0"], "worlds must be at least 1")):
        assert main(["evalset", "--tasks", "harvest_wood", "--out", str(tmp_path / "e"), *argv]) == 1
        assert message in capsys.readouterr().err
    assert not (tmp_path / "e").exists()
