"""Video encoding (H.264 mp4 through PyAV) and decoding (the backend `mineclip.data.decoders`
chooses), from and to uint8 arrays, and resizing.

Frames are always uint8 RGB arrays shaped [T, H, W, 3].
"""

from __future__ import annotations

import io
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np


from .decoders import VideoDecodeError, VideoReader, check_deadline, describe, open_video  # noqa: F401

CHUNK = 64  # frames decoded (and transformed) at a time under limits


@dataclass(frozen=True)
class DecodeLimits:
    """What one decode may cost: frames, pixels per source frame, bytes of the frames returned (after
    any transform), and seconds. Over any of them: a VideoDecodeError that says which, before the
    memory is spent (the frame count and size are known from the container before decoding)."""

    max_frames: int = 20_000
    max_pixels: int = 3840 * 2160
    max_bytes: int = 4 << 30
    timeout: float = 300.0

    def check_size(self, source, frames: int, height: int, width: int) -> None:
        """VideoDecodeError when `frames` frames of height x width are over the frame or pixel cap."""
        if frames > self.max_frames:
            raise VideoDecodeError(f"{describe(source)} has {frames} frames, more than the {self.max_frames} "
                                   "that may be decoded at once here")
        if height * width > self.max_pixels:
            raise VideoDecodeError(f"{describe(source)} is {width}x{height} pixels a frame, more than the "
                                   f"{self.max_pixels} that may be decoded here")

    def check_bytes(self, source, frames: int, frame: tuple) -> None:
        """VideoDecodeError when `frames` frames shaped `frame` (H, W, 3) are over the byte cap."""
        size = frames * int(np.prod(frame))
        if size > self.max_bytes:
            raise VideoDecodeError(f"{describe(source)}: {frames} frames of {frame[1]}x{frame[0]} take "
                                   f"{size / 2**20:.0f} MiB decoded, more than the {self.max_bytes / 2**20:.0f} "
                                   "MiB allowed here")

    def deadline(self) -> float:
        return time.monotonic() + self.timeout


def check_frames(frames: np.ndarray) -> np.ndarray:
    """The frames as uint8 [T, H, W, 3] with T >= 1, or a ValueError saying what came."""
    frames = np.asarray(frames)
    if frames.dtype != np.uint8 or frames.ndim != 4 or frames.shape[-1] != 3 or len(frames) == 0:
        raise ValueError(f"expected uint8 frames [T, H, W, 3] with T >= 1, got {frames.dtype} {list(frames.shape)}")
    return frames


def encode_mp4(frames: np.ndarray, fps: float = 8.0, crf: int = 18, preset: str = "veryfast",
               threads: int = 0) -> bytes:
    """Encode frames as an H.264 mp4 (yuv420p) and return its bytes.

    threads: x264 threads, 0 = x264's choice (several per core). Worker pools that already keep every
    core busy encode short clips faster with 1, and the bytes then do not depend on the machine's cores.
    """
    from mineclip.extras import require

    require("av", feature="encoding video")
    import av

    frames = check_frames(frames)
    _, h, w, _ = frames.shape
    if h % 2 or w % 2:
        raise ValueError(f"H.264 yuv420p needs even height and width, got {h}x{w}")
    buf = io.BytesIO()
    with av.open(buf, mode="w", format="mp4") as container:
        rate = _fps_fraction(fps)
        stream = container.add_stream("libx264", rate=rate)
        stream.width, stream.height, stream.pix_fmt = w, h, "yuv420p"
        stream.options = {"crf": str(crf), "preset": preset, "tune": "fastdecode"}
        if threads:
            stream.options = {**stream.options, "threads": str(int(threads))}
        for frame in frames:
            for packet in stream.encode(av.VideoFrame.from_ndarray(frame, format="rgb24")):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return buf.getvalue()


def _fps_fraction(fps: float):
    from fractions import Fraction

    return Fraction(fps).limit_denominator(1001)


