"""What the judge is asked, per logged sample, and the figures its readings give.

:func:`task_items` turns one task's sample log (the records the harness wrote, read through
:mod:`cpsd_tasks.report.runs`) into :class:`Item` objects: the kind of question
(:mod:`cpsd_tasks.judge.prompts`), the prompt's fields, what the rules read (the sample's logged
``reading.answer``) and the rules' per-sample correctness (``acc_fuzzy`` of a classification
sample, ``total`` of a QA sample). :func:`needs_judge` says which items a mode sends; after the
replies are read, :func:`judged_metrics` recomputes the task's reading-based metrics with the
judge's readings and :func:`agreement` compares the judge with the rules.

Judged metrics (the same names as the rule metrics they stand beside):

* classification: ``acc_fuzzy`` (the answer read equals the gold label) and ``invalid_rate``;
* ``police_exam``: ``acc_tf``, ``acc_single``, ``acc_multi`` and ``total``;
* ``case_reading``: ``acc_judge``, ``acc_exact``, ``acc_fuzzy`` (the judge says the span is
  equivalent to the gold) and ``total``;
* generation, with ``--rubric`` only: ``rubric_accuracy``, ``rubric_completeness``,
  ``rubric_conformity`` (mean 1–5 over the samples the judge scored), ``rubric_mean``,
  ``rubric_scored`` (their count).

In ``abstained`` mode a sample the rules read keeps the rules' verdict (decided by ``rules``);
the others are decided by the judge — OpenCompass's cascade. In ``all`` mode the judge decides
every sample. IE tasks are not judged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

from cpsd_tasks.judge.prompts import RUBRIC_CRITERIA
from cpsd_tasks.judge.reply import ANSWER, EQUIVALENT, JudgeReading
from cpsd_tasks.judge.rules import options_of
from cpsd_tasks.report.jsonio import sample_output, to_number
from cpsd_tasks.specs import QA_TYPE_METRICS
from cpsd_tasks.tasks import EXAM_TF_LABELS, READING_JUDGE_LABELS, TASKS

MODES = ("abstained", "all")
#: Task kinds the judge reads answers of (IE is not judged; generation only with --rubric).
JUDGED_KINDS = ("classification", "exam", "reading")
TASK_TITLES_ZH = {
    "sentiment": "情感分析", "rumor": "谣言检测", "fraud_detection": "诈骗识别",
    "incident_classification": "警情分类", "case_summary": "案情摘要", "case_report": "案件报告撰写",
    "legal_analysis": "法律分析",
}


@dataclass
class Item:
    """One sample as the judge sees it.

    Attributes:
        task: task id. doc_id: the harness's ``doc_id`` (an int in the sample log). kind: prompt kind.
        qtype: the QA question type, else ``None``. fields: the prompt's fields.
        allowed: labels or option letters the reply may name. gold: the gold answer.
        rule_answer: what the rules read (``None``: no answer). rule_correct: the rules' per-sample
            correctness in {0, 1} (``None`` for a rubric item).
        reading, raw_reply: the judge's reply, read (:func:`cpsd_tasks.judge.reply.read_reply`)
            and as received; ``None`` until judged.
    """

    task: str
    doc_id: Any
    kind: str
    qtype: Optional[str]
    fields: dict[str, Any]
    allowed: tuple[str, ...]
    gold: Any
    rule_answer: Any
    rule_correct: Optional[float]
    reading: Optional[JudgeReading] = field(default=None, repr=False)
    raw_reply: Optional[str] = field(default=None, repr=False)


def _doc_text(doc: dict[str, Any]) -> str:
    return str(doc.get("text", doc.get("input", "")))


def _qa_item(task: str, doc: dict[str, Any], base: dict[str, Any]) -> Optional[Item]:
    qtype = doc.get("qtype")
    labels = EXAM_TF_LABELS if task == "police_exam" else READING_JUDGE_LABELS
    fields = {"output": base["output"], "question": str(doc.get("question", ""))}
    if qtype == "判断":
        if task == "case_reading":
            fields["context"] = str(doc.get("context", ""))
        return Item(task, base["doc_id"], "judgement", qtype, {**fields, "labels": labels}, labels,
                    doc.get("answer"), base["rule_answer"], base["rule_correct"])
    if task == "police_exam" and qtype in ("单选", "多选"):
        options = options_of(doc.get("options"))
        return Item(task, base["doc_id"], "choice", qtype, {**fields, "qtype": qtype, "options": options},
                    tuple(options), "".join(sorted(str(doc.get("answer", "")))), base["rule_answer"],
                    base["rule_correct"])
    if task == "case_reading" and qtype in ("精确", "模糊"):
        fields.update(context=str(doc.get("context", "")), gold=str(doc.get("answer", "")), qtype=qtype)
        return Item(task, base["doc_id"], "equivalence", qtype, fields, (), doc.get("answer"),
                    base["rule_answer"], base["rule_correct"])
    return None


def sample_item(task: str, sample: dict[str, Any], rubric: bool = False) -> Optional[Item]:
    """The :class:`Item` of one sample-log record, or ``None`` when the judge has nothing to read
    there (an IE task; a generation task without ``rubric``; an unknown question type)."""
    spec = TASKS[task]
    doc = sample.get("doc") or {}
    record = sample.get("reading") if isinstance(sample.get("reading"), dict) else {}
    correct_key = "acc_fuzzy" if spec.kind == "classification" else "total"
    base = {"doc_id": sample.get("doc_id"), "output": sample_output(sample), "rule_answer": record.get("answer"),
            "rule_correct": to_number(sample.get(correct_key))}
    if spec.kind == "classification":
        fields = {"output": base["output"], "task_title": TASK_TITLES_ZH.get(task, task), "input": _doc_text(doc),
                  "labels": spec.labels}
        return Item(task, base["doc_id"], "label", None, fields, spec.labels, doc.get("label"),
                    base["rule_answer"], base["rule_correct"])
    if spec.kind in ("exam", "reading"):
        return _qa_item(task, doc, base)
    if spec.kind == "generation" and rubric:
        fields = {"output": base["output"], "task_title": TASK_TITLES_ZH.get(task, task), "input": _doc_text(doc),
                  "reference": str(doc.get("reference", sample.get("target", "")))}
        return Item(task, base["doc_id"], "rubric", None, fields, (), None, None, None)
    return None


def task_items(task: str, samples: Sequence[dict[str, Any]], rubric: bool = False) -> list[Item]:
    """The items of one task's sample-log records (filter already chosen), in log order."""
    return [item for item in (sample_item(task, s, rubric) for s in samples) if item is not None]


