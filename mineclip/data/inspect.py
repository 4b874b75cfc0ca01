"""A look at clip shards: counts per shard, unreadable samples, clip shapes, caption lengths, and
(with an output folder) a caption-length histogram and a contact sheet as PNGs."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mineclip.extras import pyplot

from .extract import count_tokens
from .reader import SkipCounter, expand_urls, missing_local_shards, shard_samples
from .shards import decode_clip
from .video import VideoDecodeError, uniform_indices


@dataclass
class InspectResult:
    """What `inspect_shards` found and wrote."""

    total: int
    per_shard: dict[str, int]  # every URL, 0 for unreadable ones
    shard_errors: dict[str, int]
    bad: dict[str, int]  # bad samples by reason
    shapes: Counter = field(default_factory=Counter)  # clip shape -> count (of the decoded clips)
    caption_tokens: dict[str, int] = field(default_factory=dict)  # min, median, max
    written: list[str] = field(default_factory=list)


def inspect_shards(shards: str, out: str | Path | None = None, num_clips: int = 6, frames: int = 8,
                   check: bool = False, progress: bool = True) -> InspectResult:
    """Read every sample of `shards` (brace pattern, '::'-joined patterns or a shard folder); decode
    the first `num_clips` clips (every clip with `check`) and, with `out`, draw the PNGs and write
    inspect.json there."""
    from tqdm import tqdm

    urls = expand_urls(shards)
    missing = missing_local_shards(urls)
    if missing:  # a typo was a warning scrolled past "0 samples"; now it stops before anything is read or written
        shown = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
        raise FileNotFoundError(f"no such shard file: {shown} (expected a brace pattern, '::'-joined patterns "
                                f"or a shard folder with manifest.json)")
    counter = SkipCounter()
    per_shard: Counter = Counter()
    lengths: list[int] = []
    sheet: list[tuple[np.ndarray, str]] = []
    bad: Counter = Counter()
    shapes: Counter = Counter()
    for sample in tqdm(shard_samples(iter(urls), counter), desc="samples", unit="clip", disable=not progress):
        per_shard[sample["__url__"]] += 1
        try:
            text = sample["txt"].decode("utf-8").strip()
        except (KeyError, UnicodeDecodeError):
            bad["bad_or_missing_text"] += 1
            continue
        lengths.append(count_tokens(text))
        if len(sheet) < num_clips or check:
            try:
                clip = decode_clip(sample)
            except (VideoDecodeError, KeyError):
                bad["undecodable_video"] += 1
                continue
            shapes[tuple(clip.shape)] += 1
            if len(sheet) < num_clips:
                sheet.append((clip, text))
    result = InspectResult(sum(per_shard.values()), {u: per_shard.get(u, 0) for u in urls}, dict(counter.counts),
                           dict(bad), shapes)
    if lengths:
        arr = np.asarray(lengths)
        result.caption_tokens = {"min": int(arr.min()), "median": int(np.median(arr)), "max": int(arr.max())}
    if out:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        if lengths:
            result.written.append(str(_plot_lengths(lengths, out / "caption_lengths.png")))
        if sheet:
            result.written.append(str(_contact_sheet(sheet, frames, out / "contact_sheet.png")))
        (out / "inspect.json").write_text(json.dumps({"total": result.total, "per_shard": dict(per_shard),
                                                      "bad": result.bad, "shard_errors": result.shard_errors},
                                                     indent=1) + "\n")
    return result


def _plot_lengths(lengths: list[int], path: Path) -> Path:
    plt = pyplot("the data report's plots")

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.hist(lengths, bins=range(0, 79, 2), color="#4a7")
    ax.set_xlabel("caption length (CLIP tokens, with start/end)")
    ax.set_ylabel("clips")
    ax.set_title(f"{len(lengths)} captions")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def _contact_sheet(clips, frames_per_clip: int, path: Path) -> Path:
    import textwrap

    plt = pyplot("the data report's plots")

    rows = len(clips)
    fig, axes = plt.subplots(rows, 1, figsize=(frames_per_clip * 1.6, rows * 1.6), squeeze=False)
    for ax, (frames, text) in zip(axes[:, 0], clips):
        picked = frames[uniform_indices(len(frames), min(frames_per_clip, len(frames)))]
        strip = (picked.transpose(1, 0, 2, 3).reshape(frames.shape[1], -1, 3))
        ax.imshow(strip)
        ax.set_axis_off()
        ax.set_title("\n".join(textwrap.wrap(text, 140)[:2]), fontsize=7, loc="left")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
