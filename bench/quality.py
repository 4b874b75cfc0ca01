"""Quality of the built-in default: the success judge's F1 on held-out worlds, trained vs untrained.

Runs `mineclip pipeline` (or reuses a finished run folder) and prints, per judged task, the F1 of the
paper's rule (mean step reward, K-means threshold) for the trained tiny model and an untrained model
of the same architecture, the means over programmatic and creative tasks against the targets
(>= 0.90 and >= 0.80), the robust alternatives (best window, top-k windows), and video-to-text
R@1 on held-out clips against chance.

    python bench/quality.py                      # runs/default, running the pipeline if needed
    python bench/quality.py --run runs/default   # report on a finished run only
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

TARGETS = {"programmatic": 0.90, "creative": 0.80}


def table(metrics: dict) -> str:
    from mineclip.evaluate.report import task_f1
    from mineclip.tasks import get_task

    models = metrics["models"]
    names = list(models)
    tasks = list(next(iter(models.values())))
    kinds = {t: get_task(t).kind for t in tasks}
    head = f"{'task':<22}{'kind':<26}" + "".join(f"{n[:22]:>24}" for n in names)
    out = [head, "-" * len(head)]
    for t in sorted(tasks, key=lambda t: (kinds[t], t)):
        out.append(f"{t:<22}{kinds[t]:<26}" + "".join(
            f"{'-' if (f := task_f1(models[n][t])) is None else f'{f:.2f}':>24}" for n in names))
    out.append("-" * len(head))
    for rule in ("mean", "max", "topk"):
        for kind, target in TARGETS.items():
            cells = []
            for n in names:
                vals = [task_f1(models[n][t], rule) for t in tasks if kinds[t] == kind]
                vals = [v for v in vals if v is not None]
                cells.append(f"{sum(vals) / len(vals):.2f} ({len(vals)})" if vals else "-")
            label = f"mean F1 {kind}, score={rule}" + (f" [target {target:.2f}]" if rule == "mean" else "")
            out.append(f"{label:<48}" + "".join(f"{c:>24}" for c in cells))
    for n, r in (metrics.get("retrieval") or {}).items():
        if "v2t_R@1" in r:
            out.append(f"video->text R@1 {n}: {r['v2t_R@1']:.3f} over {r['n']} held-out clips "
                       f"(chance {r['chance_R@1']:.3f})")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", default="runs/default", help="pipeline run folder")
    ap.add_argument("--preset", default="default")
    args = ap.parse_args(argv)
    run = Path(args.run)
    metrics_path = run / "report" / "metrics.json"
    if not metrics_path.is_file():
        from mineclip.pipeline import PRESETS, run_pipeline

        print(run_pipeline(run, PRESETS[args.preset]))
    print(table(json.loads(metrics_path.read_text())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
