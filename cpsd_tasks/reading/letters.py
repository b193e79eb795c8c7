"""The option letters a model answered with (SPEC.md §4.4), read as a careful human reader would.

Audited against a human-graded sample of 34 real LLMs' answers to single-choice questions
(``scripts/audit_reading.py``, README "Answer reading"). Built on :mod:`cpsd_tasks.reader`.

Why two modules, and why this one still holds ~1,270 lines: rules a–e below read LETTERS and are one
ordered reading of one turn. They share the letter-list and label patterns (:data:`_LIST`,
:data:`_LABEL`, …), and each rule's exceptions name the others (a declaration skipped inside another
option's line or at the head of a copied list, a leading letter skipped when a verdict judged it,
"unless a copied list…"); split further, the order a reader must follow would be lost (the tables
in ``tests/test_reading.py`` follow the same order). Rule f reads no letter: it finds the options'
own TEXT in the answer, and needs from the letter rules only where a copied option list's last
label ends (passed in). It lives in :mod:`cpsd_tasks.choice_text` (~460 lines), with the per-question
:class:`Context` and the question readings both modules use (:func:`plain_text`, :func:`negated_ask`,
:data:`TEXT_VERDICT`, …). Imports go one way: choices → choice_text → reader.

How an output is read (:func:`read_choices`):

1. **Preparation** — ``<think>`` removed, NFKC, Traditional folded, HTML tags, fence lines and
   ``*`` dropped, LaTeX unwrapped (``$\\boxed{\\text{B}}$`` → a declaration of B, ``$\\mathrm{A}$``
   → A), bracketed declarations made plain (``[正确答案]B`` → ``正确答案：B``).
2. **Turns** — the output is split at end markers (``<eoa>``, ``</s>``, ``<|im_end|>`` …) and role
   markers (``<human>``, ``### Human`` …). The first turn from which an answer is read gives the
   answer; later turns count only when they are bare answers: three or more different letters
   are a template (all of them), a second declaration replaces the first
   (``[正确答案]B<eoa>[正确答案]D<eoa>`` → D), a bare letter adds to it (``[正确答案]C<eoa>\\nD<eoa>``
   → CD); any other later turn (an invented next question with its own answer) is ignored, but the
   first line of the last turn replaces the answer when it declares another single letter, not
   supposed and not of the other polarity (``[正确答案]B<eoa>\n\n其中错误的是A。`` → A). Inside
   a turn, a new-question marker (``问题：``, ``题目：``, ``【例题】``) or a question posed with its own options
   after an answer ends the turn, and so do this question re-posed or a ``请问：…`` after an answer
   that was not to a question the model posed itself (a ``请问：`` before any answer ends nothing); a
   turn that starts with a colon (an end marker where a label
   was) is part of a copied list.
3. **Inside a turn**, the first rule that gives a letter wins:

   a. explicit declarations (``答案：B``, ``正确答案是A、C``, ``故选B``, ``The answer is b``,
      ``下列说法错误的是D:…``): the last one wins (self-correction), except that three or more
      different single letters declared in turn (a template filled for every option) are read
      together. Skipped: a declaration after a negation (``不选C``, ``答案不是B``), an example
      (``例如[正确答案]A``), a retraction or a question after it (``答案：A（不对）``, ``选B吗？``),
      a list of wrong answers (``错误答案：A,B,C``), a declaration inside another option's line
      (``A. 正确答案：B``; a tag ending an option's line, ``A.裁定再审 【正确答案】``, marks that option) and
      a declared letter that opens a copied option list (``[正确答案]A:三个月;B:五个月;…``) or names the
      model's own rewritten options (``答案：A.A,B,C``), an English one supposed, doubted, denied or someone
      else's view (``If the correct answer is option D``, ``Many think …``) or under ``only if``, and
      one answer slot followed by a loop of every letter (``【答案】：【B】【D】【C】【A】【B】…``: no
      answer), the letters named as where the answer is (``答案为A、B、C、D中的一个``, ``A/B/C/D``) and one
      inside a supposed quotation (``如回答错误，请回答“…正确答案为：A”``); declarations going back and
      forth between two answers three times or more are a loop (no answer) unless the last is a final
      answer (``最终答案``). When declarations name a polarity and it differs
      (``错误的说法是：A … 正确的说法是：B``, ``答案：A\n错误的说法是：B、C、D``), those whose polarity
      is not the one the question's asking clause asks for are dropped;
   b. the whole turn is a letter list (``AC``, ``A、C``, ``b``);
   c. unless the turn restates the option list (two or more different letters used as labels
      ``A:…``/``B.…``), a leading letter list followed by a delimiter (``B. 诈骗罪``,
      ``b. 诈骗罪``) or a single letter used as a label (``…的行为属于D:犯意表示``);
   d. verdicts next to letters (``只有选项B是对的``, ``只有C是符合…条件``, ``A项错误，B项正确``, ``A: 正确。\\nC: 正确。``,
      ``因此，A选项是正确的答案``, ``A: The statement is incorrect.``, an option's line ending in the
      question's own predicate or holding only it): the letters judged correct, or judged wrong
      when the question asks for the wrong statement (``…错误的是``);
   e. the last line that is only a letter list;
   f. the option's own text (:mod:`cpsd_tasks.choice_text`): the whole answer equals it, the turn
      opens by stating it (after 构成/属于/是, in the question's own words, followed by the
      question's last words, as one option's own last clause, or the question's blank ``（ ）`` or its
      ``哪个机关`` filled in), or, outside copied option lines, exactly one option's text (at least four
      characters after a conclusion, or right after 是/为/指的是; of several, the one a ``综上所述``
      summary states last) is stated.

Letters are capital A–Z after NFKC (full-width Ａ counts); lower-case letters count only as the
whole answer, after a declaration or as a leading label, never as an English word
(``The answer is B because a car…`` → B). A letter adjacent to other Latin letters is part of a
word (APP, GPS) and never an option; letters outside the question's options are ignored. Nothing
readable gives ``None`` — never a guess, never the first letter of a copied option list.
Linear-time: every pattern has one parse per string (no nested quantifiers over the same text).
"""

from __future__ import annotations

import bisect
import functools
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Optional

from cpsd_tasks.reading.option_text import read_option_text
from cpsd_tasks.reading.prepare import (FENCE_LINE, HTML_TAG, LONE_SURROGATE, answer_text, canonical_declarations,
                                        fold_traditional, squeeze, strip_edges)
from cpsd_tasks.reading.question import (BLANK, HEAD_NEGATIVE, NEGATED_CONTENT, TEXT_VERDICT, Context, asking_clause,
                                         compared_text, negated_ask, option_target, plain_text)
from cpsd_tasks.reading.turns import QUESTION_MARKER, mark_echoes, turns

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


_LIST = _list_pattern("[A-Z]")
# Lower-case letters only with an explicit separator between them ("a、c", "a and c"): a bare run or
# a space-joined run of lower-case letters is English text.
_LOWER_CORE = r"[(（\[]?[a-z][)）\]]?"
_LOWER_LIST = (rf"(?<![A-Za-z]){_LOWER_CORE}(?: ?(?:、|,|，|和|及|与|/|and) ?{_LOWER_CORE})*(?![A-Za-z])")
_LIST_RE = re.compile(_LIST)
_LOWER_LIST_RE = re.compile(_LOWER_LIST)
# After a lower-case list: nothing, or something that is not an English word ("a car" is no list).
_LOWER_END = r"(?= ?$| ?[^A-Za-z ])"

_HEADS = (r"(?:(?:^|(?<=\n))[ \t]*(?:解答[ \t]*[:：][ \t]*)?解|解答|最终答案|正确答案|参考答案|标准答案|答案|正确的选项|正确选项|正确的答案|应当选择|应该选择|应选择|"
          r"应当选|应该选|应选|故选|所以选|因此选|因而选|我选|选择|选出|选|更正为|更正|改为|"
          r"应该是|应当是|应该为|应是|应为|而是|"
          r"(?i:(?:the\s+)?(?:correct\s+|final\s+|right\s+)?(?:answer|option|choice)"
          r"(?:\s+to\s+(?:the|this|your|my)\s+question)?\s+(?:is|would be|should be)|answer)"
          # "I would select option [B]", "I choose B", "I'd go with C"
          r"|(?<![A-Za-z])I(?:\s+would|\s+will|'d|’d|'ll|’ll)?\s+(?:select|choose|pick|go\s+with))")
# After the head: a colon, or the letter alone on the next line ("##正确答案\nC\n"); "option" ("…is option D").
_TAIL = (r"[ \t]*(?:应该是|应当是|应该为|应为|应是|是|为|选择|选)?[ \t]*(?:[:：]\s*|\n[ \t]*\n?[ \t]*(?=[A-Z][ \t]*(?:\n|$)))?"
         r"(?:(?i:option|choice)\s+)?")
