"""The option letters a model answered with (docs/metrics.md#police-exam), read as a careful human reader would.

Audited against a human-graded sample of 34 real LLMs' answers to single-choice questions
(``scripts/audit_reading.py``, README "Answer reading"). The reader is an engine over an ordered
tuple of named rules, :data:`RULES`; each rule is a small function of one :class:`Turn`
(:mod:`cpsd_tasks.reading.rule_kit`) with a docstring and an example, and the sample log names the
rule that decided (``"rule": "declared"``) or why nothing was read (``"reason": "copied option list"``).

How an output is read (:func:`read_choices`):

1. **Preparation** (:func:`prepare`) — ``<think>`` removed, NFKC, Traditional folded, HTML tags, fence
   lines and ``*`` dropped, LaTeX unwrapped (``$\\boxed{\\text{B}}$`` → a declaration of B,
   ``$\\mathrm{A}$`` → A), bracketed declarations made plain (``[正确答案]B`` → ``正确答案：B``).
2. **Turns** — the output is split at end markers (``<eoa>``, ``</s>``, ``<|im_end|>`` …) and role
   markers (``<human>``, ``### Human`` …). The first turn from which an answer is read gives the
   answer; later turns count only when they are bare answers (turn rule ``later_turns``: letters
   through every letter of the question are the answer slot recited (no answer), three or more
   different letters short of that a template (all of them), a second declaration replaces the first
   (``[正确答案]B<eoa>[正确答案]D<eoa>`` → D), a bare letter adds to it (``[正确答案]C<eoa>\\nD<eoa>``
   → CD)); any other later turn (an invented next question with its own answer) is ignored, but the
   first line of the last turn replaces the answer when it declares another single letter, not
   supposed and not of the other polarity (turn rule ``redeclared``: ``[正确答案]B<eoa>\n\n其中错误的是A。``
   → A); an end marker inside a sentence joins its two pieces (turn rule ``joined_pieces``). Inside a
   turn, a new-question marker (``问题：``, ``题目：``, ``【例题】``) or a question posed with its own options
   after an answer ends the turn, and so do this question re-posed or a ``请问：…`` after an answer
   that was not to a question the model posed itself (a ``请问：`` before any answer ends nothing); a
   turn that starts with a colon (an end marker where a label was) is part of a copied list.
3. **Before the rules** (:func:`read_turn`) — a turn that is empty, maps every letter to itself
   (``A.A B.B C.C D.D``) or echoes the prompt's letter list (``A,B,C,D`` on two lines) holds no answer.
4. **Inside a turn**, the first rule of :data:`RULES` that decides wins (generated from :data:`RULES`):

{RULES}

Letters are capital A–Z after NFKC (full-width Ａ counts); lower-case letters count only as the
whole answer, after a declaration or as a leading label, never as an English word
(``The answer is B because a car…`` → B). A letter adjacent to other Latin letters is part of a
word (APP, GPS) and never an option; letters outside the question's options are ignored. Nothing
readable gives ``None`` — never a guess, never the first letter of a copied option list.
Linear-time: every pattern has one parse per string (no nested quantifiers over the same text).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Optional

from cpsd_tasks.reading.declarations import RESTATED, declared, declared_text, read_declared, restated_as
from cpsd_tasks.reading.letter_patterns import (
    DECLARATION,
    ENGLISH_VERDICT,
    INLINE_LABEL,
    LABEL,
    LETTER_LIST,
    LETTER_LIST_RE,
    LOOP_LETTER,
    LOWER_LETTER_LIST,
    VERDICT_TAIL,
    combine_slots,
    label_letter,
    labels_in,
    letters_in,
)
from cpsd_tasks.reading.option_lines import OUTPUT_RULES, answer_turn
from cpsd_tasks.reading.option_text import option_text
from cpsd_tasks.reading.prepare import (
    FENCE_LINE,
    HTML_TAG,
    LONE_SURROGATE,
    answer_text,
    canonical_declarations,
    fold_traditional,
    squeeze,
    strip_edges,
)
from cpsd_tasks.reading.question import (
    BLANK,
    NEGATED_CONTENT,
    Context,
    asking_clause,
    compared_text,
    negated_ask,
    option_target,
    plain_text,
)
from cpsd_tasks.reading.rule_kit import NoAnswer, Turn
from cpsd_tasks.reading.turns import QUESTION_MARKER, mark_echoes, turns
from cpsd_tasks.reading.verdicts import text_verdicts_of, verdicts
from cpsd_tasks.reading.lexicon import BARE_HEADS, DOUBTS, NUMBERED_HEADS, SUPPOSITIONS, VIEWS
from cpsd_tasks.reading.patterns import alternatives, one_of

_LOWER_LIST_RE = re.compile(LOWER_LETTER_LIST)
_RETRACTED = r" ?[(（]? ?(?:都|均|全|也)?(?:不对|不正确|错误|错了|是错的|是错误|有误|不是|不选|不符合)| ?(?:吗|呢|\?|？)"
# A leading letter list, taken whole (atomic: "B、C、D正确" is never cut back to "B、C"), must end the
# answer, be followed by a delimiter ("B. 内容…", "A、交通…") or be called correct ("B、C、D正确，A错误"),
# not by other text ("A项错误" names no answer), a retraction ("A B C D 都不对") or an
# enumeration ("A、B、C、D 四个选项中", "从A,B,C,D中选出").
_LEADING = re.compile(
    rf"^(?:\d{{1,2}}[.、)] ?)?(?P<list>(?>{LETTER_LIST}))"
    rf"(?!{_RETRACTED}| ?(?:[两三四五六七八九十几]个)?(?:选项)?中)"
    r"(?=$|[\s.．:：)）、,，;；。]|(?:的说法|说法)?(?:都|均)?(?:是)?正确)"
)
_LOWER_LEADING = re.compile(rf"^(?P<list>{LOWER_LETTER_LIST})(?=$|[.．:：)）、,，;；。]| ?[^A-Za-z ])")
# A question that asks for the wrong statement ("下列说法错误的是", "哪一项不正确").
_NEGATIVE_QUESTION = re.compile(r"(?:错误|不正确|不准确|不恰当|不妥当?|不符合|不属于|不成立|不能|不得|不应|不是|不包括|"
                                r"不具有|不合法|违法|不予|不可以|有误)")
_LATEX_WRAPPER = re.compile(r"\\(?:text|mathrm|textbf|mathbf|mathit|textit|operatorname)\s*\{([^{}]{0,40})\}")
_BOXED = re.compile(r"\\boxed\s*\{([^{}]{0,40})\}")


def prepare(output: Optional[str]) -> str:
    """An output made ready for letter reading (step 1 of the module docstring)."""
    text = answer_text(output)
    text = fold_traditional(text)
    text = FENCE_LINE.sub("", HTML_TAG.sub("", text)).replace("*", "")
    text = _BOXED.sub(lambda m: f"答案：{m.group(1)} ", _LATEX_WRAPPER.sub(r"\1", text))
    text = _LATEX_WRAPPER.sub(r"\1", text).replace("$", " ")
    return mark_echoes(canonical_declarations(squeeze(text)))
_DOTTED_LETTERS = re.compile(r"[A-Z]+(?:[ \t]*[.．][ \t]*[A-Z]+){2,}[.．]?")     # ("A.B.C.D.", "A.AB.BC.CD.D")
# After a leading label: English prose, five words or more ("A: The court should…"), which names no answer
# unless it says so ("A. Theft" may be the option translated).
_ENGLISH_AFTER_LABEL = re.compile(r"[ \t]*[:：.．)）、]?[ \t]*[A-Za-z]{2,}(?:[ \t,.'’\"“”()-]+[A-Za-z0-9]+){4}")
_ENGLISH_ANSWER_WORD = re.compile(r"(?i)\b(?:correct|right|answer|choose|choice|true)\b")
_CJK = re.compile(r"[\u3400-\u9fff]")
_LONE_LETTER = re.compile(r"(?m)^[ \t]*([A-Z])[ \t]*$")
_SPACED_LABEL = re.compile(r"(?m)^[ \t]*([A-Z]) (?=[\u3400-\u9fff])")
# A line that asks a question and is followed by an option list: a question the model poses.
# A question line (ending in a question mark, an exam blank "（ ）" or a colon: "…的是:"), then its first option label on
# the same or a following line ("A:", "A.", "(A) ", "（A）", "A) ").
_NEW_QUESTION = re.compile(r"(?m)^[^\n]{4,200}(?:[?？]|[（(][ \t\u3000]*[)）]|[\u3400-\u9fff][ \t]*[:：])[ \t]*(?:\n(?:[ \t]*\n)*[ \t]*)?"
                           r"(?=[(（\[【][A-Z][)）\]】]|[A-Z][)）]|[A-Z][ \t]*[:：.．、])")
_SENTENCE_ENDS = ("。", ".", "!", "！", "?", "？", "\n")
_EDGES = " \t\r\n:：。,，、【】[]()（）〖〗#*"
_EMPTY_LABEL = re.compile(r"\s*(?:\d{1,2}[.、)] ?)?[(（\[【]?[A-Z][)）\]】]?\s*[:：.．、]\s*")


def _first_line_answer(text: str, ctx: Context) -> Optional[frozenset[str]]:
    """The first line is one option with its own text ("A 甲某个人成立合同诈骗罪"), or its letter alone,
    and the next line is not another label: an answer, even when copies of the question and its options follow (but
    not when the other options follow with their own text and no copy of the question: a walk
    through every option)."""
    lines = [line for line in re.split(r"\n|(?<=。)", text) if line.strip()]
    if len(lines) < 2:
        return None
    alone = re.fullmatch(r"[ \t]*([A-Z])[ \t]*", lines[0])
    if (alone and alone.group(1) in ctx.valid and len(_LONE_LETTER.findall(text)) == 1
            and not LABEL.match(lines[1]) and not _SPACED_LABEL.match(lines[1])
            and not compared_text(lines[1]).startswith(ctx.targets.get(alone.group(1), "\0")[:6])
            and not _listed_after(lines[1:], alone.group(1), ctx)):
        # "A\n<discussion>…": a letter alone on the first line (not "A\n<A's text>;\n<B's text>…", a label
        # on a line of its own above a copied list)
        return frozenset({alone.group(1)})
    label = LABEL.match(lines[0])
    letter = label_letter(label) if label else None
    if label is None:
        label = re.match(r"[ \t]*(?P<letter>[A-Z]) (?=[\u3400-\u9fff])", lines[0])
        letter = label.group("letter") if label else None
    if not label or LABEL.match(lines[1]) or _SPACED_LABEL.match(lines[1]) or len(labels_in(lines[0])) > 1:
        return None
    target = ctx.targets.get(letter)
    if letter in ctx.valid and target and compared_text(lines[0][label.end():]).startswith(target):
        rest = text[text.find(lines[0]) + len(lines[0]):]
        if len(labels_in(rest) - {letter}) >= 2 and not (ctx.stem_tail and ctx.stem_tail in plain_text(rest)):
            return None                      # "A:…; 依据… B:…。C:…": every option discussed in turn
        return frozenset({letter})
    return None


def _listed_after(lines: list[str], letter: str, ctx: Context) -> bool:
    """Whether ``lines`` are the option list from ``letter`` on, one option a line, its first item reworded
    ("A\n董事会成员可以由股东会选举…\n<B's text>\n<C's text>\n<D's text>": a label above a copied list)."""
    following = sorted(key for key in ctx.targets if key > letter)
    if len(lines) != len(following) + 1 or not following:
        return False
    return all(compared_text(line).startswith(ctx.targets[key][:8]) for line, key in zip(lines[1:], following))
# An interrogative standing where the answer goes ("…应当报哪个机关批准?"): a blank, when no "（ ）" is.
_ASKED_BLANK = re.compile(r"(?<!下列)(?<!以下)(?:哪一?个|哪一|哪种|何种)(?:机关|部门|法院|机构|单位|主体)?(?=[\u3400-\u9fff]{2,24}[?？]?[ \t]*$)")


_ASKS = re.compile(r"[?？](?=\s|$|[A-Za-z\u3400-\u9fff])|[吗呢](?=[?？。\s]|$)")
_WHY = re.compile(r"[ \t]*(?:为什么|为何|why|Why|原因)")


def _asked_about(text: str, position: int, option_text: str = "") -> bool:
    """Whether a label at ``position`` is asked about rather than chosen: its own line asks
    ("A选项：盗窃罪，符合题意吗？", unless the option itself is a question: "…是否有权…") or the short
    line after it does ("A: 盗窃罪\n正确？"; not "为什么？")."""
    line_end = text.find("\n", position)
    own = text[position:line_end if line_end >= 0 else len(text)]
    if _ASKS.search(own) and not re.search(r"是否|能否|吗|[?？]", option_text):
        return True
    if line_end < 0:
        return False
    following_end = text.find("\n", line_end + 1)
    following = text[line_end + 1:following_end if following_end >= 0 else len(text)]
    return len(following.strip()) <= 8 and bool(_ASKS.search(following)) and not _WHY.match(following)


# --------------------------------------------------------------------------- the rules of one turn


def letter_list(turn: Turn) -> Optional[frozenset[str]]:
    """The whole turn is a letter list; the letters recited in a loop are no answer.

    Example: ``"A、C"`` → AC (``"A,B,C,D,A,B,C,D,A,B"``: no answer).
    """
    whole = LETTER_LIST_RE.fullmatch(turn.answer) or _LOWER_LIST_RE.fullmatch(turn.answer)
    if not (whole and (letters := letters_in(whole.group(0), turn.ctx.valid))):
        return None
    if letters == turn.ctx.valid and len(LOOP_LETTER.findall(whole.group(0).upper())) >= 2 * len(turn.ctx.valid):
        return NoAnswer("letters recited in a loop")
    return letters


def first_line(turn: Turn) -> Optional[frozenset[str]]:
    """The first line is a letter or a label alone, and the lines after it explain or restate that option.

    Example: ``"D\\n\\n解析：侵占罪是指将代为保管的他人财物非法占为己有。"`` → D.
    """
    return _first_line_answer(turn.text, turn.ctx) or None


def _lead_is_no_choice(turn: Turn, lead: re.Match) -> bool:
    """A leading letter list that is something else: a label followed by numbering (``A. 1. 2. …``), a file
    name (``A.png``), an English verdict line (``A is incorrect.``), English prose after a label to a Chinese
    question (``A: The 1980 United Nations Convention…``) or letters judged wrong (``A、B、C、D 都不成立。``)."""
    answer, ctx = turn.answer, turn.ctx
    rest = answer[lead.end():].split("\n", 1)[0]
    if rest.strip() and not re.search(r"[A-Za-z\u3400-\u9fff]", rest) and not _states_own_number(rest, lead, ctx):
        return True
    if re.match(r"[.．][a-z]", rest) or ENGLISH_VERDICT.match(answer):
        return True
    if (_ENGLISH_AFTER_LABEL.match(rest) and not _ENGLISH_ANSWER_WORD.search(rest)
            and any(_CJK.search(value) for value in ctx.texts.values())):
        return True
    tail = VERDICT_TAIL.match(answer, lead.end())
    return bool(tail) and tail.group("neg") is not None


def _states_own_number(rest: str, lead: re.Match, ctx: Context) -> bool:
    """Whether the text after a leading label is that option's own text made of digits and marks
    (``B. 6—10``, ``C. 215346``, ``B. 25%``): the option stated, not numbering after a label."""
    letters = letters_in(lead.group("list"), ctx.valid)
    if not letters or len(letters) != 1:
        return False
    target = ctx.targets.get(next(iter(letters)), "")
    return bool(target) and plain_text(rest) == target


def leading_letter(turn: Turn) -> Optional[frozenset[str]]:
    """Unless the turn restates the option list: a leading letter list followed by a delimiter, not judged
    by a verdict nor asked about.

    Example: ``"B. 诈骗罪"`` → B.
    """
    if turn.option_list:
        return None
    answer, ctx = turn.answer, turn.ctx
    lead = _LEADING.match(answer) or _LOWER_LEADING.match(answer)
    if not lead or _lead_is_no_choice(turn, lead):
        return None
    letters = letters_in(lead.group("list"), ctx.valid)
    if (letters and not letters & set(text_verdicts_of(turn))
            and not _asked_about(answer, lead.end(), "".join(ctx.texts.get(letter, "") for letter in letters))):
        return letters
    return None


def _label_states_its_option(turn: Turn, label: re.Match) -> bool:
    """Whether a label ``D:`` is followed by its option's text, in a sentence of its own (not prose, not
    negated, not the prompt's copy cut off after option A, not judged, not asked about)."""
    text, ctx = turn.text, turn.ctx
    letter = label.group("letter")
    target = ctx.targets.get(letter, "")
    stated = plain_text(text[label.end():label.end() + 3 * len(target) + 20])
    before = text[label.start() - 1:label.start()] if label.start() else "\n"
    prose = bool(re.match(r"[A-Za-z0-9,\s]", before.replace("\n", ""))) and text[label.start()] not in "[(（【"
    negated = bool(NEGATED_CONTENT.search(plain_text(text[max(0, label.start() - 6):label.start()])))
    # "〖指令〗…下列说法正确的是:A:<A's text>" and no more: the prompt's copy, cut off
    cut_copy = (letter == min(ctx.valid) and ctx.stem_tail
                and plain_text(text[:label.start()]).endswith(ctx.stem_tail)
                and len(text) - label.end() <= len(ctx.texts.get(letter, "")) + 4
                and not text.rstrip().endswith(_SENTENCE_ENDS) and "〖" in text)
    return bool((not target or stated.startswith(target[:8])) and not prose and not negated and not cut_copy
                and letter not in text_verdicts_of(turn)
                and not _asked_about(text, label.end(), ctx.texts.get(letter, "")))


