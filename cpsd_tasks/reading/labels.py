"""Label readers: the closed-label answer of a classification or judgement output (docs/metrics.md#classification).

Built on the preparation, turns and normalisation of this package and the negation words of
:mod:`cpsd_tasks.reading.lexicon`. All functions are pure, accept ``None`` (a missing model
answer) and never raise on model output.
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping, Optional

from cpsd_tasks.reading import label_context as context
from cpsd_tasks.reading.lexicon import (
    NAMES_NOTHING_AFTER,
    NAMES_NOTHING_BEFORE,
    NEGATIONS,
)
from cpsd_tasks.reading.normalize import drop_questions, normalize
from cpsd_tasks.reading.prepare import squeeze_spaces


def read_label(text: Optional[str], labels: Iterable[str],
               aliases: Optional[Mapping[str, str]] = None, source: Optional[str] = None) -> Optional[str]:
    """Read the one label a free-text answer names (docs/metrics.md#classification ``acc_fuzzy``).

    Rules: an explicit declaration ("结论：谣言", "答案是积极"; the last one, not negated) names
    its label, so a restatement of the question before it ("题目要求判断是谣言还是非谣言。结论：谣言")
    does not count. Otherwise all surface forms (labels and aliases) are searched in the
    normalised text with its whitespace removed; where two overlap, the longest wins (so ``非谣言`` is not read as
    ``谣言``). A mention preceded by a negation ("不是诈骗", "并非谣言", "非诈骗", "不太可能是诈骗")
    does not name its label; in a two-label task it names the other label instead. A mention that
    is part of a question or of another word ("是否是诈骗", "正确与否", "反诈骗宣传") names nothing.
    A mention inside a passage copied from the text that was classified (``source``: the
    :data:`COPIED_WINDOW` characters on each side of it are there too, "…借款期限两年，拒绝支付利息，原告多次…")
    names nothing: the model is repeating the input, not answering (docs/answer_reading.md, labels).
    Over a topic label set (four or more labels: categories, not verdicts) a recital of the label
    list names none of its labels, a longer word in the answer slot is no label, and a label used
    as a noun of a long answer names nothing (:mod:`cpsd_tasks.reading.label_context`, reader 5).
    If the remaining mentions name exactly one distinct label, that label is returned; zero or
    several different labels give ``None``.

    Args:
        text: raw model output or ``None``.
        labels: the task's canonical labels.
        aliases: optional extra surface forms -> canonical label.
        source: the text the model was asked to classify, if known.

    Returns:
        One canonical label, or ``None`` when no single label can be read.
    """
    return _read(text, labels, aliases, source)[0]


def _read(text: Optional[str], labels: Iterable[str], aliases: Optional[Mapping[str, str]],
          source: Optional[str]) -> tuple[Optional[str], Optional[str]]:
    """``(label, None)`` as :func:`read_label` reads it, or ``(None, why)`` (:func:`unread_label_reason`)."""
    labels = tuple(labels)
    forms = {label: label for label in labels}
    forms.update(aliases or {})
    recited = context.blank_recitals(text, labels, forms) if text else text
    if recited != text:  # a copy of the list: only a label picked from it counts
        picked = context.picked_label(squeeze_spaces(drop_questions(normalize(recited))), forms)
        if picked is not None:
            return picked, None
        return None, (RECITAL if squeeze_spaces(drop_questions(normalize(text))) else "empty turn")
    unsqueezed = drop_questions(normalize(text))
    answer = squeeze_spaces(unsqueezed)
    if not answer:
        return None, "empty turn"
    if len(labels) >= context.TOPIC_SET and len(_headings(unsqueezed, forms)) >= FORM_HEADINGS:
        return None, FORM                    # "诉讼主体：…\n租金情况：…\n利息：…": a form over the labels
    declared = _declared_label(answer, forms)
    if declared is not None:
        return declared, None
    verdicts = _mention_verdicts(answer, unsqueezed, labels, forms, source)
    named: set[str] = set()
    for start, end, label, passed_over in verdicts:
        if passed_over:
            continue
        if any(answer.endswith(neg, 0, start) for neg in NEGATIONS):
            if len(labels) == 2:
                named.add(labels[1] if label == labels[0] else labels[0])
            continue
        named.add(label)
    if len(named) == 1:
        return named.pop(), None
    if not verdicts:
        return None, NO_MENTION
    if all(passed_over for *_, passed_over in verdicts):
        return None, verdicts[0][3]
    return None, SEVERAL


#: Different labels written as headings (a label, then a colon) that make an answer a form over the labels
#: (``诉讼主体：…\n租金情况：…\n利息：…``): several labels named, none read (topic label sets only).
FORM_HEADINGS = 3
_HEADING_BEFORE = re.compile(r"(?:^|(?<=[\s，,。;；、>）)\]】]))")


def _headings(text: str, forms: Mapping[str, str]) -> set[str]:
    """The labels written as headings in ``text`` (normalised, with its whitespace): a form at the start of a
    line or after a space or punctuation, then a colon (``责任认定：``, ``\n劳动纠纷：\n``)."""
    alternatives = "|".join(re.escape(form) for form in sorted(forms, key=len, reverse=True))
    pattern = re.compile(f"{_HEADING_BEFORE.pattern}({alternatives})[ \t]*[:：]")
    return {forms[match.group(1)] for match in pattern.finditer(text)}


#: Why :func:`read_label` read no label (:func:`unread_label_reason`), in the words the audit prints.
RECITAL, NO_MENTION, SEVERAL = "a recital of the label list", "no label named", "several labels or a negated one"
FORM = "labels as the headings of a form"
ASKED, COPIED, SLOT_WORD, PROSE_NOUN = ("a label only asked about or inside another word",
                                        "labels only in a passage copied from the classified text",
                                        "a longer word in the answer slot", "labels only as nouns of long prose")


def unread_label_reason(text: Optional[str], labels: Iterable[str], aliases: Optional[Mapping[str, str]] = None,
                        source: Optional[str] = None) -> Optional[str]:
    """Why :func:`read_label` reads no label in ``text`` (the same arguments), or ``None`` when it
    reads one: "empty turn", :data:`RECITAL`, :data:`NO_MENTION`, the reason that passed over the
    first mention (:data:`ASKED`, :data:`COPIED`, :data:`SLOT_WORD`, :data:`PROSE_NOUN`) when every
    mention was passed over, else :data:`SEVERAL` (docs/answer_reading.md, labels)."""
    return _read(text, labels, aliases, source)[1]


def _mention_verdicts(answer: str, unsqueezed: str, labels: tuple[str, ...], forms: Mapping[str, str],
                      source: Optional[str]) -> list[tuple[int, int, str, Optional[str]]]:
    """Every mention of ``answer`` (whitespace-free; ``unsqueezed``: the same with its whitespace) as
    ``(start, end, label, passed over)``: the reason it names nothing — part of a question or of
    another word, in a passage copied from ``source``, inside a longer slot word, or over a topic
    set a noun of a long answer (:mod:`~cpsd_tasks.reading.label_context`) — or ``None`` when it may
    name its label. Negation is left to the caller."""
    copied_from = squeeze_spaces(normalize(source)) if source else ""
    topics = len(labels) >= context.TOPIC_SET
    longer = [m.span() for word in (context.longer_slot_words(unsqueezed, forms) if topics else ())
              for m in re.finditer(re.escape(word), answer)]
    prose = topics and len(answer) > context.PROSE_FROM
    breaks = context.line_breaks(unsqueezed) if prose else frozenset()
    verdicts: list[tuple[int, int, str, Optional[str]]] = []
    for start, end, label in context.mentions(answer, forms):
        reason = None
        if (any(answer.endswith(word, 0, start) for word in NAMES_NOTHING_BEFORE)
                or any(answer.startswith(word, end) for word in NAMES_NOTHING_AFTER)):
            reason = ASKED
        elif _in_copied_passage(answer, start, end, copied_from):
            reason = COPIED
        elif any(a <= start and end <= b for a, b in longer):
            reason = SLOT_WORD
        elif prose and not context.committed(answer, start, end, breaks, forms):
            reason = PROSE_NOUN
        verdicts.append((start, end, label, reason))
    return verdicts


#: Characters on each side of a label mention that must also be in the classified text for the
#: mention to count as copied from it (:func:`read_label`).
COPIED_WINDOW = 6


def _in_copied_passage(answer: str, start: int, end: int, source: str) -> bool:
    """Whether ``answer[start:end]`` sits inside a passage of ``source`` (both in the searched form):
    :data:`COPIED_WINDOW` characters on each side of it, and it, are a substring of ``source``."""
    if not source or start < COPIED_WINDOW or end + COPIED_WINDOW > len(answer):
        return False
    return answer[start - COPIED_WINDOW:end + COPIED_WINDOW] in source


def strict_label(text: Optional[str], labels: Iterable[str]) -> Optional[str]:
    """Return the label that the normalised output equals exactly, else ``None`` (``acc``, docs/metrics.md)."""
    answer = normalize(text)
    return answer if answer in set(labels) else None


_LIST_GAP = re.compile(r"(?:<[a-z]{2,4}>|[;；,，。.]|\d{1,2}[.、)）])+")


def _another_label_next(answer: str, end: int, label: str, forms: Mapping[str, str]) -> bool:
    """Whether another label follows at ``end`` of a whitespace-free answer as an item of a list: after nothing,
    a ``<eop>``-like tag, a separator or a number (``责任认定责任划分``, ``责任认定<eop>责任划分``, ``利息；本金争议``,
    ``利息1.本金争议``), and itself followed by the end, a tag, a separator or another label — not a sentence that
    starts with a label word (``责任划分不明确…``)."""
    gap = _LIST_GAP.match(answer, end)
    start = gap.end() if gap else end
    for form, canonical in forms.items():
        if canonical != label and answer.startswith(form, start):
            after = start + len(form)
            if (after == len(answer) or _LIST_GAP.match(answer, after)
                    or any(answer.startswith(other, after) for other in forms)):
                return True
    return False


def _declared_label(answer: str, forms: Mapping[str, str]) -> Optional[str]:
    """The label of the last explicit declaration in a whitespace-free answer, else ``None``."""
    alternatives = "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True))
    for match in reversed(list(re.finditer(f"{context.DECLARED_HEAD}({alternatives})", answer))):
        start = match.start(1)
        if any(answer.endswith(neg, 0, start) for neg in NEGATIONS):
            continue
        if any(answer.startswith(word, match.end(1)) for word in NAMES_NOTHING_AFTER):
            continue
        if re.match(r"[/|、或和与]", answer[match.end(1):match.end(1) + 1]):
            continue                         # "标签：谣言/非谣言": the label list echoed
        if _another_label_next(answer, match.end(1), forms[match.group(1)], forms):
            continue                         # "答案：责任认定\n责任划分\n…", "答案:责任认定<eop>责任划分": a list
        return forms[match.group(1)]
    return None