# (A first sub-answer's number may come before the letter: "正确答案: （1）A 。". The leading lookaheads
# only make the scan fast: a position whose first character can start no match is skipped at once.)
_DECLARATION = re.compile(rf"(?=[解最正参标答应故所因我选更改而\sTtCcFfRrAaOoI]){_HEADS}{_TAIL}(?:[(（][1-9][)）][ \t]*(?=[A-Z][ \t]*(?:[。，,;；]|$)))?(?:(?P<list>{_LIST})|(?P<lower>{_LOWER_LIST}){_LOWER_END})")
# A weaker head: the letter must be used as a label ("…错误的是D:开庭…", "属于D:犯意表示") or end the
# clause ("正确的是D。", "错误的是C").
_LABEL_DECLARATION = re.compile(
    rf"(?=[的属为是])(?:的是|的为|的有|属于|为|是)(?:[ \t]*(?P<list>{_LIST})"
    r"(?:(?=\s*[:：]|\s*$|\s*[。，,；;!！\n])|(?<=[\]】)）]))"
    # "…错误的是:C:…" and "正确的是：D。" declare; "…正确的是:A:…" may open a copied option list
    rf"|[ \t]*[:：][ \t]*(?P<colon_list>{_LIST})(?=\s*[:：]|\s*$|\s*[。，,；;!！\n]))"
)
# After a declared list: a self-retraction or a question ("答案：A（不对）", "选B吗？"), or the list is where
# the answer is to be found ("答案为A、B、C、D中的一个") — no answer.
# (Not 错误/有误: "答案：B（错误）" answers a "下列说法错误的是" question.)
_RETRACTED_RE = re.compile(r" ?[(（]? ?(?:(?:都|均|全|也)?(?:不对|错了)|(?:都|均|全)错)| ?(?:吗|呢|\?|？)"
                           r"| ?(?:是错的|是错误的|还是|或者|或|中没有|中无|中的一个|中的一项|之一|中选)"
                           r"| ?(?:[两三四五六七八九十几]个(?:选项)?中|中的?(?:任|一|[A-Z])|/)")
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
_HEDGE_BEFORE = re.compile(r"(?:还|可能|也许|或许|是否|是不是|如果|假如|若)$")
_WRONG_LIST = re.compile(r"(?:错误|不正确|错的) ?$")
_NOT_AFTER = re.compile(r" ?(?:不是|并非|不应|不该|不能是)")
# A label: an option letter opening a line or sentence and followed by : . 、 ) (``A:…``, ``(B) …``,
# ``1. C. …``). Used to tell a copied option list (two or more different labels) from an answer.
_LABEL = re.compile(
    r"(?=[ \t0-9.、)(（\[【]{0,8}[A-Z])(?:(?:^|(?<=[\n;；。?？!！]))[ \t]*(?:\d{1,2}[.、)] ?)?|(?<=\d[.、)] )|(?<=\d[.、)]))"
    r"(?:[(（\[【]?(?P<letter>[A-Z])[)）\]】]? ?[:：.．、)）]|[(（\[【](?P<bracketed>[A-Z])[)）\]】] ?(?=[\u3400-\u9fff]))(?![0-9])"
    r"|(?<=\d[.、)])(?P<numbered>[A-Z])(?=\s|$)"      # "1.A 2.B 3.C …": a numbered letter
)
# A letter used as a label anywhere ("属于D:犯意表示"): letter, colon, then text.
_INLINE_LABEL = re.compile(r"(?=[(（\[【A-Z])(?<![A-Za-z])[(（\[【]?(?P<letter>[A-Z])[)）\]】]?\s?[:：](?!\s*$)")
# Lines of a copied option list: a label, then its text.
_LABEL_LINE = re.compile(rf"{_LABEL.pattern}[^\n]*", re.MULTILINE)
_RETRACTED = r" ?[(（]? ?(?:都|均|全|也)?(?:不对|不正确|错误|错了|是错的|是错误|有误|不是|不选|不符合)| ?(?:吗|呢|\?|？)"
# A leading letter list, taken whole (atomic: "B、C、D正确" is never cut back to "B、C"), must end the
# answer, be followed by a delimiter ("B. 内容…", "A、交通…") or be called correct ("B、C、D正确，A错误"),
# not by other text ("A项错误" names no answer), a retraction ("A B C D 都不对") or an
# enumeration ("A、B、C、D 四个选项中", "从A,B,C,D中选出").
_LEADING = re.compile(
    rf"^(?:\d{{1,2}}[.、)] ?)?(?P<list>(?>{_LIST}))"
    rf"(?!{_RETRACTED}| ?(?:[两三四五六七八九十几]个)?(?:选项)?中)"
    r"(?=$|[\s.．:：)）、,，;；。]|(?:的说法|说法)?(?:都|均)?(?:是)?正确)"
)
_LOWER_LEADING = re.compile(rf"^(?P<list>{_LOWER_LIST})(?=$|[.．:：)）、,，;；。]| ?[^A-Za-z ])")

# Verdicts next to a letter: "选项B是对的", "A项错误", "B正确", "说法C是正确的", "A: 正确".
_POSITIVE = r"(?:是)?(?:正确|对|符合(?:法律)?(?:规定|题意|要求))(?:的)?(?:答案|选项|说法)?"
_NEGATIVE = r"(?:是)?(?:错误|不正确|不对|错的|有误|不符合题意|不准确|不妥|不成立)(?:的)?(?:答案|选项|说法)?"
# A verdict word ends there: "A:对象认识错误" holds no verdict on A.
_VERDICT_END = r"(?=$|[^\u3400-\u9fff\ufffd]|[，。；！？、])"
# Matched right after each letter list (lists are found once, left to right: linear time).
# "B是违法的": a letter and the question's predicate (:func:`_verdicts`).
_SAID = re.compile(r"(?:选项|项)? ?是(?P<said>[\u3400-\u9fff]{2,16}?)的?(?=[。，,；;！!\n]|$)")
_SAID_BARE = re.compile(r"(?:选项|项)? ?(?P<said>[\u3400-\u9fff]{2,16}?)的?(?=[。，,；;！!\n]|$)")    # "只有D不属于行政许可"
# What "只有D…" says of D, up to the clause's end ("只有D中乙向甲作出的抵销通知能够产生抵销效果，…").
_ONLY_SAID = re.compile(r"(?:选项|项)? ?(?P<said>[^\n。，,；;！!？?]{2,40}?)的?(?=[。，,；;！!\n]|$)")
_VERDICT_WORD = re.compile(r"^(?:不|非|没|未)|正确|错|对|有误|准确|成立|干扰")   # (a verdict, or the words negated)
# Words before "只有C…" in its clause that make it a supposition, someone else's view or a first
# impression, no choice; and a turn right after what it says ("…，但这种理解是片面的").
_ONLY_HEDGE = re.compile(r"如果|假如|假设|若|并非|不是|可能|未必|也许|或许|认为|以为|乍一?看|看似|似乎|好像|表面上|不确定")
_ONLY_WITHDRAWN = re.compile(r"[ \t]*[，,][ \t]*(?:但是?|然而|不过|可是)(?!前提|条件|需|须|应)")
_CLAUSE_MARK = re.compile(r"[。，,；;！!？?\n]")
# What "只有C…" may say of C that condemns it, unless in the question's own words: "只有C的做法违法",
# "只有C需要排除", "只有C选项的表述存在问题" single C out as the one not chosen.
_CONDEMNED = re.compile(r"违法|违反|问题|排除|瑕疵|无效|不当|不合|错|误")


def _shares_words(said: str, stem: str, size: int = 4) -> bool:
    """Whether what "只有C…" says restates the question's own words (four characters in a row in both:
    "只有B选项违反了上诉不加刑原则" for "下列哪一选项违反上诉不加刑原则?"), so that even a condemning word
    in it answers the question as asked. ``said`` is short (≤ 40 characters): linear in the stem."""
    return any(said[i:i + size] in stem for i in range(len(said) - size + 1))


def _only_hedged(text: str, only_at: int) -> bool:
    """Whether the "只有" at ``only_at`` is negated right before it ("不只有C", "并非只有C") or hedged in
    its clause ("可能只有C", "有同学认为只有C", "乍一看只有C"): looked at over 12 characters at most."""
    window = text[max(0, only_at - 12):only_at]
    clause = _CLAUSE_MARK.split(window)[-1]
    return bool(_ONLY_HEDGE.search(clause)) or window.endswith(("不", "非"))