def lone_label(turn: Turn) -> Optional[frozenset[str]]:
    """Unless the turn restates the option list: the one letter used as a label, with its option's text.

    Example: ``"本案中甲构成D:侵占罪"`` → D.
    """
    if turn.option_list:
        return None
    inline = [m for m in INLINE_LABEL.finditer(turn.text) if m.group("letter") in turn.ctx.valid]
    if len({m.group("letter") for m in inline}) == 1 and len(turn.labels) == 1 \
            and _label_states_its_option(turn, inline[0]):
        return frozenset({inline[0].group("letter")})
    return None


def repeated_item(turn: Turn) -> Optional[frozenset[str]]:
    """After a whole copy of the option list: the option whose label and whole text make the last line.

    Example: ``"A:盗窃罪;B:诈骗罪;C:抢劫罪;D:侵占罪。\\nD:侵占罪。"`` → D.
    """
    if not turn.option_list:
        return None
    return _repeated_item(turn.text.splitlines(), turn.ctx) or None


def _last_bare_line(turn: Turn, lines: list[str]) -> Optional[tuple[int, frozenset[str]]]:
    """The last line that is only a letter list, with its number; after a copied option list only the
    list's last line may answer."""
    for number in range(len(lines) - 1, -1, -1):
        line = lines[number]
        if turn.option_list and line.strip() and not LETTER_LIST_RE.fullmatch(strip_edges(line)):
            return None                      # after a copied option list only its last line may answer
        if len(line) > 40 or _EMPTY_LABEL.fullmatch(line):
            continue                         # "B:" with its text cut off is a label, not an answer
        bare = LETTER_LIST_RE.fullmatch(strip_edges(line))
        if bare and (letters := letters_in(bare.group(0), turn.ctx.valid)):
            return number, letters
    return None


