"""`mineclip data build|inspect`: videos + transcripts -> clip shards, and a look at shards."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections import Counter
from pathlib import Path

from mineclip.data.extract import ExtractSettings, load_keywords


def _build_parser(sub) -> None:
    d = ExtractSettings()
    p = sub.add_parser("build", help="cut (clip, caption) pairs from videos into WebDataset shards")
    p.add_argument("input", help="folder of videos (recursive), a video, or a text file listing videos")
    p.add_argument("--out", required=True, help="output folder for shards and manifest.json")
    p.add_argument("--transcripts", action="append", default=[], metavar="DIR", help="extra folder to look for <stem>.vtt/.srt/.json (repeatable)")
    p.add_argument("--caption", help="caption for videos without a transcript (cut into consecutive clips)")
    p.add_argument("--captions-csv", help="CSV with columns video,caption[,start,end] for videos without a transcript")
    p.add_argument("--keywords", help="keyword file (one per line, '#' comments); default: the package's Minecraft list")
    p.add_argument("--no-keyword-filter", action="store_true", help="use every transcript segment, not only keyword matches")
    p.add_argument("--min-tokens", type=int, default=d.min_tokens)
    p.add_argument("--max-tokens", type=int, default=d.max_tokens)
    p.add_argument("--long-text", choices=("truncate", "skip"), default=d.long_text)
    p.add_argument("--min-clip-seconds", type=float, default=d.min_clip_seconds)
    p.add_argument("--max-clip-seconds", type=float, default=d.max_clip_seconds)
    p.add_argument("--caption-clip-seconds", type=float, default=None, help="window for user-captioned videos (default: max clip)")
    p.add_argument("--num-frames", type=int, default=d.num_frames)
    p.add_argument("--height", type=int, default=d.height)
    p.add_argument("--width", type=int, default=d.width)
    p.add_argument("--aspect", choices=("crop", "pad", "stretch"), default=d.aspect)
    p.add_argument("--allow-overlap", action="store_true", help="let a keyword segment already used in a caption start another")
    p.add_argument("--max-clips-per-video", type=int, default=0)
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--encoding", choices=("mp4", "raw"), default="mp4")
    p.add_argument("--prefix", default="train", help="shard name prefix: <prefix>-000000.tar")
    p.add_argument("--max-shard-mb", type=float, default=256.0, help="size cap per shard")
    p.add_argument("--workers", type=int, default=1, help="processes over videos")
    p.add_argument("--no-progress", action="store_true")


def _inspect_parser(sub) -> None:
    p = sub.add_parser("inspect", help="counts, caption length histogram and a contact sheet of shards")
    p.add_argument("shards", help="brace pattern, '::'-joined patterns, or a shard folder")
    p.add_argument("--out", help="folder for caption_lengths.png and contact_sheet.png")
    p.add_argument("--num-clips", type=int, default=6, help="clips on the contact sheet")
    p.add_argument("--frames", type=int, default=8, help="frames per clip on the contact sheet")
    p.add_argument("--check", action="store_true", help="decode every clip to count undecodable ones")


def cmd_build(args) -> int:
    from mineclip.data.build import build_shards, find_videos, plan_jobs, read_captions_csv

    try:
        fields = {f.name for f in dataclasses.fields(ExtractSettings)} - {"keywords", "require_keyword"}
        settings = ExtractSettings(keywords=list(load_keywords(args.keywords)) if args.keywords else None,
                                   require_keyword=not args.no_keyword_filter,
                                   **{name: getattr(args, name) for name in fields})
        videos = find_videos(args.input)
        captions = read_captions_csv(args.captions_csv) if args.captions_csv else None
    except (ValueError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if not videos:
        print(f"error: no videos found in {args.input}", file=sys.stderr)
        return 2
    jobs = plan_jobs(videos, [Path(p) for p in args.transcripts], args.caption, captions)
    summary = build_shards(
        jobs,
        args.out,
        settings,
        prefix=args.prefix,
        encoding=args.encoding,
        max_shard_bytes=int(args.max_shard_mb * 1024 * 1024),
        workers=args.workers,
        progress=not args.no_progress,
    )
    print(summary.format())
    for line in summary.errors[:10]:
        print(f"  skipped {line}")
    if len(summary.errors) > 10:
        print(f"  ... and {len(summary.errors) - 10} more")
    if summary.clips:
        print(f"shards: {Path(args.out) / summary.manifest['urls']}")
    return 0 if summary.clips else 1


def cmd_inspect(args) -> int:
    import numpy as np
    from tqdm import tqdm

    from mineclip.data.extract import count_tokens
    from mineclip.data.pipeline import SkipCounter, shard_samples, expand_urls
    from mineclip.data.shards import decode_clip

    try:
        urls = expand_urls(args.shards)
    except (ValueError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    counter = SkipCounter()
    per_shard: Counter = Counter()
    lengths: list[int] = []
    sheet: list[tuple[np.ndarray, str]] = []
    bad: Counter = Counter()
    shapes: Counter = Counter()
    for sample in tqdm(shard_samples(iter(urls), counter), desc="samples", unit="clip"):
        per_shard[sample["__url__"]] += 1
        try:
            text = sample["txt"].decode("utf-8").strip()
        except (KeyError, UnicodeDecodeError):
            bad["bad_or_missing_text"] += 1
            continue
        lengths.append(count_tokens(text))
        if len(sheet) < args.num_clips or args.check:
            try:
                frames = decode_clip(sample)
            except Exception:
                bad["undecodable_video"] += 1
                continue
            shapes[tuple(frames.shape)] += 1
            if len(sheet) < args.num_clips:
                sheet.append((frames, text))
    total = sum(per_shard.values())
    print(f"{total} samples in {len(per_shard)}/{len(urls)} readable shards")
    for url in urls:
        print(f"  {url}: {per_shard.get(url, 0)}")
    if counter.counts:
        print("shard errors: " + ", ".join(f"{k}={v}" for k, v in counter.counts.items()))
    if bad:
        print("bad samples: " + ", ".join(f"{k}={v}" for k, v in sorted(bad.items())))
    if shapes:
        print("clip shapes [T, H, W, 3]: " + ", ".join(f"{list(s)} x{n}" for s, n in shapes.most_common()))
    if lengths:
        arr = np.asarray(lengths)
        print(f"caption tokens: min {arr.min()} median {int(np.median(arr))} max {arr.max()}")
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        if lengths:
            _plot_lengths(lengths, out / "caption_lengths.png")
            print(f"wrote {out / 'caption_lengths.png'}")
        if sheet:
            _contact_sheet(sheet, args.frames, out / "contact_sheet.png")
            print(f"wrote {out / 'contact_sheet.png'}")
        (out / "inspect.json").write_text(
            json.dumps({"total": total, "per_shard": dict(per_shard), "bad": dict(bad), "shard_errors": dict(counter.counts)}, indent=1) + "\n"
        )
    return 0 if total and not counter.counts else 1


def _plot_lengths(lengths: list[int], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.hist(lengths, bins=range(0, 79, 2), color="#4a7")
    ax.set_xlabel("caption length (CLIP tokens, with start/end)")
    ax.set_ylabel("clips")
    ax.set_title(f"{len(lengths)} captions")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _contact_sheet(clips, frames_per_clip: int, path: Path) -> None:
    import textwrap

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from mineclip.data.video import uniform_indices

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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mineclip data", description="build and inspect clip shards")
    sub = parser.add_subparsers(dest="command", required=True)
    _build_parser(sub)
    _inspect_parser(sub)
    args = parser.parse_args(argv)
    return {"build": cmd_build, "inspect": cmd_inspect}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
