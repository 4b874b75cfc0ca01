"""Every available video backend decodes the same frames, or says clearly why it cannot; none hangs."""

from __future__ import annotations

import io
import multiprocessing as mp
import queue
from fractions import Fraction

import numpy as np
import pytest

from mineclip.data import decoders
from mineclip.data.decoders import VideoDecodeError, backend_loads, choose_backend, open_video
from mineclip.data.video import encode_mp4

AVAILABLE = [b for b in decoders.BACKENDS if backend_loads(b) is None]
TIMEOUT_S = 60


def _frames(n: int, h: int, w: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 255, (1, h, w, 3), dtype=np.uint8)
    moving = (np.arange(n)[:, None, None, None] * 9 + np.arange(w)[None, None, :, None]) % 256
    return (base // 2 + moving.astype(np.uint8) // 2).astype(np.uint8)


def _vfr_mp4(n: int = 12) -> bytes:
    """H.264 whose frame times are irregular (variable frame rate)."""
    import av

    buf = io.BytesIO()
    frames = _frames(n, 48, 64, 7)
    with av.open(buf, mode="w", format="mp4") as c:
        s = c.add_stream("libx264", rate=30)
        s.width, s.height, s.pix_fmt = 64, 48, "yuv420p"
        s.codec_context.time_base = Fraction(1, 1000)
        t = 0
        for i, f in enumerate(frames):
            vf = av.VideoFrame.from_ndarray(f, format="rgb24")
            vf.pts, vf.time_base = t, Fraction(1, 1000)
            t += (20, 70, 33)[i % 3]
            for p in s.encode(vf):
                c.mux(p)
        for p in s.encode():
            c.mux(p)
    return buf.getvalue()


def _faststart(data: bytes, tmp_path) -> bytes:
    """The same mp4 with its index (moov) before the frames, as streaming files have it."""
    import av

    path = tmp_path / "faststart.mp4"
    with av.open(io.BytesIO(data)) as src, av.open(str(path), "w", options={"movflags": "faststart"}) as dst:
        template = src.streams.video[0]
        stream = dst.add_stream_from_template(template) if hasattr(dst, "add_stream_from_template") else \
            dst.add_stream(template=template)  # PyAV < 14
        for p in src.demux(src.streams.video[0]):
            if p.dts is not None:
                p.stream = stream
                dst.mux(p)
    return path.read_bytes()


@pytest.fixture(scope="module")
def videos(tmp_path_factory) -> dict[str, tuple[bytes, np.ndarray | None]]:
    """name -> (mp4 bytes, the frames PyAV decodes from the intact file, or None for files that no
    backend can open)."""
    tmp = tmp_path_factory.mktemp("videos")
    out = {}
    for name, (n, h, w, fps) in {"160x256 8fps 17": (17, 160, 256, 8), "72x128 30fps 45": (45, 72, 128, 30),
                                 "48x64 25fps 3": (3, 48, 64, 25), "64x96 24000/1001fps 20": (20, 64, 96, 23.976)}.items():
        out[name] = encode_mp4(_frames(n, h, w, n), fps=fps)
    out["vfr"] = _vfr_mp4()
    whole = _faststart(encode_mp4(_frames(30, 64, 96, 3), fps=8), tmp)
    out["over-reported"] = whole[: int(len(whole) * 0.6)]  # the header lists 30 frames, the file holds fewer
    out["truncated"] = encode_mp4(_frames(30, 64, 96, 3), fps=8)[:4000]  # the index (moov) is gone
    reference = {}
    for name, data in out.items():
        try:
            r = decoders.PyAVReader(data)
            reference[name] = (data, r.frames(np.arange(len(r))))
        except VideoDecodeError:
            reference[name] = (data, None)
    return reference


def _decode_in_child(backend: str, data: bytes, results) -> None:
    try:
        r = decoders.READERS[backend](data)
        results.put(("ok", r.frames(np.arange(len(r)))))
    except VideoDecodeError as e:
        results.put(("error", str(e)))


def decode_with_deadline(backend: str, data: bytes):
    """("ok", frames) or ("error", message) from a child process that must finish in TIMEOUT_S."""
    ctx = mp.get_context("fork")
    results = ctx.Queue()
    child = ctx.Process(target=_decode_in_child, args=(backend, data, results))
    child.start()
    try:
        outcome = results.get(timeout=TIMEOUT_S)
    except queue.Empty:
        child.kill()
        pytest.fail(f"{backend} did not answer in {TIMEOUT_S} s: a hang")
    child.join(TIMEOUT_S)
    return outcome


def test_pyav_reads_what_the_encoder_wrote_and_the_real_frame_count(videos):
    data, frames = videos["160x256 8fps 17"]
    assert frames.shape == (17, 160, 256, 3)
    assert decoders.PyAVReader(data).fps == 8.0
    data, frames = videos["over-reported"]
    import av

    with av.open(io.BytesIO(data)) as c:
        claimed = c.streams.video[0].frames
    assert claimed == 30 and 0 < len(frames) < claimed  # what the file holds, not what its header says
    assert videos["truncated"][1] is None


@pytest.mark.parametrize("backend", AVAILABLE)
def test_every_backend_gives_the_reference_frames_or_a_clear_error_never_a_hang(backend, videos):
    for name, (data, reference) in videos.items():
        status, got = decode_with_deadline(backend, data)
        if status == "error":
            assert "\n" not in got and len(got) < 600 and ("cannot" in got or "holds" in got), (name, got)
            assert reference is None or name == "over-reported", f"{backend} cannot read {name}: {got}"
            continue
        assert reference is not None, f"{backend} decoded {name}, which PyAV cannot open"
        assert got.shape == reference.shape and np.array_equal(got, reference), f"{backend} differs on {name}"


@pytest.mark.parametrize("backend", AVAILABLE)
def test_frames_come_back_in_the_order_asked_with_repeats(backend, videos):
    data, reference = videos["72x128 30fps 45"]
    r = decoders.READERS[backend](data)
    idx = [44, 3, 3, 0, 20]
    assert np.array_equal(r.frames(idx), reference[idx])
    with pytest.raises(VideoDecodeError, match="out of range"):
        r.frames([45])


def test_a_missing_file_or_empty_bytes_is_a_clear_error(tmp_path):
    with pytest.raises(VideoDecodeError, match="not found"):
        open_video(tmp_path / "nope.mp4")
    with pytest.raises(VideoDecodeError, match="empty video bytes"):
        open_video(b"")
    with pytest.raises(VideoDecodeError, match="cannot open"):
        open_video(b"\x00not a video")


def test_the_backend_is_chosen_in_one_place_and_an_unavailable_one_is_refused(monkeypatch):
    assert choose_backend() in AVAILABLE and choose_backend("pyav") == "pyav"
    with pytest.raises(ValueError, match="unknown video backend 'ffmpeg'"):
        choose_backend("ffmpeg")
    monkeypatch.setattr(decoders, "backend_loads", lambda name: None if name == "pyav" else f"{name} is not installed")
    decoders.choose_backend.cache_clear()
    try:
        assert choose_backend() == "pyav"
        with pytest.raises(VideoDecodeError, match="'decord'.*cannot decode here: decord is not installed"):
            choose_backend("decord")
    finally:
        decoders.choose_backend.cache_clear()
