"""Cut (clip, caption) pairs out of one narrated video, following MineDojo appendix E.1 (VideoCLIP-style).

Steps: (1) keyword list; (2) string-match transcript segments; (3) grow each matched text to
`min_tokens`..`max_tokens` CLIP tokens with neighbouring segments; (4) a random centre inside the
grown text's time span; (5) a clip of `min_clip_seconds`..`max_clip_seconds` around it; `num_frames`
frames sampled uniformly and resized to `height` x `width`.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import math
import os
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np

from mineclip.data.transcripts import Segment
from mineclip.data.video import ASPECT_MODES, VideoDecodeError, open_video, resize_frames
from mineclip.model.config import CLIP_FRAMES

CONTEXT_LENGTH = 77


@dataclass
class ExtractSettings:
    """Every number of the extraction procedure (defaults = the MineDojo paper)."""

    keywords: list[str] | None = None  # None: the package's Minecraft list (mineclip/data/keywords.txt)
    require_keyword: bool = True  # False: every transcript segment is a candidate
    min_tokens: int = 16  # caption length bounds in CLIP tokens, start/end tokens included
    max_tokens: int = 77
    long_text: str = "truncate"  # a single segment over max_tokens: "truncate" (by words) or "skip"
    min_clip_seconds: float = 8.0
    max_clip_seconds: float = 16.0
    num_frames: int = CLIP_FRAMES
    height: int = 160
    width: int = 256
    aspect: str = "crop"  # "crop" (cover + centre crop), "pad" (letterbox), "stretch"
    allow_overlap: bool = False  # may a matched segment already used in an earlier caption start a new one
    max_clips_per_video: int = 0  # 0: no limit
    caption_clip_seconds: float | None = None  # window for videos captioned from CLI/CSV (None: max_clip_seconds)
    seed: int = 0

    def __post_init__(self):
        if not 2 < self.min_tokens <= self.max_tokens <= CONTEXT_LENGTH:
            raise ValueError(f"need 2 < min_tokens <= max_tokens <= {CONTEXT_LENGTH}, got {self.min_tokens}, {self.max_tokens}")
        if not 0 < self.min_clip_seconds <= self.max_clip_seconds:
            raise ValueError(f"need 0 < min_clip_seconds <= max_clip_seconds, got {self.min_clip_seconds}, {self.max_clip_seconds}")
        if not 1 <= self.num_frames <= 32:
            raise ValueError(f"num_frames must be 1..32, got {self.num_frames}")
        if self.aspect not in ASPECT_MODES:
            raise ValueError(f"aspect must be one of {ASPECT_MODES}, got {self.aspect!r}")
        if self.long_text not in ("truncate", "skip"):
            raise ValueError(f"long_text must be 'truncate' or 'skip', got {self.long_text!r}")
        if self.height % 2 or self.width % 2:
            raise ValueError(f"height and width must be even (H.264), got {self.height}x{self.width}")

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["keywords"] = list(self.resolved_keywords())
        return d

    def resolved_keywords(self) -> tuple[str, ...]:
        return tuple(self.keywords) if self.keywords is not None else default_keywords()


@dataclass
class ClipPlan:
    """Where to cut one clip and what it says."""

    start: float
    end: float
    text: str
    keyword: str | None
    segments: tuple[int, int] = (0, 0)  # first and last transcript segment used for the text
    fields: dict = field(default_factory=dict)


@dataclass
class Clip:
    frames: np.ndarray  # uint8 [T, H, W, 3]
    text: str
    meta: dict


@dataclass
class VideoResult:
    """What one video produced: clips, or the reason it was skipped, and dropped candidates by reason."""

    source: str
    clips: list[Clip] = field(default_factory=list)
    skipped: str | None = None
    detail: str = ""
    dropped: Counter = field(default_factory=Counter)


def load_keywords(path: str | os.PathLike) -> tuple[str, ...]:
    """Keywords from a text file: one keyword or phrase per line, '#' starts a comment."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    words = [ln.split("#", 1)[0].strip().lower() for ln in lines]
    return tuple(dict.fromkeys(w for w in words if w))


@functools.lru_cache(maxsize=1)
def default_keywords() -> tuple[str, ...]:
    """The Minecraft keyword list shipped with the package."""
    with resources.as_file(resources.files("mineclip.data") / "keywords.txt") as path:
        return load_keywords(path)


