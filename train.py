"""Train MineCLIP: `python train.py fit --config tiny` (same as `mineclip train ...`)."""

import sys

from mineclip.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", *sys.argv[1:]]))  # -v / -q as for `mineclip train`
