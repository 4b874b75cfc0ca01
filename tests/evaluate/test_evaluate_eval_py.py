"""eval.py end to end on a micro model and a few recorded trajectories, bad input included."""

import json
from pathlib import Path

import numpy as np
import pytest

from mineclip.data.video import write_mp4
from mineclip.evaluate.cli import main as eval_main
from mineclip.model.artifact import save_artifact

from helpers.models import make_micro

ROOT = Path(__file__).resolve().parents[2]


def trajectory_frames(success: bool, seed: int, n: int = 10) -> np.ndarray:
    """Synthetic 64x96 frames: successes turn green over time, failures stay grey."""
    rng = np.random.default_rng(seed)
    f = rng.integers(90, 130, (n, 64, 96, 3)).astype(np.int16)
    if success:
        f[n // 2 :, :, :, 1] += 100
    return np.clip(f, 0, 255).astype(np.uint8)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    root = tmp_path_factory.mktemp("eval")
    save_artifact(make_micro(seed=0), root / "model", source={"kind": "test"})
    save_artifact(make_micro("avg", seed=1), root / "other", source={"kind": "test"})
    lines = []
    for i in range(6):
        task = "harvest_wood" if i < 4 else "drink_water"
        label = i % 2
        write_mp4(root / "videos" / f"t{i}.mp4", trajectory_frames(bool(label), i))
        lines.append({"id": f"t{i}", "task_id": task, "video": f"videos/t{i}.mp4", "label": label,
                      "labeller": "oracle"})
    from PIL import Image

    frames_dir = root / "frames" / "f0"
    frames_dir.mkdir(parents=True)
    for k, fr in enumerate(trajectory_frames(True, 9, 6)):
        Image.fromarray(fr).save(frames_dir / f"{k:04d}.png")
    lines.append({"id": "png", "prompt": "drink water from the lake", "task_id": "drink_water",
                  "frames": "frames/f0", "label": 1, "labeller": "human"})
    (root / "videos" / "broken.mp4").write_bytes(b"\x00not a video")
    text = [json.dumps(l) for l in lines]
    text.insert(2, '{"id": "half a line", "task_id": ')  # line 3: broken JSON
    text.append(json.dumps({"id": "gone", "task_id": "harvest_wood", "video": "videos/missing.mp4", "label": 0}))
    text.append(json.dumps({"id": "bad", "task_id": "harvest_wood", "video": "videos/broken.mp4", "label": 1}))
    text.append(json.dumps({"id": "who", "task_id": "no_such_task", "video": "videos/t0.mp4", "label": 1}))
    (root / "labels.jsonl").write_text("\n".join(text) + "\n")
    return root


@pytest.fixture(scope="module")
def shards(workspace):
    from mineclip.data.shards import ClipShardWriter

    out = workspace / "shards"
    with ClipShardWriter(out, prefix="val", encoding="raw") as w:
        for i, caption in enumerate(["chop a tree", "drink water", "chop a tree", "hunt a cow"]):
            w.write(trajectory_frames(i % 2 == 0, 20 + i, 16), caption, {"i": i})
    return out


def test_eval_py_writes_table_metrics_and_plots_and_reports_every_bad_line(workspace, shards, capsys):
    out = workspace / "report"
    # the assistant's threshold for free-form commands, saved with the artifact before: calibrating stays beside it
    (workspace / "model" / "judge.json").write_text(json.dumps({"commands": {"threshold": 0.01}}))
    rc = eval_main(["--model", str(workspace / "model"), "--labels", str(workspace / "labels.jsonl"),
                    "--out", str(out), "--baseline", str(workspace / "other"), "--shards", str(shards),
                    "--calibrate", "--quiet"])
    assert rc == 0
    err = capsys.readouterr().err
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["counts"] == {"lines": 11, "judged": 7, "skipped": 4,
                                 "by_kind": {"broken_json": 1, "missing_video": 1, "unreadable_video": 1,
                                             "unknown_task": 1}}
    found = {(p["line"], p["kind"]) for p in metrics["problems"]}
    assert found == {(3, "broken_json"), (9, "missing_video"), (10, "unreadable_video"), (11, "unknown_task")}
    for line in (3, 9, 10, 11):
        assert f"line {line}" in err
    assert set(metrics["models"]) == {"model", "untrained (attn)", "other"}
    assert set(metrics["models"]["model"]) == {"harvest_wood", "drink_water"}
    assert metrics["models"]["model"]["drink_water"]["n"] == 3
    report = (out / "report.md").read_text()
    assert "| model | drink_water | harvest_wood | mean |" in report
    assert "| untrained (attn) |" in report and "| other |" in report
    assert "R@1" in report and metrics["retrieval"]["model"]["n"] == 4
    for png in ("scores_model.png", "confusion_model.png", "reward_curves.png", "scores_other.png"):
        assert (out / png).stat().st_size > 1000
    judge = json.loads((workspace / "model" / "judge.json").read_text())
    assert set(judge["calibration"]["tasks"]) == {"harvest_wood", "drink_water"}
    assert judge["commands"] == {"threshold": 0.01}
    assert {k: judge["calibration"][k] for k in ("mode", "topk", "window", "frame_stride", "negatives")} == \
        {"mode": "direct", "topk": 16, "window": 16, "frame_stride": 1, "negatives": "suite"}


def test_calibrated_thresholds_saved_with_the_artifact_are_used_by_the_next_run(workspace):
    if not (workspace / "model" / "judge.json").exists():
        pytest.skip("needs the calibrating run above")
    out = workspace / "report2"
    rc = eval_main(["--model", str(workspace / "model"), "--labels", str(workspace / "labels.jsonl"),
                    "--out", str(out), "--no-untrained", "--quiet"])
    assert rc == 0
    metrics = json.loads((out / "metrics.json").read_text())
    assert "calibrated" in metrics["models"]["model"]["harvest_wood"]["rules"]["mean"]
    assert "calibrated threshold" in (out / "report.md").read_text()


def test_thresholds_calibrated_under_one_reward_formula_are_refused_under_another(workspace, capsys):
    """`eval --mode delta` after `--calibrate` (direct): the thresholds of direct's scores would be
    applied to delta's and the report would call the result calibrated. It is a clear error instead."""
    if not (workspace / "model" / "judge.json").exists():
        pytest.skip("needs the calibrating run above")
    for option in (["--mode", "delta"], ["--negatives", "scene"], ["--topk", "4"]):
        out = workspace / f"report-{option[1]}"
        rc = eval_main(["--model", str(workspace / "model"), "--labels", str(workspace / "labels.jsonl"),
                        "--out", str(out), "--no-untrained", "--quiet", *option])
        assert rc == 1
        err = capsys.readouterr().err
        assert "calibrated thresholds were fitted under other settings" in err and option[0][2:] in err
        assert not (out / "metrics.json").exists()  # refused before anything was scored


def test_eval_fails_cleanly_when_nothing_can_be_judged(workspace, tmp_path):
    labels = tmp_path / "labels.jsonl"
    labels.write_text("not json\n")
    assert eval_main(["--model", str(workspace / "model"), "--labels", str(labels), "--out", str(tmp_path / "o"),
                      "--no-untrained", "--quiet"]) == 1
    assert "broken_json" in (tmp_path / "o" / "report.md").read_text()


def test_mineclip_eval_and_eval_py_share_one_command(capsys):
    from mineclip.cli import main as mineclip_main

    with pytest.raises(SystemExit) as e:
        mineclip_main(["eval", "--help"])
    assert e.value.code == 0 and "--baseline" in capsys.readouterr().out
    script = (ROOT / "eval.py").read_text()  # through `mineclip`, so -v / -q work as for every command
    assert "from mineclip.cli import main" in script and 'main(["eval", *sys.argv[1:]])' in script


def test_eval_reads_the_task_suites_recorded_evalset(tmp_path):
    from mineclip.play.evalset import EvalsetSettings, record_evalset

    result = record_evalset(tmp_path / "evalset", EvalsetSettings(["harvest_wood"], 1, worlds=1), workers=1,
                            progress=False)
    labels, counts = result.labels, result.counts
    art = tmp_path / "model"
    save_artifact(make_micro(), art)
    out = tmp_path / "report"
    assert eval_main(["--model", str(art), "--labels", str(labels), "--out", str(out), "--no-untrained",
                      "--quiet"]) == 0
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["counts"]["skipped"] == 0
    assert metrics["models"]["model"]["harvest_wood"]["n"] == sum(counts["harvest_wood"])


def test_scene_negatives_reach_the_reward_and_a_bad_value_is_refused(workspace, tmp_path):
    from mineclip.tasks.negatives import scene_prompts

    scores = {}
    for negatives in ("suite", "scene"):
        out = tmp_path / negatives
        assert eval_main(["--model", str(workspace / "model"), "--labels", str(workspace / "labels.jsonl"),
                          "--out", str(out), "--negatives", negatives, "--mode", "direct-naive",
                          "--no-untrained", "--no-calibration", "--quiet"]) == 0
        metrics = json.loads((out / "metrics.json").read_text())
        assert metrics["settings"]["negatives"] == negatives
        entry = metrics["models"]["model"]["harvest_wood"]
        scores[negatives] = dict(zip(entry["ids"], entry["rules"]["mean"]["kmeans"]["scores"]))
    assert f"the narrator's {len(scene_prompts())} event-free captions" in metrics["settings"]["negatives_source"]
    # more prompts in the softmax: every trajectory's P(prompt) is lower
    assert scores["suite"].keys() == scores["scene"].keys()
    assert all(scores["scene"][i] < scores["suite"][i] for i in scores["suite"])

    with pytest.raises(SystemExit, match=r"neither a policy \(suite, distinct, scene, distinct\+scene\) nor a file"):
        eval_main(["--model", str(workspace / "model"), "--labels", str(workspace / "labels.jsonl"),
                   "--out", str(tmp_path / "bad"), "--negatives", "sceen", "--quiet"])


def test_scene_negatives_without_the_task_suite_say_so(workspace, tmp_path, monkeypatch):
    # other labels fall back to their own prompts when the suite cannot be read; 'scene' cannot
    import mineclip.tasks.negatives as negatives

    def broken():
        raise ValueError("suite files missing")

    monkeypatch.setattr(negatives, "scene_prompts", broken)
    with pytest.raises(SystemExit, match="--negatives scene needs the task suite .suite files missing"):
        eval_main(["--model", str(workspace / "model"), "--labels", str(workspace / "labels.jsonl"),
                   "--out", str(tmp_path / "out"), "--negatives", "scene", "--no-calibration", "--quiet"])
