"""A worker killed mid-recording (the OOM killer, a crash) stops `mineclip play record` within seconds,
non-zero, naming the episodes; no orphan worker, no half-written video, and every line written is a
finished episode whose video is there."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from helpers.processes import gone, kill_a_worker_midway

ROOT = Path(__file__).resolve().parents[2]


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def test_a_killed_worker_stops_the_recording_at_once(tmp_path):
    out = tmp_path / "rec"
    argv = [sys.executable, "-m", "mineclip", "-q", "play", "record", "--tasks", "harvest_wood", "--episodes", "60",
            "--workers", "2", "--out", str(out)]
    proc, workers, waited = kill_a_worker_midway(argv, ROOT, lambda: _lines(out / "trajectories.jsonl"),
                                                 "a finished episode", which=-1)  # mid-recording
    err = proc.stderr
    assert waited < 30, "the recording waited on the dead worker"
    assert proc.returncode == 1, err
    assert "a worker process died" in err and "while running episodes harvest_wood-s" in err
    assert all(gone(pid) for pid in workers)
    lines = [json.loads(x) for x in _lines(out / "trajectories.jsonl")]
    assert 0 < len(lines) < 60
    assert all((out / r["video"]).is_file() for r in lines) and not list((out / "videos").glob("*.part"))
