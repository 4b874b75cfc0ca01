import json
import random

import pytest

import mineclip.data.build as build
from mineclip.data.build import Part, find_videos, plan_input
from mineclip.data.cli import main
from mineclip.data.inspect import inspect_shards
from mineclip.data.merge import MergeError, merge_parts
from mineclip.data.reader import ClipDataset, SkipCounter, expand_urls, shard_samples

from helpers.clips import assert_same_clip

SMALL = ["--num-frames", "4", "--height", "32", "--width", "48", "--min-clip-seconds", "4", "--max-clip-seconds", "8",
         "--no-progress"]


def _build(folder, out, *flags) -> int:
    return main(["build", str(folder), "--out", str(out), *SMALL, *flags])


def _build_parts(folder, out, count, *flags, parts=None) -> None:
    for index in range(count) if parts is None else parts:
        assert _build(folder, out, "--part", f"{index}/{count}", *flags) == 0


def _samples(folder) -> dict:
    """key -> sample of every sample the reader finds in a shard folder."""
    out = {}
    for s in shard_samples(iter(expand_urls(str(folder))), SkipCounter()):
        assert s["__key__"] not in out, f"key {s['__key__']} appears twice"
        out[s["__key__"]] = s
    return out


def _assert_same_samples(a: dict, b: dict) -> None:
    """The same keys, captions and metadata, and the same frames up to x264's jitter (assert_same_clip)."""
    assert sorted(a) == sorted(b)
    for key in a:
        assert_same_clip(a[key], b[key])


def test_three_parts_merged_give_the_samples_and_manifest_of_one_build(tmp_path, narrated_tree):
    assert _build(narrated_tree, tmp_path / "whole", "--max-shard-mb", "0.004") == 0
    _build_parts(narrated_tree, tmp_path / "parts", 3, "--max-shard-mb", "0.004")
    assert (tmp_path / "parts" / "manifest.part-0001-of-0003.json").is_file()
    assert not (tmp_path / "parts" / "manifest.json").exists()
    assert main(["merge", str(tmp_path / "parts")]) == 0

    whole, merged = _samples(tmp_path / "whole"), _samples(tmp_path / "parts")
    assert len(whole) > 10
    _assert_same_samples(merged, whole)
    sources = {json.loads(s["json"])["source"] for s in whole.values()}
    assert {str(narrated_tree / "alpha.mp4"), str(narrated_tree / "sub" / "alpha.mp4")} <= sources

    one = json.loads((tmp_path / "whole" / "manifest.json").read_text())
    combined = json.loads((tmp_path / "parts" / "manifest.json").read_text())
    assert set(combined) - set(one) == {"parts"} and combined["parts"] == 3
    for field in ("format", "version", "prefix", "encoding", "total", "settings", "sources", "summary", "inputs"):
        assert combined[field] == one[field], field
    assert combined["summary"]["videos"] == 7 and combined["summary"]["skipped"] == {"no_keyword_match": 1, "no_transcript": 1}
    names = [s["name"] for s in combined["shards"]]
    assert len(names) > 3 and all("-p000" in n and "of0003-" in n for n in names)
    assert [u.rsplit("/", 1)[-1] for u in expand_urls(str(tmp_path / "parts"))] == names
    assert sum(s["count"] for s in combined["shards"]) == combined["total"] == len(whole)

    assert inspect_shards(str(tmp_path / "parts"), progress=False).total == len(whole)
    loader = ClipDataset(str(tmp_path / "parts"), batch_size=4, num_frames=4, resolution=(32, 48), mode="exact")
    assert sum(len(batch["text"]) for batch in loader) == len(whole)


def test_a_part_is_the_same_videos_whatever_the_listing_order(tmp_path, narrated_tree):
    names = [f"channel{i % 3}/video{i:03d}.mp4" for i in range(50)]
    shuffled = random.Random(1).sample(names, len(names))
    for count in (1, 3, 7, 64):
        parts = [Part(i, count).select(names) for i in range(count)]
        assert [Part(i, count).select(shuffled) for i in range(count)] == parts
        assert sorted(n for p in parts for n in p) == sorted(names)  # every video in exactly one part
        assert max(map(len, parts)) - min(map(len, parts)) <= 1

    listing = narrated_tree / "videos.txt"  # the same videos listed in another order, one of them twice
    videos = [p.relative_to(narrated_tree).as_posix() for p in find_videos(narrated_tree)]
    listing.write_text("\n".join([*reversed(videos), "./" + videos[0]]) + "\n")
    for index in range(3):
        from_list, inputs = plan_input(listing, part=Part(index, 3))
        from_folder, folder_inputs = plan_input(narrated_tree, part=Part(index, 3))
        assert [j.name for j in from_list] == [j.name for j in from_folder]
        assert inputs["names_sha256"] == folder_inputs["names_sha256"] and inputs["videos"] == 7


@pytest.mark.parametrize("text, message", [
    ("0/0", "at least 1"), ("3/3", "count from 0"), ("5/3", "count from 0"), ("3", "I/N"), ("a/b", "I/N"),
    ("-1/4", "I/N"), ("1/2/3", "I/N"), ("", "I/N"), ("/16", "SLURM_ARRAY_TASK_ID"),
])
def test_bad_part_strings_are_refused_with_a_clear_error(text, message):
    with pytest.raises(ValueError, match=message):
        Part.parse(text)


