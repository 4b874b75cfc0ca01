"""Does the learned reward shape, in both views? Issue 59's study (`mineclip.rl.shaping_study`): per
task with a navigation target and per view, with the paper's Direct and Delta formulas and the
suite's other prompts as negatives, (a) Spearman's rho of the reward against the distance to the
nearest target in view and the mean reward at 1 / 2 / 4 / 8 tiles and with none in view, (b) rho
against the share of the view the target fills, (c) the value-order correlation (VOC) along the
scripted agent's successful episodes, (d) the EPIC distance to the hand-written dense reward.

    python bench/shaping.py --model top=runs/default/artifact --model first_person=runs/fp/artifact \\
        [--tasks hunt_cow,drink_water,...] [--steps 200] [--episodes 4] [--window W] [--untrained] \\
        [--out shaping.json] [--quiet]
    python bench/shaping.py --view top --model runs/default/artifact --tasks hunt_cow,drink_water

Each view is measured with its own artifact (`--model VIEW=DIR`, or plain `--model DIR`s taken in
the order of `--view`, default: top, then first_person, as many as given). Prints one table (rows
tasks, the views side by side, Direct / Delta in each cell), the mean direct reward by distance,
and how many tasks shape in first person (rho <= -0.5; the issue's goal: 5 of 7); `--out` writes
all of it as JSON. The same worlds, episodes and random actions in every view.

The earlier measurement, by distance alone, from above, for several artifacts side by side
(`mineclip.rl.shaping.reward_by_distance`; also for the Percipient head's proximity):

    python bench/shaping.py --by-distance --model runs/default/artifact [--reward-mode proximity]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from datetime import date
from pathlib import Path

import torch

from mineclip.rl.shaping_study import STUDY_TASKS, parse_models, shaping_study, tables, to_json


def by_distance(args) -> None:
    """The earlier table (top view): mean learned reward per distance, per artifact side by side."""
    from mineclip.rl.shaping import reward_by_distance

    what = "proximity (tiles)" if args.reward_mode == "proximity" else "learned reward"
    steps = args.steps or 300
    print(f"# {what} by distance to the target, {date.today()}, {steps} x 8 random steps per task")
    for task in [t for t in args.tasks.split(",") if t]:
        t0 = time.time()
        results = [reward_by_distance(m, task, steps=steps, negatives=args.negatives, reward_mode=args.reward_mode)
                   for m in args.model]
        print(f"\n## {task} (target: {results[0].target}; {time.time() - t0:.0f} s)\n")
        unit = "proximity" if args.reward_mode == "proximity" else "reward x 1000"
        print("| distance | " + " | ".join(f"{m}: steps, {unit}" for m in args.model) + " |")
        print("|---|" + "---:|" * len(args.model))
        rows = [{d: (n, mean) for d, n, mean in r.rows()} for r in results]
        scale = 1 if args.reward_mode == "proximity" else 1000
        for key in max(rows, key=len):
            cells = ["–" if key not in t else f"{t[key][0]}, {scale * t[key][1]:.2f}" for t in rows]
            print(f"| {key} | " + " | ".join(cells) + " |")
        rho = ["– (constant)" if math.isnan(r.spearman) else f"{r.spearman:+.2f}" for r in results]
        print("| Spearman rho (in view) | " + " | ".join(rho) + " |")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", action="append", required=True,
                   help="VIEW=DIR or DIR (repeatable): each view's artifact")
    p.add_argument("--view", default=None,
                   help="comma-separated views to measure (top,first_person; default: those --model names)")
    p.add_argument("--tasks", default=None, help=f"comma-separated (default: {','.join(STUDY_TASKS)})")
    p.add_argument("--steps", type=int, default=None,
                   help="random-play vector steps per task and view (default 200; --by-distance 300)")
    p.add_argument("--num-envs", type=int, default=8)
    p.add_argument("--episodes", type=int, default=8, help="scripted episodes per task and view for VOC")
    p.add_argument("--negatives", default=None,
                   help="a policy of mineclip.tasks.negatives (default: the paper's, suite; --by-distance: distinct)")
    p.add_argument("--gamma", type=float, default=0.98, help="EPIC's discount (PPO's in mineclip rl)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--window", type=int, default=None,
                   help="frames per clip the reward sees (default: the artifact's own, as in RL)")
    p.add_argument("--untrained", action="store_true",
                   help="measure each artifact's untrained twin instead (the same architecture and window, random "
                        "weights under --seed): the reward before any training")
    p.add_argument("--out", default=None, help="write the result as JSON here")
    p.add_argument("--quiet", action="store_true", help="no progress bars or per-task lines")
    p.add_argument("--by-distance", action="store_true",
                   help="the earlier measurement instead: reward by distance, top view, artifacts side by side")
    p.add_argument("--reward-mode", default=None, choices=["direct", "direct-naive", "delta", "proximity"],
                   help="with --by-distance (implied): the learned reward's formula, or the Percipient head's "
                        "proximity to the target (the value shown is the proximity in tiles)")
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    if (args.by_distance or args.reward_mode) and args.untrained:
        p.error("--untrained is for the shaping study; --by-distance and --reward-mode measure the artifacts as given")
    if args.by_distance or args.reward_mode:
        args.reward_mode = args.reward_mode or "direct"
        args.negatives = args.negatives or "distinct"
        args.tasks = args.tasks or "punch_cow,eat_plant"
        return by_distance(args)
    views = [v for v in args.view.split(",") if v] if args.view else None
    try:
        models = parse_models(args.model, views)
    except ValueError as e:
        p.error(str(e))
    tasks = [t for t in (args.tasks or ",".join(STUDY_TASKS)).split(",") if t]
    log = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    study = shaping_study(models, tasks, steps=args.steps or 200, num_envs=args.num_envs, episodes=args.episodes,
                          seed=args.seed, negatives=args.negatives or "suite", gamma=args.gamma, window=args.window,
                          untrained=args.seed if args.untrained else None, progress=not args.quiet, log=log)
    study["meta"]["command"] = "python bench/shaping.py " + " ".join(argv if argv is not None else sys.argv[1:])
    m = study["meta"]
    print(f"# Does the reward shape? {m['date']}, {m['steps']} x {m['num_envs']} random steps and "
          f"{m['episodes']} scripted episodes per task and view, negatives {m['negatives']}, "
          f"gamma {m['gamma']}, " + (f"a {m['window']}-frame window, " if m['window'] else "")
          + f"{m['seconds']:.0f} s")
    twin = f" (its untrained twin, random weights under seed {m['untrained']})" if m["untrained"] is not None else ""
    print("# " + ", ".join(f"{v}: {a}{twin}" for v, a in models.items()) + "\n")
    print(tables(study))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(to_json(study), indent=1))
        print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
