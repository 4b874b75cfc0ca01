"""mineclip.perception in first person: the Percipient's labels are what the first-person frame shows
(the renderer's semantic map and `WorldState.view`, not the map from above), its calibration is kept
per view and refused in the other, and the Patroller, the proximity read-out and the pipeline's
perception stage run on first-person frames."""

import json

import numpy as np
import pytest
import torch
from helpers.models import make_micro

from mineclip.model.artifact import save_artifact
from mineclip.perception import calibrate
from mineclip.perception.benchmark import load_percipient
from mineclip.perception.calibrate import (
    LabelledFrame,
    collect_frames,
    fit_thresholds,
    load_thresholds,
    save_thresholds,
)
from mineclip.perception.conditions import Condition
from mineclip.perception.head import (
    COUNT_FEATURES,
    HIDDEN,
    PATCH_DISTANCE,
    READER,
    TILE_DISTANCE,
    fit_counts,
    fit_head,
    frame_tokens,
    load_head,
    patch_labels,
    tile_labels,
)
from mineclip.perception.patroller import make_perceiver, patrol
from mineclip.perception.percipient import Percipient
from mineclip.perception.proximity import ProximityRewardFunction
from mineclip.sim.env import CrafterEnv
from mineclip.sim.firstperson import KIND_IDS, WORLD_ROWS
from mineclip.sim.view import action_id
from mineclip.tasks.world_seeds import world_seeds

FP = "first_person"
COW = Condition("creature", "cow", (("in_view", 1),))


def labelled(env: CrafterEnv, obs) -> LabelledFrame:
    """The frame as `collect_frames` labels it."""
    semantic = None if env.first_person is None else env.first_person.semantic.copy()
    return LabelledFrame(obs, env.state, "find_a_cow", env.view, semantic)


def by_pixels(semantic: np.ndarray, kind: str) -> np.ndarray:
    """Whether each 16x16 patch of the world rows has a pixel of `kind`, [16 x, 9 y], patch by patch."""
    out = np.zeros((16, 9), bool)
    for x in range(16):
        for y in range(9):
            out[x, y] = (semantic[16 * y:16 * y + 16, 16 * x:16 * x + 16] == KIND_IDS[kind]).any()
    return out


def test_a_cow_behind_the_player_is_on_no_patch_in_first_person_and_on_the_patches_it_is_drawn_on_once_turned():
    init = {"time": "noon", "facing": [0, 1], "place": [{"what": "cow", "at": [0, -1]}]}
    top, eyes = CrafterEnv(init=init), CrafterEnv(init=init, view=FP)
    top_frame, eyes_frame = labelled(top, top.reset(seed=0)[0]), labelled(eyes, eyes.reset(seed=0)[0])
    # from above the cow right behind is on its tile, and the frame is labelled with it
    assert tile_labels([top_frame], "cow").reshape(16, 9)[8, 3] and COW.seen(top_frame.state)
    # in first person it is behind the eyes: no pixel shows it, no patch, no frame label
    assert not (eyes.first_person.semantic[:WORLD_ROWS] == KIND_IDS["cow"]).any()
    assert not tile_labels([eyes_frame], "cow").any() and not COW.seen(eyes_frame.state)
    assert eyes_frame.state.distance("cow") == 1  # where it is stays a fact about the world
    for _ in range(2):  # turn round: the frame shows it now
        obs, *_ = eyes.step(action_id(FP, "turn_left"))
    turned = labelled(eyes, obs)
    cows = tile_labels([turned], "cow").reshape(16, 9)
    assert cows.any() and COW.seen(turned.state)
    for kind in ("cow", "grass", "tree", "sky"):  # each patch's label is the semantic map's, pixel for pixel
        assert np.array_equal(patch_labels(turned.semantic, kind), by_pixels(turned.semantic, kind)), kind
    assert np.array_equal(cows, by_pixels(turned.semantic, "cow"))
    # the cow one tile ahead stands on the bottom rows of patches (nearest ground 0.96 tiles ahead)
    assert cows[:, 8].any() and PATCH_DISTANCE.reshape(16, 9)[0, 8] < 1
    with pytest.raises(ValueError, match="semantic map"):
        tile_labels([LabelledFrame(obs, turned.state, "find_a_cow", FP, None)], "cow")


@pytest.fixture(scope="module")
def eyes_frames():
    return collect_frames("perception", 6, per_episode=4, steps=12, view=FP)


