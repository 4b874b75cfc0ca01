"""mineclip.perception.probe: tiles cut in the order their labels are read, a pixel probe that sees
what the frame shows, one row per probe condition for an artifact and its untrained twin, and the
table of them that bench/probe.py prints."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers.models import make_micro

from mineclip.model.artifact import save_artifact
from mineclip.perception.calibrate import collect_frames, probes
from mineclip.perception.probe import ProbeRow, probe_artifacts, probe_table, tile_labels, tiles

REPO = Path(__file__).resolve().parents[2]


def test_tiles_line_up_with_the_simulators_view():
    frames = collect_frames("perception", 2, per_episode=2, steps=4)
    x = tiles(frames)
    assert x.shape == (len(frames) * 16 * 9, 16 * 16 * 3) and 0 <= x.min() and x.max() <= 1
    for kind in ("grass", "water", "sand", "tree"):
        assert tile_labels(frames, kind).reshape(len(frames), -1).sum(1).tolist() == [f.state.count(kind) for f in frames]
    # the same texture everywhere a kind is: grass tiles are closer to each other than to water tiles
    # (in daylight; at night crafter darkens the view with noise)
    day = [i for i, f in enumerate(frames) if f.state.daylight > 0.7] or [0]
    g = tile_labels(frames, "grass").reshape(len(frames), -1)[day].reshape(-1)
    xd = x.reshape(len(frames), 144, -1)[day].reshape(-1, x.shape[1])
    assert g.any() and (~g).any()
    within = np.abs(xd[g] - xd[g].mean(0)).mean()
    across = np.abs(xd[~g] - xd[g].mean(0)).mean()
    assert within < across


def test_probe_rows_for_an_artifact_and_its_untrained_twin(tmp_path):
    art = str(save_artifact(make_micro(), tmp_path / "artifact", window=2))
    result = probe_artifacts([art], fit_worlds=6, eval_worlds=6)
    assert list(result) == [art, "untrained"]
    keys = [c.key for c in probes()]
    for rows in result.values():
        assert [r.key for r in rows] == keys
    by_key = {r.key: r for r in result[art]}
    assert by_key["time:night"].pixels is None and by_key["terrain:water"].pixels is not None
    # a linear probe on a tile's pixels finds water: the frame shows it plainly
    assert by_key["terrain:water"].pixels > 0.9
    assert [r.pixels for r in result["untrained"]] == [r.pixels for r in result[art]]
    table = probe_table(result).splitlines()
    assert table[0] == f"| condition | seen in | pixels (per tile) | {art}: text / embedding | untrained: text / embedding |"
    assert len(table) == 2 + len(keys) and [line.split(" | ")[0] for line in table[2:]] == [f"| {k}" for k in keys]


def test_the_probe_table_writes_what_was_not_measured_as_a_dash():
    nan = float("nan")
    table = probe_table({"a": [ProbeRow("time:night", 0.5, nan, 0.5, None)],
                         "untrained": [ProbeRow("time:night", 0.5, 0.4, nan, None)]})
    assert table.splitlines()[2] == "| time:night | 50% | – | – / 0.50 | 0.40 / – |"


def test_bench_probe_states_its_options():
    """bench/probe.py parses its options and calls the library (its imports resolve)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, str(REPO / "bench" / "probe.py"), "--help"], env=env, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0 and "--fit-worlds" in done.stdout and "--no-untrained" in done.stdout


def test_probing_nothing_is_refused():
    with pytest.raises(ValueError, match="no artifact"):
        probe_artifacts([])
