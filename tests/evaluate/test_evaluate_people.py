"""`mineclip eval` against people: several labellers merged per trajectory, majority vote, F1 against
people beside F1 against the criterion, kappas by hand, and a task that only people can judge."""

import json
from fractions import Fraction

import numpy as np
import pytest

from mineclip.data.video import write_mp4
from mineclip.evaluate.agreement import majority
from mineclip.evaluate.cli import main as eval_main
from mineclip.evaluate.judge import binary_metrics
from mineclip.play.record import read_jsonl
from mineclip.tasks.spec import TaskSpec

from helpers.labelling import people_task, record_set

REFERENCE = [1, 0, 1, 0, 1, 0]
PEOPLE = {"human:A": [1, 0, 1, 0, 0, 0], "human:B": [1, 0, 0, 0, 0, 1], "human:C": [1, 1, 1, 0]}


def frames(success: bool, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    f = rng.integers(90, 130, (10, 64, 96, 3)).astype(np.int16)
    if success:
        f[5:, :, :, 1] += 100
    return np.clip(f, 0, 255).astype(np.uint8)


@pytest.fixture(scope="module")
def labelled(tmp_path_factory):
    """A set of 6 trajectories labelled by the criterion, and three people's labels in another file."""
    root = tmp_path_factory.mktemp("people")
    lines, votes = [], []
    for i, ref in enumerate(REFERENCE):
        write_mp4(root / "videos" / f"t{i}.mp4", frames(bool(ref), i))
        lines.append({"id": f"t{i}", "task_id": "harvest_wood", "video": f"videos/t{i}.mp4", "label": ref,
                      "labeller": "success-criterion"})
    for name, labels in PEOPLE.items():
        for i, lab in enumerate(labels):
            votes.append({"id": f"t{i}", "task_id": "harvest_wood", "video": f"videos/t{i}.mp4", "label": lab,
                          "labeller": name, "time": "2024-01-01T00:00:00+00:00"})
    votes.append({**votes[0], "label": 0})  # A changes t0 to failure ...
    votes.append({**votes[0], "label": 1})  # ... and back: the latest line counts
    (root / "set.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    (root / "people.jsonl").write_text("".join(json.dumps(x) + "\n" for x in votes))
    return root


def _eval(artifact, out, *labels):
    args = ["--model", str(artifact), "--out", str(out), "--no-untrained", "--quiet"]
    for f in labels:
        args += ["--labels", str(f)]
    rc = eval_main(args)
    return rc, json.loads((out / "metrics.json").read_text()), (out / "report.md").read_text()


def test_eval_judges_against_the_people_majority_beside_the_criterion(labelled, micro_artifact, tmp_path):
    rc, m, report = _eval(micro_artifact, tmp_path / "r", labelled / "set.jsonl", labelled / "people.jsonl")
    assert rc == 0
    assert m["counts"]["judged"] == 6 and m["counts"]["skipped"] == 0
    people = m["people"]
    row = people["tasks"]["harvest_wood"]
    assert (row["n"], row["people"], row["ties"], row["labellers"]) == (6, 5, 1, 3)
    # majority: t0 1, t1 0 (A, B against C), t2 1, t3 0, t4 0, t5 a tie (A 0, B 1)
    votes = [[PEOPLE[n][i] for n in PEOPLE if i < len(PEOPLE[n])] for i in range(6)]
    assert [majority(v) for v in votes] == [1, 0, 1, 0, 0, None]
    # the label judged against: people where they have a majority, else the criterion (t5: 0)
    entry = m["models"]["micro"]["harvest_wood"]
    assert entry["rules"]["mean"]["kmeans"]["labels"] == [1, 0, 1, 0, 0, 0]
    assert entry["labels"] == {"people": 5, "success-criterion": 1}
    preds = entry["rules"]["mean"]["kmeans"]["preds"]
    assert row["f1_people"] == pytest.approx(binary_metrics([1, 0, 1, 0, 0], preds[:5])["f1"])
    assert row["f1_reference_same"] == pytest.approx(binary_metrics(REFERENCE[:5], preds[:5])["f1"])
    assert row["f1_reference"] == pytest.approx(binary_metrics(REFERENCE, preds)["f1"])
    # people vs criterion on t0..t4: [1,0,1,0,0] vs [1,0,1,0,1]: p_o .8, p_e .48 -> 0.32 / 0.52
    assert people["people_vs_reference"]["kappa"] == pytest.approx(0.32 / 0.52)
    assert people["people_vs_reference"]["agreement"] == pytest.approx(0.8)
    pairs = {(p["a"], p["b"]): p for p in people["pairwise"]}
    assert pairs[("human:A", "human:B")]["kappa"] == pytest.approx(0.25)  # 4/6 agree, p_e 5/9
    assert pairs[("human:A", "human:C")]["kappa"] == pytest.approx(0.5)  # 3/4 agree, p_e 1/2
    assert pairs[("human:B", "human:C")]["kappa"] == pytest.approx(0.2)  # 2/4 agree, p_e 3/8
    p_bar, p0 = Fraction(11, 18), Fraction(9, 16)  # Fleiss over the 6 items with 2-3 raters
    p_e = p0 ** 2 + (1 - p0) ** 2
    assert people["fleiss"] == {"kappa": pytest.approx(float((p_bar - p_e) / (1 - p_e))), "n": 6}
    assert people["labellers"] == {"human:A": 6, "human:B": 6, "human:C": 4}
    est = people["estimate"]
    assert est["labelled"] == 5 and est["total"] == 6 and est["low"] <= est["estimate"] <= est["high"]
    # report.md says which labels are human, and what people and the criterion give
    assert "## The judge against people" in report and "`human:A` 6" in report
    assert "| harvest_wood | 5 (6) | 3 | 1 |" in report
    assert "people 5, success-criterion 1" in report
    assert "Fleiss' kappa over the 6 trajectories" in report and "Estimated mean F1 against people" in report


def test_people_labels_alone_are_judged_and_a_tie_without_criterion_is_reported(labelled, micro_artifact, tmp_path):
    rc, m, report = _eval(micro_artifact, tmp_path / "r", labelled / "people.jsonl")
    assert rc == 0
    assert m["counts"]["judged"] == 5 and m["counts"]["by_kind"] == {"no_majority": 1}
    assert [p["id"] for p in m["problems"]] == ["t5"]
    assert m["people"]["tasks"]["harvest_wood"]["f1_reference"] is None
    assert "no_majority" in report


def test_without_people_labels_the_report_has_no_people_section(labelled, micro_artifact, tmp_path):
    rc, m, report = _eval(micro_artifact, tmp_path / "r", labelled / "set.jsonl")
    assert rc == 0 and m["people"] is None and "against people" not in report
    assert m["models"]["micro"]["harvest_wood"]["labels"] == {"success-criterion": 6}


def test_a_creative_task_without_an_oracle_is_labelled_by_people(tmp_path, micro_artifact):
    spec = TaskSpec("paint", "paint a picture", "creative", kind="creative")
    assert spec.oracle is None and spec.labeller == "human"
    with people_task(tmp_path) as task:
        labels = record_set(tmp_path / "set", [task], per_label=2)
        recs = read_jsonl(labels)
        assert len(recs) == 4 and {r["label"] for r in recs} == {None} and {r["labeller"] for r in recs} == {"human"}
        assert sorted(r["agent"] == "scripted" for r in recs) == [False, False, True, True]
        # the set alone: nothing to judge against, every line reported
        rc, m, report = _eval(micro_artifact, tmp_path / "r0", labels)
        assert rc == 1 and m["counts"]["by_kind"] == {"unlabelled": 4} and "unlabelled" in report
        # with a person's labels: judged, against people only
        votes = [{**r, "label": int(r["agent"] == "scripted"), "labeller": "human:ana"} for r in recs]
        (labels.parent / "people.jsonl").write_text("".join(json.dumps(v) + "\n" for v in votes))
        rc, m, report = _eval(micro_artifact, tmp_path / "r1", labels, labels.parent / "people.jsonl")
        assert rc == 0 and m["counts"]["judged"] == 4
        row = m["people"]["tasks"][task]
        assert row["people"] == 4 and row["f1_reference"] is None and row["reference_labellers"] == []
        assert f"| model | {task} | mean |" in report and f"| {task} | 4 (4) | 1 | 0 |" in report
        assert "people 4" in report
