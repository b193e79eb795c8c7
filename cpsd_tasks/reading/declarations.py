"""Rule ``declared`` (and ``declared_text``) of the option-letter reader: explicit declarations
(``答案：B``, ``正确答案是A、C``, ``故选B``, ``The answer is b``, ``正确答案是：C:<text>``).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Optional

from rapidfuzz import fuzz

from cpsd_tasks.reading.letter_patterns import (
    DECLARATION,
    INLINE_LABEL,
    LABEL,
    LETTER_LIST,
    LOOP_LETTER,
    combine_slots,
    label_letter,
    labels_in,
    letters_in,
)
from cpsd_tasks.reading.question import Context, carried_option, compared_text, plain_text
from cpsd_tasks.reading.rule_kit import NoAnswer, Turn
from cpsd_tasks.reading.turns import QUESTION_MARKER
from cpsd_tasks.reading.lexicon import DOUBTS, SUPPOSITIONS, TEXT_HEADS, UNDECIDED_HEADS
from cpsd_tasks.reading.patterns import alternatives, one_of

# A weaker head: the letter must be used as a label ("…错误的是D:开庭…", "属于D:犯意表示") or end the
# clause ("正确的是D。", "错误的是C").
_LABEL_DECLARATION = re.compile(
    rf"(?=[的属为是])(?:的是|的为|的有|属于|为|是)(?:[ \t]*(?P<list>{LETTER_LIST})"
    r"(?:(?=\s*[:：]|\s*$|\s*[。，,；;!！\n])|(?<=[\]】)）]))"
    # "…错误的是:C:…" and "正确的是：D。" declare; "…正确的是:A:…" may open a copied option list
    rf"|[ \t]*[:：][ \t]*(?P<colon_list>{LETTER_LIST})(?=\s*[:：]|\s*$|\s*[。，,；;!！\n]))"
)
# After a declared list: a self-retraction or a question ("答案：A（不对）", "选B吗？"), a hedge ("B or C"), or the list is where
# the answer is to be found ("答案为A、B、C、D中的一个") — no answer.
# (Not 错误/有误: "答案：B（错误）" answers a "下列说法错误的是" question.)
_RETRACTED_RE = re.compile(r" ?[(（]? ?(?:(?:都|均|全|也)?(?:不对|错了)|(?:都|均|全)错)| ?(?:吗|呢|\?|？)"
                           r"| ?(?:是错的|是错误的|还是|或者|或|中没有|中无|中的一个|中的一项|之一|中选)"
                           r"| ?(?:[两三四五六七八九十几]个(?:选项)?中|中的?(?:任|一|[A-Z])|/)"
                           r"|[ \t]+or[ \t]+(?:(?i:option|choice)[ \t]+)?\(?[A-Z]\b")   # "option B or option C": a hedge
# Right before a declaration: a negation ("不选C", "不应选A", "排除B", "答案不是B"), an example
# ("例如[正确答案]A"), or a list of wrong answers ("错误答案：A,B,C") — the declaration is skipped.
_SKIP_BEFORE = re.compile(r"(?:不|非|不是|并非|像|排除|错选|误选|(?<!错)误|别|不能|不会|不应|不要|不可|例如|比如|譬如|例|如|e\.g\.|for example"
                          r"|如果|假如|假设|若|人会|生会|者会|容易错?|错"
                          r"|(?:其他|其余|各|每个)选项的|format|格式(?:为|是|如下)?[:：]?) ?$",
                          re.IGNORECASE)
# Before an English declaration, in its sentence: a supposition, a doubt, a denial or someone else's view
# ("If the correct answer is B", "I doubt the answer is B", "It is not true that…", "Many think…").
_ENGLISH_HEDGE = re.compile(r"(?i)(?<!I )\b(?:should|shall|can|could|do|may|might|would)\s+$"     # "Should I choose A…?"
                            r"|\b(?:if|whether|unless|suppose|supposing|assume|assuming|doubt|not true|not that"
                            r"|(?:many|some|others|people|students)\s+(?:\w+\s+)?(?:think|believe|say|claim))\b")
# Where the clause of a declaration starts, at most 80 characters before it (the last punctuation, or there).
_CLAUSE_START = re.compile(r"(?:[\s\S]*[.,;:!?\n，。；：！？])?")
# After an English declared letter: a condition ("… is option D only if the contract is void").
_ENGLISH_CONDITION = re.compile(r"(?i)[ \t]*(?:only (?:if|when)|,[ \t]*(?:only )?(?:if|unless))\b")
# Before a weak declaration ("是A", "为B"): a hedge or a question, not an answer ("可能是A", "是否为B").
_HEDGE_BEFORE = re.compile(one_of(("还",), DOUBTS, ("是否", "是不是"), SUPPOSITIONS, without=("假设",)) + "$")
_WRONG_LIST = re.compile(r"(?:错误|不正确|错的) ?$")
_NOT_AFTER = re.compile(r" ?(?:不是|并非|不应|不该|不能是)")


# An option's own line calling it wrong after declaring it ("B: 正确答案是B。…因此B是错误的答案。").
_CALLED_WRONG = re.compile(r"是错误的|错误的答案|错误答案|不正确的答案|是不正确的")
# A declaration in an option's line that is only supposed ("A: 如果正确答案是A，…", "A: 正确答案是A的可能性不大").
_HEDGED_SLOT = re.compile(alternatives(SUPPOSITIONS, DOUBTS, ("是否",), without=("也许", "或许")))
_HEDGED_AFTER = re.compile(r"[ \t]*(?:的可能性|吗|呢|\?|？|还是|或)")
# The polarity a weak declaration's head states ("错误的说法是", "正确的是").
_DECLARED_POLARITY = re.compile(r"(?:(?P<neg>错误|不正确|不对|错)(?:的)?(?:说法|表述|选项|答案)?|(?<![不错])(?:正确|对)(?:的)?(?:说法|表述)?)"
                                r"(?:的)?(?:是|为|有)?[ \t]*(?:[:：][ \t]*)?$")   # (正确答案, 正确选项: the answer, no polarity)
# An option labelled wrong with its text ("错误说法: B: <option B>"), as a list of labelled options
# does; "错误说法是D" (an answer to "…哪一说法是错误的") is not one.
_WRONG_LABEL = re.compile(r"(?:错误说法|错误答案|错误选项)[ \t]*[:：][ \t]*(?P<letter>[A-Z])[ \t]*[:：]")
_RIGHT_LABEL = re.compile(r"(?:正确答案|正确说法|正确选项)[ \t]*[:：][ \t]*(?P<letter>[A-Z])[ \t]*[:：]")





@dataclass
class _Site:
    """One declaration being examined: its match, whether its head is strong (``答案：``, ``故选``; a weak
    head is ``是``/``为`` + a label), the letters it names and where its line starts."""

    text: str
    ctx: Context
    option_list: bool
    match: re.Match
    strong: bool
    fragment: str = ""
    letters: frozenset[str] = frozenset()
    line_start: int = 0

    @property
    def start(self) -> int:
        return self.match.start()

    @property
    def end(self) -> int:
        return self.match.end()

    @property
    def head_end(self) -> int:
        """Where the declared letters start (the end of the head)."""
        return self.match.start(self.fragment)

    @property
    def said(self) -> Optional[re.Match]:
        """The polarity the head states ("错误的说法是", "正确的是"), or ``None``."""
        return _DECLARED_POLARITY.search(self.text, max(0, self.head_end - 12), self.head_end)


@dataclass
class _Declarations:
    """What the declarations of one turn add up to, as :func:`read_declared` examines them in order."""

    text: str
    found: list[frozenset[str]] = field(default_factory=list)
    after_copy: list[bool] = field(default_factory=list)      # the options were copied again since the last one
    polarity: list[Optional[bool]] = field(default_factory=list)   # "正确的说法是：B" True, "错误的说法是：A" False
    in_label_lines: list[tuple[str, frozenset[str]]] = field(default_factory=list)
    called_wrong: list[bool] = field(default_factory=list)    # the rest of such a line calls the option wrong
    previous: int = 0
    numbered: int = 0                        # declarations on numbered lines ("17. 答案：A")
    looped: bool = False
    final: bool = False                      # the last declaration is a final answer

    def __post_init__(self) -> None:
        self.newlines = [m.start() for m in _NEWLINE.finditer(self.text)]     # line starts by bisection (linear)
        self.opens = [m.start() for m in re.finditer("“", self.text)]          # quotation marks, by bisection
        self.closes = [m.start() for m in re.finditer("”", self.text)]

    def line_start(self, position: int) -> int:
        """Where the line holding ``position`` starts."""
        newlines = self.newlines
        return newlines[bisect.bisect_left(newlines, position) - 1] + 1 if newlines and newlines[0] < position else 0


# --------------------------------------------------------------------------- rule declared: the guards
# Each guard says why one declaration is skipped; they are tried in this order.


def _negated_or_example(site: _Site) -> bool:
    """After a negation or in an example: ``不选C``, ``答案不是B``, ``例如[正确答案]A``."""
    return bool(_SKIP_BEFORE.search(site.text, max(0, site.start - 12), site.start))


def _lists_wrong_answers(site: _Site) -> bool:
    """A list of the wrong answers: ``错误答案：A,B,C``."""
    return site.strong and bool(_WRONG_LIST.search(site.text, max(0, site.start - 4), site.start))


def _retracted(site: _Site) -> bool:
    """Retracted or asked right after: ``答案：A（不对）``, ``选B吗？``, ``答案为A、B、C、D中的一个``."""
    return bool(_RETRACTED_RE.match(site.text, site.end))


def _rewritten_options(site: _Site) -> bool:
    """The model's own options, rewritten: ``答案：A.A,B,C`` after ``A.A,B,C\\nB.A,B,D…``."""
    return bool(_COMBINATION.match(site.text, site.end))


