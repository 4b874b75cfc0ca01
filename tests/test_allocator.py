"""mineclip.allocator: big blocks come from the heap and stay there; MINECLIP_SYSTEM_MALLOC=1 opts out."""

import os
import subprocess
import sys
import textwrap

import pytest

# Each case runs in a fresh interpreter: the settings are process-wide. glibc's mallinfo2 tells
# where a 64 MiB tensor lives: hblkhd = bytes in mmap'ed blocks, arena = bytes of the main heap.
PROBE = textwrap.dedent("""
    import ctypes
    import torch
    from mineclip.allocator import keep_freed_memory

    class MallInfo2(ctypes.Structure):
        _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                   "fsmblks", "uordblks", "fordblks", "keepcost")]

    libc = ctypes.CDLL("libc.so.6")
    libc.mallinfo2.restype = MallInfo2
    applied = keep_freed_memory()
    assert keep_freed_memory() is applied  # a second call changes nothing
    big = 64 << 20
    before = libc.mallinfo2()
    x = torch.empty(big, dtype=torch.uint8)
    x.fill_(1)
    live = libc.mallinfo2()
    del x
    freed = libc.mallinfo2()
    print(int(applied), int(live.hblkhd >= big), int(freed.arena - before.arena >= big))
""")


def _probe(**env_extra) -> list[int]:
    env = {k: v for k, v in os.environ.items() if k != "MINECLIP_SYSTEM_MALLOC"}
    env.update(env_extra)
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    return [int(v) for v in out.stdout.split()]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc malloc settings are Linux-only")
def test_big_blocks_come_from_the_heap_and_stay_there():
    applied, mmapped, heap_kept = _probe()
    assert applied == 1
    assert mmapped == 0  # served from the heap, no mmap/munmap per tensor
    assert heap_kept == 1  # freed memory stays in the process for the next step


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc malloc settings are Linux-only")
def test_opt_out_keeps_glibc_defaults():
    applied, mmapped, heap_kept = _probe(MINECLIP_SYSTEM_MALLOC="1")
    assert applied == 0
    assert mmapped == 1  # glibc maps a 64 MiB block on its own and unmaps it when freed
    assert heap_kept == 0