def last_line(turn: Turn) -> Optional[frozenset[str]]:
    """The last line that is only a letter list (not the next label of a copied list cut off, nor a word
    cut off at the end of a long output).

    Example: ``"分析如下……\\n\\nC"`` → C.
    """
    lines = turn.text.splitlines()
    found = _last_bare_line(turn, lines)
    if found is None:
        return None
    number, letters = found
    if turn.option_list and number == len(lines) - 1:
        if _next_label(lines[:number], turn.ctx.valid) in letters:
            return None                      # "…\nB:…\nC", "A \nB \nC \nD \nA": the next label of a copied list, cut off
        if len(turn.text) >= 1000 and len(letters) == 1:
            return None                      # "…\nC" ending a long output: a word cut off ("C corporation")
    return letters


#: The option-letter rules, in the order they are tried inside one turn: the first that decides (an
#: answer, or :class:`~cpsd_tasks.reading.rule_kit.NoAnswer`) wins. The module docstring's rule list is
#: generated from this tuple (each rule's name and the first paragraph of its docstring).
RULES = (declared, declared_text, letter_list, first_line, verdicts, leading_letter, lone_label, repeated_item,
         last_line, option_text)


@dataclass(frozen=True)
class TurnReading:
    """What one turn gave: ``letters`` (``None`` or empty: no answer), the name of the ``rule`` that
    decided, or the ``reason`` nothing was read."""

    letters: Optional[frozenset[str]]
    rule: Optional[str] = None
    reason: Optional[str] = None


