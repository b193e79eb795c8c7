"""Backward-compatibility shim: rescoring now lives in :mod:`cpsd_tasks.report.rescore`
(``cpsd-leaderboard rescore`` = ``cpsd-rescore``)."""

import sys

from cpsd_tasks.report.rescore import (AGGREGATIONS, NUMERIC, TASKS, build_parser, find_runs, main,  # noqa: F401
                                       rescore_file, run_values)

if __name__ == "__main__":
    sys.exit(main())
