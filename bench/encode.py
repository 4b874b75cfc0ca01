"""Frame-encoder throughput (frames/s) on this machine, in float32 and bfloat16, as a fraction of the
matrix-multiply rate of the same precision.

    python bench/encode.py [--threads N] [--batch 16] [--seconds 3] [--rounds 3]

Measures, in one run and interleaved (every measurement once per round; the median round is
printed): (1) a large torch.mm in float32 and in bfloat16 (GFLOP/s, the machine's practical peak of
each); (2) the frame encoder of the tiny and the full-size configs, `MineCLIP.encode_images` at
inference (the fused forward of mineclip.model.fused) on uint8 frames laid out as environments and
video decoders give them ([N, H, W, 3]), in float32 and in bfloat16 (what precision "auto" picks
where the CPU has AVX-512 BF16 or AMX); and, for reference, the open_clip module forward in float32
(`model.vision` on normalised frames, the inference path before the fused one). For the encoders
the fraction is achieved FLOP/s (forward FLOPs counted from the ViT's matmuls and patch embedding)
over the mm rate of the same precision; "vs fp32" is the throughput over the float32 encoder's.
"""

from __future__ import annotations

import argparse
import statistics
import time
from datetime import date

import torch

from mineclip.model import MineCLIP, get_config
from mineclip.model.precision import bf16_supported


def _timed(fn, seconds: float, min_iters: int = 2) -> float:
    """Seconds per call: one warm-up, then repeat until `seconds` have passed (at least `min_iters`)."""
    fn()
    n, start = 0, time.perf_counter()
    while n < min_iters or time.perf_counter() - start < seconds:
        fn()
        n += 1
    return (time.perf_counter() - start) / n


def vit_flops_per_frame(model: MineCLIP) -> float:
    """Forward FLOPs (2 x multiply-adds) of the frame encoder for one frame."""
    v = model.config.vision
    h, w = v.resolution
    n = (h // v.patch_size) * (w // v.patch_size) + 1
    d, hidden = v.width, int(v.width * v.mlp_ratio)
    patch = (n - 1) * (3 * v.patch_size**2) * d
    per_block = n * (3 * d * d + d * d + 2 * d * hidden) + 2 * n * n * d  # qkv, out, mlp; scores, mix
    return 2.0 * (patch + v.layers * per_block + d * model.config.embed_dim)


def module_forward(model: MineCLIP, frames: torch.Tensor) -> torch.Tensor:
    """The open_clip module forward on normalised frames (the inference path before the fused one)."""
    x = frames.to(torch.float32).sub_(model.image_mean * 255.0).mul_(1.0 / (model.image_std * 255.0))
    return model.vision(x)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", type=int, default=torch.get_num_threads())
    p.add_argument("--batch", type=int, default=16, help="frames per encode call")
    p.add_argument("--seconds", type=float, default=3.0, help="time per measurement and round")
    p.add_argument("--rounds", type=int, default=3, help="rounds of every measurement (the median is printed)")
    p.add_argument("--mm-size", type=int, default=2048)
    p.add_argument("--configs", default="tiny_avg,mineclip_avg")
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)

    s = args.mm_size
    mats = {dt: (torch.randn(s, s).to(dt), torch.randn(s, s).to(dt)) for dt in (torch.float32, torch.bfloat16)}
    hwc = torch.randint(0, 256, (args.batch, 160, 256, 3), dtype=torch.uint8)
    frames = hwc.permute(0, 3, 1, 2)  # [N, 3, H, W] view of [N, H, W, 3] memory
    models = {name: MineCLIP(get_config(name)).eval() for name in args.configs.split(",")}
    jobs = {f"mm {dt}": (lambda a=a, b=b: torch.mm(a, b)) for dt, (a, b) in mats.items()}
    for name, model in models.items():
        jobs[f"{name} fp32 module"] = lambda m=model: module_forward(m, frames)
        for dt in ("fp32", "bf16"):
            dtype = torch.float32 if dt == "fp32" else torch.bfloat16
            jobs[f"{name} {dt}"] = lambda m=model, d=dtype: m.encode_images(frames, d)
    samples: dict[str, list[float]] = {k: [] for k in jobs}
    with torch.inference_mode():
        for _ in range(args.rounds):
            for k, fn in jobs.items():
                samples[k].append(_timed(fn, args.seconds))
    sec = {k: statistics.median(v) for k, v in samples.items()}

    peak = {dt: 2 * s**3 / sec[f"mm {d}"] / 1e9 for dt, d in (("fp32", torch.float32), ("bf16", torch.bfloat16))}
    print(f"{date.today()}: threads {args.threads}, batch {args.batch}, {args.rounds} rounds of {args.seconds:g} s, "
          f"CPU capability {torch.backends.cpu.get_cpu_capability()}, native bf16: {bf16_supported('cpu')}")
    print(f"torch.mm {s}x{s}: float32 {peak['fp32']:.1f} GFLOP/s, bfloat16 {peak['bf16']:.1f} GFLOP/s "
          f"({peak['bf16'] / peak['fp32']:.2f}x)")
    print(f"{'config':<14} {'precision':<12} {'frames/s':>9} {'GFLOP/frame':>12} {'GFLOP/s':>8} {'of mm':>6} "
          f"{'vs fp32':>8}")
    for name, model in models.items():
        gflop = vit_flops_per_frame(model) / 1e9
        fp32_fps = args.batch / sec[f"{name} fp32"]
        for dt, label in (("fp32", "fp32 module"), ("fp32", "fp32"), ("bf16", "bf16")):
            fps = args.batch / sec[f"{name} {label}"]
            print(f"{name:<14} {label:<12} {fps:>9.1f} {gflop:>12.2f} {fps * gflop:>8.1f} "
                  f"{fps * gflop / peak[dt]:>6.1%} {fps / fp32_fps:>7.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
