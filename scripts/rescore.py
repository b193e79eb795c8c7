#!/usr/bin/env python
"""Thin shim: ``python scripts/rescore.py OUT --bertscore-model DIR`` = ``cpsd-rescore`` =
``cpsd-leaderboard rescore``.

See :mod:`cpsd_tasks.report.rescore`.
"""

import sys
from pathlib import Path

try:
    from cpsd_tasks.report.rescore import *  # noqa: F401,F403  (callers may use its functions)
    from cpsd_tasks.report.rescore import main
except ImportError:  # run from a checkout without installing the package
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from cpsd_tasks.report.rescore import *  # noqa: F401,F403
    from cpsd_tasks.report.rescore import main

if __name__ == "__main__":
    sys.exit(main())
