"""`mineclip pipeline`: the main job on the built-in default, end to end.

play the task suite -> narrated training shards + held-out clips -> labelled evaluation set on
held-out worlds -> train the tiny model -> export it -> judge the evaluation set -> a one-screen
summary. Every stage writes into one run folder and is skipped when its output is already there
(use --force to redo), so a killed run continues where it stopped.

With `--view first_person` the clips and evaluation sets are played and recorded from the player's
eyes, with the first-person controls (any preset; `Preset.with_view`), and MP5's perception stage
fits the Percipient on first-person frames and records the context tasks in first person; the run
folder defaults to `runs/<preset>-first_person` and keeps the view in its preset.json.

With `--seeds N` (or `--seed S`, repeated) it trains N seeds on the same data, seed 0 in the run
folder and seed s in `<run>-seed<s>`, `--jobs` at a time, and prints the quality report over them
(`pipeline.quality`): per seed the mean F1 per task kind with its interval, the worst task and
whether the targets are met; their mean +- std.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from mineclip.cli import count

if TYPE_CHECKING:
    from .presets import Preset
    from .quality import QualitySettings


def parse_override(text: str) -> dict:
    """`--key.sub=value` (value in YAML: 2, true, null, [1, 2], {"a": 1}) -> {"key": {"sub": value}}."""
    import yaml

    key, sep, value = text.removeprefix("--").partition("=")
    if not text.startswith("--") or not sep or not key:
        raise argparse.ArgumentTypeError(f"expected --KEY.SUB=VALUE (a train.py option), got {text!r}")
    out: dict = yaml.safe_load(value) if value.strip() else ""
    for part in reversed(key.split(".")):
        out = {part: out}
    return out


def default_run(preset: Preset) -> Path:
    """The run folder of a preset when none is given: runs/<preset>, runs/<preset>-<view> in another
    view than the default."""
    from mineclip.sim.view import DEFAULT_VIEW

    return Path(f"runs/{preset.name}" + ("" if preset.view == DEFAULT_VIEW else f"-{preset.view}"))


def build_parser() -> argparse.ArgumentParser:
    from mineclip.sim.view import VIEWS

    from .presets import list_presets
    from .run import STAGES

    ap = argparse.ArgumentParser(prog="mineclip pipeline", description=__doc__.split("\n\n")[0])
    ap.add_argument("--preset", default="default",
                    help=f"sizes, a packaged preset ({', '.join(list_presets())}: default is 20 min on 2 CPU cores, "
                         "quick a few minutes, large the full model on a GPU) or a preset YAML file")
    ap.add_argument("--view", default=None, choices=VIEWS,
                    help="what the clips and evaluation sets show and the agents' controls: from above or the "
                         "player's eyes (default: the preset's, top for the packaged ones); the perception stage "
                         "runs in it too")
    ap.add_argument("--out", default=None, help="run folder (default: runs/<preset>, runs/<preset>-<view> for "
                                                "another view than the default)")
    ap.add_argument("--workers", type=count, default=2, help="processes for play and data loading")
    ap.add_argument("--force", action="store_true", help="redo every stage even if its output exists")
    ap.add_argument("--train-arg", action="append", default=[], type=parse_override, metavar="--KEY=VALUE",
                    help="a training option on top of the preset's, e.g. --train-arg=--trainer.max_epochs=2 or "
                         "--train-arg=--seed_everything=1 (repeatable)")
    ap.add_argument("--data-from", default=None, type=Path,
                    help="a finished run folder whose clips and evaluation set this run uses (same preset "
                         "sizes), e.g. to train another seed on identical data")
    ap.add_argument("--until", choices=STAGES, default=STAGES[-1],
                    help="stop after this stage; --until evalset makes only the data that other runs share "
                         "through --data-from")
    seeds = ap.add_mutually_exclusive_group()
    seeds.add_argument("--seeds", type=int, default=None, metavar="N",
                       help="train seeds 0..N-1 on the same data (seed s > 0 in <out>-seed<s>; finished seeds are "
                            "read, not run again) and print the quality report over them: one seed says little")
    seeds.add_argument("--seed", type=int, action="append", default=None, metavar="S",
                       help="one training seed (repeatable), instead of --seeds: 0 is the run folder itself")
    ap.add_argument("--jobs", type=int, default=1,
                    help="with --seeds: seeds trained at once, each in its own process with its share of the cores "
                         "and its output in <run>/pipeline.log (each holds its clip cache: ~8 GB for the default)")
    return ap


def seed_list(args: argparse.Namespace, ap: argparse.ArgumentParser) -> list[int] | None:
    """The training seeds of `--seeds N` or `--seed S` (None: one run); usage errors through `ap.error`."""
    seeds = list(range(args.seeds)) if args.seeds is not None else args.seed
    if seeds is None and args.jobs != 1:
        ap.error("--jobs applies to the seeds a run trains: give --seeds N or --seed S")
    if seeds is not None and (args.force or args.until != ap.get_default("until")):
        ap.error("--force and --until apply to one run, not to --seeds/--seed (finished seeds are read, not run again)")
    return seeds


def main(argv: list[str] | None = None) -> int:
    from mineclip.train.configs import ConfigError, merge

    from .presets import load_preset
    from .quality import QualityError, QualitySettings
    from .run import StageError, run_pipeline
    from .summary import summary

    ap = build_parser()
    args = ap.parse_args(argv)
    seeds = seed_list(args, ap)
    overrides: dict = {}
    for o in args.train_arg:
        overrides = merge(overrides, o)
    try:
        preset = load_preset(args.preset)
        if args.view is not None and args.view != preset.view:
            preset = preset.with_view(args.view)
        run = Path(args.out) if args.out else default_run(preset)
        if seeds is not None:
            try:
                settings = QualitySettings([run], preset, seeds, overrides, args.data_from, args.jobs, args.workers,
                                           paper_negatives=False)
            except ValueError as e:
                ap.error(str(e))
            return _print_quality_report(settings)
        metrics, times = run_pipeline(run, preset, args.workers, args.force, overrides, args.data_from, args.until)
    except (StageError, ConfigError, QualityError) as e:
        print(f"mineclip pipeline: {e}", file=sys.stderr)
        return 1
    if metrics is None:
        print(f"\nstopped after the {args.until} stage: " + ", ".join(f"{k} {v:.0f}s" for k, v in times.items())
              + f" (in {run})")
        return 0
    print("\n" + summary(run, metrics, times))
    return 0


def _print_quality_report(settings: QualitySettings) -> int:
    """`--seeds`: the quality report over the seeds, the seeds that failed on stderr; 1 if any failed."""
    from .quality import quality_report

    report = quality_report(settings)
    for seed, error in report.failed.items():
        print(f"mineclip pipeline: seed {seed} failed: {error}", file=sys.stderr)
    if report.text is not None:
        print("\n" + report.text)
    return 1 if report.failed or report.text is None else 0


if __name__ == "__main__":
    sys.exit(main())