def _echoes_letter_list(text: str, ctx: Context) -> bool:
    """Lines that open with a list of three or more letters ("A,B,C,D", "A、B、C、D （B）"): the same list
    opening two lines, or lists that run past the options ("A,B,C,D,E", "…,F"), are the prompt's letter
    list echoed or the alphabet recited, not an answer."""
    opened: Counter = Counter()
    beyond = 0
    for line in text.splitlines():
        if len(line) > 80 or not ("A" <= line.lstrip(" \t([（【")[:1] <= "Z"):
            continue                         # (only lines that open with a letter: fast)
        line = strip_edges(line)
        if _DOTTED_LETTERS.fullmatch(line):
            opened[line] += 1                # "A.B.C.D." (letters only, each with a dot): the letter list
            continue
        listed = LETTER_LIST_RE.match(line)
        if (listed and len(letters_in(listed.group(0), ctx.valid)) >= 3
                and re.match(r"\s|$|[(（]", line[listed.end():])):     # (not "A,B,C,D四个选项中，只有A…")
            named = re.findall(r"[A-Z]", listed.group(0))
            opened["".join(named[:len(ctx.valid)])] += 1      # ("A、B、C、D （B）": its first letters)
            beyond += bool(set(named) - ctx.valid)
    return any(count >= 2 for count in opened.values()) or beyond >= 2


def _turn_labels(text: str) -> set[str]:
    """The letters used as labels: :func:`labels_in`, and letters opening two or more lines alone
    ("A \\n<text>\\nB \\n<text>") or followed by a space ("A 遗赠…\\nB 遗赠…")."""
    labels = labels_in(text)
    lone = set(_LONE_LETTER.findall(text))
    if len(lone) >= 2:
        labels |= lone
    spaced = set(_SPACED_LABEL.findall(text))
    if len(spaced) >= 2:
        labels |= spaced
    return labels


def _copied_texts(text: str, ctx: Context) -> int:
    """How many options' texts the turn copies (a text inside another present one is not a copy of its
    own: "优先购买权" in "同等条件下的优先购买权")."""
    plain = plain_text(text)
    present = [target for target in set(ctx.targets.values()) if len(target) >= 2 and target in plain]
    return sum(1 for target in present if not any(target != other and target in other for other in present))


def _turn_of(text: str, ctx: Context) -> Turn | NoAnswer:
    """The turn as the rules read it, or why it holds no answer before any rule is tried."""
    if not text.strip():
        return NoAnswer("empty turn")
    if "." in text or ":" in text or "：" in text:
        text = _SELF_MAPPING.sub("", text)   # "A.A B.B C.C D.D": every letter mapped to itself, no choice
        if not text.strip():
            return NoAnswer("letters mapped to themselves")
    if _echoes_letter_list(text, ctx) and not DECLARATION.search(text):   # (searched once: linear)
        return NoAnswer("letter list echoed")
    labels = _turn_labels(text)
    option_list = len(labels) >= 2 or _copied_texts(text, ctx) >= 3      # labels, or the options' texts copied
    return Turn(text=text, ctx=ctx, labels=labels, option_list=option_list, answer=strip_edges(text))


def read_turn(text: str, ctx: Context) -> TurnReading:
    """Read one turn: the first rule of :data:`RULES` that decides gives the letters.

    Args:
        text: one turn, prepared (:func:`prepare`, split by :func:`~cpsd_tasks.reading.turns.turns`).
        ctx: the question.

    Returns:
        A :class:`TurnReading` naming the rule that decided, or the reason nothing was read
        (``"copied option list"`` when the turn restates the options and no rule read an answer).
    """
    turn = _turn_of(text, ctx)
    if isinstance(turn, NoAnswer):
        return TurnReading(None, reason=turn.reason)
    for rule in RULES:
        letters = rule(turn)
        if isinstance(letters, NoAnswer):
            return TurnReading(None, reason=letters.reason)
        if letters is not None:
            return TurnReading(letters, rule=rule.__name__ if letters else None,
                               reason=None if letters else "no answer")
    return TurnReading(None, reason="copied option list" if turn.option_list else "no rule applies")


#: The turn rules of :func:`read_choices`, beside :data:`RULES` (which read inside one turn): the name a
#: reading logs when the answer comes from more than one turn or piece.
TURN_RULES = {
    "later_turns": "bare answers in later turns: a second declaration replaces the first, a bare letter adds "
                   "to it (``[正确答案]B<eoa>[正确答案]D<eoa>`` → D); three or more different letters are a "
                   "template (all of them), every letter of the question a recitation (no answer)",
    "redeclared": "the first line of the last turn declares another single letter "
                  "(``[正确答案]B<eoa>\\n\\n其中错误的是A。`` → A)",
    "joined_pieces": "an end marker inside a sentence: the two pieces read as one (``因此，A选项<eoa>是正确的答案。`` → A)",
}


