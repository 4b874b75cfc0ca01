"""Labelled trajectories (the task suite's JSON-lines format): reading, checking, loading frames.

Every line that cannot be used becomes a `Problem` with its line number and reason; nothing is
dropped silently. A line may carry no label yet (`"label": null`: a trajectory recorded for people
to label); `mineclip.evaluate.human` merges the lines of one or more files per trajectory.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Iterator

import numpy as np

log = logging.getLogger(__name__)

PROBLEM_KINDS = ("broken_json", "missing_field", "bad_label", "unknown_task", "missing_video",
                 "unreadable_video", "unlabelled", "no_majority")


@dataclass
class Problem:
    """A labels-file line that was skipped, and why."""

    line: int
    kind: str
    message: str
    id: str | None = None
    file: str | None = None  # set when several files are read

    def __str__(self) -> str:
        where = f"{self.file}: " if self.file else ""
        return f"{where}line {self.line}{f' ({self.id})' if self.id else ''}: {self.kind}: {self.message}"


def json_lines(path: str | Path) -> Iterator[tuple[int, dict | Problem]]:
    """(line number, object) for each non-blank line of a JSONL file; a line that is not a JSON
    object comes as a `broken_json` Problem instead, so every reader reports it the same way."""
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, start=1):
            if not raw.strip():
                continue
            try:
                rec = json.loads(raw)
                if not isinstance(rec, dict):
                    raise ValueError(f"expected a JSON object, got {type(rec).__name__}")
            except ValueError as e:
                yield n, Problem(n, "broken_json", f"not a JSON object: {e}")
                continue
            yield n, rec


@dataclass
class LabelledLine:
    """One line of a labelled-trajectory file, checked (`parse_line`): what every reader of the format
    (`read_labels`, the labelling app's `mineclip.label.items`) starts from."""

    line: int
    id: str  # the line's id, or line<N>
    task: str  # task id, or the prompt when the line has no task id
    prompt: str  # the task's prompt when `lookup` knows the id, else the line's own
    label: int | None  # 0, 1, or None (not labelled yet)
    media: str  # the line's `video` (file) or `frames` (folder of PNGs), as written
    labeller: str
    record: dict


def parse_line(n: int, rec: dict, lookup: Callable[[str], str] | None = None) -> LabelledLine | Problem:
    """Check line `n` of a labelled-trajectory file (a JSON object): a task (id or prompt; `lookup` maps a
    task id to its prompt, an id it does not know is `unknown_task`), a label 0/1/null and its media."""
    tid = str(rec.get("id") or f"line{n}")
    task_id, prompt = rec.get("task_id"), rec.get("prompt")
    if task_id and lookup is not None:
        try:
            prompt = lookup(str(task_id))
        except Exception as e:  # noqa: BLE001 - whatever the suite says of an unknown id, on the line
            return Problem(n, "unknown_task", f"unknown task id {task_id!r} ({e})", tid)
    if not prompt:
        return Problem(n, "missing_field", "expected 'task_id' or 'prompt'", tid)
    label = rec.get("label")
    if isinstance(label, bool):
        label = int(label)
    if label not in (0, 1, None):
        return Problem(n, "bad_label", f"expected label 0, 1 or null, got {label!r}", tid)
    media = rec.get("video") or rec.get("frames")
    if not media or not isinstance(media, str):
        return Problem(n, "missing_field", "expected 'video' (file) or 'frames' (folder of PNGs)", tid)
    return LabelledLine(n, tid, str(task_id or prompt), str(prompt), label, media, str(rec.get("labeller") or ""), rec)


@dataclass
class Trajectory:
    """One labelled trajectory, ready to score."""

    line: int
    id: str
    task: str  # task id, or the prompt when the line has no task id
    prompt: str
    label: int | None  # None: not labelled yet (see mineclip.evaluate.human for the label judged against)
    source: Path  # video file or frames folder
    labeller: str = ""
    record: dict = field(default_factory=dict)
    file: str = ""  # the labels file the line came from
    votes: dict[str, int] = field(default_factory=dict)  # people's labels: labeller -> 0/1 (merged)
    reference: int | None = None  # the success criterion's or oracle's label (merged)
    reference_labeller: str = ""

    def to_dict(self) -> dict:
        d = asdict(self)
        d["source"] = str(self.source)
        d.pop("record")
        return d


def read_labels(path: str | Path, lookup: Callable[[str], str] | None = None
                ) -> tuple[list[Trajectory], list[Problem], int]:
    """Parse a labels file: (usable trajectories, problems, number of non-empty lines).

    `lookup` maps a task id to its prompt (a task suite's `prompt`, `mineclip.evaluate.suite`; a
    line whose id it does not know is an `unknown_task` problem); None trusts the lines' prompts.
    Video existence is checked here; decodability when frames are loaded.
    """
    path = Path(path)
    base = path.parent
    out: list[Trajectory] = []
    problems: list[Problem] = []
    lines = 0
    for n, rec in json_lines(path):
        lines += 1
        line = rec if isinstance(rec, Problem) else parse_line(n, rec, lookup)
        if isinstance(line, Problem):
            problems.append(line)
            continue
        src = (base / line.media) if not Path(line.media).is_absolute() else Path(line.media)
        if not src.exists():
            problems.append(Problem(n, "missing_video", f"not found: {src}", line.id))
            continue
        out.append(Trajectory(n, line.id, line.task, line.prompt, line.label, src, line.labeller, rec, str(path)))
    return out, problems, lines


def read_label_files(paths: list[str | Path], lookup: Callable[[str], str] | None = None
                     ) -> tuple[list[Trajectory], list[Problem], int]:
    """`read_labels` over several files (problems name their file when there is more than one)."""
    trajectories, problems, lines = [], [], 0
    for path in paths:
        t, p, n = read_labels(path, lookup)
        if len(paths) > 1:
            for q in p:
                q.file = str(path)
        trajectories += t
        problems += p
        lines += n
    return trajectories, problems, lines


def load_frames(traj: Trajectory) -> np.ndarray:
    """uint8 RGB frames [T, H, W, 3] of a trajectory (mp4 or a folder of PNGs, in name order).

    Raises ValueError (VideoDecodeError) with a readable message when the frames cannot be read."""
    return load_media(traj.source)


class MediaError(ValueError):
    """Frames that cannot be shown or judged: an unreadable video or frame folder, one over the
    decoding caps (frames, pixels, bytes), or one that takes longer than the time limit."""


def load_media(src: Path, limits=None, transform=None) -> np.ndarray:
    """uint8 RGB frames [T, H, W, 3] of a video file or a folder of PNG/JPEG frames (name order);
    MediaError (a ValueError) saying why when they cannot be read.

    `limits` (`mineclip.data.video.DecodeLimits`, default its defaults) caps the frames, the pixels
    of a frame and the bytes returned, and sets a time limit; `transform` maps each chunk of frames
    [K, H, W, 3] to the size needed (e.g. the size shown) as it is decoded."""
    from mineclip.data.video import DecodeLimits, VideoDecodeError, decode_video

    src = Path(src)
    limits = limits or DecodeLimits()
    try:
        if src.is_dir():
            return _load_folder(src, limits, transform)
        frames = decode_video(src, limits=limits, transform=transform)
    except VideoDecodeError as e:
        raise MediaError(str(e)) from e
    if len(frames) == 0:
        raise MediaError(f"video has no frames: {src}")
    return frames


def _load_folder(src: Path, limits, transform) -> np.ndarray:
    from PIL import Image

    from mineclip.data.video import CHUNK, VideoDecodeError, decode_chunks

    files = sorted(p for p in src.iterdir() if p.suffix.lower() in (".png", ".jpg", ".jpeg"))
    if not files:
        raise MediaError(f"no PNG/JPEG frames in folder {src}")
    try:
        sizes = set()
        for p in files[: limits.max_frames + 1]:
            with Image.open(p) as im:  # the header only
                sizes.add(im.size)
        if len(sizes) != 1:
            raise MediaError(f"frames of different sizes in {src}")
        (w, h), = sizes
        limits.check_size(src, len(files), h, w)
        deadline = limits.deadline()
        chunks = (np.stack([np.asarray(Image.open(p).convert("RGB")) for p in files[i:i + CHUNK]])
                  for i in range(0, len(files), CHUNK))
        return decode_chunks(chunks, len(files), limits, transform, deadline, src)
    except (MediaError, VideoDecodeError):  # over a cap, or past the time limit: load_media says so
        raise
    except Exception as e:  # PIL's errors on a broken image
        raise MediaError(f"cannot read frames in {src}: {e}") from e
