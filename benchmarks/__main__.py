"""``python -m benchmarks``: see :mod:`benchmarks` and ``python -m benchmarks --help``."""

import sys

from benchmarks.cli import main

sys.exit(main())
