"""The chosen options written as their own lines — the rules that read a whole output before the turn rules.

A multi-answer question is most naturally answered with the chosen options' lines (``A.丁某构成盗窃罪
\\nD.崔某构成非法持有枪支罪``, as in a 4-shot exam prompt's examples), a one-answer question with one line.
These rules read such an output as a whole (one turn with content only; otherwise the turn rules of
:mod:`cpsd_tasks.reading.letters` read it), following the graders' conventions of docs/answer_reading.md:

* **option lines** (:func:`option_lines`) — every line is an option's label and its own text (exact,
  lightly altered, broken over two lines or cut off by the length limit; label forms ``A.`` ``A:`` ``A、``
  ``(A)`` ``①A.`` ``选项A:``). A proper subset of the options is those options; the whole list written
  again in order with no answer head of the model's own is a copy (no answer), after a head
  (``答案：``) it is every option, in another order it is every option; a run of lines from the first
  option cut off mid-line with no head is a copy cut off (no answer); a line whose letter carries
  another option's text makes the reply ambiguous (no answer); every option restated with some claims
  reversed (``具有`` → ``不具有``) is a verdict on each; a verdict on every line (``(正确)``, ``(×)``,
  ``A: 错误。…``, ``(正确答案)``, ``A: 1``) chooses by the question's polarity (``正确答案`` marks choose
  whatever it asks); a lone letter above a copy of the options is that letter; ``A: B`` maps a letter
  to another (no answer). For a one-answer question these rules only decide that a reply of one line
  gives no answer (a copy cut off, another option's text, ``A: B``); a letter is left to the turn rules;
* **options' texts after a head** (part of :func:`option_lines`, several answers only) — ``答案: 甲所欠税款、甲应支付的赡养费``:
  each piece one option's text (≥ 90 % alike, and clearly closer to it than to any other);
* **letter groups** (:func:`letter_groups`, several answers only: for one answer the verdict rule reads them) — each group of letters given a verdict: ``A: 错，B、C、D：正确答案``,
  ``A、B、C、D都是正确的`` (by the question's polarity);
* **all options judged right** (:func:`all_judged_right`, several answers only) — ``所有说法都正确``: every option for a
  question asking which are right, no answer for one asking which are wrong; ``以上都是``, ``答案：所有``: every option;
* **all options judged wrong** (:func:`all_judged_wrong`, several answers only) — ``上述说法都是错误的``: every option
  for a question asking which are wrong, no answer for one asking which are right;
* **numbered letters** (:func:`numbered_letters`) — ``1. B 2. C 3. D``: a mapping, no answer.

Similarity is rapidfuzz's ``ratio`` over the texts without punctuation (:func:`plain`). Each rule
returns ``None`` (does not apply: the next rule, then the turn rules, read the output), a non-empty
frozenset of letters, or a :class:`~cpsd_tasks.reading.rule_kit.NoAnswer` naming why nothing was read.
Linear in the output's length for a fixed number of options.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Optional

from rapidfuzz import fuzz

from cpsd_tasks.reading.normalize import normalize
from cpsd_tasks.reading.prepare import FENCE_LINE, HTML_TAG, answer_text, fold_traditional
from cpsd_tasks.reading.question import Context, carried_option
from cpsd_tasks.reading.rule_kit import NoAnswer
from cpsd_tasks.reading.turns import turns

_HEAD_WORDS = r"(?:最终答案|正确答案|参考答案|答案)"
#: The model's own answer head: "答案：", "正确答案是：", "【答案】", "答案A:" (glued to a label).
_HEAD = re.compile(r"(?:^|\n)[ \t]*(?:【" + _HEAD_WORDS + r"】|" + _HEAD_WORDS + r"[ \t]*(?:(?:是|为|应为|应该是)[ \t]*)?[:：]|"
                   + _HEAD_WORDS + r"(?=[A-E][ \t]*[\.．、:：]))[ \t]*")
_NUMBERING = r"(?:(?:\d{1,2}[、.．)）]?|[\(（]\d{1,2}[\)）])[ \t]*)?(?:选项)?"
_LINE = re.compile(r"^" + _NUMBERING + r"[\(（【\[]?([A-E])[\)）】\]]?[ \t]*(?:[\.．、:：,，][ \t]*|[ \t]+)(\S.*?)$", re.S)
_BARE_LABEL = re.compile(r"^" + _NUMBERING + r"[\(（【\[]?([A-E])[\)）】\]]?[ \t]*[\.．、:：]?[ \t]*$")
_MAPPING_LINE = re.compile(r"^\s*[A-E]\s*[:：]")
_LONE_LETTER = re.compile(r"[A-E][。.]?")
_CUT_MARK = re.compile(r"[ \t]*(?:\[\.\.\.\]|\.\.\.|…+)[ \t.]*$")
_LABEL_AT = re.compile(_NUMBERING + r"[\(（【\[]?([A-E])[\)）】\]]?[ \t]*[\.．、:：]")
_BEFORE_LABEL = set("\n；;。，, \t")
_LINE_BREAK = re.compile(r"[\n\r]+")
_LEAD_IN = re.compile(r"^[^A-Za-z\n]{2,60}[:：][ \t]*(?=[\(（【\[]?[A-E][\)）】\]]?[ \t]*[\.．、:：]|$)")
_VERDICT_AFTER = re.compile(r"(?:[ \t]*[\(（【\[][ \t]*|[ \t]*[:：,，—\-][ \t]*|[ \t]+)(正确答案|错误答案|正确|错误|对|错|√|×|✓|✗|✔|✘)"
                            r"[ \t]*[\)）】\]]?[。.;；]?$")
_VERDICT_PHRASE = re.compile(r"(?:是|为)(正确|错误|对|错)的?[。.]?$")
_VERDICT_FIRST = re.compile(r"^(正确|错误|对|错)(?:[。.，,:：；;!！]|[ \t]|$)[ \t]*")
_DIGIT_VERDICT = re.compile(r"^[01]$")
_ANSWER_WORD = re.compile(r"答案|答：|answer", re.IGNORECASE)
_LETTERS_ONLY = re.compile(r"^[A-E](?:[、,，/和及与\s]|$)")
_ANY_LETTER = re.compile(r"[A-Ea-e]")
_TEXT_PIECES = re.compile(r"[、；;\n]+")
_NEGATION = re.compile("[不非无未没勿]")
_TRUE_WORDS = frozenset({"正确", "对", "√", "✓", "✔", "1"})
_MARKS = {"正确答案": True, "错误答案": False}
_EDGE = " \t\n。.，,;；"
#: A line's text against its own option's: below this it is not that option's line (unless, for
#: several answers, another line of the reply is clearly its option's: GOOD_ALIKE).
MIN_ALIKE = 70
GOOD_ALIKE = 80
#: A cut-off line is at least this long (characters without punctuation) and shorter than 90 % of its option.
CUT_MIN = 2
#: ``$``-anchored patterns (a verdict or a cut mark closing a line) are looked for in this many last characters.
TAIL = 40


@dataclass
class _Line:
    """One option line as judged: its letter, how alike its text is to its option's (0–100), the other
    option whose text it carries (or ``None``), its verdict word, whether it reverses its option's
    claim, whether it is cut off, whether it is a bare label."""

    letter: str
    alike: float
    other: Optional[str] = None
    mark: Optional[str] = None
    reversed: bool = False
    cut: bool = False
    bare: bool = False


@dataclass(frozen=True)
class _Question:
    """What these rules compare: the options' letters, their texts as :func:`plain` makes them, and
    whether the question asks for the wrong ones."""

    valid: frozenset[str]
    targets: dict
    negative_question: bool


def _question(ctx: Context) -> _Question:
    return _Question(ctx.valid, {key: plain(value) for key, value in ctx.texts.items() if value}, ctx.negative_question)


def plain(text: str) -> str:
    """``text`` normalised (NFKC, Traditional folded) without whitespace, punctuation or ``_``."""
    return re.sub(r"[\s\W_]+", "", normalize(fold_traditional(text or "")))


def _alike(said: str, target: str) -> float:
    return 100.0 if said == target else fuzz.ratio(said, target)


def _cut_off(said: str, target: str) -> bool:
    """A line cut off by the length limit: a proper start (or a middle, not the last clause) of its
    option's text."""
    if not target or len(said) < min(CUT_MIN, len(target)) or len(said) >= 0.9 * len(target):
        return False
    if fuzz.ratio(said, target[:len(said)]) >= 90:
        return True
    return fuzz.partial_ratio(said, target) >= 90 and fuzz.ratio(said, target[-len(said):]) < 90


