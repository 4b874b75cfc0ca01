"""Frame-encoder throughput (frames/s) on this machine, and as a fraction of its float32 matmul rate.

    python bench/encode.py [--threads N] [--batch 16] [--seconds 5]

Measures, in one run: (1) a large float32 torch.mm (GFLOP/s, the machine's practical peak);
(2) `model.encode_frames` for the tiny and full-size configs. For the encoders the fraction is
achieved FLOP/s (forward FLOPs counted from the ViT's matmuls and patch embedding) over the mm rate.
"""

from __future__ import annotations

import argparse
import time

import torch

from mineclip.model import MineCLIP, get_config


def _timed(fn, seconds: float, min_iters: int = 2) -> float:
    """Seconds per call: one warm-up, then repeat until `seconds` have passed (at least `min_iters`)."""
    fn()
    n, start = 0, time.perf_counter()
    while n < min_iters or time.perf_counter() - start < seconds:
        fn()
        n += 1
    return (time.perf_counter() - start) / n


def matmul_gflops(size: int, seconds: float) -> float:
    a, b = torch.randn(size, size), torch.randn(size, size)
    return 2 * size**3 / _timed(lambda: torch.mm(a, b), seconds) / 1e9


def vit_flops_per_frame(model: MineCLIP) -> float:
    """Forward FLOPs (2 x multiply-adds) of the frame encoder for one frame."""
    v = model.config.vision
    h, w = v.resolution
    n = (h // v.patch_size) * (w // v.patch_size) + 1
    d, hidden = v.width, int(v.width * v.mlp_ratio)
    patch = (n - 1) * (3 * v.patch_size**2) * d
    per_block = n * (3 * d * d + d * d + 2 * d * hidden) + 2 * n * n * d  # qkv, out, mlp; scores, mix
    return 2.0 * (patch + v.layers * per_block + d * model.config.embed_dim)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", type=int, default=torch.get_num_threads())
    p.add_argument("--batch", type=int, default=16, help="frames per encode_frames call")
    p.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    p.add_argument("--mm-size", type=int, default=2048)
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)

    peak = matmul_gflops(args.mm_size, args.seconds)
    print(f"threads {args.threads}; float32 torch.mm {args.mm_size}x{args.mm_size}: {peak:.1f} GFLOP/s")
    video = torch.randint(0, 256, (1, args.batch, 3, 160, 256), dtype=torch.uint8)
    print(f"{'config':<14} {'frames/s':>9} {'GFLOP/frame':>12} {'GFLOP/s':>8} {'of mm':>6}")
    for name in ("tiny_avg", "mineclip_avg"):
        model = MineCLIP(get_config(name)).eval()
        with torch.inference_mode():
            per_call = _timed(lambda: model.encode_frames(video), args.seconds)
        fps = args.batch / per_call
        gflop = vit_flops_per_frame(model) / 1e9
        print(f"{name:<14} {fps:>9.1f} {gflop:>12.2f} {fps * gflop:>8.1f} {fps * gflop / peak:>6.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