# A noun that opens a predicate ("行为不属于行政许可" asked by "下列哪些行为不属于行政许可?").
_ASKED_NOUN = re.compile(r"^(?:表述|说法|选项|行为|情形|做法|观点)")
_VERDICT_TAIL = re.compile(
    r"(?:的说法|说法|的表述|表述|的观点|所述|[两三四]项|[两三四]个选项)?"
    rf" ?[:：]? ?(?:都|均|也)?(?:属)?(?:(?P<pos>{_POSITIVE})|(?P<neg>{_NEGATIVE})){_VERDICT_END}"
)   # ("【B】、【C】、【D】三项均属正确")
# A label line that ends with a verdict ("A. 对陈某的行为以抢夺罪从重处罚即可。 正确答案").
_LINE_VERDICT = re.compile(
    r"^[ \t]*(?:(?P<number>[1-9])[.、)] ?|(?:\d{1,2}[.、)] ?)?[(（\[【]?(?P<letter>[A-Z])[)）\]】]? ?[:：.．、])"
    r"(?P<text>[^\n]*?)(?:[。.;；][ \t]*|[ \t]+)"
    r"(?:(?P<pos>正确答案|正确|对)|(?P<neg>错误答案|错误|错|不正确))[。.]?[ \t]*$",
    re.MULTILINE,
)
# A mark inside such a line's text: marks looping ("正确答案 1. 正确答案 2. 错误答案 …").
_ANSWER_MARK = re.compile(r"正确答案|错误答案")
# Option lines that map an option to a letter ("A. 正确答案：B"): a mapping, where 正确答案 marks nothing.
_MAPPED = re.compile(r"(?m)^[ \t]*[A-Z][ \t]*[.．:：、][ \t]*正确答案[ \t]*[:：][ \t]*[A-Z]")
# "A is incorrect." / "Option B is correct" opening a line.
# Also with a subject ("A: The statement is incorrect.", "A: It is not in line with the legal provisions.",
# "Option B is also not correct"; not "A: The statement that is correct is B").
_ENGLISH_VERDICT = re.compile(r"^[ \t]*(?:[Oo]ption )?(?P<letter>[A-Z])(?: |:[ \t]*)"
                              r"(?:(?:It|This|The (?:statement|answer|option|choice|description|claim|view|opinion|expression|assertion)"
                              r"(?: of(?: [a-z]+){1,3})?) )?"
                              r"is (?:also )?(?:(?P<pos>correct|right|true|in line with)|(?P<neg>incorrect|wrong|false|not (?:correct|right|true|in line with)))\b"
                              r"(?! is\b| answer\b)(?P<rest>[^\n]*)",
                              re.MULTILINE)
# A bare English verdict opening an option's line ("A: Wrong. The victim has the right to…").
_ENGLISH_BARE_VERDICT = re.compile(r"^[ \t]*(?P<letter>[A-Z])[ \t]*[:：.][ \t]*(?:(?P<pos>Correct|Right|True)|(?P<neg>Wrong|Incorrect|False|Not (?:correct|right|true)))"
                                   r"[ \t]*(?:[.,;!。，；]|$)(?P<rest>[^\n]*)", re.MULTILINE)
# An option's line whose first sentence (a period before a space, as in "Mr. Zhang", goes on) says its
# subject is (not) in accordance with the regulations ("A: The advertisement by Mr. Zhang on the newspaper is
# in accordance with the regulations."; not for an option that says so itself: that line may be its
# translation, nor a claim or a supposition: :data:`_ENGLISH_CLAIMED`).
_ENGLISH_RULE_VERDICT = re.compile(r"^[ \t]*(?P<letter>[A-Z])[ \t]*[:：.][ \t]*[A-Z](?:[^\n.]|\.(?= ))(?:[^\n.]|\.(?= )){0,300}?\b(?:is|are) "
                                   r"(?:(?P<neg>not )|(?P<pos>))(?:in accordance|in line|consistent|in compliance) with"
                                   r" (?:the )?(?:relevant )?(?:regulations|law|laws|legal provisions|provisions|rules)\b(?P<rest>[^\n]*)",
                                   re.MULTILINE)
_ENGLISH_CLAIMED = re.compile(r"(?i)\b(?:whether|if|unless|claims?|argues?|says?|believes?|thinks?|depends|but)\b")
# What makes an English verdict line no verdict: it maps the option to another letter ("A: The answer is
# wrong. The correct answer is B.", "The right choice is C"), asks ("…is correct?"), supposes ("…correct
# if …") or turns ("Wait, actually it is correct").
_ENGLISH_NO_VERDICT = re.compile(r"(?:answer|choice|option)(?: is| should be| would be):? \(?[A-Z]\b|^ ?\?|^,? (?:only )?(?:if|when|unless|in principle)\b"
                                 r"|\b(?:actually|wait)\b", re.IGNORECASE)
# A question that asks for the wrong statement ("下列说法错误的是", "哪一项不正确").
_NEGATIVE_QUESTION = re.compile(r"(?:错误|不正确|不准确|不恰当|不妥当?|不符合|不属于|不成立|不能|不得|不应|不是|不包括|"
                                r"不具有|不合法|违法|不予|不可以|有误)")
_LATEX_WRAPPER = re.compile(r"\\(?:text|mathrm|textbf|mathbf|mathit|textit|operatorname)\s*\{([^{}]{0,40})\}")
_BOXED = re.compile(r"\\boxed\s*\{([^{}]{0,40})\}")


def _letters(fragment: str, valid: Iterable[str]) -> frozenset[str]:
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


# An option's own line calling it wrong after declaring it ("B: 正确答案是B。…因此B是错误的答案。").
_CALLED_WRONG = re.compile(r"是错误的|错误的答案|错误答案|不正确的答案|是不正确的")
# A declaration in an option's line that is only supposed ("A: 如果正确答案是A，…", "A: 正确答案是A的可能性不大").
_HEDGED_SLOT = re.compile(r"如果|假设|假如|若|可能|是否")
_HEDGED_AFTER = re.compile(r"[ \t]*(?:的可能性|吗|呢|\?|？|还是|或)")
# The polarity a weak declaration's head states ("错误的说法是", "正确的是").
_DECLARED_POLARITY = re.compile(r"(?:(?P<neg>错误|不正确|不对|错)(?:的)?(?:说法|表述|选项|答案)?|(?<![不错])(?:正确|对)(?:的)?(?:说法|表述)?)"
                                r"(?:的)?(?:是|为|有)?[ \t]*(?:[:：][ \t]*)?$")   # (正确答案, 正确选项: the answer, no polarity)
# An option labelled wrong with its text ("错误说法: B: <option B>"), as a list of labelled options
# does; "错误说法是D" (an answer to "…哪一说法是错误的") is not one.
_WRONG_LABEL = re.compile(r"(?:错误说法|错误答案|错误选项)[ \t]*[:：][ \t]*(?P<letter>[A-Z])[ \t]*[:：]")
_RIGHT_LABEL = re.compile(r"(?:正确答案|正确说法|正确选项)[ \t]*[:：][ \t]*(?P<letter>[A-Z])[ \t]*[:：]")


def prepare(output: Optional[str]) -> str:
    """An output made ready for letter reading (step 1 of the module docstring)."""
    text = answer_text(output)
    text = fold_traditional(text)
    text = FENCE_LINE.sub("", HTML_TAG.sub("", text)).replace("*", "")
    text = _BOXED.sub(lambda m: f"答案：{m.group(1)} ", _LATEX_WRAPPER.sub(r"\1", text))
    text = _LATEX_WRAPPER.sub(r"\1", text).replace("$", " ")
    return mark_echoes(canonical_declarations(squeeze(text)))


# --------------------------------------------------------------------------- one turn


def _label_letter(match: re.Match) -> str:
    """The letter of a :data:`_LABEL` match, whichever of its forms matched (``A:``, ``【B】…``,
    ``1.C``)."""
    return match.group("letter") or match.group("bracketed") or match.group("numbered")


def _labels(text: str) -> set[str]:
    """Letters used as labels: at a line or sentence start (``A:…``, ``1. B.…``) or anywhere as
    letter + colon (``…;C:…``)."""
    return ({_label_letter(m) for m in _LABEL.finditer(text)}
            | {m.group("letter") for m in _INLINE_LABEL.finditer(text)})


_NO_ANSWER: frozenset[str] = frozenset()