def _answer_format(site: _Site) -> bool:
    """The answer format, no choice: ``答案：A/B/C/D``."""
    return site.letters == site.ctx.valid and "/" in site.match.group(site.fragment)


def _every_letter_looped(site: _Site) -> bool:
    """One answer slot followed by every letter in a loop: ``【答案】：【B】【D】【C】【A】【D】【B】…``."""
    return (site.letters == site.ctx.valid
            and len(LOOP_LETTER.findall(site.match.group(site.fragment))) >= 2 * len(site.ctx.valid))


def _copied_from_first(site: _Site) -> bool:
    """The options copied from the first one: ``…下列说法正确的是:A:…`` (not ``错误的说法是：A:…`` stated by
    the model itself)."""
    text, start, end, ctx = site.text, site.start, site.end, site.ctx
    if site.fragment != "colon_list" or site.letters != {min(ctx.valid)} or not re.match(r"\s*[:：]", text[end:end + 3]):
        return False
    said = site.said
    return not (said and not re.search(r"下列|以下|哪", text[max(0, start - 16):start])
                and plain_text(text[max(0, start - 8):start]) not in ctx.stem)


def _question_restated(site: _Site) -> bool:
    """The question restated with its options copied: ``…哪些事项应予继承，说法正确的有A:…``."""
    text, start, end, ctx = site.text, site.start, site.end, site.ctx
    return (not site.strong and bool(ctx.stem_tail) and site.letters == {min(ctx.valid)}
            and bool(re.match(r"\s*[:：]", text[end:end + 3]))
            and plain_text(text[max(0, start - 24):end - 1]).endswith(ctx.stem_tail))


