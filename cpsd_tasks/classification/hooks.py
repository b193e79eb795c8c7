"""The harness hooks of the four classification tasks: ``process_results`` and the corpus
aggregations of the macro scores (:mod:`cpsd_tasks.classification.score` judges and counts)."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from cpsd_tasks.classification.score import judge, macro_prf
from cpsd_tasks.specs import MacroItem
from cpsd_tasks.tasks import get_task
from cpsd_tasks.taxonomy import reading


def process_results(doc: dict[str, Any], results: Sequence[Optional[str]]) -> dict[str, Any]:
    """lm-eval ``process_results`` for the four classification tasks.

    Args:
        doc: a doc from :func:`cpsd_tasks.data.harness_dataset` (needs ``task`` and ``label``).
        results: the filtered responses; ``results[0]`` is the model output (may be ``None``).

    Returns:
        Per-sample values: ``acc``, ``acc_fuzzy``, ``refusal_rate``, ``invalid_rate``, ``score``
        in {0.0, 1.0}; ``f1_macro``/``precision_macro``/``recall_macro`` as
        :class:`~cpsd_tasks.specs.MacroItem` ``(gold, prediction or None, task id)`` for the
        corpus aggregations below (logged as a JSON list);
        ``reading``, what was read (:func:`cpsd_tasks.taxonomy.reading`).
    """
    spec = get_task(doc["task"])
    output = results[0] if results else None
    j = judge(output, doc["label"], spec, source=doc.get("text"))
    item = MacroItem(doc["label"], j.fuzzy, spec.id)
    acc = float(j.strict == doc["label"])
    from cpsd_tasks.truncation import was_truncated

    truncated = was_truncated(output, doc)  # cut by the length limit: not a refusal
    return {
        "acc": acc,
        "acc_fuzzy": float(j.fuzzy == doc["label"]),
        "f1_macro": item,
        "precision_macro": item,
        "recall_macro": item,
        "refusal_rate": float(j.refusal and not truncated),
        "invalid_rate": float(j.fuzzy is None),
        "truncated_rate": float(truncated),
        "score": acc,
        "reading": reading(j.fuzzy, j.error_class, j.refusal and not truncated, strict=j.strict,
                           truncated=truncated),
    }


def agg_precision_macro(items: Sequence[Sequence[Any]]) -> float:
    """Aggregation for ``precision_macro``: see :func:`macro_prf`."""
    return macro_prf(items)[0]


def agg_recall_macro(items: Sequence[Sequence[Any]]) -> float:
    """Aggregation for ``recall_macro``: see :func:`macro_prf`."""
    return macro_prf(items)[1]


def agg_f1_macro(items: Sequence[Sequence[Any]]) -> float:
    """Aggregation for ``f1_macro``: see :func:`macro_prf`."""
    return macro_prf(items)[2]
