"""Training steps/s of MineCLIPModule under the Lightning Trainer vs a plain PyTorch loop, same model,
batches and optimiser, in one run; per precision (float32, bf16-mixed) and peak memory (RSS
high-water mark, CUDA peak on GPU), and the model FLOPs utilisation (MFU: the step's counted FLOPs x
steps/s over a peak): on GPUs whose peak Lightning knows, the card's dense peak for the precision;
on a CPU, the matrix-multiply throughput measured in the same run (large square matmuls in the
precision's dtype on all the threads torch uses), so the fraction says how much room the step
leaves on this machine, not on a datasheet.

    python bench/train.py                 # tiny config, CPU, fp32, 3 interleaved rounds
    python bench/train.py --steps 30 --batch 32 --frames 8 --precision 32-true,bf16-mixed
    python bench/train.py --steps 60 --warmup 5 --batch 32 --frames 8 --compile   # + compiled towers
    python bench/train.py --config mineclip_attn --trainable-blocks -1 --batch 16 --frames 16 \
        --precision 32-true,bf16-mixed --rounds 2   # the large preset's model, on a GPU: + MFU
    python bench/train.py --deepspeed ...        # + Lightning with DeepSpeed ZeRO-2 (mineclip.train.strategies)

Each round times the plain loop and then the Lightning Trainer on the same batches; the ratios are
the medians of the rounds' ratios, so a machine that slows down for a while moves both sides.

Like train.py it keeps freed memory in the process (mineclip.allocator); MINECLIP_SYSTEM_MALLOC=1
keeps glibc's defaults (`python bench/malloc.py` compares the two).
"""

from __future__ import annotations

import argparse
import functools
import resource
import statistics
import time
from functools import partial

import pytorch_lightning as pl
import torch

from mineclip.allocator import keep_freed_memory
from mineclip.model import tokenize
from mineclip.train.data import ReplayBatches
from mineclip.train.loss import ContrastiveLoss
from mineclip.train.module import MineCLIPModule
from mineclip.train.optim import build_optimizer, build_scheduler
from mineclip.train.strategies import DeepSpeedStrategy

CAPTIONS = ["chop a tree", "drink water", "fight a zombie", "collect a sapling", "place a table", "eat a cow"]


def make_batches(n: int, batch: int, frames: int, resolution: tuple[int, int]) -> list[dict]:
    g = torch.Generator().manual_seed(0)
    out = []
    for i in range(n):
        texts = [CAPTIONS[(i + j) % len(CAPTIONS)] for j in range(batch)]
        out.append({"video": torch.randint(0, 256, (batch, frames, 3, *resolution), dtype=torch.uint8, generator=g),
                    "tokens": tokenize(texts), "text": texts, "meta": [{}] * batch, "skipped": {}})
    return out


def overrides(args) -> dict:
    return {} if args.trainable_blocks is None else {"trainable_blocks": args.trainable_blocks}


def print_mfu(args, rates: dict, batches: list[dict], device: torch.device) -> None:
    """Counted FLOPs per step (forward, logits, backward of what trains) x steps/s, and MFU."""
    from lightning_fabric.utilities.throughput import get_available_flops

    from mineclip.model import get_config
    from mineclip.train.module import count_step_flops

    flops = count_step_flops(get_config(args.config, **overrides(args)), args.batch, args.frames,
                             batches[0]["tokens"].shape[1])
    print(f"FLOPs per training step: {flops / 1e9:.1f} GFLOP")
    for (name, precision), v in rates.items():
        dtype = torch.bfloat16 if precision.startswith("bf16") else torch.float32
        if device.type == "cuda":
            peak, of = get_available_flops(device, dtype) or _hopper_peak(device, dtype), "the card's peak"
        else:
            peak, of = cpu_matmul_flops(dtype), "this CPU's measured matmul"
        achieved = flops * statistics.median(v)
        mfu = f", MFU {100 * achieved / peak:.1f}% of {peak / 1e12:.2f} TFLOP/s ({of})" if peak else ""
        print(f"{name:<28} {precision:<11}: {achieved / 1e12:.2f} TFLOP/s{mfu}")


