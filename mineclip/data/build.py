"""Build clip shards from a folder of videos with transcripts, in parallel over videos."""

from __future__ import annotations

import csv
import hashlib
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from mineclip.data.extract import ExtractSettings, VideoResult, extract_video
from mineclip.data.shards import MANIFEST, DEFAULT_MAX_SHARD_BYTES, ClipShardWriter, encode_clip, safe_key, write_manifest
from mineclip.data.transcripts import TranscriptError, find_transcript, load_transcript

VIDEO_SUFFIXES = (".mp4", ".webm", ".mkv", ".mov", ".gif", ".avi", ".m4v")


@dataclass
class VideoJob:
    """One input video, its name (path relative to the input, which names its clips) and what to caption it with."""

    video: str
    transcript: str | None = None
    captions: list[dict] = field(default_factory=list)
    name: str = ""

    def __post_init__(self):
        self.name = self.name or Path(self.video).as_posix()


@dataclass(frozen=True)
class Part:
    """Part `index` of `count` (counting from 0) of a build split over machines: the videos whose
    position in the input sorted by name is index, index + count, index + 2 * count, ..."""

    index: int
    count: int

    def __post_init__(self):
        if self.count < 1:
            raise ValueError(f"the number of parts must be at least 1, got {self.index}/{self.count}")
        if not 0 <= self.index < self.count:
            raise ValueError(f"part indices count from 0: expected 0/{self.count} .. {self.count - 1}/{self.count}, "
                             f"got {self.index}/{self.count}")

    @classmethod
    def parse(cls, text: str) -> "Part":
        """'3/16' -> Part(3, 16)."""
        match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
        if not match:
            hint = " (is the array index variable, e.g. $SLURM_ARRAY_TASK_ID, set?)" if text.strip().startswith("/") else ""
            raise ValueError(f"expected a part as I/N with 0 <= I < N, e.g. 3/16, got {text!r}{hint}")
        return cls(int(match[1]), int(match[2]))

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    @property
    def label(self) -> str:
        """What the part's shard names carry: 'p0003of0016'."""
        return f"p{self.index:04d}of{self.count:04d}"

    @property
    def manifest_name(self) -> str:
        return f"manifest.part-{self.index:04d}-of-{self.count:04d}.json"

    def shard_prefix(self, prefix: str) -> str:
        return f"{prefix}-{self.label}"

    def select(self, names: list[str]) -> list[str]:
        """This part's share of the names: the same on every machine, whatever order they were listed in."""
        return sorted(set(names))[self.index :: self.count]


@dataclass
class BuildSummary:
    """What a build (or a merge of parts) wrote and skipped."""

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

    def to_manifest(self) -> dict:
        """The counts a manifest records (and a merge of parts adds up)."""
        return {"videos": self.videos, "videos_with_clips": self.videos_with_clips,
                "skipped": dict(sorted(self.skipped.items())), "dropped": dict(sorted(self.dropped.items()))}

    @classmethod
    def from_manifest(cls, manifest: dict) -> "BuildSummary":
        counts = manifest.get("summary", {})
        return cls(videos=counts.get("videos", 0), videos_with_clips=counts.get("videos_with_clips", 0),
                   clips=manifest["total"], shards=len(manifest["shards"]), skipped=Counter(counts.get("skipped", {})),
                   dropped=Counter(counts.get("dropped", {})), manifest=manifest)


def find_videos(inputs: str | os.PathLike | list) -> list[Path]:
    """Videos in a folder (recursive), listed in a text file (one path per line; a video listed twice
    is kept once), or given as a list."""
    if isinstance(inputs, (list, tuple)):
        return [Path(p) for p in inputs]
    path = Path(inputs)
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in VIDEO_SUFFIXES)
    if path.is_file() and path.suffix.lower() in VIDEO_SUFFIXES:
        return [path]
    if path.is_file():
        lines = [ln.strip() for ln in path.read_text(encoding="utf-8").splitlines()]
        listed = [(path.parent / ln) if not Path(ln).is_absolute() else Path(ln) for ln in lines if ln and not ln.startswith("#")]
        unique: dict[str, Path] = {}
        for video in listed:
            unique.setdefault(os.path.normpath(os.path.abspath(video)), video)
        return list(unique.values())
    raise FileNotFoundError(f"input must be a folder of videos, a video or a list file, got {path} (not found)")


def input_root(inputs: str | os.PathLike) -> Path:
    """The folder video names are relative to: the input folder, or the folder of a video or list file."""
    path = Path(inputs)
    return path if path.is_dir() else path.parent


def video_name(video: str | os.PathLike, root: str | os.PathLike | None) -> str:
    """A video's name: its path relative to the input root, with '/' separators (the path itself without a root)."""
    if root is None:
        return Path(video).as_posix()
    return Path(os.path.relpath(os.path.abspath(video), os.path.abspath(root))).as_posix()


def describe_inputs(names: list[str], **options) -> dict:
    """What every part of a split build must agree on: the number of videos, a digest of their sorted
    names, and the options that decide how each is captioned."""
    digest = hashlib.sha256("\n".join(sorted(set(names))).encode("utf-8")).hexdigest()
    return {"videos": len(set(names)), "names_sha256": digest, **options}


