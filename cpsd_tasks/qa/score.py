"""QA judging: the rule of each question type, and the sample-weighted total (docs/metrics.md#question-answering).

* spans of ``cpsd_case_reading``: :func:`exact_span_match` (精确), :func:`fuzzy_span_match` (模糊);
* :func:`judge_reading` / :func:`judge_exam`: one output → a :class:`QAJudgement` (prediction,
  correctness, 多选 partial credit, parsed/refusal, error class);
* :func:`weighted_total`: Σ n_t·acc_t / Σ n_t (the paper's Table 5 total).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping, Optional

from rapidfuzz.distance import Levenshtein

#: Default 模糊 similarity threshold τ_qa (docs/metrics.md#case-reading); ``--metadata '{"tau_qa": x}'``
#: overrides it. Declared with the run configuration (:class:`cpsd_tasks.options.RunConfig`).
from cpsd_tasks.options import TAU_QA_DEFAULT
from cpsd_tasks.reading.judgements import read_judgement
from cpsd_tasks.reading.letters import letters_of, read_choices
from cpsd_tasks.reading.lexicon import EXAM_TF_ALIASES, EXAM_TF_SHORT, READING_JUDGE_ALIASES, READING_JUDGE_SHORT
from cpsd_tasks.reading.normalize import normalize, unwrap
from cpsd_tasks.reading.refusals import is_clear_refusal
from cpsd_tasks.reading.spans import name_set
from cpsd_tasks.tasks import EXAM_TF_LABELS, READING_JUDGE_LABELS
from cpsd_tasks.taxonomy import error_class

def exact_span_match(output: Optional[str], gold: str) -> bool:
    """精确 rule: the normalised answer equals the gold, or its name set equals the gold's.

    Definition: docs/metrics.md#case-reading.

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


def fuzzy_span_match(output: Optional[str], gold: str, tau: float = TAU_QA_DEFAULT) -> bool:
    """模糊 rule: Levenshtein similarity ≥ τ, or containment within 2× the gold's length (docs/metrics.md).

    Both sides are normalised first. Correct when rapidfuzz's
    ``Levenshtein.normalized_similarity`` (1 − distance / max length, in [0, 1]) is ≥ ``tau``, or
    when one contains the other and the answer is at most twice as long as the gold. Project rule
    (the paper is silent): an answer contained in the gold must have at least 2 characters (or the
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


# --------------------------------------------------------------------------- judges

@dataclass(frozen=True)
class QAJudgement:
    """How one QA output scores.

    Attributes:
        qtype: the question type (判断/精确/模糊 or 判断/单选/多选).
        prediction: what was read: a label, a letter string such as ``"AC"`` (sorted), the
            normalised span, or ``None`` when nothing could be read.
        correct: the rule of the question type says correct.
        partial: 多选 partial credit in [0, 1] (share of gold letters chosen, 0 if any wrong letter);
            equals ``float(correct)`` for the other types.
        parsed: an answer of the required kind was read (``False`` counts in ``invalid_rate``).
        refusal: nothing was read and the output is empty or a clear refusal (:func:`is_clear_refusal`).
        error_class: the error class (docs/metrics.md#error-classes). ``correct`` needs the required form
            too (the bare label or
            letters; for spans, the span rule itself); ``format`` = right answer in the wrong form
            (for spans: the gold is inside a longer answer that the rule rejects).
        rule: for option letters, the reading rule that decided (``"declared"``, ``"verdicts"`` …,
            :data:`cpsd_tasks.reading.letters.RULES`); ``None`` otherwise.
        reason: for option letters read as no answer, why (``"copied option list"`` …); else ``None``.
    """

    qtype: str
    prediction: Optional[str]
    correct: bool
    partial: float
    parsed: bool
    refusal: bool
    error_class: str
    rule: Optional[str] = None
    reason: Optional[str] = None


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
    """Judge one case_reading output (docs/metrics.md#case-reading, docs/metrics.md#error-classes).

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
    answer = normalize(unwrap(output))
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
    """Judge one police_exam output (docs/metrics.md#police-exam, docs/metrics.md#error-classes).

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
    read = read_choices(output, letters_of(options), question, multi=qtype == "多选")
    letters = frozenset(read.letters) if read.letters else None
    gold_set = frozenset(gold)
    prediction = "".join(sorted(letters)) if letters else None
    correct = letters == gold_set
    partial = None
    if qtype == "多选":
        partial = len(letters) / len(gold_set) if letters and letters <= gold_set else 0.0
    strict = normalize(output) == gold
    return replace(_finish(qtype, prediction, correct, strict, output, partial=partial), rule=read.rule,
                   reason=read.reason)


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
