"""The machine a measurement ran on (pipeline stages and RL runs record it beside their seconds), and
the worker processes that share it (RL runs, pipeline seeds)."""

from __future__ import annotations

import os
import time


def host_info() -> dict:
    """What a measurement's seconds depend on: cores, the CPU's vector instructions (torch's capability,
    e.g. AVX2 or AVX512: this project's 2-core machines took 0.63 s a default training step on an
    AVX-512 BF16 host and 1.06-1.15 s on an AVX2 one, README) and whether bfloat16 is native (the
    reward library's precision="auto") and torch's version."""
    import platform

    import torch

    from mineclip.model.precision import bf16_supported

    return {"cores": os.cpu_count(), "cpu": platform.processor() or platform.machine(),
            "cpu_capability": torch.backends.cpu.get_cpu_capability(), "bf16_native": bf16_supported("cpu"),
            "torch": torch.__version__}


def die_with_parent(parent: int, every: float = 2.0) -> None:
    """Worker initializer: exit when the process that started the pool is gone (killed, or ended
    without shutting the pool down), instead of training on for an hour as an orphan."""
    import threading

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="die-with-parent").start()
