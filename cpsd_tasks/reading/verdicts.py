"""Rule ``verdicts`` of the option-letter reader: verdicts next to letters (``只有选项B是对的``,
``A项错误，B项正确``, ``A: 正确。\nC: 正确。``, ``A: The statement is incorrect.``).
"""

from __future__ import annotations

import functools
import re
from typing import Optional

from cpsd_tasks.reading.letter_patterns import (
    ENGLISH_VERDICT,
    LABEL,
    LETTER_LIST_RE,
    VERDICT_TAIL,
    label_letter,
    letters_in,
)
from cpsd_tasks.reading.question import HEAD_NEGATIVE, TEXT_VERDICT, Context, plain_text
from cpsd_tasks.reading.rule_kit import Turn
from cpsd_tasks.reading.lexicon import DOUBTS, SUPPOSITIONS, VERDICT_LINE_HEADS
from cpsd_tasks.reading.patterns import alternatives, one_of

# Matched right after each letter list (lists are found once, left to right: linear time).
# "B是违法的": a letter and the question's predicate (:func:`read_verdicts`).
_SAID = re.compile(r"(?:选项|项)? ?是(?P<said>[\u3400-\u9fff]{2,16}?)的?(?=[。，,；;！!\n]|$)")
_SAID_BARE = re.compile(r"(?:选项|项)? ?(?P<said>[\u3400-\u9fff]{2,16}?)的?(?=[。，,；;！!\n]|$)")    # "只有D不属于行政许可"
# What "只有D…" says of D, up to the clause's end ("只有D中乙向甲作出的抵销通知能够产生抵销效果，…").
_ONLY_SAID = re.compile(r"(?:选项|项)? ?(?P<said>[^\n。，,；;！!？?]{2,40}?)的?(?=[。，,；;！!\n]|$)")
_VERDICT_WORD = re.compile(r"^(?:不|非|没|未)|正确|错|对|有误|准确|成立|干扰")   # (a verdict, or the words negated)
# Words before "只有C…" in its clause that make it a supposition, someone else's view or a first
# impression, no choice; and a turn right after what it says ("…，但这种理解是片面的").
_ONLY_HEDGE = re.compile(alternatives(SUPPOSITIONS, ("并非", "不是"), DOUBTS, ("未必", "认为", "以为", "看似", "似乎", "好像", "表面上", "不确定"))
                         + "|乍一?看")
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
_SUPPOSED = re.compile(alternatives(SUPPOSITIONS, ("说法", "表述", "观点")))
# A line that opens with a verdict on the option line above it ("正确答案: 正确。…", "错误。").
_NEXT_VERDICT = re.compile(r"[ \t]*(?:" + one_of(VERDICT_LINE_HEADS) + r"[ \t]*[:：][ \t]*)?(?P<verdict>[^。；;\n]{1,16})(?:[。；;\n]|$)")
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


def _predicate_match(rest: str, predicate: str) -> bool:
    """Whether what follows an option's text is the question's own predicate (``是``/``的`` aside)."""
    return bool(predicate) and rest.removeprefix("是").removesuffix("的") == predicate


def _next_line_rest(text: str, end: re.Match, predicate: str) -> str:
    """The verdict opening the line after an option's own line ("A: <text>\\n正确答案: 正确。"), plain; the
    question's predicate when it says the predicate's end ("人不应当回避" asked, "不应当回避" said)."""
    verdict = _NEXT_VERDICT.match(text, end.end())
    rest = plain_text(verdict.group("verdict")) if verdict and not _ASKED_BACK.search(verdict.group(0)) else ""
    if (predicate and len(rest) >= 3 and predicate.endswith(rest)
            and not HEAD_NEGATIVE.search(predicate[:len(predicate) - len(rest)])):
        return predicate
    return rest


