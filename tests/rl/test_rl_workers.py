"""`mineclip rl`'s worker processes end with it: killing the command (kill -9, a closed terminal)
leaves no orphan training on."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _children(pid: int) -> set[int]:
    out: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        out |= {int(c) for c in (task / "children").read_text().split()}
    return out


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads the process tree from Linux's /proc")
def test_workers_exit_when_the_command_is_killed(tmp_path):
    out = tmp_path / "rl"
    cmd = [sys.executable, "-m", "mineclip", "rl", "--model", "untrained-tiny", "--out", str(out),
           "--tasks", "harvest_wood", "--variants", "sparse", "--seeds", "2", "--steps", "1000000",
           "--num-envs", "2", "--worlds", "1", "--obs", "symbolic", "--workers", "2"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        progress = [out / "runs" / "harvest_wood" / "sparse" / f"seed{s}" / "progress.txt" for s in (0, 1)]
        deadline = time.time() + 240
        while not all(p.is_file() for p in progress):  # both workers are training
            assert proc.poll() is None and time.time() < deadline, "the runs did not start"
            time.sleep(0.5)
        workers = _children(proc.pid)
        assert len(workers) >= 2
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    deadline = time.time() + 30
    while any(_alive(w) for w in workers) and time.time() < deadline:
        time.sleep(0.5)
    left = [w for w in workers if _alive(w)]
    for w in left:
        os.kill(w, signal.SIGKILL)
    assert not left, f"worker(s) {left} went on after the command was killed"
