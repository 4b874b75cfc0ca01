"""glibc malloc settings for CPU work: keep freed memory in the process instead of returning it.

PyTorch on the CPU allocates and frees activation-sized buffers (megabytes to tens of megabytes)
in every training step. glibc serves blocks above its mmap threshold with a fresh `mmap` and gives
them back with `munmap` when freed, so every step faults in and zeroes new pages: training the tiny
model on a 2-core CPU spent about 18% of its CPU time in the kernel doing that. With mmap off for
allocations and no trimming of the heap's top, freed blocks are reused by the next step instead
(the idea behind jemalloc/tcmalloc in PyTorch's CPU tuning guides, with the allocator every Linux
Python already has). Measured with `python bench/malloc.py`: about 1.2x the training steps per
second, for a peak RSS about 3% higher (the default pipeline's training process: 8.0 instead of
7.2 GB, most of it the decoded clip cache).

`keep_freed_memory()` is called by `train.py` and `eval.py`; set MINECLIP_SYSTEM_MALLOC=1 to keep
glibc's defaults (e.g. to compare, or where several processes share little memory).
"""

from __future__ import annotations

import ctypes
import os
import sys

OPT_OUT = "MINECLIP_SYSTEM_MALLOC"
# mallopt parameters (malloc.h)
M_TRIM_THRESHOLD = -1
M_TOP_PAD = -2
M_MMAP_MAX = -4

TRIM_THRESHOLD = 2**31 - 1  # the largest value mallopt takes: in practice, never trim
TOP_PAD = 1 << 30  # grow the heap in steps of up to 1 GiB (address space; pages are touched on use)

_applied: bool | None = None


def keep_freed_memory() -> bool:
    """Tell glibc malloc to serve every block from the heap and never give freed memory back.
    Returns True when the settings are in force in this process (from now on, and in processes
    forked from it); False off Linux/glibc or when MINECLIP_SYSTEM_MALLOC=1. Safe to call again."""
    global _applied
    if _applied is not None:
        return _applied
    if os.environ.get(OPT_OUT, "") == "1" or not sys.platform.startswith("linux"):
        _applied = False
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
        mallopt = libc.mallopt  # glibc only (musl has none)
    except (OSError, AttributeError):
        _applied = False
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    _applied = all(mallopt(param, value) == 1 for param, value in (
        (M_MMAP_MAX, 0), (M_TRIM_THRESHOLD, TRIM_THRESHOLD), (M_TOP_PAD, TOP_PAD)))
    return _applied
