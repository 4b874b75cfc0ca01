"""The set a person labels: a trajectory JSON-lines file (the format `eval.py` reads; videos or frame
folders beside it), or a folder of videos with a prompt per video (`NAME.txt` beside `NAME.mp4`,
or one `--prompt` for all).

Every line or video that cannot be shown becomes a `Problem` (with its line number) and is skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from mineclip.evaluate.human import is_human
from mineclip.evaluate.trajectories import Problem, json_lines, parse_line

from mineclip.tasks.judging import SUITE

from .files import OutsideSetError, relative_inside

VIDEO_SUFFIXES = (".mp4", ".webm", ".mkv", ".mov", ".gif", ".avi", ".m4v")
DEFAULT_FPS = 8.0


@dataclass
class Item:
    """One trajectory to label."""

    index: int  # position in the set
    id: str
    task: str  # task id, or the prompt when there is none
    prompt: str
    media: str  # video file or frames folder, POSIX path relative to the set's folder
    line: int = 0  # line of the set's file (0: a video of a folder)
    fps: float = DEFAULT_FPS
    reference: int | None = None  # the criterion's or oracle's label, when the set has one
    reference_labeller: str = ""
    record: dict = field(default_factory=dict)  # the set's line


@dataclass
class LabelSet:
    """The items of a set, where they live, and the lines that were skipped."""

    root: Path  # the set's folder: every file served is under it
    source: Path  # the JSON-lines file or the folder
    items: list[Item]
    problems: list[Problem]

    def by_id(self) -> dict[str, Item]:
        return {it.id: it for it in self.items}


def read_set(path: str | Path, prompt: str | None = None) -> LabelSet:
    """Read a set to label: a JSON-lines file or a folder of videos."""
    path = Path(path)
    if path.is_dir():
        return _read_folder(path, prompt)
    if not path.is_file():
        raise FileNotFoundError(f"no set to label at {path}: expected a .jsonl file or a folder of videos")
    return _read_jsonl(path)


def _read_jsonl(path: Path) -> LabelSet:
    root = path.parent.resolve()
    items: list[Item] = []
    problems: list[Problem] = []
    seen: set[str] = set()
    for n, rec in json_lines(path):
        line = rec if isinstance(rec, Problem) else parse_line(n, rec, SUITE.prompt)  # the one line format
        if isinstance(line, Problem):
            problems.append(line)
            continue
        if line.id in seen:
            problems.append(Problem(n, "duplicate_id", f"id {line.id!r} already used by an earlier line", line.id))
            continue
        try:
            media = relative_inside(root, line.media)
        except OutsideSetError as e:
            problems.append(Problem(n, "outside_set", str(e), line.id))
            continue
        if not (root / media).exists():
            problems.append(Problem(n, "missing_video", f"not found: {root / media}", line.id))
            continue
        reference = line.label if line.label is not None and not is_human(line.labeller) else None
        fps = rec.get("fps")
        seen.add(line.id)
        items.append(Item(len(items), line.id, line.task, line.prompt, media, n,
                          float(fps) if isinstance(fps, (int, float)) and fps > 0 else DEFAULT_FPS,
                          reference, line.labeller if reference is not None else "", rec))
    return LabelSet(root, path.resolve(), items, problems)


def _read_folder(folder: Path, prompt: str | None) -> LabelSet:
    root = folder.resolve()
    items: list[Item] = []
    problems: list[Problem] = []
    videos = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in VIDEO_SUFFIXES)
    for video in videos:
        rel = video.relative_to(root).as_posix()
        try:
            relative_inside(root, rel)
        except OutsideSetError as e:
            problems.append(Problem(0, "outside_set", str(e), rel))
            continue
        side = video.with_suffix(".txt")
        text = next((ln.strip() for ln in side.read_text(encoding="utf-8").splitlines() if ln.strip()), "") \
            if side.is_file() else ""
        text = text or (prompt or "")
        if not text:
            problems.append(Problem(0, "missing_field", f"{rel}: no prompt (expected {side.name} beside it, "
                                                       "or --prompt)", rel))
            continue
        items.append(Item(len(items), rel, text, text, rel, 0, _video_fps(video), record={"prompt": text}))
    if not videos:
        problems.append(Problem(0, "missing_video", f"no videos ({', '.join(VIDEO_SUFFIXES)}) under {root}"))
    return LabelSet(root, root, items, problems)


def _video_fps(path: Path) -> float:
    try:
        from mineclip.data.video import video_info

        return video_info(path)["fps"] or DEFAULT_FPS
    except Exception:  # an unreadable video still gets listed; showing it reports the error
        return DEFAULT_FPS
