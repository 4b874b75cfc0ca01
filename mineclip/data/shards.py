"""WebDataset tar shards of (clip, caption, metadata) samples, with a manifest.

A sample is `<key>.mp4` (H.264) or `<key>.npy` (raw uint8 [T, H, W, 3]), `<key>.txt` (UTF-8
caption) and `<key>.json` (metadata). Shards are `<prefix>-000000.tar`, `<prefix>-000001.tar`, ...
and `manifest.json` records per-shard counts, the total, the settings, the sources and a
brace-expandable `urls` pattern.
"""

from __future__ import annotations

import io
import json
import os
import re
import tarfile
from collections import Counter
from pathlib import Path

import numpy as np

from mineclip.data.video import VideoDecodeError, check_frames, encode_mp4, open_video, uniform_indices

ENCODINGS = ("mp4", "raw")
MANIFEST = "manifest.json"
SHARD_DIGITS = 6
DEFAULT_MAX_SHARD_BYTES = 256 * 1024 * 1024


def encode_clip(frames: np.ndarray, encoding: str = "mp4", fps: float = 8.0) -> tuple[str, bytes]:
    """Frames -> (member extension, bytes): ("mp4", H.264) or ("npy", raw uint8 array)."""
    frames = check_frames(frames)
    if encoding == "mp4":
        return "mp4", encode_mp4(frames, fps=fps)
    if encoding == "raw":
        buf = io.BytesIO()
        np.save(buf, frames, allow_pickle=False)
        return "npy", buf.getvalue()
    raise ValueError(f"encoding must be one of {ENCODINGS}, got {encoding!r}")


class TooFewFrames(VideoDecodeError):
    """A clip holds fewer frames than were asked for."""


def decode_clip(sample: dict, num_frames: int | None = None, allow_fewer: bool = True) -> np.ndarray:
    """The frames uint8 [T, H, W, 3] of a sample holding "mp4" or "npy" bytes: all of them, or
    `num_frames` sampled uniformly. A clip with fewer frames is sampled with repeats, or with
    `allow_fewer=False` is a TooFewFrames error; an unreadable one is a VideoDecodeError."""
    if "npy" in sample:
        try:
            frames = np.load(io.BytesIO(sample["npy"]), allow_pickle=False)
        except Exception as e:  # numpy raises ValueError, EOFError, OSError, ... on broken bytes
            raise VideoDecodeError(f"npy: {e}") from None
        if frames.dtype != np.uint8 or frames.ndim != 4 or frames.shape[-1] != 3:
            raise VideoDecodeError(f"expected raw uint8 [T, H, W, 3] frames, got {frames.dtype} {list(frames.shape)}")
        n = len(frames)
    elif "mp4" in sample:
        reader = open_video(sample["mp4"])
        n = len(reader)
    else:
        raise KeyError(f"sample {sample.get('__key__')!r} has no 'mp4' or 'npy' member (has {sorted(sample)})")
    if n == 0:
        raise VideoDecodeError(f"clip {sample.get('__key__')!r} has no frames")
    if num_frames and n < num_frames and not allow_fewer:
        raise TooFewFrames(f"{n} < {num_frames}")
    indices = uniform_indices(n, num_frames) if num_frames else np.arange(n)
    if "npy" in sample:
        return frames[indices]
    return reader.frames(indices)


def shard_name(prefix: str, index: int) -> str:
    return f"{prefix}-{index:0{SHARD_DIGITS}d}.tar"


def shard_pattern(prefix: str, count: int) -> str:
    """Brace pattern listing count shards: 'train-{000000..000003}.tar'."""
    last = max(count - 1, 0)
    return f"{prefix}-{{{0:0{SHARD_DIGITS}d}..{last:0{SHARD_DIGITS}d}}}.tar"


def safe_key(text: str) -> str:
    """Text as a sample key: letters, digits, '_' and '-' only (WebDataset splits member names at a dot)."""
    return re.sub(r"[^A-Za-z0-9_-]+", "_", text).strip("_")[:80] or "clip"


