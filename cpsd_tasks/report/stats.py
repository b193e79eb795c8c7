"""Statistics of the leaderboard: bootstrap confidence intervals and the paired bootstrap test.

Uncertainty (documented choices):

* **95 % confidence interval of a cell** (``--ci``): nonparametric percentile bootstrap over
  documents. The task's documents are resampled with replacement ``B`` times (default 1000), the
  task's own aggregation is re-applied to the resampled per-sample values of the sample log
  (``mean`` for per-document metrics; the task's ``!function`` aggregation for corpus metrics such
  as ``f1_macro`` or ``f1_micro``, see :mod:`cpsd_tasks.report.aggregations`), and the 2.5 and
  97.5 percentiles of the replicates are the interval. Every cell uses a fresh
  ``numpy.random.default_rng(seed)`` (default seed 1234), so a cell's interval does not depend on
  which other cells were computed.
* **Paired bootstrap test** (``--compare A B``): the documents both runs scored (matched by the
  doc's ``id``) are resampled with replacement, the *same* indices for both runs, and the metric
  difference ``δ* = m(A*) − m(B*)`` is recomputed ``B`` times. The two-sided p-value is the
  shifted-bootstrap estimate ``p = (1 + #{|δ* − δ| ≥ |δ|}) / (B + 1)`` (Efron & Tibshirani 1993,
  §16.4; the test of Koehn 2004 / Berg-Kirkpatrick et al. 2012 is its one-sided form). Identical
  runs give ``δ = 0`` and ``p = 1`` exactly. The better run is named only when ``p < 0.05``.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence

import numpy as np

from cpsd_tasks.exceptions import DataError
from cpsd_tasks.report.aggregations import aggregation_for, mean_aggregation
from cpsd_tasks.report.jsonio import to_number
from cpsd_tasks.report.runs import TaskRun
from cpsd_tasks.report.tables import Row, TableSpec
from cpsd_tasks.tasks import TASKS

log = logging.getLogger(__name__)

#: Reasons already logged (a missing BERTScore is said once per run, not once per cell).
_SAID: set[str] = set()


def why_not_recomputed(tr: TaskRun, err: BaseException) -> tuple[str, str]:
    """``(short note for a cell, the full reason)`` of a metric that could not be recomputed.

    A missing BERTScore model (``BertScoreUnavailable``) gives the same short note in every cell
    (``BERTScore unavailable (see below)``) and its full message once; anything else is
    ``Type: message`` for both.
    """
    short = getattr(err, "short", None)
    if isinstance(short, str):
        return "BERTScore unavailable (see below)", f"BERTScore could not be recomputed: {err}"
    text = f"{type(err).__name__}: {err}"
    return text, text


def say_once(message: str) -> None:
    """Log ``message`` as a warning the first time it comes in this process."""
    if message not in _SAID:
        _SAID.add(message)
        log.warning("%s", message)

DEFAULT_BOOTSTRAP = 1000
DEFAULT_SEED = 1234
DEFAULT_ALPHA = 0.05
CI_LEVEL = 0.95


# --------------------------------------------------------------------------- per-sample values

def _sample_key(sample: dict[str, Any]) -> str:
    doc = sample.get("doc") or {}
    return str(doc.get("id", f"doc_id:{sample.get('doc_id')}"))


def metric_items(tr: TaskRun, metric: str) -> tuple[list[str], list[Any]]:
    """The per-sample values of ``metric`` in the task's sample log, with each doc's id.

    Returns:
        ``(doc ids, per-sample values)`` in log order; empty lists when there is no sample log or
        the samples lack the metric.
    """
    ids, items = [], []
    for s in tr.samples():
        if metric in s:
            ids.append(_sample_key(s))
            items.append(s[metric])
    return ids, items


def _is_bertscore(fn: Callable) -> bool:
    """True for the generation tasks' BERTScore aggregations (items ``[ref, cand, task]``)."""
    return str(getattr(fn, "__module__", "")).startswith("cpsd_tasks.generation") and \
        getattr(fn, "__name__", "") in ("agg_bertscore_f1", "agg_score")