def _declared(text: str, ctx: Context, option_list: bool) -> Optional[frozenset[str]]:
    """Rule a: the declared letters; ``None`` when nothing is declared, :data:`_NO_ANSWER` when the
    declarations are garbage (a mapping, an answer key, another answer on each copy)."""
    found: list[frozenset[str]] = []
    after_copy: list[bool] = []              # the options were copied again since the last one
    polarity: list[Optional[bool]] = []      # "正确的说法是：B" True, "错误的说法是：A" False, else None
    in_label_lines: list[tuple[str, frozenset[str]]] = []
    called_wrong: list[bool] = []            # the rest of such a line calls the option wrong
    previous = 0
    numbered = 0                             # declarations on numbered lines ("17. 答案：A")
    looped = False
    final = False                            # the last declaration is a final answer
    matches = [(m, True) for m in _DECLARATION.finditer(text)]
    matches += [(m, False) for m in _LABEL_DECLARATION.finditer(text)]
    if not matches:
        return None
    matches.sort(key=lambda pair: pair[0].start())
    newlines = [m.start() for m in _NEWLINE.finditer(text)]     # line starts by bisection (linear)
    opens = [m.start() for m in re.finditer("“", text)]            # quotation marks, counted by bisection
    closes = [m.start() for m in re.finditer("”", text)]
    for match, strong in matches:
        start, end = match.start(), match.end()
        if _SKIP_BEFORE.search(text, max(0, start - 12), start):
            continue
        if strong and _WRONG_LIST.search(text, max(0, start - 4), start):
            continue                         # "错误答案：A,B,C" lists the wrong answers
        if _RETRACTED_RE.match(text, end):
            continue
        fragment_name = next(name for name in ("list", "lower", "colon_list")
                             if name in match.re.groupindex and match.group(name) is not None)
        letters = _letters(match.group(fragment_name), ctx.valid)
        if not letters:
            continue
        if _COMBINATION.match(text, end):
            continue                         # "答案：A.A,B,C" after "A.A,B,C\nB.A,B,D…": its own options, rewritten
        if letters == ctx.valid and "/" in match.group(fragment_name):
            continue                         # "答案：A/B/C/D": the answer format, no choice
        if letters == ctx.valid and len(_LOOP_LETTER.findall(match.group(fragment_name))) >= 2 * len(ctx.valid):
            looped = True                    # "【答案】：【B】【D】【C】【A】【D】【B】…": every letter in a loop, no choice
            continue
        head_end = match.start(fragment_name)
        said = _DECLARED_POLARITY.search(text, max(0, head_end - 12), head_end)   # the head's polarity
        if ("colon_list" in match.re.groupindex and match.group("colon_list") is not None
                and letters == {min(ctx.valid)} and re.match(r"\s*[:：]", text[end:end + 3])
                and not (said
                         and not re.search(r"下列|以下|哪", text[max(0, start - 16):start])
                         and plain_text(text[max(0, start - 8):start]) not in ctx.stem)):
            continue                         # "…下列说法正确的是:A:…": the options copied, from the first
            # (not "错误的说法是：A:…" stated by the model itself)
        if option_list and _opens_list(text, end) and not _ends_with_own_text(text, end, letters, ctx):
            letters = _declared_part(text, end, letters, ctx) if strong else None
            if letters is None:
                continue                     # "[正确答案]A:三个月;B:五个月…": a copied option list
        if (not strong and ctx.stem_tail and letters == {min(ctx.valid)} and re.match(r"\s*[:：]", text[end:end + 3])
                and plain_text(text[max(0, start - 24):end - 1]).endswith(ctx.stem_tail)):
            continue                         # "…哪些事项应予继承，说法正确的有A:…": the question restated, its options copied
        line_start = newlines[bisect.bisect_left(newlines, start) - 1] + 1 if newlines and newlines[0] < start else 0
        label = _line_label_before(text, line_start, start)
        if label:
            own_letter = re.search(r"[A-Z]", text[line_start:label.end()])
            tag_end = text.find("\n", start, head_end)
            if (strong and own_letter and own_letter.group(0) in ctx.valid and tag_end >= 0
                    and _tags_its_line(text, label.end(), start, head_end)):
                letters = frozenset(own_letter.group(0))   # "A.裁定再审 【正确答案】\nB.…": a tag on A's line
            if strong or (own_letter and letters == {own_letter.group(0)} and text.endswith("正确", 0, start)):
                # "A. 正确答案：B": a declaration inside an option's line; "A: 正确的是A。": its own letter called right
                in_label_lines.append((text[line_start:label.end()].strip(), letters))
                line_end = tag_end if tag_end >= 0 else text.find("\n", end)
                called_wrong.append(bool(_CALLED_WRONG.search(text, min(end, line_end) if line_end >= 0 else end,
                                                              line_end if line_end >= 0 else len(text)))
                                    or bool(_HEDGED_SLOT.search(text, max(label.end(), start - 6), start))
                                    or bool(_HEDGED_AFTER.match(text, end)))
            continue
        if not strong and not option_list and _NOT_AFTER.match(text, end):
            continue
        if not strong and _HEDGE_BEFORE.search(text, max(0, start - 4), start):
            continue                         # "可能是A也可能是B", "是否为B": a hedge
        if strong and text[start:start + 1].isascii() and (
                _ENGLISH_HEDGE.search(text, _CLAUSE_START.search(text, max(0, start - 80), start).end(), start)
                or _ENGLISH_CONDITION.match(text, end)):
            continue                         # "If the correct answer is option D, …", "… is D only if …"
        last_open = bisect.bisect_left(opens, start) - 1
        if (last_open >= 0 and opens[last_open] >= line_start
                and bisect.bisect_left(closes, start) == bisect.bisect_left(closes, opens[last_open])
                and _HYPOTHETICAL.search(text, max(line_start, opens[last_open] - 12), opens[last_open])):
            continue                         # inside a supposed quotation: "如回答错误，请回答“…正确答案为：A”"
        found.append(letters)
        final = bool(_FINAL.search(text, max(0, start - 6), start + 6))   # "最终答案是B", "Final answer: D"
        after_copy.append(len(_labels(text[previous:start])) >= 2)
        polarity.append(None if said is None else said.group("neg") is None)
        numbered += bool(_NUMBERED_LINE.match(text, line_start, start))
        previous = end
    if found and _WRONG_LABEL.search(text):
        called_wrong = {m.group("letter") for m in _WRONG_LABEL.finditer(text)}
        called_right = {m.group("letter") for m in _RIGHT_LABEL.finditer(text)}
        if called_wrong & called_right:
            return _NO_ANSWER                # "正确答案: A: …\n错误说法: A: …": the same option called both
    if in_label_lines and not found:
        own = [re.search(r"[A-Z]", line_label) for line_label, _ in in_label_lines]
        if len(in_label_lines) >= 2 and all(letter and letters == {letter.group(0)}
                                            for letter, (_, letters) in zip(own, in_label_lines)):
            # each option's line declares that option: all of them ("A: 正确答案是A。\nC: 正确答案是C。"),
            # but not one whose line then calls it wrong ("B: 正确答案是B。…因此B是错误的答案。")
            kept = [letters for (_, letters), wrong in zip(in_label_lines, called_wrong) if not wrong]
            return frozenset().union(*kept) if kept else _NO_ANSWER
        if len({_NUMBERED_LINE.sub("", line_label) for line_label, _ in in_label_lines}) == 1:
            if len({letters for _, letters in in_label_lines}) >= 3:
                return _NO_ANSWER            # "1. A. 正确答案：B\n2. A. 正确答案：C\n3. A. 正确答案：D…": a key
            return in_label_lines[-1][1]     # "A: The correct answer is B" on every line: a prefix
        if len({letters for _, letters in in_label_lines}) == 1:
            return in_label_lines[-1][1]
        return None                          # "A. 正确答案：B\nB. 正确答案：C…": a mapping, no declaration
    if not found:
        return _NO_ANSWER if looped else None
    if (undecided := _UNDECIDED.search(text, previous)) and not _DECLARATION.search(text, undecided.end()):
        return _NO_ANSWER                    # "正确答案: A … 正确答案: 无法判断": the last declaration takes it back
    keep = [said is None or said != ctx.negated_ask for said in polarity]
    if any(keep) and not all(keep):          # "错误的说法是：A … 正确的说法是：B": the one asked for;
        found = [letters for letters, kept in zip(found, keep) if kept]      # "答案：A\n错误的说法是：B、C、D": A
        after_copy = [copied for copied, kept in zip(after_copy, keep) if kept]
    if len(found) >= 2 and all(after_copy) and len(set(found)) >= 2:
        return _NO_ANSWER                    # each copy of the options with another answer: no answer
    if (all(len(f) == 1 for f in found) and len(set(found)) >= 3
            and len(found) > 2 * len(ctx.valid) and numbered * 2 > len(found)):
        return _NO_ANSWER                    # "1. 答案：A 2. 答案：B … 80. 答案：…": an answer key
    if (sum(1 for before, after in zip(found, found[1:]) if before != after) >= 3 and len(set(found)) < 3
            and not final):
        return _NO_ANSWER                    # "The correct answer is B. … is B. … is D. … is B. … is D": a loop
    return _combine(found, declared=True)    # a template filled for every option, or the last one


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
_LOOP_LETTER = re.compile(r"[A-Z]")
_COMBINATION = re.compile(r"[.．:：、][A-Z](?:[,，、][A-Z])+(?=[ \t]*(?:\n|$|[。；;]))")
_HYPOTHETICAL = re.compile(r"如(?!下)|若|例如|比如")
_FINAL = re.compile(r"(?:最终答案|(?i:(?:the\s+)?final\s+answer))")
_DOTTED_LETTERS = re.compile(r"[A-Z]+(?:[ \t]*[.．][ \t]*[A-Z]+){2,}[.．]?")     # ("A.B.C.D.", "A.AB.BC.CD.D")
# After a leading label: English prose, five words or more ("A: The court should…"), which names no answer
# unless it says so ("A. Theft" may be the option translated).
_ENGLISH_AFTER_LABEL = re.compile(r"[ \t]*[:：.．)）、]?[ \t]*[A-Za-z]{2,}(?:[ \t,.'’\"“”()-]+[A-Za-z0-9]+){4}")
_ENGLISH_ANSWER_WORD = re.compile(r"(?i)\b(?:correct|right|answer|choose|choice|true)\b")
_CJK = re.compile(r"[\u3400-\u9fff]")
# A declaration that no option can be chosen ("正确答案: 无法判断", "答案：无法确定").
_UNDECIDED = re.compile(r"(?:正确答案|最终答案|答案)[ \t]*(?:是|为)?[ \t]*[:：]?[ \t]*(?:无法判断|无法确定|无法选择|不能确定|不确定)")
_ITEM_END = re.compile(r"[;；\n]")
_NEWLINE = re.compile(r"\n")
_NUMBERED_LINE = re.compile(r"[ \t]*\d{1,3}[.、)]")
_LONE_LETTER = re.compile(r"(?m)^[ \t]*([A-Z])[ \t]*$")
_SPACED_LABEL = re.compile(r"(?m)^[ \t]*([A-Z]) (?=[\u3400-\u9fff])")
# A line that asks a question and is followed by an option list: a question the model poses.
# A question line (ending in a question mark, an exam blank "（ ）" or a colon: "…的是:"), then its first option label on
# the same or a following line ("A:", "A.", "(A) ", "（A）", "A) ").
_NEW_QUESTION = re.compile(r"(?m)^[^\n]{4,200}(?:[?？]|[（(][ \t\u3000]*[)）]|[\u3400-\u9fff][ \t]*[:：])[ \t]*(?:\n(?:[ \t]*\n)*[ \t]*)?"
                           r"(?=[(（\[【][A-Z][)）\]】]|[A-Z][)）]|[A-Z][ \t]*[:：.．、])")
