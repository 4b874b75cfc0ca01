import json
import tarfile

import numpy as np
import pytest

from mineclip.data.build import build_shards, find_videos, plan_jobs
from mineclip.data.extract import ExtractSettings
from mineclip.data.reader import shard_samples, SkipCounter, expand_urls
from mineclip.data.shards import ClipShardWriter, decode_clip, read_manifest

from helpers.clips import assert_same_clip


def _read_all(folder):
    return list(shard_samples(iter(expand_urls(str(folder))), SkipCounter()))


@pytest.mark.parametrize("encoding", ["mp4", "raw"])
def test_round_trip_frames(tmp_path, frames_like, encoding):
    clips = [frames_like(16, 64, 96, seed=i) for i in range(3)]
    with ClipShardWriter(tmp_path, encoding=encoding, fps=2, settings={"x": 1}) as w:
        keys = [w.write(c, f"caption é {i}", {"source": f"/videos/v{i}.mp4", "start": 1.5}) for i, c in enumerate(clips)]
    samples = _read_all(tmp_path)
    assert [s["__key__"] for s in samples] == keys
    for clip, s, i in zip(clips, samples, range(3)):
        frames = decode_clip(s)
        assert frames.shape == clip.shape
        if encoding == "raw":
            assert np.array_equal(frames, clip)
        else:
            assert np.abs(frames.astype(int) - clip).mean() < 3.0
        assert s["txt"].decode() == f"caption é {i}"
        meta = json.loads(s["json"])
        assert meta["source"] == f"/videos/v{i}.mp4" and meta["start"] == 1.5 and meta["num_frames"] == 16


def test_size_cap_manifest_and_brace_names(tmp_path, tiny_shards):
    manifest = tiny_shards(tmp_path, 10, max_shard_samples=3)
    assert manifest["total"] == 10
    assert [s["count"] for s in manifest["shards"]] == [3, 3, 3, 1]
    assert manifest["urls"] == "train-{000000..000003}.tar"
    assert read_manifest(tmp_path) == manifest
    urls = expand_urls(str(tmp_path / manifest["urls"]))
    assert [u.split("/")[-1] for u in urls] == [s["name"] for s in manifest["shards"]]
    assert all(len(tarfile.open(u).getnames()) == 3 * s["count"] for u, s in zip(urls, manifest["shards"]))
    assert not list(tmp_path.glob("*.part"))


def test_byte_cap_rolls_shards(tmp_path, frames_like):
    with ClipShardWriter(tmp_path, encoding="raw", max_shard_bytes=200_000) as w:
        for i in range(5):
            w.write(frames_like(8, 64, 96), "a cow", {})  # ~147 KB each
    assert [s["count"] for s in w.manifest()["shards"]] == [1, 1, 1, 1, 1]


def test_writer_rejects_bad_input_and_removes_stale_shards(tmp_path, tiny_shards, frames_like):
    tiny_shards(tmp_path, 6, max_shard_samples=2)
    tiny_shards(tmp_path, 2)
    assert sorted(p.name for p in tmp_path.glob("*.tar")) == ["train-000000.tar"]
    with ClipShardWriter(tmp_path / "x") as w:
        with pytest.raises(ValueError, match="uint8 frames"):
            w.write(np.zeros((4, 8, 8, 3), np.float32), "t")
        with pytest.raises(ValueError, match="non-empty"):
            w.write(frames_like(2, 16, 16), "  ")
        with pytest.raises(ValueError, match="keys"):
            w.write(frames_like(2, 16, 16), "t", key="a.b")


