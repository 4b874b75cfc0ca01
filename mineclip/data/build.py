"""Build clip shards from a folder of videos with transcripts, in parallel over videos."""

from __future__ import annotations

import csv
import multiprocessing as mp
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from mineclip.data.extract import ExtractSettings, VideoResult, extract_video
from mineclip.data.shards import DEFAULT_MAX_SHARD_BYTES, ClipShardWriter, encode_clip
from mineclip.data.transcripts import TranscriptError, find_transcript, load_transcript

VIDEO_SUFFIXES = (".mp4", ".webm", ".mkv", ".mov", ".gif", ".avi", ".m4v")


@dataclass
class VideoJob:
    """One input video and what to caption it with."""

    video: str
    transcript: str | None = None
    captions: list[dict] = field(default_factory=list)


@dataclass
class BuildSummary:
    videos: int = 0
    videos_with_clips: int = 0
    clips: int = 0
    shards: int = 0
    skipped: Counter = field(default_factory=Counter)  # videos skipped, by reason
    dropped: Counter = field(default_factory=Counter)  # candidate clips dropped, by reason
    errors: list[str] = field(default_factory=list)  # one line per skipped video
    manifest: dict = field(default_factory=dict)

    def format(self) -> str:
        lines = [f"{self.clips} clips from {self.videos_with_clips}/{self.videos} videos in {self.shards} shards"]
        if self.skipped:
            lines.append("videos skipped: " + ", ".join(f"{k}={v}" for k, v in sorted(self.skipped.items())))
        if self.dropped:
            lines.append("candidates dropped: " + ", ".join(f"{k}={v}" for k, v in sorted(self.dropped.items())))
        return "\n".join(lines)


def find_videos(inputs: str | os.PathLike | list) -> list[Path]:
    """Videos in a folder (recursive), listed in a text file (one path per line), or given as a list."""
    if isinstance(inputs, (list, tuple)):
        return [Path(p) for p in inputs]
    path = Path(inputs)
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in VIDEO_SUFFIXES)
    if path.is_file() and path.suffix.lower() in VIDEO_SUFFIXES:
        return [path]
    if path.is_file():
        lines = [ln.strip() for ln in path.read_text(encoding="utf-8").splitlines()]
        return [(path.parent / ln) if not Path(ln).is_absolute() else Path(ln) for ln in lines if ln and not ln.startswith("#")]
    raise FileNotFoundError(f"input must be a folder of videos, a video or a list file, got {path} (not found)")


def read_captions_csv(path: str | os.PathLike) -> dict[str, list[dict]]:
    """CSV with columns video, caption and optional start, end (seconds); video by path, name or stem."""
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        missing = {"video", "caption"} - set(reader.fieldnames or [])
        if missing:
            raise ValueError(f"{path}: captions CSV needs columns video, caption[, start, end]; missing {sorted(missing)}")
        rows: dict[str, list[dict]] = {}
        for row in reader:
            rows.setdefault(row["video"].strip(), []).append(row)
    return rows


def plan_jobs(
    videos: list[Path],
    transcript_dirs: list[Path] | None = None,
    caption: str | None = None,
    captions_csv: dict[str, list[dict]] | None = None,
) -> list[VideoJob]:
    """Pair each video with its transcript (same stem) or its user captions."""
    jobs = []
    for video in videos:
        transcript = find_transcript(video, transcript_dirs)
        rows = []
        if captions_csv:
            for name in (str(video), video.name, video.stem):
                rows = captions_csv.get(name, [])
                if rows:
                    break
        if not rows and caption:
            rows = [{"caption": caption}]
        jobs.append(VideoJob(str(video), str(transcript) if transcript else None, rows))
    return jobs


def _process(args: tuple[VideoJob, ExtractSettings, str]) -> tuple[VideoResult, list[tuple[str, bytes, str, dict]]]:
    """Worker: extract one video's clips and encode them (the writer only appends bytes)."""
    job, settings, encoding = args
    segments = None
    if job.transcript:
        try:
            segments = load_transcript(job.transcript)
        except TranscriptError as e:
            return VideoResult(job.video, skipped="bad_transcript", detail=str(e)), []
    try:
        result = extract_video(job.video, segments, settings, captions=job.captions)
    except Exception as e:  # a broken input must not stop the build
        return VideoResult(job.video, skipped="error", detail=f"{type(e).__name__}: {e}"), []
    encoded = []
    for clip in result.clips:
        ext, payload = encode_clip(clip.frames, encoding, fps=clip.meta["fps"])
        meta = dict(clip.meta, num_frames=int(len(clip.frames)), height=int(clip.frames.shape[1]), width=int(clip.frames.shape[2]))
        if job.transcript and segments is not None:
            meta["transcript"] = job.transcript
        encoded.append((ext, payload, clip.text, meta))
    result.clips = []  # frames are not sent back to the parent
    return result, encoded


def build_shards(
    jobs: list[VideoJob],
    out_dir: str | os.PathLike,
    settings: ExtractSettings | None = None,
    prefix: str = "train",
    encoding: str = "mp4",
    max_shard_bytes: int = DEFAULT_MAX_SHARD_BYTES,
    workers: int = 1,
    progress: bool = True,
) -> BuildSummary:
    """Extract clips from every job and write shards + manifest; output is independent of `workers`."""
    from tqdm import tqdm

    settings = settings or ExtractSettings()
    summary = BuildSummary(videos=len(jobs))
    args = [(job, settings, encoding) for job in jobs]
    with ClipShardWriter(out_dir, prefix=prefix, max_shard_bytes=max_shard_bytes, encoding=encoding, settings=settings.to_dict()) as writer:
        if workers > 1 and len(jobs) > 1:
            ctx = mp.get_context("spawn" if os.environ.get("MINECLIP_SPAWN") else None)
            with ctx.Pool(min(workers, len(jobs))) as pool:
                results = pool.imap(_process, args, chunksize=1)  # ordered: shards do not depend on timing
                _consume(results, writer, summary, tqdm(total=len(jobs), desc="videos", unit="video", disable=not progress))
        else:
            _consume(map(_process, args), writer, summary, tqdm(total=len(jobs), desc="videos", unit="video", disable=not progress))
    summary.manifest = writer.manifest()
    summary.shards = len(writer.shards)
    summary.clips = writer.total
    return summary


def _consume(results, writer: ClipShardWriter, summary: BuildSummary, bar) -> None:
    with bar:
        for result, encoded in results:
            for ext, payload, text, meta in encoded:
                writer.write_encoded(ext, payload, text, meta)
            summary.dropped.update(result.dropped)
            if encoded:
                summary.videos_with_clips += 1
            elif result.skipped:
                summary.skipped[result.skipped] += 1
                summary.errors.append(f"{result.source}: {result.skipped} {result.detail}".rstrip())
            bar.update(1)
            bar.set_postfix(clips=writer.total)