def _joined(reading: TurnReading) -> TurnReading:
    """A reading of two pieces joined across an end marker, named ``joined_pieces`` when it gives letters."""
    return TurnReading(reading.letters, rule="joined_pieces") if reading.letters else reading


def _read_turn(text: str, ctx: Context) -> Optional[frozenset[str]]:
    """The letters of :func:`read_turn` alone."""
    return read_turn(text, ctx).letters


def _repeated_item(lines: list[str], ctx: Context) -> Optional[frozenset[str]]:
    """The option whose label and whole text make the last line, right after a whole copy of the options
    that does not lead to it ("…侵占罪:A:<A's text>;B:…;D:<D's text>。\nD:<D's text>。" → D; not the
    next item of a copy, "A:…\nB:…", a copy started again, "…D:…\nA:<A's text>", nor a line repeated), else
    ``None``."""
    filled = [line.strip() for line in lines if line.strip()]
    if len(filled) < 2:
        return None
    line, previous = filled[-1], filled[-2]
    label = _ITEM_LABEL.match(line)
    if not label or (letter := label.group("letter")) not in ctx.targets:
        return None
    if compared_text(line[label.end():]) != ctx.targets[letter]:
        return None
    inline = [m.group("letter") for m in INLINE_LABEL.finditer(previous)]
    before = _ITEM_LABEL.match(previous)
    if len(set(inline)) >= 2 and inline[-1] == max(ctx.valid):
        expected = min(ctx.valid)            # the line before holds the whole list
    elif before and before.group("letter") in ctx.valid and before.group("letter") != letter:
        expected = chr(ord(before.group("letter")) + 1)
        expected = min(ctx.valid) if expected > max(ctx.valid) else expected
    else:
        return None
    copied = plain_text("".join(filled[:-1]))
    if expected == letter or not all(target in copied for target in ctx.targets.values()):
        return None
    return frozenset({letter})


# In the line after an answer: a supposition, someone else's or a likely wrong answer, a distractor, another
# question ("如果选A", "有观点认为答案是A", "考生容易错选为A", "干扰项为A", "第2题答案：C", "…下列说法正确的是(B)").
_NOT_RESTATED = re.compile(alternatives(SUPPOSITIONS, VIEWS, DOUBTS, ("容易", "错选", "误选", "干扰", "很多人", "会选"))
                           + r"|第\s*\d+\s*题|下一?题"
                           r"|^\s*\d+\s*[.、)]|下列|以下|哪|[?？]")
# A polarity said in that line ("其中错误的是A", "正确的说法是B").
_DECLARED_POLARITY_IN = re.compile(r"(?P<neg>错误|不正确|不对)(?:的)?(?:说法|表述|选项|答案)?(?:的)?(?:是|为|有)|(?<![不错])正确(?:的)?(?:说法|表述)?(?:的)?(?:是|为|有)")


def _redeclared(turn: str, ctx: Context) -> Optional[frozenset[str]]:
    """The letters declared on the first line after an answer's last end marker ("[正确答案]B<eoa>\n\n其中错误
    的是A。", "…<eoa> 推进…的基本原则是[B]坚持…"), when that line is no question, instruction or option list,
    else ``None``: the answer stated last (rule ``declared``: the last declaration wins; :func:`read_choices` takes one
    letter so, and only from the last turn: a slot in every turn is a template, :func:`combine_slots`)."""
    part = next((line for line in turn.splitlines() if line.strip()), "")
    labels = labels_in(part)
    if not part or QUESTION_MARKER.search(part) or len(labels) >= 2 or _NOT_RESTATED.search(part):
        return None
    said = _DECLARED_POLARITY_IN.search(part)
    if said and (said.group("neg") is not None) != ctx.negated_ask:
        return None                          # "其中错误的是A" after the answer to a "which is right" question
    declared = read_declared(part, ctx, False) or None
    if labels and declared != frozenset(labels):
        return None                          # (one label only as the letter declared with its text, "正确答案是：C:<text>";
        # not "A. 正确答案：B", a mapping)
    return declared


def _posed_question(turn: str, ctx: Context) -> Optional[re.Match]:
    """The first question the model poses after it answered ("正确答案：B … 请问下列哪一项…？"
    followed by options) that is not this question restated, else ``None``."""
    if not ctx.stem:
        return None
    tried = 0
    for match in _NEW_QUESTION.finditer(turn):
        if match.start() == 0:
            continue
        if _ITEM_LABEL.match(match.group(0).lstrip()):
            continue                         # "A:盗窃罪？\nB:诈骗罪？": options asked about in turn
        line = plain_text(match.group(0))
        if match.group(0).rstrip().endswith((":", "：")):
            # "关于聚众犯罪，下列说法错误的是:A:…；B:…": a question posed with its options inline, from the
            # first; not "…错误的是：B:<B's text>" (an answer stated), nor this question restated
            options = _INLINE_OPTIONS.match(turn, match.end())
            if (not options or options.group("first") != min(ctx.valid)
                    or options.group("second") != chr(ord(options.group("first")) + 1)
                    or (line[-6:] in ctx.stem and (line[:10] in ctx.stem or plain_text(
                        turn[match.end():options.end()])[1:].startswith(ctx.targets.get(min(ctx.valid), "\0"))))):
                continue                     # (this question restated, maybe after a prefix: "我重新审题。…")
        if not line or (line[:10] in ctx.stem and line[-6:] in ctx.stem):
            # this question restated (its start and its end): another exchange only after a declared
            # answer ("正确答案：D … 请问：<this question>…正确答案：B": the first answer counts)
            if line and DECLARATION.search(turn, 0, match.start()):
                if _read_turn(turn[:match.start()], ctx):
                    return match
                tried += 1                   # (each try reads the text before it: kept bounded, linear)
                if tried >= _MAX_POSED:
                    break
            continue
        if _read_turn(turn[:match.start()], ctx):
            return match
        tried += 1
        if tried >= _MAX_POSED:
            break
    return None


# An inline option list's first two items ("A:…；B:…"), labels with a colon.
_INLINE_OPTIONS = re.compile(r"[(（\[【]?(?P<first>[A-Z])[)）\]】]?[ \t]*[:：][^\n]{1,300}?[;；。][ \t]*"
                             r"[(（\[【]?(?P<second>[A-Z])[)）\]】]?[ \t]*[:：]")
