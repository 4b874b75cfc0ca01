import random

import numpy as np
import pytest

from mineclip.data.extract import (
    ExtractSettings,
    KeywordMatcher,
    count_tokens,
    default_keywords,
    extract_video,
    plan_caption_clips,
    plan_transcript_clips,
)
from mineclip.data.transcripts import Segment
from mineclip.data.video import resize_frames


def test_default_keywords_ship_with_the_package():
    words = default_keywords()
    assert {"pickaxe", "creeper", "crafting table", "diamond"} <= set(words)


def test_keyword_matcher_whole_words_plurals_and_phrases():
    m = KeywordMatcher(["axe", "crafting table", "cow"])
    assert m.find("I need two AXES now") == "axe"
    assert m.find("a Crafting  Table here") == "crafting table"
    assert m.find("cows everywhere") == "cow"
    assert m.find("the taxes are high") is None
    assert m.find("cowboy hat") is None


def test_captions_respect_token_bounds(segments):
    settings = ExtractSettings(min_tokens=16, max_tokens=30)
    plans, dropped = plan_transcript_clips(segments(), 60.0, settings, random.Random(0), KeywordMatcher(default_keywords()))
    assert plans
    assert all(16 <= count_tokens(p.text) <= 30 for p in plans)


def test_text_too_short_is_dropped_when_neighbours_cannot_reach_min_tokens():
    segs = [Segment(0, 2, "a cow"), Segment(2, 4, "moo")]
    plans, dropped = plan_transcript_clips(segs, 20.0, ExtractSettings(), random.Random(0), KeywordMatcher(["cow"]))
    assert plans == [] and dropped["text_too_short"] == 1


def test_long_segment_is_truncated_or_skipped():
    long = Segment(0, 10, "the creeper " + "blew up my whole house again " * 20)
    matcher = KeywordMatcher(["creeper"])
    plans, _ = plan_transcript_clips([long], 30.0, ExtractSettings(max_tokens=40), random.Random(0), matcher)
    assert len(plans) == 1 and count_tokens(plans[0].text) <= 40 and plans[0].text.startswith("the creeper")
    plans, dropped = plan_transcript_clips([long], 30.0, ExtractSettings(long_text="skip"), random.Random(0), matcher)
    assert plans == [] and dropped["text_too_long"] == 1


def test_clip_length_bounds_and_window_inside_video(segments):
    settings = ExtractSettings(min_clip_seconds=5, max_clip_seconds=7)
    plans, _ = plan_transcript_clips(segments(40), 40.0, settings, random.Random(1), KeywordMatcher(default_keywords()))
    assert plans
    for p in plans:
        assert 5 - 1e-6 <= p.end - p.start <= 7 + 1e-6
        assert 0 <= p.start < p.end <= 40.0


def test_keyword_filter_uses_only_matching_segments(segments):
    segs = segments(60, keyword_every=1000)  # only the first segment has Minecraft words
    plans, _ = plan_transcript_clips(segs, 60.0, ExtractSettings(allow_overlap=True), random.Random(0), KeywordMatcher(default_keywords()))
    assert len(plans) == 1 and plans[0].segments[0] <= 0 <= plans[0].segments[1]
    plans, _ = plan_transcript_clips(segs, 60.0, ExtractSettings(), random.Random(0), KeywordMatcher(["zebra"]))
    assert plans == []
    plans, _ = plan_transcript_clips(segs, 60.0, ExtractSettings(require_keyword=False), random.Random(0), None)
    assert len(plans) > 1


def test_extract_video_frames_meta_and_determinism(tmp_path, make_video, segments):
    video = make_video(tmp_path / "v.mp4", 30, fps=4)
    settings = ExtractSettings(num_frames=8, height=64, width=96, seed=3)
    a = extract_video(video, segments(30), settings)
    b = extract_video(video, segments(30), settings)
    c = extract_video(video, segments(30), ExtractSettings(num_frames=8, height=64, width=96, seed=4))
    assert a.skipped is None and a.clips
    assert all(clip.frames.shape == (8, 64, 96, 3) for clip in a.clips)
    assert [(x.meta, x.text) for x in a.clips] == [(x.meta, x.text) for x in b.clips]
    assert all(np.array_equal(x.frames, y.frames) for x, y in zip(a.clips, b.clips))
    assert [x.meta["start"] for x in a.clips] != [x.meta["start"] for x in c.clips]
    meta = a.clips[0].meta
    assert {"source", "start", "end", "fps", "keyword"} <= meta.keys() and meta["keyword"]
    # frames are sampled uniformly inside [start, end): the red channel encodes the source frame index
    idx = a.clips[0].frames[:, 20, 10:40, 0].astype(float).mean(axis=1) / 2
    assert np.all(np.diff(idx) > 0)
    assert meta["start"] * 4 - 2 <= idx[0] and idx[-1] <= meta["end"] * 4 + 2


def test_extract_video_skip_reasons(tmp_path, make_video, segments):
    short = make_video(tmp_path / "short.mp4", 4, fps=4)
    assert extract_video(short, segments(4), ExtractSettings()).skipped == "video_too_short"
    broken = tmp_path / "broken.mp4"
    broken.write_bytes(b"\x00\x00\x00\x18ftypmp42" + b"\x00" * 100)
    assert extract_video(broken, segments(30), ExtractSettings()).skipped == "unreadable_video"
    ok = make_video(tmp_path / "ok.mp4", 30, fps=4)
    assert extract_video(ok, None, ExtractSettings()).skipped == "no_transcript"
    assert extract_video(ok, [Segment(0, 30, "nothing relevant here at all")], ExtractSettings()).skipped == "no_keyword_match"


def test_caption_only_videos_are_cut_into_windows():
    settings = ExtractSettings(min_clip_seconds=8, max_clip_seconds=16)
    plans, _ = plan_caption_clips([{"caption": "build a house"}], 40.0, settings, random.Random(0))
    assert [(p.start, p.end) for p in plans] == [(0, 16), (16, 32), (32, 40)]
    plans, _ = plan_caption_clips([{"caption": "dig", "start": "10", "end": "12"}], 40.0, settings, random.Random(0))
    assert len(plans) == 1 and plans[0].end - plans[0].start == pytest.approx(8) and plans[0].start == pytest.approx(7)


@pytest.mark.parametrize("aspect", ["crop", "pad", "stretch"])
def test_resize_aspect_modes(aspect):
    frames = np.full((2, 90, 90, 3), 200, dtype=np.uint8)
    out = resize_frames(frames, (160, 256), aspect)
    assert out.shape == (2, 160, 256, 3)
    if aspect == "pad":
        assert out[:, :, 0].max() == 0 and out[:, 80, 128].min() == 200
    else:
        assert out.min() == 200


def test_settings_validate_bounds():
    with pytest.raises(ValueError, match="min_tokens"):
        ExtractSettings(min_tokens=80)
    with pytest.raises(ValueError, match="min_clip_seconds"):
        ExtractSettings(min_clip_seconds=20, max_clip_seconds=10)