_SENTENCE_ENDS = ("。", ".", "!", "！", "?", "？", "\n")
_EDGES = " \t\r\n:：。,，、【】[]()（）〖〗#*"
_LINE_LABEL = re.compile(r"[ \t]*(?:\d{1,2}[.、)] ?)?[(（\[【]?[A-Z][)）\]】]? ?[:：.．、)）]")
_EMPTY_LABEL = re.compile(r"\s*(?:\d{1,2}[.、)] ?)?[(（\[【]?[A-Z][)）\]】]?\s*[:：.．、]\s*")


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
    stop = _DECLARATION.search(text, end)
    line_end = text.find("\n", end)
    stop_at = min(stop.start() if stop else len(text), line_end if line_end >= 0 else len(text))
    explained = _PART_END.search(text, end, stop_at)
    part = text[end:explained.start() if explained else stop_at]
    if _PART_WRONG.search(part):
        return None                          # "答案：B:乙，错误；C:丙，错误…": judged, not chosen
    labels = [(_label_letter(m), m.end()) for m in _LABEL.finditer(part)]
    labels += [(m.group("letter"), m.end()) for m in _INLINE_LABEL.finditer(part)]
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
            return bool(stop) and bool(_LABEL.match(text, re.compile(r"\s*").match(text, stop.end()).end()))
        return False
    if _INLINE_LABEL.match(text, colon.end()):
        return True                          # "答案：【A】：【B】：…"
    line_end = text.find("\n", end, end + 400)
    if (line_end >= 0 and _LABEL.match(text, re.compile(r"\s*").match(text, line_end).end())
            and not _INLINE_LABEL.search(text, colon.end(), line_end)):
        return True                          # "答案：A:<text；text>;\nB:…": the next line opens the next item
    stop = _ITEM_END.search(text, end, end + 400)
    if stop is not None and not _INLINE_LABEL.search(text, colon.end(), stop.start()):
        # (an inline label before the item ends: "C:行政拘留。根据…的是:A:警告;B:…" — another list)
        after = re.compile(r"\s*").match(text, stop.end()).end()
        if _LABEL.match(text, after) or _INLINE_LABEL.match(text, after):
            return True
    sentence = re.compile(r"。").search(text, end, end + 400)
    if sentence is not None:                 # "【答案】：【A】：“十恶”…。【B】：…"
        after = re.compile(r"\s*").match(text, sentence.end()).end()
        if _LABEL.match(text, after) or _INLINE_LABEL.match(text, after):
            return True
        # "答案：【A】:<sentence>。<sentence>。…【B】:…": the first item, of several sentences on the line, then
        # the next letter's (not "正确答案：B：公罪。<why>。C：公室告是指…": an answer explained, then another discussed)
        following = _INLINE_LABEL.search(text, colon.end(), colon.end() + 400)
        letter = re.search(r"[A-Z](?=[^A-Z]*$)", text[max(0, end - 3):end])
        return bool(following and letter and letter.group(0) == "A" and following.group("letter") == "B"
                    and text[following.start() - 1:following.start()] in "。；;"
                    and "\n" not in text[colon.end():following.start()])
    # the item runs to the end: a copy cut off by the length limit, unless it ends a sentence
    return stop is None and len(text) - end < 400 and not text.rstrip().endswith(("。", ".", "!", "！", "?", "？"))


_DECLARED_TEXT = re.compile(r"(?:最终答案|正确答案|参考答案|答案|正确选项|解决方案)[ \t]*(?:应该是|应为|是|为)?[ \t]*[:：]?[ \t]*"
                            r"(?P<content>[^\n。；;]{2,80})")


def _declared_text(text: str, ctx: Context) -> Optional[frozenset[str]]:
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
        if not named and (concluded := ctx.keys_by_conclusion.get(content)):
            return concluded
    return None


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
            and not _LABEL.match(lines[1]) and not _SPACED_LABEL.match(lines[1])
            and not compared_text(lines[1]).startswith(ctx.targets.get(alone.group(1), "\0")[:6])
            and not _listed_after(lines[1:], alone.group(1), ctx)):
        # "A\n<discussion>…": a letter alone on the first line (not "A\n<A's text>;\n<B's text>…", a label
        # on a line of its own above a copied list)
        return frozenset({alone.group(1)})
    label = _LABEL.match(lines[0])
    letter = _label_letter(label) if label else None
    if label is None:
        label = re.match(r"[ \t]*(?P<letter>[A-Z]) (?=[\u3400-\u9fff])", lines[0])
        letter = label.group("letter") if label else None
    if not label or _LABEL.match(lines[1]) or _SPACED_LABEL.match(lines[1]) or len(_labels(lines[0])) > 1:
        return None
    target = ctx.targets.get(letter)
    if letter in ctx.valid and target and compared_text(lines[0][label.end():]).startswith(target):
        rest = text[text.find(lines[0]) + len(lines[0]):]
        if len(_labels(rest) - {letter}) >= 2 and not (ctx.stem_tail and ctx.stem_tail in plain_text(rest)):
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


# A concluding sentence that calls an option right or wrong at some distance ("综上所述，选项A是关于
# 联合国安理会的正确表述", "因此，选项B是错误的说法").
_CONCLUDED = re.compile(
    r"(?:综上所述|综上|因此|所以|故)[^。！？!?\n]{0,20}?选项 ?(?P<letter>[A-Z])(?![A-Za-z、,，和及与])"
    r"(?:(?P<said> ?(?:是|为)[^。！？!?\n]{0,40}?(?:(?P<pos>正确|符合(?:法律)?(?:规定|题意|要求))|(?P<neg>错误|不正确|不符合)))"
    r"|(?P<rest>[^。！？!?\n]*))"
)
_DENIAL = re.compile(r"错误|不正确|不符合|不对|不是|不能|不属于|不应")


# What a stem asks about, after its question word ("下列哪种情形属于教唆犯?" → "属于教唆犯").
_ASKED = re.compile(r"(?:哪一项|哪一选项|哪些选项|哪种情形|哪些情形|哪一条|哪些|哪项|哪种|哪个|哪一个)(?P<asked>[\u3400-\u9fff]{2,16})$")
# An interrogative standing where the answer goes ("…应当报哪个机关批准?"): a blank, when no "（ ）" is.
_ASKED_BLANK = re.compile(r"(?<!下列)(?<!以下)(?:哪一?个|哪一|哪种|何种)(?:机关|部门|法院|机构|单位|主体)?(?=[\u3400-\u9fff]{2,24}[?？]?[ \t]*$)")
# … or before 的是/的有 closing the stem ("下列证据中属于直接证据的是" → "属于直接证据").
_ASKED_LAST = re.compile(r"(?:下列|以下)(?:[\u3400-\u9fff]{0,8}?中)?(?P<asked>[\u3400-\u9fff]{2,16}?)的(?:是|有)$")
# "A选项：<text>，符合题意。": a letter and 选项 as an option's label at a line start.
_WORD_LABEL = re.compile(r"(?m)^[ \t]*(?:(?P<letter>[A-Z]) ?选项|选项 ?(?P<after>[A-Z])) ?[:：]")   # ("选项A：…" too)
# A header that asserts a verdict on the options listed under it, each on its own line:
# "因此，下列说法是错误的：\nB: …" (an assertion, "…是错误的："; "下列说法错误的是：" is the question's form).
_VERDICT_HEADER = re.compile(r"(?m)^[^\n]{0,30}?(?:说法|表述|选项|观点|做法)(?:是|为)(?:(?P<pos>正确|符合(?:相关)?规定)|(?P<neg>错误|不正确|不符合(?:相关)?规定))的[ \t]*[:：][ \t]*$")
_SENTENCE_END = re.compile(r"[。\n;；]")
_LAST_CLAUSE = re.compile(r"[，,]")
# Before a per-option line's last clause: a supposition, or a claim named (``…，假如没有法律授权，不属于…``,
# ``…不属于…的说法，…``): the last clause is then not the line's verdict on its option.
_SUPPOSED = re.compile(r"假如|如果|假设|若|说法|表述|观点")
# A line that opens with a verdict on the option line above it ("正确答案: 正确。…", "错误。").
_NEXT_VERDICT = re.compile(r"[ \t]*(?:(?:正确答案|答案|判断|结论)[ \t]*[:：][ \t]*)?(?P<verdict>[^。；;\n]{1,16})(?:[。；;\n]|$)")
# A sentence that asks instead of stating ("…属于教唆犯？", "…是错误的吗").
_ASKED_BACK = re.compile(r"[?？]|吗|呢")
# A header that asks or sets the task ("请问以下哪个说法是错误的：", "我们需要判断…") asserts nothing.
_ASKING = re.compile(r"哪|吗|请问|判断|需要|是否")


