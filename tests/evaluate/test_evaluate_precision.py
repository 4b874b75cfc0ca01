"""`mineclip eval --precision`: the judge's frame encoder in bf16 or float32, recorded in the report."""

import json

import numpy as np

from mineclip.data.video import write_mp4
from mineclip.evaluate.cli import main as eval_main
from mineclip.model.artifact import save_artifact

from helpers.models import make_micro


def test_eval_runs_in_the_precision_asked_for_and_records_it(tmp_path):
    save_artifact(make_micro(seed=0), tmp_path / "model", source={"kind": "test"})
    rng = np.random.default_rng(0)
    lines = []
    for i in range(4):
        write_mp4(tmp_path / "videos" / f"t{i}.mp4", rng.integers(0, 256, (8, 64, 96, 3), dtype=np.uint8))
        lines.append({"id": f"t{i}", "task_id": "harvest_wood", "video": f"videos/t{i}.mp4", "label": i % 2})
    (tmp_path / "labels.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    scores = {}
    for p in ("fp32", "bf16"):
        out = tmp_path / p
        assert eval_main(["--model", str(tmp_path / "model"), "--labels", str(tmp_path / "labels.jsonl"),
                          "--out", str(out), "--precision", p, "--no-untrained", "--quiet",
                          "--mode", "direct-naive"]) == 0
        metrics = json.loads((out / "metrics.json").read_text())
        assert metrics["settings"]["precision"] == p
        assert f"frame encoder in {p}" in (out / "report.md").read_text()
        scores[p] = np.array(metrics["models"]["model"]["harvest_wood"]["rules"]["mean"]["kmeans"]["scores"])
    assert np.abs(scores["bf16"] - scores["fp32"]).max() < 1e-2  # mean P per trajectory
