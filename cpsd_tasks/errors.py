"""Backward-compatibility shim: the error analysis now lives in :mod:`cpsd_tasks.report.errors`
(the JSON helpers ``loads_clean``, ``clean_surrogates`` and ``sample_output`` in
:mod:`cpsd_tasks.report.jsonio`)."""

from cpsd_tasks.report.errors import (EXCERPT_CHARS, GOLD_FIELDS, JUDGES, MISTAKE_FIELDS, Judge,  # noqa: F401
                                      SampleJudgement, error_counts, excerpt, export_all, input_text,
                                      judge_rows, judge_sample, judge_task_samples, logged_reading,
                                      write_mistakes)
from cpsd_tasks.report.jsonio import clean_surrogates, loads_clean, sample_output  # noqa: F401
