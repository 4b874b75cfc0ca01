"""Streaming with cached frame features equals recomputing every window; batched equals one by one."""

import numpy as np
import pytest
import torch

from helpers.models import MICRO_RES

from mineclip.reward import RewardModel
from mineclip.reward.reward import recompute_window_rewards

NEG = ["drink water", "hunt a cow", "place a table"]


def frames(n, seed=0, size=MICRO_RES):
    return np.random.default_rng(seed).integers(0, 256, (n, *size, 3), dtype=np.uint8)


def stream_probs(fn, video):
    s = fn.stream(1)
    outs = [s.reset(video[:1])] + [s.step(video[i : i + 1]) for i in range(1, len(video))]
    return (np.array([float(o.prob[0]) for o in outs]), np.array([float(o.reward[0]) for o in outs]),
            np.stack([o.logits[0].numpy() for o in outs]))


@pytest.mark.parametrize("first_steps,mode,window,stride,steps", [
    ("repeat", "direct", 16, 1, 18), ("repeat", "delta", 5, 1, 8), ("partial", "direct-naive", 5, 1, 8),
    ("repeat", "direct", 4, 2, 10), ("partial", "delta", 3, 3, 11), ("repeat", "progress", 3, 2, 12)])
def test_streaming_equals_recompute_from_scratch(micro_model, first_steps, mode, window, stride, steps):
    # the paper's 16, short ones to keep the test fast, and windows of every 2nd / 3rd frame
    rm = RewardModel(micro_model, window=window, frame_stride=stride, precision="fp32")
    fn = rm.reward_fn("chop a tree", NEG, mode=mode, first_steps=first_steps)
    video = frames(steps)
    ref = recompute_window_rewards(fn, video)
    prob, reward, logits = stream_probs(fn, video)
    assert np.abs(prob - ref.prob).max() < 1e-5
    assert np.abs(reward - ref.reward).max() < 1e-5
    assert np.abs(logits - ref.logits).max() < 1e-4  # logits are ~exp(logit_scale) times larger
    batch = fn.trajectory(video)
    assert np.abs(batch.prob - ref.prob).max() < 1e-5
    assert np.abs(batch.reward - ref.reward).max() < 1e-5


def test_first_steps_repeat_the_reset_frame_to_fill_the_window(micro_model):
    rm = RewardModel(micro_model, window=16, precision="fp32")  # compared with the float32 module forward
    fn = rm.reward_fn("chop a tree", NEG)
    first = frames(1)
    p_reset = float(fn.stream(1).reset(first).prob[0])
    video = torch.from_numpy(np.repeat(first, 16, axis=0)).permute(0, 3, 1, 2)[None]
    with torch.no_grad():
        p_full = micro_model(video, ["chop a tree", *NEG]).softmax(-1)[0, 0].item()
    assert abs(p_reset - p_full) < 1e-5


def test_frame_stride_shows_the_model_every_nth_frame_ending_at_the_newest(micro_model):
    rm = RewardModel(micro_model, window=3, frame_stride=2, precision="fp32")  # compared with the module forward
    fn = rm.reward_fn("chop a tree", NEG)
    video = frames(9)
    x = torch.from_numpy(video).permute(0, 3, 1, 2)
    with torch.no_grad():
        expected = micro_model(x[[4, 6, 8]][None], ["chop a tree", *NEG]).softmax(-1)[0, 0].item()
        early = micro_model(x[[0, 0, 2]][None], ["chop a tree", *NEG]).softmax(-1)[0, 0].item()  # frame -2: the first
    traj = fn.trajectory(video)
    assert rm.span == 5
    assert abs(traj.prob[8] - expected) < 1e-5 and abs(traj.prob[2] - early) < 1e-5
    with pytest.raises(ValueError, match="frame_stride"):
        RewardModel(micro_model, window=3, frame_stride=0)


