"""Training steps/s with mineclip.allocator's malloc settings vs glibc's defaults, measured in one run.

Runs `bench/train.py` (plain PyTorch loop and Lightning Trainer, same batches) in child processes,
alternating MINECLIP_SYSTEM_MALLOC=1 (glibc defaults) and the settings train.py uses, `--rounds`
times each, and prints the ratio of the mean steps/s and the kernel (system) CPU time of each.

    python bench/malloc.py                       # tiny config, batch 32, 8 frames, 2 rounds
    python bench/malloc.py --rounds 1 --steps 20
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

TRAIN = Path(__file__).with_name("train.py")
PATTERNS = {"plain": r"(?m)^plain\s+\S+\s*: ([\d.]+) steps/s", "lightning": r"(?m)^Lightning\s+\S+\s*: ([\d.]+) steps/s",
            "system_s": r"system ([\d.]+) s", "peak_rss_mib": r"process peak RSS ([\d.]+) MiB"}


def measure(system_malloc: bool, args) -> dict:
    env = dict(os.environ)
    env.pop("MINECLIP_SYSTEM_MALLOC", None)
    if system_malloc:
        env["MINECLIP_SYSTEM_MALLOC"] = "1"
    cmd = [sys.executable, str(TRAIN), "--steps", str(args.steps), "--warmup", str(args.warmup),
           "--batch", str(args.batch), "--frames", str(args.frames), "--rounds", "1"]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    got = {}
    for key, pat in PATTERNS.items():
        m = re.search(pat, out)
        if not m:
            raise RuntimeError(f"no {key!r} in bench/train.py's output:\n{out}")
        got[key] = float(m.group(1))
    return got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--frames", type=int, default=8)
    args = ap.parse_args()
    runs = {"system": [], "keep": []}
    for r in range(args.rounds):
        for name in ("system", "keep"):
            runs[name].append(measure(name == "system", args))
            m = runs[name][-1]
            print(f"round {r + 1} {name:>6} malloc: plain {m['plain']:.3f} steps/s, Lightning {m['lightning']:.3f} "
                  f"steps/s, kernel CPU {m['system_s']:.1f} s, peak RSS {m['peak_rss_mib']:.0f} MiB", flush=True)
    mean = {n: {k: sum(m[k] for m in ms) / len(ms) for k in PATTERNS} for n, ms in runs.items()}
    for key in ("plain", "lightning"):
        print(f"{key:>9}: keep / system steps/s = {mean['keep'][key] / mean['system'][key]:.2f} "
              f"({mean['keep'][key]:.3f} vs {mean['system'][key]:.3f})")
    print(f"kernel CPU time: {mean['keep']['system_s']:.1f} s vs {mean['system']['system_s']:.1f} s; "
          f"peak RSS {mean['keep']['peak_rss_mib']:.0f} vs {mean['system']['peak_rss_mib']:.0f} MiB")


if __name__ == "__main__":
    main()