# A sentence that opens with a verdict (a quick check before the unlabelled form is looked for).
_VERDICT_SENTENCE = re.compile(r"[。；;\n][ \t]*(?:的说法|说法|的表述|表述)?(?:都|均|也)?是?(?:正确|对|错|不正确|符合|不符合)")


@functools.lru_cache(maxsize=1024)
def _predicate(stem: str) -> str:
    """What the question asks about after its question word, without 是…的 ("下列哪种情形属于教唆犯"
    → "属于教唆犯", "哪一条是违法的" → "违法"); ``""`` when it has none (:data:`_ASKED`)."""
    asked = _ASKED.search(stem) or _ASKED_LAST.search(stem)
    return asked.group("asked").removeprefix("是").removesuffix("的") if asked else ""


@functools.lru_cache(maxsize=1024)
def _bare_predicate(stem: str) -> str:
    """:func:`_predicate` without a leading noun ("行为不属于行政许可" → "不属于行政许可"): the
    predicate as a verdict said on its own ("A:不违反…", "只有D不属于行政许可")."""
    return _ASKED_NOUN.sub("", _predicate(stem))


def _text_verdicts(text: str, ctx: Context) -> dict[str, set[bool]]:
    """Per-option sentences that state an option's own text and then a verdict on it: "A:<text>是
    错误的。" (True = right, as the other verdicts), or the question's own predicate ("A:<text>属于
    教唆犯。" for "下列哪种情形属于教唆犯?": the option answers the question as asked)."""
    predicate = _predicate(ctx.stem)
    asked = _bare_predicate(ctx.stem)        # the predicate alone as a verdict

    def predicate_match(rest: str) -> bool:
        return bool(predicate) and rest.removeprefix("是").removesuffix("的") == predicate

    found: dict[str, set[bool]] = {}
    below: dict[str, set[bool]] = {}         # options judged on the line after their own
    for label in (*_LABEL.finditer(text), *_WORD_LABEL.finditer(text)):
        letter = _label_letter(label) if label.re is _LABEL else label.group("letter") or label.group("after")
        target = ctx.targets.get(letter)
        if not target or letter not in ctx.valid:
            continue
        window = label.end() + 2 * len(target) + 40          # the text and a verdict fit in it (linear)
        end = _SENTENCE_END.search(text, label.end(), window)
        if end is None and window < len(text):
            continue
        sentence = text[label.end():end.start() if end else len(text)]
        if _ASKED_BACK.search(sentence):
            continue                         # "A:<text>属于教唆犯？": asked, not stated
        stated = plain_text(sentence)
        if len(asked) >= 4 and stated == asked:
            found.setdefault(letter, set()).add(not ctx.negative_question)   # "A:不违反上诉不加刑原则。"
            continue
        if not stated.startswith(target):
            continue
        rest = stated[len(target):]
        into = found
        if not rest and end is not None and text[end.start()] == "\n":
            # the option's own line; its verdict opens the next ("A: <text>\n正确答案: 正确。")
            verdict = _NEXT_VERDICT.match(text, end.end())
            rest = plain_text(verdict.group("verdict")) if verdict and not _ASKED_BACK.search(verdict.group(0)) else ""
            if (predicate and len(rest) >= 3 and predicate.endswith(rest)
                    and not HEAD_NEGATIVE.search(predicate[:len(predicate) - len(rest)])):
                rest = predicate                 # "人不应当回避" asked, "不应当回避" said (not "应当回避")
            into = below
        if not rest:
            continue
        judged = TEXT_VERDICT.fullmatch(rest)
        if not judged and into is found and not predicate_match(rest):
            # "A: <text>，这是…的职权调整，不属于…的调整范围。": the sentence's last clause is the predicate
            last = plain_text(_LAST_CLAUSE.split(sentence)[-1])
            if (last and len(last) < len(rest) and rest.endswith(last) and predicate_match(last)
                    and not _SUPPOSED.search(rest)):
                rest = last
        if judged:
            into.setdefault(letter, set()).add(judged.group("pos") is not None)
        elif predicate_match(rest):
            into.setdefault(letter, set()).add(not ctx.negative_question)
    if len(below) >= 2:                      # (one bare "正确。" after a copied list judges nothing)
        for letter, values in below.items():
            found.setdefault(letter, set()).update(values)
    if not found and _VERDICT_SENTENCE.search(text):   # no labels: "<A's text>。正确。\n<B's text>。正确。…"
        by_text = ctx.keys_by_target
        shortest = min(map(len, by_text), default=0)
        pieces = _SENTENCE_END.split(text)
        for sentence, after in zip(pieces, pieces[1:]):
            if len(sentence) < shortest or len(after) > 16:
                continue                     # (cheap length checks before the text is normalised)
            keys = by_text.get(plain_text(sentence))
            after = plain_text(after)
            judged = TEXT_VERDICT.fullmatch(after) if keys and len(after) <= 12 else None
            for key in keys if judged else ():
                found.setdefault(key, set()).add(judged.group("pos") is not None)
    return found


def _header_verdicts(text: str, ctx: Context) -> dict[str, bool]:
    """Verdicts from :data:`_VERDICT_HEADER` lines on the option lines under them, up to the next
    header (lines explaining an option may come between the option lines: "下列表述是不正确的：\n
    A: …\n<why>\nB: …"). The first line under a header must be an option line. A header that
    restates the question is none (its text is part of the stem)."""
    found: dict[str, bool] = {}
    headers = [h for h in _VERDICT_HEADER.finditer(text)
               if not _ASKING.search(h.group(0)) and plain_text(h.group(0)).replace("是", "") not in ctx.stem.replace("是", "")]
    for number, header in enumerate(headers):
        block = text[header.end():headers[number + 1].start() if number + 1 < len(headers) else len(text)]
        lines = [line for line in block.split("\n") if line.strip()]
        if not lines or not _LABEL.match(lines[0]):
            continue
        if all(_LABEL.match(line) for line in lines) and len({_label_letter(_LABEL.match(line)) for line in lines}) == len(ctx.valid):
            continue                         # the whole option list under it and nothing else: a copy
        for line in lines:
            label = _LABEL.match(line)
            if label is not None and _label_letter(label) in ctx.valid:
                found[_label_letter(label)] = header.group("pos") is not None
    return found


def _verdicts(text: str, ctx: Context, text_verdicts: dict[str, set[bool]]) -> Optional[frozenset[str]]:
    """The options the turn's verdicts choose (rule d; ``text_verdicts``: :func:`_text_verdicts` of
    ``text``, computed once by the caller, which also uses it)."""
    verdict: dict[str, bool] = {}
    for match in _CONCLUDED.finditer(text):
        if match.group("letter") not in ctx.valid:
            continue
        if match.group("said") is not None:
            verdict[match.group("letter")] = match.group("pos") is not None
        elif not _DENIAL.search(match.group("rest")):
            verdict[match.group("letter")] = not ctx.negative_question   # "因此，选项D李某有权…"
    predicate = _predicate(ctx.stem)
    for listed in _LIST_RE.finditer(text):
        match = _VERDICT_TAIL.match(text, listed.end())
        if match is None:
            said = (_SAID.match(text, listed.end()) or _SAID_BARE.match(text, listed.end())) if predicate else None
            if (len(predicate) >= 2 and said and said.group("said") in (predicate, _bare_predicate(ctx.stem))
                    and (text.endswith("只有", 0, listed.start())
                         or (not text[:listed.start()].strip() and not text[said.end():].strip(" \t\n。.")))
                    and not re.search(r"如果|假如|假设|若|并非|不是|不", text[max(0, listed.start() - 6):listed.start() - 2])):
                for letter in _letters(listed.group(0), ctx.valid):     # "只有B是违法的" (…哪一条是违法的?), or
                    # the whole answer: "A属于直接证据。" (…属于直接证据的是?)
                    verdict[letter] = not ctx.negative_question
            elif (text.endswith("只有", 0, listed.start())
                  and _letters(listed.group(0), ctx.valid) != ctx.valid       # (not "只有A、B、C、D中的一个…")
                  and (said := _SAID.match(text, listed.end()) or _ONLY_SAID.match(text, listed.end()))
                  and not _VERDICT_WORD.search(said.group("said"))
                  and (_shares_words(plain_text(said.group("said")), ctx.stem) or not _CONDEMNED.search(said.group("said")))
                  and not _only_hedged(text, listed.start() - 2)
                  and not _ONLY_WITHDRAWN.match(text, said.end())):
                for letter in _letters(listed.group(0), ctx.valid):     # "只有C是符合…承保条件" (…不属于…的是):
                    verdict[letter] = not ctx.negative_question         # the one option singled out
            continue
        start = listed.start()
        if text[max(0, start - 1):start] in ("不", "非") or text.endswith(("除了", "除"), 0, start):
            continue                         # "除了A都对": A is the one not judged right
        if match.end() == len(text) and re.search(r"[:：]", match.group(0)):
            continue                         # "…\nB:对" cut off by the length limit: a label, no verdict
        for letter in _letters(listed.group(0), ctx.valid):
            verdict[letter] = match.group("pos") is not None
    line_verdicts: dict[str, set[bool]] = {letter: set(values) for letter, values in text_verdicts.items()}
    for match in (*_ENGLISH_VERDICT.finditer(text), *_ENGLISH_BARE_VERDICT.finditer(text),
                  *_ENGLISH_RULE_VERDICT.finditer(text)):
        if match.re is _ENGLISH_RULE_VERDICT and (re.search(r"符合|违反|违法|合法", ctx.texts.get(match.group("letter"), ""))
                                                  or _ENGLISH_CLAIMED.search(match.group(0))):
            continue                         # "A: The judgment is consistent with the legal provisions…": option A
            # translated; "A: Whether … is in accordance … depends", "A: Zhang claims … but this is wrong"
        if match.group("letter") in ctx.valid and not _ENGLISH_NO_VERDICT.search(match.group("rest")):
            line_verdicts.setdefault(match.group("letter"), set()).add(match.group("pos") is not None)
    line_matches = list(_LINE_VERDICT.finditer(text))
    # "A. <text> 正确答案\nB. <text> 错误答案": marks of the answer, not of the statement's truth — the
    # options marked 正确答案 are chosen whatever the question asks (only when every line is so marked)
    answer_marks = bool(line_matches) and all(match.group("pos") == "正确答案" or match.group("neg") == "错误答案"
                                              for match in line_matches) and not _MAPPED.search(text)
    for match in line_matches:
        if _ANSWER_MARK.search(match.group("text")):
            continue                         # "A. <text> 正确答案 1. 正确答案 2. 错误答案 …": marks looping, no verdict
        letter = match.group("letter")
        if match.group("number"):           # "1. <option A's text> 正确答案": numbered options
            letter = chr(ord("A") + int(match.group("number")) - 1)
            target = ctx.targets.get(letter, "\0")
            if target[-6:] not in plain_text(match.group("text")):
                continue
        if letter in ctx.valid:
            positive = match.group("pos") is not None
            if answer_marks:                 # (stored with the polarity the choice below turns into "chosen")
                positive = positive != ctx.negative_question
            line_verdicts.setdefault(letter, set()).add(positive)
    if all(len(values) == 1 for values in line_verdicts.values()):
        verdict.update({letter: values.pop() for letter, values in line_verdicts.items()})
    # (one option called both right and wrong in the lines: contradictory blocks, no verdict)
    chosen = frozenset(letter for letter, positive in verdict.items()
                       if positive != ctx.negative_question and letter in ctx.valid)
    if not chosen:                           # a verdict naming an option outranks a header over a list
        chosen = frozenset(letter for letter, positive in _header_verdicts(text, ctx).items()
                           if positive != ctx.negative_question)
    return chosen or None


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


