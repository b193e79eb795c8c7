"""Classification tasks: per-sample judgement and the macro scores (docs/metrics.md#classification).

Metrics of ``cpsd_sentiment``, ``cpsd_rumor``, ``cpsd_fraud_detection`` and
``cpsd_incident_classification``:

* ``acc`` — strict: the normalised output equals the gold label (paper Table 3);
* ``acc_fuzzy`` — the one label read from free text equals the gold (paper Figure 7);
* ``f1_macro``, ``precision_macro``, ``recall_macro`` — scikit-learn's ``average="macro"`` over
  the task's labels on the fuzzy predictions (bit-identical, computed with numpy: scikit-learn is
  not imported), 0 for a class with no prediction; an unreadable output is a miss for its gold
  class and a prediction of no class;
* ``refusal_rate``, ``invalid_rate`` — shares of refusals and of outputs with no readable label
  (refusals included, so ``invalid_rate >= refusal_rate``);
* ``score`` — equals ``acc``; the key every task emits for the ``cpsd`` group average.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence

from cpsd_tasks.specs import MacroItem
from cpsd_tasks.tasks import TaskSpec, get_task
from cpsd_tasks.taxonomy import error_class
from cpsd_tasks.reading.labels import read_label, strict_label
from cpsd_tasks.reading.refusals import is_refusal


@dataclass(frozen=True)
class Judgement:
    """How one output scores against its gold label.

    Attributes:
        strict: label the output equals exactly, else ``None``.
        fuzzy: label read from the free text, else ``None``.
        refusal: the output refuses or is empty and names no label.
        error_class: the error class (``correct``/``format``/``content``/``instruction``/``refusal``;
            docs/metrics.md#error-classes).
    """

    strict: Optional[str]
    fuzzy: Optional[str]
    refusal: bool
    error_class: str


def judge(output: Optional[str], gold: str, spec: TaskSpec, source: Optional[str] = None) -> Judgement:
    """Judge one classification output (docs/metrics.md#classification, docs/metrics.md#error-classes).

    Args:
        output: raw model output (``None`` = missing answer).
        gold: the gold label.
        spec: the task (labels and aliases).
        source: the doc's text, if known: a label mentioned only inside a passage copied from it
            names nothing (:func:`cpsd_tasks.reading.labels.read_label`).

    Returns:
        A :class:`Judgement`; never raises on model output.
    """
    strict = strict_label(output, spec.labels)
    fuzzy = strict or read_label(output, spec.labels, spec.aliases, source=source)
    refusal = fuzzy is None and is_refusal(output)
    return Judgement(
        strict=strict,
        fuzzy=fuzzy,
        refusal=refusal,
        error_class=error_class(strict_correct=strict == gold, lenient_correct=fuzzy == gold,
                                parsed=fuzzy is not None, refused=refusal),
    )


def macro_prf(items: Sequence[Sequence[Any]]) -> tuple[float, float, float]:
    """Macro precision, recall and F1 over a task's labels (scikit-learn ``average="macro"``).

    Computed from the per-label counts (true positives, predictions, gold occurrences) with numpy,
    in the same floating-point operations as scikit-learn's ``precision_recall_fscore_support(...,
    average="macro", zero_division=0)``, so the values are bit-identical to it (tested against it
    on random label lists) without importing scikit-learn (~3 s, ~70 MiB) when a run aggregates.

    Args:
        items: a :class:`~cpsd_tasks.specs.MacroItem` per sample (or the ``[gold, prediction or
            None, task id]`` list a sample log holds), all of one task.

    Returns:
        ``(precision, recall, f1)``, each in [0, 1]; ``(0, 0, 0)`` for no items. Classes are the
        task's labels whether or not they occur; a class with no prediction has
        precision 0 (``zero_division=0``); ``None`` predictions count as misses of the gold class.
    """
    import numpy as np

    if not items:
        return 0.0, 0.0, 0.0
    items = [MacroItem._make(item) for item in items]
    labels = get_task(items[0].task).labels
    index = {label: i for i, label in enumerate(labels)}
    tp_sum = np.zeros(len(labels), dtype=np.int64)
    pred_sum = np.zeros(len(labels), dtype=np.int64)
    true_sum = np.zeros(len(labels), dtype=np.int64)
    for item in items:
        g = index.get(item.gold)
        p = index.get(item.pred) if item.pred is not None else None
        if g is not None:
            true_sum[g] += 1
        if p is not None:
            pred_sum[p] += 1
            if p == g:
                tp_sum[p] += 1
    precision = _divide(tp_sum.astype(np.float64), pred_sum)
    recall = _divide(tp_sum.astype(np.float64), true_sum)
    # scikit-learn's F-beta from counts, beta = 1: (1 + b²)·tp / (b²·true + pred)
    f1 = _divide(2.0 * tp_sum.astype(np.float64), 1.0 * true_sum.astype(np.float64) + pred_sum.astype(np.float64))
    return float(np.nanmean(precision)), float(np.nanmean(recall)), float(np.nanmean(f1))


def _divide(numerator: Any, denominator: Any) -> Any:
    """``numerator / denominator`` per class, 0.0 where the denominator is 0 (scikit-learn's
    ``_prf_divide`` with ``zero_division=0``)."""
    import numpy as np

    mask = denominator == 0
    denominator = np.asarray(denominator, dtype=np.float64).copy()
    denominator[mask] = 1
    result = np.asarray(numerator, dtype=np.float64) / denominator
    result[mask] = 0.0
    return result
