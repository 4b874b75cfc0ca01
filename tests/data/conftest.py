"""Small real videos, transcripts and shards made inside the tests (PyAV H.264, few seconds, low fps)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

NARRATION = (
    "today we are going to chop a tree with my axe and then build a crafting table next to the house "
    "so that we can make a wooden pickaxe and go mining for iron and diamonds in the deep cave tonight"
).split()
FILLER = "so yeah that was pretty fun and I think we did a good job overall let me know what you think".split()


def pattern_frames(num: int, height: int = 72, width: int = 128, seed: int = 0) -> np.ndarray:
    """Frames whose red channel encodes time (2t mod 256) and with a moving bar; easy on the codec."""
    frames = np.zeros((num, height, width, 3), dtype=np.uint8)
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 200, size=3)
    for t in range(num):
        frames[t, ..., 0] = (t * 2) % 256
        frames[t, ..., 1] = base[1]
        frames[t, ..., 2] = np.linspace(0, 255, width, dtype=np.uint8)[None, :]
        x = (t * 4) % (width - 8)
        frames[t, -8:, x : x + 8] = 255  # a moving bar at the bottom; the rest encodes time
    return frames


def narration_segments(seconds: float, step: float = 2.0, keyword_every: int = 2) -> list[dict]:
    """JSON-style segments of ~6 words every `step` seconds; every `keyword_every`-th holds keywords."""
    segs = []
    for i in range(int(seconds // step)):
        words = NARRATION if i % keyword_every == 0 else FILLER
        j = (i * 6) % (len(words) - 6)
        segs.append({"start": i * step, "end": (i + 1) * step, "text": " ".join(words[j : j + 6])})
    return segs


def _ts(t: float, sep: str) -> str:
    h, rem = divmod(t, 3600)
    m, s = divmod(rem, 60)
    return f"{int(h):02d}:{int(m):02d}:{int(s):02d}{sep}{int(round((s % 1) * 1000)):03d}"


def write_transcript(path: Path, segments: list[dict]) -> Path:
    """Write segments as .json, .srt or .vtt depending on the suffix."""
    if path.suffix == ".json":
        path.write_text(json.dumps(segments), encoding="utf-8")
    elif path.suffix == ".srt":
        blocks = [f"{i + 1}\n{_ts(s['start'], ',')} --> {_ts(s['end'], ',')}\n{s['text']}\n" for i, s in enumerate(segments)]
        path.write_text("\n".join(blocks), encoding="utf-8")
    elif path.suffix == ".vtt":
        blocks = [f"{_ts(s['start'], '.')} --> {_ts(s['end'], '.')}\n{s['text']}\n" for s in segments]
        path.write_text("WEBVTT\n\n" + "\n".join(blocks), encoding="utf-8")
    else:
        raise ValueError(path)
    return path


@pytest.fixture
def make_video():
    """make_video(path, seconds, fps=4, size=(72, 128)) -> path of an H.264 mp4."""
    from mineclip.data.video import write_mp4

    def _make(path, seconds: float = 30.0, fps: float = 4.0, size=(72, 128), seed: int = 0) -> Path:
        return write_mp4(path, pattern_frames(int(seconds * fps), *size, seed=seed), fps=fps)

    return _make


@pytest.fixture
def narrated_folder(tmp_path, make_video):
    """A folder with three narrated videos (json, srt, vtt transcripts) of 30-40 s at 4 fps."""
    folder = tmp_path / "videos"
    folder.mkdir()
    for i, (name, suffix, seconds) in enumerate([("alpha", ".json", 30), ("bravo", ".srt", 40), ("charlie", ".vtt", 30)]):
        make_video(folder / f"{name}.mp4", seconds, seed=i)
        write_transcript(folder / f"{name}{suffix}", narration_segments(seconds))
    return folder


@pytest.fixture
def tiny_shards(tmp_path):
    """make(dir, n, prefix, text=..., frames=8, size=(32, 48), encoding="raw", max_shard_samples=...) -> manifest."""
    from mineclip.data.shards import ClipShardWriter

    def _make(out, n: int, prefix: str = "train", text: str = "a clip of a cow", num_frames: int = 8,
              size=(32, 48), encoding: str = "raw", max_shard_samples: int | None = None) -> dict:
        with ClipShardWriter(out, prefix=prefix, encoding=encoding, fps=4, max_shard_samples=max_shard_samples) as w:
            for i in range(n):
                w.write(pattern_frames(num_frames, *size, seed=i), f"{text} number {i}", {"id": f"{prefix}{i}", "i": i})
        return w.manifest()

    return _make


@pytest.fixture
def segments():
    """segments(seconds, step=2, keyword_every=2) -> list[Segment] of a narrated video."""
    from mineclip.data.transcripts import Segment

    def _make(seconds: float = 60, **kw) -> list:
        return [Segment(s["start"], s["end"], s["text"]) for s in narration_segments(seconds, **kw)]

    return _make


@pytest.fixture
def frames_like():
    """frames_like(num, height, width, seed) -> uint8 pattern frames."""
    return pattern_frames


@pytest.fixture
def transcript_writer():
    return write_transcript


@pytest.fixture
def narrated_tree(tmp_path, make_video):
    """A folder tree of seven short videos: five narrated (two share the stem 'alpha', in different
    folders), one with no transcript and one with an off-topic transcript (both skipped by a build)."""
    folder = tmp_path / "tree"
    narrated = [("alpha", ".json", 24), ("bravo", ".srt", 28), ("sub/alpha", ".vtt", 24), ("sub/deep/delta", ".json", 20),
                ("echo", ".vtt", 24)]
    for i, (name, suffix, seconds) in enumerate(narrated):
        make_video(folder / f"{name}.mp4", seconds, seed=i)
        write_transcript(folder / f"{name}{suffix}", narration_segments(seconds))
    make_video(folder / "silent.mp4", 12, seed=9)
    make_video(folder / "offtopic.mp4", 12, seed=10)
    write_transcript(folder / "offtopic.json", [{"start": 0, "end": 12, "text": "hello everyone welcome back"}])
    return folder
