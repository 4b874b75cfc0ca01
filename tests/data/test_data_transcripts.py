import pytest

from mineclip.data.transcripts import (
    Segment,
    TranscriptError,
    find_transcript,
    load_transcript,
    parse_json,
    parse_srt,
    parse_timestamp,
    parse_vtt,
)


def test_timestamps_with_and_without_hours():
    assert parse_timestamp("00:01:02.500") == pytest.approx(62.5)
    assert parse_timestamp("01:02,25") == pytest.approx(62.25)
    assert parse_timestamp("1:00:00.000") == 3600


def test_vtt_parses_cues_strips_tags_and_dedupes_rolling_captions():
    text = (
        "WEBVTT\nKind: captions\n\nNOTE a comment\n\n"
        "00:00:01.000 --> 00:00:03.000 align:start\n<c>mine</c> some <b>iron</b>\n\n"
        "cue-2\n00:00:03.000 --> 00:00:05.000\nmine some iron with a pickaxe\n\n"
        "00:00:05.000 --> 00:00:06.000\nmine some iron with a pickaxe\n"
    )
    assert parse_vtt(text) == [Segment(1.0, 3.0, "mine some iron"), Segment(3.0, 5.0, "with a pickaxe")]


def test_srt_parses_multiline_cues():
    text = "1\n00:00:00,000 --> 00:00:02,000\nchop the\ntree\n\n2\n00:00:02,000 --> 00:00:04,500\ncraft planks &amp; sticks\n"
    assert parse_srt(text) == [Segment(0, 2, "chop the tree"), Segment(2, 4.5, "craft planks & sticks")]


def test_json_list_and_whisper_style():
    assert parse_json('[{"start": 0, "end": 1.5, "text": " hi  there "}]') == [Segment(0, 1.5, "hi there")]
    assert parse_json('{"segments": [{"start": 1, "end": 2, "text": "x"}]}') == [Segment(1, 2, "x")]


@pytest.mark.parametrize(
    "parser, text, message",
    [
        (parse_vtt, "00:00:01.000 --> 00:00:02.000\nhi\n", "must start with 'WEBVTT'"),
        (parse_vtt, "WEBVTT\n\n00:00:xx.000 --> 00:00:02.000\nhi\n", ":3: expected a timestamp"),
        (parse_srt, "1\nhello there\n", "expected a cue timing line"),
        (parse_srt, "1\n00:00:05,000 --> 00:00:02,000\nhi\n", "before it starts"),
        (parse_json, "[{'start': 0}]", "invalid JSON"),
        (parse_json, '[{"start": 0, "text": "x"}]', 'expected {"start", "end", "text"}'),
        (parse_json, '[{"start": "a", "end": 1, "text": "x"}]', "must be numbers"),
        (parse_json, '{"a": 1}', "expected a JSON list"),
    ],
)
def test_malformed_transcripts_raise_clear_errors(parser, text, message):
    with pytest.raises(TranscriptError, match=message.replace("(", r"\(").replace("{", r"\{")):
        parser(text)


def test_load_rejects_non_utf8_and_unknown_suffix(tmp_path):
    bad = tmp_path / "v.srt"
    bad.write_bytes(b"1\n00:00:00,000 --> 00:00:01,000\n\xff\xfe caf\xe9\n")
    with pytest.raises(TranscriptError, match="not UTF-8"):
        load_transcript(bad)
    with pytest.raises(TranscriptError, match="unknown transcript type"):
        load_transcript(tmp_path / "v.txt")


def test_find_transcript_by_stem(tmp_path):
    (tmp_path / "a.mp4").write_bytes(b"")
    other = tmp_path / "subs"
    other.mkdir()
    (other / "a.srt").write_text("")
    assert find_transcript(tmp_path / "a.mp4") is None
    assert find_transcript(tmp_path / "a.mp4", [other]) == other / "a.srt"