def _denied_after(site: _Site) -> bool:
    """A weak declaration denied right after, outside a copied list: ``是A不是B``."""
    return not site.strong and not site.option_list and bool(_NOT_AFTER.match(site.text, site.end))


def _hedged(site: _Site) -> bool:
    """A weak declaration after a hedge: ``可能是A也可能是B``, ``是否为B``."""
    return not site.strong and bool(_HEDGE_BEFORE.search(site.text, max(0, site.start - 4), site.start))


def _english_supposed(site: _Site) -> bool:
    """An English declaration supposed, doubted, denied, someone else's view or under a condition:
    ``If the correct answer is option D, …``, ``… is D only if …``."""
    text, start = site.text, site.start
    if not (site.strong and text[start:start + 1].isascii()):
        return False
    clause = _CLAUSE_START.search(text, max(0, start - 80), start).end()
    return bool(_ENGLISH_HEDGE.search(text, clause, start) or _ENGLISH_CONDITION.match(text, site.end))


#: Guards tried before the declared letters are known to be options (on the match alone).
_GUARDS_ON_MATCH = (_negated_or_example, _lists_wrong_answers, _retracted)
#: Guards tried on the declared letters (:func:`_every_letter_looped` also marks the turn as looped).
_GUARDS_ON_LETTERS = (_rewritten_options, _answer_format)
#: Guards tried on a declaration outside an option's line, before it is kept.
_GUARDS_LAST = (_denied_after, _hedged, _english_supposed)


def _in_supposed_quotation(site: _Site, state: _Declarations) -> bool:
    """Inside a supposed quotation on its line: ``如回答错误，请回答“…正确答案为：A”``."""
    start, opens, closes = site.start, state.opens, state.closes
    last_open = bisect.bisect_left(opens, start) - 1
    return (last_open >= 0 and opens[last_open] >= site.line_start
            and bisect.bisect_left(closes, start) == bisect.bisect_left(closes, opens[last_open])
            and bool(_HYPOTHETICAL.search(site.text, max(site.line_start, opens[last_open] - 12), opens[last_open])))


# --------------------------------------------------------------------------- rule declared: the steps


def _fragment_group(match: re.Match) -> str:
    """The name of the group holding a declaration's letters (``list``, ``lower`` or ``colon_list``)."""
    return next(name for name in ("list", "lower", "colon_list")
                if name in match.re.groupindex and match.group(name) is not None)


def _site_of(text: str, ctx: Context, option_list: bool, match: re.Match, strong: bool,
             state: _Declarations) -> Optional[_Site]:
    """The declaration as a :class:`_Site` with its letters, or ``None`` when a guard skips it (an
    every-letter loop marks ``state.looped``; a declared letter opening a copied list keeps only the
    part declared)."""
    site = _Site(text, ctx, option_list, match, strong)
    if any(guard(site) for guard in _GUARDS_ON_MATCH):
        return None
    site.fragment = _fragment_group(match)
    site.letters = letters_in(match.group(site.fragment), ctx.valid)
    if not site.letters or any(guard(site) for guard in _GUARDS_ON_LETTERS):
        return None
    if _every_letter_looped(site):
        state.looped = True
        return None
    if _copied_from_first(site):
        return None
    if option_list and _opens_list(text, site.end) and not _ends_with_own_text(text, site.end, site.letters, ctx):
        part = _declared_part(text, site.end, site.letters, ctx) if strong else None
        if part is None:
            return None                      # "[正确答案]A:三个月;B:五个月…": a copied option list
        site.letters = part
    if _question_restated(site):
        return None
    site.line_start = state.line_start(site.start)
    return site


def _note_label_line(site: _Site, label: re.Match, state: _Declarations) -> None:
    """A declaration inside an option's line (``A. 正确答案：B``; ``A: 正确的是A。``, its own letter called
    right), kept aside; a tag ending an option's line (``A.裁定再审 【正确答案】\\nB.…``) marks that option."""
    text, start, end = site.text, site.start, site.end
    own_letter = re.search(r"[A-Z]", text[site.line_start:label.end()])
    tag_end = text.find("\n", start, site.head_end)
    if (site.strong and own_letter and own_letter.group(0) in site.ctx.valid and tag_end >= 0
            and _tags_its_line(text, label.end(), start, site.head_end)):
        site.letters = frozenset(own_letter.group(0))
    if not (site.strong or (own_letter and site.letters == {own_letter.group(0)} and text.endswith("正确", 0, start))):
        return
    state.in_label_lines.append((text[site.line_start:label.end()].strip(), site.letters))
    line_end = tag_end if tag_end >= 0 else text.find("\n", end)
    state.called_wrong.append(bool(_CALLED_WRONG.search(text, min(end, line_end) if line_end >= 0 else end,
                                                        line_end if line_end >= 0 else len(text)))
                              or bool(_HEDGED_SLOT.search(text, max(label.end(), start - 6), start))
                              or bool(_HEDGED_AFTER.match(text, end)))


def _keep(site: _Site, state: _Declarations) -> None:
    """Record a declaration that passed every guard."""
    text, start = site.text, site.start
    said = site.said
    state.found.append(site.letters)
    state.final = bool(_FINAL.search(text, max(0, start - 6), start + 6))   # "最终答案是B", "Final answer: D"
    state.after_copy.append(len(labels_in(text[state.previous:start])) >= 2)
    state.polarity.append(None if said is None else said.group("neg") is None)
    state.numbered += bool(_NUMBERED_LINE.match(text, site.line_start, start))
    state.previous = site.end