def test_batched_over_envs_equals_one_by_one(micro_model):
    rm = RewardModel(micro_model, window=4)
    fn = rm.reward_fn("chop a tree", NEG, mode="delta")
    n, steps = 3, 6
    videos = [frames(steps, seed=i) for i in range(n)]
    batched = fn.stream(n)
    batched.reset(np.stack([v[0] for v in videos]))
    singles = [fn.stream(1) for _ in range(n)]
    for s, v in zip(singles, videos):
        s.reset(v[:1])
    for t in range(1, steps):
        if t == 4:  # env 1 starts a new episode mid-run
            batched.reset(videos[1][t : t + 1], env_ids=[1])
            singles[1].reset(videos[1][t : t + 1])
            continue
        out = batched.step(np.stack([v[t] for v in videos]))
        for i, (s, v) in enumerate(zip(singles, videos)):
            one = s.step(v[t : t + 1])
            assert abs(float(out.reward[i]) - float(one.reward[0])) < 1e-5
            assert torch.allclose(out.logits[i], one.logits[0], atol=1e-4)


def test_text_features_are_computed_once_per_prompt(micro_model, monkeypatch):
    rm = RewardModel(micro_model)
    calls = []
    original = micro_model.encode_text
    monkeypatch.setattr(micro_model, "encode_text", lambda t: calls.append(list(t)) or original(t))
    rm.reward_fn("chop a tree", NEG)
    rm.reward_fn("drink water", ["chop a tree", "hunt a cow"])
    assert calls == [["chop a tree", *NEG]]


def test_each_streaming_step_encodes_only_the_newest_frames(micro_model, monkeypatch):
    rm = RewardModel(micro_model)
    fn = rm.reward_fn("chop a tree", NEG)
    s = fn.stream(2)
    s.reset(frames(2))
    seen = []
    original = micro_model.encode_images
    monkeypatch.setattr(micro_model, "encode_images", lambda x, *a: seen.append(len(x)) or original(x, *a))
    s.step(frames(2, seed=1))
    assert seen == [2]


def test_frames_of_another_size_are_resized_and_chw_is_accepted(micro_model):
    rm = RewardModel(micro_model)
    fn = rm.reward_fn("chop a tree", NEG)
    hwc = frames(3, size=(64, 64))
    a = fn.trajectory(hwc)
    b = fn.trajectory(np.ascontiguousarray(hwc.transpose(0, 3, 1, 2)))
    assert a.prob.shape == (3,) and np.allclose(a.prob, b.prob)
    with pytest.raises(ValueError, match="uint8"):
        fn.trajectory(hwc.astype(np.float32))


def test_the_window_ending_at_a_frame_is_every_strideth_frame_back_the_first_repeated(micro_model):
    rm = RewardModel(micro_model, window=4, frame_stride=2)
    assert rm.window_indices(7).tolist() == [[1, 3, 5, 7]]
    assert rm.window_indices([0, 2, 9]).tolist() == [[0, 0, 0, 0], [0, 0, 0, 2], [3, 5, 7, 9]]
    assert RewardModel(micro_model, window=3).window_indices(1).tolist() == [[0, 0, 1]]


def test_progress_streams_against_the_episodes_best_not_the_last_step(micro_model):
    # one negative (N = 2) so that Direct = max(P - 0.5, 0) is above 0 on many random frames
    rm = RewardModel(micro_model, window=1, precision="fp32")
    fn = rm.reward_fn("drink water", ["chop a tree"], mode="progress")  # P ~ 0.7 on this micro model
    video = frames(40, seed=3)
    prob, reward, _ = stream_probs(fn, video)
    direct = np.maximum(prob - 0.5, 0)
    best = np.maximum.accumulate(direct)
    # the case that tells the best from the last step: Direct rose, but not above the best so far
    assert ((np.diff(direct) > 1e-4) & (direct[1:] < best[:-1] - 1e-4)).any()
    np.testing.assert_allclose(reward, np.r_[0.0, np.diff(best)], atol=1e-6)
    assert reward.sum() == pytest.approx(direct.max() - direct[0], abs=1e-5)
