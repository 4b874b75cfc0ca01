"""Training the tiny model from clip shards: streaming (loader workers decode every epoch) against the
in-memory cache (decode once, then draw from RAM), on the same CPU, in one run.

    python bench/stream.py                                   # runs/default's training shards
    python bench/stream.py --shards DIR --steps 40 --workers 2

Both train the same model (tiny, AdamW, the crafter data settings: 8 frames, no crop) for --steps
steps after a warm-up; filling the cache with every clip of the shards is timed on its own
(the default's 6,000 clips take ~6 GB of RAM). The projection applies the measured rates to the built-in default's run (6,000
clips, 791 steps of 32): cached = decoding 6,000 clips once + 791 cached steps; streamed = 791
streamed steps. On a machine whose cores the loader workers share with the training step, a
streamed step is slower than a cached one even when the loader alone is far faster than the step.
"""

from __future__ import annotations

import argparse
import os
import time

import torch

from mineclip.allocator import keep_freed_memory
from mineclip.data.cache import CachedClips
from mineclip.data.reader import ClipDataset, make_loader
from mineclip.model import build_model
from mineclip.train.loss import ContrastiveLoss

DEFAULT_CLIPS, DEFAULT_STEPS = 6000, 791  # the built-in default (mineclip/configs/pipeline/default.yaml)


def steps_per_s(batches, steps: int, warmup: int = 2) -> float:
    """Steps/s of the tiny model's training step on batches drawn from `batches`."""
    torch.manual_seed(0)
    model = build_model("tiny").train()
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
    loss_fn = ContrastiveLoss()
    it = iter(batches)
    for i in range(warmup + steps):
        if i == warmup:
            t0 = time.perf_counter()
        b = next(it)
        v, t = model.embed_pair(model.encode_video(b["video"]), model.encode_text(b["tokens"]))
        loss = loss_fn(v, t, model.logit_scale.clamp(max=model.config.logit_scale_max), b["tokens"])["loss"]
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    return steps / (time.perf_counter() - t0)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--shards", default="runs/default/shards/train", help="shard folder or pattern")
    p.add_argument("--steps", type=int, default=30, help="timed training steps per variant")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--frames", type=int, default=8)
    p.add_argument("--workers", type=int, default=2, help="loader worker processes (streaming and cache filling)")
    args = p.parse_args()
    keep_freed_memory()  # as train.py does
    settings = dict(num_frames=args.frames, resolution=(160, 256))
    threads = torch.get_num_threads()

    t0 = time.perf_counter()
    cache = CachedClips([args.shards], batch_size=args.batch, epoch_length=10**9, crop_scale=(1.0, 1.0),
                        workers=args.workers, **settings)
    fill = time.perf_counter() - t0
    clips = sum(len(c) for c in cache.clips)
    cached = steps_per_s(iter(cache), args.steps)

    stream = ClipDataset(args.shards, batch_size=args.batch, epoch_length=10**9, crop_scale=(1.0, 1.0),
                         shuffle_buffer=256, **settings)
    streamed = steps_per_s(make_loader(stream, num_workers=args.workers), args.steps)

    per_clip = fill / clips
    proj_cached = DEFAULT_CLIPS * per_clip + DEFAULT_STEPS / cached
    proj_streamed = DEFAULT_STEPS / streamed
    print(f"shards {args.shards}; batch {args.batch} x {args.frames} frames; {args.workers} loader workers; "
          f"torch threads {threads}; cpu cores {os.cpu_count()}")
    print(f"cache fill      : {clips} clips in {fill:.1f} s = {1 / per_clip:.1f} clips/s")
    print(f"cached training : {cached:.3f} steps/s")
    print(f"streamed        : {streamed:.3f} steps/s = {streamed / cached:.2f}x the cached step")
    print(f"the default's training ({DEFAULT_CLIPS:,} clips, {DEFAULT_STEPS} steps): cached {proj_cached:.0f} s "
          f"(fill {DEFAULT_CLIPS * per_clip:.0f} s), streamed {proj_streamed:.0f} s: "
          f"{'keep the cache' if proj_cached < proj_streamed else 'stream'}")


if __name__ == "__main__":
    main()
