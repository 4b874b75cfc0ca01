"""The reward core (`RewardTracker`): one forward per step for the newest frames and the first frames
of restarting episodes, each episode rewarded as its stored trajectory whatever the autoreset
convention, and payloads that keep what their step said."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers.models import MICRO_RES, make_micro

from mineclip.reward import RewardFunction, RewardModel, RewardTracker

NEG = ["drink water", "hunt a cow"]


@pytest.fixture(scope="module")
def rm():
    return RewardModel(make_micro(), window=3)


def episodes(lengths, seed):
    """Frames of one env's episodes, [steps + 1, H, W, 3] each (frame 0: the reset frame)."""
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, (n + 1, *MICRO_RES, 3), dtype=np.uint8) for n in lengths]


def play(tracker, envs, steps, autoreset):
    """Drive `tracker` through each env's episodes as a vector env with that autoreset would;
    returns the learned rewards of every env's finished episodes and the steps' payloads."""
    cursor = [[0, 0] for _ in envs]  # per env: episode, frame within it
    tracker.reset(np.stack([eps[0][0] for eps in envs]))
    learned, finished, payloads = [[] for _ in envs], [[] for _ in envs], []
    restarting = np.zeros(len(envs), bool)
    for _ in range(steps):
        frames, done, final = [], [], []
        for i, eps in enumerate(envs):
            e, t = cursor[i]
            if restarting[i]:  # next-step: this step only brings the next episode's first frame
                cursor[i] = [e + 1, 0]
                frames.append(eps[e + 1][0])
                done.append(False)
                continue
            t += 1
            ended = t == len(eps[e]) - 1
            if ended and autoreset == "same-step":
                final.append(eps[e][t])
                frames.append(eps[e + 1][0])
                cursor[i] = [e + 1, 0]
            else:
                frames.append(eps[e][t])
                cursor[i] = [e, t]
            done.append(ended)
        step = tracker.step(np.stack(frames), np.zeros(len(envs)), done, final or None)
        payloads.append(step)
        for i in range(len(envs)):
            if restarting[i]:
                assert step.learned[i] == 0.0 and i not in step.episodes
                continue
            learned[i].append(step.learned[i])
            if done[i]:
                assert step.episodes[i]["return"] == pytest.approx(sum(learned[i]))
                assert step.episodes[i]["length"] == len(learned[i])
                finished[i].append(learned[i])
                learned[i] = []
        restarting = np.array(done) if autoreset == "next-step" else np.zeros(len(envs), bool)
    return finished, payloads


@pytest.mark.parametrize("autoreset", ["same-step", "next-step"])
def test_every_episode_gets_the_rewards_of_its_stored_trajectory_whatever_the_autoreset(rm, autoreset):
    fn = rm.reward_fn("chop a tree", NEG, mode="delta")
    envs = [episodes([2, 4, 3], seed=0), episodes([3, 1, 5], seed=1)]
    tracker = RewardTracker(fn, 2, combine="replace", autoreset=autoreset)
    finished, payloads = play(tracker, envs, steps=8, autoreset=autoreset)
    for i, eps in enumerate(envs):
        assert len(finished[i]) >= 2
        for rewards, frames in zip(finished[i], eps):
            np.testing.assert_allclose(rewards, fn.trajectory(frames).step_rewards, atol=1e-5)
    ended = [p for p in payloads if p.episodes]
    assert ended
    for p in ended:  # a gymnasium vector env's info: arrays over envs, masks for the envs that hold an entry
        info = p.vector_payload()
        assert info["_mineclip"].all() and set(info["mineclip"]) == {"reward", "prob", "logits", "env_reward"}
        assert sorted(np.flatnonzero(info["_mineclip_episode"])) == sorted(p.episodes)


def test_one_forward_per_step_for_the_newest_frames_and_the_first_frames_of_restarting_episodes(rm):
    fn = rm.reward_fn("chop a tree", NEG)
    forwards = []
    encode = fn.encode
    fn.encode = lambda frames: forwards.append(len(frames)) or encode(frames)
    tracker = RewardTracker(fn, 2, autoreset="same-step")
    play(tracker, [episodes([2, 2], seed=2), episodes([3, 3], seed=3)], steps=3, autoreset="same-step")
    # reset (2 frames); step 1 (2); step 2: env 0's episode ends, its last frame and the next one's first (3);
    # step 3: env 1's does (3)
    assert forwards == [2, 2, 3, 3] and tracker.frames_encoded == 10
    started = tracker.reset(np.zeros((1, *MICRO_RES, 3), np.uint8), [1])
    assert started.mask.tolist() == [False, True] and started.vector_payload()["mineclip"]["prob"][0] == 0
    with pytest.raises(ValueError, match="last frames of the 1 ended"):
        tracker.step(np.zeros((2, *MICRO_RES, 3), np.uint8), [0, 0], [True, False])
    with pytest.raises(ValueError, match="expected frames for 2 env"):
        tracker.step(np.zeros((3, *MICRO_RES, 3), np.uint8), [0, 0], [False, False])
    with pytest.raises(ValueError, match="autoreset must be one of"):
        RewardTracker(fn, 2, autoreset="sometimes")


class NewestFeature(RewardFunction):
    """P = the newest frame's first feature: a score that is a view of the window cache, as the
    proximity reward's is (mineclip.perception.proximity)."""

    def score_windows(self, windows: torch.Tensor, lengths=None):
        p = windows[:, -1, 0]
        return p[:, None], p


def test_a_payload_keeps_what_its_step_said_after_later_steps_and_restarts(rm):
    tracker = RewardTracker(NewestFeature(rm, "chop a tree", NEG, mode="direct-naive"), 2, autoreset="same-step")
    _, payloads = play(tracker, [episodes([2, 2, 2], seed=4), episodes([3, 3], seed=5)], steps=5,
                       autoreset="same-step")
    for step in payloads:
        for i in range(2):
            info = step.payload(i)["mineclip"]
            assert info["logits"][0] == pytest.approx(info["prob"]) and info["reward"] == pytest.approx(info["prob"])
