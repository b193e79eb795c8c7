#!/usr/bin/env python
"""Thin wrapper: ``python scripts/leaderboard.py OUT_A OUT_B --with-paper --out report/``.

Same as the ``cpsd-leaderboard`` console command (``… rescore OUT`` too); see
:mod:`cpsd_tasks.report.cli`.
"""

import sys
from pathlib import Path

try:
    from cpsd_tasks.report.cli import main
except ImportError:  # run from a checkout without installing the package
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from cpsd_tasks.report.cli import main

if __name__ == "__main__":
    sys.exit(main())