def per_sample_scores(tr: TaskRun, metric: str, items: Sequence[Any],
                      fn: Callable) -> Optional[np.ndarray]:
    """Per-sample numbers whose mean equals the aggregation, when the metric decomposes so.

    Numbers aggregated by ``mean`` are used as they are. BERTScore items ``[ref, cand, task]``
    are scored once with the task's own scorer (``cpsd_tasks.generation.bertscore_f1s``, using the
    run's BERTScore options from its metadata), so a bootstrap never re-runs the model.

    Returns:
        A float array, or ``None`` when the metric is a corpus metric (resample-and-aggregate).
    """
    if fn is mean_aggregation or getattr(fn, "__name__", "") == "mean":
        vals = [to_number(v) for v in items]
        if all(v is not None for v in vals):
            return np.asarray(vals, dtype=float)
        return None
    if _is_bertscore(fn):
        from cpsd_tasks import generation
        from cpsd_tasks.options import RunConfig

        try:  # the stored run's own BERTScore options, read, not written anywhere
            config = RunConfig.from_metadata(tr.task, dict(tr.config.get("metadata") or {}))
        except DataError:
            return None
        scorer_log = logging.getLogger("cpsd_tasks.generation")
        level = scorer_log.level
        scorer_log.setLevel(logging.CRITICAL)  # its per-task ERROR is for runs; the report says it once
        try:
            return np.asarray(generation.bertscore_f1s(items, config), dtype=float)
        finally:
            scorer_log.setLevel(level)
    return None


def _percentiles(stats: np.ndarray, level: float = CI_LEVEL) -> Optional[tuple[float, float]]:
    stats = stats[~np.isnan(stats)]
    if stats.size == 0:
        return None
    lo, hi = np.percentile(stats, [100 * (1 - level) / 2, 100 * (1 + level) / 2])
    return float(lo), float(hi)