# Letters each mapped to itself ("A.A B.B C.C D.D", "A:A、B:B、C:C", "(A).A (B).B (C).C"), three pairs or more.
_SELF_MAPPING = re.compile(r"(?<![A-Za-z])(?:[(（\[【]?(?P<pair>[A-Z])[)）\]】]?[ \t]*[.．:：、][ \t]*(?P=pair)(?![A-Za-z])"
                           r"[ \t;；,，、]*){3,}")
_HEADER_NEXT = re.compile(r"[ \t\n:：]*(?:〖|【)")
#: Posed questions examined per turn (each one re-reads the text before it: kept bounded, linear).
_MAX_POSED = 3
_QUESTION_TYPE = re.compile(r"^(?:单项选择题|单选题|多选题|选择题|单选|多选)")   # "（单选题）秦朝把…": a type before the stem
_MAX_LOOKS = 3                               # answers looked for before a question marker, per turn


def _opens_no_exchange(turn: str, marker: re.Match, first: bool, stem: str, listed: str = "") -> bool:
    """Whether a question/instruction marker is *not* where another exchange starts: an echo of the
    instructions as the output's first words (``first``: only markers before it), or a question
    marker that restates this question (``题目：<this stem>``, or ``解决这个问题：A:家罪;B:公罪…``: its
    options, ``listed`` being them written out as :attr:`Context.listed` holds them). A question marker that introduces
    another question ("案件：<a case the model made up>") starts one even as the first words;
    without the stem, first words don't."""
    if "〖" in marker.group(0):
        # an echoed instruction after a copy of this question (and nothing else) is not another
        # exchange when the model's own text follows it, not the question again ("〖指令〗<the stem>
        # A:…D:…〖指令〗本题考查…本题选C")
        return first or _echo_then_own_text(turn, marker, stem, listed)
    if re.search(r"角色|任务|输入|约束|请从", marker.group(0)):
        return first
    if "请问" in marker.group(0):
        return True                          # ("请问：…": another exchange only after an answer, see the caller)
    if _HEADER_NEXT.match(turn, marker.end()):
        return True                          # "【问题】〖指令〗…": a header; the next marker decides
    if listed and len(listed) >= 6 and plain_text(turn[marker.end():marker.end() + 2 * len(listed) + 20]).startswith(listed):
        return True
    if stem:
        return _restates(turn, marker.end(), stem)
    return first


def _echo_then_own_text(turn: str, marker: re.Match, stem: str, listed: str) -> bool:
    """Whether the text since the previous echoed instruction is only a copy of this question (its stem
    and options, ``listed`` as :attr:`Context.listed` holds them) and what follows the echo ``marker``
    is not the question again."""
    if not stem or _restates(turn, marker.end(), stem):
        return False
    since = turn.rfind("〖", 0, marker.start())
    copied = plain_text(turn[since + 1 if since >= 0 else 0:marker.start()]).replace("指令", "", 1)
    copied = copied.replace(stem, "", 1).replace(listed, "", 1)     # (an empty ``listed`` removes nothing)
    return len(copied) <= 4


def _restates(text: str, position: int, stem: str) -> bool:
    """Whether the text after a question marker restates this question (``题目：<the stem>``);
    ``stem`` is the question as :attr:`Context.stem` holds it."""
    after = _QUESTION_TYPE.sub("", plain_text(text[position:position + 60]).lstrip("0123456789"), 1)[:10]
    return len(after) >= 6 and after in stem


def _next_label(lines: list[str], valid: Iterable[str] = "ABCD") -> Optional[str]:
    """The letter after the label of the last non-empty line (``B:…`` → ``C``; after the last option's, the
    first: ``D:…`` → ``A``), else ``None``.

    A line that holds the whole option list (``A:官当;B:…;D:重罪十条。``) is followed by the first
    label of its next copy (``A``)."""
    for line in reversed(lines):
        if line.strip():
            label = LABEL.match(line)
            if label:
                inline = [m.group("letter") for m in INLINE_LABEL.finditer(line)]
                if len(set(inline)) < 2:     # ("A. <text>;B. <text>;…;D. <text>": labelled with dots)
                    inline = [label_letter(m) for m in LABEL.finditer(line)]
                if len(set(inline)) >= 2 and inline[-1] == max(valid):
                    return min(valid)
                letter = label_letter(label)
            elif len(line.strip()) == 1 and line.strip() in valid:
                letter = line.strip()        # ("A \nB \nC \nD \nA": letters alone, in turn)
            else:
                return None
            following = chr(ord(letter) + 1)
            return following if following <= max(valid) else min(valid)    # ("…\nD. …\nA": a copy again)
    return None


def _rejoin_list(pieces: list[str], ctx: Context) -> list[str]:
    """The turns, or one piece when the end markers only separate the items of an option list:
    two or more later turns open with an option's label and its own text (its first 12 characters: the rest
    may be reworded)
    ("[正确答案]A:<option A>;\n[eoa]B:<option B>;\n[eoa]C:<option C>…", or the label alone between
    two markers), or the lines of a numbered answer key ("1. [正确答案]A<eoa>\n2. [正确答案]B<eoa>…",
    at least twice as many as the options: read whole, :func:`read_declared` finds the key)."""
    if len(pieces) < 3:
        return pieces
    items = numbered = 0
    for number, piece in enumerate(pieces[1:], 1):
        label = _ITEM_LABEL.match(piece.lstrip())
        if label and (target := ctx.targets.get(label.group("letter"))):
            items += compared_text(piece.lstrip()[label.end():label.end() + 2 * len(target) + 10]).startswith(target[:12])
        elif (target := ctx.targets.get(piece.strip())) and number + 1 < len(pieces):
            # "…?<eoa>A<eoa>，<A's text>。\n<eoa>B<eoa>，<B's text>…": the label alone between markers
            following = pieces[number + 1]
            items += compared_text(following[:2 * len(target) + 10]).startswith(target[:12])
        numbered += bool(_NUMBERED_DECLARATION.match(piece))
    if numbered >= 2 * len(ctx.valid) and _NUMBERED_DECLARATION.match(pieces[0]):
        return ["\n".join(pieces)]          # "1. [正确答案]A<eoa>\n2. [正确答案]B<eoa>…": an answer key, read whole
    return ["\n".join(pieces)] if items >= 2 else pieces


_ITEM_LABEL = re.compile(r"[(（\[【]?(?P<letter>[A-Z])[)）\]】]?[ \t]?[:：.．、]")
_NUMBERED_DECLARATION = re.compile(r"\s*\d{1,3}[.、)][ \t]*" + one_of(NUMBERED_HEADS))


_BARE_HEAD = re.compile(r"^\W*" + one_of(BARE_HEADS) + r"?\W*")