def _label_verdict(text: str, ctx: Context, label: re.Match, predicate: str,
                   asked: str) -> Optional[tuple[str, bool, bool]]:
    """The verdict of one option's sentence after its label: ``(letter, right, on the next line)``, or
    ``None`` when the sentence states no verdict on the option's own text."""
    letter = label_letter(label) if label.re is LABEL else label.group("letter") or label.group("after")
    target = ctx.targets.get(letter)
    if not target or letter not in ctx.valid:
        return None
    window = label.end() + 2 * len(target) + 40          # the text and a verdict fit in it (linear)
    end = _SENTENCE_END.search(text, label.end(), window)
    if end is None and window < len(text):
        return None
    sentence = text[label.end():end.start() if end else len(text)]
    if _ASKED_BACK.search(sentence):
        return None                          # "A:<text>属于教唆犯？": asked, not stated
    stated = plain_text(sentence)
    if len(asked) >= 4 and stated == asked:
        return letter, not ctx.negative_question, False   # "A:不违反上诉不加刑原则。"
    if not stated.startswith(target):
        return None
    rest = stated[len(target):]
    below = not rest and end is not None and text[end.start()] == "\n"
    if below:                                # the option's own line; its verdict opens the next
        rest = _next_line_rest(text, end, predicate)
    if not rest:
        return None
    judged = TEXT_VERDICT.fullmatch(rest)
    if not judged and not below and not _predicate_match(rest, predicate):
        # "A: <text>，这是…的职权调整，不属于…的调整范围。": the sentence's last clause is the predicate
        last = plain_text(_LAST_CLAUSE.split(sentence)[-1])
        if (last and len(last) < len(rest) and rest.endswith(last) and _predicate_match(last, predicate)
                and not _SUPPOSED.search(rest)):
            rest = last
    if judged:
        return letter, judged.group("pos") is not None, below
    if _predicate_match(rest, predicate):
        return letter, not ctx.negative_question, below
    return None


def _sentence_verdicts(text: str, ctx: Context, found: dict[str, set[bool]]) -> None:
    """Without labels: an option's whole text as a sentence and a verdict as the next
    ("<A's text>。正确。\\n<B's text>。正确。…"), added to ``found``."""
    by_text = ctx.keys_by_target
    shortest = min(map(len, by_text), default=0)
    pieces = _SENTENCE_END.split(text)
    for sentence, after in zip(pieces, pieces[1:]):
        if len(sentence) < shortest or len(after) > 16:
            continue                         # (cheap length checks before the text is normalised)
        keys = by_text.get(plain_text(sentence))
        after = plain_text(after)
        judged = TEXT_VERDICT.fullmatch(after) if keys and len(after) <= 12 else None
        for key in keys if judged else ():
            found.setdefault(key, set()).add(judged.group("pos") is not None)


def read_text_verdicts(text: str, ctx: Context) -> dict[str, set[bool]]:
    """Per-option sentences that state an option's own text and then a verdict on it: "A:<text>是
    错误的。" (True = right, as the other verdicts), or the question's own predicate ("A:<text>属于
    教唆犯。" for "下列哪种情形属于教唆犯?": the option answers the question as asked)."""
    predicate = _predicate(ctx.stem)
    asked = _bare_predicate(ctx.stem)        # the predicate alone as a verdict
    found: dict[str, set[bool]] = {}
    below: dict[str, set[bool]] = {}         # options judged on the line after their own
    for label in (*LABEL.finditer(text), *_WORD_LABEL.finditer(text)):
        judged = _label_verdict(text, ctx, label, predicate, asked)
        if judged is not None:
            letter, right, on_next_line = judged
            (below if on_next_line else found).setdefault(letter, set()).add(right)
    if len(below) >= 2:                      # (one bare "正确。" after a copied list judges nothing)
        for letter, values in below.items():
            found.setdefault(letter, set()).update(values)
    if not found and _VERDICT_SENTENCE.search(text):   # no labels: "<A's text>。正确。\n<B's text>。正确。…"
        _sentence_verdicts(text, ctx, found)
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
        if not lines or not LABEL.match(lines[0]):
            continue
        if all(LABEL.match(line) for line in lines) and len({label_letter(LABEL.match(line)) for line in lines}) == len(ctx.valid):
            continue                         # the whole option list under it and nothing else: a copy
        for line in lines:
            label = LABEL.match(line)
            if label is not None and label_letter(label) in ctx.valid:
                found[label_letter(label)] = header.group("pos") is not None
    return found


