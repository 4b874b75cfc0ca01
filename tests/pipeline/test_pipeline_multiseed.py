"""Training seeds of one pipeline run (mineclip.pipeline.multiseed; `mineclip pipeline --seeds/--seed` and
bench/quality.py run them): which folders and options each seed gets, and what is refused before anything
trains."""

from __future__ import annotations

import json
import os

import pytest

from mineclip.pipeline import StageError, load_preset, run_pipeline
from mineclip.pipeline.cli import main
from mineclip.pipeline.multiseed import LOG_NAME, run_seeds, seed_error, seed_pool, seed_runs
from mineclip.pipeline.quality import QualityError, QualitySettings, quality_report


def test_seed_zero_is_the_base_run_and_every_seed_carries_the_common_options(tmp_path):
    runs = seed_runs(tmp_path / "evt", [0, 8, 9], {"model": {"minimal_pairs": "events"}})
    assert [r.run.name for r in runs] == ["evt", "evt-seed8", "evt-seed9"]
    assert runs[0].overrides == {"model": {"minimal_pairs": "events"}}  # the config's own seed, 0
    assert runs[1].overrides == {"model": {"minimal_pairs": "events"}, "seed_everything": 8}
    assert seed_runs(tmp_path / "r", [3])[0].overrides == {"seed_everything": 3}
    for bad in ([1, 1], [-1]):
        with pytest.raises(ValueError, match="distinct and >= 0"):
            seed_runs(tmp_path / "r", bad)


def test_seeds_without_data_or_seed_zero_are_refused_before_anything_runs(tmp_path):
    with pytest.raises(StageError, match="run seed 0 too, give data_from, or make the data first .*--until evalset"):
        run_seeds(tmp_path / "base", load_preset("quick"), [1, 2], jobs=2, progress=False)
    assert not (tmp_path / "base-seed1").exists()
    with pytest.raises(ValueError, match="jobs and workers"):
        run_seeds(tmp_path / "base", load_preset("quick"), [0], jobs=0, progress=False)


def test_the_command_refuses_seed_options_without_seeds(tmp_path, capsys):
    # (what only bench/quality.py can ask, several runs or training options without seeds, the
    # library refuses: tests/pipeline/test_pipeline_quality.py)
    for argv in (["--seeds", "2", "--seed", "3"], ["--jobs", "2"], ["--seed", "-1"], ["--seeds", "0"],
                 ["--seeds", "2", "--force"], ["--seed", "1", "--until", "evalset"]):
        with pytest.raises(SystemExit):
            main(argv)
    # a seed whose base run has no data, from the library and from `mineclip pipeline --seed`: a
    # one-line error, nothing trained
    with pytest.raises(QualityError, match="run seed 0 too"):
        quality_report(QualitySettings([tmp_path / "base"], "quick", [4]))
    assert main(["--out", str(tmp_path / "base"), "--seed", "4", "--preset", "quick"]) == 1
    assert "run seed 0 too" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_each_seed_gets_a_fresh_process():
    """A process reused for a second seed would still hold the first seed's clip cache (8 GB)."""
    with seed_pool(1) as pool:
        pids = [pool.submit(os.getpid).result() for _ in range(3)]
    assert len(set(pids)) == 3 and os.getpid() not in pids


def test_a_seed_process_that_dies_is_reported_as_such():
    """The kernel's OOM killer, as the pool sees it: the process exits mid-seed."""
    with seed_pool(1) as pool:
        died = pool.submit(os._exit, 9).exception()
    err = seed_error(died)
    assert isinstance(err, StageError) and "process died" in str(err) and "fewer --jobs" in str(err)
    other = ValueError("a seed's own error")
    assert seed_error(other) is other