def clip_key(name: str, clip_index: int) -> str:
    """A sample key that depends only on the video's name and the clip's index in it, so a video
    gives the same keys whether it is built alone, in any part, or with the whole input."""
    digest = hashlib.sha1(name.encode("utf-8")).hexdigest()[:8]
    return f"{safe_key(Path(name).stem)[:48]}-{digest}-{clip_index:04d}"


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
    root: str | os.PathLike | None = None,
) -> list[VideoJob]:
    """Pair each video with its transcript (same stem) or its user captions; names are relative to `root`."""
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
        jobs.append(VideoJob(str(video), str(transcript) if transcript else None, rows, video_name(video, root)))
    return jobs


def plan_input(
    inputs: str | os.PathLike,
    transcript_dirs: list[str] | None = None,
    caption: str | None = None,
    captions_csv: str | os.PathLike | None = None,
    part: Part | None = None,
) -> tuple[list[VideoJob], dict]:
    """The jobs of a build (of one part with `part`) and the description of the whole input that
    every part records; transcripts are looked up for this part's videos only."""
    videos = find_videos(inputs)
    root = input_root(inputs)
    by_name = {video_name(v, root): v for v in videos}
    csv_digest = hashlib.sha256(Path(captions_csv).read_bytes()).hexdigest() if captions_csv else None
    described = describe_inputs(list(by_name), transcript_dirs=[str(d) for d in transcript_dirs or []],
                                caption=caption, captions_csv_sha256=csv_digest)
    if part is not None:
        videos = [by_name[name] for name in part.select(list(by_name))]
    rows = read_captions_csv(captions_csv) if captions_csv else None
    return plan_jobs(videos, [Path(d) for d in transcript_dirs or []], caption, rows, root), described


def _process(args: tuple[VideoJob, ExtractSettings, str]) -> tuple[VideoResult, list[tuple[str, str, bytes, str, dict]]]:
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
        encoded.append((clip_key(job.name, clip.meta["clip_index"]), ext, payload, clip.text, meta))
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
    part: Part | None = None,
    inputs: dict | None = None,
) -> BuildSummary:
    """Extract clips from every job and write shards + manifest; output is independent of `workers`
    (the same clips, texts and metadata in the same order, the same frames before encoding). The
    H.264 bytes are not always reproducible: under CPU contention libx264 (single-threaded here)
    sometimes encodes the same frames with other per-macroblock QP offsets (adaptive quantisation,
    mbtree), so a few clips decode a few levels off; seen in about 7% of 1- vs 2-worker build pairs
    with torchcodec decoding the sources, not in 40 pairs with PyAV; the cause inside x264 is not
    found yet (2026-11-28).

    With `part`, `jobs` are that part's videos: shards are named `<prefix>-pIIIIofNNNN-000000.tar` and
    the manifest `manifest.part-IIII-of-NNNN.json`, for `mineclip.data.merge.merge_parts`. `inputs`
    (see `describe_inputs`) is recorded in the manifest; the parts of a build must agree on it.
    The manifest is written last: a build that stops early leaves none (and removes an older one first),
    and the shard it was writing stays a `.tar.part`. A worker that dies (killed, out of memory) stops
    the build at once with `WorkerDiedError` naming the videos that were being built.
    """
    from tqdm import tqdm

    settings = settings or ExtractSettings()
    out_dir = Path(out_dir)
    manifest_name = part.manifest_name if part else MANIFEST
    (out_dir / manifest_name).unlink(missing_ok=True)  # it would describe shards about to be replaced
    summary = BuildSummary(videos=len(jobs))
    args = [(job, settings, encoding) for job in jobs]
    with ClipShardWriter(out_dir, prefix=part.shard_prefix(prefix) if part else prefix, max_shard_bytes=max_shard_bytes,
                         encoding=encoding, settings=settings.to_dict(), manifest_name=None) as writer:
        bar = tqdm(total=len(jobs), desc=f"videos (part {part})" if part else "videos", unit="video", disable=not progress)
        if workers > 1 and len(jobs) > 1:
            from contextlib import closing

            from mineclip.pool import pool_map

            # ordered: shards do not depend on timing
            results = pool_map(_process, args, min(workers, len(jobs)), name_of=lambda a: a[0].name, what="video",
                               context="spawn" if os.environ.get("MINECLIP_SPAWN") else None)
            with closing(results):
                _consume(results, writer, summary, bar)
        else:
            _consume(map(_process, args), writer, summary, bar)
    summary.shards = len(writer.shards)
    summary.clips = writer.total
    manifest = dict(writer.manifest(), prefix=prefix, summary=summary.to_manifest())
    if inputs is not None:
        manifest["inputs"] = inputs
    if part is not None:
        manifest["part"] = {"index": part.index, "count": part.count}
    write_manifest(out_dir, manifest, manifest_name)
    summary.manifest = manifest
    return summary


def _consume(results, writer: ClipShardWriter, summary: BuildSummary, bar) -> None:
    with bar:
        for result, encoded in results:
            for key, ext, payload, text, meta in encoded:
                writer.write_encoded(ext, payload, text, meta, key=key)
            summary.dropped.update(result.dropped)
            if encoded:
                summary.videos_with_clips += 1
            elif result.skipped:
                summary.skipped[result.skipped] += 1
                summary.errors.append(f"{result.source}: {result.skipped} {result.detail}".rstrip())
            bar.update(1)
            bar.set_postfix(clips=writer.total)
