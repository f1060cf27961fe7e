"""`python -m speckata.cli`: the same as the `kata` console script."""

import sys

from speckata.cli import main

sys.exit(main())
