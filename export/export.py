"""Export a checkpoint as a reward/judge artifact: `python export/export.py CKPT --out DIR` (= `mineclip export`)."""

import sys

from mineclip.export.cli import main

if __name__ == "__main__":
    sys.exit(main())