@functools.cache
def cpu_matmul_flops(dtype: torch.dtype, n: int = 2048, seconds: float = 3.0) -> float:
    """FLOP/s of n x n matmuls in `dtype` on this CPU (best of repeated timings over about `seconds`;
    measured once per dtype in a run, so every row of a precision is divided by the same peak)."""
    g = torch.Generator().manual_seed(0)
    a, b = (torch.randn(n, n, generator=g).to(dtype) for _ in range(2))
    torch.mm(a, b)  # warm-up (oneDNN picks its kernel)
    best, t_end = float("inf"), time.perf_counter() + seconds
    while time.perf_counter() < t_end:
        t0 = time.perf_counter()
        torch.mm(a, b)
        best = min(best, time.perf_counter() - t0)
    return 2 * n ** 3 / best


def _hopper_peak(device: torch.device, dtype: torch.dtype) -> float | None:
    """Dense peaks Lightning's table lacks: the H200 (SXM) has the H100 SXM's tensor cores and clocks
    (NVIDIA's datasheet: 989 TFLOP/s bf16, 67 TFLOP/s float32 without TF32)."""
    if "h200" not in torch.cuda.get_device_name(device).lower():
        return None
    return 989e12 if dtype == torch.bfloat16 else 67e12


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


def lightning_steps_per_s(args, batches: list[dict], accelerator: str, precision: str,
                          compile: bool = False, deepspeed: bool = False) -> float:
    """Steps/s of MineCLIPModule under pl.Trainer, timed after the warm-up steps (which, with
    `compile`, include the compilation); with `deepspeed`, under DeepSpeed ZeRO stage 2."""
    torch.manual_seed(0)
    module = MineCLIPModule(args.config, overrides(args), total_steps=len(batches), compile=compile)
    timer = _Timer(args.warmup)
    strategy = DeepSpeedStrategy(stage=2) if deepspeed else "auto"
    trainer = pl.Trainer(accelerator=accelerator, devices=1, strategy=strategy, precision=precision,
                         max_steps=len(batches),
                         logger=False, enable_checkpointing=False, enable_progress_bar=False,
                         enable_model_summary=False, gradient_clip_val=1.0, callbacks=[timer],
                         num_sanity_val_steps=0, limit_val_batches=0)
    trainer.fit(module, train_dataloaders=ReplayBatches(batches))
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    return args.steps / (timer.end - timer.start)


def plain_step(model, loss_fn, opt, sched, batch: dict, device: torch.device, dtype: torch.dtype | None = None
               ) -> torch.Tensor:
    """One step of the plain loop: loss (autocast to `dtype` when given), backward, clipping,
    AdamW, schedule, logit-scale clamp, as `MineCLIPModule` under Lightning. Returns the loss."""
    with torch.autocast(device.type, dtype=dtype, enabled=dtype is not None):
        tokens = batch["tokens"].to(device)
        v, t = model.embed_pair(model.encode_video(batch["video"].to(device)), model.encode_text(tokens))
        loss = loss_fn(v, t, model.logit_scale.clamp(max=model.config.logit_scale_max), tokens)["loss"]
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    opt.zero_grad(set_to_none=True)
    model.clamp_logit_scale()
    return loss.detach()