def test_first_person_frames_are_labelled_by_what_they_show(eyes_frames):
    assert eyes_frames and {f.view for f in eyes_frames} == {FP}
    for f in eyes_frames:
        assert f.semantic.shape == (160, 256) and f.frame.shape == (160, 256, 3)
        for kind in ("cow", "water", "sand", "tree"):  # a frame has a kind's patch iff its view has the kind
            assert tile_labels([f], kind).any() == (f.state.count(kind) > 0), kind


def test_a_calibration_of_one_view_is_refused_in_the_other(sim_model, sim_head, eyes_frames, tmp_path):
    head = fit_head(sim_model, eyes_frames)
    assert head.view == FP and head.fitted["view"] == FP and head.kinds
    thresholds = fit_thresholds(Percipient(sim_model, {}, head), eyes_frames)
    assert thresholds["view"] == FP
    save_thresholds(tmp_path, thresholds)
    head.save(tmp_path)
    assert load_thresholds(tmp_path, FP)["view"] == FP and load_head(tmp_path, sim_model, FP).view == FP
    with pytest.raises(ValueError, match="calibrated in the first_person view, not the top view"):
        load_thresholds(tmp_path)  # the default view, top
    with pytest.raises(ValueError, match="fitted on frames of the first_person view, not the top view"):
        load_head(tmp_path, sim_model, "top")
    with pytest.raises(ValueError, match="calibrated in the first_person view, not the top view"):
        load_percipient(sim_model, str(tmp_path), list, refit=False, view="top")
    percipient, how = load_percipient(sim_model, str(tmp_path), list, refit=False, view=FP)
    assert percipient.view == FP and how.startswith("read from")
    top_head, top_frames, _ = sim_head
    assert top_head.view == "top"
    with pytest.raises(ValueError, match="a Percipient reads frames of one view"):
        Percipient(sim_model, thresholds, top_head)
    with pytest.raises(ValueError, match="several views"):
        fit_head(sim_model, top_frames[:4] + eyes_frames[:4])
    with pytest.raises(ValueError, match="fitted in the first_person view; this patrol is in the top view"):
        patrol("find_a_cow", make_perceiver("active", percipient), world_seeds("perception_eval", 1)[0])


def test_in_first_person_the_head_reads_each_patch_with_its_neighbours_and_is_saved_so(sim_model, sim_head,
                                                                                      eyes_frames, tmp_path):
    head = fit_head(sim_model, eyes_frames)
    width = sim_model.model.vision.conv1.out_channels
    assert head.reader == READER[FP] == "neighbourhood" and head.tile_w1.shape == (9 * width, HIDDEN)
    assert sim_head[0].reader == READER["top"] == "patch"  # from above a tile is one patch
    assert torch.equal(fit_head(sim_model, eyes_frames).tile_w1, head.tile_w1)  # a fixed seed: the same network
    tokens = frame_tokens(sim_model, np.stack([f.frame for f in eyes_frames[:4]]))
    head.save(tmp_path)
    loaded = load_head(tmp_path, sim_model, FP)
    assert loaded.reader == "neighbourhood" and torch.equal(loaded.tile_probs(tokens), head.tile_probs(tokens))
    # a patch's answer depends on the tokens of its 3x3 neighbourhood, and on no other patch's
    changed = tokens.clone()
    changed[:, 5, 4] += 3.0
    moved = (head.tile_probs(changed) - head.tile_probs(tokens)).abs().amax((0, 2)).reshape(16, 9)
    near = torch.zeros(16, 9, dtype=torch.bool)
    near[4:7, 3:6] = True
    assert moved[near].gt(0).all() and moved[~near].eq(0).all()
    assert fit_head(sim_model, eyes_frames, reader="patch").reader == "patch"  # the other read-out, on request
    with pytest.raises(ValueError, match="unknown read-out 'pixels'"):
        fit_head(sim_model, eyes_frames, reader="pixels")


