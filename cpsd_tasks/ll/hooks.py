"""Log-likelihood (``multiple_choice``) variants of the closed-answer tasks: tag ``cpsd_ll``.

**An addition, not the paper's protocol.** CPSDBench scores free-text answers of chat models
(docs/metrics.md). Small and base models mostly fail that output format (the paper's Atom-1B rows sit
near 0), which says little about what they know. The harness's standard remedy is to score each
allowed answer by the model's log-likelihood after the prompt and pick the most likely one
(lm-eval ``output_type: multiple_choice``, metrics ``acc`` and ``acc_norm``). That needs token
log-probabilities of a given continuation, which chat APIs (``local-chat-completions``,
``openai-chat-completions``) do not expose: those backends raise ``NotImplementedError`` on these
tasks. Local models (``hf``, ``vllm``) and ``local-completions`` with a tokenizer can run them.

Tasks (one YAML each, ``cpsd_tasks/yaml/cpsd_ll_*.yaml``):

=============================== ============================== ================================
task                            docs                           choices
=============================== ============================== ================================
``cpsd_ll_sentiment``           all                            积极 / 消极 / 中性
``cpsd_ll_rumor``               all                            谣言 / 非谣言
``cpsd_ll_fraud_detection``     all                            诈骗 / 正常
``cpsd_ll_incident_classification`` all                        盗窃 / 电信诈骗 / 交通事故 / 故意伤害
``cpsd_ll_case_reading_judge``  case_reading, qtype 判断       是 / 否 / 未知
``cpsd_ll_police_exam_tf``      police_exam, qtype 判断        正确 / 错误
``cpsd_ll_police_exam_single``  police_exam, qtype 单选        the question's option letters
=============================== ============================== ================================

多选 questions and the span questions (精确, 模糊) have no small closed answer set and are not
covered. Choices are the label words of :mod:`cpsd_tasks.tasks` (never a second copy), appended
right after the prompt's final ``答案：`` with no delimiter.
"""

from __future__ import annotations

from typing import Any, Mapping

from cpsd_tasks.tasks import EXAM_TF_LABELS, READING_JUDGE_LABELS, get_task


def choices(doc: Mapping[str, Any]) -> list[str]:
    """The answer choices of one doc, in a fixed order (``doc_to_choice`` hook).

    Args:
        doc: a doc from :func:`cpsd_tasks.data.harness_dataset` (has ``task``; QA docs also
            ``qtype``; police_exam docs ``options`` as a list of ``{"key", "text"}``).

    Returns:
        Classification: the task's labels (``TaskSpec.labels`` order). case_reading 判断:
        ``["是", "否", "未知"]``. police_exam 判断: ``["正确", "错误"]``. police_exam 单选: the
        option letters in key order, e.g. ``["A", "B", "C", "D"]``.

    Raises:
        ValueError: the doc's task/qtype has no closed answer set (e.g. 多选, 精确) — such docs
            must be filtered out by the task's ``process_docs``.
    """
    spec = get_task(doc["task"])
    if spec.kind == "classification":
        return list(spec.labels)
    qtype = doc.get("qtype")
    if spec.kind == "reading" and qtype == "判断":
        return list(READING_JUDGE_LABELS)
    if spec.kind == "exam" and qtype == "判断":
        return list(EXAM_TF_LABELS)
    if spec.kind == "exam" and qtype == "单选":
        return [option["key"] for option in doc["options"]]
    raise ValueError(f"cpsd_ll: no closed choice set for task {spec.id!r} qtype {qtype!r} "
                     f"(doc {doc.get('id')!r})")


def gold_index(doc: Mapping[str, Any]) -> int:
    """Index of the gold answer in :func:`choices` (``doc_to_target`` hook).

    Args:
        doc: as for :func:`choices`; the gold is ``label`` (classification) or ``answer`` (QA).

    Returns:
        An index in ``[0, len(choices(doc)))``.

    Raises:
        ValueError: the gold is not among the choices (validated data never does this).
    """
    spec = get_task(doc["task"])
    gold = doc["label"] if spec.kind == "classification" else doc["answer"]
    options = choices(doc)
    try:
        return options.index(gold)
    except ValueError:
        raise ValueError(f"cpsd_ll: gold {gold!r} of doc {doc.get('id')!r} is not one of {options}") from None


def _only(dataset, qtype: str):
    """Keep the docs of one question type (``datasets.Dataset`` in and out, order kept)."""
    return dataset.filter(lambda doc: doc["qtype"] == qtype)


def judge_docs(dataset):
    """``process_docs`` hook: keep only the 判断 (true/false) questions.

    Args:
        dataset: a ``datasets.Dataset`` of case_reading or police_exam docs (needs ``qtype``).

    Returns:
        The filtered ``datasets.Dataset`` (possibly empty), in file order.
    """
    return _only(dataset, "判断")


def single_choice_docs(dataset):
    """``process_docs`` hook: keep only the 单选 (single-choice) questions of police_exam.

    Args:
        dataset: a ``datasets.Dataset`` of police_exam docs.

    Returns:
        The filtered ``datasets.Dataset`` (possibly empty), in file order.
    """
    return _only(dataset, "单选")