class KeywordMatcher:
    """Case-insensitive whole-word matching of keywords and phrases (plural 's'/'es' accepted)."""

    def __init__(self, keywords: tuple[str, ...] | list[str]):
        words = sorted({k.strip().lower() for k in keywords if k.strip()}, key=len, reverse=True)
        if not words:
            raise ValueError("the keyword list is empty")
        alternatives = "|".join(r"\s+".join(map(re.escape, w.split())) for w in words)
        self._pattern = re.compile(rf"(?<![\w'])({alternatives})(?:e?s)?(?![\w'])", re.IGNORECASE)

    def find(self, text: str) -> str | None:
        """The first keyword in text (normalised to its listed form), or None."""
        m = self._pattern.search(text)
        return " ".join(m.group(1).lower().split()) if m else None


@functools.lru_cache(maxsize=1)
def _bpe_ids():
    try:
        from mineclip.model.tokenizer import bpe_ids

        return bpe_ids
    except ImportError:
        from open_clip.tokenizer import SimpleTokenizer

        return SimpleTokenizer().encode


def count_tokens(text: str) -> int:
    """CLIP tokens the caption takes in the 77-token context, start and end tokens included."""
    return len(_bpe_ids()(text)) + 2


def truncate_to_tokens(text: str, max_tokens: int) -> str:
    """Drop trailing words until text fits in max_tokens CLIP tokens."""
    words = text.split()
    lo, hi = 0, len(words)  # largest prefix that fits, by bisection
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count_tokens(" ".join(words[:mid])) <= max_tokens:
            lo = mid
        else:
            hi = mid - 1
    return " ".join(words[:lo])


