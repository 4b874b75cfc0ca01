"""Video decoders behind one interface, and the one place that chooses among them.

    pyav        PyAV (FFmpeg's libraries bundled in its wheels): every install has it, and it is
                the reference the others are checked against
    torchcodec  PyTorch's decoder, used where it loads (it needs FFmpeg's shared libraries and a
                matching torch); faster on short clips
    decord      only when asked for (`MINECLIP_VIDEO_BACKEND=decord`): unmaintained since 2021, no
                wheels for macOS arm64 or Linux aarch64, and it can hang in `get_batch` when a
                container over-reports its frame count; its count is checked against the
                container's packets first

`choose_backend()` takes `MINECLIP_VIDEO_BACKEND` when set, else the first of torchcodec, pyav that
loads; a TorchCodec that is installed but does not load is reported once, as a warning, and PyAV
decodes. All backends give the same uint8 RGB frames (tests/data/test_data_decoders.py); a frame
count is the number of frames the file really holds, not what its header claims; a file a
backend cannot read raises `VideoDecodeError` (PyAV then tries: `open_video`).

A `deadline` (a `time.monotonic()` value) stops PyAV between packets with a VideoDecodeError;
TorchCodec and decord are native calls that cannot be stopped midway, so their callers decode in
chunks and check it between them (`mineclip.data.video.decode_video`).
"""

from __future__ import annotations

import functools
import importlib.util
import io
import os
import time
import warnings
from pathlib import Path
from typing import Protocol

import numpy as np

BACKENDS = ("torchcodec", "pyav", "decord")
MIN_TORCHCODEC = (0, 2)  # exact seek mode, get_frames_at
PREFERENCE = ("torchcodec", "pyav")  # tried in this order when no backend is named
ENV_VAR = "MINECLIP_VIDEO_BACKEND"


class VideoDecodeError(ValueError):
    """A video could not be decoded (truncated, corrupt, empty or unknown format)."""


class VideoReader(Protocol):
    """An opened video: its real frame count, rate and size, and frames by index."""

    backend: str
    num_frames: int
    fps: float
    height: int
    width: int

    def __len__(self) -> int: ...

    def frames(self, indices) -> np.ndarray:
        """uint8 RGB frames [K, H, W, 3] at `indices` (any order, repeats allowed)."""


def describe(source) -> str:
    return f"<{len(source)} bytes>" if isinstance(source, (bytes, bytearray, memoryview)) else str(source)


def one_line(e: BaseException, limit: int = 300) -> str:
    """An exception as one short line (native decoders raise multi-line messages with source paths)."""
    text = " ".join(str(e).split()) or type(e).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _size(source) -> int:
    return len(source) if isinstance(source, (bytes, bytearray, memoryview)) else os.path.getsize(source)


def check_deadline(deadline: float | None, source) -> None:
    """A VideoDecodeError once `deadline` (time.monotonic()) has passed."""
    if deadline is not None and time.monotonic() > deadline:
        raise VideoDecodeError(f"decoding {describe(source)} ran past its time limit; stopped")


def _checked_indices(indices, n: int, source) -> np.ndarray:
    idx = np.asarray(indices, dtype=np.int64).reshape(-1)
    if len(idx) and (idx.min() < 0 or idx.max() >= n):
        raise VideoDecodeError(f"frame indices out of range for a {n}-frame video {describe(source)}: "
                               f"{idx.min()}..{idx.max()}")
    return idx