def _reverses(said: str, target: str) -> bool:
    """The option's claim with a negation put in or taken out, and little else changed."""
    if said == target or len(_NEGATION.findall(said)) == len(_NEGATION.findall(target)):
        return False
    return fuzz.ratio(_NEGATION.sub("", said), _NEGATION.sub("", target)) >= 90


@functools.lru_cache(maxsize=256)
def _content_turns(output: Optional[str]) -> tuple[tuple[int, str], ...]:
    """``(index, text)`` of each turn of ``output`` with content — computed once per output for all the
    output rules and :func:`answer_turn` (a pure function of the string)."""
    text = FENCE_LINE.sub("", HTML_TAG.sub("", answer_text(output)))   # (as the turn rules prepare an output)
    return tuple((index, piece) for index, piece in enumerate(turns(text)) if piece.strip(_EDGE))


def _single_turn(output: Optional[str]) -> str:
    """The model's turn when it is the only one with content, else ``""`` (the turn rules read turns)."""
    pieces = _content_turns(output)
    return pieces[0][1] if len(pieces) == 1 else ""


def answer_turn(output: Optional[str]) -> int:
    """The index of the output's turn with content (the one these rules read), 0 when there is none."""
    pieces = _content_turns(output)
    return pieces[0][0] if pieces else 0


