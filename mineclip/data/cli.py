"""`mineclip data build|merge|inspect`: videos + transcripts -> clip shards (whole, or in parts that a
scheduler runs on many machines and `merge` combines), and a look at shards."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from mineclip.cli import count
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
    p.add_argument("--min-tokens", type=int, default=d.min_tokens, help="shortest caption in CLIP tokens (start/end included); shorter texts grow with neighbouring segments (default: %(default)s)")
    p.add_argument("--max-tokens", type=int, default=d.max_tokens, help="longest caption in CLIP tokens (default: %(default)s)")
    p.add_argument("--long-text", choices=("truncate", "skip"), default=d.long_text, help="a single segment over --max-tokens: cut by words or skip it (default: %(default)s)")
    p.add_argument("--min-clip-seconds", type=float, default=d.min_clip_seconds, help="shortest clip (default: %(default)s)")
    p.add_argument("--max-clip-seconds", type=float, default=d.max_clip_seconds, help="longest clip (default: %(default)s)")
    p.add_argument("--caption-clip-seconds", type=float, default=None, help="window for user-captioned videos (default: max clip)")
    p.add_argument("--num-frames", type=int, default=d.num_frames, help="frames sampled uniformly per clip, 1..32 (default: %(default)s)")
    p.add_argument("--height", type=int, default=d.height, help="frame height in the shards (default: %(default)s)")
    p.add_argument("--width", type=int, default=d.width, help="frame width in the shards (default: %(default)s)")
    p.add_argument("--aspect", choices=("crop", "pad", "stretch"), default=d.aspect, help="fitting other aspect ratios: cover and centre-crop, letterbox, or stretch (default: %(default)s)")
    p.add_argument("--allow-overlap", action="store_true", help="let a keyword segment already used in a caption start another")
    p.add_argument("--max-clips-per-video", type=int, default=0, help="at most this many clips per video, 0 for no limit")
    p.add_argument("--seed", type=int, default=d.seed, help="seed of the clip times chosen in each video (default: %(default)s)")
    p.add_argument("--encoding", choices=("mp4", "raw"), default="mp4", help="clip members: H.264 mp4 or raw uint8 npy (default: %(default)s)")
    p.add_argument("--prefix", default="train", help="shard name prefix: <prefix>-000000.tar")
    p.add_argument("--max-shard-mb", type=float, default=256.0, help="size cap per shard")
    p.add_argument("--workers", type=count, default=1, help="processes over videos")
    p.add_argument("--part", type=_part, metavar="I/N", help="build only part I of N (I counts from 0, e.g. "
                   "$SLURM_ARRAY_TASK_ID/16): the videos at positions I, I+N, ... of the input sorted by name; "
                   "combine the parts with `mineclip data merge OUT`")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _part(text: str):
    from mineclip.data.build import Part

    try:
        return Part.parse(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _merge_parser(sub) -> None:
    p = sub.add_parser("merge", help="combine the parts of a build made with --part I/N into one manifest.json")
    p.add_argument("folder", help="the --out folder every part wrote to")


def _inspect_parser(sub) -> None:
    p = sub.add_parser("inspect", help="counts, caption length histogram and a contact sheet of shards")
    p.add_argument("shards", help="brace pattern, '::'-joined patterns, or a shard folder")
    p.add_argument("--out", help="folder for caption_lengths.png and contact_sheet.png")
    p.add_argument("--num-clips", type=int, default=6, help="clips on the contact sheet")
    p.add_argument("--frames", type=int, default=8, help="frames per clip on the contact sheet")
    p.add_argument("--check", action="store_true", help="decode every clip to count undecodable ones")


def cmd_build(args) -> int:
    from mineclip.cli import quiet
    from mineclip.data.build import build_shards, plan_input

    try:
        fields = {f.name for f in dataclasses.fields(ExtractSettings)} - {"keywords", "require_keyword"}
        settings = ExtractSettings(keywords=list(load_keywords(args.keywords)) if args.keywords else None,
                                   require_keyword=not args.no_keyword_filter,
                                   **{name: getattr(args, name) for name in fields})
        jobs, inputs = plan_input(args.input, args.transcripts, args.caption, args.captions_csv, args.part)
    except (ValueError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if not inputs["videos"]:
        print(f"error: no videos found in {args.input}", file=sys.stderr)
        return 2
    from mineclip.pool import WorkerDiedError

    try:
        summary = build_shards(
            jobs,
            args.out,
            settings,
            prefix=args.prefix,
            encoding=args.encoding,
            max_shard_bytes=int(args.max_shard_mb * 1024 * 1024),
            workers=args.workers,
            progress=not (args.no_progress or quiet()),
            part=args.part,
            inputs=inputs,
        )
    except WorkerDiedError as e:
        print(f"error: {e}; no manifest was written (the build is not complete)", file=sys.stderr)
        return 1
    if args.part:
        print(f"part {args.part}: {len(jobs)} of {inputs['videos']} videos")
    print(summary.format())
    for line in summary.errors[:10]:
        print(f"  skipped {line}")
    if len(summary.errors) > 10:
        print(f"  ... and {len(summary.errors) - 10} more")
    if summary.clips:
        print(f"shards: {Path(args.out) / summary.manifest['urls']}")
    if args.part:  # an empty part is finished too: the merge judges the whole
        print(f"wrote {Path(args.out) / args.part.manifest_name}; when all {args.part.count} parts are done: "
              f"mineclip data merge {args.out}")
        return 0
    return 0 if summary.clips else 1


def cmd_merge(args) -> int:
    from mineclip.data.merge import MergeError, merge_parts

    try:
        summary = merge_parts(args.folder)
    except (MergeError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"{summary.manifest['parts']} parts: {summary.format()}")
    print(f"wrote {Path(args.folder) / 'manifest.json'}")
    if summary.clips:
        print(f"shards: {Path(args.folder) / summary.manifest['urls']}")
    return 0 if summary.clips else 1


def cmd_inspect(args) -> int:
    from mineclip.data.inspect import inspect_shards

    try:
        r = inspect_shards(args.shards, args.out, num_clips=args.num_clips, frames=args.frames, check=args.check)
    except (ValueError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"{r.total} samples in {sum(1 for n in r.per_shard.values() if n)}/{len(r.per_shard)} readable shards")
    for url, n in r.per_shard.items():
        print(f"  {url}: {n}")
    for title, counts in (("shard errors", r.shard_errors), ("bad samples", r.bad)):
        if counts:
            print(f"{title}: " + ", ".join(f"{k}={v}" for k, v in sorted(counts.items())))
    if r.shapes:
        print("clip shapes [T, H, W, 3]: " + ", ".join(f"{list(s)} x{n}" for s, n in r.shapes.most_common()))
    if r.caption_tokens:
        print("caption tokens: min {min} median {median} max {max}".format(**r.caption_tokens))
    for path in r.written:
        print(f"wrote {path}")
    return 0 if r.total and not r.shard_errors else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mineclip data", description="Build WebDataset clip shards from videos "
                                     "and transcripts (whole or in parts, then merged), and inspect shards.")
    sub = parser.add_subparsers(dest="command", required=True)
    _build_parser(sub)
    _merge_parser(sub)
    _inspect_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return {"build": cmd_build, "merge": cmd_merge, "inspect": cmd_inspect}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
