"""The option-letter reader's shared patterns: letter lists, labels, declarations and the small
helpers over them (:func:`letters_in`, :func:`labels_in`, :func:`label_letter`, :func:`combine_slots`).

Every pattern has one parse per string (no nested quantifiers over the same text): linear time on
adversarial input. Whitespace runs are squeezed to one character before matching.
"""

from __future__ import annotations

import re
from typing import Iterable

# --------------------------------------------------------------------------- letter lists

# A letter list, written so that every string it matches has exactly one parse (no exponential
# backtracking on adversarial input such as "A B C D " * 1000 + "x"): one option letter with optional
# brackets; between two letters one joiner (an optional 项/选项 suffix of the first, an optional
# separator and an optional 选项/第 prefix of the second). The joiner contains no capital letter and no
# bracket, so where it ends is fixed, and it is atomic (``(?>…)``: matched once, never re-split).
# Whitespace runs are squeezed to one character before matching.
_SUFFIX = r"(?: ?(?:[两二三四]?个选项|[两二三四]项|选项|项))"
_SEPARATOR = r"(?: ?(?:以及|、|,|，|和|及|与|跟|/|;|；|&|\+|and) ?| )"
_PREFIX = r"(?:(?:选项|第) ?)"
_JOIN = rf"(?>{_SUFFIX}?{_SEPARATOR}?{_PREFIX}?)"


def _list_pattern(letter: str) -> str:
    core = rf"[(（\[【<《]?{letter}[)）\]】>》]?"
    first = "A-Z" if letter == "[A-Z]" else "a-z"
    return rf"(?=[选第(（\[【<《{first}])(?<![A-Za-z]){_PREFIX}?{core}(?:{_JOIN}{core})*{_SUFFIX}?(?![A-Za-z])"


LETTER_LIST = _list_pattern("[A-Z]")
# Lower-case letters only with an explicit separator between them ("a、c", "a and c"): a bare run or
# a space-joined run of lower-case letters is English text.
_LOWER_CORE = r"[(（\[]?[a-z][)）\]]?"
LOWER_LETTER_LIST = (rf"(?<![A-Za-z]){_LOWER_CORE}(?: ?(?:、|,|，|和|及|与|/|and) ?{_LOWER_CORE})*(?![A-Za-z])")
LETTER_LIST_RE = re.compile(LETTER_LIST)
# After a lower-case list: nothing, or something that is not an English word ("a car" is no list).
_LOWER_END = r"(?= ?$| ?[^A-Za-z ])"

_HEADS = (r"(?:(?:^|(?<=\n))[ \t]*(?:解答[ \t]*[:：][ \t]*)?解|解答|最终答案|正确答案|参考答案|标准答案|答案|正确的选项|正确选项|正确的答案|应当选择|应该选择|应选择|"
          r"应当选|应该选|应选|故选|所以选|因此选|因而选|我选|选择|选出|选|更正为|更正|改为|"
          r"应该是|应当是|应该为|应是|应为|而是|"
          r"(?i:(?:the\s+)?(?:correct\s+|final\s+|right\s+)?(?:answer|option|choice)"
          r"(?:\s+to\s+(?:the|this|your|my)\s+question)?\s+(?:is|would be|should be)|answer)"
          # "I would select option [B]", "I choose B", "I'd go with C"
          r"|(?<![A-Za-z])I(?:\s+would|\s+will|'d|’d|'ll|’ll)?\s+(?:select|choose|pick|go\s+with)"
          # "the most suitable counterpoint … is option B", "…would be option D": a copula before "option X"
          r"|(?<![A-Za-z])(?:is|would\s+be)(?=\s+(?i:option|choice)\s+\(?[A-Z]\b)"
          # "the best counterpoint to choose is B: <text>", "…could be option B: “…”", "…is point B: …",
          # "…can be found in option B: …": a copula (or "in") before a letter that labels its text
          r"|(?<![A-Za-z])(?:is|would\s+be|could\s+be|should\s+be|in)"
          r"(?=\s+(?:(?i:option|choice|point)\s+)?\(?[A-Z]\)?[ \t]*[:：])"
          # "[ Correct Answer ] C", "[Correct Answer]: B": the asked tag in English
          r"|\[[ \t]*(?i:correct[ \t]+answer)[ \t]*\])")
# After the head: a colon, or the letter alone on the next line ("##正确答案\nC\n"); "option" ("…is option D").
_TAIL = (r"[ \t]*(?:应该是|应当是|应该为|应为|应是|是|为|选择|选)?[ \t]*(?:[:：]\s*|\n[ \t]*\n?[ \t]*(?=[A-Z][ \t]*(?:\n|$)))?"
         r"(?:(?i:option|choice|point)\s+)?")