def _starts_item(body: str, start: int, letter: str, previous: Optional[str], first_text: int) -> bool:
    """Whether the label at ``start`` starts an item (``first_text``: where the body's text begins)."""
    return start <= first_text or body[start - 1] in _BEFORE_LABEL or (previous is not None and ord(letter) == ord(previous) + 1)


def _lines(body: str) -> list[str]:
    """``body`` cut before each label that starts an item (at a line start, after ；/。/，/a space, or
    anywhere when its letter follows the previous label's) and at line breaks; a lead-in ending in a
    colon before the first label (``属于税法适用原则的有：A. …``) is dropped."""
    cuts, previous = [], None
    first_text = len(body) - len(body.lstrip())
    for match in _LABEL_AT.finditer(body):
        if _starts_item(body, match.start(), match.group(1), previous, first_text):
            cuts.append(match.start())
            previous = match.group(1)
    parts = [body] if not cuts else [body[:cuts[0]]] + [body[a:b] for a, b in zip(cuts, cuts[1:] + [len(body)])]
    lines = [line.strip() for part in parts for line in _LINE_BREAK.split(part) if line.strip()]
    lead = _LEAD_IN.match(lines[0]) if lines else None
    if lead:
        rest = lines[0][lead.end():]
        lines = ([rest] if rest.strip() else []) + lines[1:]
    return lines


def _labelled(match: re.Match, line: str, alone: bool) -> Optional[list[str] | str]:
    """One labelled line as ``[letter, text]``; ``"mapped"`` for ``A: B``; ``None`` when its text holds
    an answer head or a letter list (another rule reads it)."""
    letter, said = match.group(1), match.group(2)
    verdict = _tail_search(_VERDICT_AFTER, said)
    if alone and _LONE_LETTER.fullmatch(said.strip()) and said.strip()[0] != letter and _MAPPING_LINE.match(line):
        return "mapped"
    if _ANSWER_WORD.search(said[:verdict[1]] if verdict else said) or _LETTERS_ONLY.match(said):
        return None
    return [letter, said]


def _continues(rows: list[list[str]], line: str, last: bool, ctx: _Question) -> bool:
    """Whether ``line`` continues the previous row's text (an option's text broken over two lines)."""
    letter, said = rows[-1]
    target = ctx.targets.get(letter, "")
    joined = plain(said + line)
    return _alike(joined, target) >= max(90, _alike(plain(said), target)) or (last and _cut_off(joined, target))


