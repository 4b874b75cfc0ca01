"""What does the frame encoder keep of each condition the context tasks ask about? Per condition,
ranking AUC on frames of held-out worlds (`mineclip.perception.probe`): the model's own answer in
words (text vs minimal pairs), a linear probe on the frozen frame embedding, and a per-tile linear
probe on the pixels (how plainly the frame shows the thing), for each artifact and an untrained
model of the same architecture.

    python bench/probe.py --model runs/default/artifact [--model runs/other/artifact ...]
    python bench/probe.py --model runs/default/artifact --fit-worlds 20 --eval-worlds 10   # quick look
    python bench/probe.py --model runs/fp/artifact --view first_person   # frames from the player's eyes
    python bench/probe.py --model runs/fp/artifact --view first_person --size   # and how large things look

`--view` (`mineclip.sim.view`: top, the default, or first_person) is the view the frames of both
world ranges are drawn in; probe an artifact in the view it was trained in (the untrained model is
the same architecture, so trained against untrained is compared on the same frames).

`--size` (first person) adds a second table: per kind, on the frames that show it, how well a linear
(ridge) probe of the frame embedding ranks how much of the view the thing fills (Spearman's rho on
the held-out frames; `probe_size`): whether the encoder keeps what an approach changes.

text < embedding: the embedding holds the condition, the words do not reach it; embedding near 0.5
where pixels are near 1.0: the encoder drops what the frame plainly shows. The probes and the table
are `mineclip.perception.probe` (`probe_artifacts`, `probe_table`); this script parses and prints.
"""

from __future__ import annotations

import argparse
import time
from datetime import date

import torch

from mineclip.perception.probe import probe_artifacts, probe_table, size_table
from mineclip.sim.view import DEFAULT_VIEW, VIEWS


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", action="append", required=True, help="artifact directory (repeatable)")
    p.add_argument("--fit-worlds", type=int, default=80, help="perception worlds the probes are fitted on")
    p.add_argument("--eval-worlds", type=int, default=60, help="perception_eval worlds they are measured on")
    p.add_argument("--no-untrained", action="store_true", help="skip the untrained model")
    p.add_argument("--view", default=DEFAULT_VIEW, choices=list(VIEWS),
                   help="the view the probed frames are drawn in (default %(default)s)")
    p.add_argument("--size", action="store_true",
                   help="first person: also probe how much of the view each thing fills (a second table)")
    args = p.parse_args(argv)
    if args.size and args.view != "first_person":
        p.error("--size reads the renderer's semantic map: use it with --view first_person")
    torch.set_num_threads(min(2, torch.get_num_threads()))
    t0 = time.time()
    result = probe_artifacts(args.model, not args.no_untrained, args.fit_worlds, args.eval_worlds, view=args.view,
                             size=args.size)
    print(f"# what the frame encoder keeps, {date.today()}, {args.view} view: ranking AUC on frames of {args.eval_worlds} held-out "
          f"worlds (probes fitted on {args.fit_worlds} training worlds), {time.time() - t0:.0f} s\n")
    print(probe_table(result.conditions))
    if result.sizes:
        print("\n# how much of the view a thing fills: Spearman's rho of a ridge probe of the frame embedding "
              "against its share, on the held-out frames that show it\n")
        print(size_table(result.sizes))


if __name__ == "__main__":
    main()