# (A first sub-answer's number may come before the letter: "正确答案: （1）A 。". The leading lookaheads
# only make the scan fast: a position whose first character can start no match is skipped at once.)
DECLARATION = re.compile(rf"(?=[解最正参标答应故所因我选更改而\sTtCcFfRrAaOoIiw\[]){_HEADS}{_TAIL}(?:[(（][1-9][)）][ \t]*(?=[A-Z][ \t]*(?:[。，,;；]|$)))?(?:(?P<list>{LETTER_LIST})|(?P<lower>{LOWER_LETTER_LIST}){_LOWER_END})")
# A label: an option letter opening a line or sentence and followed by : . 、 ) (``A:…``, ``(B) …``,
# ``1. C. …``). Used to tell a copied option list (two or more different labels) from an answer.
LABEL = re.compile(
    r"(?=[ \t0-9.、)(（\[【]{0,8}[A-Z])(?:(?:^|(?<=[\n;；。?？!！]))[ \t]*(?:\d{1,2}[.、)] ?)?|(?<=\d[.、)] )|(?<=\d[.、)]))"
    r"(?:[(（\[【]?(?P<letter>[A-Z])[)）\]】]? ?[:：.．、)）]|[(（\[【](?P<bracketed>[A-Z])[)）\]】] ?(?=[\u3400-\u9fff]))(?![0-9])"
    r"|(?<=\d[.、)])(?P<numbered>[A-Z])(?=\s|$)"      # "1.A 2.B 3.C …": a numbered letter
)
# A letter used as a label anywhere ("属于D:犯意表示"): letter, colon, then text.
INLINE_LABEL = re.compile(r"(?=[(（\[【A-Z])(?<![A-Za-z])[(（\[【]?(?P<letter>[A-Z])[)）\]】]?\s?[:：](?!\s*$)")
# Lines of a copied option list: a label, then its text.
_LABEL_LINE = re.compile(rf"{LABEL.pattern}[^\n]*", re.MULTILINE)

# Verdicts next to a letter: "选项B是对的", "A项错误", "B正确", "说法C是正确的", "A: 正确".
_POSITIVE = r"(?:是)?(?:正确|对|符合(?:法律)?(?:规定|题意|要求))(?:的)?(?:答案|选项|说法)?"
_NEGATIVE = r"(?:是)?(?:错误|不正确|不对|错的|有误|不符合题意|不准确|不妥|不成立)(?:的)?(?:答案|选项|说法)?"
# A verdict word ends there: "A:对象认识错误" holds no verdict on A.
_VERDICT_END = r"(?=$|[^\u3400-\u9fff\ufffd]|[，。；！？、])"
VERDICT_TAIL = re.compile(
    r"(?:的说法|说法|的表述|表述|的观点|所述|[两三四]项|[两三四]个选项)?"
    rf" ?[:：]? ?(?:都|均|也)?(?:属)?(?:(?P<pos>{_POSITIVE})|(?P<neg>{_NEGATIVE})){_VERDICT_END}"
)   # ("【B】、【C】、【D】三项均属正确")
# "A is incorrect." / "Option B is correct" opening a line.
# Also with a subject ("A: The statement is incorrect.", "A: It is not in line with the legal provisions.",
# "Option B is also not correct"; not "A: The statement that is correct is B").
ENGLISH_VERDICT = re.compile(r"^[ \t]*(?:[Oo]ption )?(?P<letter>[A-Z])(?: |:[ \t]*)"
                              r"(?:(?:It|This|The (?:statement|answer|option|choice|description|claim|view|opinion|expression|assertion)"
                              r"(?: of(?: [a-z]+){1,3})?) )?"
                              r"is (?:also )?(?:(?P<pos>correct|right|true|in line with)|(?P<neg>incorrect|wrong|false|not (?:correct|right|true|in line with)))\b"
                              r"(?! is\b| answer\b)(?P<rest>[^\n]*)",
                              re.MULTILINE)


def letters_in(fragment: str, valid: Iterable[str]) -> frozenset[str]:
    """Letters a matched list names: runs like "AC" count only if made of distinct valid letters.

    A single letter outside ``valid`` is ignored; a run of several letters with any letter outside
    ``valid`` or repeated (APP, GPS, ADD) is a word or an acronym and ignored whole. Lower-case
    letters are read as their capitals (the callers allow them only where they cannot be words).
    """
    valid = set(valid)
    out: set[str] = set()
    for run in re.findall(r"[A-Za-z]+", fragment):
        if run.lower() == "and":
            continue
        run = run.upper()
        if len(run) == 1:
            if run in valid:
                out.add(run)
        elif len(set(run)) == len(run) and set(run) <= valid:
            out.update(run)
    return frozenset(out)


# --------------------------------------------------------------------------- one turn


def label_letter(match: re.Match) -> str:
    """The letter of a :data:`LABEL` match, whichever of its forms matched (``A:``, ``【B】…``,
    ``1.C``)."""
    return match.group("letter") or match.group("bracketed") or match.group("numbered")


def labels_in(text: str) -> set[str]:
    """Letters used as labels: at a line or sentence start (``A:…``, ``1. B.…``) or anywhere as
    letter + colon (``…;C:…``)."""
    return ({label_letter(m) for m in LABEL.finditer(text)}
            | {m.group("letter") for m in INLINE_LABEL.finditer(text)})
LOOP_LETTER = re.compile(r"[A-Z]")


def combine_slots(slots: list[frozenset[str]], declared: bool, letters: frozenset[str] = frozenset()) -> frozenset[str]:
    """One answer from an answer turn and the bare answer turns after it.

    Single letters that go through every letter of the question (``letters``; ``[正确答案]A<eoa>
    [正确答案]B<eoa>[正确答案]C<eoa>[正确答案]D<eoa>``, ``【答案】A【解析】…【答案】B…``) are the answer slot
    recited letter by letter: no answer (empty; graders' convention 38). Three or more different
    single letters short of every letter are a template filled for those options (all of them).
    Otherwise, when every turn declares its
    answer, the last declaration wins (a corrected answer: ``[正确答案]B<eoa>[正确答案]D<eoa>`` → D),
    as within one turn (:func:`read_declared`); a letter added without a declaration
    (``[正确答案]C<eoa>\nD<eoa>``) is read as one more letter (CD: graders split on it; never
    credited as a single answer).
    """
    if all(len(slot) == 1 for slot in slots) and len(set(slots)) >= 3:
        named = frozenset().union(*slots)
        return frozenset() if letters and named >= letters else named
    return slots[-1] if declared else frozenset().union(*slots)
