"""Decoding under limits (what the labelling app shows and judges): a video over the frame, pixel or
byte cap is refused with the reason before it is decoded, decoding stops at its time limit, and a
transform sees the frames chunk by chunk as they are decoded, never the whole video at full size."""

from __future__ import annotations

import numpy as np
import pytest

from mineclip.data import decoders
from mineclip.data.video import CHUNK, DecodeLimits, VideoDecodeError, decode_video, write_mp4
from mineclip.evaluate.trajectories import MediaError, load_media


@pytest.fixture
def video(tmp_path, rng):
    """150 frames of 48x64 (more than two chunks)."""
    frames = rng.integers(0, 255, (150, 48, 64, 3), dtype=np.uint8)
    return write_mp4(tmp_path / "v.mp4", frames)


AVAILABLE = [b for b in decoders.BACKENDS if decoders.backend_loads(b) is None]


@pytest.fixture(params=AVAILABLE)
def backend(request, monkeypatch):
    """Each backend that loads here decodes in turn."""
    monkeypatch.setattr(decoders, "choose_backend", lambda requested=None: request.param)
    return request.param


def _never_decode(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("decoded before the caps were checked")

    for reader in decoders.READERS.values():
        monkeypatch.setattr(reader, "frames", refuse)
    monkeypatch.setattr(decoders.PyAVReader, "iter_frames", refuse)


def test_a_video_over_the_frame_or_pixel_cap_is_refused_before_any_frame_is_decoded(video, backend, monkeypatch):
    _never_decode(monkeypatch)
    with pytest.raises(VideoDecodeError, match="has 150 frames, more than the 100"):
        decode_video(video, limits=DecodeLimits(max_frames=100))
    with pytest.raises(VideoDecodeError, match="64x48 pixels a frame, more than the 3000"):
        decode_video(video, limits=DecodeLimits(max_pixels=3000))
    with pytest.raises(VideoDecodeError, match="MiB decoded, more than"):
        decode_video(video, limits=DecodeLimits(max_bytes=150 * 48 * 64 * 3 - 1))
    with pytest.raises(MediaError, match="more than the 100"):  # the app's and the judge's reader
        load_media(video, DecodeLimits(max_frames=100))


def test_the_byte_cap_counts_the_frames_at_the_size_a_transform_gives(video):
    half = DecodeLimits(max_bytes=150 * 24 * 32 * 3)
    with pytest.raises(VideoDecodeError, match="more than"):
        decode_video(video, limits=half)
    frames = decode_video(video, limits=half, transform=lambda f: f[:, ::2, ::2])
    assert frames.shape == (150, 24, 32, 3)


def test_decoding_stops_at_its_time_limit(video, backend, tmp_path, rng):
    with pytest.raises(VideoDecodeError, match="time limit"):
        decode_video(video, limits=DecodeLimits(timeout=0.0))
    with pytest.raises(MediaError, match="time limit"):
        load_media(video, DecodeLimits(timeout=0.0))
    from PIL import Image

    (tmp_path / "frames").mkdir()
    for i in range(3):
        Image.fromarray(rng.integers(0, 255, (8, 8, 3), dtype=np.uint8)).save(tmp_path / "frames" / f"{i}.png")
    with pytest.raises(MediaError, match="time limit"):
        load_media(tmp_path / "frames", DecodeLimits(timeout=-1.0))


def test_a_transform_sees_chunks_as_they_are_decoded_and_gives_the_same_frames(video, backend):
    seen = []

    def halve(frames):
        seen.append(len(frames))
        return frames[:, ::2, ::2]

    whole = decode_video(video)
    frames = decode_video(video, limits=DecodeLimits(), transform=halve)
    assert max(seen) <= CHUNK and sum(seen) == 150
    np.testing.assert_array_equal(frames, whole[:, ::2, ::2])
    np.testing.assert_array_equal(decode_video(video, limits=DecodeLimits()), whole)
    picked = decode_video(video, indices=[149, 3, 3, 70], limits=DecodeLimits(), transform=lambda f: f)
    np.testing.assert_array_equal(picked, whole[[149, 3, 3, 70]])


def test_a_frame_folder_has_the_same_caps(tmp_path, rng):
    from PIL import Image

    folder = tmp_path / "frames"
    folder.mkdir()
    for i in range(5):
        Image.fromarray(rng.integers(0, 255, (20, 30, 3), dtype=np.uint8)).save(folder / f"{i:02d}.png")
    assert load_media(folder).shape == (5, 20, 30, 3)
    with pytest.raises(MediaError, match="has 5 frames, more than the 4"):
        load_media(folder, DecodeLimits(max_frames=4))
    with pytest.raises(MediaError, match="30x20 pixels a frame"):
        load_media(folder, DecodeLimits(max_pixels=500))
    assert load_media(folder, transform=lambda f: f[:, :10]).shape == (5, 10, 30, 3)
