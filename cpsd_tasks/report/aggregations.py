"""The aggregation a task's metric was scored with, found by metric name — the only such lookup.

The bootstrap (:mod:`cpsd_tasks.report.stats`) re-applies a task's own aggregation to resampled
per-sample values, so it needs the function the harness used for ``<task>.<metric>``. A metric is
declared only in the task's YAML ``metric_list`` today, so the lookup order is:

1. the run's logged ``metric_list`` entry when it names a built-in aggregation (``mean``, or any
   name of the harness registry);
2. the task's current YAML ``!function`` (``cpsd_tasks.classification.agg_f1_macro``), following
   ``include``;
3. a function of the logged source's name found in a ``cpsd_tasks`` module (the harness logs a
   ``!function`` aggregation as its source text).

Step 3 guesses by function name. It stays until the metric specs in Python
(``cpsd_tasks/specs.py``, issue 14) offer a lookup by task and metric name; then this module is
the one place to switch over.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import numpy as np

from cpsd_tasks.report.jsonio import to_number
from cpsd_tasks.report.runs import TaskRun


class _Fn(str):
    """A ``!function`` reference kept as its dotted path."""


@lru_cache(maxsize=1)
def _yaml_loader():
    """A ``yaml.SafeLoader`` subclass reading ``!function a.b`` as :class:`_Fn` (built lazily so
    importing this module stays cheap)."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!function", lambda ld, node: _Fn(ld.construct_scalar(node)))
    return Loader


def _yaml_metric_aggregations(harness_name: str) -> dict[str, str]:
    """``{metric: aggregation}`` of a task's current YAML (following ``include``); ``!function`` as _Fn."""
    import yaml

    from cpsd_tasks import YAML_DIR

    def load(path: Path, depth: int = 0) -> dict[str, Any]:
        if depth > 5 or not path.is_file():
            return {}
        cfg = yaml.load(path.read_text(encoding="utf-8"), Loader=_yaml_loader()) or {}
        base: dict[str, Any] = {}
        for inc in ([cfg["include"]] if isinstance(cfg.get("include"), str) else cfg.get("include") or []):
            base.update(load(path.parent / inc, depth + 1))
        base.update(cfg)
        return base

    cfg = load(YAML_DIR / f"{harness_name}.yaml")
    return {m["metric"]: m.get("aggregation") for m in cfg.get("metric_list") or []
            if isinstance(m, dict) and "metric" in m}


def _import_dotted(path: str) -> Optional[Callable]:
    module, _, attr = path.rpartition(".")
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError, ValueError):
        return None


def _find_by_name(name: str) -> Optional[Callable]:
    import cpsd_tasks

    for info in pkgutil.iter_modules(cpsd_tasks.__path__):
        if info.ispkg:
            continue
        try:
            module = importlib.import_module(f"cpsd_tasks.{info.name}")
        except Exception:  # noqa: BLE001 - a half-written sibling module must not stop the leaderboard
            continue
        fn = getattr(module, name, None)
        if callable(fn):
            return fn
    return None


def mean_aggregation(items: Sequence[Any]) -> float:
    """The harness's ``mean``: arithmetic mean of the numbers (``nan`` for none)."""
    vals = [float(v) for v in items if to_number(v) is not None]
    return float(np.mean(vals)) if vals else float("nan")


@lru_cache(maxsize=None)
def _aggregation_cached(harness_name: str, metric: str, logged: Optional[str]) -> Optional[Callable]:
    if logged is not None and "\n" not in logged and not logged.lstrip().startswith("def "):
        if logged == "mean":
            return mean_aggregation
        try:
            from lm_eval.api.registry import get_aggregation

            return get_aggregation(logged)
        except Exception:  # noqa: BLE001
            return None
    current = _yaml_metric_aggregations(harness_name).get(metric)
    if isinstance(current, _Fn):
        fn = _import_dotted(str(current))
        if fn is not None:
            return fn
    elif current == "mean" and logged is None:
        return mean_aggregation
    if logged:
        m = re.search(r"def\s+(\w+)\s*\(", logged)
        if m:
            return _find_by_name(m.group(1))
    return None


def aggregation_for(tr: TaskRun, metric: str) -> Optional[Callable[[Sequence[Any]], float]]:
    """The aggregation the harness used for ``metric`` of this task.

    Order: the run's logged ``metric_list`` (a built-in name such as ``mean``); else the task's
    current YAML ``!function`` (e.g. ``cpsd_tasks.classification.agg_f1_macro``); else a function
    of the logged source's name found in a ``cpsd_tasks`` module.

    Returns:
        A callable ``items -> float``, or ``None`` when it cannot be resolved (no CI then).
    """
    logged = None
    for entry in tr.config.get("metric_list") or []:
        if isinstance(entry, dict) and entry.get("metric") == metric:
            agg = entry.get("aggregation")
            logged = agg if isinstance(agg, str) else None
    return _aggregation_cached(tr.harness_name, metric, logged)