def video_rng(seed: int, source: str) -> random.Random:
    """A per-video RNG that depends only on the seed and the video's file name (not on worker or order)."""
    digest = hashlib.sha256(f"{seed}:{Path(source).name}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "little"))


def plan_transcript_clips(
    segments: list[Segment], duration: float, settings: ExtractSettings, rng: random.Random, matcher: KeywordMatcher | None
) -> tuple[list[ClipPlan], Counter]:
    """Steps 2-5: candidate clips from a transcript, and the candidates dropped by reason."""
    plans: list[ClipPlan] = []
    dropped: Counter = Counter()
    used: set[int] = set()
    for i, seg in enumerate(segments):
        keyword = matcher.find(seg.text) if matcher is not None else None
        if matcher is not None and keyword is None:
            continue
        if not settings.allow_overlap and i in used:
            dropped["overlap"] += 1
            continue
        lo, hi, text = _grow_text(segments, i, settings, rng)
        n = count_tokens(text)
        if n < settings.min_tokens:
            dropped["text_too_short"] += 1
            continue
        if n > settings.max_tokens:
            if settings.long_text == "skip":
                dropped["text_too_long"] += 1
                continue
            text = truncate_to_tokens(text, settings.max_tokens)
            if count_tokens(text) < settings.min_tokens:
                dropped["text_too_long"] += 1
                continue
        span_start, span_end = segments[lo].start, max(segments[hi].end, segments[lo].start)
        centre = rng.uniform(span_start, span_end)
        start, end = _clip_window(centre, duration, settings, rng)
        if start is None:
            dropped["video_too_short"] += 1
            continue
        used.update(range(lo, hi + 1))
        plans.append(ClipPlan(start, end, text, keyword, (lo, hi)))
        if settings.max_clips_per_video and len(plans) >= settings.max_clips_per_video:
            break
    return plans, dropped


def _grow_text(segments: list[Segment], i: int, settings: ExtractSettings, rng: random.Random) -> tuple[int, int, str]:
    """Grow segment i with neighbours (random side each step) until it reaches min_tokens or cannot grow."""
    lo = hi = i
    text = segments[i].text
    while count_tokens(text) < settings.min_tokens:
        sides = [s for s, ok in (("prev", lo > 0), ("next", hi < len(segments) - 1)) if ok]
        if not sides:
            break
        side = rng.choice(sides)
        new_lo, new_hi = (lo - 1, hi) if side == "prev" else (lo, hi + 1)
        candidate = " ".join(s.text for s in segments[new_lo : new_hi + 1])
        if count_tokens(candidate) > settings.max_tokens:
            other = [s for s in sides if s != side]
            if not other:
                break
            new_lo, new_hi = (lo - 1, hi) if other[0] == "prev" else (lo, hi + 1)
            candidate = " ".join(s.text for s in segments[new_lo : new_hi + 1])
            if count_tokens(candidate) > settings.max_tokens:
                break
        lo, hi, text = new_lo, new_hi, candidate
    return lo, hi, text


def _clip_window(centre: float, duration: float, settings: ExtractSettings, rng: random.Random, length: float | None = None):
    """A window of random length in [min_clip, max_clip] around centre, shifted to lie inside the video."""
    if duration < settings.min_clip_seconds:
        return None, None
    if length is None:
        length = rng.uniform(settings.min_clip_seconds, settings.max_clip_seconds)
    length = min(max(length, settings.min_clip_seconds), settings.max_clip_seconds, duration)
    start = min(max(centre - length / 2, 0.0), duration - length)
    return start, start + length


def plan_caption_clips(
    captions: list[dict], duration: float, settings: ExtractSettings, rng: random.Random
) -> tuple[list[ClipPlan], Counter]:
    """Clips for a video captioned by the user: rows {"caption", optional "start"/"end"} (seconds)."""
    plans: list[ClipPlan] = []
    dropped: Counter = Counter()
    window = settings.caption_clip_seconds or settings.max_clip_seconds
    for row in captions:
        text = " ".join(str(row["caption"]).split())
        if not text:
            dropped["empty_caption"] += 1
            continue
        if count_tokens(text) > settings.max_tokens:
            text = truncate_to_tokens(text, settings.max_tokens)
        if row.get("start") not in (None, "") and row.get("end") not in (None, ""):
            s, e = float(row["start"]), float(row["end"])
            start, end = _clip_window((s + e) / 2, duration, settings, rng, length=e - s)
            if start is None:
                dropped["video_too_short"] += 1
                continue
            plans.append(ClipPlan(start, end, text, None))
            continue
        if duration < settings.min_clip_seconds:
            dropped["video_too_short"] += 1
            continue
        n = max(1, math.floor(duration / window + 1e-9))
        if duration - n * window >= settings.min_clip_seconds:
            n += 1
        for k in range(n):
            start = k * window
            end = min(start + window, duration)
            if end - start < settings.min_clip_seconds:
                start = max(0.0, end - settings.min_clip_seconds)
            plans.append(ClipPlan(start, end, text, None))
    if settings.max_clips_per_video:
        plans = plans[: settings.max_clips_per_video]
    return plans, dropped


def frame_indices(start: float, end: float, fps: float, num_available: int, num_frames: int) -> np.ndarray:
    """num_frames indices at the centres of equal slices of [start, end) seconds."""
    times = start + (np.arange(num_frames) + 0.5) * (end - start) / num_frames
    return np.clip(np.floor(times * fps).astype(np.int64), 0, num_available - 1)


def extract_video(
    video: str | os.PathLike,
    segments: list[Segment] | None,
    settings: ExtractSettings,
    captions: list[dict] | None = None,
) -> VideoResult:
    """Plan and cut the clips of one video: from its transcript segments, else from user captions."""
    source = str(video)
    result = VideoResult(source)
    if segments is None and not captions:
        result.skipped, result.detail = "no_transcript", "no transcript and no caption given"
        return result
    try:
        reader = open_video(source)
        num_available = len(reader)
        fps = reader.fps
        if not fps > 0:
            raise VideoDecodeError(f"video reports no frame rate: {source}")
    except VideoDecodeError as e:
        result.skipped, result.detail = "unreadable_video", str(e)
        return result
    duration = num_available / fps
    rng = video_rng(settings.seed, source)
    if segments is not None:
        matcher = KeywordMatcher(settings.resolved_keywords()) if settings.require_keyword else None
        plans, result.dropped = plan_transcript_clips(segments, duration, settings, rng, matcher)
        if not plans:
            reason = "video_too_short" if duration < settings.min_clip_seconds else (
                "no_keyword_match" if not result.dropped else "no_valid_candidate")
            result.skipped, result.detail = reason, f"{len(segments)} segments, dropped {dict(result.dropped)}"
            return result
    else:
        plans, result.dropped = plan_caption_clips(captions or [], duration, settings, rng)
        if not plans:
            result.skipped = "video_too_short" if duration < settings.min_clip_seconds else "no_valid_candidate"
            return result
    for k, plan in enumerate(plans):
        idx = frame_indices(plan.start, plan.end, fps, num_available, settings.num_frames)
        try:
            frames = reader.frames(idx)
        except VideoDecodeError as e:
            result.dropped["undecodable_frames"] += 1
            result.detail = f"cannot decode frames {idx.min()}..{idx.max()} of {source}: {e}"
            continue
        frames = resize_frames(np.ascontiguousarray(frames, dtype=np.uint8), (settings.height, settings.width), settings.aspect)
        meta = {
            "source": source,
            "video": Path(source).stem,
            "clip_index": k,
            "start": round(plan.start, 3),
            "end": round(plan.end, 3),
            "fps": round(settings.num_frames / (plan.end - plan.start), 6),
            "source_fps": round(fps, 6),
            "keyword": plan.keyword,
            "segments": list(plan.segments) if segments is not None else None,
        }
        result.clips.append(Clip(frames, plan.text, meta))
    if not result.clips:
        result.skipped = "unreadable_video"
    return result