def _is_bare(text: str) -> bool:
    """A turn that holds nothing but a declaration and a letter list ("[正确答案]B", "D")."""
    stripped = _BARE_HEAD.sub("", text.strip())
    return bool(stripped) and bool(LETTER_LIST_RE.fullmatch(strip_edges(stripped)))


# --------------------------------------------------------------------------- public API


@dataclass(frozen=True)
class ChoiceReading:
    """What was read from one output.

    Attributes:
        letters: the sorted letters read (``"AC"``), or ``None`` when no answer was read.
        turn: index of the turn the answer came from (0 = before the first end marker), or ``None``.
        rule: the name of the rule that decided (one of :data:`RULES`, or a turn rule of
            :data:`TURN_RULES`: ``later_turns``, ``redeclared``, ``joined_pieces``), or ``None``.
        reason: why nothing was read (``"copied option list"``, ``"letter list echoed"``, ``"empty
            output"`` …), or ``None`` when an answer was read. ``rule`` and ``reason`` are not compared
            (two readings are equal when their letters and turn are).
    """

    letters: Optional[str]
    turn: Optional[int]
    rule: Optional[str] = field(default=None, compare=False)
    reason: Optional[str] = field(default=None, compare=False)


def _context(options: Mapping[str, str] | Iterable[str], question: Optional[str]) -> Optional[Context]:
    """The question as the rules compare it, or ``None`` when it has no options."""
    texts = dict(options) if isinstance(options, Mapping) else {key: "" for key in options}
    valid = frozenset(texts)
    if not valid:
        return None
    negative = bool(question) and bool(_NEGATIVE_QUESTION.search(asking_clause(question)))
    targets = {key: option_target(value) for key, value in texts.items() if value}
    folded = fold_traditional(LONE_SURROGATE.sub("\ufffd", question or ""))
    blank = BLANK.search(folded)
    asked_blank = None if blank else _ASKED_BLANK.search(folded)
    gap = blank or asked_blank
    return Context(valid=valid, texts=texts, negative_question=negative,
                   targets={key: value for key, value in targets.items() if value},
                   stem=plain_text(folded),
                   blank=(plain_text(folded[:gap.start()])[-6:], plain_text(folded[gap.end():])[:6]) if gap else ("", ""),
                   blank_alone=asked_blank is not None,
                   negated_ask=negated_ask(folded))


@dataclass
class _Exchange:
    """What the turns of one output have given so far (:func:`read_choices`)."""

    answer: Optional[frozenset[str]] = None
    first: Optional[int] = None              # the turn the answer came from
    slots: list[frozenset[str]] = field(default_factory=list)   # the answer, then each bare turn after it
    declared: list[bool] = field(default_factory=list)          # whether each of those turns declares
    decided: TurnReading = TurnReading(None, reason="no rule applies")   # the reading that gave the answer
    taken_back: bool = False                 # a later turn took the answer back


_ENDS_DECLARED = re.compile(r"[A-Z][ \t]*[\]】)）]?[ \t。.．]*$")


def _restated_after(state: _Exchange, answered: str, rest: str, ctx: Context) -> bool:
    """Whether the turns right after one declared letter (``rest``, joined) open with another option's text
    (``[正确答案]D<eoa>\\n<E's text>``: :func:`~cpsd_tasks.reading.declarations.restated_as`; a later turn may
    settle it, ``…<eoa>\\n因此，答案为D``)."""
    return (state.decided.rule == "declared" and len(state.answer) == 1 and bool(_ENDS_DECLARED.search(answered))
            and restated_as(rest, 0, state.answer, ctx) is not None)


def _read_later(state: _Exchange, pieces: list[str], index: int, ctx: Context) -> bool:
    """A turn after the answer: a bare answer adds a slot; any other turn ends the reading (``True``),
    its first line replacing the answer when it declares another single letter (turn rule ``redeclared``)."""
    turn = pieces[index]
    if not _is_bare(turn):
        if (all(not piece.strip() for piece in pieces[state.first + 1:index])
                and _restated_after(state, pieces[state.first], "\n".join(pieces[index:]), ctx)):
            state.answer, state.first, state.taken_back = frozenset(), None, True
            state.decided = TurnReading(None, reason=RESTATED)
        elif (index == len(pieces) - 1 and len(state.slots) == 1 and (later := _redeclared(turn, ctx))
                and len(later) == 1 and later != state.answer):
            state.answer, state.first = later, index     # "[正确答案]B<eoa>\n\n其中错误的是A。": the last declaration
            state.decided = TurnReading(later, rule="redeclared")
        return True
    more = _read_turn(turn, ctx)
    if more:
        says = bool(DECLARATION.search(turn))
        if not (len(more) >= 3 and not says):   # (not "[正确答案]D<eoa>A,B,C,D<eoa>": the prompt's letters echoed)
            state.slots.append(more)
            state.declared.append(says)
    return False


def _exchange_end(turn: str, ctx: Context, started: bool) -> Optional[re.Match]:
    """Where another exchange starts in a turn before any answer: a new question or an echo of the
    instructions, anywhere but as the output's first words, or a question posed with its own options;
    ``None`` when the turn holds none."""
    marker = QUESTION_MARKER.search(turn)
    first, position, looks, copied = not started, 0, 0, False
    while marker is not None:
        # first words: nothing but markers since the turn began (checked gap by gap: linear)
        first = first and not turn[position:marker.start()].strip(_EDGES)
        if not _opens_no_exchange(turn, marker, first, ctx.stem, ctx.listed):
            break
        if not first and not copied and looks < _MAX_LOOKS:
            # "正确答案：D … 请问：<this question again> … 正确答案：B": this question re-posed, or a
            # "请问：…" of the model's own, after an answer starts another exchange (looked at
            # a few times: linear); not when the model posed a question of its own before
            # ("…下列哪一项是正确的？…答案：A"): that answer is to its own question
            looks += 1
            if not _ASKS.search(turn, 0, marker.start()) and _read_turn(turn[:marker.start()], ctx):
                break
        # (once this question was restated before any answer, an answer follows each copy: rule
        # declared's "another answer on each copy" reads them all)
        copied = copied or (not first and "请问" not in marker.group(0))
        position = marker.end()
        marker = QUESTION_MARKER.search(turn, marker.end())
    posed = None if copied else _posed_question(turn, ctx)
    if posed is not None and (marker is None or posed.start() < marker.start()):
        marker = posed
    return marker


