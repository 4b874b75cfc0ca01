"""Append-only JSON-lines files that several writers share (people's labels, task ratings).

Each line is one `write` on a file opened for appending, flushed and `fsync`ed before the call
returns, under an exclusive `flock`: two threads, tabs or processes never interleave or lose a line.
A torn last line (a crash mid-write) stays one broken line that readers skip: the next line starts
on a line of its own.
"""

from __future__ import annotations

import fcntl
import json
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


@contextmanager
def locked(path: str | os.PathLike, shared: bool = False) -> Iterator[int]:
    """The file (created if missing) opened for appending, under an exclusive (or shared) lock."""
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        yield fd
    finally:
        os.close(fd)  # releases the lock


def append_to(fd: int, record: dict) -> None:
    """Append one JSON line to a file opened by `locked` (exclusively), and sync it to disk."""
    data = (json.dumps(record) + "\n").encode("utf-8")
    size = os.fstat(fd).st_size
    if size and os.pread(fd, 1, size - 1) != b"\n":
        data = b"\n" + data  # a torn last line (a crash mid-write) stays one broken line
    os.write(fd, data)
    os.fsync(fd)


def append_line(path: str | os.PathLike, record: dict) -> None:
    """Append one JSON line to `path` (its folder created if missing): locked, synced, torn-line safe."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with locked(path) as fd:
        append_to(fd, record)
