"""Every metric of every task, declared once: name, aggregation, direction, corpus item.

The harness learns a task's metrics from the ``metric_list`` of its YAML. Those lists are written
from the declarations here by ``scripts/gen_yaml.py`` (``tests/test_specs.py`` fails when a
committed YAML differs from what it would write), and the report code finds a task's aggregation
here by name with :func:`aggregation`, never by reading YAML or searching modules.

A metric's per-sample value is ``process_results(doc, results)[metric.name]``, where
``process_results`` is its family's (:attr:`Family.process_results`; the ``ll`` family uses the
harness's own ``multiple_choice`` scoring). It is either a number (aggregated by the harness's
``mean``) or a corpus item, a ``NamedTuple`` that the harness writes to the sample log as the JSON
list it always was (``[gold, pred, task]``, ``[tp_exact, tp_fuzzy, n_pred, n_gold, alpha]``,
``[qtype, value]``); the aggregations accept the item or the plain list read back from a log.

Families and their metrics (in ``metric_list`` order):

* ``classification`` (template ``_clf_template_yaml``): acc … score; macro P/R/F1 over
  :class:`MacroItem`.
* ``ie`` (each task's own YAML): precision … score, then ``f1_<type>`` for the task's own types
  (``TaskSpec.labels``) over :class:`CountItem`.
* ``qa`` (each task's own YAML): the per-type accuracies of :data:`QA_TYPE_METRICS` over
  :class:`TypeItem`, then total … score.
* ``generation`` (template ``_tg_template_yaml``): BERTScore, BLEU, ROUGE … bertscore_config.
* ``ll`` (template ``_ll_template_yaml``; tasks :data:`LL_VARIANTS`): the harness's acc/acc_norm.

This module imports only :mod:`cpsd_tasks.tasks`; aggregations are named by dotted path (as the
YAML ``!function`` does) and imported when :func:`aggregation` is first asked for one.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, NamedTuple, Optional, Sequence

from cpsd_tasks.tasks import TaskSpec, get_task

#: Version of the metric code (what each metric computes from what was read). Every change that alters
#: a metric's value for the same readings bumps it and adds a ``CHANGELOG.md`` line; it is part of each
#: task's scoring signature (:func:`cpsd_tasks.options.signature`), beside the reader's version
#: (:data:`cpsd_tasks.reading.READER_VERSION`).
METRICS_VERSION = "1"

# --------------------------------------------------------------------------- corpus items


class MacroItem(NamedTuple):
    """Per-sample item of ``f1_macro``/``precision_macro``/``recall_macro`` (classification).

    Logged as ``[gold, pred, task]``, e.g. ``["积极", null, "sentiment"]``.
    """

    gold: str  #: the gold label
    pred: Optional[str]  #: the label read from the output (fuzzy reading), ``None`` when none
    task: str  #: task id (``sentiment``): selects the label set the macro average runs over


class CountItem(NamedTuple):
    """Per-sample item of ``f1_micro`` and ``f1_<type>`` (information extraction).

    Logged as ``[tp_exact, tp_fuzzy, n_pred, n_gold, alpha]``, e.g. ``[1, 2, 2, 2, 0.5]``.
    """

    tp_exact: int  #: predictions matched in the exact stage
    tp_fuzzy: int  #: predictions matched in the exact or the fuzzy stage (>= ``tp_exact``)
    n_pred: int  #: predictions
    n_gold: int  #: gold items
    alpha: float  #: the run's exact-stage weight in [0, 1] (the same in every item of a run)


class TypeItem(NamedTuple):
    """Per-sample item of a QA per-type metric (``acc_judge`` …), for docs of that type only.

    Logged as ``[qtype, value]``, e.g. ``["判断", 1.0]``; docs of other types log ``null``.
    """

    qtype: str  #: the doc's question type (判断/精确/模糊/单选/多选)
    value: float  #: 0.0/1.0 correctness, or the partial credit in [0, 1] of ``multi_partial``


class BertScoreItem(NamedTuple):
    """Shape of the per-sample value of ``bertscore_f1`` and ``score`` (generation): logged as
    ``[reference, candidate, task]``. (``cpsd_tasks.generation`` builds it as a plain list.)"""

    reference: str
    candidate: str
    task: str


# --------------------------------------------------------------------------- declarations


@dataclass(frozen=True)
class Metric:
    """One metric of a task, as the harness's ``metric_list`` declares it.

    Attributes:
        name: the per-sample key of ``process_results`` and the results key (``f1_人名``).
        aggregation: ``"mean"`` (the harness's built-in) or the dotted path of our function
            (``cpsd_tasks.ie.agg_f1_type``), written to YAML as ``!function <path>``.
        higher_is_better: direction; ``None`` for a descriptive entry (``bertscore_config``).
        item: the corpus item type of the per-sample values, ``None`` when they are numbers
            (or, for ``reading``, a record dict: :func:`cpsd_tasks.taxonomy.reading`).
    """

    name: str
    aggregation: str
    higher_is_better: Optional[bool]
    item: Optional[type] = None

    @property
    def builtin(self) -> bool:
        """The aggregation is a harness built-in (``mean``), not one of ours."""
        return "." not in self.aggregation


@dataclass(frozen=True)
class Family:
    """The tasks that share a per-sample function and (some) metrics.

    Attributes:
        name: ``classification``, ``ie``, ``qa``, ``generation`` or ``ll``.
        process_results: dotted path of the per-sample function (``None``: the harness scores).
        template: the YAML template its tasks ``include``.
        metrics: the metrics every task of the family has, in ``metric_list`` order.
    """

    name: str
    process_results: Optional[str]
    template: str
    metrics: tuple[Metric, ...]


def _mean(name: str, higher_is_better: bool = True) -> Metric:
    return Metric(name, "mean", higher_is_better)


_READING = Metric("reading", "cpsd_tasks.taxonomy.agg_reading", True)

FAMILIES: dict[str, Family] = {f.name: f for f in (
    Family("classification", "cpsd_tasks.classification.process_results", "_clf_template_yaml", (
        _mean("acc"), _mean("acc_fuzzy"),
        Metric("f1_macro", "cpsd_tasks.classification.agg_f1_macro", True, MacroItem),
        Metric("precision_macro", "cpsd_tasks.classification.agg_precision_macro", True, MacroItem),
        Metric("recall_macro", "cpsd_tasks.classification.agg_recall_macro", True, MacroItem),
        _mean("refusal_rate", False), _mean("invalid_rate", False), _mean("truncated_rate", False),
        _READING, _mean("score"))),
    Family("ie", "cpsd_tasks.ie.process_results", "_ie_template_yaml", (
        _mean("precision"), _mean("recall"), _mean("f1"), _mean("f1_exact"), _mean("f1_fuzzy"),
        Metric("f1_micro", "cpsd_tasks.ie.agg_f1_pooled", True, CountItem),
        _mean("invalid_rate", False), _mean("truncated_rate", False), _READING, _mean("score"))),
    Family("qa", "cpsd_tasks.qa.process_results", "_qa_template_yaml", (
        _mean("total"), _mean("invalid_rate", False), _mean("refusal_rate", False),
        _mean("truncated_rate", False), _READING, _mean("score"))),
    Family("generation", "cpsd_tasks.generation.process_results", "_tg_template_yaml", (
        # Order matters for bertscore_config only: it describes the BERTScore run of bertscore_f1.
        Metric("bertscore_f1", "cpsd_tasks.generation.agg_bertscore_f1", True, BertScoreItem),
        _mean("bleu_char"), _mean("bleu_word"), _mean("rouge1_char"), _mean("rougeL_char"),
        _mean("rouge1_word"), _mean("rougeL_word"),
        Metric("score", "cpsd_tasks.generation.agg_score", True, BertScoreItem),
        _mean("empty_rate", False), _mean("truncated_rate", False), _READING,
        Metric("bertscore_config", "cpsd_tasks.generation.agg_bertscore_config", None))),
    Family("ll", None, "_ll_template_yaml", (_mean("acc"), _mean("acc_norm"))),
)}

#: Family of each paper dimension (``TaskSpec.dimension``).
DIMENSION_FAMILY: dict[str, str] = {"clf": "classification", "ie": "ie", "qa": "qa", "tg": "generation"}

#: QA per-type metrics: metric name -> the question type (``TaskSpec.labels``) it averages over.
#: ``cpsd_tasks.qa`` emits and aggregates exactly these (its ``TYPE_METRICS``).
QA_TYPE_METRICS: dict[str, dict[str, str]] = {
    "case_reading": {"acc_judge": "判断", "acc_exact": "精确", "acc_fuzzy": "模糊"},
    "police_exam": {"acc_tf": "判断", "acc_single": "单选", "acc_multi": "多选", "multi_partial": "多选"},
}

#: The log-likelihood variants (``cpsd_tasks/yaml/cpsd_ll_*.yaml``, :mod:`cpsd_tasks.ll`): harness
#: name -> the task id whose data they read.
LL_VARIANTS: dict[str, str] = {
    "cpsd_ll_sentiment": "sentiment",
    "cpsd_ll_rumor": "rumor",
    "cpsd_ll_fraud_detection": "fraud_detection",
    "cpsd_ll_incident_classification": "incident_classification",
    "cpsd_ll_case_reading_judge": "case_reading",
    "cpsd_ll_police_exam_tf": "police_exam",
    "cpsd_ll_police_exam_single": "police_exam",
}


def _task_metrics(spec: TaskSpec) -> tuple[Metric, ...]:
    family = FAMILIES[DIMENSION_FAMILY[spec.dimension]]
    if family.name == "ie":
        return family.metrics + tuple(Metric(f"f1_{label}", "cpsd_tasks.ie.agg_f1_type", True, CountItem)
                                      for label in spec.labels)
    if family.name == "qa":
        return tuple(Metric(name, f"cpsd_tasks.qa.agg_{name}", True, TypeItem)
                     for name in QA_TYPE_METRICS[spec.id]) + family.metrics
    return family.metrics


def family_of(task: str) -> Family:
    """The family of a task (``sentiment``, ``cpsd_sentiment`` or ``cpsd_ll_sentiment``).

    Raises:
        KeyError: ``task`` names no task of ours.
    """
    if task in LL_VARIANTS:
        return FAMILIES["ll"]
    return FAMILIES[DIMENSION_FAMILY[get_task(task).dimension]]


def metrics(task: str) -> tuple[Metric, ...]:
    """Every metric of a task, in its ``metric_list`` order.

    Args:
        task: task id (``drug_ner``), harness name (``cpsd_drug_ner``) or a ``cpsd_ll_*`` variant.

    Raises:
        KeyError: ``task`` names no task of ours (the message lists the valid ids).
    """
    if task in LL_VARIANTS:
        return FAMILIES["ll"].metrics
    return _task_metrics(get_task(task))


def metric_spec(task: str, metric: str) -> Metric:
    """The declaration of ``metric`` of ``task`` (as for :func:`metrics`).

    Raises:
        KeyError: unknown task, or the task has no such metric (the message lists its metrics).
    """
    declared = metrics(task)
    for m in declared:
        if m.name == metric:
            return m
    raise KeyError(f"{task}: no metric {metric!r}; it has {', '.join(m.name for m in declared)}")


@lru_cache(maxsize=None)
def _resolve(path: str) -> Callable[[Sequence[Any]], Any]:
    if "." not in path:
        from lm_eval.api.registry import get_aggregation

        fn = get_aggregation(path)
        if fn is None:
            raise KeyError(f"the harness has no aggregation {path!r}")
        return fn
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


def aggregation(task: str, metric: str) -> Callable[[Sequence[Any]], Any]:
    """The function the harness aggregates ``metric`` of ``task`` with (stable API for reports).

    Args:
        task: task id (``drug_ner``), harness name (``cpsd_drug_ner``) or a ``cpsd_ll_*`` variant.
        metric: the metric name without filter (``f1_人名``, not ``f1_人名,none``).

    Returns:
        ``items -> value``: for ``mean`` the harness's own ``lm_eval.api.metrics.mean``
        (``sum / len``: raises on no items or ``None``); else our function, e.g.
        :func:`cpsd_tasks.ie.agg_f1_type`, which takes the per-sample values as logged (items or
        plain lists). ``bertscore_config`` returns a string; every other metric a float.

    Raises:
        KeyError: unknown task, or ``metric`` is not declared for it.
    """
    return _resolve(metric_spec(task, metric).aggregation)