def write_mp4(path: str | os.PathLike, frames: np.ndarray, fps: float = 8.0, **kwargs) -> Path:
    """Write frames to an mp4 file atomically (a partial file never carries the final name)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    tmp.write_bytes(encode_mp4(frames, fps=fps, **kwargs))
    os.replace(tmp, path)
    return path


def video_info(source: str | os.PathLike | bytes) -> dict:
    """Frame count (the frames the file holds), fps, duration in seconds, height and width of a video."""
    r = open_video(source)
    return {"frames": r.num_frames, "fps": r.fps, "duration": r.num_frames / r.fps if r.fps > 0 else 0.0,
            "height": r.height, "width": r.width, "backend": r.backend}


def decode_video(
    source: str | os.PathLike | bytes,
    indices: list[int] | np.ndarray | None = None,
    num_frames: int | None = None,
    limits: DecodeLimits | None = None,
    transform: Callable[[np.ndarray], np.ndarray] | None = None,
) -> np.ndarray:
    """Decode a video to uint8 [T, H, W, 3]: all frames, the given indices, or `num_frames` sampled uniformly.

    With `limits`, a video over them is refused before decoding, and frames are decoded `CHUNK` at a
    time, each chunk passed through `transform` (e.g. scaled to the size shown) as it comes: the
    whole video is never held at full size. A transform must map [K, H, W, 3] to [K, h, w, 3]."""
    if limits is None and transform is None:
        reader = open_video(source)
        n = len(reader)
        if indices is None:
            indices = uniform_indices(n, num_frames) if num_frames else np.arange(n)
        return reader.frames(indices)
    limits = limits or DecodeLimits()
    deadline = limits.deadline()
    reader = open_video(source, deadline=deadline)
    n = len(reader)
    if indices is None:
        indices = uniform_indices(n, num_frames) if num_frames else np.arange(n)
    indices = np.asarray(indices, dtype=np.int64).reshape(-1)
    check_deadline(deadline, source)  # TorchCodec's scan of the file is one call that cannot be stopped
    limits.check_size(source, len(indices), reader.height, reader.width)
    if transform is None:
        limits.check_bytes(source, len(indices), (reader.height, reader.width, 3))
    if hasattr(reader, "iter_frames") and np.array_equal(indices, np.arange(n)):
        chunks = _batched(reader.iter_frames(), CHUNK)  # every frame, front to back, without a seek per chunk
    else:
        chunks = (reader.frames(indices[i:i + CHUNK]) for i in range(0, len(indices), CHUNK))
    return decode_chunks(chunks, len(indices), limits, transform, deadline, source)


def _batched(frames, size: int):
    batch = []
    for frame in frames:
        batch.append(frame)
        if len(batch) == size:
            yield np.stack(batch)
            batch = []
    if batch:
        yield np.stack(batch)


def decode_chunks(chunks, total: int, limits: DecodeLimits, transform, deadline: float, source) -> np.ndarray:
    """Chunks of frames [K, H, W, 3] passed through `transform` as they come, into one array of
    `total` frames allocated once (its size checked against `limits` at the first chunk); the
    deadline is checked after every chunk."""
    out, start = None, 0
    for chunk in chunks:
        if transform is not None:
            chunk = np.asarray(transform(chunk))
        if out is None:
            limits.check_bytes(source, total, chunk.shape[1:])
            out = np.empty((total, *chunk.shape[1:]), dtype=np.uint8)
        elif chunk.shape[1:] != out.shape[1:]:
            raise VideoDecodeError(f"{describe(source)}: frames of different sizes ({list(chunk.shape[1:])} after "
                                   f"{list(out.shape[1:])})")
        out[start:start + len(chunk)] = chunk
        start += len(chunk)
        check_deadline(deadline, source)
    if out is None or start != total:
        raise VideoDecodeError(f"{describe(source)}: {start} of {total} frames decoded")
    return out


def uniform_indices(num_available: int, num_frames: int) -> np.ndarray:
    """`num_frames` indices spread uniformly over `num_available` frames (segment centres)."""
    if num_available < 1 or num_frames < 1:
        raise ValueError(f"need at least one frame, got {num_available} available, {num_frames} asked")
    edges = np.linspace(0, num_available, num_frames + 1)
    return np.minimum(((edges[:-1] + edges[1:]) / 2).astype(np.int64), num_available - 1)


ASPECT_MODES = ("crop", "pad", "stretch")


def resize_frames(frames: np.ndarray, size: tuple[int, int], aspect: str = "crop") -> np.ndarray:
    """Resize uint8 [T, H, W, 3] frames to size (height, width).

    aspect: "crop" scales to cover then centre-crops, "pad" scales to fit then pads with black,
    "stretch" ignores the aspect ratio.
    """
    frames = check_frames(frames)
    out_h, out_w = size
    _, h, w, _ = frames.shape
    if aspect not in ASPECT_MODES:
        raise ValueError(f"aspect must be one of {ASPECT_MODES}, got {aspect!r}")
    if (h, w) == (out_h, out_w):
        return frames
    if aspect == "stretch":
        return crop_resize(frames, (0, 0, h, w), size)
    if aspect == "crop":
        scale = max(out_h / h, out_w / w)
        ch, cw = min(h, round(out_h / scale)), min(w, round(out_w / scale))
        top, left = (h - ch) // 2, (w - cw) // 2
        return crop_resize(frames, (top, left, ch, cw), size)
    scale = min(out_h / h, out_w / w)
    nh, nw = max(1, min(out_h, round(h * scale))), max(1, min(out_w, round(w * scale)))
    inner = crop_resize(frames, (0, 0, h, w), (nh, nw))
    out = np.zeros((len(frames), out_h, out_w, 3), dtype=np.uint8)
    top, left = (out_h - nh) // 2, (out_w - nw) // 2
    out[:, top : top + nh, left : left + nw] = inner
    return out


def crop_resize(frames: np.ndarray, box: tuple[int, int, int, int], size: tuple[int, int]) -> np.ndarray:
    """Crop every frame to box (top, left, height, width) and resize to size (height, width), antialiased.

    One `torch.nn.functional.interpolate` over all frames (bilinear, antialiased, on uint8 in place of
    the channels-last layout): the same pixels as PIL's BILINEAR resize frame by frame (identical when
    enlarging, at most 1 apart in a few pixels in 10,000 when shrinking), 5-10x faster, which made
    the resize of the training crop cost more than decoding the clip."""
    import torch
    import torch.nn.functional as F

    top, left, bh, bw = (int(v) for v in box)
    out_h, out_w = size
    crop = frames[:, top : top + bh, left : left + bw]
    if crop.shape[1:3] == (out_h, out_w):
        return np.ascontiguousarray(crop)
    x = torch.from_numpy(np.ascontiguousarray(crop)).permute(0, 3, 1, 2)  # [T, 3, h, w] view, channels last
    out = F.interpolate(x, size=(out_h, out_w), mode="bilinear", antialias=True, align_corners=False)
    return np.ascontiguousarray(out.permute(0, 2, 3, 1).numpy())