class PyAVReader:
    """PyAV: the packets are scanned once (no decoding) for the real frame count and the
    presentation order; frames are decoded in order, seeking to a keyframe for a far jump."""

    backend = "pyav"

    def __init__(self, source, deadline: float | None = None):
        import av

        self.source, self.deadline = source, deadline
        try:
            self._container = av.open(io.BytesIO(bytes(source)) if isinstance(source, (bytes, bytearray, memoryview))
                                      else str(source))
            self._stream = self._container.streams.video[0]
            end = _size(source)
            # the frames the file holds: packets whose bytes are all there (a container's header may
            # list more than a cut file still has)
            pts = [p.pts for p in self._container.demux(self._stream)
                   if self._whole(p, end) and self._in_time()]
        except (av.error.FFmpegError, IndexError, OSError) as e:
            raise VideoDecodeError(f"cannot open video {describe(source)}: {one_line(e)}") from e
        self._stream.codec_context.thread_count = 1
        self._index = {p: i for i, p in enumerate(sorted(set(pts)))}  # pts -> frame index
        self.num_frames = len(self._index)
        rate = self._stream.average_rate or self._stream.guessed_rate
        self.fps = float(rate) if rate else 0.0
        self.height, self.width = self._stream.codec_context.height, self._stream.codec_context.width
        self._reformatter = None

    def __len__(self) -> int:
        return self.num_frames

    def _in_time(self) -> bool:
        check_deadline(self.deadline, self.source)
        return True

    @staticmethod
    def _whole(packet, end: int) -> bool:
        """A packet of a frame whose bytes are all in the file (not the flush packet, not one cut short)."""
        return (packet.size > 0 and packet.pts is not None and not packet.is_corrupt
                and (packet.pos is None or packet.pos + packet.size <= end))

    def _rgb(self, frame) -> np.ndarray:
        # one reformatter for every frame: PyAV otherwise builds a scaler per frame (10x slower)
        from av.video.reformatter import VideoReformatter

        self._reformatter = self._reformatter or VideoReformatter()
        return self._reformatter.reformat(frame, format="rgb24").to_ndarray()

    def frames(self, indices) -> np.ndarray:
        import av

        idx = _checked_indices(indices, self.num_frames, self.source)
        wanted = set(int(i) for i in idx)
        got: dict[int, np.ndarray] = {}
        by_index = sorted(self._index, key=self._index.get)
        try:
            self._container.seek(by_index[min(wanted)], backward=True, any_frame=False, stream=self._stream)
            for packet in self._container.demux(self._stream):
                check_deadline(self.deadline, self.source)
                if packet.size > 0 and packet.pts not in self._index:
                    continue  # cut short: never sent to the decoder (the flush packet still is)
                for frame in packet.decode():
                    i = self._index.get(frame.pts)
                    if i in wanted:
                        got[i] = self._rgb(frame)
                if len(got) == len(wanted):
                    break
        except av.error.FFmpegError as e:
            raise VideoDecodeError(f"cannot decode frames of {describe(self.source)}: {one_line(e)}") from e
        missing = wanted - got.keys()
        if missing:
            raise VideoDecodeError(f"frames {sorted(missing)[:5]} of {describe(self.source)} do not decode "
                                   f"(of {self.num_frames} in the file)")
        return np.stack([got[int(i)] for i in idx])


    def iter_frames(self):
        """Every frame in order ([H, W, 3] each), decoded once front to back: what `frames` gives for
        all indices, without holding them all."""
        import av

        order = sorted(self._index, key=self._index.get)
        got: dict[int, np.ndarray] = {}
        following = 0
        try:
            self._container.seek(order[0], backward=True, any_frame=False, stream=self._stream)
            for packet in self._container.demux(self._stream):
                check_deadline(self.deadline, self.source)
                if packet.size > 0 and packet.pts not in self._index:
                    continue  # cut short (see frames)
                for frame in packet.decode():
                    i = self._index.get(frame.pts)
                    if i is not None and i >= following:
                        got[i] = self._rgb(frame)
                while following in got:
                    yield got.pop(following)
                    following += 1
        except av.error.FFmpegError as e:
            raise VideoDecodeError(f"cannot decode frames of {describe(self.source)}: {one_line(e)}") from e
        if following < self.num_frames:
            raise VideoDecodeError(f"frame {following} of {describe(self.source)} does not decode "
                                   f"(of {self.num_frames} in the file)")


class TorchCodecReader:
    """TorchCodec in exact seek mode: it scans the file, so its frame count is the real one."""

    backend = "torchcodec"

    def __init__(self, source, deadline: float | None = None):  # the scan is one native call: not stopped
        from torchcodec.decoders import VideoDecoder

        self.source = source
        try:
            data = bytes(source) if isinstance(source, (bytes, bytearray, memoryview)) else str(source)
            self._decoder = VideoDecoder(data, dimension_order="NHWC", num_ffmpeg_threads=1, seek_mode="exact")
            meta = self._decoder.metadata
        except (RuntimeError, ValueError, OSError) as e:
            raise VideoDecodeError(f"cannot open video {describe(source)}: {one_line(e)}") from e
        self.num_frames = len(self._decoder)
        self.fps = float(meta.average_fps or 0.0)
        self.height, self.width = int(meta.height), int(meta.width)

    def __len__(self) -> int:
        return self.num_frames

    def frames(self, indices) -> np.ndarray:
        idx = _checked_indices(indices, self.num_frames, self.source)
        try:
            batch = self._decoder.get_frames_at(idx.tolist())
        except (RuntimeError, ValueError, IndexError) as e:
            raise VideoDecodeError(f"cannot decode frames of {describe(self.source)}: {one_line(e)}") from e
        return np.ascontiguousarray(batch.data.numpy())