# What may stand between a declared letter and the text that restates it: punctuation, a line break, a
# short lead ("解释：", "即", "争议观点：").
_RESTATED_LEAD = re.compile(r"[ \t]*[:：.．、。,，;；)）\]】>]*[ \t]*(?:\n[ \t]*){0,2}"
                            r"(?:(?:解释|解析|理由|分析|争议观点|即)[ \t]*[:：，,]?\s*)?")
_CONTRAST = re.compile(r"[，,][ \t]*(?:但是?|然而|而是|不过)|(?i:\bbut\b|\bhowever\b)")
_REJECTED = re.compile(r"错误|不正确|不成立|不对|有误|排除|不选")
REJECTED_TAIL = 12                           # (characters at the end of the line where a rejection is looked for)
_SENTENCE_END = ("。", ".", "！", "!", "？", "?", "；", ";")
_REASON_FIRST = re.compile(r"(?:因为|由于|(?i:because|since)\b)")
_RESTATED_STOP = re.compile(r"\n|[。；;](?!$)")
#: A piece shorter than this (characters, compared form) restates an option only when it is its whole text.
SHORT_PIECE = 6
#: A piece at least this long (characters, compared form) that is the start of one other option's text restates it.
CUT_PIECE = 10
#: How far after a restated text the reply is looked at for what settles it (characters).
SETTLE_WINDOW = 2000


#: Why a declared letter is no answer when another option's text restates it.
RESTATED = "declared letter restated with another option's text"


def restated_as(text: str, end: int, letters: frozenset[str], ctx: Context, settle: bool = True) -> Optional[str]:
    """The other option whose text follows one declared letter at ``end`` (``正确答案：B\\n<A's text>``,
    ``[正确答案]B: <D's text>``, ``…is point B: <the start of D's text>``), or ``None``: the rest of its line or the
    next line, whole or up to its first sentence end, compared with every option's text (:func:`_restating`); a
    labelled line (``A. …``) is left to the
    letter rules, and the rest of the reply settles it when it states the letter's own text too (the options
    recapped: ``【答案】B【解析】<A's text>;<B's text>;…``) or declares the letter again (``…因此，答案为B``)."""
    if len(letters) != 1:
        return None
    letter = next(iter(letters))
    start = _RESTATED_LEAD.match(text, end).end()
    line_end = text.find("\n", start)
    line = text[start:line_end if line_end >= 0 else len(text)][:600]
    own_label = re.match(r"[(（\[【]?" + letter + r"[)）\]】]?[ \t]*[:：.．、]", line)
    if own_label:
        line = line[own_label.end():]
    elif _LINE_LABEL.match(line) or _REASON_FIRST.match(line):
        return None                          # (an option's line: the letter rules; a reason: "因为<E's text>，…")
    first = _RESTATED_STOP.search(line)
    ended = line_end >= 0 or line.rstrip().endswith(_SENTENCE_END)   # (not cut off by the length limit)
    other, said = _restating(compared_text(line), letter, ctx, ended), len(line)
    if other is None and first:
        other, said = _restating(compared_text(line[:first.start()]), letter, ctx, True), first.end()
    piece_start = start + (own_label.end() if own_label else 0)
    if other is not None and any(pattern.search(part) and not pattern.search(ctx.texts.get(other, ""))
                                 for pattern, part in ((_CONTRAST, line), (_REJECTED, line[-REJECTED_TAIL:]))):
        return None                          # another option's text set against the answer, or rejected at
                                             # its end: "<B's text>，但…", "选项A：<A's text>，错误。"
    if other is None or settle and _settled_after(text, piece_start, piece_start + said, letter, ctx):
        return None
    return other


def _settled_after(text: str, start: int, after: int, letter: str, ctx: Context) -> bool:
    """Whether the :data:`SETTLE_WINDOW` characters from ``start`` (the restating piece) state ``letter``'s own
    text (the options recapped; an option's text that holds the other's), or those after the piece (from
    ``after``) declare the letter again."""
    stop = min(len(text), start + SETTLE_WINDOW)
    own = ctx.targets.get(letter, "")
    if len(own) >= 4 and stop - start >= len(own) and fuzz.partial_ratio(own, compared_text(text[start:stop])) >= 90:
        return True
    for match in DECLARATION.finditer(text, after, stop):
        site = _Site(text, ctx, False, match, True)
        if any(guard(site) for guard in _GUARDS_ON_MATCH) or _english_supposed(site):
            continue                         # "所以不选B", "例如答案为B", "错选B的考生很多"
        if (letters_in(match.group(_fragment_group(match)), ctx.valid) == {letter}
                and restated_as(text, match.end(), frozenset(letter), ctx, settle=False) is None):
            return True                      # (declared again, and not restated again: a loop settles nothing)
    return False