def _read_before_end(state: _Exchange, pieces: list[str], index: int, before: str, ctx: Context) -> None:
    """The answer of the part of a turn before another exchange starts (joined with the first piece when
    the marker sits inside the answer's sentence: "正确答案：<eoa>A<eop>…请阅读以下文本并回答问题…")."""
    state.decided = read_turn(before, ctx)
    state.answer = state.decided.letters
    state.first = index if state.answer else None
    if not state.answer and index == 1 and not pieces[0].rstrip().endswith(_SENTENCE_ENDS):
        state.decided = _joined(read_turn(pieces[0] + before, ctx))
        state.answer = state.decided.letters
        state.first = 0 if state.answer else None


#: Reasons a later turn's own reason replaces (nothing specific was found in the turns before it).
_GENERIC_REASONS = ("no rule applies", "empty turn")


def _read_turns(pieces: list[str], ctx: Context) -> _Exchange:
    """Read the turns in order (module docstring, step 2)."""
    state = _Exchange()
    started = False                          # some content was seen before this turn
    stopped = False                          # another exchange started: read no further
    for index, turn in enumerate(pieces):
        if state.answer is not None:
            if _read_later(state, pieces, index, ctx):
                break
            continue
        marker = _exchange_end(turn, ctx, started)
        if marker is not None:
            _read_before_end(state, pieces, index, turn[:marker.start()], ctx)
            stopped = True
            break
        # "…?<eoa>:<option A's text>;<eoa>:<option B's text>…": an end marker where a label was
        reading = (TurnReading(None, reason="turn opens with a colon")
                   if index and turn.lstrip(" \t")[:1] in (":", "：") else read_turn(turn, ctx))
        if reading.letters or state.decided.reason in _GENERIC_REASONS:
            state.decided = reading          # (a later turn without an answer keeps the first turn's own reason)
        if state.decided.letters:
            state.answer, state.first = state.decided.letters, index
            state.slots.append(state.decided.letters)
            state.declared.append(True)
        started = started or bool(turn.strip())
    if len(state.slots) >= 2:
        state.answer = combine_slots(state.slots, all(state.declared), frozenset(ctx.valid)) or None
        state.decided = (TurnReading(state.answer, rule="later_turns") if state.answer
                         else TurnReading(None, reason="answer slot recited letter by letter"))
        stopped = stopped or state.answer is None
    if not state.answer and not stopped and not state.taken_back and len(pieces) > 1 and not pieces[0].rstrip().endswith(_SENTENCE_ENDS):
        # "因此，A选项<eoa>是正确的答案。": an end marker inside a sentence; read the two pieces as one
        state.decided = _joined(read_turn(pieces[0] + pieces[1], ctx))
        state.answer = state.decided.letters
        state.first = 0 if state.answer else None
    return state


def read_choices(output: Optional[str], options: Mapping[str, str] | Iterable[str],
                 question: Optional[str] = None, multi: bool = False) -> ChoiceReading:
    """Read the option letters an output answers with (module docstring rules; docs/metrics.md#police-exam).

    Args:
        output: raw model output (``None`` = missing answer).
        options: the question's options, ``{letter: text}`` or just the letters.
        question: the question stem, if known: a stem asking for the wrong statement
            (``…错误的是``) makes a verdict of "wrong" next to a letter the answer.
        multi: the question may have several correct options (police_exam 多选): several option lines
            are read as the options chosen (:mod:`cpsd_tasks.reading.option_lines`).

    Returns:
        A :class:`ChoiceReading` (with the rule that decided, or the reason nothing was read); never
        raises on model output.
    """
    ctx = _context(options, question)
    if ctx is None:
        return ChoiceReading(None, None, reason="no options")
    for rule in OUTPUT_RULES:
        decided = rule(output, ctx, multi)
        if decided is not None:
            return _decided_by(rule, decided, output)
    text = prepare(output)
    if not text.strip():
        return ChoiceReading(None, None, reason="empty output")
    state = _read_turns(_rejoin_list(turns(text), ctx), ctx)
    answer = state.answer & ctx.valid if state.answer else state.answer   # (every rule keeps to the options)
    if not answer:
        return ChoiceReading(None, None, reason=state.decided.reason or "letters outside the options")
    return ChoiceReading("".join(sorted(answer)), state.first, rule=state.decided.rule)


def _decided_by(rule, decided: frozenset[str], output: Optional[str]) -> ChoiceReading:
    """The reading an output rule decided: its letters, turn and name, or why nothing was read."""
    if decided:
        return ChoiceReading("".join(sorted(decided)), answer_turn(output), rule=rule.__name__)
    return ChoiceReading(None, None, reason=getattr(decided, "reason", None) or rule.__name__)


def context(options: Mapping[str, str] | Iterable[str], question: Optional[str]) -> Optional[Context]:
    """The question as the rules compare it (:class:`~cpsd_tasks.reading.question.Context`), or ``None``
    when it has no options."""
    return _context(options, question)


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


def extract_choices(output: Optional[str], options: Mapping[str, str] | Iterable[str],
                    question: Optional[str] = None, multi: bool = False) -> Optional[frozenset[str]]:
    """The set of option letters an output answers with, or ``None`` (see :func:`read_choices`).

    Args:
        output: raw model output (``None`` = missing answer).
        options: the question's options, ``{letter: text}`` or just the letters.
        question: the question stem, if known.
        multi: the question may have several correct options (多选).

    Returns:
        A non-empty frozenset of letters, or ``None``.
    """
    letters = read_choices(output, options, question, multi).letters
    return frozenset(letters) if letters else None


def lawbench_rule(output: Optional[str], valid: Iterable[str] = "ABCD") -> Optional[str]:
    """LawBench's reading of a single-choice output, for comparison: every capital option letter
    that occurs anywhere in the raw output (LawBench scores an item correct when the gold letter
    is the only one present).

    Args:
        output: raw model output.
        valid: the option letters.

    Returns:
        The sorted distinct letters present (``"B"``, ``"ABCD"``), or ``None`` when none occurs.
    """
    present = sorted(set(output or "") & set(valid))
    return "".join(present) or None


def _rule_summary(rule) -> str:
    """The first paragraph of a rule's docstring, on one line."""
    return " ".join((rule.__doc__ or "").strip().split("\n\n")[0].split())


#: The module docstring's rule list, one line per rule of :data:`RULES`, in order.
RULE_LIST = "\n".join(f"   {number}. ``{rule.__name__}`` — {_rule_summary(rule)}"
                       for number, rule in enumerate(RULES, 1))
__doc__ = (__doc__ or "").replace("{RULES}", RULE_LIST)