def needs_judge(item: Item, mode: str) -> bool:
    """True when ``mode`` sends ``item``: every item in ``all`` mode and every rubric item; in
    ``abstained`` mode only those the rules read no answer from (``reading.answer`` is null:
    no answer, or an ambiguous one the rules refused to choose from)."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; use {' or '.join(MODES)}")
    return mode == "all" or item.kind == "rubric" or item.rule_answer is None


def judge_correct(item: Item, reading: Optional[JudgeReading]) -> float:
    """1.0 when the judge's reading is right for ``item`` (label or letters equal the gold, or the
    span judged 等价), else 0.0 — no answer and an invalid reply score 0."""
    if reading is None or reading.status != ANSWER:
        return 0.0
    if item.kind == "equivalence":
        return float(reading.answer == EQUIVALENT)
    if item.kind == "choice":
        return float(reading.answer == item.gold)
    return float(reading.answer == item.gold)


def decided(item: Item, mode: str) -> tuple[str, float]:
    """``(decided by, per-sample correctness)`` of an answer item after judging: ``("rules",
    rule value)`` when ``mode`` did not send it, else ``("judge", judge_correct)``."""
    if not needs_judge(item, mode):
        return "rules", float(item.rule_correct or 0.0)
    return "judge", judge_correct(item, item.reading)


def _mean(values: Sequence[float]) -> Optional[float]:
    return math.fsum(values) / len(values) if values else None


def metrics_of(task: str, items: Sequence[Item], values: Sequence[float],
               answered: Sequence[bool]) -> dict[str, Optional[float]]:
    """The task's reading-based metrics from per-item correctness ``values`` and whether an
    answer was read (``answered``), for the judged kinds (see the module docstring); a type with
    no document is ``None``."""
    if TASKS[task].kind == "classification":
        return {"acc_fuzzy": _mean(values), "invalid_rate": _mean([float(not a) for a in answered])}
    out: dict[str, Optional[float]] = {}
    for metric, qtype in QA_TYPE_METRICS[task].items():
        if metric == "multi_partial":       # partial credit is not a reading: not judged
            continue
        out[metric] = _mean([v for it, v in zip(items, values) if it.qtype == qtype])
    out["total"] = _mean(values)
    return out


def judged_metrics(task: str, items: Sequence[Item], mode: str) -> tuple[dict, dict]:
    """``(judged metrics, the same metrics by the rules)`` of one task's answer items after the
    judge's readings were attached (``item.reading``). The rules' figures are recomputed from the
    sample log and equal the run's own."""
    answer_items = [it for it in items if it.kind != "rubric"]
    if not answer_items:
        return {}, {}
    judged = [decided(it, mode) for it in answer_items]
    answered = [(it.rule_answer is not None) if by == "rules"
                else (it.reading is not None and it.reading.status == ANSWER)
                for it, (by, _) in zip(answer_items, judged)]
    judged_m = metrics_of(task, answer_items, [v for _, v in judged], answered)
    rules_m = metrics_of(task, answer_items, [float(it.rule_correct or 0.0) for it in answer_items],
                         [it.rule_answer is not None for it in answer_items])
    return judged_m, rules_m