class DecordReader:
    """decord, guarded: its frame count must match the container's packets (else it could hang)."""

    backend = "decord"

    def __init__(self, source, deadline: float | None = None):
        import decord

        self.source = source
        try:
            buf = io.BytesIO(bytes(source)) if isinstance(source, (bytes, bytearray, memoryview)) else str(source)
            self._vr = decord.VideoReader(buf, ctx=decord.cpu(0), num_threads=1)
        except Exception as e:  # decord raises its own DECORDError and RuntimeError kinds
            raise VideoDecodeError(f"cannot open video {describe(source)}: {one_line(e)}") from e
        real = PyAVReader(source, deadline).num_frames
        if len(self._vr) != real:
            raise VideoDecodeError(f"{describe(source)}: the container says {len(self._vr)} frames, the file holds "
                                   f"{real}; decord is not asked for frames it may wait for forever")
        self.num_frames = real
        self.fps = float(self._vr.get_avg_fps() or 0.0)
        self.height, self.width = self._vr[0].shape[:2] if real else (0, 0)

    def __len__(self) -> int:
        return self.num_frames

    def frames(self, indices) -> np.ndarray:
        idx = _checked_indices(indices, self.num_frames, self.source)
        try:
            return np.ascontiguousarray(self._vr.get_batch(idx.tolist()).asnumpy())
        except Exception as e:  # decord's error kinds
            raise VideoDecodeError(f"cannot decode frames of {describe(self.source)}: {one_line(e)}") from e


READERS = {"pyav": PyAVReader, "torchcodec": TorchCodecReader, "decord": DecordReader}


@functools.lru_cache(maxsize=None)
def backend_loads(name: str) -> str | None:
    """None when a backend decodes here, else why not (a missing package, or one that fails to load)."""
    if name not in READERS:
        raise ValueError(f"unknown video backend {name!r}; expected one of {BACKENDS}")
    module = {"pyav": "av"}.get(name, name)
    if importlib.util.find_spec(module) is None:
        return f"{module} is not installed"
    try:
        if name == "torchcodec":
            from importlib.metadata import version

            found = version("torchcodec")
            if tuple(int(p) for p in found.split("+")[0].split(".")[:2]) < MIN_TORCHCODEC:
                return f"torchcodec {found} is older than {'.'.join(map(str, MIN_TORCHCODEC))}"
            from torchcodec.decoders import VideoDecoder  # noqa: F401  (loads FFmpeg's libraries)
        else:
            importlib.import_module(module)
    except Exception as e:  # a broken native install surfaces as any kind of error
        return f"{module} does not load: {str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__}"
    return None


@functools.lru_cache(maxsize=None)
def choose_backend(requested: str | None = None) -> str:
    """The backend this process decodes with (see the module docstring)."""
    requested = requested or os.environ.get(ENV_VAR) or None
    if requested:
        why = backend_loads(requested)
        if why:
            raise VideoDecodeError(f"video backend {requested!r} ({ENV_VAR}) cannot decode here: {why}")
        return requested
    for name in PREFERENCE:
        why = backend_loads(name)
        if why is None:
            return name
        if name == "torchcodec" and importlib.util.find_spec("torchcodec") is not None:
            warnings.warn(f"TorchCodec is installed but {why}; decoding with PyAV", stacklevel=2)
    from mineclip.extras import require

    require("av", feature="decoding video")  # not installed: a one-line error naming the extra
    raise VideoDecodeError(f"no video backend loads: {backend_loads('pyav')}")


def open_video(source, backend: str | None = None, deadline: float | None = None) -> VideoReader:
    """A reader of a video file or of mp4 bytes, by `backend` or the chosen one; when it cannot read
    the file, PyAV (the reference) tries before the error is raised. `deadline`: see the module."""
    if not isinstance(source, (bytes, bytearray, memoryview)):
        path = Path(source)
        if not path.is_file():
            raise VideoDecodeError(f"video file not found: {path}")
    elif len(source) == 0:
        raise VideoDecodeError("empty video bytes")
    name = choose_backend(backend)
    try:
        reader = READERS[name](source, deadline)
    except VideoDecodeError as first:
        if name == "pyav" or backend_loads("pyav"):
            raise
        try:
            reader = PyAVReader(source, deadline)
        except VideoDecodeError as e:
            raise VideoDecodeError(f"{first}; PyAV: {e}") from e
    if len(reader) == 0:
        raise VideoDecodeError(f"video has no frames: {describe(source)}")
    return reader
