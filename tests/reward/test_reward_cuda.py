"""The reward library, its gymnasium wrapper and the Percipient's head on a CUDA device give what they
give on the CPU (skipped without a GPU; run on the H200 lent on 2026-11-26, docs/benchmarks.md)."""

import copy

import gymnasium as gym
import numpy as np
import pytest
import torch
from helpers.models import MICRO_RES, make_micro

from mineclip.reward import MineCLIPReward, RewardModel

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")

NEG = ["drink water", "hunt a cow", "place a table"]


def frames(n, seed=0, size=MICRO_RES):
    return np.random.default_rng(seed).integers(0, 256, (n, *size, 3), dtype=np.uint8)


def on(device: str, model, **kwargs) -> RewardModel:
    return RewardModel(copy.deepcopy(model), window=4, device=device, **kwargs)


@pytest.mark.parametrize("mode", ["direct", "delta"])
def test_trajectory_and_stream_on_cuda_equal_the_cpu(mode):
    model, video = make_micro(), frames(10)
    cpu = on("cpu", model, precision="fp32").reward_fn("chop a tree", NEG, mode=mode)
    gpu = on("cuda", model, precision="fp32").reward_fn("chop a tree", NEG, mode=mode)
    ref, out = cpu.trajectory(video), gpu.trajectory(video)
    assert isinstance(out.reward, np.ndarray) and out.reward.dtype == np.float32
    np.testing.assert_allclose(out.prob, ref.prob, atol=1e-4)
    np.testing.assert_allclose(out.reward, ref.reward, atol=1e-4)
    s = gpu.stream(2)  # two envs, the second a frame behind
    first = s.reset(np.stack([video[0], video[0]]))
    assert first.reward.device.type == "cuda"
    steps = [s.step(np.stack([video[i], video[i - 1]])) for i in range(1, len(video))]
    np.testing.assert_allclose([float(o.prob[0]) for o in [first, *steps]], out.prob, atol=1e-5)


def test_bf16_on_cuda_stays_close_to_float32():
    model, video = make_micro(), frames(12, seed=1)
    fp32 = on("cuda", model, precision="fp32").reward_fn("chop a tree", NEG).trajectory(video)
    bf16_model = on("cuda", model, precision="auto")
    assert bf16_model.precision == "bf16"  # every GPU this runs on computes bf16 natively
    bf16 = bf16_model.reward_fn("chop a tree", NEG).trajectory(video)
    assert np.abs(bf16.prob - fp32.prob).max() < 1e-2


def test_gymnasium_wrapper_with_a_cuda_reward_model_on_the_task_suite():
    import mineclip.tasks  # noqa: F401  (registers the suite's environments)

    model = make_micro(resolution=(160, 256))
    fn = on("cuda", model).reward_fn("chop a tree", NEG)
    env = MineCLIPReward(gym.make("mineclip/harvest_wood-v0", max_steps=5), fn)
    env.reset(seed=0)
    for _ in range(5):
        _, r, term, trunc, info = env.step(env.action_space.sample())
        assert isinstance(r, float) and np.isfinite(r) and 0 <= info["mineclip"]["prob"] <= 1
        if term or trunc:
            break
    env.close()


def test_the_percipient_head_reads_cuda_tokens_like_cpu_ones(monkeypatch):
    from mineclip.perception.calibrate import collect_frames
    from mineclip.perception.conditions import Condition
    from mineclip.perception.head import fit_head, frame_tokens

    model = make_micro(resolution=(160, 256))
    cpu, gpu = on("cpu", model, precision="fp32"), on("cuda", model, precision="fp32")
    fit = collect_frames("perception", 8, per_episode=6, steps=18)
    head = fit_head(cpu, fit)
    x = np.stack([f.frame for f in fit[:6]])
    # cuDNN convolutions run in TF32 by default (the patch embedding): tokens within ~3e-3 of the
    # CPU's (seen on an H200); in full float32 they agree to 1e-4
    monkeypatch.setattr(torch.backends.cudnn, "allow_tf32", False)
    torch.testing.assert_close(frame_tokens(gpu, x).cpu(), frame_tokens(cpu, x).cpu(), atol=1e-4, rtol=1e-4)
    conds = [Condition("terrain", "water", (("in_view", 1),)), Condition("time", "night", (("time", "night"),))]
    np.testing.assert_allclose(head.probs(gpu, x, conds), head.probs(cpu, x, conds), atol=1e-4)