def test_build_is_deterministic_regardless_of_workers(tmp_path, narrated_folder):
    settings = ExtractSettings(num_frames=8, height=64, width=96, seed=7)
    jobs = plan_jobs(find_videos(narrated_folder))
    one = build_shards(jobs, tmp_path / "one", settings, workers=1, progress=False, max_shard_bytes=150_000)
    two = build_shards(jobs, tmp_path / "two", settings, workers=2, progress=False, max_shard_bytes=150_000)
    assert one.clips > 3 and one.shards > 1 and one.videos_with_clips == 3
    assert one.manifest["shards"] == two.manifest["shards"]
    # the same clips, texts and metadata in the same order; the frames to a few levels (assert_same_clip)
    a, b = _read_all(tmp_path / "one"), _read_all(tmp_path / "two")
    assert [s["__key__"] for s in a] == [s["__key__"] for s in b] and len(a) == one.clips
    for x, y in zip(a, b):
        assert_same_clip(x, y)
    # what the build itself controls, the frames before encoding, is byte-identical under any load
    raw = [build_shards(jobs, tmp_path / f"raw{w}", settings, encoding="raw", workers=w, progress=False,
                        max_shard_bytes=1_000_000) for w in (1, 2)]
    assert raw[0].clips == one.clips and raw[0].manifest["shards"] == raw[1].manifest["shards"]
    for s in raw[0].manifest["shards"]:
        assert (tmp_path / "raw1" / s["name"]).read_bytes() == (tmp_path / "raw2" / s["name"]).read_bytes()
    build_shards(jobs, tmp_path / "other", ExtractSettings(num_frames=8, height=64, width=96, seed=8), progress=False)
    starts = lambda d: [json.loads(s["json"])["start"] for s in _read_all(d)]  # noqa: E731
    assert starts(tmp_path / "one") != starts(tmp_path / "other")
    assert set(one.manifest["sources"]) == {str(p) for p in find_videos(narrated_folder)}
    assert one.manifest["settings"]["num_frames"] == 8 and one.manifest["settings"]["seed"] == 7


def test_build_reports_skipped_inputs_by_reason(tmp_path, narrated_folder, make_video, transcript_writer):
    make_video(narrated_folder / "silent.mp4", 20)  # no transcript
    (narrated_folder / "corrupt.mp4").write_bytes(b"not a video at all")
    (narrated_folder / "corrupt.json").write_text("[]")
    make_video(narrated_folder / "badsubs.mp4", 20)
    (narrated_folder / "badsubs.srt").write_text("1\nnonsense\n")
    make_video(narrated_folder / "offtopic.mp4", 20)
    transcript_writer(narrated_folder / "offtopic.json", [{"start": 0, "end": 20, "text": "hello everyone welcome back"}])
    summary = build_shards(plan_jobs(find_videos(narrated_folder)), tmp_path / "out", ExtractSettings(num_frames=4, height=32, width=48), progress=False)
    assert dict(summary.skipped) == {"no_transcript": 1, "unreadable_video": 1, "bad_transcript": 1, "no_keyword_match": 1}
    assert summary.videos == 7 and summary.videos_with_clips == 3
    assert "videos skipped:" in summary.format()


def test_single_thread_mp4_is_repeatable_and_faithful(frames_like):
    from mineclip.data.video import decode_video, encode_mp4

    frames = frames_like(16, 64, 96, seed=7)
    one = encode_mp4(frames, fps=8, preset="superfast", threads=1)
    assert encode_mp4(frames, fps=8, preset="superfast", threads=1) == one  # same bytes on any machine
    decoded = decode_video(one)
    assert decoded.shape == frames.shape
    assert np.abs(decoded.astype(int) - frames.astype(int)).mean() < 3.0


def test_a_writer_stopped_by_an_error_leaves_no_manifest_and_no_cut_shard_under_a_final_name(tmp_path, frames_like):
    from mineclip.data.shards import ClipShardWriter

    with pytest.raises(RuntimeError, match="a worker died"):
        with ClipShardWriter(tmp_path, prefix="train", encoding="raw", max_shard_samples=2) as w:
            for i in range(3):  # shard 0 finished (2 clips), shard 1 cut short after one
                w.write(frames_like(4, 16, 16, seed=i), f"clip {i}", {"id": f"c{i}"})
            raise RuntimeError("a worker died")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train-000000.tar"]  # whole; no manifest, no part
