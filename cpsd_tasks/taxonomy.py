"""Error taxonomy of a scored sample (docs/metrics.md#error-classes, the paper's section 4.2).

One function, :func:`error_class`, decides the class from four facts that every task's judge
computes anyway, so metrics and the error analysis can never disagree.
"""

from __future__ import annotations

from typing import Any, Sequence

ERROR_CLASSES: tuple[str, ...] = ("correct", "format", "content", "instruction", "refusal")


def error_class(*, strict_correct: bool, lenient_correct: bool, parsed: bool, refused: bool) -> str:
    """Put one scored sample in its error class (docs/metrics.md#error-classes).

    Args:
        strict_correct: correct under the strict rule (e.g. ``acc``: output equals the label).
        lenient_correct: correct under the lenient rule (e.g. ``acc_fuzzy``: label read from text).
        parsed: an answer of the required kind could be read from the output (a label, a letter
            set, a JSON list …).
        refused: the output is a refusal or empty (see :func:`cpsd_tasks.reading.refusals.is_refusal`); only
            consulted when nothing could be parsed.

    Returns:
        ``correct`` (strict-correct), ``format`` (right answer, wrong form), ``content``
        (well-formed but wrong), ``refusal`` (nothing parsed, refused/empty) or ``instruction``
        (nothing parsed, no refusal: the output ignored the task).
    """
    if strict_correct:
        return "correct"
    if lenient_correct:
        return "format"
    if parsed:
        return "content"
    return "refusal" if refused else "instruction"


def reading(answer: Any, error: str, refused: bool, **extra: Any) -> dict[str, Any]:
    """What was read from one output, for the harness sample log (key ``reading``).

    Args:
        answer: what the task's reader read: a label, sorted letters (``"AC"``), a span, a list of
            IE items, or ``None`` when nothing of the required kind was read.
        error: the sample's :func:`error_class`.
        refused: the output counted as a refusal.
        **extra: task-specific facts (``strict`` label, ``qtype``, ``truncated`` …), JSON values.

    Returns:
        ``{"answer": …, "class": …, "refused": …, **extra}`` — plain JSON, so a user can audit
        every score from the sample log without re-running, and the error analysis reads it.
    """
    return {"answer": answer, "class": error, "refused": bool(refused), **extra}


def agg_reading(items: Sequence[Any]) -> float:
    """Aggregation of ``reading``: the share of samples from which an answer was read, in [0, 1]
    (``answer`` not ``None``); ``nan`` for no samples. Per sample the value is the record of
    :func:`reading`, which the harness writes to the sample log."""
    records = [item for item in items if isinstance(item, dict)]
    if not records:
        return float("nan")
    return sum(record.get("answer") is not None for record in records) / len(records)
