"""`mineclip data build` on real-sized input: clips/s, clips/s per worker, clips per CPU-second and
seconds of video per second, for each --workers given.

    python bench/build.py                                  # 4 videos of 3 min, 640x360 at 30 fps; workers 1 and 2
    python bench/build.py --videos 4 --minutes 5 --workers 1 2 4 --keep /tmp/bench-build

The input is generated first (not timed): H.264 videos that pan over a block texture with film grain
and a cut every 20 s (so the decoder has real work, like screen-recorded gameplay), keyframes every
4 s, each with a WebVTT transcript of ~2.5 s lines, about half of them naming Minecraft things.
The build then runs in this process with the default extraction settings (16 frames, 160x256, mp4),
as `mineclip data build DIR --out OUT --workers W` does, after a warm-up build of one clip (imports,
the tokenizer: a one-time cost per run, reported apart; forked workers inherit it). CPU time counts this process and its
worker processes, so clips per CPU-second is the number to plan a cluster with (core-hours per clip)
on a machine that other jobs share; wall-clock numbers depend on what else runs.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mineclip.data.build import build_shards, plan_input  # noqa: E402
from mineclip.data.extract import ExtractSettings  # noqa: E402

KEYWORD_LINES = [
    "okay so now I am going to chop down this oak tree for some wood",
    "let me craft a crafting table and a wooden pickaxe real quick",
    "there is a creeper behind me so I am going to back off",
    "we found some iron ore down here in this cave",
    "I need more cobblestone to build the walls of the house",
    "let us go mining for diamonds at level eleven",
    "put the furnace down and smelt the iron",
    "a zombie is attacking me let me grab my sword",
    "I am going to plant some wheat next to the water",
    "and here is a village with a blacksmith",
]
FILLER_LINES = [
    "so yeah that was pretty fun",
    "let me know in the comments what you think",
    "anyway where was I going with this",
    "hold on one second",
    "alright let us keep going",
    "I think this is the right way",
]


def write_video(path: Path, seconds: float, fps: int, size: tuple[int, int], seed: int, progress: bool) -> None:
    """An H.264 mp4 panning over a block texture with grain, written frame by frame (never all in memory)."""
    import av
    from tqdm import tqdm

    h, w = size
    rng = np.random.default_rng(seed)
    block = 16
    worlds = [rng.integers(0, 256, (3 * h // block, 4 * w // block, 3), dtype=np.uint8).repeat(block, 0).repeat(block, 1)
              for _ in range(4)]
    grain = [rng.integers(-16, 17, (h, w, 3), dtype=np.int16) for _ in range(7)]
    frames = int(seconds * fps)
    with av.open(str(path), mode="w") as container:
        stream = container.add_stream("libx264", rate=fps)
        stream.width, stream.height, stream.pix_fmt = w, h, "yuv420p"
        stream.options = {"crf": "23", "preset": "veryfast", "g": str(4 * fps)}
        for t in tqdm(range(frames), desc=path.name, unit="frame", disable=not progress, leave=False):
            world = worlds[(t // (20 * fps)) % len(worlds)]  # a cut every 20 s
            span_y, span_x = world.shape[0] - h, world.shape[1] - w
            x = abs((3 * t) % (2 * span_x) - span_x)  # pan back and forth, 3 px per frame
            y = int(span_y / 2 * (1 + np.sin(t / (3 * fps))))
            frame = (world[y : y + h, x : x + w].astype(np.int16) + grain[t % len(grain)]).clip(0, 255).astype(np.uint8)
            frame[-24:, w // 2 - 90 : w // 2 + 90] = 40  # a hotbar
            for packet in stream.encode(av.VideoFrame.from_ndarray(frame, format="rgb24")):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)


def write_transcript(path: Path, seconds: float, seed: int) -> None:
    """WebVTT lines of ~2.5 s, about half of them naming Minecraft things."""
    rng = random.Random(seed)
    blocks, t = [], 0.0
    while t + 1.0 < seconds:
        length = rng.uniform(1.5, 3.5)
        text = rng.choice(KEYWORD_LINES if rng.random() < 0.5 else FILLER_LINES)
        blocks.append(f"{_timestamp(t)} --> {_timestamp(min(t + length, seconds))}\n{text}\n")
        t += length
    path.write_text("WEBVTT\n\n" + "\n".join(blocks), encoding="utf-8")


def _timestamp(t: float) -> str:
    m, s = divmod(t, 60)
    return f"00:{int(m):02d}:{s:06.3f}"


def cpu_seconds() -> float:
    """User + system CPU time of this process and of its finished children."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--videos", type=int, default=4, help="videos (a worker builds one video at a time)")
    p.add_argument("--minutes", type=float, default=3.0, help="length of each video")
    p.add_argument("--fps", type=int, default=30)
    p.add_argument("--size", type=int, nargs=2, default=(360, 640), metavar=("H", "W"))
    p.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    p.add_argument("--keep", help="generate into (and reuse) this folder instead of a temporary one")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args()
    progress = not args.no_progress

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.keep or tmp)
        videos = root / f"videos-{args.videos}x{args.minutes:g}min-{args.size[1]}x{args.size[0]}-{args.fps}fps"
        videos.mkdir(parents=True, exist_ok=True)
        seconds = args.minutes * 60
        start, made = time.perf_counter(), 0
        for i in range(args.videos):
            path = videos / f"gameplay{i:02d}.mp4"
            if not path.exists():  # with --keep, the videos of an earlier run with the same parameters are reused
                write_video(path, seconds, args.fps, tuple(args.size), seed=i, progress=progress)
                made += 1
            write_transcript(videos / f"gameplay{i:02d}.vtt", seconds, seed=i)
        mb = sum((videos / f"gameplay{i:02d}.mp4").stat().st_size for i in range(args.videos)) / 1e6
        print(f"input: {args.videos} videos x {args.minutes:g} min, {args.size[1]}x{args.size[0]} at {args.fps} fps, {mb:.0f} MB "
              f"({made} generated in {time.perf_counter() - start:.0f} s, {args.videos - made} reused; not timed)")
        print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} before the builds")

        from mineclip.data.decoders import choose_backend

        jobs, inputs = plan_input(videos)
        settings = ExtractSettings()
        warm = time.perf_counter()
        build_shards(jobs[:1], root / "warm-up", ExtractSettings(max_clips_per_video=1), progress=False)
        print(f"decoder: {choose_backend()}; warm-up (imports, tokenizer, one clip): {time.perf_counter() - warm:.1f} s, not timed")
        manifests = []
        for workers in args.workers:
            wall, cpu = time.perf_counter(), cpu_seconds()
            summary = build_shards(jobs, root / f"shards-w{workers}", settings, workers=workers, progress=progress, inputs=inputs)
            wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
            manifests.append(summary.manifest["shards"])
            print(f"workers {workers}: {summary.clips} clips in {wall:.1f} s (CPU {cpu:.1f} s): {summary.clips / wall:.2f} clips/s, "
                  f"{summary.clips / wall / workers:.2f} clips/s per worker, {summary.clips / cpu:.2f} clips per CPU-second, "
                  f"{args.videos * seconds / wall:.1f} s of video per s; load average {os.getloadavg()[0]:.1f} after")
        if len(manifests) > 1:
            print("same shards for every --workers:", all(m == manifests[0] for m in manifests))


if __name__ == "__main__":
    main()
