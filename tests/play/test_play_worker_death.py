"""A worker killed mid-recording (the OOM killer, a crash) stops `mineclip play record` within seconds,
non-zero, naming the episodes; no orphan worker, no half-written video, and every line written is a
finished episode whose video is there."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from helpers.processes import children, gone, wait_for

ROOT = Path(__file__).resolve().parents[2]


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def test_a_killed_worker_stops_the_recording_at_once(tmp_path):
    out = tmp_path / "rec"
    proc = subprocess.Popen([sys.executable, "-m", "mineclip", "-q", "play", "record", "--tasks", "harvest_wood",
                             "--episodes", "60", "--workers", "2", "--out", str(out)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: _lines(out / "trajectories.jsonl"), 240, proc, "a finished episode")  # mid-recording
        workers = children(proc.pid)
        assert len(workers) >= 2
        os.kill(workers[-1], signal.SIGKILL)
        killed = time.monotonic()
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert time.monotonic() - killed < 30, "the recording waited on the dead worker"
    assert proc.returncode == 1, err
    assert "a worker process died" in err and "while running episodes harvest_wood-s" in err
    assert all(gone(pid) for pid in workers)
    lines = [json.loads(x) for x in _lines(out / "trajectories.jsonl")]
    assert 0 < len(lines) < 60
    assert all((out / r["video"]).is_file() for r in lines) and not list((out / "videos").glob("*.part"))