def plain_steps_per_s(args, batches: list[dict], device: torch.device, precision: str) -> float:
    """The same module's model, loss, optimiser groups, schedule, clipping and clamp in a plain loop
    (autocast to bfloat16 for a bf16-mixed precision, as Lightning does)."""
    torch.manual_seed(0)
    module = MineCLIPModule(args.config, overrides(args)).to(device)
    model, loss_fn = module.model.train(), ContrastiveLoss()
    opt = build_optimizer(model, module.optim_settings)
    sched = build_scheduler(opt, len(batches), module.optim_settings)
    dtype = torch.bfloat16 if precision.startswith("bf16") else None
    for i, b in enumerate(batches):
        if i == args.warmup:
            t0 = time.perf_counter()
        plain_step(model, loss_fn, opt, sched, b, device, dtype)
    if device.type == "cuda":
        torch.cuda.synchronize()
    return args.steps / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="tiny")
    ap.add_argument("--trainable-blocks", type=int, default=None,
                    help="blocks per tower that train (-1: all, as the large preset); default: the config's")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--frames", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds of (plain loop, Lightning)")
    ap.add_argument("--precision", default="32-true",
                    help="comma-separated Lightning precisions, e.g. 32-true,bf16-mixed (each in every round)")
    ap.add_argument("--compile", action="store_true",
                    help="also time the module with compiled towers (--model.compile; warm-up includes compiling)")
    ap.add_argument("--deepspeed", action="store_true",
                    help="also time the module under DeepSpeed ZeRO-2 (one process; on CPU over gloo)")
    args = ap.parse_args()
    kept = keep_freed_memory()  # as train.py does
    accelerator = "gpu" if torch.cuda.is_available() else "cpu"
    device = torch.device("cuda" if accelerator == "gpu" else "cpu")
    batches = make_batches(args.steps + args.warmup, args.batch, args.frames, (160, 256))
    precisions = args.precision.split(",")
    rates: dict[tuple[str, str], list[float]] = {}
    for r in range(args.rounds):
        for precision in precisions:
            variants = [("plain", partial(plain_steps_per_s, args, batches, device, precision)),
                        ("Lightning", partial(lightning_steps_per_s, args, batches, accelerator, precision))]
            if args.compile:
                variants.append(("Lightning, compiled towers",
                                 partial(lightning_steps_per_s, args, batches, accelerator, precision, compile=True)))
            if args.deepspeed:
                variants.append(("Lightning, DeepSpeed ZeRO-2",
                                 partial(lightning_steps_per_s, args, batches, accelerator, precision, deepspeed=True)))
            for name, run in variants:
                rates.setdefault((name, precision), []).append(run())
                if device.type == "cuda":
                    torch.cuda.empty_cache()
        print(f"round {r + 1}/{args.rounds}: " + ", ".join(f"{n} {p} {v[-1]:.3f}" for (n, p), v in rates.items()),
              flush=True)

    mem = (f"CUDA peak allocated {torch.cuda.max_memory_allocated() / 2**20:.0f} MiB" if device.type == "cuda"
           else f"process peak RSS {rss_mb():.0f} MiB")
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    print(f"config={args.config} batch={args.batch} frames={args.frames} device={device} "
          f"threads={torch.get_num_threads()} malloc={'keep freed memory' if kept else 'system'} rounds={args.rounds}")
    print(f"process CPU time: user {cpu.ru_utime:.1f} s, system {cpu.ru_stime:.1f} s; {mem}")

    def ratio(a, b):  # median over rounds of the per-round ratio
        return statistics.median(x / y for x, y in zip(rates[a], rates[b]))

    for (name, precision), v in rates.items():
        print(f"{name:<28} {precision:<11}: {statistics.median(v):.3f} steps/s "
              f"({statistics.median(v) * args.batch:.1f} samples/s), rounds {' '.join(f'{x:.3f}' for x in v)}")
    for precision in precisions:
        print(f"ratio Lightning / plain, {precision}: {ratio(('Lightning', precision), ('plain', precision)):.3f}")
        if args.compile:
            print(f"ratio compiled / not compiled, {precision}: "
                  f"{ratio(('Lightning, compiled towers', precision), ('Lightning', precision)):.3f}")
        if args.deepspeed:
            print(f"ratio DeepSpeed ZeRO-2 / Lightning's default strategy, {precision}: "
                  f"{ratio(('Lightning, DeepSpeed ZeRO-2', precision), ('Lightning', precision)):.3f}")
    print_mfu(args, rates, batches, device)
    for precision in precisions[1:]:
        for name in ("plain", "Lightning"):
            print(f"ratio {precision} / {precisions[0]}, {name}: "
                  f"{ratio((name, precision), (name, precisions[0])):.3f}")


if __name__ == "__main__":
    main()
