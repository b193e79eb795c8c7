"""IE harness hooks: the functions the task YAMLs and :mod:`cpsd_tasks.specs` name (docs/metrics.md).

``doc_to_target``, ``process_results`` and the aggregations ``agg_f1_pooled`` (``f1_micro``) and
``agg_f1_type`` (``f1_<type>``), plus :func:`run_options`, the run's α and τ (from the task's
:class:`~cpsd_tasks.options.RunConfig`). The harness writes each hook's source into the results JSON
(``configs``): a change of their text (docstrings included) changes that file.
"""

from __future__ import annotations

import json
import math
from typing import Any, Optional, Sequence

from cpsd_tasks.ie.match import Counts, doc_scores, judge
from cpsd_tasks.options import run_config
from cpsd_tasks.specs import CountItem
from cpsd_tasks.taxonomy import reading
from cpsd_tasks.tasks import get_task

def run_options(task_id: str) -> tuple[float, float]:
    """The run's ``(alpha, tau)`` for a task: its :class:`~cpsd_tasks.options.RunConfig`, checked
    when the task was built (defaults 0.5, 0.8)."""
    config = run_config(task_id)
    return config.alpha, config.tau


def doc_to_target(doc: dict[str, Any]) -> str:
    """The gold answer as the JSON the prompt asks for (few-shot targets, sample logs)."""
    if "relations" in doc:
        items = [{"head": r["head"], "relation": r["relation"], "tail": r["tail"]} for r in doc["relations"]]
    else:
        items = [{"type": e["type"], "text": e["text"]} for e in doc["entities"]]
    return json.dumps(items, ensure_ascii=False)


def process_results(doc: dict[str, Any], results: Sequence[Optional[str]]) -> dict[str, Any]:
    """lm-eval ``process_results`` for the three IE tasks (docs/metrics.md#information-extraction).

    Args:
        doc: a doc from :func:`cpsd_tasks.data.harness_dataset`.
        results: filtered responses; ``results[0]`` is the model output (may be ``None``).

    Returns:
        Per-sample values. Floats in [0, 1] (aggregated by ``mean``): ``precision``, ``recall``,
        ``f1``, ``f1_exact``, ``f1_fuzzy``, ``invalid_rate`` (0/1), ``score`` (= ``f1``); α and τ
        are in the task's scoring signature (:mod:`cpsd_tasks.options`), not metrics. Count items
        :class:`~cpsd_tasks.specs.CountItem` (logged as ``[tp_exact, tp_fuzzy, n_pred, n_gold, alpha]``;
        aggregated by :func:`agg_f1_pooled` and :func:`agg_f1_type`): ``f1_micro`` (whole document) and
        ``f1_<type>`` for each of the task's types/relations (``TaskSpec.labels``). ``truncated_rate`` (0/1) and
        ``reading``: the items read, ``[type, text]`` or ``[relation, head, tail]`` in comparison
        form, ``None`` when unparseable (:func:`cpsd_tasks.taxonomy.reading`).
    """
    spec = get_task(doc["task"])
    alpha, tau = run_options(spec.id)
    j = judge(doc, results[0] if results else None, alpha, tau)
    s = j.scores
    out: dict[str, Any] = {
        "precision": s.precision, "recall": s.recall, "f1": s.f1,
        "f1_exact": s.f1_exact, "f1_fuzzy": s.f1_fuzzy,
        "f1_micro": _item(j.total, alpha),
        "invalid_rate": float(not j.parsed.valid),
        "score": s.f1,
    }
    from cpsd_tasks.truncation import was_truncated

    truncated = was_truncated(results[0] if results else None, doc)
    out["truncated_rate"] = float(truncated)
    refused = j.error_class == "refusal" and not truncated
    out["reading"] = reading([list(item) for item in j.parsed.items] if j.parsed.valid else None,
                             j.error_class, refused, truncated=truncated)
    for label in spec.labels:
        out[f"f1_{label}"] = _item(j.by_type.get(label, Counts()), alpha)
    return out


def _item(c: Counts, alpha: float) -> CountItem:
    return CountItem(c.tp_exact, c.tp_fuzzy, c.n_pred, c.n_gold, alpha)


def agg_f1_pooled(items: Sequence[Sequence[float]]) -> float:
    """Aggregation of ``f1_micro`` and ``f1_<type>``: pooled counts, then ``α·F1_exact + (1−α)·F1_fuzzy``.

    Args:
        items: a :class:`~cpsd_tasks.specs.CountItem` per document, or the ``[tp_exact, tp_fuzzy,
            n_pred, n_gold, alpha]`` list a sample log holds (α is the run's, the same in every item).

    Returns:
        F1 in [0, 1]; 1.0 when the pooled gold and predictions are both empty (the empty-document
        rule), 0.0 for no items.
    """
    if not items:
        return 0.0
    items = [CountItem._make(it) for it in items]
    total = Counts(int(sum(it.tp_exact for it in items)), int(sum(it.tp_fuzzy for it in items)),
                   int(sum(it.n_pred for it in items)), int(sum(it.n_gold for it in items)))
    return doc_scores(total, float(items[0].alpha)).f1


def agg_f1_type(items: Sequence[Sequence[float]]) -> float:
    """Aggregation of ``f1_<type>``: as :func:`agg_f1_pooled`, but ``NaN`` (not measured) when the
    type occurs in neither the gold nor the predictions of the whole run.

    Args:
        items: as for :func:`agg_f1_pooled`.

    Returns:
        F1 in [0, 1], or ``NaN`` when the type was never seen (a perfect 1.0 would be unearned).
    """
    items = [CountItem._make(it) for it in items]
    if not any(it.n_pred or it.n_gold for it in items):
        return math.nan
    return agg_f1_pooled(items)
