"""Quality of the built-in default: the success judge's F1 on held-out worlds, trained vs untrained.

Runs `mineclip pipeline` (or reuses a finished run folder) and prints, per judged task, the F1 of the
paper's rule (mean step reward, K-means threshold) for the trained tiny model and an untrained model
of the same architecture, the means over programmatic and creative tasks against the targets
(>= 0.90 and >= 0.80), the robust alternatives (best window, top-k windows), and video-to-text
R@1 on held-out clips against chance. The pipeline's judge scores each prompt against the
suite's other task prompts and the narrator's event-free captions (`--negatives scene`); the
means with the paper's negatives (task prompts only) are printed beside. With several training
seeds (or several finished runs) it adds the spread: the paper's-rule means per run, their mean
and standard deviation, and how many runs meet both targets (and, beside it, the F1 of a
threshold fitted on half of each task's trajectories and applied to the other half); one run says
little, the outcome varies a lot from seed to seed. A training seed sets the initial weights and
the order of the training clips alike (the data module follows `--seed_everything`). Per MCU
difficulty band (easy, medium, hard: terciles of the overall difficulty score over the task
catalogue, `mineclip.tasks.difficulty.bands`) it prints the judge's mean F1 and ranking AUC, and the
rank correlation of F1 with each difficulty score: does the judge get worse as tasks get harder?
The report is `mineclip.pipeline.quality.quality_report`; this script parses the options and prints it
(`mineclip pipeline --seeds N` prints it too, without the judgement with the paper's negatives).

    python bench/quality.py                      # runs/default, running the pipeline if needed
    python bench/quality.py --run runs/default   # report on a finished run only
    python bench/quality.py --seeds 3            # + runs/default-seed1, -seed2 on the same data
    python bench/quality.py --run runs/a --run runs/b   # the spread over finished runs
    python bench/quality.py --seeds 10           # the ten-seed table: means with intervals, worst task per seed
    python bench/quality.py --seeds 10 --jobs 2  # the same, two seeds at a time (one core each on this CPU)
    python bench/quality.py --seeds 10 --jobs 2 --view first_person   # in runs/default-first_person
    # an option over seeds 0, 8 and 9, on the default's data, in runs/evt, runs/evt-seed8, -seed9:
    python bench/quality.py --run runs/evt --data-from runs/default --seed 0 --seed 8 --seed 9 \
        --train-arg=--model.minimal_pairs=events --jobs 2 --no-perception
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mineclip.pipeline.cli import default_run, parse_override
from mineclip.pipeline.presets import load_preset
from mineclip.pipeline.quality import QualityError, QualitySettings, quality_report
from mineclip.reward import MODES
from mineclip.sim.view import VIEWS
from mineclip.train.configs import ConfigError, merge


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", action="append", default=None,
                    help="pipeline run folder (default runs/<preset>, runs/<preset>-<view> in another view than the "
                         "default); repeat it to compare finished runs")
    ap.add_argument("--preset", default="default")
    ap.add_argument("--view", default=None, choices=VIEWS,
                    help="what the clips and evaluation sets show, as `mineclip pipeline --view` (default: the "
                         "preset's)")
    ap.add_argument("--seeds", type=int, default=None,
                    help="training seeds 0..N-1: the run and <run>-seed1.. on its data, run where not finished")
    ap.add_argument("--seed", type=int, action="append", default=None,
                    help="one training seed (repeatable), instead of --seeds: 0 is the run itself")
    ap.add_argument("--train-arg", action="append", default=[], type=parse_override, metavar="--KEY=VALUE",
                    help="a training option of every seed, as `mineclip pipeline --train-arg` (repeatable)")
    ap.add_argument("--data-from", type=Path, default=None,
                    help="a finished run whose clips and evaluation set every seed trains and is judged on")
    ap.add_argument("--jobs", type=int, default=1, help="seeds trained at once, each with its share of the cores")
    ap.add_argument("--workers", type=int, default=2, help="processes for play and data loading, shared by the jobs")
    ap.add_argument("--no-perception", action="store_true",
                    help="leave out the stage of MP5's context tasks (the tables here do not read it)")
    ap.add_argument("--no-paper-negatives", action="store_true",
                    help="skip the judgement with the paper's negatives (it evaluates each run's artifact again)")
    ap.add_argument("--also-mode", choices=MODES, default=None,
                    help="also judge each run with this reward formula, its negatives unchanged (one more "
                         "evaluation of each run's artifact), and print that spread beside")
    args = ap.parse_args(argv)
    if args.seeds is not None and args.seed:
        ap.error("--seeds N or --seed S, not both")
    overrides: dict = {}
    for o in args.train_arg:
        overrides = merge(overrides, o)
    try:
        preset = load_preset(args.preset)
        preset = preset.with_view(args.view) if args.view else preset
    except ConfigError as e:
        ap.error(str(e))
    try:
        settings = QualitySettings(
            [Path(r) for r in args.run] if args.run else [default_run(preset)], preset,
            list(range(args.seeds)) if args.seeds is not None else args.seed, overrides, args.data_from,
            args.jobs, args.workers, not args.no_perception, not args.no_paper_negatives, args.also_mode)
    except ValueError as e:
        ap.error(str(e))
    try:
        report = quality_report(settings)
    except QualityError as e:
        raise SystemExit(f"bench/quality.py: {e}")
    for seed, error in report.failed.items():
        print(f"seed {seed} failed: {error}", file=sys.stderr)
    if report.text is None:
        return 1
    print(report.text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
