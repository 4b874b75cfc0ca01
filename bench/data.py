"""Video backends and the clip loader: clips/s of a plain decode loop through each video backend that
loads here (PyAV, TorchCodec, decord), of the training loader (also per worker, against a plain loop
of the decoder it uses), and of the tiny model's step.

    python bench/data.py                      # synthetic shards (64 clips, 16 frames, 160x256 mp4)
    python bench/data.py --shards DIR --clips 256 --workers 2 --batch-size 16
    python bench/data.py --crop-scale 1 1     # the built-in crafter data's setting: no crop, no resize

Every number is measured in one run on the same clips; the ratios are what to compare.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mineclip.data.decoders import BACKENDS, READERS, backend_loads, choose_backend  # noqa: E402
from mineclip.data.reader import ClipDataset, SkipCounter, expand_urls, make_loader, shard_samples  # noqa: E402
from mineclip.data.shards import ClipShardWriter  # noqa: E402
from mineclip.data.video import uniform_indices  # noqa: E402


def synthetic_shards(out: Path, clips: int, num_frames: int, size: tuple[int, int]) -> str:
    rng = np.random.default_rng(0)
    h, w = size
    with ClipShardWriter(out, encoding="mp4", fps=2, max_shard_samples=16) as writer:
        for i in range(clips):
            base = rng.integers(0, 255, (h // 8, w // 8, 3), dtype=np.uint8).repeat(8, 0).repeat(8, 1)
            frames = np.stack([np.roll(base, 4 * t, axis=1) for t in range(num_frames)])
            frames = (frames.astype(np.int16) + rng.integers(-8, 8, frames.shape)).clip(0, 255).astype(np.uint8)
            writer.write(frames, f"clip {i}: mine some iron ore with a stone pickaxe", {"id": f"bench{i}"})
    return str(out)


def bench_backend(backend: str, payloads: list[bytes], num_frames: int, rounds: int = 2) -> float:
    """Clips/s of opening each clip and decoding `num_frames` of it with one backend (best of `rounds`)."""
    reader = READERS[backend]
    best = 0.0
    for _ in range(rounds):
        start = time.perf_counter()
        for payload in payloads:
            r = reader(payload)
            r.frames(uniform_indices(len(r), num_frames))
        best = max(best, len(payloads) / (time.perf_counter() - start))
    return best


def bench_loader(shards: str, clips: int, batch_size: int, workers: int, num_frames: int,
                 crop_scale: tuple[float, float]) -> float:
    ds = ClipDataset(shards, batch_size=batch_size, num_frames=num_frames, epoch_length=clips + batch_size * workers,
                     shuffle_buffer=64, crop_scale=crop_scale)
    loader = make_loader(ds, num_workers=workers)
    it = iter(loader)
    for _ in range(workers):  # warm-up: worker start and first batch of each worker
        next(it)
    start, n = time.perf_counter(), 0
    for batch in it:
        n += len(batch["text"])
    return n / (time.perf_counter() - start)


def bench_train_step(batch_size: int, num_frames: int, steps: int) -> float | None:
    try:
        from mineclip.model import build_model, tokenize
    except ImportError:
        return None
    model = build_model("tiny").train()
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
    video = torch.randint(0, 256, (batch_size, num_frames, 3, 160, 256), dtype=torch.uint8)
    tokens = tokenize([f"clip {i}: mine some iron ore" for i in range(batch_size)])
    target = torch.arange(batch_size)

    def step():
        logits = model(video, tokens)
        loss = (torch.nn.functional.cross_entropy(logits, target) + torch.nn.functional.cross_entropy(logits.t(), target)) / 2
        opt.zero_grad()
        loss.backward()
        opt.step()

    step()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    return steps * batch_size / (time.perf_counter() - start)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shards", help="shard folder or pattern (default: make synthetic ones)")
    p.add_argument("--clips", type=int, default=64, help="clips of the synthetic shards")
    p.add_argument("--num-frames", type=int, default=16, help="frames decoded per clip")
    p.add_argument("--batch-size", type=int, default=16, help="batch of the loader and of the training step")
    p.add_argument("--workers", type=int, default=2, help="loader worker processes")
    p.add_argument("--steps", type=int, default=3, help="timed training steps")
    p.add_argument("--crop-scale", type=float, nargs=2, default=(0.8, 1.0), metavar=("MIN", "MAX"),
                   help="the loader's random resized crop (default: the paper's 0.8 1.0; the built-in crafter "
                        "data trains with 1 1, no crop and no resize)")
    args = p.parse_args()
    torch.set_num_threads(max(1, (os.cpu_count() or 2) // 2))
    with tempfile.TemporaryDirectory() as tmp:
        shards = args.shards or synthetic_shards(Path(tmp), args.clips, args.num_frames, (160, 256))
        urls = expand_urls(shards)
        payloads = [s["mp4"] for s in shard_samples(iter(urls), SkipCounter())]  # bytes in memory, like the loader
        rates = {b: bench_backend(b, payloads, args.num_frames) for b in BACKENDS if backend_loads(b) is None}
        loader_rate = bench_loader(shards, args.clips, args.batch_size, args.workers, args.num_frames,
                                   tuple(args.crop_scale))
    step_rate = bench_train_step(args.batch_size, args.num_frames, args.steps)
    plain = rates["pyav"]
    for b in BACKENDS:
        why = backend_loads(b)
        line = f"{rates[b]:8.1f} clips/s = {rates[b] / plain:4.2f}x PyAV" if b in rates else f"not here ({why})"
        print(f"{b + ' decode loop (1 process)':<36} {line}")
    chosen = choose_backend()
    per_worker = loader_rate / args.workers / rates[chosen]
    print(f"{'training loader':<36} {loader_rate:8.1f} clips/s = {loader_rate / plain:4.2f}x the PyAV loop "
          f"({args.workers} workers, decode with {chosen} + crop {args.crop_scale[0]:g}-{args.crop_scale[1]:g} + tokenise + batch); per worker "
          f"{loader_rate / args.workers:.1f} clips/s = {per_worker:4.2f}x the {chosen} loop")
    if step_rate is not None:
        print(f"{'tiny model train step':<36} {step_rate:8.1f} clips/s (fwd+bwd, B={args.batch_size}, "
              f"T={args.num_frames}); loader / step = {loader_rate / step_rate:4.2f}x (>1: the loader keeps up)")
    print(f"{len(payloads)} clips; cpu cores: {os.cpu_count()}, torch threads: {torch.get_num_threads()}")


if __name__ == "__main__":
    main()
