#!/usr/bin/env python
"""Thin wrapper: ``python scripts/leaderboard.py OUT_A OUT_B --with-paper --out report/``.

Same as the ``cpsd-leaderboard`` console command; see :mod:`cpsd_tasks.leaderboard`.
"""

import sys
from pathlib import Path

try:
    from cpsd_tasks.leaderboard import main
except ImportError:  # run from a checkout without installing the package
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from cpsd_tasks.leaderboard import main

if __name__ == "__main__":
    sys.exit(main())