def _restating(piece: str, letter: str, ctx: Context, ended: bool = True) -> Optional[str]:
    """The option other than ``letter`` whose text ``piece`` is (:func:`~cpsd_tasks.reading.question.carried_option`; a
    piece under :data:`SHORT_PIECE` only as that whole text) or, ``ended`` (not cut off by the length limit), whose
    text it starts (:data:`CUT_PIECE` characters or more), or ``None``; the start of ``letter``'s own text (cut
    short, or its first sentence) restates nothing, nor another option's claim reversed (a negation changed)."""
    own = ctx.targets.get(letter, "")
    if len(piece) < 2 or own and fuzz.ratio(piece, own[:len(piece)]) >= 90:
        return None
    if len(piece) < SHORT_PIECE:                 # "答案：A\n抢夺罪" (B's text): only an exact text counts
        exact = sorted(key for key, target in ctx.targets.items() if target == piece and key != letter)
        return exact[0] if exact else None
    started = sorted(key for key, target in ctx.targets.items() if key != letter and ended and len(piece) >= CUT_PIECE
                     and len(target) > len(piece) and fuzz.ratio(piece, target[:len(piece)]) >= 90
                     and _same_negations(piece, target[:len(piece)]))
    if len(started) == 1:
        return started[0]                    # another option's text cut short ("is point B: <the start of D's text>")
    best = carried_option({key: fuzz.ratio(piece, target) for key, target in ctx.targets.items() if target}, letter)
    if best is not None and _same_negations(piece, ctx.targets[best]):
        return best                          # (not the other's claim reversed: "有权…" for "无权…")
    return None


def _same_negations(text: str, target: str) -> bool:
    """Whether ``text`` has as many negation characters as ``target`` (no negation put in or taken out)."""
    return len(_NEGATION_CHARS.findall(text)) == len(_NEGATION_CHARS.findall(target))


def _label_lines_answer(state: _Declarations) -> Optional[frozenset[str]]:
    """The answer of declarations found only inside options' lines: each option's line declaring that
    option gives all of them ("A: 正确答案是A。\\nC: 正确答案是C。", not one whose line then calls it wrong);
    the same prefix on every line gives the last ("A: The correct answer is B"); a numbered key of three
    or more letters is no answer; several lines declaring other letters are a mapping (``None``)."""
    lines = state.in_label_lines
    own = [re.search(r"[A-Z]", line_label) for line_label, _ in lines]
    if len(lines) >= 2 and all(letter and letters == {letter.group(0)} for letter, (_, letters) in zip(own, lines)):
        kept = [letters for (_, letters), wrong in zip(lines, state.called_wrong) if not wrong]
        return frozenset().union(*kept) if kept else NoAnswer("each option's line declares it, then calls it wrong")
    if len({_NUMBERED_LINE.sub("", line_label) for line_label, _ in lines}) == 1:
        if len({letters for _, letters in lines}) >= 3:
            return NoAnswer("answer key")    # "1. A. 正确答案：B\n2. A. 正确答案：C\n3. A. 正确答案：D…"
        return lines[-1][1]                  # "A: The correct answer is B" on every line: a prefix
    if len({letters for _, letters in lines}) == 1:
        return lines[-1][1]
    return None                              # "A. 正确答案：B\nB. 正确答案：C…": a mapping, no declaration


def _kept_polarity(state: _Declarations, negated_ask: bool) -> tuple[list[frozenset[str]], list[bool]]:
    """The declarations (and their after-copy flags) of the polarity the question asks for, when they
    name different polarities ("错误的说法是：A … 正确的说法是：B"; "答案：A\\n错误的说法是：B、C、D": A)."""
    keep = [said is None or said != negated_ask for said in state.polarity]
    if any(keep) and not all(keep):
        return ([letters for letters, kept in zip(state.found, keep) if kept],
                [copied for copied, kept in zip(state.after_copy, keep) if kept])
    return state.found, state.after_copy


def _found_answer(state: _Declarations, text: str, ctx: Context) -> frozenset[str]:
    """The answer of the kept declarations, or why they are none."""
    if (undecided := _UNDECIDED.search(text, state.previous)) and not DECLARATION.search(text, undecided.end()):
        return NoAnswer("last declaration undecided")   # "正确答案: A … 正确答案: 无法判断": it takes the answer back
    found, after_copy = _kept_polarity(state, ctx.negated_ask)
    if len(found) >= 2 and all(after_copy) and len(set(found)) >= 2:
        return NoAnswer("another answer on each copy of the options")
    if (all(len(f) == 1 for f in found) and len(set(found)) >= 3
            and len(found) > 2 * len(ctx.valid) and state.numbered * 2 > len(found)):
        return NoAnswer("answer key")        # "1. 答案：A 2. 答案：B … 80. 答案：…"
    if (sum(1 for before, after in zip(found, found[1:]) if before != after) >= 3 and len(set(found)) < 3
            and not state.final):
        return NoAnswer("declarations go back and forth")   # "The correct answer is B. … is D. … is B. … is D"
    if len(found[-1]) == 1 and found[-1] == state.found[-1] and restated_as(text, state.previous, found[-1], ctx):
        return NoAnswer(RESTATED)            # (the last declaration only: one look per output, linear)
    # the answer slot recited letter by letter (no answer), or the last one
    return combine_slots(found, True, frozenset(ctx.valid)) or NoAnswer("answer slot recited letter by letter")


def _called_both(text: str) -> bool:
    """The same option called right and wrong: ``正确答案: A: …\\n错误说法: A: …``."""
    if not _WRONG_LABEL.search(text):
        return False
    called_wrong = {m.group("letter") for m in _WRONG_LABEL.finditer(text)}
    return bool(called_wrong & {m.group("letter") for m in _RIGHT_LABEL.finditer(text)})


