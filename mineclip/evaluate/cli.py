"""`mineclip eval` / `python eval.py`: F1 of the success judge on labelled trajectories, per task and model."""

from __future__ import annotations

import argparse
import sys

from mineclip.model.artifact import JudgeSettings
from mineclip.model.precision import PRECISIONS, check_precision
from mineclip.reward.reward import MODES


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="mineclip eval",
        description="Judge labelled trajectories with an exported model (score = mean step reward, K-means "
                    "threshold per task, as in the MineDojo paper, plus robust alternatives) and write "
                    "report.md, metrics.json and plots.")
    p.add_argument("--model", required=True, help="artifact directory (from `mineclip export`)")
    p.add_argument("--labels", required=True, action="append",
                   help="labelled trajectories, JSON lines (task suite format); repeat it to add files, e.g. the "
                        "set and people's labels from `mineclip label` (lines of `labeller` human:<name> are votes: "
                        "people's majority per trajectory is judged against, beside the criterion or oracle)")
    p.add_argument("--out", required=True, help="output folder for report.md, metrics.json, *.png")
    p.add_argument("--baseline", action="append", default=[], help="another artifact to compare (repeatable)")
    p.add_argument("--no-untrained", action="store_true",
                   help="skip the untrained baseline (same architecture, random weights, seed --seed)")
    defaults = JudgeSettings()
    p.add_argument("--mode", choices=MODES, default=None,
                   help=f"reward formula the scores average (default: the artifact's judge settings, else "
                        f"{defaults.mode!r})")
    p.add_argument("--topk", type=int, default=None,
                   help=f"windows averaged by the top-k score rule (default: the artifact's, else {defaults.topk})")
    p.add_argument("--negatives", default=None,
                   help="negative prompts (mineclip.tasks.negatives): 'suite' (the task suite's other prompts, as "
                        "in the paper), 'scene' (those plus the suite narrator's event-free captions, e.g. 'a cow "
                        "nearby'), 'distinct', 'distinct+scene', or a file with one prompt per line (default: the "
                        f"artifact's judge settings, which the pipeline sets to its preset's, else {defaults.negatives!r})")
    p.add_argument("--calibrate", action="store_true",
                   help="fit per-task thresholds on these labels and save them with the model (judge.json)")
    p.add_argument("--no-calibration", action="store_true",
                   help="judge without the artifact's calibrated thresholds (K-means only); calibrated thresholds "
                        "fitted under other settings (mode, top-k, negatives, window) are otherwise an error")
    p.add_argument("--shards", default=None, help="held-out shards for retrieval (brace pattern or folder)")
    p.add_argument("--retrieval-max", type=int, default=1000, help="clips used for retrieval at most")
    p.add_argument("--device", default="cpu", help="torch device of the models")
    p.add_argument("--precision", choices=PRECISIONS, default=None,
                   help="the frame encoder's precision (mineclip.model.precision): 'auto' = bf16 where the hardware "
                        "computes it natively (CPU with AVX-512 BF16 or AMX, CUDA), else fp32; default: "
                        "$MINECLIP_PRECISION, else auto. Text, aggregation, logits and rewards stay float32")
    p.add_argument("--seed", type=int, default=0, help="seed of the untrained baseline's weights")
    p.add_argument("--strict", action="store_true", help="exit non-zero when any line was skipped")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress bars (and, through `mineclip`, warnings and errors only)")
    return p


def main(argv: list[str] | None = None) -> int:
    from mineclip.allocator import keep_freed_memory
    from mineclip.cli import quiet

    from .run import EvalError, EvalSettings, NegativesError, evaluate

    a = build_parser().parse_args(argv)
    try:
        check_precision(a.precision)  # a bad $MINECLIP_PRECISION, reported as a bad option would be
    except ValueError as e:
        raise SystemExit(f"mineclip eval: {e}") from None
    keep_freed_memory()
    settings = EvalSettings(model=a.model, labels=a.labels, out=a.out, baselines=a.baseline,
                            untrained=not a.no_untrained, mode=a.mode, topk=a.topk, negatives=a.negatives,
                            calibrate=a.calibrate, use_calibration=not a.no_calibration, shards=a.shards,
                            retrieval_max=a.retrieval_max, device=a.device, precision=a.precision, seed=a.seed,
                            progress=not (a.quiet or quiet()))
    try:
        result = evaluate(settings)
    except NegativesError as e:  # a bad option, as argparse reports one
        raise SystemExit(f"mineclip eval: {e}") from None
    except EvalError as e:
        print(f"mineclip eval: {e}", file=sys.stderr)
        return 1
    for p in result.problems:
        print(f"skipped {p}", file=sys.stderr)
    counts = result.metrics["counts"]
    kinds = ", ".join(f"{k} {v}" for k, v in counts["by_kind"].items())
    read = (f"{result.judged} trajectories from {result.lines} lines of {len(a.labels)} files" if len(a.labels) > 1
            else f"{result.judged} of {result.lines} trajectories")  # several files: lines merge per trajectory
    print(f"judged {read} ({counts['skipped']} skipped"
          + (f": {kinds}" if kinds else "") + f") in {result.seconds:.1f}s")
    for name, f in result.mean_f1.items():
        tasks = len(result.metrics["models"][name])
        print(f"  {name}: mean F1 {'-' if f is None else f'{100 * f:.1f}'} over {tasks} task(s)")
    print(f"report: {result.report}")
    if result.judged == 0:
        print("mineclip eval: no trajectory could be judged", file=sys.stderr)
        return 1
    return 1 if (a.strict and result.problems) else 0


if __name__ == "__main__":
    sys.exit(main())
