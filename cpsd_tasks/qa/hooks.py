"""QA harness hooks: ``process_results`` and the per-type aggregations the task YAMLs name.

Also :func:`tau_qa`, the run's 模糊 threshold. The harness writes each hook's source into the
results JSON (``configs``), so their text (docstrings included) is kept as it was.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from cpsd_tasks.options import run_config
from cpsd_tasks.qa.score import TAU_QA_DEFAULT, judge_exam, judge_reading
from cpsd_tasks.specs import QA_TYPE_METRICS, TypeItem
from cpsd_tasks.tasks import get_task
from cpsd_tasks.taxonomy import reading

def tau_qa() -> float:
    """The 模糊 threshold τ_qa for this run, in [0, 1]: ``--metadata '{"tau_qa": x}'`` as case_reading's
    :class:`~cpsd_tasks.options.RunConfig` holds it (checked when the task was built), default 0.6."""
    return run_config("case_reading").tau_qa


# --------------------------------------------------------------------------- harness hooks

#: Per-type metric name -> question type, per task (declared in :mod:`cpsd_tasks.specs`).
TYPE_METRICS: dict[str, dict[str, str]] = QA_TYPE_METRICS


def process_results(doc: dict[str, Any], results: Sequence[Optional[str]]) -> dict[str, Any]:
    """lm-eval ``process_results`` for ``cpsd_case_reading`` and ``cpsd_police_exam``.

    Args:
        doc: a doc from :func:`cpsd_tasks.data.harness_dataset` (``task``, ``qtype``, ``answer``;
            ``options`` for the exam).
        results: the filtered responses; ``results[0]`` is the model output (may be ``None``).

    Returns:
        For each per-type metric of the task (:data:`TYPE_METRICS`): a
        :class:`~cpsd_tasks.specs.TypeItem` ``(qtype, value)`` (logged as ``[qtype, value]``) when
        the doc is of that type, else ``None``; values in {0.0, 1.0}, ``multi_partial`` in [0, 1].
        ``total`` and ``score`` (correctness in {0.0, 1.0}), ``invalid_rate``,
        ``refusal_rate`` and ``truncated_rate`` (0.0/1.0) for every doc; ``reading``, what was
        read (:func:`cpsd_tasks.taxonomy.reading`: the label, sorted letters or span read; for
        option letters also the ``rule`` that decided or the ``reason`` nothing was read).

    Raises:
        ValueError: the doc is not a QA doc, or ``tau_qa`` is invalid (run configuration errors).
    """
    spec = get_task(doc["task"])
    output = results[0] if results else None
    qtype = doc["qtype"]
    if spec.id == "case_reading":
        j = judge_reading(output, doc["answer"], qtype, tau_qa() if qtype == "模糊" else TAU_QA_DEFAULT)
    elif spec.id == "police_exam":
        j = judge_exam(output, doc["answer"], qtype, doc.get("options"), doc.get("question"))
    else:
        raise ValueError(f"cpsd_tasks.qa.process_results: task {spec.id!r} is not a QA task")
    value = float(j.correct)
    out: dict[str, Any] = {}
    for metric, metric_type in TYPE_METRICS[spec.id].items():
        if metric_type != qtype:
            out[metric] = None
        else:
            out[metric] = TypeItem(qtype, j.partial if metric == "multi_partial" else value)
    from cpsd_tasks.truncation import was_truncated

    truncated = was_truncated(output, doc)  # cut by the length limit: not a refusal
    out.update({"total": value, "invalid_rate": float(not j.parsed),
                "refusal_rate": float(j.refusal and not truncated), "score": value})
    out["truncated_rate"] = float(truncated)
    decided = {key: value for key, value in (("rule", j.rule), ("reason", j.reason)) if value is not None}
    out["reading"] = reading(j.prediction, j.error_class, j.refusal and not truncated, qtype=qtype,
                             truncated=truncated, **decided)
    return out


def type_mean(items: Sequence[Any], qtype: str) -> float:
    """Mean of the values of ``qtype``'s items, ignoring ``None`` and other types.

    Args:
        items: per-sample values from :func:`process_results`: a
            :class:`~cpsd_tasks.specs.TypeItem` (or the ``[qtype, value]`` list of a sample log)
            or ``None``.
        qtype: the question type to average.

    Returns:
        The mean in [0, 1]; ``nan`` when the run has no document of that type (not measured).
    """
    typed = [TypeItem._make(item) for item in items if item is not None and len(item) == 2]
    values = [float(item.value) for item in typed if item.qtype == qtype]
    return sum(values) / len(values) if values else float("nan")


def _type_aggregation(task_id: str, metric: str) -> Callable[[Sequence[Any]], float]:
    qtype = TYPE_METRICS[task_id][metric]

    def aggregate(items: Sequence[Any]) -> float:
        return type_mean(items, qtype)

    aggregate.__name__ = f"agg_{metric}"
    aggregate.__qualname__ = aggregate.__name__
    aggregate.__doc__ = (f"Aggregation of cpsd_{task_id} ``{metric}``: mean over the {qtype} documents "
                         f"only, ``nan`` when there are none (see :func:`type_mean`).")
    return aggregate


agg_acc_judge = _type_aggregation("case_reading", "acc_judge")
agg_acc_exact = _type_aggregation("case_reading", "acc_exact")
agg_acc_fuzzy = _type_aggregation("case_reading", "acc_fuzzy")
agg_acc_tf = _type_aggregation("police_exam", "acc_tf")
agg_acc_single = _type_aggregation("police_exam", "acc_single")
agg_acc_multi = _type_aggregation("police_exam", "acc_multi")
agg_multi_partial = _type_aggregation("police_exam", "multi_partial")