def _rows(lines: list[str], ctx: _Question, headed: bool) -> Optional[list[list[str]] | str]:
    """``[[letter, text], …]`` when every line is an option's line (or continues one; a bare label may
    close the reply), ``"mapped"`` for ``A: B``, else ``None``."""
    rows: list[list[str]] = []
    for index, line in enumerate(lines):
        last = index == len(lines) - 1
        match = _LINE.match(line)
        if match and match.group(1) in ctx.valid:
            row = _labelled(match, line, len(lines) == 1)
            if not isinstance(row, list):
                return row
            rows.append(row)
            continue
        bare = _BARE_LABEL.match(line)
        if bare and last and rows and bare.group(1) in ctx.valid:
            rows.append([bare.group(1), ""])            # "…\nB": the next label, cut off
        elif rows and rows[-1][1] and _continues(rows, line, last, ctx):
            rows[-1][1] += line
        elif index == 0 and headed and len(lines) > 1 and _alike(plain(line), ctx.targets.get(min(ctx.valid), "")) >= 90:
            rows.append([min(ctx.valid), line])         # "答案: <A's text>\nB. …": the first option by its text
        else:
            return None
    return rows


def _tail_search(pattern: re.Pattern, text: str) -> Optional[tuple[str, int]]:
    """A ``$``-anchored pattern searched in the last :data:`TAIL` characters only (linear on long
    lines and whitespace runs): (its first group, where the match starts in ``text``), or ``None``."""
    start = max(0, len(text) - TAIL)
    match = pattern.search(text, start)
    return (match.group(1), match.start()) if match else None


def _mark_of(said: str) -> tuple[Optional[str], str]:
    """(the line's verdict word or ``None``, its text without it)."""
    if _DIGIT_VERDICT.match(said.strip()):
        return said.strip(), ""
    after = _tail_search(_VERDICT_AFTER, said) or _tail_search(_VERDICT_PHRASE, said)
    if after:
        return after[0], said[:after[1]]
    first = _VERDICT_FIRST.match(said)
    if first:                                           # "A: 正确。<the option's text>"
        return first.group(1), said[first.end():]
    return None, said


def _without_cut_mark(said: str) -> str:
    """``said`` without a closing ``[...]``/``...``/``…`` (looked for in its tail only)."""
    start = max(0, len(said) - TAIL)
    match = _CUT_MARK.search(said, start)
    return said[:match.start()] if match else said


def _judge(letter: str, said: str, last: bool, ctx: _Question) -> _Line:
    if not said:
        return _Line(letter, 0.0, cut=True, bare=True)
    mark, said = _mark_of(_without_cut_mark(said))
    text = plain(said)
    own = ctx.targets.get(letter, "")
    if not text:
        return _Line(letter, 100.0 if mark else 0.0, mark=mark)
    if last and _cut_off(text, own):
        return _Line(letter, 99.0, mark=mark, cut=True)  # the start of its own option's text: its label decides
    alike = {key: _alike(text, target) for key, target in ctx.targets.items()}
    return _Line(letter, alike.get(letter, 0.0), other=carried_option(alike, letter), mark=mark,
                 reversed=_reverses(text, own))


def _by_verdicts(judged: list[_Line], ctx: _Question) -> frozenset[str]:
    marks = [line.mark for line in judged]
    if all(mark in _MARKS for mark in marks):
        chosen = {line.letter for line in judged if _MARKS[line.mark]}
    elif any(mark in _MARKS for mark in marks):
        return NoAnswer("verdicts of two kinds")
    elif all(_DIGIT_VERDICT.match(mark) for mark in marks):
        chosen = {line.letter for line in judged if line.mark == "1"}
    else:
        chosen = {line.letter for line in judged if (line.mark in _TRUE_WORDS) != ctx.negative_question}
    return frozenset(chosen) or NoAnswer("per-option verdicts choose nothing")


