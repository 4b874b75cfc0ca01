"""Train MineCLIP: `python train.py fit --config tiny` (same as `mineclip train ...`)."""

import sys

from mineclip.train.cli import main

if __name__ == "__main__":
    sys.exit(main())
