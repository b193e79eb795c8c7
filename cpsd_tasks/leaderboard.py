"""Backward-compatibility shim: the leaderboard now lives in :mod:`cpsd_tasks.report`.

``cpsd_tasks.leaderboard.X`` keeps working for code written against the old single module; new
code imports from the layer that owns ``X``: :mod:`~cpsd_tasks.report.runs` (reading runs),
:mod:`~cpsd_tasks.report.tables` (specs, rows), :mod:`~cpsd_tasks.report.aggregations`,
:mod:`~cpsd_tasks.report.stats` (bootstrap, paired test), :mod:`~cpsd_tasks.report.render`
(Markdown/CSV/LaTeX) and :mod:`~cpsd_tasks.report.cli` (``cpsd-leaderboard``).
"""

import sys

from cpsd_tasks.report.aggregations import aggregation_for, mean_aggregation  # noqa: F401
from cpsd_tasks.report.cli import build_parser, main  # noqa: F401
from cpsd_tasks.report.files import find_rescored, find_result_files, is_rescored_file  # noqa: F401
from cpsd_tasks.report.jsonio import read_jsonl_lines, to_number  # noqa: F401
from cpsd_tasks.report.render import (DEMO_NOTE, PAPER_NOTE, UNKNOWN_NOTE, compare_csv, compare_markdown,  # noqa: F401
                                      csv_header, fmt, latex_escape, read_csv_table, signature_notes,
                                      signatures_csv, table_notes, to_csv, to_latex, to_markdown)
from cpsd_tasks.report.runs import (DEMO, UNKNOWN, Run, TaskRun, apply_rescored, data_of_samples,  # noqa: F401
                                    load_run, load_runs, model_name, parse_model_args)
from cpsd_tasks.report.stats import (CI_LEVEL, DEFAULT_ALPHA, DEFAULT_BOOTSTRAP, DEFAULT_SEED,  # noqa: F401
                                     PairedResult, add_cis, bootstrap_ci, cell_ci, compare_rows, metric_items,
                                     paired_bootstrap, per_sample_scores)
from cpsd_tasks.report.tables import (DEMO_MARK, DIMENSIONS, PAPER_MARK, PAPER_METRIC_NAMES,  # noqa: F401
                                      PAPER_REFERENCE, PUBLISHED, RESCORED_MARK, TABLES, TASK_TITLES, TG_METRICS,
                                      UNKNOWN_MARK, Column, Row, TableSpec, build_rows, convert_paper_reference,
                                      dimension_coverage, dimension_scores, find_row, paper_reference,
                                      select_tables)

if __name__ == "__main__":
    sys.exit(main())