def read_declared(text: str, ctx: Context, option_list: bool) -> Optional[frozenset[str]]:
    """Rule ``declared``: the declared letters; ``None`` when nothing is declared, a
    :class:`~cpsd_tasks.reading.rule_kit.NoAnswer` when the declarations are garbage (a mapping, an
    answer key, another answer on each copy, a loop).

    Each declaration (:data:`DECLARATION`, strong; :data:`_LABEL_DECLARATION`, weak) passes the guards
    (:data:`_GUARDS_ON_MATCH`, :data:`_GUARDS_ON_LETTERS`, the copy checks, :data:`_GUARDS_LAST`, a
    supposed quotation); one inside an option's line is kept aside (:func:`_note_label_line`)."""
    matches = [(m, True) for m in DECLARATION.finditer(text)]
    matches += [(m, False) for m in _LABEL_DECLARATION.finditer(text)]
    if not matches:
        return None
    matches.sort(key=lambda pair: pair[0].start())
    state = _Declarations(text)
    for match, strong in matches:
        site = _site_of(text, ctx, option_list, match, strong, state)
        if site is None:
            continue
        label = _line_label_before(text, site.line_start, site.start)
        if label:
            _note_label_line(site, label, state)
        elif not any(guard(site) for guard in _GUARDS_LAST) and not _in_supposed_quotation(site, state):
            _keep(site, state)
    if state.found and _called_both(text):
        return NoAnswer("same option called right and wrong")
    if state.in_label_lines and not state.found:
        return _label_lines_answer(state)
    if not state.found:
        return NoAnswer("every letter declared in a loop") if state.looped else None
    return _found_answer(state, text, ctx)


def _line_label_before(text: str, line_start: int, position: int) -> Optional[re.Match]:
    """The option label opening the line that starts at ``line_start`` ("A. ", "1. B:"), when ``position``
    lies after it on that line (a declaration or mark inside an option's line), else ``None``."""
    label = _LINE_LABEL.match(text, line_start)
    return label if label and label.end() <= position else None


def _tags_its_line(text: str, label_end: int, start: int, letter_at: int) -> bool:
    """Whether a declaration head ending an option's line (``label_end``: where the line's label ends;
    ``start``: the head; ``letter_at``: where the letter it would declare stands, on a later line) is a
    tag marking that line's option: the line holds one clause (the option's text), the head is a bare tag
    ("A.裁定再审 【正确答案】", "A. 1987年。 （正确答案）", "…观念[正确答案]": ``正确答案：`` once the brackets are
    made plain, nothing between it and the line's end), and the letter after it opens the next option's line
    ("\nB.决定再审"). Not "D. 裁定驳回申请：错误。因此，正确答案为：\n\nB", "A. 裁定再审，正确答案：\nB. 决定再审。"
    nor "D.裁定驳回申请 [正确答案]\nB<eoa>"."""
    line = text[label_end:start]
    body = line[:-200] + _TAGS_BEFORE.sub("", line[-200:])      # ("1987年。 （正确答案） （正确答案）": tags repeated)
    body = body.rstrip("。.")
    if (not body or body[-1] in "，,:：;；、的" or _SENTENCE_STOP.search(body) or _CONCLUDING.search(body)
            or _OPEN_BRACKET.search(body)    # ("裁定再审（不是正确答案）", "（这个选项看起来像正确答案）": words in the tag)
            or not _BARE_TAG.fullmatch(text, start, letter_at)):
        return False                         # (several sentences, a clause, a conclusion, "…本题的正确答案为\nB")
    return bool(re.match(r"[A-Z][ \t]*[.．:：、)）][ \t]*[^\s<]", text[letter_at:letter_at + 8]))


_SENTENCE_STOP = re.compile(r"[。!！?？]|\. ")
_CONCLUDING = re.compile(r"因此|所以|综上|故|(?i:therefore|thus|so)\b")
_OPEN_BRACKET = re.compile(r"[(（\[【][^(（\[【)）\]】]*$")
_TAGS_BEFORE = re.compile(r"(?:[ \t(（\[【]*(?:正确答案|错误答案)[:：]?)*[ \t(（\[【]*$")
_BARE_TAG = re.compile(r"(?:正确答案|答案)[:：][ \t]*\n\s*")    # a bracketed tag, as canonical_declarations left it
_COMBINATION = re.compile(r"[.．:：、][A-Z](?:[,，、][A-Z])+(?=[ \t]*(?:\n|$|[。；;]))")
_HYPOTHETICAL = re.compile(r"如(?!下)|若|例如|比如")
_FINAL = re.compile(r"(?:最终答案|(?i:(?:the\s+)?final\s+answer))")
# A declaration that no option can be chosen ("正确答案: 无法判断", "答案：无法确定").
_UNDECIDED = re.compile(one_of(UNDECIDED_HEADS) + r"[ \t]*(?:是|为)?[ \t]*[:：]?[ \t]*(?:无法判断|无法确定|无法选择|不能确定|不确定)")
_ITEM_END = re.compile(r"[;；\n]")
_NEWLINE = re.compile(r"\n")
_NUMBERED_LINE = re.compile(r"[ \t]*\d{1,3}[.、)]")
_LINE_LABEL = re.compile(r"[ \t]*(?:\d{1,2}[.、)] ?)?[(（\[【]?[A-Z][)）\]】]? ?[:：.．、)）]")


def _ends_with_own_text(text: str, end: int, letters: frozenset[str], ctx: Context) -> bool:
    """Whether all that follows a declared letter is its option's whole text ("…\n正确答案：A: 皇帝所尊请而来的
    客人" at the end of the output): a declaration, not a copied list cut off by the length limit."""
    target = ctx.targets.get(next(iter(letters)), "") if len(letters) == 1 else ""
    if not target or len(text) - end > 3 * len(target) + 20:
        return False                         # (only a short rest is looked at: linear)
    rest = re.sub(r"^[ \t]*[:：.．、][ \t]*", "", text[end:])
    return compared_text(rest) == target


