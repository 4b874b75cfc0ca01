import json

from mineclip.data.cli import main


def test_build_and_inspect_end_to_end(tmp_path, narrated_folder, make_video):
    make_video(narrated_folder / "uncaptioned.mp4", 20)
    make_video(narrated_folder / "from_csv.mp4", 20, seed=5)
    csv = tmp_path / "captions.csv"
    csv.write_text("video,caption,start,end\nfrom_csv.mp4,lay a red carpet on the floor,4,12\n")
    (narrated_folder / "broken.mp4").write_bytes(b"\x00" * 64)
    (narrated_folder / "broken.vtt").write_text("WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nchop a tree\n")
    out = tmp_path / "shards"
    rc = main(["build", str(narrated_folder), "--out", str(out), "--captions-csv", str(csv), "--caption", "a minecraft clip",
               "--num-frames", "8", "--height", "64", "--width", "96", "--workers", "2", "--max-shard-mb", "0.05",
               "--seed", "1", "--no-progress"])
    assert rc == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["total"] == sum(s["count"] for s in manifest["shards"]) > 5
    assert len(manifest["shards"]) > 1 and manifest["settings"]["num_frames"] == 8
    assert str(narrated_folder / "from_csv.mp4") in manifest["sources"]
    assert str(narrated_folder / "uncaptioned.mp4") in manifest["sources"]

    report = tmp_path / "report"
    assert main(["inspect", str(out), "--out", str(report), "--num-clips", "3", "--check"]) == 0
    assert (report / "caption_lengths.png").stat().st_size > 1000
    assert (report / "contact_sheet.png").stat().st_size > 1000
    assert json.loads((report / "inspect.json").read_text())["total"] == manifest["total"]


def test_build_fails_cleanly_without_clips(tmp_path, capsys):
    assert main(["build", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "no videos found" in capsys.readouterr().err


def test_inspect_names_a_shard_file_that_does_not_exist(tmp_path, capsys):
    # a typo was a warning, "0 samples" and exit 1, with the reason scrolled past
    report = tmp_path / "report"
    assert main(["inspect", str(tmp_path / "shards-{000..001}.tar"), "--out", str(report)]) == 2
    err = capsys.readouterr().err
    assert "no such shard file" in err and "shards-000.tar" in err and "shards-001.tar" in err
    assert not report.exists()  # nothing written for an input that was never read
