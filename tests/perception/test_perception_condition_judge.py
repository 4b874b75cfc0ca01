"""The judge by conditions: the same as the whole-prompt judge where a task has only its prompt,
reports the weakest condition, abstains where a condition is unsure, exports what it abstained on."""

import json

import numpy as np
import pytest
from helpers.models import make_micro

from mineclip.evaluate.trajectories import read_labels
from mineclip.perception.condition_judge import (
    ConditionVerdict,
    compare,
    mean_intervals,
    score_trajectories,
    task_conditions,
    write_abstained,
)
from mineclip.perception.context_report import judge_table
from mineclip.play.evalset import EvalsetSettings, record_evalset
from mineclip.reward import RewardModel


def negatives(prompt):
    return [p for p in ("chop a tree", "hunt a cow", "drink water", "just looking around") if p != prompt]


def test_conditions_of_a_judged_task():
    assert [k for k, *_ in task_conditions("find_cow_day", "find a cow during the day", negatives)] == [
        "creature:cow", "time:day"]
    ((key, text, negs, cond),) = task_conditions("harvest_wood", "chop a tree", negatives)
    assert key == "prompt" and text == "chop a tree" and "chop a tree" not in negs and cond is None
    assert task_conditions("no_such_task", "dance", negatives)[0][:2] == ("prompt", "dance")


@pytest.fixture(scope="module")
def labelled(tmp_path_factory):
    out = tmp_path_factory.mktemp("set")
    record_evalset(out, EvalsetSettings(["find_cow_day", "harvest_wood"], per_label=1, worlds=2, tail=2), workers=1,
                   progress=False)
    return out, read_labels(out / "evalset.jsonl")[0]


def test_factored_judge_reports_the_weakest_condition_and_abstains_where_unsure(labelled):
    folder, trajs = labelled
    rm = RewardModel(make_micro(), window=2)
    bands = {"conditions": {"time:day": {"lo": 0.0, "hi": 1.0}}}  # everything unsure about the time of day
    verdicts, problems = score_trajectories(rm, trajs, negatives, bands)
    assert not problems and len(verdicts) == len(trajs) == 4
    by_task = {v.task: v for v in verdicts}
    assert by_task["harvest_wood"].whole == pytest.approx(by_task["harvest_wood"].factored, abs=1e-5)
    cow = by_task["find_cow_day"]
    assert cow.failed in ("creature:cow", "time:day") and cow.abstain and cow.unsure == ["time:day"]
    table = compare(verdicts)
    assert table["find_cow_day"]["abstain"] == 1.0 and table["harvest_wood"]["abstain"] == 0.0
    for t in table.values():  # one success and one failure: every resample is the set itself
        assert t["whole_f1_interval"] == [t["whole_f1"]] * 2 and t["factored_f1_interval"] == [t["factored_f1"]] * 2
    assert write_abstained(verdicts, folder / "abstained.jsonl") == 2
    lines = [json.loads(x) for x in (folder / "abstained.jsonl").read_text().splitlines()]
    assert {x["task_id"] for x in lines} == {"find_cow_day"} and "abstained" in lines[0]
    assert len(read_labels(folder / "abstained.jsonl")[0]) == 2  # what `mineclip label` reads


def test_prompt_only_tasks_can_take_their_scores_from_the_evaluation_of_the_same_model(labelled, tmp_path):
    # the pipeline's evaluation set is judged by the eval stage already; its tasks judged by the
    # prompt alone score the same under both judges, so the perception stage reads them back
    from mineclip.evaluate.run import EvalSettings, evaluate
    from mineclip.model.artifact import save_artifact
    from mineclip.perception.condition_judge import whole_scores

    folder, trajs = labelled
    artifact = save_artifact(make_micro(), tmp_path / "artifact", window=2)
    evaluate(EvalSettings(model=str(artifact), labels=str(folder / "evalset.jsonl"), out=str(tmp_path / "report"),
                          negatives="scene", untrained=False, progress=False))
    rm = RewardModel.load(artifact)
    from mineclip.tasks.negatives import negatives_for

    scene = lambda p: negatives_for(p, "scene")  # noqa: E731
    known = whole_scores(tmp_path / "report" / "metrics.json", str(artifact), folder / "evalset.jsonl", "scene")
    fresh, _ = score_trajectories(rm, trajs, scene)
    reused, _ = score_trajectories(rm, trajs, scene, known=known)
    wood = [i for i, t in enumerate(trajs) if t.task == "harvest_wood"]
    assert wood and all(reused[i].whole == known[trajs[i].id] for i in wood)
    for a, b in zip(fresh, reused):
        assert a.whole == pytest.approx(b.whole, abs=1e-6) and a.factored == pytest.approx(b.factored, abs=1e-6)
    with pytest.raises(ValueError, match="not"):
        whole_scores(tmp_path / "report" / "metrics.json", str(artifact), folder / "evalset.jsonl", "suite")


