"""Does the learned reward rise as the agent nears its target? The mean learned reward per step by
distance to the dense reward's navigation target, in random play, for each task and artifact
(`mineclip.rl.shaping`), before spending CPU-hours on PPO.

    python bench/shaping.py --model runs/default/artifact [--model runs/other/artifact ...]
                            [--tasks punch_cow,eat_plant] [--steps 300] [--negatives distinct]

Per task: one row per distance (tiles, Manhattan; "not in view"), per artifact the number of
steps and the mean reward (x 1000); below, Spearman's rho of reward and distance over the steps
with the target in view (negative: the reward rises as the agent nears the target, what PPO
needs; about 0: no shaping). The same random actions and worlds for every artifact.
"""

from __future__ import annotations

import argparse
import math
import time
from datetime import date

import torch

from mineclip.rl.shaping import reward_by_distance


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", action="append", required=True, help="artifact directory (repeatable)")
    p.add_argument("--tasks", default="punch_cow,eat_plant")
    p.add_argument("--steps", type=int, default=300, help="vector steps of 8 envs per task and artifact")
    p.add_argument("--negatives", default="distinct")
    p.add_argument("--reward-mode", default="direct", choices=["direct", "direct-naive", "delta", "proximity"],
                   help="proximity: the Percipient head's proximity to the target (the value shown is the "
                        "proximity in tiles, whose change is the reward), not the prompt's reward")
    args = p.parse_args()
    torch.set_num_threads(1)
    what = "proximity (tiles)" if args.reward_mode == "proximity" else "learned reward"
    print(f"# {what} by distance to the target, {date.today()}, {args.steps} x 8 random steps per task")
    for task in [t for t in args.tasks.split(",") if t]:
        t0 = time.time()
        results = [reward_by_distance(m, task, steps=args.steps, negatives=args.negatives, reward_mode=args.reward_mode)
                   for m in args.model]
        print(f"\n## {task} (target: {results[0].target}; {time.time() - t0:.0f} s)\n")
        unit = "proximity" if args.reward_mode == "proximity" else "reward x 1000"
        print("| distance | " + " | ".join(f"{m}: steps, {unit}" for m in args.model) + " |")
        print("|---|" + "---:|" * len(args.model))
        tables = [{d: (n, mean) for d, n, mean in r.rows()} for r in results]
        for key in max(tables, key=len):
            scale = 1 if args.reward_mode == "proximity" else 1000
            cells = ["–" if key not in t else f"{t[key][0]}, {scale * t[key][1]:.2f}" for t in tables]
            print(f"| {key} | " + " | ".join(cells) + " |")
        rho = ["– (constant)" if math.isnan(r.spearman) else f"{r.spearman:+.2f}" for r in results]
        print("| Spearman rho (in view) | " + " | ".join(rho) + " |")


if __name__ == "__main__":
    main()
