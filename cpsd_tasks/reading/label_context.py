"""Where a label mention stands, for :func:`cpsd_tasks.reading.labels.read_label` (reader 5).

Three kinds, from the graders' conventions for closed-label answers (docs/answer_reading.md, labels),
each for a **topic label set** (four or more labels: case categories, dispute focuses, incident
types):

* a **recital of the label list** — four or more labels written one after another in the list's own
  order ("[类别]劳动纠纷<eoa>[类别]债权债务<eoa>[类别]合同纠纷<eoa>…", "类别包括：婚姻家庭、劳动纠纷、…")
  names none of them; only a label the model then picks from it, in a declaration or in the asked
  slot, counts (:func:`blank_recitals`, :func:`picked_label`);
* a **longer word in the answer slot** ("[类别]运输合同纠纷", "[争议焦点]诉讼主体争议") is not a label,
  so the label inside it names nothing (:func:`longer_slot_words`);
* in a **long answer** a label word used as a noun of the prose ("借款利息为年利率10%", "构成违约。
  答辩人可以…") names nothing; it counts where the model commits to it: after a copula or an answer
  head within its clause ("属于房产纠纷", "争议焦点是本金争议", "[类别]：债权债务"), or standing as a
  clause or line of its own (:func:`committed`).

Two- and three-label sets (verdicts such as 谣言/非谣言, 正确/错误, 积极/消极/中性) are not topic sets:
there the label word is the verdict wherever it stands and inside whatever word ("谣言信息").

All functions are pure and linear in the answer's length for a fixed label set.
"""

from __future__ import annotations

import re
from typing import Mapping, Optional

from cpsd_tasks.reading.lexicon import LABEL_HEADS, NEGATIONS
from cpsd_tasks.reading.patterns import alternatives
from cpsd_tasks.reading.prepare import squeeze_spaces

#: Labels in a set from which it is a topic set, and distinct labels in the list's order from which
#: a run of adjacent labels is a recital of the list.
TOPIC_SET = 4
#: Answers longer than this (characters, whitespace removed) are prose: over a topic set a label
#: mentioned in them names it only where the model commits to it (:func:`committed`).
PROSE_FROM = 40
#: Characters by which a word in the answer slot may exceed the label it holds and still be one
#: word ("运输合同纠纷" holds 合同纠纷); longer runs are phrases and read as before.
SLOT_WORD_EXTRA = 4

_HEAD_WORDS = r"[\u4e00-\u9fff]{0,4}(?:类别|焦点|类型|标签|答案|结论|结果)"
#: What may stand between two labels of a recital: whitespace, punctuation, numbering, end markers
#: and answer heads ("[类别]劳动纠纷<eoa>\n[类别]债权债务", "诉讼主体、租金情况、利息").
_BETWEEN_RECITED = re.compile(r"(?:\s|[\W_\d]|eoa|/s|" + _HEAD_WORDS + r")*")
#: A head that names the answer slot ("类别：", "[争议焦点]", "分类结果:"), then the word in the slot.
_SLOT_WORD = re.compile(r"(?:^|(?<=[\n\]】]))" + _HEAD_WORDS
                        + r"[\]】:：]\s*[\[【\"“]?(?P<word>[\u4e00-\u9fffA-Za-z0-9]+)")
_COPULAS = ("是", "为", "属", "系")
_COPULA = r"(?:应该是|应当是|应为|是|为)?"
_QUOTE = r"[\"'“‘「『]?"
#: An explicit declaration of a label ("结论：谣言", "答案是积极", "判断结果为诈骗"): nouns only, so
#: the verb in "题目要求判断是谣言还是非谣言" declares nothing; 回答/答 need their colon
#: (:func:`cpsd_tasks.reading.labels.read_label`).
DECLARED_HEAD = (f"(?:{alternatives(LABEL_HEADS)}|" r"(?:回答|答)\s*[:：])" rf"\s*{_COPULA}\s*[:：]?\s*{_QUOTE}")
#: The asked slot or a declaration: "[类别]婚姻家庭" (its opening bracket may be stripped), "类别：X".
_PICK_HEAD = (f"(?:(?:{alternatives(LABEL_HEADS + ('焦点',))})" r"[\]】]|"
              f"(?:{alternatives(LABEL_HEADS)}){_COPULA}[:：]?){_QUOTE}")
#: Words after which, within a clause, a label is committed to (copulas, classing verbs, heads).
_COMMIT_BEFORE = re.compile(r"(?:属于|是|为|系|归为|涉及|分类|类别|焦点|类型|答案|选择"
                            r"|(?i:classification|category|focus|answer))"
                            r"[:：\"“「『【\[\]】()（）]*$")
_CLAUSE_END = "，。；！？,.;!?、)）]】\"”」』<"
_CLAUSE_OPEN = "，。；！？,.;!?、([（【:：“\"「『"
_LIST_JOINS = ("和", "与", "或", "及", "以及", "、", "/")


def mentions(text: str, forms: Mapping[str, str]) -> list[tuple[int, int, str]]:
    """``(start, end, canonical label)`` of every label mention in ``text``, in order; where
    surface forms overlap the longest wins (``非谣言`` over ``谣言``)."""
    taken = [False] * len(text)
    found: list[tuple[int, int, str]] = []
    for form in sorted(forms, key=len, reverse=True):
        for match in re.finditer(re.escape(form), text):
            start, end = match.span()
            if not any(taken[start:end]):
                taken[start:end] = [True] * (end - start)
                found.append((start, end, forms[form]))
    return sorted(found)


