"""mineclip.perception.probe: tiles cut in the order their labels are read, a pixel probe that sees
what the frame shows, one row per probe condition for an artifact and its untrained twin, and the
table of them that bench/probe.py prints."""

import numpy as np
import pytest

from helpers.models import make_micro
from helpers.scripts import run_script

from mineclip.model.artifact import save_artifact
from mineclip.perception.calibrate import collect_frames, probes
from mineclip.perception.probe import ProbeRow, probe_artifacts, probe_table, tile_labels, tiles


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
    probed = probe_artifacts([art], fit_worlds=6, eval_worlds=6)
    result = probed.conditions
    assert list(result) == [art, "untrained"] and probed.sizes == {}  # the size probe only when asked
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


def test_bench_probe_states_its_options(capsys):
    """bench/probe.py parses its options and calls the library (its imports resolve)."""
    code, out, _ = run_script("probe", ["--help"], capsys)
    assert code == 0 and "--fit-worlds" in out and "--no-untrained" in out


def test_probing_nothing_is_refused():
    with pytest.raises(ValueError, match="no artifact"):
        probe_artifacts([])


def test_the_size_probe_ranks_a_share_the_features_hold_and_not_one_they_do_not():
    """`size_rho`: a linear read-out of log(share) from features that hold it ranks the held-out
    shares almost perfectly; from features that do not, about as chance; too few frames, NaN."""
    from mineclip.perception.probe import MIN_SIZE_FRAMES, size_rho

    rng = np.random.default_rng(0)
    share = rng.uniform(0.001, 0.3, 400)
    noise = rng.normal(size=(400, 16))
    holds = noise.copy()
    holds[:, 3] += 4 * np.log(share)
    assert size_rho(holds[:200], share[:200], holds[200:], share[200:]) > 0.9
    assert abs(size_rho(noise[:200], share[:200], noise[200:], share[200:])) < 0.2
    few = MIN_SIZE_FRAMES - 1
    assert np.isnan(size_rho(holds[:few], share[:few], holds[200:], share[200:]))


def test_the_size_probe_counts_the_frames_that_show_each_kind_and_needs_first_person(tmp_path):
    from mineclip.perception.probe import SIZE_KINDS, probe_size
    from mineclip.reward import RewardModel
    from mineclip.sim.firstperson import visible_share

    art = str(save_artifact(make_micro(), tmp_path / "artifact", window=2))
    rm = RewardModel.load(art)
    fp = collect_frames("perception", 2, per_episode=3, steps=6, view="first_person")
    rows = probe_size(rm, fp, fp)
    assert [r.kind for r in rows] == list(SIZE_KINDS)
    for r in rows:
        shown = sum(visible_share(f.semantic, r.kind) > 0 for f in fp)
        assert r.fit == r.held_out == shown and (np.isnan(r.rho) or shown >= 20)
    top = collect_frames("perception", 1, per_episode=2, steps=4)
    with pytest.raises(ValueError, match="first-person frames"):
        probe_size(rm, top, top)
    with pytest.raises(ValueError, match="view='first_person'"):
        probe_artifacts([art], fit_worlds=1, eval_worlds=1, size=True)
    # through probe_artifacts: each model's size rows from the same frames as its condition rows
    probed = probe_artifacts([art], fit_worlds=2, eval_worlds=2, view="first_person", size=True)
    rows, sizes = probed.conditions, probed.sizes
    assert list(rows) == list(sizes) == [art, "untrained"]
    assert all([r.kind for r in sizes[name]] == list(SIZE_KINDS) for name in sizes)
    assert [(r.fit, r.held_out) for r in sizes[art]] == [(r.fit, r.held_out) for r in sizes["untrained"]]