def _concluded_verdicts(text: str, ctx: Context, verdict: dict[str, bool]) -> None:
    """Conclusions naming an option ("因此，A选项是正确的答案", "因此，选项D李某有权…"), into ``verdict``."""
    for match in _CONCLUDED.finditer(text):
        if match.group("letter") not in ctx.valid:
            continue
        if match.group("said") is not None:
            verdict[match.group("letter")] = match.group("pos") is not None
        elif not _DENIAL.search(match.group("rest")):
            verdict[match.group("letter")] = not ctx.negative_question   # "因此，选项D李某有权…"


def _said_as_asked(text: str, ctx: Context, listed: re.Match, predicate: str) -> bool:
    """Letters followed by the question's own predicate, after 只有 or as the whole answer: "只有B是违法的"
    (…哪一条是违法的?), "A属于直接证据。" (…属于直接证据的是?)."""
    said = (_SAID.match(text, listed.end()) or _SAID_BARE.match(text, listed.end())) if predicate else None
    return bool(len(predicate) >= 2 and said and said.group("said") in (predicate, _bare_predicate(ctx.stem))
                and (text.endswith("只有", 0, listed.start())
                     or (not text[:listed.start()].strip() and not text[said.end():].strip(" \t\n。.")))
                and not re.search(r"如果|假如|假设|若|并非|不是|不", text[max(0, listed.start() - 6):listed.start() - 2]))


def _singled_out(text: str, ctx: Context, listed: re.Match) -> bool:
    """The one option singled out by 只有 with words of the question's or not condemning it: "只有C是符合…
    承保条件" (…不属于…的是); not "只有A、B、C、D中的一个…", not hedged, not withdrawn after."""
    if not text.endswith("只有", 0, listed.start()) or letters_in(listed.group(0), ctx.valid) == ctx.valid:
        return False
    said = _SAID.match(text, listed.end()) or _ONLY_SAID.match(text, listed.end())
    return bool(said and not _VERDICT_WORD.search(said.group("said"))
                and (_shares_words(plain_text(said.group("said")), ctx.stem) or not _CONDEMNED.search(said.group("said")))
                and not _only_hedged(text, listed.start() - 2)
                and not _ONLY_WITHDRAWN.match(text, said.end()))


def _listed_verdicts(text: str, ctx: Context, verdict: dict[str, bool]) -> None:
    """Letter lists followed by a verdict ("A项错误，B项正确"), by the question's predicate or singled
    out by 只有, into ``verdict``."""
    predicate = _predicate(ctx.stem)
    for listed in LETTER_LIST_RE.finditer(text):
        match = VERDICT_TAIL.match(text, listed.end())
        if match is None:
            if _said_as_asked(text, ctx, listed, predicate) or _singled_out(text, ctx, listed):
                for letter in letters_in(listed.group(0), ctx.valid):
                    verdict[letter] = not ctx.negative_question
            continue
        start = listed.start()
        if text[max(0, start - 1):start] in ("不", "非") or text.endswith(("除了", "除"), 0, start):
            continue                         # "除了A都对": A is the one not judged right
        if match.end() == len(text) and re.search(r"[:：]", match.group(0)):
            continue                         # "…\nB:对" cut off by the length limit: a label, no verdict
        for letter in letters_in(listed.group(0), ctx.valid):
            verdict[letter] = match.group("pos") is not None