def test_build_refuses_a_bad_part_on_the_command_line(tmp_path, narrated_tree, capsys):
    with pytest.raises(SystemExit) as exit_:
        _build(narrated_tree, tmp_path / "out", "--part", "4/4")
    assert exit_.value.code == 2
    assert "argument --part: part indices count from 0: expected 0/4 .. 3/4, got 4/4" in capsys.readouterr().err
    assert Part.parse(" 0 / 4 ") == Part(0, 4) and str(Part(3, 16)) == "3/16"


def test_merge_names_the_missing_parts(tmp_path, narrated_tree, capsys):
    _build_parts(narrated_tree, tmp_path / "parts", 4, parts=[0, 2])
    with pytest.raises(MergeError, match=r"2 of 4 parts are not finished .*: 1, 3\. Build them with --part I/4"):
        merge_parts(tmp_path / "parts")
    assert main(["merge", str(tmp_path / "parts")]) == 1
    assert "not finished" in capsys.readouterr().err
    assert not (tmp_path / "parts" / "manifest.json").exists()
    with pytest.raises(MergeError, match="no part manifests"):
        merge_parts(tmp_path)


def test_merge_refuses_parts_built_with_different_settings_or_inputs(tmp_path, narrated_tree):
    _build_parts(narrated_tree, tmp_path / "seeds", 2, "--seed", "1", parts=[0])
    _build_parts(narrated_tree, tmp_path / "seeds", 2, "--seed", "2", parts=[1])
    with pytest.raises(MergeError, match=r"parts 0/2 and 1/2 were built differently: settings differs in seed \(1 vs 2\)"):
        merge_parts(tmp_path / "seeds")

    _build_parts(narrated_tree, tmp_path / "inputs", 2, parts=[0])
    (narrated_tree / "late.mp4").write_bytes((narrated_tree / "silent.mp4").read_bytes())  # the input grew meanwhile
    _build_parts(narrated_tree, tmp_path / "inputs", 2, parts=[1])
    with pytest.raises(MergeError, match="inputs differs in names_sha256 .*, videos \\(7 vs 8\\)"):
        merge_parts(tmp_path / "inputs")


def test_merge_refuses_parts_of_two_splits_and_empty_parts_still_finish(tmp_path, make_video, transcript_writer):
    folder = tmp_path / "one"
    make_video(folder / "only.mp4", 24)
    transcript_writer(folder / "only.json", [{"start": 4 * i, "end": 4 * i + 4, "text": "chop a tree with my axe then "
                                              "build a crafting table and a wooden pickaxe"} for i in range(6)])
    _build_parts(folder, tmp_path / "parts", 3)  # parts 1 and 2 hold no video
    _build_parts(folder, tmp_path / "parts", 2, parts=[1])
    with pytest.raises(MergeError, match=r"parts of different splits: N=2 \(1 parts\), N=3 \(3 parts\)"):
        merge_parts(tmp_path / "parts")
    (tmp_path / "parts" / "manifest.part-0001-of-0002.json").unlink()
    summary = merge_parts(tmp_path / "parts")
    assert _build(folder, tmp_path / "whole") == 0
    assert summary.clips == json.loads((tmp_path / "whole" / "manifest.json").read_text())["total"] > 0
    _assert_same_samples(_samples(tmp_path / "parts"), _samples(tmp_path / "whole"))


def test_a_killed_part_is_not_taken_for_finished_and_its_rerun_cleans_up(tmp_path, narrated_tree, monkeypatch):
    out = tmp_path / "parts"
    _build_parts(narrated_tree, out, 2, "--max-shard-mb", "0.004")
    assert merge_parts(out).clips > 0
    process = build._process
    calls = []

    def dies_on_the_third_video(args):
        calls.append(args)
        if len(calls) == 3:
            raise RuntimeError("node lost")
        return process(args)

    monkeypatch.setattr(build, "_process", dies_on_the_third_video)
    with pytest.raises(RuntimeError, match="node lost"):
        _build(narrated_tree, out, "--max-shard-mb", "0.004", "--part", "1/2")
    monkeypatch.setattr(build, "_process", process)
    assert not (out / "manifest.part-0001-of-0002.json").exists()  # the old one went before its shards changed
    (out / "train-p0001of0002-000009.tar.part").write_bytes(b"half a tar")  # what a SIGKILL leaves
    with pytest.raises(MergeError, match=r"1 of 2 parts are not finished.*\n"
                                         r"part 1/2 was stopped before the end; it left train-p0001of0002-000009.tar.part"):
        merge_parts(out)

    _build_parts(narrated_tree, out, 2, "--max-shard-mb", "0.004", parts=[1])
    assert not list(out.glob("*.part"))
    assert merge_parts(out).clips == json.loads((out / "manifest.json").read_text())["total"]
    assert _build(narrated_tree, tmp_path / "whole", "--max-shard-mb", "0.004") == 0
    _assert_same_samples(_samples(out), _samples(tmp_path / "whole"))

    (out / "train-p0000of0002-000000.tar").unlink()
    with pytest.raises(MergeError, match="part 0/2 lists train-p0000of0002-000000.tar, which is missing"):
        merge_parts(out)
