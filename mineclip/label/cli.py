"""`mineclip label SET --labels OUT.jsonl`: label trajectories in the browser."""

from __future__ import annotations

import argparse
import sys

from mineclip.reward.reward import MODES


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="mineclip label",
        description="Serve a local web page on which a person labels trajectories as success or failure (and "
                    "rates tasks). The labels land in OUT.jsonl in the format `mineclip eval` reads; every "
                    "decision is kept in OUT.history.jsonl beside it, and a restarted session resumes there.")
    p.add_argument("set", help="a trajectory JSON-lines file (videos or frame folders beside it, e.g. an "
                               "evalset.jsonl), or a folder of videos with a prompt per video (NAME.txt beside "
                               "NAME.mp4)")
    p.add_argument("--labels", required=True, help="OUT.jsonl: people's labels, in the format `mineclip eval` reads")
    p.add_argument("--port", type=int, default=8765, help="port to serve on (0: any free port)")
    p.add_argument("--host", default=None,
                   help="address to listen on (default 127.0.0.1: this machine only); anyone who can reach "
                        "another address can see the set and add labels")
    p.add_argument("--model", default=None,
                   help="an exported artifact: show first the trajectories its judge is least sure about, and "
                        "estimate its F1 against the labels as they come in")
    p.add_argument("--order", choices=("judge", "set", "random"), default=None,
                   help="showing order: 'judge' (the judge's least sure first; the default with --model), 'set' "
                        "(as in the set; the default without), 'random' (shuffled: labels that sample the set "
                        "evenly, for an unbiased F1 estimate)")
    p.add_argument("--negatives", default=None,
                   help="the judge's negative prompts (as `mineclip eval`; default: the artifact's judge settings)")
    p.add_argument("--mode", choices=MODES, default=None,
                   help="reward formula the judge's scores average (default: the artifact's judge settings)")
    p.add_argument("--prompt", default=None, help="the prompt of every video of a folder that has no NAME.txt")
    p.add_argument("--ratings", default=None,
                   help="file for task difficulty ratings (default: OUT.ratings.jsonl beside the labels; one "
                        "file may be shared by several sets, and `mineclip tasks difficulty --recompute --ratings "
                        "FILE` reads it)")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress bar while the judge scores the set (and, through `mineclip`, warnings and "
                        "errors only)")
    return p


def main(argv: list[str] | None = None) -> int:
    from mineclip.cli import quiet
    from mineclip.extras import require

    a = build_parser().parse_args(argv)
    require("fastapi", "uvicorn", feature="the labelling app (mineclip label)")  # else one line naming the extra
    from .server import serve
    from .session import LabelSettings

    settings = LabelSettings(set=a.set, labels=a.labels, port=a.port, host=a.host, model=a.model,
                             order=a.order, negatives=a.negatives, mode=a.mode, prompt=a.prompt,
                             ratings=a.ratings, progress=not (a.quiet or quiet()))
    try:
        return serve(settings)
    except KeyboardInterrupt:
        return 0
    except (ValueError, OSError) as e:  # LabelError, a bad set, a taken port, an unreadable artifact
        print(f"mineclip label: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
