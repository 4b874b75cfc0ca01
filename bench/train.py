"""Training steps/s of MineCLIPModule under the Lightning Trainer vs a plain PyTorch loop, same model,
batches and optimiser, in one run; and peak memory (RSS high-water mark, CUDA peak on GPU).

    python bench/train.py                 # tiny config, CPU, fp32
    python bench/train.py --steps 30 --batch 16 --frames 8
    python bench/train.py --steps 60 --warmup 5 --batch 32 --frames 8 --compile   # + compiled towers

Like train.py it keeps freed memory in the process (mineclip.allocator); MINECLIP_SYSTEM_MALLOC=1
keeps glibc's defaults (`python bench/malloc.py` compares the two).
"""

from __future__ import annotations

import argparse
import resource
import time

import pytorch_lightning as pl
import torch

from mineclip.allocator import keep_freed_memory
from mineclip.model import tokenize
from mineclip.train.data import ReplayBatches
from mineclip.train.loss import ContrastiveLoss
from mineclip.train.module import MineCLIPModule
from mineclip.train.optim import build_optimizer, build_scheduler

CAPTIONS = ["chop a tree", "drink water", "fight a zombie", "collect a sapling", "place a table", "eat a cow"]


def make_batches(n: int, batch: int, frames: int, resolution: tuple[int, int]) -> list[dict]:
    g = torch.Generator().manual_seed(0)
    out = []
    for i in range(n):
        texts = [CAPTIONS[(i + j) % len(CAPTIONS)] for j in range(batch)]
        out.append({"video": torch.randint(0, 256, (batch, frames, 3, *resolution), dtype=torch.uint8, generator=g),
                    "tokens": tokenize(texts), "text": texts, "meta": [{}] * batch, "skipped": {}})
    return out


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class _Timer(pl.Callback):
    def __init__(self, warmup: int):
        self.warmup, self.start, self.end = warmup, None, None

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        if batch_idx == self.warmup:
            self.start = time.perf_counter()

    def on_train_end(self, trainer, pl_module):
        self.end = time.perf_counter()


def lightning_steps_per_s(args, batches: list[dict], accelerator: str, compile: bool = False) -> float:
    """Steps/s of MineCLIPModule under pl.Trainer, timed after the warm-up steps (which, with
    `compile`, include the compilation)."""
    torch.manual_seed(0)
    module = MineCLIPModule(args.config, total_steps=len(batches), compile=compile)
    timer = _Timer(args.warmup)
    trainer = pl.Trainer(accelerator=accelerator, devices=1, precision=args.precision, max_steps=len(batches),
                         logger=False, enable_checkpointing=False, enable_progress_bar=False,
                         enable_model_summary=False, gradient_clip_val=1.0, callbacks=[timer],
                         num_sanity_val_steps=0, limit_val_batches=0)
    trainer.fit(module, train_dataloaders=ReplayBatches(batches))
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    return args.steps / (timer.end - timer.start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="tiny")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--frames", type=int, default=8)
    ap.add_argument("--precision", default="32-true")
    ap.add_argument("--compile", action="store_true",
                    help="also time the module with compiled towers (--model.compile; warm-up includes compiling)")
    args = ap.parse_args()
    kept = keep_freed_memory()  # as train.py does
    accelerator = "gpu" if torch.cuda.is_available() else "cpu"
    device = torch.device("cuda" if accelerator == "gpu" else "cpu")
    n = args.steps + args.warmup
    batches = make_batches(n, args.batch, args.frames, (160, 256))

    # Plain loop: the same module's model, loss, optimiser groups, schedule, clipping and clamp.
    torch.manual_seed(0)
    module = MineCLIPModule(args.config).to(device)
    model, loss_fn = module.model.train(), ContrastiveLoss()
    opt = build_optimizer(model, module.optim_settings)
    sched = build_scheduler(opt, n, module.optim_settings)
    dtype = torch.bfloat16 if args.precision.startswith("bf16") else None
    for i, b in enumerate(batches):
        if i == args.warmup:
            t0 = time.perf_counter()
        with torch.autocast(device.type, dtype=dtype, enabled=dtype is not None):
            v, t = model.embed_pair(model.encode_video(b["video"].to(device)), model.encode_text(b["tokens"].to(device)))
            loss = loss_fn(v, t, model.logit_scale.clamp(max=model.config.logit_scale_max), b["tokens"].to(device))["loss"]
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        opt.zero_grad(set_to_none=True)
        model.clamp_logit_scale()
    if device.type == "cuda":
        torch.cuda.synchronize()
    plain = args.steps / (time.perf_counter() - t0)
    plain_mem = torch.cuda.max_memory_allocated() / 2**20 if device.type == "cuda" else rss_mb()
    del module, model, opt
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats()

    lightning = lightning_steps_per_s(args, batches, accelerator)
    lightning_mem = torch.cuda.max_memory_allocated() / 2**20 if device.type == "cuda" else rss_mb()
    compiled = lightning_steps_per_s(args, batches, accelerator, compile=True) if args.compile else None

    mem = "CUDA peak allocated" if device.type == "cuda" else "process peak RSS (cumulative high-water mark)"
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    print(f"config={args.config} batch={args.batch} frames={args.frames} precision={args.precision} device={device} "
          f"threads={torch.get_num_threads()} malloc={'keep freed memory' if kept else 'system'}")
    print(f"process CPU time: user {cpu.ru_utime:.1f} s, system {cpu.ru_stime:.1f} s")
    print(f"plain PyTorch loop : {plain:.3f} steps/s ({plain * args.batch:.1f} samples/s), {mem} {plain_mem:.0f} MiB")
    print(f"Lightning Trainer  : {lightning:.3f} steps/s ({lightning * args.batch:.1f} samples/s), {mem} {lightning_mem:.0f} MiB")
    print(f"ratio Lightning / plain: {lightning / plain:.3f}")
    if compiled is not None:
        print(f"Lightning, compiled towers (--model.compile): {compiled:.3f} steps/s "
              f"({compiled * args.batch:.1f} samples/s); ratio compiled / not compiled: {compiled / lightning:.3f}")


if __name__ == "__main__":
    main()