def test_both_judges_score_the_reward_formula_they_are_given_and_read_back_only_an_evaluation_of_it(labelled,
                                                                                                     tmp_path):
    # the pipeline's preset names the judge's reward formula (`eval.mode`); the perception stage judges
    # with the same one, and must not mix in scores of the eval stage computed with another
    from mineclip.evaluate.run import EvalSettings, evaluate
    from mineclip.model.artifact import save_artifact
    from mineclip.perception.condition_judge import whole_scores
    from mineclip.tasks.negatives import negatives_for

    folder, trajs = labelled
    artifact = save_artifact(make_micro(), tmp_path / "artifact", window=2)
    metrics = tmp_path / "report" / "metrics.json"
    evaluate(EvalSettings(model=str(artifact), labels=str(folder / "evalset.jsonl"), out=str(metrics.parent),
                          negatives="scene", mode="direct-naive", untrained=False, progress=False))
    with pytest.raises(ValueError, match="direct-naive reward"):
        whole_scores(metrics, str(artifact), folder / "evalset.jsonl", "scene")  # asked for direct
    known = whole_scores(metrics, str(artifact), folder / "evalset.jsonl", "scene", "direct-naive")
    rm = RewardModel.load(artifact)
    scene = lambda p: negatives_for(p, "scene")  # noqa: E731
    naive, _ = score_trajectories(rm, trajs, scene, mode="direct-naive")
    reused, _ = score_trajectories(rm, trajs, scene, known=known, mode="direct-naive")
    direct, _ = score_trajectories(rm, trajs, scene)
    for a, b in zip(naive, reused):
        assert a.whole == pytest.approx(b.whole, abs=1e-6) and a.factored == pytest.approx(b.factored, abs=1e-6)
    # direct-naive is the mean P, never below direct's max(P - chance, 0), and above it where P > 0
    for a, d in zip(naive, direct):
        assert a.whole > d.whole and a.factored >= d.factored


def _verdicts(task, successes, failures):
    """A prompt-only task's verdicts: both judges score it the same."""
    return [ConditionVerdict(f"{task}-{i}", task, label, score, score, ["prompt"], [score])
            for i, (label, score) in enumerate([(1, x) for x in successes] + [(0, x) for x in failures])]


def test_both_judges_f1_come_with_bootstrap_intervals_per_task_and_for_the_mean():
    rng = np.random.default_rng(0)
    apart = _verdicts("find_sand", rng.normal(1.0, 0.1, 30), rng.normal(0.0, 0.1, 30))  # always told apart
    mixed = _verdicts("find_cow_day", rng.normal(0.6, 0.3, 30), rng.normal(0.4, 0.3, 30))  # often not
    table = compare(apart + mixed)
    assert table["find_sand"]["whole_f1"] == 1.0 and table["find_sand"]["whole_f1_interval"] == [1.0, 1.0]
    lo, hi = table["find_cow_day"]["whole_f1_interval"]
    assert lo < table["find_cow_day"]["whole_f1"] < hi and hi - lo > 0.1  # 30 + 30 trajectories do not pin it down
    assert table["find_cow_day"]["factored_f1_interval"] == [lo, hi]  # the same scores, the same resamples
    means = mean_intervals(table)
    mean = (table["find_sand"]["whole_f1"] + table["find_cow_day"]["whole_f1"]) / 2
    # find_sand's replicates are all 1 and find_cow_day's the same as for its own interval (seeded by its name)
    assert means["whole"] == pytest.approx([(1 + lo) / 2, (1 + hi) / 2])
    assert means["whole"][0] < mean < means["whole"][1]
    assert means["factored"] == means["whole"]
    by_kind = {"programmatic": {"tasks": 2, "whole": mean, "factored": mean, "whole_interval": means["whole"],
                                "factored_interval": means["factored"]}}
    text = judge_table({"sets": {"context": {"by_kind": by_kind, "tasks": table, "abstained": 0,
                                             "abstained_file": "abstained.jsonl"}}})
    assert f"[{lo:.2f}, {hi:.2f}]" in text and f"[{means['whole'][0]:.2f}, {means['whole'][1]:.2f}]" in text
    assert "| find_sand | 1 | 1.00 [1.00, 1.00] | 1.00 [1.00, 1.00] |" in text
