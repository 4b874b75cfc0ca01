"""The precision setting (mineclip.model.precision) and the bf16 reward against the float32 one."""

import numpy as np
import pytest
import torch

from helpers.models import MICRO_RES, make_micro

from mineclip.model import precision as prec
from mineclip.reward import RewardModel

NEG = ["drink water", "hunt a cow", "place a table"]


def frames(n, seed=0):
    return np.random.default_rng(seed).integers(0, 256, (n, *MICRO_RES, 3), dtype=np.uint8)


def test_precision_setting_argument_environment_and_auto(monkeypatch):
    monkeypatch.delenv(prec.ENV_VAR, raising=False)
    monkeypatch.setattr(prec, "bf16_supported", lambda device="cpu": True)
    assert prec.resolve_precision() == "bf16" and prec.resolve_dtype("auto") == torch.bfloat16
    assert prec.resolve_precision("float32") == "fp32" and prec.resolve_precision("BF16") == "bf16"
    monkeypatch.setenv(prec.ENV_VAR, "fp32")
    assert prec.resolve_precision() == "fp32"  # the environment when no argument is given
    assert prec.resolve_precision("bf16") == "bf16"  # an argument wins
    monkeypatch.setattr(prec, "bf16_supported", lambda device="cpu": False)
    monkeypatch.setenv(prec.ENV_VAR, "auto")
    assert prec.resolve_precision() == "fp32"  # the fallback where bf16 is not native
    monkeypatch.setenv(prec.ENV_VAR, "half")
    with pytest.raises(ValueError, match="MINECLIP_PRECISION"):
        prec.resolve_precision()
    with pytest.raises(ValueError, match="precision must be one of"):
        RewardModel(make_micro(), precision="fp16")


def test_reward_model_resolves_its_precision_once_and_describes_it(monkeypatch):
    monkeypatch.setenv(prec.ENV_VAR, "fp32")
    rm = RewardModel(make_micro())
    assert (rm.precision, rm.dtype) == ("fp32", torch.float32)
    assert rm.reward_fn("chop a tree", NEG).describe()["precision"] == "fp32"
    assert RewardModel(make_micro(), precision="bf16").dtype == torch.bfloat16


@pytest.mark.parametrize("seed", [0, 1])
def test_bf16_rewards_stay_close_to_float32_and_are_float32(seed):
    model, video = make_micro(seed=seed), frames(12, seed)
    fns = {p: RewardModel(model, window=4, precision=p).reward_fn("chop a tree", NEG, mode="direct-naive")
           for p in ("fp32", "bf16")}
    traj = {p: fn.trajectory(video) for p, fn in fns.items()}
    assert traj["bf16"].prob.dtype == np.float32 and traj["bf16"].reward.dtype == np.float32
    # measured on micro models: |dP| <= 2.4e-3, |d logits| <= 0.03 (1% of their range)
    assert np.abs(traj["bf16"].prob - traj["fp32"].prob).max() < 1e-2
    assert np.abs(traj["bf16"].logits - traj["fp32"].logits).max() < 0.1
    s = fns["bf16"].stream(1)
    outs = [s.reset(video[:1])] + [s.step(video[i : i + 1]) for i in range(1, len(video))]
    assert all(o.prob.dtype == torch.float32 and o.reward.dtype == torch.float32 for o in outs)
    # cached and batch at the same precision encode each frame the same way
    assert np.abs(np.array([float(o.prob[0]) for o in outs]) - traj["bf16"].prob).max() < 1e-5
