"""Training steps/s of the tiny model with the towers' layers of `mineclip.model.layers` (QuickGELU as
silu with a one-pass backward, self-attention on views of the packed in-projection) vs the same model
with open_clip's QuickGELU and torch's `nn.MultiheadAttention` forward, in one run.

    python bench/layers.py                          # the default's step: 32 clips x 8 frames, 3 rounds
    python bench/layers.py --steps 8 --rounds 5 --batch 32 --frames 8

Both models have the same weights (one is a copy of the other with the classes swapped back) and
take the same batches in a plain loop (model, loss, AdamW, schedule, clipping); each round times
one and then the other, and the ratio is the median of the rounds' ratios, so a machine that slows
down for a while moves both sides. It also prints the largest difference of their first losses.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time

import torch
from open_clip.transformer import QuickGELU as OpenClipQuickGELU
from torch import nn

from mineclip.allocator import keep_freed_memory
from mineclip.model.layers import QuickGELU, SelfAttention
from mineclip.train.loss import ContrastiveLoss
from mineclip.train.module import MineCLIPModule
from mineclip.train.optim import build_optimizer, build_scheduler
from train import make_batches, plain_step


def with_torchs_layers(model: nn.Module) -> nn.Module:
    """A copy of `model` whose layers are open_clip's QuickGELU and torch's attention forward."""
    model = copy.deepcopy(model)
    for m in model.modules():
        if type(m) is SelfAttention:
            m.__class__ = nn.MultiheadAttention
        elif type(m) is QuickGELU:
            m.__class__ = OpenClipQuickGELU
    return model


class Loop:
    """bench/train.py's plain training loop over one model."""

    def __init__(self, module: MineCLIPModule, model: nn.Module, steps: int):
        self.model, self.loss_fn = model.train(), ContrastiveLoss()
        self.opt = build_optimizer(model, module.optim_settings)
        self.sched = build_scheduler(self.opt, steps, module.optim_settings)

    def step(self, batch: dict) -> float:
        return float(plain_step(self.model, self.loss_fn, self.opt, self.sched, batch, torch.device("cpu")))


def steps_per_s(loop: Loop, batches: list[dict], warmup: int) -> float:
    for b in batches[:warmup]:
        loop.step(b)
    t0 = time.perf_counter()
    for b in batches[warmup:]:
        loop.step(b)
    return (len(batches) - warmup) / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="tiny")
    ap.add_argument("--steps", type=int, default=8, help="timed steps per round and model")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--frames", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    keep_freed_memory()
    torch.manual_seed(0)
    module = MineCLIPModule(args.config)
    res = tuple(module.model.config.vision.resolution)
    batches = make_batches(args.steps + args.warmup, args.batch, args.frames, res)
    total = args.rounds * len(batches)
    ours = Loop(module, module.model, total)
    torchs = Loop(module, with_torchs_layers(module.model), total)
    first = [ours.step(batches[0]), torchs.step(batches[0])]
    print(f"{args.config}, {args.batch} clips x {args.frames} frames at {res[0]}x{res[1]}, "
          f"{torch.get_num_threads()} threads; first loss {first[0]:.7f} vs {first[1]:.7f} "
          f"(difference {abs(first[0] - first[1]):.1e})")
    ratios = []
    for r in range(args.rounds):
        a = steps_per_s(ours, batches, args.warmup)
        b = steps_per_s(torchs, batches, args.warmup)
        ratios.append(a / b)
        print(f"round {r + 1}: mineclip.model.layers {a:.3f} steps/s, open_clip/torch layers {b:.3f} steps/s, ratio {a / b:.3f}")
    print(f"ratio mineclip.model.layers / open_clip+torch layers (median of {args.rounds} rounds): "
          f"{statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
