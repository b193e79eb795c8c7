"""判断 answers (是/否/未知, 正确/错误): :func:`read_judgement` (docs/metrics.md#question-answering).

Builds on the turns, refusals and question sentences of this package and the label rule of
:mod:`cpsd_tasks.reading.labels`; the surface forms of each label set are in
:mod:`cpsd_tasks.reading.lexicon`. Judging what was read is :mod:`cpsd_tasks.qa.score`.
"""

from __future__ import annotations

import re
from typing import Mapping, Optional, Sequence

from cpsd_tasks.reading.labels import read_label
from cpsd_tasks.reading.normalize import drop_questions, normalize, unwrap
from cpsd_tasks.reading.prepare import squeeze
from cpsd_tasks.reading.refusals import is_clear_refusal
from cpsd_tasks.reading.lexicon import JUDGEMENT_HEADS
from cpsd_tasks.reading.patterns import one_of

# Words that contain a label character without naming the label; hidden before reading the labels
# from free text ("是否", "否则" name neither 是 nor 否).
# "是否正确/正确与否/对错" ask about a label without naming it ("无法判断正确与否" is no 正确).
_NOT_LABELS = re.compile(r"是否正确|是否错误|是否对|是否错|正确与否|错误与否|对与错|对错|正确还是错误|正确或错误|"
                         r"是对是错|是否|与否|能否|可否|否则|否认|是不是")
# A clause ends at sentence or clause punctuation or whitespace.
_CLAUSE_END = re.compile(r"[。，,；;！!？?\n\r:：\s]")
_DECLARATION_HEAD = (one_of(JUDGEMENT_HEADS) + r"\s*"
                     r"(?:应该是|应当是|应该为|应为|应是|是|为)?\s*[:：]?\s*[\"'“‘「『]?")


def read_judgement(output: Optional[str], labels: Sequence[str],
                   aliases: Optional[Mapping[str, str]] = None,
                   short: Optional[Mapping[str, str]] = None) -> tuple[Optional[str], bool]:
    """Read a 判断 answer (是/否/未知 or 正确/错误) from a model output (docs/metrics.md#question-answering).

    A clear refusal (:func:`is_clear_refusal`) gives no label; sentences ending in a question mark
    are dropped ("说法正确吗？不，错误"). Then the first rule that gives a label wins:

    1. the normalised answer is a label or one of its forms (``aliases`` or ``short``);
    2. the last explicit declaration "答案是X / 结论：X / 回答：X" (X a label or alias);
    3. the first clause (up to 。，；：! ? or whitespace) is a label or one of its forms;
    4. the fuzzy label rule (docs/metrics.md#classification; :func:`cpsd_tasks.reading.labels.read_label`:
       one label named,
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
    answer = squeeze(normalize(drop_questions(unwrap(output))))
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