def _mean_replicates(values: np.ndarray, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """``n_boot`` bootstrap means of ``values`` (resampled with replacement), drawn in chunks of 500."""
    n = len(values)
    return np.concatenate([values[rng.integers(0, n, (min(500, n_boot - done), n))].mean(axis=1)
                           for done in range(0, n_boot, 500)])


def _replicates(n: int, n_boot: int, rng: np.random.Generator,
                stat: Callable[[np.ndarray], float]) -> np.ndarray:
    return np.array([stat(rng.integers(0, n, n)) for _ in range(n_boot)], dtype=float)


def bootstrap_ci(items: Sequence[Any], aggregate: Callable[[Sequence[Any]], float] = mean_aggregation,
                 n_boot: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED,
                 per_sample: Optional[np.ndarray] = None,
                 level: float = CI_LEVEL) -> Optional[tuple[float, float, float]]:
    """Percentile bootstrap CI of a task metric, resampling documents (see module docstring).

    Args:
        items: per-sample values from the sample log (numbers or corpus-metric items).
        aggregate: the task's aggregation, applied to each resample.
        n_boot: number of resamples (≥ 1). seed: ``numpy.random.default_rng`` seed.
        per_sample: optional per-sample numbers whose mean is the metric (fast vectorised path).
        level: confidence level in (0, 1).

    Returns:
        ``(point estimate, low, high)`` — the point estimate is the aggregation of all items — or
        ``None`` for no items or when every replicate is NaN.

    Raises:
        ValueError: ``n_boot < 1`` or ``level`` outside (0, 1).
    """
    if n_boot < 1 or not 0 < level < 1:
        raise ValueError(f"need n_boot >= 1 and 0 < level < 1, got {n_boot}, {level}")
    n = len(items) if per_sample is None else len(per_sample)
    if n == 0:
        return None
    rng = np.random.default_rng(seed)
    if per_sample is not None:
        point = float(np.mean(per_sample))
        stats = _mean_replicates(per_sample, n_boot, rng)
    else:
        items = list(items)
        point = float(aggregate(items))
        stats = _replicates(n, n_boot, rng, lambda idx: float(aggregate([items[i] for i in idx])))
    ci = _percentiles(stats, level)
    return None if ci is None else (point, ci[0], ci[1])


def cell_ci(tr: TaskRun, metric: str, n_boot: int = DEFAULT_BOOTSTRAP,
            seed: int = DEFAULT_SEED) -> Optional[tuple[float, float]]:
    """95 % bootstrap CI of one table cell from the task's sample log.

    Returns:
        ``(low, high)``, or ``None`` when the run has no sample log, the samples lack the metric,
        the aggregation cannot be resolved or cannot be recomputed (e.g. BERTScore model missing;
        logged as a warning).
    """
    _, items = metric_items(tr, metric)
    if not items:
        return None
    fn = aggregation_for(tr, metric)
    if fn is None:
        log.warning("%s %s: aggregation of %s not found; no CI", tr.harness_name, tr.data, metric)
        return None
    try:
        per_sample = per_sample_scores(tr, metric, items, fn)
        result = bootstrap_ci(items, fn, n_boot, seed, per_sample)
    except Exception as err:  # noqa: BLE001 - a metric that cannot be recomputed gets no CI, not a crash
        short, full = why_not_recomputed(tr, err)
        say_once(f"{full}; those cells get no CI" if short != full else f"{tr.harness_name} {metric}: no CI ({full})")
        return None
    return None if result is None else (result[1], result[2])


def add_cis(rows: Sequence[Row], tables: Sequence[TableSpec], n_boot: int = DEFAULT_BOOTSTRAP,
            seed: int = DEFAULT_SEED) -> None:
    """Fill ``row.ci`` for every non-empty cell of ``tables`` in the run rows (paper rows have none)."""
    for row in rows:
        if row.run is None:
            continue
        for table in tables:
            for col in table.columns:
                tr = row.tasks.get(col.task)
                if tr is not None and row.value(col.task, col.metric) is not None:
                    ci = cell_ci(tr, col.metric, n_boot, seed)
                    if ci is not None:
                        row.ci[(col.task, col.metric)] = ci


# --------------------------------------------------------------------------- paired test

@dataclass(frozen=True)
class PairedResult:
    """Paired bootstrap test of one task's metric between runs A and B.

    Attributes:
        task, metric: what was compared. n: documents both runs scored.
        a, b: the metric of A and of B on those documents. delta: ``a - b``.
        ci: 95 % percentile interval of the bootstrap ``δ*`` (``None`` when not computable).
        p: two-sided p-value in (0, 1] (see module docstring); ``None`` when not computable.
        better: ``"A"`` name, ``"B"`` name, ``"no significant difference"`` or ``"identical"``.
        note: why a test could not be run, or a remark (e.g. documents not shared).
        detail: the full reason behind a short ``note`` (a missing BERTScore model), shown once
            below the table, not in every row.
    """

    task: str
    metric: str
    n: int
    a: Optional[float]
    b: Optional[float]
    delta: Optional[float]
    ci: Optional[tuple[float, float]]
    p: Optional[float]
    better: str
    note: str = ""
    detail: str = ""


def paired_bootstrap(items_a: Sequence[Any], items_b: Sequence[Any],
                     aggregate: Callable[[Sequence[Any]], float] = mean_aggregation,
                     n_boot: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED,
                     per_sample_a: Optional[np.ndarray] = None, per_sample_b: Optional[np.ndarray] = None,
                     ) -> tuple[float, float, float, Optional[tuple[float, float]], float]:
    """Paired bootstrap over aligned documents (item ``i`` of A and of B are the same document).

    Args:
        items_a, items_b: aligned per-sample values (same length). aggregate: the task's
        aggregation. n_boot, seed: resamples and RNG seed. per_sample_a/_b: optional per-sample
        numbers whose mean is the metric (vectorised path; both or neither).

    Returns:
        ``(a, b, delta, ci_of_delta, p)`` with ``p = (1 + #{|δ*−δ| ≥ |δ|}) / (n_boot + 1)``;
        identical inputs give ``delta = 0`` and ``p = 1``.

    Raises:
        ValueError: lengths differ, no items, or ``n_boot < 1``.
    """
    n = len(items_a) if per_sample_a is None else len(per_sample_a)
    n_b = len(items_b) if per_sample_b is None else len(per_sample_b)
    if n != n_b or n == 0 or n_boot < 1:
        raise ValueError(f"paired bootstrap needs two equal, non-empty samples and n_boot >= 1 "
                         f"(got {n}, {n_b}, {n_boot})")
    rng = np.random.default_rng(seed)
    if per_sample_a is not None and per_sample_b is not None:
        a, b = float(per_sample_a.mean()), float(per_sample_b.mean())
        deltas = _mean_replicates(per_sample_a - per_sample_b, n_boot, rng)
    else:
        la, lb = list(items_a), list(items_b)
        a, b = float(aggregate(la)), float(aggregate(lb))
        deltas = _replicates(n, n_boot, rng, lambda idx: float(aggregate([la[i] for i in idx]))
                             - float(aggregate([lb[i] for i in idx])))
    delta = a - b
    valid = deltas[~np.isnan(deltas)]
    if valid.size == 0 or math.isnan(delta):
        return a, b, delta, None, float("nan")
    # Tolerance: float noise must not turn identical runs into a "difference".
    extreme = np.abs(valid - delta) >= abs(delta) - 1e-12
    p = (1 + int(extreme.sum())) / (valid.size + 1)
    return a, b, delta, _percentiles(valid), float(p)


def compare_rows(row_a: Row, row_b: Row, metric: Optional[str] = None, n_boot: int = DEFAULT_BOOTSTRAP,
                 seed: int = DEFAULT_SEED, alpha: float = DEFAULT_ALPHA) -> list[PairedResult]:
    """Paired bootstrap test per task shared by two run rows.

    Args:
        row_a, row_b: run rows. metric: metric to compare (default: each task's primary metric,
        docs/metrics.md#tasks-groups-and-primary-metrics). n_boot, seed: bootstrap settings. alpha: significance
        level for ``better``.

    Returns:
        One :class:`PairedResult` per task both rows have, in registry order. Documents are matched
        by ``doc.id``; only shared documents are compared (the note says how many were dropped).
    """
    out: list[PairedResult] = []
    for task in TASKS:
        ta, tb = row_a.tasks.get(task), row_b.tasks.get(task)
        if ta is None or tb is None:
            continue
        m = metric or TASKS[task].primary_metric
        ids_a, items_a = metric_items(ta, m)
        ids_b, items_b = metric_items(tb, m)
        if not items_a or not items_b:
            out.append(PairedResult(task, m, 0, ta.metrics.get(m), tb.metrics.get(m), None, None, None,
                                    "not tested", "no per-sample values (sample log missing or metric absent)"))
            continue
        map_a, map_b = dict(zip(ids_a, items_a)), dict(zip(ids_b, items_b))
        shared = [k for k in ids_a if k in map_b]
        note = ""
        if len(shared) < max(len(map_a), len(map_b)):
            note = f"{len(shared)} shared documents of {len(map_a)} / {len(map_b)}"
        if ta.data != tb.data:
            note = (note + "; " if note else "") + "different data sources"
        if not shared:
            out.append(PairedResult(task, m, 0, None, None, None, None, None, "not tested", "no shared documents"))
            continue
        fn = aggregation_for(ta, m) or mean_aggregation
        xa, xb = [map_a[k] for k in shared], [map_b[k] for k in shared]
        try:
            psa = per_sample_scores(ta, m, xa, fn)
            psb = per_sample_scores(tb, m, xb, fn) if psa is not None else None
            a, b, delta, ci, p = paired_bootstrap(xa, xb, fn, n_boot, seed, psa if psb is not None else None, psb)
        except Exception as err:  # noqa: BLE001
            short, full = why_not_recomputed(ta, err)
            out.append(PairedResult(task, m, len(shared), ta.metrics.get(m), tb.metrics.get(m), None, None, None,
                                    "not tested", short, full if full != short else ""))
            continue
        higher = ta.higher_is_better.get(m, True)
        if math.isnan(p):
            better = "not tested"
        elif delta == 0 or abs(delta) < 1e-12:
            better = "identical" if p >= 1.0 else "no significant difference"
        elif p < alpha:
            better = row_a.label if (delta > 0) == higher else row_b.label
        else:
            better = "no significant difference"
        out.append(PairedResult(task, m, len(shared), a, b, delta, ci, None if math.isnan(p) else p, better, note))
    return out