def blank_recitals(text: str, labels: tuple[str, ...], forms: Mapping[str, str]) -> str:
    """``text`` with each recital of the label list replaced by spaces (same length).

    A recital: labels written one after another (nothing but whitespace, punctuation, numbering,
    end markers and answer heads between them) holding a stretch of at least :data:`TOPIC_SET`
    labels in the list's own order. A run holding two or more such stretches (the list written over
    and over) is blanked whole; otherwise only the stretch, so an answer written right after a copy
    of the list ("…、抵押担保。\\n[类别]婚姻家庭") stays. Sets of fewer labels have no recitals.
    """
    if len(labels) < TOPIC_SET:
        return text
    runs: list[list[tuple[int, int, int]]] = []
    for start, end, label in mentions(text, forms):
        if runs and _BETWEEN_RECITED.fullmatch(text, runs[-1][-1][1], start):
            runs[-1].append((start, end, labels.index(label)))
        else:
            runs.append([(start, end, labels.index(label))])
    spans = [span for run in runs for span in _recited_spans(run)]
    if not spans:
        return text
    pieces, at = [], 0
    for start, end in spans:                      # in order, disjoint: one pass (linear)
        pieces += [text[at:start], " " * (end - start)]
        at = end
    return "".join(pieces) + text[at:]


def _recited_spans(run: list[tuple[int, int, int]]) -> list[tuple[int, int]]:
    """The spans to blank in one run of adjacent mentions ``(start, end, list index)``."""
    stretches = [[run[0]]]
    for mention in run[1:]:
        if mention[2] > stretches[-1][-1][2]:
            stretches[-1].append(mention)
        else:
            stretches.append([mention])
    recitals = [(s[0][0], s[-1][1]) for s in stretches if len(s) >= TOPIC_SET]
    return [(run[0][0], run[-1][1])] if len(recitals) >= 2 else recitals


def picked_label(answer: str, forms: Mapping[str, str]) -> Optional[str]:
    """The one label what is left of an output after :func:`blank_recitals` declares or writes in
    the asked slot ("[类别]婚姻家庭", "其中，争议焦点类别为诉讼主体"), not negated and not the head of
    a list ("类别：合同效力、…"); ``None`` for none or several (mentions alone pick nothing)."""
    alts = "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True))
    named = {forms[m.group(1)] for m in re.finditer(f"{_PICK_HEAD}({alts})", answer)
             if not any(answer.endswith(neg, 0, m.start(1)) for neg in NEGATIONS)
             and not answer.startswith(_LIST_JOINS, m.end(1))}
    return named.pop() if len(named) == 1 else None


def longer_slot_words(text: str, forms: Mapping[str, str]) -> set[str]:
    """Words written in an answer slot of ``text`` (line breaks kept) that hold a label inside a
    longer word of at most :data:`SLOT_WORD_EXTRA` more characters and no copula ("运输合同纠纷",
    "诉讼主体争议", "家庭房产纠纷"): not labels, so the label in them names nothing."""
    words = set()
    for match in _SLOT_WORD.finditer(text):
        word = match.group("word")
        if word in forms or any(c in word for c in _COPULAS):
            continue
        inside = [f for f in forms if f in word]
        if inside and len(word) <= max(map(len, inside)) + SLOT_WORD_EXTRA:
            words.add(word)
    return words


def line_breaks(text: str) -> frozenset[int]:
    """Positions in ``squeeze_spaces(text)`` where ``text`` had a line break."""
    positions, at = set(), 0
    for line in text.split("\n"):
        at += len(squeeze_spaces(line))
        positions.add(at)
    return frozenset(positions)


def committed(answer: str, start: int, end: int, breaks: frozenset[int],
              forms: Mapping[str, str], depth: int = 0) -> bool:
    """Whether the mention ``answer[start:end]`` of a long answer is one the model commits to.

    Args:
        answer: the whitespace-free answer; ``breaks``: its line breaks (:func:`line_breaks`).
        start, end: the mention's span. forms: surface form -> label (for lists of labels).

    Returns:
        True right after a copula or an answer head ("属于房产纠纷", "[类别]：债权债务", not
        "构成违约。答辩人…" nor "我是一个婚姻家庭"); for a mention standing as a clause or line of its own that is not a
        field name ("…。婚姻家庭。", but not "诉讼主体：无"); and for one joined by 和/、/或 … to a
        committed mention ("争议焦点为诉讼主体和责任认定": both, so several labels).
    """
    if _COMMIT_BEFORE.search(answer, max(0, start - 10), start):
        return True
    opens = start == 0 or start in breaks or answer[start - 1] in _CLAUSE_OPEN
    closes = end == len(answer) or end in breaks or answer[end] in _CLAUSE_END
    if opens and closes and not answer.startswith((":", "："), end):
        return True
    if depth < len(forms):
        for join in _LIST_JOINS:
            if answer.endswith(join, 0, start):
                before = start - len(join)
                for form in forms:
                    if answer.endswith(form, 0, before):
                        return committed(answer, before - len(form), before, breaks, forms, depth + 1)
    return False