def _english_verdicts(text: str, ctx: Context, line_verdicts: dict[str, set[bool]]) -> None:
    """English verdict lines ("A: The statement is incorrect."), into ``line_verdicts``; not an option
    translated ("A: The judgment is consistent with the legal provisions…") nor a claim reported."""
    for match in (*ENGLISH_VERDICT.finditer(text), *_ENGLISH_BARE_VERDICT.finditer(text),
                  *_ENGLISH_RULE_VERDICT.finditer(text)):
        if match.re is _ENGLISH_RULE_VERDICT and (re.search(r"符合|违反|违法|合法", ctx.texts.get(match.group("letter"), ""))
                                                  or _ENGLISH_CLAIMED.search(match.group(0))):
            continue
        if match.group("letter") in ctx.valid and not _ENGLISH_NO_VERDICT.search(match.group("rest")):
            line_verdicts.setdefault(match.group("letter"), set()).add(match.group("pos") is not None)


def _marked_lines(text: str, ctx: Context, line_verdicts: dict[str, set[bool]]) -> None:
    """Option lines ending in a verdict or a mark (``A. <text> 正确``, ``1. <option A's text> 正确答案``),
    into ``line_verdicts``. "A. <text> 正确答案\\nB. <text> 错误答案": marks of the answer, not of the
    statement's truth — the options marked 正确答案 are chosen whatever the question asks (only when every
    line is so marked)."""
    line_matches = list(_LINE_VERDICT.finditer(text))
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


def read_verdicts(text: str, ctx: Context, text_verdicts: dict[str, set[bool]]) -> Optional[frozenset[str]]:
    """The options the turn's verdicts choose (rule ``verdicts``; ``text_verdicts``: :func:`read_text_verdicts`
    of ``text``, computed once per turn, which other rules also use)."""
    verdict: dict[str, bool] = {}
    _concluded_verdicts(text, ctx, verdict)
    _listed_verdicts(text, ctx, verdict)
    line_verdicts: dict[str, set[bool]] = {letter: set(values) for letter, values in text_verdicts.items()}
    _english_verdicts(text, ctx, line_verdicts)
    _marked_lines(text, ctx, line_verdicts)
    if all(len(values) == 1 for values in line_verdicts.values()):
        verdict.update({letter: values.pop() for letter, values in line_verdicts.items()})
    # (one option called both right and wrong in the lines: contradictory blocks, no verdict)
    chosen = frozenset(letter for letter, positive in verdict.items()
                       if positive != ctx.negative_question and letter in ctx.valid)
    if not chosen:                           # a verdict naming an option outranks a header over a list
        chosen = frozenset(letter for letter, positive in _header_verdicts(text, ctx).items()
                           if positive != ctx.negative_question)
    return chosen or None


# --------------------------------------------------------------------------- the rule


def text_verdicts_of(turn: Turn) -> dict[str, set[bool]]:
    """The verdicts read after each option's label or text in the turn (:func:`read_text_verdicts`),
    computed once per turn: ``{letter: {True (right) / False (wrong)}}``."""
    if "text_verdicts" not in turn.memo:
        turn.memo["text_verdicts"] = read_text_verdicts(turn.text, turn.ctx)
    return turn.memo["text_verdicts"]


def verdicts(turn: Turn) -> Optional[frozenset[str]]:
    """Verdicts next to letters or options' texts: the letters judged correct, or judged wrong when the
    question asks for the wrong statement (``…错误的是``).

    In detail: verdicts next to letters (``只有选项B是对的``, ``只有C是符合…条件``, ``A项错误，B项正确``, ``A: 正确。\\nC: 正确。``,
    ``因此，A选项是正确的答案``, ``A: The statement is incorrect.``, an option's line ending in the question's
    own predicate or holding only it): the letters judged correct, or judged wrong when the question
    asks for the wrong statement (``…错误的是``).

    Example: ``"A项错误，B项正确"`` → B.
    """
    return read_verdicts(turn.text, turn.ctx, text_verdicts_of(turn)) or None