def _declared_part(text: str, end: int, letters: frozenset[str], ctx: Context) -> Optional[frozenset[str]]:
    """The letters of a declared list that leaves the first option out ("正确答案：B:<B's text>;C:<C's
    text>;D:<D's text>。", "【答案】：【B】<text>。【C】<text>。") or ends before the last one ("正确的做法应该是
    A:<A's text>;B:<B's text>;C:<C's text>。"), up to the line's end or the next
    declaration: the options chosen, each label followed by its own text and none called wrong;
    ``None`` for a copy of the whole list (or one cut off, which starts with the first option)."""
    stop = DECLARATION.search(text, end)
    line_end = text.find("\n", end)
    stop_at = min(stop.start() if stop else len(text), line_end if line_end >= 0 else len(text))
    explained = _PART_END.search(text, end, stop_at)
    part = text[end:explained.start() if explained else stop_at]
    if _PART_WRONG.search(part):
        return None                          # "答案：B:乙，错误；C:丙，错误…": judged, not chosen
    labels = [(label_letter(m), m.end()) for m in LABEL.finditer(part)]
    labels += [(m.group("letter"), m.end()) for m in INLINE_LABEL.finditer(part)]
    listed = set(letters)
    for letter, after in labels:
        target = ctx.targets.get(letter)
        if letter not in ctx.valid or not target or not compared_text(part[after:after + 2 * len(target) + 10]).startswith(target):
            return None                      # a label without its own text ("B:甲;C:乙…": shifted)
        listed.add(letter)
    if len(listed) < 2 or listed == ctx.valid:
        return None
    if min(ctx.valid) in listed and not (max(ctx.valid) not in listed and part.rstrip().endswith("。")):
        return None                          # (from the first option: a copy, unless it ends before the last)
    first = next(iter(letters)) if len(letters) == 1 else None
    if first is None or not compared_text(text[end:end + 2 * len(ctx.targets.get(first, "")) + 12]).startswith(
            ctx.targets.get(first, "\0")):
        return None                          # the declared letter, too, with its own text
    return frozenset(listed)


# An item of such a list called wrong ("B:乙，错误；", "C:丙(错误)"), and where the list ends ("【解析】").
_PART_WRONG = re.compile(r"[，,、\s(（](?:是)?(?:错误|不正确|不对|不成立|不符合)(?:的)?[)）]?[ \t]*(?=[;；。\n]|$)")
_PART_END = re.compile(r"【(?![A-Z]】)|解析|解释|分析|理由")


def _opens_list(text: str, end: int) -> bool:
    """Whether the letter that ends at ``end`` is the first label of an inline option list: a colon
    after it, and the next item (after ``;`` or a line break) opens with another label."""
    if text.startswith("、", end) and end > 0:
        # "答案：A、<A's text>;B、<B's text>…": a list labelled with 、, when the next item is the next letter's
        following = chr(ord(text[end - 1]) + 1) + "、"
        stop = re.compile(r"[;；。\n]\s*").search(text, end, end + 400)
        return bool(stop) and text.startswith(following, stop.end())
    colon = re.compile(r" ?[:：] ?").match(text, end)
    if colon is None:
        if text[end - 1:end] in "]】)）":     # "【答案】：【A】与…。【B】未成年人…": bracketed labels
            stop = re.compile(r"[;；\n。]").search(text, end, end + 400)
            return bool(stop) and bool(LABEL.match(text, re.compile(r"\s*").match(text, stop.end()).end()))
        return False
    if INLINE_LABEL.match(text, colon.end()):
        return True                          # "答案：【A】：【B】：…"
    line_end = text.find("\n", end, end + 400)
    if (line_end >= 0 and LABEL.match(text, re.compile(r"\s*").match(text, line_end).end())
            and not INLINE_LABEL.search(text, colon.end(), line_end)):
        return True                          # "答案：A:<text；text>;\nB:…": the next line opens the next item
    stop = _ITEM_END.search(text, end, end + 400)
    if stop is not None and not INLINE_LABEL.search(text, colon.end(), stop.start()):
        # (an inline label before the item ends: "C:行政拘留。根据…的是:A:警告;B:…" — another list)
        after = re.compile(r"\s*").match(text, stop.end()).end()
        if LABEL.match(text, after) or INLINE_LABEL.match(text, after):
            return True
    sentence = re.compile(r"。").search(text, end, end + 400)
    if sentence is not None:                 # "【答案】：【A】：“十恶”…。【B】：…"
        after = re.compile(r"\s*").match(text, sentence.end()).end()
        if LABEL.match(text, after) or INLINE_LABEL.match(text, after):
            return True
        # "答案：【A】:<sentence>。<sentence>。…【B】:…": the first item, of several sentences on the line, then
        # the next letter's (not "正确答案：B：公罪。<why>。C：公室告是指…": an answer explained, then another discussed)
        following = INLINE_LABEL.search(text, colon.end(), colon.end() + 400)
        letter = re.search(r"[A-Z](?=[^A-Z]*$)", text[max(0, end - 3):end])
        return bool(following and letter and letter.group(0) == "A" and following.group("letter") == "B"
                    and text[following.start() - 1:following.start()] in "。；;"
                    and "\n" not in text[colon.end():following.start()])
    # the item runs to the end: a copy cut off by the length limit, unless it ends a sentence
    return stop is None and len(text) - end < 400 and not text.rstrip().endswith(("。", ".", "!", "！", "?", "？"))


_DECLARED_TEXT = re.compile(one_of(TEXT_HEADS) + r"[ \t]*(?:应该是|应为|是|为)?[ \t]*[:：]?[ \t]*"
                            r"(?P<content>[^\n。；;]{2,80})")


