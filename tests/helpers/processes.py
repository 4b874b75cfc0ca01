"""Processes of a command run in a subprocess: its children, and whether a process is gone."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path


def children(pid: int) -> list[int]:
    """The pids of a process's direct children (Linux /proc)."""
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        out += [int(p) for p in (task / "children").read_text().split()]
    return out


def gone(pid: int, within: float = 10.0) -> bool:
    """Whether the process ends (exits, or is left a zombie) within `within` seconds."""
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.05)
    return False


def wait_for(condition, timeout: float, proc=None, what: str = "the condition") -> None:
    """Poll `condition()` until true; fail if `proc` exits first or `timeout` seconds pass."""
    end = time.monotonic() + timeout
    while not condition():
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"the command exited ({proc.returncode}) before {what}: {proc.stderr.read()}")
        if time.monotonic() > end:
            raise AssertionError(f"no {what} within {timeout} s")
        time.sleep(0.05)


def is_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return not gone(pid, within=0)


def kill_a_worker_midway(argv: list[str], cwd, midway, what: str, which: int = 0
                         ) -> tuple[subprocess.CompletedProcess, list[int], float]:
    """Run a command, wait until `midway()` holds (its work is under way), SIGKILL one of its worker
    processes (the OOM killer's way) and let it end: (the completed process with its stderr, the
    workers' pids, seconds from the kill to the command's exit)."""
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(midway, 240, proc, what)
        workers = children(proc.pid)
        assert len(workers) >= 2, f"expected worker processes, got {workers}"
        os.kill(workers[which], signal.SIGKILL)
        killed = time.monotonic()
        out, err = proc.communicate(timeout=120)
        waited = time.monotonic() - killed
    finally:
        if proc.poll() is None:
            proc.kill()
    return subprocess.CompletedProcess(argv, proc.returncode, out, err), workers, waited