def test_the_seed_table_reads_runs_that_finished(tmp_path):
    """The finished runs are not run again: their metrics are what the table is made of."""
    finished = tmp_path / "base-seed3" / "report"
    finished.mkdir(parents=True)
    (finished / "metrics.json").write_text(json.dumps({"settings": {}}))
    # the base run has no data, but seed 3 is finished: nothing to run
    assert run_seeds(tmp_path / "base", load_preset("quick"), [3], progress=False) == {}


def _judged(f1: float) -> dict:
    return {"rules": {"mean": {"kmeans": {"metrics": {"f1": f1}}}}}


def test_the_summary_warns_of_the_tasks_a_run_lost():
    from mineclip.pipeline.summary import lost_tasks_line

    assert lost_tasks_line("artifact", {"harvest_wood": _judged(0.97), "drink_water": _judged(0.60)}) is None
    line = lost_tasks_line("artifact", {"harvest_wood": _judged(0.97), "drink_water": _judged(0.114),
                                        "find_lava": _judged(0.0)})
    assert line.startswith("warning: artifact scores 2 tasks below F1 60 (find_lava 0.0, drink_water 11.4)")
    assert "--seed_everything" in line


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_seed_that_fails_is_reported_with_its_error_and_the_other_seeds_still_run(tmp_path, jobs):
    # data made with other sizes than the preset's: every seed's pipeline refuses them
    source = tmp_path / "source"
    (source / "stages").mkdir(parents=True)
    for stage in ("clips", "evalset"):
        (source / "stages" / f"{stage}.json").write_text(json.dumps({"seconds": 1.0}))
    (source / "preset.json").write_text(json.dumps(load_preset("default").to_dict()))
    failed = run_seeds(tmp_path / "opt", load_preset("quick"), [0, 3], data_from=source, jobs=jobs, progress=False)
    assert set(failed) == {0, 3}
    assert all(isinstance(e, StageError) and "other sizes" in str(e) for e in failed.values())
    if jobs > 1:  # each job's output went to its run folder
        assert (tmp_path / "opt" / "pipeline.log").is_file() and (tmp_path / "opt-seed3" / "pipeline.log").is_file()


def test_seeds_without_data_make_it_once_and_then_train_every_seed_at_once(tmp_path, capsys):
    # run_seeds makes the data of a base without data alone (run_pipeline until the evalset stage)
    # and then runs every seed, 0 among them, in the pool. Training fails here on purpose (an
    # option no model has), so that what is checked is the order and the folders, not a fit.
    preset_file = tmp_path / "tiny.yaml"
    preset_file.write_text(json.dumps({"clips": {"num_clips": 6, "val_clips": 3}, "train": {"defaults": ["tiny"]},
                                       "evalset": {"tasks": ["harvest_wood"], "per_label": 1}}))
    base = tmp_path / "base"
    failed = run_seeds(base, load_preset(preset_file), [0, 1], {"model": {"no_such_option": 1}}, jobs=2,
                       progress=False)
    assert sorted(p.name for p in (base / "stages").iterdir()) == ["clips.json", "evalset.json"]  # made once, here
    assert (tmp_path / "base-seed1" / "shards").resolve() == (base / "shards").resolve()
    assert set(failed) == {0, 1} and all(isinstance(e, StageError) for e in failed.values())
    assert "[train] ..." in (base / LOG_NAME).read_text()  # seed 0 trained in the pool: its log is in its folder

    # `mineclip pipeline --until evalset`: the same data-only run from the command line
    assert main(["--preset", str(preset_file), "--out", str(base), "--until", "evalset"]) == 0
    out = capsys.readouterr().out
    assert "[clips] done before" in out and "stopped after the evalset stage: clips" in out
    assert not (base / "stages" / "train.json").exists()
    with pytest.raises(SystemExit):  # argparse: not a stage
        main(["--preset", str(preset_file), "--out", str(base), "--until", "nowhere"])
    with pytest.raises(StageError, match="no stage 'nowhere'"):  # the library, before it touches anything
        run_pipeline(tmp_path / "other", load_preset(preset_file), until="nowhere")
    assert not (tmp_path / "other").exists()
