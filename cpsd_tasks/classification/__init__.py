"""Classification tasks (sentiment, rumor, fraud detection, incident classification): scorer and hooks.

* :mod:`~cpsd_tasks.classification.score` — :func:`judge` (strict and read label, refusal, error
  class) and :func:`macro_prf` (scikit-learn's macro P/R/F1, bit for bit, without scikit-learn);
* :mod:`~cpsd_tasks.classification.hooks` — ``process_results`` and the aggregations the YAMLs name.

The names below are reached as ``cpsd_tasks.classification.<name>`` (YAML ``!function``,
:mod:`cpsd_tasks.specs`, :mod:`cpsd_tasks.report.errors`, tests).
"""

from __future__ import annotations

from cpsd_tasks.classification.hooks import agg_f1_macro, agg_precision_macro, agg_recall_macro, process_results
from cpsd_tasks.classification.score import Judgement, judge, macro_prf

__all__ = ["process_results", "agg_f1_macro", "agg_precision_macro", "agg_recall_macro", "Judgement", "judge",
           "macro_prf"]
