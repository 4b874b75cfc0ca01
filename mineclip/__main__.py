"""`python -m mineclip ...`: the same as the `mineclip` command."""

import sys

from mineclip.cli import main

sys.exit(main())