def test_a_neighbourhood_heads_bands_and_counts_are_fitted_on_answers_for_frames_it_was_not_fitted_on(
        sim_model, sim_head, eyes_frames, monkeypatch, tmp_path):
    from mineclip.perception import head as head_module

    # the test's 24 frames hold too few of each count label for halves of 12 at the packaged minimum
    monkeypatch.setattr(head_module, "MIN_FRAMES", 3)
    given = []
    fit = calibrate.fit_thresholds

    def noting(percipient, frames, probs=None):
        given.append(probs)
        return fit(percipient, frames, probs=probs)

    monkeypatch.setattr(calibrate, "fit_thresholds", noting)
    fitted = calibrate.fit_percipient(sim_model, eyes_frames)
    assert fitted.head.reader == "neighbourhood" and fitted.thresholds["view"] == FP
    conds, half = calibrate.probes(), len(eyes_frames) // 2
    fold = fit_head(sim_model, eyes_frames[half:])  # fitted on the second half, answering the first
    other = fit_head(sim_model, eyes_frames[:half])  # and the one answering the second half
    assert fitted.head.counts and set(fitted.head.counts) <= {"water:3", "sand:3", "tree:3"}  # need > 1 only
    # the first half's count answers: a read-out fitted on the second half's out-of-fold answers alone
    second = other.tile_probs(frame_tokens(sim_model, np.stack([f.frame for f in eyes_frames[half:]]))).double()
    needs = {f"{c.subject}:{c.need}": c for c in conds if f"{c.subject}:{c.need}" in fitted.head.counts}
    own_counts = fit_counts({k: second[..., other.kinds.index(c.subject)] for k, c in needs.items()},
                            {k: [f.state.count(c.subject) >= c.need for f in eyes_frames[half:]] for k, c in needs.items()}, FP)
    assert own_counts[0]  # the sim frames give the halves enough of both labels for at least one count
    fold.counts, fold.count_w, fold.count_b = calibrate._with_fallback(
        own_counts, (fitted.head.counts, fitted.head.count_w, fitted.head.count_b))
    known = [j for j, c in enumerate(conds) if fitted.head.knows(c) and fold.knows(c)]
    assert known
    expected = calibrate.frame_probs(Percipient(sim_model, {}, fold), eyes_frames[:half], [conds[j] for j in known])
    assert np.allclose(given[0][:half, known], expected)
    # with the read-out fitted on every frame (the first half's labels among them) the counts' answers differ
    fold.counts, fold.count_w, fold.count_b = fitted.head.counts, fitted.head.count_w, fitted.head.count_b
    counts_idx = [i for i, j in enumerate(known) if f"{conds[j].subject}:{conds[j].need}" in own_counts[0]]
    in_sample = calibrate.frame_probs(Percipient(sim_model, {}, fold), eyes_frames[:half], [conds[j] for j in known])
    assert counts_idx and not np.allclose(in_sample[:, counts_idx], expected[:, counts_idx])
    own = calibrate.frame_probs(fitted, eyes_frames[:half], [conds[j] for j in known])
    assert not np.allclose(own, expected)  # the whole head's own answers on the frames it was fitted on differ
    # a count is answered by its read-out, saved and loaded with the head
    counted = [c for c in conds if f"{c.subject}:{c.need}" in fitted.head.counts]
    x = np.stack([f.frame for f in eyes_frames[:6]])
    fitted.head.save(tmp_path)
    loaded = load_head(tmp_path, sim_model, FP)
    assert loaded.counts == fitted.head.counts
    assert np.allclose(loaded.probs(sim_model, x, counted), fitted.head.probs(sim_model, x, counted))
    loaded.counts = []  # the tail over patches instead
    assert not np.allclose(loaded.probs(sim_model, x, counted), fitted.head.probs(sim_model, x, counted))
    _, top_frames, _ = sim_head
    assert calibrate.fit_percipient(sim_model, top_frames).head.reader == "patch" and given[-1] is None