def read_declared_text(text: str, ctx: Context) -> Optional[frozenset[str]]:
    """A declaration followed by an option's own text ("[正确答案]中国法"), or by the last clause that
    is this option's alone ("正确答案: 丁构成抢劫罪而不构成抢夺罪。" for "丁骑摩托车…丁构成抢劫罪而不构成
    抢夺罪"): that option."""
    matches = []
    for match in _DECLARED_TEXT.finditer(text):
        if _WRONG_LIST.search(text, max(0, match.start() - 4), match.start()):
            continue                         # "错误答案：<text>": the wrong one named
        line_start = text.rfind("\n", 0, match.start()) + 1
        if _line_label_before(text, line_start, match.start()):
            continue                         # "A. <text>; 正确答案 <text>": a mark on an option's line (a verdict)
        matches.append(match)
    if (len({compared_text(match.group("content")) for match in matches} & set(ctx.keys_by_target)) >= 2
            and len(QUESTION_MARKER.findall(text)) >= 2):
        return None                          # "解决这个问题：… 解决方案：公室告 … 解决这个问题：… 解决方案：家罪": an answer per copy
    for match in reversed(matches):          # (the last one: a self-correction wins)
        content = compared_text(match.group("content"))
        named = {key for key, target in ctx.targets.items() if content == target}
        if len(named) == 1:
            return frozenset(named)
        if not named and (concluded := ctx.keys_by_conclusion.get(content)
                          or _nearly_one_option(match.group("content"), content, ctx)):
            return concluded
    return None


#: A declared text this alike to one option's (rapidfuzz ``ratio``, 0–100: one character in twenty), and this much closer to it than
#: to any other, is that option's text with a slip ("应对其" for "应为其", "管辖权" for the option's "管转权").
NEAR_TEXT = 95
NEAR_MARGIN = 10


# An option label in the first characters of a declared text ("A:…", "【A】…", "(1)A、…", "正确答案: A:…").
_LABEL_FIRST = re.compile(r"^.{0,12}?(?<![A-Za-z])(?:[(（【\[][A-Z][)）】\]]|[A-Z]\s*(?:[:：.．、]|$))", re.S)
_NEGATION_CHARS = re.compile("[不非无未没]")


def _nearly_one_option(raw: str, content: str, ctx: Context) -> Optional[frozenset[str]]:
    """The one option whose text the declared ``content`` (``raw`` as written) is, but for a slip of a
    character or two: not a labelled line (``A:<text>``, ``【A】<text>``, read by the letter rules), nor its
    claim reversed (a negation put in or taken out)."""
    if len(content) < 6 or _LABEL_FIRST.match(raw):
        return None
    alike = sorted(((fuzz.ratio(content, target), key) for key, target in ctx.targets.items() if target), reverse=True)
    if not alike or alike[0][0] < NEAR_TEXT or (len(alike) > 1 and alike[1][0] > alike[0][0] - NEAR_MARGIN):
        return None
    key = alike[0][1]
    if not _same_negations(content, ctx.targets[key]):
        return None                          # the option's claim with a negation put in or taken out
    return frozenset({key})


# --------------------------------------------------------------------------- the rules


def declared(turn: Turn) -> Optional[frozenset[str]]:
    """Explicit declarations (``答案：B``, ``正确答案是A、C``, ``故选B``, ``The answer is b``, ``下列说法错误的是D:…``):
    the last one wins; declarations that are garbage (a mapping, an answer key, a loop) are no answer.

    In detail: explicit declarations (``答案：B``, ``正确答案是A、C``, ``故选B``, ``The answer is b``, ``下列说法错误的是D:…``):
    the last one wins (self-correction), except that single letters declared in turn through every
    letter of the question (the answer slot recited letter by letter: ``【答案】A【解析】…【答案】B…【答案】C
    …【答案】D``) are no answer, and three or more different ones short of that are read together
    (a template filled for those options). Skipped: a declaration after a
    negation (``不选C``, ``答案不是B``), an example (``例如[正确答案]A``), a retraction or a question after it
    (``答案：A（不对）``, ``选B吗？``), a list of wrong answers (``错误答案：A,B,C``), a declaration inside another
    option's line (``A. 正确答案：B``; a tag ending an option's line, ``A.裁定再审 【正确答案】``, marks that
    option) and a declared letter that opens a copied option list (``[正确答案]A:三个月;B:五个月;…``) or names
    the model's own rewritten options (``答案：A.A,B,C``), an English one supposed, doubted, denied or
    someone else's view (``If the correct answer is option D``, ``Many think …``) or under ``only
    if``, and one answer slot followed by a loop of every letter (``【答案】：【B】【D】【C】【A】【B】…``: no
    answer), the letters named as where the answer is (``答案为A、B、C、D中的一个``, ``A/B/C/D``) and one
    inside a supposed quotation (``如回答错误，请回答“…正确答案为：A”``); declarations going back and forth between
    two answers three times or more are a loop (no answer) unless the last is a final answer
    (``最终答案``). When declarations name a polarity and it differs (``错误的说法是：A … 正确的说法是：B``,
    ``答案：A\n错误的说法是：B、C、D``), those whose polarity is not the one the question's asking clause asks
    for are dropped. One declared letter followed by another option's text (``正确答案：B\n<A's text>``,
    ``[正确答案]B: <D's text>``; across an end marker, in :func:`~cpsd_tasks.reading.letters.read_choices`) is
    no answer unless the rest settles it (:func:`restated_as`).

    Example: ``"答案：A……更正：答案：C"`` → C.
    """
    return read_declared(turn.text, turn.ctx, turn.option_list)


def declared_text(turn: Turn) -> Optional[frozenset[str]]:
    """A declaration of one option's own text instead of its letter (``正确答案：<C's text>``, ``解决方案：<text>``);
    the last one wins.

    Example: ``"答案：抢劫罪"`` → C.
    """
    return read_declared_text(turn.text, turn.ctx) or None