def _by_reversals(judged: list[_Line], ctx: _Question) -> Optional[frozenset[str]]:
    """Every option restated, some claims reversed: the reversed ones are judged wrong."""
    letters = {line.letter for line in judged}
    flipped = {line.letter for line in judged if line.reversed}
    if letters != ctx.valid or not flipped or any(line.alike < MIN_ALIKE for line in judged if not line.reversed):
        return None
    chosen = flipped if ctx.negative_question else letters - flipped
    return frozenset(chosen) or NoAnswer("options restated, all reversed")


def _decide(judged: list[_Line], ctx: _Question, headed: bool, multi: bool) -> Optional[frozenset[str]]:
    if judged[-1].bare:
        if not headed:
            return NoAnswer("copied option list, cut off")
        judged = judged[:-1]                            # "答案A: …\nB: ": a label cut off before its text
    if not judged:
        return None
    if all(line.mark for line in judged):
        return _by_verdicts(judged, ctx)
    if any(line.mark for line in judged):
        return None
    good = any(line.alike >= GOOD_ALIKE for line in judged)
    if any(line.alike < MIN_ALIKE for line in judged) and not (multi and good):
        return None
    reversed_reading = _by_reversals(judged, ctx)
    if reversed_reading is not None:
        return reversed_reading
    letters = [line.letter for line in judged]
    in_order = letters == sorted(ctx.valid)[:len(letters)]
    if not headed and in_order and judged[-1].cut:
        return NoAnswer("copied option list, cut off")
    if not headed and in_order and set(letters) == ctx.valid:
        return NoAnswer("copied option list")
    return frozenset(letters)


def _letter_above_copy(lines: list[str], ctx: _Question) -> Optional[frozenset[str]]:
    """A bare letter, then a copy of the options from the first (``A\\nA: …\\nB: …``): that letter."""
    bare = _BARE_LABEL.match(lines[0]) if len(lines) >= 3 else None
    if not bare or bare.group(1) not in ctx.valid:
        return None
    rows = _rows(lines[1:], ctx, False)
    if not isinstance(rows, list) or len(rows) < 2:
        return None
    letters = [row[0] for row in rows]
    return frozenset({bare.group(1)}) if letters == sorted(ctx.valid)[:len(letters)] else None


def _named_by_texts(body: str, ctx: _Question) -> Optional[frozenset[str]]:
    """Options named by their texts alone after a head, joined by 、/；: their letters, else ``None``."""
    if _ANY_LETTER.search(body):
        return None
    found = set()
    for piece in _TEXT_PIECES.split(body):
        text = plain(piece)
        if not text:
            continue
        ranked = sorted(((_alike(text, target), key) for key, target in ctx.targets.items()), reverse=True)
        if not ranked or ranked[0][0] < 90 or (len(ranked) > 1 and ranked[1][0] > ranked[0][0] - 5):
            return None
        found.add(ranked[0][1])
    return frozenset(found) or None


def _headed_body(text: str) -> tuple[str, str, bool]:
    """(what comes before the model's last answer head, what comes after it, whether there is one)."""
    heads = list(_HEAD.finditer(text))
    if not heads:
        return "", text, False
    return text[:heads[-1].start()], text[heads[-1].end():], True


def _without_rows(lines: list[str], body: str, headed: bool, ctx: _Question, multi: bool) -> Optional[frozenset[str]]:
    if not multi:
        return None                                     # (one answer: the turn rules read these)
    above = _letter_above_copy(lines, ctx)
    if above:
        return above
    return _named_by_texts(body, ctx) if headed else None