def test_a_first_person_head_file_with_wrong_tensors_or_an_unknown_reader_is_refused(sim_model, eyes_frames, tmp_path):
    from safetensors import safe_open
    from safetensors.torch import save_file

    head = fit_head(sim_model, eyes_frames)
    head.counts, head.count_w, head.count_b = ["tree:3"], torch.zeros(1, COUNT_FEATURES), torch.zeros(1)
    path = head.save(tmp_path)
    assert load_head(tmp_path, sim_model, FP).counts == ["tree:3"]
    # a head saved before the placed count: its read-outs read the features they were fitted on
    head.count_w = torch.zeros(1, COUNT_FEATURES - 1)
    head.save(tmp_path)
    old = load_head(tmp_path, sim_model, FP)
    tree = [c for c in calibrate.probes() if c.subject == "tree" and c.need == 3]
    assert np.allclose(old.probs(sim_model, np.stack([f.frame for f in eyes_frames[:2]]), tree), 0.5)
    with safe_open(str(path), framework="pt") as f:
        meta, tensors = f.metadata(), {k: f.get_tensor(k) for k in f.keys()}
    for changed, extra, match in ((dict(tensors, count_w=torch.zeros(1, COUNT_FEATURES + 1)), {}, "shapes do not match"),
                                  (dict(tensors, tile_w1=tensors["tile_w1"][:-1]), {}, "shapes do not match"),
                                  (tensors, {"reader": "pixels"}, "reader 'pixels'"),
                                  ({k: v for k, v in tensors.items() if k != "count_b"}, {}, "not a perception head")):
        save_file(changed, str(path), metadata=meta | extra)
        with pytest.raises(ValueError, match=match):
            load_head(tmp_path, sim_model, FP)


def test_near_and_proximity_are_read_from_the_patch_rows_in_first_person(sim_model, eyes_frames):
    head = fit_head(sim_model, eyes_frames)
    assert torch.equal(head.distance, PATCH_DISTANCE) and not torch.equal(PATCH_DISTANCE, TILE_DISTANCE.double())
    kind = head.kinds[0]
    fn = ProximityRewardFunction(sim_model, head, [kind])
    assert fn.max_distance == 5 and fn.describe()["view"] == FP
    k, grid = head.kinds.index(kind), PATCH_DISTANCE.reshape(16, 9)
    for row, expected in ((8, 5), (7, 4), (5, 4), (4, 3), (3, 1), (0, 0)):  # 0.96, 1.14, 1.85, 2.67, 4.8, sky
        p = torch.zeros(1, 16 * 9, len(head.kinds), dtype=torch.float64)
        p.view(1, 16, 9, -1)[0, 7, row, k] = 1.0
        assert fn.proximity(p).item() == pytest.approx(expected), (row, float(grid[7, row]))


class Watching:
    """A ground-truth perceiver that notes what it was shown."""

    name = "watching"

    def __init__(self):
        self.seen = []

    def answer(self, env, frame, pending, conditions):
        self.seen.append((env.view, np.array_equal(frame, env.first_person.frame) if env.first_person else False))
        return {c: "yes" if c.seen(env.state) else "no" for c in pending}


def test_the_patroller_plays_and_asks_in_first_person():
    watching = Watching()
    out = patrol("find_a_cow", watching, world_seeds("perception_eval", 1)[0], view=FP)
    assert watching.seen and set(watching.seen) == {(FP, True)}  # the player's eyes, asked on that frame
    assert out.success and out.declared and not out.false_done


def test_the_pipelines_perception_stage_runs_in_first_person(tmp_path):
    from mineclip.pipeline.presets import preset_from_dict
    from mineclip.pipeline.run import stage_perception

    run = tmp_path / "run"
    save_artifact(make_micro(resolution=(160, 256)), run / "artifact", window=2)
    preset = preset_from_dict("tiny", {"view": FP, "perception": {"tasks": ["find_a_tree"], "per_label": 1,
                                                                   "fit_worlds": 4}})
    assert preset.view == FP and preset.perception is not None
    record = stage_perception(run, preset, 1)
    assert record["view"] == FP and record["head"] and "tree" in record["head"]
    assert json.loads((run / "artifact" / "perception.json").read_text())["view"] == FP
    assert load_head(run / "artifact", view=FP).view == FP
    context = [json.loads(line) for line in (run / "evalset" / "context" / "evalset.jsonl").read_text().splitlines()]
    assert context and {r["view"] for r in context} == {FP}
    assert "first_person view" in (run / "report" / "perception.md").read_text()
    assert 0.0 <= record["context_factored_f1"] <= 1.0
    # the judge by conditions, in first person, refuses trajectories of the other view
    from mineclip.perception.benchmark import JudgeSettings, run_judges

    top = run / "evalset" / "context" / "top.jsonl"
    top.write_text("".join(json.dumps(r | {"view": "top"}) + "\n" for r in context))
    with pytest.raises(ValueError, match="trajectories of the top view; the judge runs in the first_person view"):
        run_judges(JudgeSettings(str(run / "artifact"), str(top), str(run / "evalset" / "context"), per_label=1,
                                 tasks=["find_a_tree"], workers=1, progress=False, view=FP))
