"""The quality report over pipeline runs (mineclip.pipeline.quality, printed by `mineclip pipeline --seeds`
and bench/quality.py): the tables of finished runs, the spread over them, and what is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers.scripts import run_script

from mineclip.evaluate.judge import SCORE_RULES, judge
from mineclip.pipeline.quality import (
    QualitySettings,
    cross_calibrated_task_f1,
    quality_report,
    seed_table,
    worst_task,
)

TASKS = {"harvest_wood": "programmatic", "drink_water": "programmatic", "find_water": "creative"}


def _judged(scores: list[float], labels: list[int]) -> dict:
    """One task's judgement as `mineclip eval` writes it (every score rule, the same scores)."""
    return {"rules": {rule: {"kmeans": judge(scores, labels, rule=rule).to_dict()} for rule in SCORE_RULES}}


def _finished_run(folder: Path, shift: float) -> Path:
    """A run folder with a report/metrics.json: the trained model separates each task's trajectories
    (less well for a larger `shift`), the untrained one does not."""
    labels = [1, 0] * 6
    trained = {t: _judged([0.9 - shift * (i % 3) if y else 0.1 + shift * (i % 5) for i, y in enumerate(labels)], labels)
               for t in TASKS}
    untrained = {t: _judged([0.5 + 0.01 * (i % 4) for i in range(len(labels))], labels) for t in TASKS}
    metrics = {"settings": {"negatives": "suite", "negatives_source": "the suite's task prompts", "mode": "direct"},
               "models": {"artifact": trained, "untrained": untrained},
               "retrieval": {"artifact": {"v2t_R@1": 0.5, "n": 8, "chance_R@1": 0.125}}}
    (folder / "report").mkdir(parents=True)
    (folder / "report" / "metrics.json").write_text(json.dumps(metrics))
    return folder


def test_the_report_of_finished_runs_holds_each_table_and_the_spread(tmp_path):
    runs = [_finished_run(tmp_path / "a", 0.0), _finished_run(tmp_path / "b", 0.3)]
    # a preset that does not exist: finished runs are read, nothing is run
    report = quality_report(QualitySettings(runs, preset="no-such-preset"))
    assert report.failed == {}
    text = report.text
    assert text.startswith("negatives: suite (the suite's task prompts); reward: direct\n")
    assert "mean F1 creative, score=mean [target 0.80]" in text and "score=topk" in text
    assert "video->text R@1 artifact: 0.500 over 8 held-out clips (chance 0.125)" in text
    assert "mean +- std [95%] over 2" in text and " of 2\n" in text and "fitted on half" in text
    assert "worst task" in text and "9 of 10 seeds meet both with no task below 0.60" in text
    assert "the paper's negatives" not in text  # judged with them already: nothing judged again
    # run a separates every task: both targets met; b does not
    table = seed_table({str(r): json.loads((r / "report" / "metrics.json").read_text()) for r in runs})
    rows = {line.split()[0]: line for line in table.splitlines()}
    assert rows[str(runs[0])[-28:]].endswith("yes            yes")
    assert rows[str(runs[1])[-28:]].endswith("no             no")
    assert "1 of 2         1 of 2" in table


def test_the_worst_task_is_the_trained_models_lowest_f1(tmp_path):
    metrics = json.loads((_finished_run(tmp_path / "a", 0.0) / "report" / "metrics.json").read_text())
    metrics["models"]["artifact"]["drink_water"] = _judged([0.9, 0.8, 0.1, 0.2], [1, 0, 1, 0])
    assert worst_task(metrics) == ("drink_water", pytest.approx(0.5))


def _entry(scores, labels):
    return {"rules": {"mean": {"kmeans": {"scores": scores, "labels": labels}}}}


def test_quality_cross_calibration_fits_on_one_half_and_judges_the_other():
    xcal = cross_calibrated_task_f1
    # separable by any threshold between 0.2 and 0.8 in both halves: every judgement right
    assert xcal(_entry([0.9, 0.1, 0.8, 0.2, 0.85, 0.15], [1, 0, 1, 0, 1, 0])) == 1.0
    # separable as a whole (any threshold in (0.4, 0.5) is right), but not by each half's own fit:
    # the odd half's threshold (0.3) calls the even failure at 0.4 a success, the even half's (0.65)
    # calls the odd success at 0.5 a failure. Pooled: 1 TP, 1 FP, 1 FN -> F1 0.5, where fitting on
    # all four would claim 1.0
    assert xcal(_entry([0.9, 0.5, 0.4, 0.1], [1, 1, 0, 0])) == pytest.approx(0.5)


def test_quality_refuses_seed_options_without_seeds(tmp_path):
    # what bench/quality.py's --seeds/--seed/--run/--train-arg/--data-from/--jobs could ask for
    for bad in ({"seeds": [0, 1], "runs": [Path("a"), Path("b")]}, {"seeds": [0], "runs": [Path("a"), Path("b")]},
                {"jobs": 2}, {"overrides": {"model": {"lr": 1e-4}}}, {"data_from": tmp_path}, {"seeds": [-1]},
                {"seeds": []}, {"runs": []}):
        with pytest.raises(ValueError):
            QualitySettings(**bad)


def test_bench_quality_prints_the_report_of_the_library(tmp_path, capsys):
    """bench/quality.py parses its options and prints `quality_report`'s text, nothing of its own."""
    runs = [_finished_run(tmp_path / "a", 0.0), _finished_run(tmp_path / "b", 0.3)]
    code, out, err = run_script("quality", ["--run", str(runs[0]), "--run", str(runs[1]), "--no-paper-negatives"],
                                capsys)
    assert code == 0, err
    assert out == quality_report(QualitySettings(runs, paper_negatives=False)).text + "\n"


def test_the_command_prints_the_report_over_seeds_that_finished(tmp_path, capsys):
    """`mineclip pipeline --seeds 2`: seed 0 in the run folder, seed 1 in <run>-seed1, both finished: read, not run."""
    from mineclip.pipeline.cli import main

    runs = [_finished_run(tmp_path / "base", 0.0), _finished_run(tmp_path / "base-seed1", 0.3)]
    assert main(["--preset", "quick", "--out", str(runs[0]), "--seeds", "2"]) == 0
    out = capsys.readouterr().out
    assert out == "\n" + quality_report(QualitySettings(runs, paper_negatives=False)).text + "\n"
    assert "mean +- std [95%] over 2" in out and "base-seed1" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["base", "base-seed1"]  # nothing else made