def option_lines(output: Optional[str], ctx: Context, multi: bool = False) -> Optional[frozenset[str]]:
    """The chosen options written as their lines (module docstring).

    >>> from cpsd_tasks.reading.letters import context
    >>> sorted(option_lines("A.丁某构成盗窃罪\\nD.崔某构成非法持有枪支罪",
    ...                     context({"A": "丁某构成盗窃罪", "B": "丁某构成盗窃枪支罪", "C": "崔某构成窝藏罪",
    ...                              "D": "崔某构成非法持有枪支罪"}, None), multi=True))
    ['A', 'D']
    """
    text = _single_turn(output)
    ctx = _question(ctx)
    if not text or not ctx.targets:
        return None
    before, body, headed = _headed_body(text)
    if before.strip() and _rows(_lines(before), ctx, False) is None:
        return None                                     # prose before the answer: the turn rules read it
    lines = _lines(body)
    if not lines:
        return None
    rows = _rows(lines, ctx, headed)
    if rows == "mapped":
        return NoAnswer("a letter mapped to another letter")
    if rows is None:
        return _without_rows(lines, body, headed, ctx, multi)
    written = [row[0] for row in rows if row[1]]
    if len({row[0] for row in rows}) != len(rows) or not written:
        return None
    if not multi and (len(written) > 1 or before.strip()):
        return None                                     # several lines for one answer: the turn rules read them
    judged = [_judge(letter, said, index == len(rows) - 1, ctx) for index, (letter, said) in enumerate(rows)]
    if any(line.other for line in judged):
        return NoAnswer("a letter's line carries another option's text")
    if not multi and judged[0].mark:
        return None                                     # "A: 正确。…": a verdict, read by the verdict rule
    decided = _decide(judged, ctx, headed, multi)
    return decided if multi or decided is None or not decided else None   # one answer's letter: the turn rules'





# --------------------------------------------------------------------------- letter groups

_GROUP = re.compile(r"^([A-E](?:[、,，和及与/ ]*[A-E])*)(?:[:：]|选项|项)?[ \t]*(?:都|均|全)?(?:是|为)?[ \t]*"
                    r"(正确答案|错误答案|正确|错误|对|错|是|否)(?:的)?$")
_CLAUSE = re.compile(r"[，,。；;\n!！]+")
_POSITIVE = frozenset({"正确", "对", "是"})
_GROUP_WORDS = frozenset({"正确", "对", "是", "错误", "错", "否"})


def _group_marks(body: str, ctx: _Question) -> Optional[dict[str, str]]:
    """``{letter: verdict word}`` when every clause is a letter group and its verdict, else ``None``."""
    marks: dict[str, str] = {}
    clauses = [clause.strip() for clause in _CLAUSE.split(normalize(body)) if clause.strip()]
    for clause in clauses:
        match = _GROUP.match(clause.replace(" ", ""))
        if not match:
            return None
        for letter in re.findall(r"[A-E]", match.group(1)):
            if letter not in ctx.valid or marks.get(letter, match.group(2)) != match.group(2):
                return None
            marks[letter] = match.group(2)
    return marks or None


def letter_groups(output: Optional[str], ctx: Context, multi: bool = False) -> Optional[frozenset[str]]:
    """Letter groups each given a verdict: ``正确答案`` marks choose; truth verdicts by the question's
    polarity.

    >>> from cpsd_tasks.reading.letters import context
    >>> sorted(letter_groups("A: 错，B、C、D：正确答案。", context("ABCD", None), multi=True))
    ['B', 'C', 'D']
    """
    text = _single_turn(output) if multi else ""
    if not text:
        return None
    ctx = _question(ctx)
    marks = _group_marks(_headed_body(text)[1], ctx)
    if not marks:
        return None
    words = set(marks.values())
    if words & set(_MARKS):
        chosen = {key for key, word in marks.items() if _MARKS.get(word)}
    elif words <= _GROUP_WORDS:
        chosen = {key for key, word in marks.items() if (word in _POSITIVE) != ctx.negative_question}
    else:
        return None
    return frozenset(chosen) or NoAnswer("letter groups with verdicts choose nothing")


# --------------------------------------------------------------------------- all options judged right

_ALL_OF = r"(?:以上|上述|所有|全部|四个|各个?|这些)?(?:选项|说法|表述|观点|情形|情况|项)?(?:都|均|全|全部)(?:是)?"
_ALL_RIGHT = re.compile(_ALL_OF + r"(?:正确|对|成立|符合[^。，,不]{0,20}|属于[^。，,不]{0,20})(?:的)?$")
_ALL_WRONG = re.compile(_ALL_OF + r"(?:错误|错|不正确|不对|不成立|不符合[^。，,]{0,20}|不属于[^。，,]{0,20})(?:的)?$")
#: "All of them" named as the answer, no verdict in it; those a bare head must precede ("答案: 所有").
_ALL_NAMED = ("以上都是", "以上全是", "以上全部")
_ALL_NAMED_AFTER_HEAD = ("所有", "全部", "上述情况", "以上情况", "上述选项", "以上选项")