def _read_turn(text: str, ctx: Context) -> Optional[frozenset[str]]:
    if not text.strip():
        return None
    if "." in text or ":" in text or "：" in text:
        text = _SELF_MAPPING.sub("", text)   # "A.A B.B C.C D.D": every letter mapped to itself, no choice
        if not text.strip():
            return None
    labels = _labels(text)
    # Lines that open with a list of three or more letters ("A,B,C,D", "A、B、C、D （B）"): the same
    # list opening three lines, or lists that run past the options ("A,B,C,D,E", "…,F"), are the
    # prompt's letter list echoed or the alphabet recited, not an answer.
    opened: Counter = Counter()
    beyond = 0
    for line in text.splitlines():
        if len(line) > 80 or not ("A" <= line.lstrip(" \t([（【")[:1] <= "Z"):
            continue                         # (only lines that open with a letter: fast)
        line = strip_edges(line)
        if _DOTTED_LETTERS.fullmatch(line):
            opened[line] += 1                # "A.B.C.D." (letters only, each with a dot): the letter list
            continue
        listed = _LIST_RE.match(line)
        if (listed and len(_letters(listed.group(0), ctx.valid)) >= 3
                and re.match(r"\s|$|[(（]", line[listed.end():])):     # (not "A,B,C,D四个选项中，只有A…")
            named = re.findall(r"[A-Z]", listed.group(0))
            opened["".join(named[:len(ctx.valid)])] += 1      # ("A、B、C、D （B）": its first letters)
            beyond += bool(set(named) - ctx.valid)
    echoed = any(count >= 2 for count in opened.values()) or beyond >= 2
    if echoed and not _DECLARATION.search(text):   # (searched once: linear)
        return None                          # "A,B,C,D" again and again: the prompt's letter list echoed
    lone = set(_LONE_LETTER.findall(text))
    if len(lone) >= 2:
        labels |= lone                       # "A \n<text>\nB \n<text>": letters on lines of their own
    spaced = set(_SPACED_LABEL.findall(text))
    if len(spaced) >= 2:
        labels |= spaced                     # "A 遗赠…\nB 遗赠…": letters and a space opening lines
    plain = plain_text(text)
    present = [target for target in set(ctx.targets.values()) if len(target) >= 2 and target in plain]
    # (a text inside another present one is not a copy of its own: "优先购买权" in "同等条件下的优先购买权")
    copied = sum(1 for target in present if not any(target != other and target in other for other in present))
    option_list = len(labels) >= 2 or copied >= 3       # labels, or the options' texts copied
    declared = _declared(text, ctx, option_list)
    if declared is not None:
        return declared or None              # (empty: declarations that are garbage, no answer)
    declared = _declared_text(text, ctx)
    if declared:
        return declared
    answer = strip_edges(text)
    whole = _LIST_RE.fullmatch(answer) or _LOWER_LIST_RE.fullmatch(answer)
    if whole and (letters := _letters(whole.group(0), ctx.valid)):
        if letters == ctx.valid and len(_LOOP_LETTER.findall(whole.group(0).upper())) >= 2 * len(ctx.valid):
            return None                      # "A,B,C,D,A,B,C,D,…": the letters recited in a loop, no choice
        return letters
    first_line = _first_line_answer(text, ctx)
    if first_line:
        return first_line
    text_verdicts = _text_verdicts(text, ctx)
    chosen = _verdicts(text, ctx, text_verdicts)
    if chosen:
        return chosen
    if not option_list:
        judged = set(text_verdicts)          # an option followed by a verdict was judged, not chosen
        lead = _LEADING.match(answer) or _LOWER_LEADING.match(answer)
        rest = answer[lead.end():].split("\n", 1)[0] if lead else ""
        if lead and rest.strip() and not re.search(r"[A-Za-z\u3400-\u9fff]", rest):
            lead = None                      # "A. 1. 2. 3. …": a label followed by numbering
        if lead and (re.match(r"[.．][a-z]", rest) or _ENGLISH_VERDICT.match(answer)):
            lead = None                      # "A.png", "A is incorrect. …": a file name, an English verdict line
        if (lead and _ENGLISH_AFTER_LABEL.match(rest) and not _ENGLISH_ANSWER_WORD.search(rest)
                and any(_CJK.search(value) for value in ctx.texts.values())):
            lead = None                      # "A: The 1980 United Nations Convention…" to a Chinese question: "A:"
            # opens English prose (an "Answer:"), not option A's text
        if lead and (tail := _VERDICT_TAIL.match(answer, lead.end())) and tail.group("neg") is not None:
            lead = None                      # "A、B、C、D 都不成立。": letters judged wrong (rule d), not chosen
        if (lead and (letters := _letters(lead.group("list"), ctx.valid)) and not letters & judged
                and not _asked_about(answer, lead.end(), "".join(ctx.texts.get(letter, "") for letter in letters))):
            return letters
        inline = [m for m in _INLINE_LABEL.finditer(text) if m.group("letter") in ctx.valid]
        if len({m.group("letter") for m in inline}) == 1 and len(labels) == 1:
            label = inline[0]
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
            if (not target or stated.startswith(target[:8])) and not prose and not negated and not cut_copy\
                    and letter not in judged and not _asked_about(text, label.end(), ctx.texts.get(letter, "")):
                return frozenset({letter})     # "…情形的?D:案件事实基本查清…": a label with its option text
    lines = text.splitlines()
    if option_list and (repeated := _repeated_item(lines, ctx)):
        return repeated
    for number in range(len(lines) - 1, -1, -1):
        line = lines[number]
        if option_list and line.strip() and not _LIST_RE.fullmatch(strip_edges(line)):
            break                            # after a copied option list only its last line may answer
        if len(line) > 40 or _EMPTY_LABEL.fullmatch(line):
            continue                         # "B:" with its text cut off is a label, not an answer
        bare = _LIST_RE.fullmatch(strip_edges(line))
        if bare and (letters := _letters(bare.group(0), ctx.valid)):
            if option_list and number == len(lines) - 1 and _next_label(lines[:number], ctx.valid) in letters:
                break                        # "…\nB:…\nC", "A \nB \nC \nD \nA": the next label of a copied list, cut off
            if option_list and number == len(lines) - 1 and len(text) >= 1000 and len(letters) == 1:
                break                        # "…\nC" ending a long output: a word cut off ("C corporation")
            return letters
    last = max(_LABEL.finditer(text), key=lambda m: m.end(), default=None) if option_list else None
    return read_option_text(text, ctx, (last.end(), _label_letter(last)) if last else None, labelled=len(labels) >= 2)


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
    inline = [m.group("letter") for m in _INLINE_LABEL.finditer(previous)]
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
_NOT_RESTATED = re.compile(r"如果|假如|假设|若|观点|有人|认为|容易|错选|误选|干扰|很多人|会选|可能|或许|也许|第\s*\d+\s*题|下一?题"
                           r"|^\s*\d+\s*[.、)]|下列|以下|哪|[?？]")
