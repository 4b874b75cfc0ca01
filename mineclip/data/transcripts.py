"""Time-aligned transcripts: WebVTT (.vtt), SubRip (.srt) and JSON [{"start", "end", "text"}] to segments."""

from __future__ import annotations

import html
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

TRANSCRIPT_SUFFIXES = (".vtt", ".srt", ".json")


class TranscriptError(ValueError):
    """A transcript file could not be parsed."""


@dataclass(frozen=True)
class Segment:
    """One caption line: text spoken between start and end (seconds)."""

    start: float
    end: float
    text: str


_TIME = re.compile(r"^(?:(\d+):)?(\d{1,2}):(\d{2})[.,](\d{1,3})$")
_CUE_TIMES = re.compile(r"^\s*(\S+)\s+-->\s+(\S+)")
_TAG = re.compile(r"<[^>]*>")


def parse_timestamp(text: str) -> float:
    """'01:02:03.456', '02:03,456' or '1:02:03.4' -> seconds."""
    m = _TIME.match(text.strip())
    if not m:
        raise ValueError(f"expected a timestamp like 00:01:02.500, got {text!r}")
    hours, minutes, seconds, frac = m.groups()
    return int(hours or 0) * 3600 + int(minutes) * 60 + int(seconds) + int(frac.ljust(3, "0")) / 1000


def _clean(text: str) -> str:
    return " ".join(html.unescape(_TAG.sub("", text)).split())


def _parse_cues(text: str, path: str, kind: str) -> list[Segment]:
    """Shared cue reader for SRT and VTT: blocks separated by blank lines, each with a 'a --> b' line."""
    segments = []
    blocks = re.split(r"\n\s*\n", text.replace("\r\n", "\n").replace("\r", "\n"))
    line_no = 1
    for block in blocks:
        lines = block.split("\n")
        first_line = line_no
        line_no += len(lines) + 1
        lines = [ln for ln in lines if ln.strip()]
        if not lines:
            continue
        head = lines[0].strip()
        if kind == "vtt" and (head.startswith("WEBVTT") or head.startswith(("NOTE", "STYLE", "REGION"))):
            continue
        timing_at = next((i for i, ln in enumerate(lines[:2]) if "-->" in ln), None)
        if timing_at is None:
            raise TranscriptError(f"{path}:{first_line}: expected a cue timing line 'start --> end', got {head!r}")
        m = _CUE_TIMES.match(lines[timing_at])
        try:
            if not m:
                raise ValueError(f"malformed timing line {lines[timing_at]!r}")
            start, end = parse_timestamp(m.group(1)), parse_timestamp(m.group(2))
        except ValueError as e:
            raise TranscriptError(f"{path}:{first_line + timing_at}: {e}") from None
        if end < start:
            raise TranscriptError(f"{path}:{first_line + timing_at}: cue ends ({end:.3f}s) before it starts ({start:.3f}s)")
        caption = _clean(" ".join(lines[timing_at + 1 :]))
        if caption:
            segments.append(Segment(start, end, caption))
    return segments


def parse_vtt(text: str, path: str = "<vtt>") -> list[Segment]:
    """Parse WebVTT text. Rolling auto-captions (each cue repeating the previous line) are de-duplicated."""
    if not text.lstrip("\ufeff").startswith("WEBVTT"):
        raise TranscriptError(f"{path}: a WebVTT file must start with 'WEBVTT', got {text[:20]!r}")
    return _dedupe_rolling(_parse_cues(text.lstrip("\ufeff"), path, "vtt"))


def parse_srt(text: str, path: str = "<srt>") -> list[Segment]:
    """Parse SubRip text."""
    return _parse_cues(text.lstrip("\ufeff"), path, "srt")


def parse_json(text: str, path: str = "<json>") -> list[Segment]:
    """Parse a JSON list of {"start": seconds, "end": seconds, "text": str}."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise TranscriptError(f"{path}: invalid JSON: {e}") from None
    if isinstance(data, dict) and "segments" in data:  # whisper-style output
        data = data["segments"]
    if not isinstance(data, list):
        raise TranscriptError(f'{path}: expected a JSON list of {{"start", "end", "text"}}, got {type(data).__name__}')
    segments = []
    for i, item in enumerate(data):
        if not isinstance(item, dict) or not {"start", "end", "text"} <= item.keys():
            raise TranscriptError(f'{path}: item {i}: expected {{"start", "end", "text"}}, got {item!r:.80}')
        try:
            start, end = float(item["start"]), float(item["end"])
        except (TypeError, ValueError):
            raise TranscriptError(f"{path}: item {i}: start/end must be numbers of seconds, got {item['start']!r}, {item['end']!r}") from None
        if end < start:
            raise TranscriptError(f"{path}: item {i}: ends ({end}) before it starts ({start})")
        if not isinstance(item["text"], str):
            raise TranscriptError(f"{path}: item {i}: text must be a string, got {type(item['text']).__name__}")
        caption = _clean(item["text"])
        if caption:
            segments.append(Segment(start, end, caption))
    return segments


def _dedupe_rolling(segments: list[Segment]) -> list[Segment]:
    """Drop the repeated prefix of YouTube-style rolling captions ('a b' then 'a b c d' -> 'a b', 'c d')."""
    out: list[Segment] = []
    previous = ""  # the full text of the previous cue, before de-duplication
    for seg in segments:
        text = seg.text
        if previous and text.startswith(previous):
            text = text[len(previous) :].strip()
        previous = seg.text
        if text:
            out.append(Segment(seg.start, seg.end, text))
    return out


def load_transcript(path: str | os.PathLike) -> list[Segment]:
    """Read a .vtt, .srt or .json transcript into segments sorted by start time."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in TRANSCRIPT_SUFFIXES:
        raise TranscriptError(f"{path}: unknown transcript type {suffix!r}; expected one of {TRANSCRIPT_SUFFIXES}")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as e:
        raise TranscriptError(f"{path}: not UTF-8 text ({e})") from None
    parser = {".vtt": parse_vtt, ".srt": parse_srt, ".json": parse_json}[suffix]
    return sorted(parser(text, str(path)), key=lambda s: (s.start, s.end))


def find_transcript(video: str | os.PathLike, folders: list[Path] | None = None) -> Path | None:
    """The transcript with the video's stem, next to it or in one of folders (first of .vtt, .srt, .json)."""
    video = Path(video)
    for folder in [video.parent, *(folders or [])]:
        for suffix in TRANSCRIPT_SUFFIXES:
            candidate = Path(folder) / (video.stem + suffix)
            if candidate.is_file():
                return candidate
    return None