def _blanket(output: Optional[str], multi: bool) -> Optional[tuple[str, bool, bool]]:
    """The whole own turn of a several-answer reply, plain; whether an answer head opens it; and
    whether it is one clause (no line break, comma or full stop before its end)."""
    text = _single_turn(output) if multi else ""
    if not text:
        return None
    _, body, headed = _headed_body(text)
    return plain(body), headed, not re.search(r"[\n，,。；;]", body.strip().rstrip("。.!！ "))


def _an_option_text(said: str, ctx: Context) -> bool:
    """Whether ``said`` (plain) is one option's own text ("D. 以上都是", "D. 以上说法均不正确"): that option."""
    return any(said == plain(text) for text in ctx.targets.values())


def all_judged_right(output: Optional[str], ctx: Context, multi: bool = False) -> Optional[frozenset[str]]:
    """Every option called right at once (``所有说法都正确``): every option for a question asking which
    are right, no answer for one asking which are wrong; every option named as the answer
    (``以上都是``; ``所有``, ``上述情况`` only after a head), whatever the question asks.

    >>> from cpsd_tasks.reading.letters import context
    >>> sorted(all_judged_right("答案: 所有说法都正确", context("ABCD", "下列说法正确的有？"), multi=True))
    ['A', 'B', 'C', 'D']
    """
    found = _blanket(output, multi)
    if found is None:
        return None
    said, headed, _ = found
    if (said in _ALL_NAMED or (said in _ALL_NAMED_AFTER_HEAD and headed)) and not _an_option_text(said, ctx):
        return frozenset(ctx.valid)
    if not _ALL_RIGHT.match(said):
        return None
    if ctx.negative_question:
        return NoAnswer("all options judged right, for a 'which is wrong' question")
    return frozenset(ctx.valid)


def all_judged_wrong(output: Optional[str], ctx: Context, multi: bool = False) -> Optional[frozenset[str]]:
    """Every option called wrong at once, in one clause that is the whole answer and no option's own text
    (``上述说法都是错误的``, ``以上选项均不正确``): every option for a question asking which are wrong
    (each is judged so), no answer for one asking which are right.

    >>> from cpsd_tasks.reading.letters import context
    >>> sorted(all_judged_wrong("答案: 上述说法都是错误的", context("ABCD", "下列说法错误的有？"), multi=True))
    ['A', 'B', 'C', 'D']
    """
    found = _blanket(output, multi)
    if found is None or not found[2] or not _ALL_WRONG.match(found[0]) or _an_option_text(found[0], ctx):
        return None
    if ctx.negative_question:
        return frozenset(ctx.valid)
    return NoAnswer("all options judged wrong, for a 'which is right' question")


# --------------------------------------------------------------------------- numbered letters

_NUMBERED_LETTERS = re.compile(r"^\s*1[.．、)）:：]\s*[A-Z]\b\s*[,，;；]?\s*2[.．、)）:：]\s*[A-Z]\b\s*[,，;；]?\s*3[.．、)）:：]\s*[A-Z]\b")


def numbered_letters(output: Optional[str], ctx: Context, multi: bool = False) -> Optional[frozenset[str]]:
    """Letters numbered 1, 2, 3, … (``1. B 2. C 3. D``): a mapping or answers to several questions, not
    an answer to this one.

    >>> from cpsd_tasks.reading.letters import context
    >>> numbered_letters("1. B 2. B 3. C 4. D", context("ABCD", None)).reason
    'numbered letters'
    """
    text = _single_turn(output)
    return NoAnswer("numbered letters") if text and _NUMBERED_LETTERS.match(text) else None


#: The rules that read a whole output before the turn rules, in order.
OUTPUT_RULES = (option_lines, letter_groups, all_judged_right, all_judged_wrong, numbered_letters)
