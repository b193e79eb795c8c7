"""The aggregation a task's metric was scored with, found by metric name — the only such lookup.

The bootstrap (:mod:`cpsd_tasks.report.stats`) re-applies a task's own aggregation to resampled
per-sample values, so it needs the function the harness used for ``<task>.<metric>``. Every
metric is declared once, in :mod:`cpsd_tasks.specs`; the lookup order is:

1. the task's declaration (:func:`cpsd_tasks.specs.metric_spec`): ``mean`` is
   :func:`mean_aggregation` (the harness's mean, skipping missing values), another harness
   built-in comes from the harness registry, our own function from
   :func:`cpsd_tasks.specs.aggregation`;
2. for a metric the specs do not declare (a run made by an older version), the built-in name the
   run logged in its ``metric_list`` (``mean``);
3. else ``None``: no CI for that cell (the caller logs why). Nothing is guessed from a function
   name or read again from YAML.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, Optional, Sequence

import numpy as np

from cpsd_tasks import specs
from cpsd_tasks.report.jsonio import to_number
from cpsd_tasks.report.runs import TaskRun


def mean_aggregation(items: Sequence[Any]) -> float:
    """The harness's ``mean``: arithmetic mean of the numbers (``nan`` for none)."""
    vals = [float(v) for v in items if to_number(v) is not None]
    return float(np.mean(vals)) if vals else float("nan")


def _builtin(name: str) -> Optional[Callable]:
    """A harness built-in aggregation by name (``mean`` as :func:`mean_aggregation`), or ``None``."""
    if name == "mean":
        return mean_aggregation
    try:
        from lm_eval.api.registry import get_aggregation

        return get_aggregation(name)
    except Exception:  # noqa: BLE001 - an unknown name: no CI, not a crash
        return None


@lru_cache(maxsize=None)
def _aggregation_cached(task: str, metric: str, logged: Optional[str]) -> Optional[Callable]:
    try:
        declared = specs.metric_spec(task, metric)
    except KeyError:
        declared = None
    if declared is not None:
        if declared.builtin:
            return _builtin(declared.aggregation)
        try:
            return specs.aggregation(task, metric)
        except (ImportError, AttributeError):  # a declared function that cannot be imported: no CI
            return None
    if logged is not None and logged.isidentifier():
        return _builtin(logged)
    return None


def aggregation_for(tr: TaskRun, metric: str) -> Optional[Callable[[Sequence[Any]], float]]:
    """The aggregation the harness used for ``metric`` of this task (see the module docstring).

    Args:
        tr: the task's run (its id names the task; its logged ``metric_list`` is the fallback).
        metric: metric name without filter (``f1_macro``).

    Returns:
        A callable ``items -> float``, or ``None`` when it cannot be resolved (no CI then).
    """
    logged = None
    for entry in tr.config.get("metric_list") or []:
        if isinstance(entry, dict) and entry.get("metric") == metric:
            agg = entry.get("aggregation")
            logged = agg if isinstance(agg, str) else None
    return _aggregation_cached(tr.task, metric, logged)
