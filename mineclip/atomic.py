"""Writing a file so that a kill at any moment leaves either the old file or the new one, never a
torn one: the bytes go to a temporary file in the same folder, are flushed to disk, and replace the
target in one rename (POSIX `rename` is atomic on one filesystem)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write `data` to `path` atomically (see the module)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _sync_dir(path.parent)
    return path


def write_text(path: str | os.PathLike, text: str) -> Path:
    """Write UTF-8 `text` to `path` atomically."""
    return write_bytes(path, text.encode("utf-8"))


def replace_from(tmp: str | os.PathLike, path: str | os.PathLike) -> Path:
    """Move a finished temporary file (written by a library that takes a path, e.g. safetensors) onto
    `path` atomically, after flushing it to disk."""
    with open(tmp, "rb+") as f:
        os.fsync(f.fileno())
    os.replace(tmp, path)
    _sync_dir(Path(path).parent)
    return Path(path)


def _sync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # some filesystems do not open folders; the rename is still atomic
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