# A polarity said in that line ("其中错误的是A", "正确的说法是B").
_DECLARED_POLARITY_IN = re.compile(r"(?P<neg>错误|不正确|不对)(?:的)?(?:说法|表述|选项|答案)?(?:的)?(?:是|为|有)|(?<![不错])正确(?:的)?(?:说法|表述)?(?:的)?(?:是|为|有)")


def _redeclared(turn: str, ctx: Context) -> Optional[frozenset[str]]:
    """The letters declared on the first line after an answer's last end marker ("[正确答案]B<eoa>\n\n其中错误
    的是A。", "…<eoa> 推进…的基本原则是[B]坚持…"), when that line is no question, instruction or option list,
    else ``None``: the answer stated last (rule a: the last declaration wins; :func:`read_choices` takes one
    letter so, and only from the last turn: a slot in every turn is a template, :func:`_combine`)."""
    part = next((line for line in turn.splitlines() if line.strip()), "")
    labels = _labels(part)
    if not part or QUESTION_MARKER.search(part) or len(labels) >= 2 or _NOT_RESTATED.search(part):
        return None
    said = _DECLARED_POLARITY_IN.search(part)
    if said and (said.group("neg") is not None) != ctx.negated_ask:
        return None                          # "其中错误的是A" after the answer to a "which is right" question
    declared = _declared(part, ctx, False) or None
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
            if line and _DECLARATION.search(turn, 0, match.start()):
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
    if "〖" in marker.group(0) or re.search(r"角色|任务|输入|约束|请从", marker.group(0)):
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
            label = _LABEL.match(line)
            if label:
                inline = [m.group("letter") for m in _INLINE_LABEL.finditer(line)]
                if len(set(inline)) < 2:     # ("A. <text>;B. <text>;…;D. <text>": labelled with dots)
                    inline = [_label_letter(m) for m in _LABEL.finditer(line)]
                if len(set(inline)) >= 2 and inline[-1] == max(valid):
                    return min(valid)
                letter = _label_letter(label)
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
    at least twice as many as the options: read whole, :func:`_declared` finds the key)."""
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
_NUMBERED_DECLARATION = re.compile(r"\s*\d{1,3}[.、)][ \t]*(?:正确答案|答案)")


def _combine(slots: list[frozenset[str]], declared: bool) -> frozenset[str]:
    """One answer from an answer turn and the bare answer turns after it.

    Three or more different single letters are a template filled for every option (all of them:
    ``[正确答案]A<eoa>[正确答案]B<eoa>[正确答案]C<eoa>``). Otherwise, when every turn declares its
    answer, the last declaration wins (a corrected answer: ``[正确答案]B<eoa>[正确答案]D<eoa>`` → D),
    as within one turn (:func:`_declared`); a letter added without a declaration
    (``[正确答案]C<eoa>\nD<eoa>``) is read as one more letter (CD: graders split on it; never
    credited as a single answer).
    """
    if all(len(slot) == 1 for slot in slots) and len(set(slots)) >= 3:
        return frozenset().union(*slots)
    return slots[-1] if declared else frozenset().union(*slots)


def _is_bare(text: str) -> bool:
    """A turn that holds nothing but a declaration and a letter list ("[正确答案]B", "D")."""
    stripped = re.sub(r"^\W*(?:正确答案|答案|最终答案)?\W*", "", text.strip())
    return bool(stripped) and bool(_LIST_RE.fullmatch(strip_edges(stripped)))


# --------------------------------------------------------------------------- public API


@dataclass(frozen=True)
class ChoiceReading:
    """What was read from one output.

    Attributes:
        letters: the sorted letters read (``"AC"``), or ``None`` when no answer was read.
        turn: index of the turn the answer came from (0 = before the first end marker), or ``None``.
    """

    letters: Optional[str]
    turn: Optional[int]


def read_choices(output: Optional[str], options: Mapping[str, str] | Iterable[str],
                 question: Optional[str] = None) -> ChoiceReading:
    """Read the option letters an output answers with (module docstring rules; SPEC §4.4).

    Args:
        output: raw model output (``None`` = missing answer).
        options: the question's options, ``{letter: text}`` or just the letters.
        question: the question stem, if known: a stem asking for the wrong statement
            (``…错误的是``) makes a verdict of "wrong" next to a letter the answer.

    Returns:
        A :class:`ChoiceReading`; never raises on model output.
    """
    texts = dict(options) if isinstance(options, Mapping) else {key: "" for key in options}
    valid = frozenset(texts)
    if not valid:
        return ChoiceReading(None, None)
    negative = bool(question) and bool(_NEGATIVE_QUESTION.search(asking_clause(question)))
    targets = {key: option_target(value) for key, value in texts.items() if value}
    folded = fold_traditional(LONE_SURROGATE.sub("\ufffd", question or ""))
    blank = BLANK.search(folded)
    asked_blank = None if blank else _ASKED_BLANK.search(folded)
    gap = blank or asked_blank
    ctx = Context(valid=valid, texts=texts, negative_question=negative,
                   targets={key: value for key, value in targets.items() if value},
                   stem=plain_text(folded),
                   blank=(plain_text(folded[:gap.start()])[-6:], plain_text(folded[gap.end():])[:6]) if gap else ("", ""),
                   blank_alone=asked_blank is not None,
                   negated_ask=negated_ask(folded))
    text = prepare(output)
    if not text.strip():
        return ChoiceReading(None, None)
    answer: Optional[frozenset[str]] = None
    slots: list[frozenset[str]] = []         # the answer, then each bare turn after it
    declared: list[bool] = []                # whether each of those turns declares ("[正确答案]D")
    first: Optional[int] = None
    started = False                          # some content was seen before this turn
    stopped = False                          # another exchange started: read no further
    pieces = _rejoin_list(turns(text), ctx)
    for index, turn in enumerate(pieces):
        if answer is not None:
            if not _is_bare(turn):
                if (index == len(pieces) - 1 and len(slots) == 1 and (later := _redeclared(turn, ctx))
                        and len(later) == 1 and later != answer):
                    answer, first = later, index     # "[正确答案]B<eoa>\n\n其中错误的是A。": the last declaration
                break
            more = _read_turn(turn, ctx)
            if more:
                says = bool(_DECLARATION.search(turn))
                if len(more) >= 3 and not says:
                    continue                 # "[正确答案]D<eoa>A,B,C,D<eoa>": the prompt's letters echoed
                slots.append(more)
                declared.append(says)
            continue
        # A new question or an echo of the instructions, anywhere but as the output's first words,
        # starts another exchange: what follows it is not this question's answer.
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
            # (once this question was restated before any answer, an answer follows each copy: rule a's
            # "another answer on each copy" reads them all)
            copied = copied or (not first and "请问" not in marker.group(0))
            position = marker.end()
            marker = QUESTION_MARKER.search(turn, marker.end())
        posed = None if copied else _posed_question(turn, ctx)
        if posed is not None and (marker is None or posed.start() < marker.start()):
            marker = posed
        if marker is not None:
            answer = _read_turn(turn[:marker.start()], ctx)
            first = index if answer else None
            if not answer and index == 1 and not pieces[0].rstrip().endswith(_SENTENCE_ENDS):
                # "正确答案：<eoa>A<eop>…请阅读以下文本并回答问题…": the marker inside the answer's sentence
                answer = _read_turn(pieces[0] + turn[:marker.start()], ctx)
                first = 0 if answer else None
            stopped = True
            break
        # "…?<eoa>:<option A's text>;<eoa>:<option B's text>…": an end marker where a label was
        read = None if index and turn.lstrip(" \t")[:1] in (":", "：") else _read_turn(turn, ctx)
        if read:
            answer, first = read, index
            slots.append(read)
            declared.append(True)
        started = started or bool(turn.strip())
    if len(slots) >= 2:
        answer = _combine(slots, all(declared))
    if not answer and not stopped and len(pieces) > 1 and not pieces[0].rstrip().endswith(_SENTENCE_ENDS):
        # "因此，A选项<eoa>是正确的答案。": an end marker inside a sentence; read the two pieces as one
        answer = _read_turn(pieces[0] + pieces[1], ctx)
        first = 0 if answer else None
    answer = answer & valid if answer else answer   # (every rule keeps to the options; this makes sure)
    if not answer:
        return ChoiceReading(None, None)
    return ChoiceReading("".join(sorted(answer)), first)




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
                    question: Optional[str] = None) -> Optional[frozenset[str]]:
    """The set of option letters an output answers with, or ``None`` (see :func:`read_choices`).

    Args:
        output: raw model output (``None`` = missing answer).
        options: the question's options, ``{letter: text}`` or just the letters.
        question: the question stem, if known.

    Returns:
        A non-empty frozenset of letters, or ``None``.
    """
    letters = read_choices(output, options, question).letters
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
