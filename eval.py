"""Evaluate an exported model as a success judge (= `mineclip eval`).

    python eval.py --model ARTIFACT --labels FILE.jsonl --out DIR [--baseline ARTIFACT] [--shards URLS]
"""

import sys

from mineclip.cli import main

if __name__ == "__main__":
    sys.exit(main(["eval", *sys.argv[1:]]))  # -v / -q as for `mineclip eval`