def rubric_metrics(items: Sequence[Item]) -> dict[str, Optional[float]]:
    """Mean rubric score per criterion (1–5) over the items the judge scored, their mean
    (``rubric_mean``), and ``rubric_scored`` / ``rubric_unscored`` counts; ``{}`` for no rubric item."""
    rubric = [it for it in items if it.kind == "rubric"]
    if not rubric:
        return {}
    scored = [it.reading.answer for it in rubric if it.reading is not None and it.reading.status == ANSWER]
    out: dict[str, Optional[float]] = {f"rubric_{key}": _mean([float(s[key]) for s in scored])
                                       for key in RUBRIC_CRITERIA.values()}
    out["rubric_mean"] = _mean([math.fsum(s.values()) / len(s) for s in scored])
    out["rubric_scored"] = float(len(scored))
    out["rubric_unscored"] = float(len(rubric) - len(scored))
    return out


def _judge_view(item: Item) -> Any:
    """The judge's reading in the rules' terms: the answer read, or for an equivalence item its
    verdict as correctness (1.0/0.0); ``None`` for no answer."""
    r = item.reading
    if r is None or r.status != ANSWER:
        return None
    return float(r.answer == EQUIVALENT) if item.kind == "equivalence" else r.answer


def agreement(items: Sequence[Item]) -> dict[str, Any]:
    """Judge vs rules on the answer items that were judged.

    The rules' side is what they read (``reading.answer``), or for an equivalence item their
    verdict (the span rule's correctness, 1.0/0.0 — ``None`` when they read no span); the judge's
    side is :func:`_judge_view`. Two ``None`` agree (neither found an answer).

    Returns:
        ``{"n", "agree", "rate" (None for n = 0), "judge_only" (judge read an answer, rules none),
        "rules_only", "different" (both read, different answers), "score_changed" (items whose
        correctness differs between the rules and the judge)}``.
    """
    judged = [it for it in items if it.kind != "rubric" and it.reading is not None]
    out = {"n": len(judged), "agree": 0, "judge_only": 0, "rules_only": 0, "different": 0, "score_changed": 0}
    for it in judged:
        rules = it.rule_answer
        if it.kind == "equivalence" and rules is not None:
            rules = float(it.rule_correct or 0.0)
        judge = _judge_view(it)
        if rules == judge:
            out["agree"] += 1
        elif rules is None:
            out["judge_only"] += 1
        elif judge is None:
            out["rules_only"] += 1
        else:
            out["different"] += 1
        out["score_changed"] += int(judge_correct(it, it.reading) != float(it.rule_correct or 0.0))
    out["rate"] = out["agree"] / out["n"] if out["n"] else None
    return out
