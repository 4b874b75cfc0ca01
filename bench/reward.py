"""Cost of the MineCLIP reward per environment step: cached streaming vs re-encoding the whole window.

    python bench/reward.py [--models tiny,mineclip_attn] [--envs 1,8] [--steps 6] [--threads 2]

cached:   RewardStream.step -- encodes the N newest frames (one forward), reuses the previous
          window-1 frame features, runs the temporal aggregator + scoring.
uncached: encode_video on the full 16-frame window of each of the N envs every step, then scoring.
Random weights (timings do not depend on them); frames 160x256 RGB.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np
import torch

from mineclip.model import build_model
from mineclip.reward import RewardModel

NEG = ["drink water from the lake", "hunt a cow", "place a crafting table", "find a sandy beach"]


def bench(name: str, envs: int, steps: int, window: int = 16) -> dict:
    torch.manual_seed(0)
    model = build_model(name).eval()
    h, w = model.config.vision.resolution
    rm = RewardModel(model, window=window)
    fn = rm.reward_fn("chop a tree", NEG)
    rng = np.random.default_rng(0)
    frames = rng.integers(0, 256, (steps + window + 1, envs, h, w, 3), dtype=np.uint8)

    stream = fn.stream(envs)
    stream.reset(frames[0])
    stream.step(frames[1])  # warm-up
    t0 = time.perf_counter()
    for t in range(steps):
        stream.step(frames[2 + t])
    cached = (time.perf_counter() - t0) / steps

    video = torch.from_numpy(frames).permute(1, 0, 4, 2, 3)  # [N, T, 3, H, W]
    with torch.inference_mode():
        model.score(model.encode_video(video[:, :window]), fn.text_features)  # warm-up
        t0 = time.perf_counter()
        for t in range(steps):
            win = video[:, t + 1 : t + 1 + window]
            model.score(model.encode_video(win), fn.text_features).softmax(-1)
        uncached = (time.perf_counter() - t0) / steps
    return {"model": name, "envs": envs, "cached_ms": 1e3 * cached, "uncached_ms": 1e3 * uncached,
            "speedup": uncached / cached}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", default="tiny,mineclip_attn")
    p.add_argument("--envs", default="1,8")
    p.add_argument("--steps", type=int, default=6, help="timed steps per measurement (full model: a third)")
    p.add_argument("--threads", type=int, default=1, help="torch threads (1: stable timings on a shared machine)")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    print(f"torch {torch.__version__}, {args.threads} thread(s), {platform.processor() or platform.machine()}")
    print(f"{'model':<14} {'envs':>4} {'cached ms/step':>15} {'ms/env-step':>12} {'uncached ms/step':>17} "
          f"{'ms/env-step':>12} {'speed-up':>9}")
    for name in args.models.split(","):
        for n in (int(e) for e in args.envs.split(",")):
            steps = args.steps if name.startswith("tiny") else max(2, args.steps // 3)
            r = bench(name, n, steps)
            print(f"{name:<14} {n:>4} {r['cached_ms']:>15.1f} {r['cached_ms'] / n:>12.1f} {r['uncached_ms']:>17.1f} "
                  f"{r['uncached_ms'] / n:>12.1f} {r['speedup']:>8.1f}x", flush=True)


if __name__ == "__main__":
    main()
