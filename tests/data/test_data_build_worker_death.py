"""A worker killed mid-build (the OOM killer, a crash) stops `mineclip data build` within seconds,
non-zero, naming the videos; no orphan worker, no manifest, and no shard cut short under a final name."""

from __future__ import annotations

import sys
import tarfile
from pathlib import Path

from helpers.processes import gone, kill_a_worker_midway

ROOT = Path(__file__).resolve().parents[2]


def test_a_killed_worker_stops_the_build_at_once_and_leaves_nothing_that_looks_complete(tmp_path, make_video):
    videos = tmp_path / "videos"
    for i in range(24):
        make_video(videos / f"v{i:02d}.mp4", 20, seed=i)
    out = tmp_path / "shards"
    argv = [sys.executable, "-m", "mineclip", "data", "build", str(videos), "--out", str(out), "--caption",
            "a minecraft clip", "--workers", "2", "--max-shard-mb", "0.02", "--no-progress"]
    proc, workers, waited = kill_a_worker_midway(argv, ROOT, lambda: list(out.glob("*.tar.part")),
                                                 "a shard being written")  # mid-build
    err = proc.stderr
    assert waited < 30, "the build waited on the dead worker"
    assert proc.returncode == 1, err
    assert "a worker process died" in err and "while running videos v" in err and ".mp4" in err
    assert all(gone(pid) for pid in workers)  # no orphan
    assert not (out / "manifest.json").exists() and not list(out.glob("*.part"))
    for shard in out.glob("*.tar"):  # what is left under a final name is a whole archive
        with tarfile.open(shard) as tar:
            names = tar.getnames()
        keys = {n.rsplit(".", 1)[0] for n in names}
        assert names and all({f"{k}.json", f"{k}.txt", f"{k}.mp4"} <= set(names) for k in keys)
