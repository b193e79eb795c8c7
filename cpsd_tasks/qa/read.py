"""QA answer reading: 判断 labels, option letters of a doc, and the names a span answer gives.

Builds on the shared grammar of :mod:`cpsd_tasks.reader` (turns, refusals, question sentences) and
the label rule of :mod:`cpsd_tasks.text`; option letters are read by :mod:`cpsd_tasks.choices`
(:func:`~cpsd_tasks.choices.extract_choices`, re-exported by :mod:`cpsd_tasks.qa`). Judging what
was read is :mod:`cpsd_tasks.qa.score`.
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Optional, Sequence

from cpsd_tasks.choices import squeeze as _squeeze
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
# The choice reader lives in cpsd_tasks.choices (read_choices / extract_choices, re-exported by cpsd_tasks.qa).


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