class ClipShardWriter:
    """Write clips into size-capped tar shards and a manifest.

    with ClipShardWriter(out_dir, prefix="train", encoding="mp4", fps=8, settings={...}) as w:
        key = w.write(frames_uint8_THW3, "a caption", {"source": "video.mp4"})
    """

    def __init__(
        self,
        out_dir: str | os.PathLike,
        prefix: str = "train",
        max_shard_bytes: int = DEFAULT_MAX_SHARD_BYTES,
        encoding: str = "mp4",
        fps: float = 8.0,
        settings: dict | None = None,
        max_shard_samples: int | None = None,
        overwrite: bool = True,
        manifest_name: str | None = MANIFEST,
    ):
        if encoding not in ENCODINGS:
            raise ValueError(f"encoding must be one of {ENCODINGS}, got {encoding!r}")
        if not re.fullmatch(r"[A-Za-z0-9_-]+", prefix):
            raise ValueError(f"prefix may hold only letters, digits, '_' and '-', got {prefix!r}")
        self.out_dir = Path(out_dir)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        stale = sorted(self.out_dir.glob(f"{prefix}-{'[0-9]' * SHARD_DIGITS}.tar"))
        if stale and not overwrite:
            raise FileExistsError(f"{self.out_dir} already holds {len(stale)} '{prefix}' shards; pass overwrite=True")
        for path in stale + sorted(self.out_dir.glob(f"{prefix}-{'[0-9]' * SHARD_DIGITS}.tar.part")):
            path.unlink()  # shards of an earlier run, finished or cut short
        self.manifest_name = manifest_name
        self.prefix = prefix
        self.max_shard_bytes = int(max_shard_bytes)
        self.max_shard_samples = max_shard_samples
        self.encoding = encoding
        self.fps = fps
        self.settings = dict(settings or {})
        self.shards: list[dict] = []
        self.sources: Counter = Counter()
        self.total = 0
        self._tar: tarfile.TarFile | None = None
        self._file = None
        self._bytes = 0
        self._closed = False

    def __enter__(self) -> "ClipShardWriter":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()  # a build cut short: its last shard is not passed off as complete

    def abort(self) -> None:
        """Stop without finishing: the shard being written is removed (it stays `.tar.part` until then)
        and no manifest is written; the shards finished before stay, as a re-run replaces them."""
        if self._closed:
            return
        if self._tar is not None:
            self._tar.close()
            self._file.close()
            (self.out_dir / (self.shards[-1]["name"] + ".part")).unlink(missing_ok=True)
            self.shards.pop()
            self._tar = self._file = None
        self._closed = True

    def write(self, frames: np.ndarray, text: str, meta: dict | None = None, fps: float | None = None, key: str | None = None) -> str:
        """Encode and write one clip (uint8 [T, H, W, 3]); returns its sample key."""
        meta = dict(meta or {})
        fps = fps or meta.get("fps") or self.fps
        ext, payload = encode_clip(frames, self.encoding, fps)
        meta.setdefault("num_frames", int(len(frames)))
        meta.setdefault("height", int(frames.shape[1]))
        meta.setdefault("width", int(frames.shape[2]))
        meta.setdefault("fps", float(fps))
        return self.write_encoded(ext, payload, text, meta, key=key)

    def write_encoded(self, ext: str, payload: bytes, text: str, meta: dict | None = None, key: str | None = None) -> str:
        """Write an already encoded clip (ext "mp4" or "npy"); used by parallel builders."""
        if self._closed:
            raise RuntimeError("ClipShardWriter is closed")
        if ext not in ("mp4", "npy"):
            raise ValueError(f"clip member must be 'mp4' or 'npy', got {ext!r}")
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"caption must be a non-empty string, got {text!r}")
        meta = dict(meta or {})
        if key is None:
            stem = meta.get("id") or (Path(str(meta["source"])).stem if meta.get("source") else "clip")
            key = f"{safe_key(str(stem))}-{self.total:08d}"
        elif safe_key(key) != key:
            raise ValueError(f"sample keys may hold only letters, digits, '_' and '-', got {key!r}")
        meta["key"] = key
        members = {ext: payload, "txt": text.encode("utf-8"), "json": json.dumps(meta, sort_keys=True).encode("utf-8")}
        size = sum(len(v) + 1024 for v in members.values())  # tar header and padding per member
        if self._tar is None or (
            self._count > 0
            and (self._bytes + size > self.max_shard_bytes or (self.max_shard_samples and self._count >= self.max_shard_samples))
        ):
            self._roll()
        for ext_name in sorted(members):
            info = tarfile.TarInfo(f"{key}.{ext_name}")
            info.size, info.mtime, info.mode = len(members[ext_name]), 0, 0o444
            info.uname = info.gname = "mineclip"
            self._tar.addfile(info, io.BytesIO(members[ext_name]))
        self._bytes += size
        self._count += 1
        self.shards[-1]["count"] = self._count
        self.total += 1
        if meta.get("source"):
            self.sources[str(meta["source"])] += 1
        return key

    def _roll(self) -> None:
        self._finish_shard()
        name = shard_name(self.prefix, len(self.shards))
        self._file = open(self.out_dir / (name + ".part"), "wb")
        self._tar = tarfile.open(fileobj=self._file, mode="w", format=tarfile.USTAR_FORMAT)
        self.shards.append({"name": name, "count": 0})
        self._bytes = self._count = 0

    def _finish_shard(self) -> None:
        if self._tar is None:
            return
        self._tar.close()
        self._file.close()
        name = self.shards[-1]["name"]
        os.replace(self.out_dir / (name + ".part"), self.out_dir / name)
        self.shards[-1]["bytes"] = (self.out_dir / name).stat().st_size
        self._tar = self._file = None

    def manifest(self) -> dict:
        return {
            "format": "mineclip-clips",
            "version": 1,
            "prefix": self.prefix,
            "encoding": self.encoding,
            "total": self.total,
            "shards": self.shards,
            "urls": shard_pattern(self.prefix, len(self.shards)) if self.shards else "",
            "settings": self.settings,
            "sources": dict(sorted(self.sources.items())),
        }

    def close(self) -> dict:
        """Finish the last shard and write the manifest (unless manifest_name is None); returns it."""
        if self._closed:
            return self.manifest()
        self._finish_shard()
        self._closed = True
        manifest = self.manifest()
        if self.manifest_name:
            write_manifest(self.out_dir, manifest, self.manifest_name)
        return manifest


def write_manifest(folder: str | os.PathLike, manifest: dict, name: str = MANIFEST) -> Path:
    """Write a manifest atomically: a reader finds the whole file under its name or no file."""
    path = Path(folder) / name
    tmp = path.with_name(path.name + ".part")
    tmp.write_text(json.dumps(manifest, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def read_manifest(path: str | os.PathLike) -> dict:
    """Load manifest.json from a shard folder (or the file itself)."""
    path = Path(path)
    if path.is_dir():
        path = path / MANIFEST
    return json.loads(path.read_text(encoding="utf-8"))


def manifest_urls(folder: str | os.PathLike) -> str:
    """The brace pattern of a shard folder's shards, as a path: 'folder/train-{000000..000003}.tar'."""
    manifest = read_manifest(folder)
    if not manifest.get("urls"):
        raise ValueError(f"{folder}: the manifest lists no shards")
    return str(Path(folder) / manifest["urls"])
