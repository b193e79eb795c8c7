"""Harness hooks of the three generation tasks (docs/metrics.md#text-generation): what the task YAMLs name.

``process_results`` and the aggregations ``agg_bertscore_f1``, ``agg_score`` and
``agg_bertscore_config`` are named in ``cpsd_tasks/yaml/_tg_template_yaml`` as
``!function cpsd_tasks.generation.<name>``; the six text metrics, ``empty_rate`` and
``truncated_rate`` use the harness's ``mean``. The harness writes each hook's source into the
results JSON (``configs``): a change of their text (docstrings included) changes that file.

* ``score`` — equals ``bertscore_f1`` (the paper's TG metric); NaN when BERTScore is
  missing, never a stand-in metric and never 0;
* ``empty_rate`` — share of outputs with nothing to score (empty, whitespace, or an unclosed
  ``<think>``); they score 0 on every metric;
* ``bertscore_config`` — a text (not a number) saying which model, layer and bert-score version
  produced ``bertscore_f1``, how many texts were truncated to the model's 512-token window, or
  why BERTScore is missing.
"""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence

from cpsd_tasks.generation.bertscore import bertscore_f1s, describe_bertscore
from cpsd_tasks.generation.overlap import TEXT_METRICS, text_scores
from cpsd_tasks.generation.settings import BertScoreUnavailable
from cpsd_tasks.generation.tokens import clean
from cpsd_tasks.options import RunConfig
from cpsd_tasks.reading.prepare import strip_think
from cpsd_tasks.reading.turns import written_turn
from cpsd_tasks.taxonomy import reading
from cpsd_tasks.tasks import get_task

#: Every reported metric (docs/metrics.md#text-generation): the paper's, ``score``, ``empty_rate`` and
#: ``bertscore_config``.
METRICS: tuple[str, ...] = ("bertscore_f1", *TEXT_METRICS, "score", "empty_rate", "bertscore_config")


def process_results(doc: dict[str, Any], results: Sequence[Optional[str]]) -> dict[str, Any]:
    """lm-eval ``process_results`` for the three generation tasks (docs/metrics.md#text-generation).

    Args:
        doc: a doc from :func:`cpsd_tasks.data.harness_dataset` (needs ``task`` and ``reference``).
        results: filtered responses; ``results[0]`` is the output (may be ``None``).

    Returns:
        The six text metrics and ``empty_rate`` as floats; ``bertscore_f1`` and ``score`` as
        ``[reference, candidate, task id]`` items for the batched BERTScore aggregation (the
        candidate is the model's own turn, :func:`cpsd_tasks.reading.turns.written_turn`: ``<think>``
        removed, cut at the first end marker such as ``<eoa>`` or invented ``<human>`` turn,
        whitespace stripped, not NFKC-folded: BERT reads the text as written; an output that is
        only punctuation is empty and scores 0 everywhere); ``bertscore_config`` as the task id;
        ``reading`` (what was scored: its length, whether it was empty, cut at an end marker or
        truncated; see :func:`cpsd_tasks.taxonomy.reading`).
    """
    from cpsd_tasks.truncation import was_truncated as _was_truncated

    task_id = get_task(doc["task"]).id
    output = results[0] if results else None
    candidate = written_turn(output)
    reference = strip_think(doc["reference"]).strip()
    item = [reference, candidate, task_id]
    truncated = _was_truncated(output, doc)
    empty = not clean(candidate)
    error = "refusal" if empty and not truncated else "correct"
    return {
        "bertscore_f1": item,
        **text_scores(candidate, reference),
        "score": item,
        "empty_rate": float(empty),
        "bertscore_config": task_id,
        "truncated_rate": float(truncated),
        "reading": reading(None if empty else f"{len(candidate)} chars", error, empty and not truncated,
                           empty=empty, cut=len(candidate) < len(strip_think(output).strip()),
                           truncated=truncated),
    }


def agg_bertscore_f1(items: Sequence[Sequence[Any]], config: Optional[RunConfig] = None) -> float:
    """Aggregation of ``bertscore_f1``: mean BERTScore F1 in [0, 1], or NaN when missing.

    ``config``: the run configuration to score with (re-scoring a stored run); default the one
    the task was built with."""
    if not items:
        return float("nan")
    try:
        f1s = bertscore_f1s(items, config)
    except BertScoreUnavailable:
        return float("nan")
    return sum(f1s) / len(f1s)


def agg_score(items: Sequence[Sequence[Any]], config: Optional[RunConfig] = None) -> float:
    """Aggregation of ``score``: the task's primary metric ``bertscore_f1`` (NaN when missing)."""
    return agg_bertscore_f1(items, config)


def agg_bertscore_config(items: Sequence[str]) -> str:
    """Aggregation of ``bertscore_config``: :func:`describe_bertscore` of the task (a string).

    The harness aggregates metrics in the order :func:`process_results` returns them, so this
    runs after ``bertscore_f1``; run first it would say ``not computed``.
    """
    if not items:
        return "not computed"
    return describe_bertscore(str(items[0]))


def is_missing(value: Any) -> bool:
    """True for the NaN (or ``None``) that marks a missing metric."""
    return value is None or (isinstance(value, float) and math.isnan(value))

