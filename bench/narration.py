"""What the training narration says about a target as the player comes near it, per view (issue 59,
part 4; library: `mineclip.play.approach`). For the first `--episodes` episodes of the clip plan
(the built-in default's tasks, agents and worlds), the kept windows, per kind: the share whose
caption names the kind, by the distance of the nearest one in view at the window's last frame.

    python bench/narration.py --view top,first_person --episodes 400 [--in-view ranged] [--out narration.json] [--quiet]
"""

from __future__ import annotations

import argparse
import json
import time
from datetime import date

from mineclip.play.approach import BUCKETS, KIND_EVENTS, approach_narration
from mineclip.play.clips import ClipSettings
from mineclip.sim.view import VIEWS
from mineclip.tasks.scenes import IN_VIEW


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--view", default=",".join(VIEWS), help="comma-separated views")
    p.add_argument("--episodes", type=int, default=400, help="episodes of the clip plan per view")
    p.add_argument("--kinds", default=",".join(KIND_EVENTS), help="comma-separated kinds")
    p.add_argument("--in-view", default="any", choices=list(IN_VIEW),
                   help="how captions name things in view (ClipSettings.in_view, mineclip.tasks.scenes.IN_VIEW)")
    p.add_argument("--out", help="write the counts as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    args = p.parse_args()
    views = [v for v in args.view.split(",") if v]
    kinds = tuple(k for k in args.kinds.split(",") if k)
    t0 = time.time()
    settings = ClipSettings(in_view=args.in_view)
    results = {v: approach_narration(v, args.episodes, settings, kinds=kinds, progress=not args.quiet) for v in views}
    print(f"# The narration by distance (in_view: {args.in_view}), {date.today()}, {args.episodes} episodes "
          "of the clip plan per view, "
          f"{time.time() - t0:.0f} s")
    for v in views:
        print(f"\n{v}: % of kept windows whose caption names the kind (windows), by the nearest one in view\n")
        print("| kind | " + " | ".join(BUCKETS) + " |")
        print("|---|" + "---:|" * len(BUCKETS))
        for k in kinds:
            cells = [f"{100 * n / w:.0f} ({w})" if w else "– (0)" for w, n in (results[v][k][b] for b in BUCKETS)]
            print(f"| {k} | " + " | ".join(cells) + " |")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"episodes": args.episodes, "in_view": args.in_view, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
