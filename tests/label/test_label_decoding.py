"""What the labelling app decodes to show and judge: frames scaled to the page as they are decoded,
a video over the caps refused with the reason (422) instead of taking the server's memory, the
decoded trajectories kept within a memory budget, and the judge reading frames at its input size."""

from __future__ import annotations

import numpy as np
import pytest
from fastapi.testclient import TestClient

from mineclip.data.video import CHUNK, DecodeLimits, write_mp4
from mineclip.label import session as session_module
from mineclip.label.app import create_app
from mineclip.label.items import read_set
from mineclip.label.session import MAX_WIDTH, LabelSession
from mineclip.label.storage import LabelStore


@pytest.fixture
def wide_set(tmp_path, rng):
    """Three videos of 150 frames, 1024x64 (wider than the page shows)."""
    for name in ("a", "b", "c"):
        write_mp4(tmp_path / "clips" / f"{name}.mp4", rng.integers(0, 255, (150, 64, 1024, 3), dtype=np.uint8))
    s = read_set(tmp_path / "clips", prompt="chop a tree")
    return LabelSession(s, LabelStore(tmp_path / "labels.jsonl", s))


def test_frames_are_scaled_to_the_page_as_they_are_decoded(wide_set, monkeypatch):
    chunks = []
    real = session_module.shown_size

    def recording(frames):
        chunks.append(frames.shape)
        return real(frames)

    monkeypatch.setattr(session_module, "shown_size", recording)
    frames = wide_set.frames(0)
    assert frames.shape == (150, 32, MAX_WIDTH, 3)
    assert max(c[0] for c in chunks) <= CHUNK and sum(c[0] for c in chunks) == 150  # never 150 at 1024 wide


def test_a_video_over_the_display_caps_is_refused_with_the_reason(wide_set, monkeypatch):
    c = TestClient(create_app(wide_set), base_url="http://127.0.0.1")
    for limits, reason in ((DecodeLimits(max_frames=100), "has 150 frames, more than the 100"),
                           (DecodeLimits(max_pixels=640 * 48), "1024x64 pixels a frame"),
                           (DecodeLimits(max_bytes=1 << 20), "MiB decoded, more than the 1 MiB"),
                           (DecodeLimits(timeout=0.0), "time limit")):
        monkeypatch.setattr(session_module, "DISPLAY_LIMITS", limits)
        r = c.get("/api/items/0")
        assert r.status_code == 422 and reason in r.json()["detail"], (limits, r.json())
        assert c.get("/api/items/0/frames/0.png").status_code == 422
    monkeypatch.undo()
    assert c.get("/api/items/0").status_code == 200


def test_decoded_trajectories_are_kept_within_a_memory_budget(wide_set, monkeypatch):
    one = 150 * 32 * MAX_WIDTH * 3
    monkeypatch.setattr(session_module, "FRAME_CACHE_BYTES", int(one * 1.5))
    for i in (0, 1, 2):
        wide_set.frames(i)
    assert list(wide_set._frames) == [2]  # count alone (12) would have kept all three
    monkeypatch.setattr(session_module, "FRAME_CACHE_BYTES", one * 2)
    wide_set.frames(0)
    assert list(wide_set._frames) == [2, 0]
    monkeypatch.setattr(session_module, "FRAME_CACHE_BYTES", 1)
    wide_set.frames(1)
    assert list(wide_set._frames) == [1]  # the one being shown stays, whatever its size


def test_the_judge_reads_frames_at_its_input_size_and_scores_as_on_full_frames(fresh_set, micro_artifact,
                                                                               monkeypatch):
    from mineclip.evaluate import trajectories
    from mineclip.label.active import JUDGE_LIMITS, model_input, score_set
    from mineclip.reward import RewardModel

    rm = RewardModel.load(micro_artifact)
    s = read_set(fresh_set)
    path = s.root / s.items[0].media
    full = trajectories.load_media(path)
    small = trajectories.load_media(path, JUDGE_LIMITS, model_input(rm))
    assert small.shape[1:3] == tuple(rm.resolution) != full.shape[1:3]
    np.testing.assert_array_equal(rm.frame_features(small).numpy(), rm.frame_features(full).numpy())
    calls = []
    real = trajectories.load_media
    monkeypatch.setattr(trajectories, "load_media", lambda *a: calls.append(a) or real(*a))
    score_set(s, micro_artifact, progress=False)
    assert calls and all(limits is JUDGE_LIMITS and transform is not None for _, limits, transform in calls)
