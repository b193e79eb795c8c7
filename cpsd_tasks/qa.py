"""Question-answering tasks: answer reading, judging and per-type metrics (SPEC.md §3, §4.3, §4.4).

Two tasks, one module:

``cpsd_case_reading`` (case-file reading comprehension; ``qtype`` 判断/精确/模糊)
    * 判断 — the output is read as 是/否/未知 (:func:`read_judgement`); accuracy ``acc_judge``.
    * 精确 — person names: correct only if the normalised answer equals the gold, or the set of
      names it gives (split on 、，,;；和及与 and whitespace) equals the gold's set
      (:func:`exact_span_match`); accuracy ``acc_exact``.
    * 模糊 — places, times, methods: correct if the rapidfuzz normalised Levenshtein similarity is
      ≥ τ_qa (default 0.6, ``--metadata '{"tau_qa": …}'``) or one string contains the other while
      the answer is at most twice the gold's length (:func:`fuzzy_span_match`); ``acc_fuzzy``.

``cpsd_police_exam`` (law-enforcement exam; ``qtype`` 判断/单选/多选)
    * 判断 — 正确/错误, also read from 对/错/√/×/是/否 (:func:`read_judgement`); ``acc_tf``.
    * 单选/多选 — option letters (:func:`extract_choices`); correct only when the letter set equals
      the gold set: ``acc_single``, ``acc_multi``; ``multi_partial`` gives a 多选 answer that is a
      subset of the gold the share of gold letters chosen (any wrong letter → 0).

Both tasks report ``total`` — the sample-weighted mean over all documents, i.e.
``Σ_t n_t·acc_t / Σ_t n_t`` (the paper's Table 5 total: (70·a + 70·b + 60·c)/200) — plus
``invalid_rate`` (no answer of the required kind could be read: a wrong answer, never a guess),
``refusal_rate`` (the unreadable outputs that are refusals or empty) and ``score`` (= ``total``,
the key the ``cpsd`` group averages).

Per-type metrics average over their own type's documents only: :func:`process_results` returns
a ``(qtype, value)`` item (:class:`~cpsd_tasks.specs.TypeItem`) for a document of that type and ``None`` for the others, and the ``agg_*``
aggregations keep only their own type's items. A per-type metric whose type has no document in
the run (e.g. with ``--limit 3``) is ``nan`` ("not measured"), never 0 and never an error.
The harness reports its stderr as ``N/A`` (it only computes stderr for built-in aggregations).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence

from rapidfuzz.distance import Levenshtein

from cpsd_tasks.options import get_option
from cpsd_tasks.specs import QA_TYPE_METRICS, TypeItem
from cpsd_tasks.tasks import EXAM_TF_LABELS, READING_JUDGE_LABELS, get_task
from cpsd_tasks.taxonomy import error_class, reading
from cpsd_tasks.choices import extract_choices, read_choices, squeeze as _squeeze  # noqa: F401
from cpsd_tasks.reader import drop_questions, is_clear_refusal, unwrap
from cpsd_tasks.text import normalize, read_label

# --------------------------------------------------------------------------- judgement labels

#: Extra surface forms of the case_reading 判断 answers, read anywhere in the answer.
READING_JUDGE_ALIASES: dict[str, str] = {
    "不是": "否",
    **{form: "未知" for form in (
        "无法确定", "不能确定", "无法判断", "不能判断", "无法得知", "无从得知", "不得而知", "无法知道",
        "不确定", "未提及", "没有提及", "未提到", "没有提到", "未说明", "没有说明", "未载明",
    )},
}

#: Short forms of the case_reading 判断 answers, read only as the whole answer or its first clause
#: ("没有。材料显示……"), never inside an explanation.
READING_JUDGE_SHORT: dict[str, str] = {"是的": "是", "对": "是", "有": "是", "没有": "否", "不能": "否",
                                       "不会": "否", "不对": "否"}

#: Extra surface forms of the police_exam 判断 answers, read anywhere in the answer.
EXAM_TF_ALIASES: dict[str, str] = {"不正确": "错误", "不完全正确": "错误", "不完全对": "错误", "不对": "错误",
                                   "有误": "错误", "无误": "正确", "是对的": "正确", "是错的": "错误"}

#: Short forms of the police_exam 判断 answers (SPEC §4.4: 对/错/√/×/是/否). Being single
#: characters that occur in any sentence, they count only as the whole answer or as its first
#: clause ("对。因为……"), never inside an explanation ("对于本题……").
EXAM_TF_SHORT: dict[str, str] = {
    "对": "正确", "是": "正确", "是的": "正确", "√": "正确", "✓": "正确", "✔": "正确",
    "True": "正确", "true": "正确", "TRUE": "正确", "T": "正确",
    "错": "错误", "否": "错误", "×": "错误", "✗": "错误", "✘": "错误",
    "False": "错误", "false": "错误", "FALSE": "错误", "F": "错误",
}

# Words that contain a label character without naming the label; hidden before reading the labels
# from free text ("是否", "否则" name neither 是 nor 否).
# "是否正确/正确与否/对错" ask about a label without naming it ("无法判断正确与否" is no 正确).
_NOT_LABELS = re.compile(r"是否正确|是否错误|是否对|是否错|正确与否|错误与否|对与错|对错|正确还是错误|正确或错误|"
                         r"是对是错|是否|与否|能否|可否|否则|否认|是不是")
# A clause ends at sentence or clause punctuation or whitespace.
_CLAUSE_END = re.compile(r"[。，,；;！!？?\n\r:：\s]")
_DECLARATION_HEAD = (r"(?:最终答案|正确答案|参考答案|答案|结论|判断结果|回答)\s*"
                     r"(?:应该是|应当是|应该为|应为|应是|是|为)?\s*[:：]?\s*[\"'“‘「『]?")


_unwrap = unwrap


_drop_questions = drop_questions


def read_judgement(output: Optional[str], labels: Sequence[str],
                   aliases: Optional[Mapping[str, str]] = None,
                   short: Optional[Mapping[str, str]] = None) -> tuple[Optional[str], bool]:
    """Read a 判断 answer (是/否/未知 or 正确/错误) from a model output (SPEC §4.3, §4.4).

    A clear refusal (:func:`is_clear_refusal`) gives no label; sentences ending in a question mark
    are dropped ("说法正确吗？不，错误"). Then the first rule that gives a label wins:

    1. the normalised answer is a label or one of its forms (``aliases`` or ``short``);
    2. the last explicit declaration "答案是X / 结论：X / 回答：X" (X a label or alias);
    3. the first clause (up to 。，；：! ? or whitespace) is a label or one of its forms;
    4. the SPEC §4.1 fuzzy rule (:func:`cpsd_tasks.text.read_label`: exactly one label named,
       longest form wins, negations) over the whole answer, with "是否/与否/否则/正确与否/是否正确…"
       hidden;
    5. the same rule over the first clause alone (a leading answer followed by an explanation that
       mentions the other label).

    In rules 4 and 5 a label counts only when a form of two or more characters names it: a
    one-character label (是, 否) inside a sentence is part of an ordinary word ("这是一个难题"), so
    it is read only as the whole answer, a declaration or the first clause.

    Args:
        output: raw model output (``None`` = missing answer).
        labels: the canonical labels, e.g. :data:`~cpsd_tasks.tasks.READING_JUDGE_LABELS`.
        aliases: extra forms read anywhere (multi-character, unambiguous ones).
        short: extra forms read only by rules 1 and 3 (single characters such as 对/×).

    Returns:
        ``(label or None, strict)`` where ``strict`` says the normalised output *is* a canonical
        label (the required format). Never raises on model output.
    """
    aliases = dict(aliases or {})
    short = dict(short or {})
    forms = {label: label for label in labels}
    forms.update(aliases)
    whole_forms = dict(forms)
    whole_forms.update(short)
    if is_clear_refusal(output):
        return None, False
    answer = _squeeze(normalize(_drop_questions(_unwrap(output))))
    if not answer:
        return None, False
    if answer in whole_forms:
        return whole_forms[answer], answer in labels
    alternatives = "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True))
    declared = list(re.finditer(_DECLARATION_HEAD + f"({alternatives})", answer))
    if declared:
        return forms[declared[-1].group(1)], False
    lead = normalize(_CLAUSE_END.split(answer, maxsplit=1)[0])
    if lead in whole_forms:
        return whole_forms[lead], False
    # Rules 4-5 search inside sentences, where a one-character label is part of ordinary words
    # (这是, 但是): a label counts only when a form of two or more characters names it.
    anywhere = [label for label in labels if len(label) > 1]
    anywhere_aliases = {form: label for form, label in aliases.items() if len(form) > 1}

    def read_inside(text: str) -> Optional[str]:
        label = read_label(text, labels, aliases)
        if label is not None and read_label(text, anywhere, anywhere_aliases) != label:
            return None
        return label

    label = read_inside(_NOT_LABELS.sub("〇", answer))
    if label is None:
        label = read_inside(_NOT_LABELS.sub("〇", lead))
    return label, False


# --------------------------------------------------------------------------- option letters
# The choice reader lives in cpsd_tasks.choices (read_choices / extract_choices, re-exported here).


def letters_of(options: Any) -> dict[str, str]:
    """Turn a doc's ``options`` into ``{letter: text}``.

    Args:
        options: the harness form (list of ``{"key", "text"}``, see :mod:`cpsd_tasks.data`), the
            file form (``{letter: text}``) or ``None``.

    Returns:
        ``{letter: text}`` (empty for 判断 questions).
    """
    if not options:
        return {}
    if isinstance(options, Mapping):
        return {str(k): str(v) for k, v in options.items()}
    return {str(o["key"]): str(o.get("text") or "") for o in options}


# --------------------------------------------------------------------------- spans

_NAME_SPLIT = re.compile(r"[、，,;；和及与\s]+")
# A role title before a name ("被告人汤某丙") is not part of the name.
_ROLE_TITLE = re.compile(r"^(?:原审被告人|被告人|被害人|受害人|犯罪嫌疑人|嫌疑人|被上诉人|上诉人|证人|报案人|报警人|"
                         r"同案犯|被告|民警)(?=[^人])")


def name_set(text: Optional[str]) -> frozenset[str]:
    """The set of names an answer gives: split on 、，,;；和及与 and whitespace (SPEC §4.3).

    Each piece is normalised and loses a leading role title (被告人/被害人/犯罪嫌疑人/证人/报案人…),
    so "被告人汤某丙、郭某" and "郭某，汤某丙" give the same set (project rule; SPEC is silent).

    Args:
        text: an answer or a gold string (``None`` allowed).

    Returns:
        The non-empty names as a frozenset (empty for an empty answer).
    """
    pieces = (_ROLE_TITLE.sub("", normalize(piece)) for piece in _NAME_SPLIT.split(normalize(text)))
    return frozenset(piece for piece in pieces if piece)


def exact_span_match(output: Optional[str], gold: str) -> bool:
    """精确 rule: the normalised answer equals the gold, or its name set equals the gold's (SPEC §4.3).

    Args:
        output: raw model output.
        gold: the gold answer (one name, or several joined by 、 or another separator).

    Returns:
        ``True`` when correct; an empty answer is never correct.
    """
    answer = normalize(output)
    if not answer:
        return False
    if answer == normalize(gold):
        return True
    return name_set(answer) == name_set(gold)


#: An answer that opens with one of these denies the span that follows it (模糊 rule).
_SPAN_DENIALS = ("不是", "并非", "并不是", "不在", "没有", "不是在")
#: Default 模糊 similarity threshold τ_qa (SPEC §4.3); ``--metadata '{"tau_qa": x}'`` overrides it.
TAU_QA_DEFAULT = 0.6


def fuzzy_span_match(output: Optional[str], gold: str, tau: float = TAU_QA_DEFAULT) -> bool:
    """模糊 rule: Levenshtein similarity ≥ τ, or containment within 2× the gold's length (SPEC §4.3).

    Both sides are normalised first. Correct when rapidfuzz's
    ``Levenshtein.normalized_similarity`` (1 − distance / max length, in [0, 1]) is ≥ ``tau``, or
    when one contains the other and the answer is at most twice as long as the gold. Project rule
    (SPEC is silent): an answer contained in the gold must have at least 2 characters (or the
    gold's length if shorter), so that "某" or "在" does not match "在某市某区"; an empty answer is
    never correct.

    Args:
        output: raw model output.
        gold: the gold span.
        tau: similarity threshold in [0, 1].

    Returns:
        ``True`` when correct.
    """
    answer, target = normalize(output), normalize(gold)
    if not answer or not target:
        return False
    if answer.startswith(_SPAN_DENIALS) and not target.startswith(_SPAN_DENIALS):
        return False                         # "不是北京市海淀区" denies the span it contains
    if Levenshtein.normalized_similarity(answer, target) >= tau:
        return True
    if target in answer and len(answer) <= 2 * len(target):
        return True
    return answer in target and len(answer) >= min(2, len(target))


def tau_qa() -> float:
    """The 模糊 threshold τ_qa for this run: ``--metadata '{"tau_qa": x}'``, default 0.6.

    Raises:
        ValueError: the value is not a number in [0, 1].
    """
    tau = get_option("case_reading", "tau_qa", TAU_QA_DEFAULT, float)
    if not 0.0 <= tau <= 1.0 or math.isnan(tau):
        raise ValueError(f"cpsd_case_reading: option tau_qa={tau!r} must be in [0, 1]")
    return tau


# --------------------------------------------------------------------------- judges

@dataclass(frozen=True)
class QAJudgement:
    """How one QA output scores.

    Attributes:
        qtype: the question type (判断/精确/模糊 or 判断/单选/多选).
        prediction: what was read: a label, a letter string such as ``"AC"`` (sorted), the
            normalised span, or ``None`` when nothing could be read.
        correct: the SPEC rule of the question type says correct.
        partial: 多选 partial credit in [0, 1] (share of gold letters chosen, 0 if any wrong letter);
            equals ``float(correct)`` for the other types.
        parsed: an answer of the required kind was read (``False`` counts in ``invalid_rate``).
        refusal: nothing was read and the output is empty or a clear refusal (:func:`is_clear_refusal`).
        error_class: SPEC §4.6 class. ``correct`` needs the required form too (the bare label or
            letters; for spans, the span rule itself); ``format`` = right answer in the wrong form
            (for spans: the gold is inside a longer answer that the rule rejects).
    """

    qtype: str
    prediction: Optional[str]
    correct: bool
    partial: float
    parsed: bool
    refusal: bool
    error_class: str


def _finish(qtype: str, prediction: Optional[str], correct: bool, strict_correct: bool,
            output: Optional[str], partial: Optional[float] = None,
            lenient_correct: Optional[bool] = None) -> QAJudgement:
    parsed = prediction is not None
    refusal = not parsed and is_clear_refusal(output)
    lenient = correct if lenient_correct is None else (correct or lenient_correct)
    return QAJudgement(
        qtype=qtype, prediction=prediction, correct=correct,
        partial=float(correct) if partial is None else partial, parsed=parsed, refusal=refusal,
        error_class=error_class(strict_correct=strict_correct and correct, lenient_correct=lenient,
                                parsed=parsed, refused=refusal),
    )


def judge_reading(output: Optional[str], gold: str, qtype: str, tau: float = TAU_QA_DEFAULT) -> QAJudgement:
    """Judge one case_reading output (SPEC §4.3, §4.6).

    Args:
        output: raw model output (``None`` = missing).
        gold: gold answer (是/否/未知 for 判断, a span otherwise).
        qtype: 判断, 精确 or 模糊.
        tau: τ_qa for 模糊.

    Returns:
        A :class:`QAJudgement`. For spans, a span matching the gold is correct and parsed whatever
        words it holds; a wrong span is unparsed (and a refusal) only when it is empty or a clear
        refusal (:func:`is_clear_refusal`). Never raises on model output.

    Raises:
        ValueError: ``qtype`` is not a case_reading type (a data error, not a model error).
    """
    if qtype == "判断":
        label, strict = read_judgement(output, READING_JUDGE_LABELS, READING_JUDGE_ALIASES,
                                       READING_JUDGE_SHORT)
        return _finish(qtype, label, label == gold, strict, output)
    if qtype not in ("精确", "模糊"):
        raise ValueError(f"case_reading: unknown qtype {qtype!r}; expected 判断/精确/模糊")
    answer = normalize(_unwrap(output))
    if qtype == "精确":
        correct = bool(answer) and exact_span_match(answer, gold)
        contains = bool(answer) and all(name in answer for name in name_set(gold))
    else:
        correct = fuzzy_span_match(answer, gold, tau)
        contains = bool(answer) and normalize(gold) in answer
    # A span that matches the gold is correct whatever words it holds (违反…规定, 敏感, 无法提供);
    # only a wrong span is checked for a (clear) refusal.
    if not correct and is_clear_refusal(output):
        return _finish(qtype, None, False, False, output)
    return _finish(qtype, answer, correct, True, output, lenient_correct=contains)


def judge_exam(output: Optional[str], gold: str, qtype: str, options: Any = None,
               question: Optional[str] = None) -> QAJudgement:
    """Judge one police_exam output (SPEC §4.4, §4.6).

    Args:
        output: raw model output (``None`` = missing).
        gold: 正确/错误 for 判断; the sorted gold letters (``"ACD"``) for 单选/多选.
        qtype: 判断, 单选 or 多选.
        options: the doc's options (harness list of ``{"key","text"}`` or ``{letter: text}``).
        question: the question stem (lets the reader tell a "which is wrong" question).

    Returns:
        A :class:`QAJudgement`; ``prediction`` is the label or the sorted letters read.

    Raises:
        ValueError: ``qtype`` is not a police_exam type.
    """
    if qtype == "判断":
        label, strict = read_judgement(output, EXAM_TF_LABELS, EXAM_TF_ALIASES, EXAM_TF_SHORT)
        return _finish(qtype, label, label == gold, strict, output)
    if qtype not in ("单选", "多选"):
        raise ValueError(f"police_exam: unknown qtype {qtype!r}; expected 判断/单选/多选")
    letters = extract_choices(output, letters_of(options), question)
    gold_set = frozenset(gold)
    prediction = "".join(sorted(letters)) if letters else None
    correct = letters == gold_set
    partial = None
    if qtype == "多选":
        partial = len(letters) / len(gold_set) if letters and letters <= gold_set else 0.0
    strict = normalize(output) == gold
    return _finish(qtype, prediction, correct, strict, output, partial=partial)


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
        read (:func:`cpsd_tasks.taxonomy.reading`: the label, sorted letters or span read).

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
    out["reading"] = reading(j.prediction, j.error_class, j.refusal and not truncated, qtype=qtype,
                             truncated=truncated)
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


def weighted_total(per_type: Mapping[str, float], counts: Mapping[str, int]) -> float:
    """Sample-weighted mean of per-type accuracies: Σ n_t·acc_t / Σ n_t (paper Table 5 ``Total``).

    Args:
        per_type: accuracy per type, each in [0, 1].
        counts: documents per type (same keys), e.g. ``{"判断": 70, "精确": 70, "模糊": 60}``.

    Returns:
        The weighted mean in [0, 1].

    Raises:
        ValueError: the keys differ or the counts sum to 0.
    """
    if set(per_type) != set(counts):
        raise ValueError(f"weighted_total: types {sorted(per_type)} and counts {sorted(counts)} differ")
    n = sum(counts.values())
    if n <= 0:
        raise ValueError("weighted_total: counts sum to 0")
    return sum(per_type[t] * counts[t] for t in counts) / n
