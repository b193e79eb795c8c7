"""Rule ``option_text`` of :mod:`cpsd_tasks.reading.letters`: the options an answer names by their own TEXT, not by letter
(docs/metrics.md#police-exam), read as a careful human reader would.

Audited, with the letter rules, against the human-graded sample of 34 real LLMs' answers to
single-choice questions (``scripts/audit_reading.py``, README "Answer reading"); graders read an
answer that states an option's text as that option. :func:`read_option_text` is the last rule
:func:`cpsd_tasks.reading.letters.read_choices` tries in a turn (no declaration, letter list, label or
verdict gave a letter). It reads, in this order:

1. **The whole answer is one option's text** (punctuation and spacing ignored).
2. **The opening statement** (:func:`_opening`, :func:`_filled`; not when the turn copies the
   options with labels): the turn's first sentence is an option's text, states options' texts
   after 构成/属于/是 (``…的行为构成挪用资金罪、金融凭证诈骗罪``, several texts joined by 和/及/与/并:
   :func:`_joined`) or after the question's own words (``女儿应向张某偿还50万元`` for
   ``女儿应向张某偿还多少钱?``), states texts followed by the question's last words as asked
   (:func:`_asked_words_after`), is one option's own last clause alone (``丁的行为构成诈骗罪。``:
   :attr:`Context.keys_by_conclusion`), writes the question's sentence out with a text in its blank
   (``…经县级以上地方税务局批准，可以…`` for ``…经()批准，可以…``), or calls texts right (wrong when the
   question asks for the wrong one). Not a statement: a question, a hedge or a supposition
   (``是否构成…？``, ``可能…``, ``假设…``, ``有人认为…``), a negation before the text (``不能构成…``), an
   opening taken back by the next sentence (``这一说法错误``) or negated later in the same clause
   (``…综上，不构成诈骗罪``), another option's text stated later, the options' texts copied one a
   line, a numbered list; a head whose polarity differs from the question's asking clause
   (``不构成犯罪的是…`` for a question asking what *is* a crime).
3. **Exactly one option's text stated in the prose**, outside copied option lines (``A:<text>``)
   and the question copied: nothing but that text (maybe repeated or cut off), or one sentence
   stating it right after 是/为, after a concluding word (因此, 所以, 综上, 答案…; for a text of four
   characters or more and, when the turn copies the options, only past the copy's last label) or
   completing the question's last words. Asked sentences, negated texts (``不构成…``), heads whose
   polarity differs from the question's and sentences stating several texts name nothing.

The per-question :class:`~cpsd_tasks.reading.question.Context` and the question readings every rule
shares live in :mod:`cpsd_tasks.reading.question`; imports go one way (letters → option_text → question).
Where a copied option list ends (its last label) is found by the letter rules and passed in.
The letter rules' linear-time discipline applies here too; :func:`_joined` is one dynamic
programme over the sentence (O(length × options)).
"""

from __future__ import annotations

import functools
import re
from typing import Optional

from cpsd_tasks.reading.letter_patterns import LABEL, label_letter
from cpsd_tasks.reading.question import (
    HEAD_NEGATIVE,
    NEGATED_CONTENT,
    TEXT_VERDICT,
    Context,
    compared_text,
    plain_text,
)
from cpsd_tasks.reading.rule_kit import Turn
from cpsd_tasks.reading.lexicon import DOUBTS, SUPPOSITIONS, VIEWS
from cpsd_tasks.reading.patterns import alternatives

# --------------------------------------------------------------------------- rule option_text: an option's own text

# The first sentence of a turn, after a numbering ("1、…") and up to the first sentence end.
_OPENING = re.compile(r"\s*(?:(?:\d{1,2}|[一二三四])[ \t]*[、.．)）][ \t]*)?(?P<sentence>[^。！？!?；;\n]+)")
# Words that state what follows them as the conclusion ("…的行为构成挪用资金罪、金融凭证诈骗罪").
_STATED_BY = ("构成了", "构成", "成立", "属于", "应当是", "应是", "应为", "是", "为")
_JOINERS = ("以及", "和", "及", "与", "并")
_QUESTION_WORD = re.compile(r"多少|几|什么|哪|何")


def _joined(plain: str, ctx: Context) -> Optional[frozenset[str]]:
    """The options whose texts, one after another and maybe joined by 以及/和/及/与/并 (punctuation is
    already dropped), make up the whole of ``plain``, each text once; ``None`` when it is anything
    else (a text repeated is a loop, not a statement). Options with one text count together.
    Dynamic programming from the end (no recursion; O(len × options))."""
    if not plain:
        return None
    keys = ctx.keys_by_target
    by_length = sorted(keys, key=len, reverse=True)
    tail: list[Optional[frozenset[str]]] = [None] * len(plain) + [frozenset()]
    pieces = [0] * (len(plain) + 1)          # how many texts make up the rest from each position
    for at in range(len(plain) - 1, -1, -1):
        for target in by_length:             # the longest text that fits ("金融凭证诈骗罪", not "诈骗罪")
            if not plain.startswith(target, at):
                continue
            after = at + len(target)
            joiner = next((j for j in _JOINERS if plain.startswith(j, after) and tail[after + len(j)]), "")
            found = tail[after + len(joiner)]
            if found is not None:
                tail[at] = found | keys[target]
                pieces[at] = pieces[after + len(joiner)] + 1
                break
    if tail[0] is None or pieces[0] > len({ctx.targets[key] for key in tail[0]}):
        return None
    return tail[0] or None


def _filled(text: str, ctx: Context) -> Optional[frozenset[str]]:
    """The question's sentence written out with an option's text in its blank, as the turn's opening
    statement ("纳税人…经县级以上地方税务局批准，可以…" for "…经()批准，可以…"): that option (rule ``option_text``),
    under the same guards as :func:`_opening`."""
    before, after = ctx.blank
    if len(before) < 2 or len(after) < 2:
        return None
    opening = _guarded_opening(text)
    if opening is None:
        return None
    plain = plain_text(opening.group("sentence"))
    if ctx.blank_alone and (text[opening.end():].strip(" \t\n。.!！") or _UNDECIDED_FILL.search(plain)):
        return None                          # ("…应当报哪个机关批准?" filled: only as the whole, undecided answer)
    start = plain.find(before)
    end = plain.find(after, start + len(before)) if start >= 0 else -1
    if end < 0 or _RETRACTION.search(plain, end) or _retracted_after(text, opening):
        return None                          # (", 这种说法是错误的": a filled sentence called wrong)
    return _joined(plain[start + len(before):end], ctx)


# The opening is not a statement: a question, a hedge or a supposition, or someone else's view.
# In a sentence that fills a "哪个机关" blank: two candidates, someone's view, or a turn ("但…").
_UNDECIDED_FILL = re.compile(r"还是|或者|认为|主张|但|不过|然而")
_OPENING_HEDGE = re.compile(alternatives(("吗", "呢", "是否", "能否", "是不是"), DOUBTS, SUPPOSITIONS,
                                          ("有观点", "有人", "观点认为", "不一定", "未必", "分析", "首先")))
# A verdict against what was just said, opening the next sentence ("这一说法错误", "以上回答是错误的",
# "不对"), or inside a sentence after a statement (", 这种说法是错误的").
_RETRACTION = re.compile(r"错误|不对|不正确|有误|不成立|并非如此")
_RETRACTED = re.compile(r"[ \t]*(?:但|但是)?(?:这一?|这个|该|此|以上|上述|这种|此种)?(?:说法|表述|观点|回答|答案|结论)?(?:其实|实际上)?(?:并)?(?:是|为)?"
                        r"(?:错误|不对|不正确|有误|不成立|并非如此)|[ \t]*(?:对吗|是吗|对不对|是不是|正确吗)")
# Words dropped to compare a later clause with an option's last clause loosely ("丁的行为不构成诈骗罪",
# "甲的行为也构成诈骗罪"): only to veto an opening, never to read one.
_LOOSE = re.compile(r"并未|并非|没有|不|未|也|都|亦")
# A negation right before a text ("不构成", "不能构成", "并未构成", "不应认定为").
_NEGATED_BEFORE = re.compile(r"(?:不|非|没有?|未|无需|无须|并未|并非)(?:能|应|会|再|得|应当|一定)?"
                             r"(?:构成|成立|属于|是|认定为|定为|认定|以|为)?$")


def _guarded_opening(text: str) -> Optional[re.Match]:
    """The turn's first sentence (:data:`_OPENING`), or ``None`` when it is asked, hedged or supposed."""
    opening = _OPENING.match(text)
    if opening is None or text[opening.end():opening.end() + 1] in ("?", "？"):
        return None
    if _OPENING_HEDGE.search(opening.group("sentence")):
        return None
    return opening


_CLAUSE_END = re.compile(r"[，,；;。：:!！?？\n]")


@functools.lru_cache(maxsize=4096)
def _first_clause(option_text: str) -> str:
    """An option's first clause, plain ("紧急避险行为，不承担刑事责任" → "紧急避险行为"): what a clause
    of the answer holds when it states the option."""
    return plain_text(_CLAUSE_END.split(option_text)[0])


_COMMA = re.compile(r"[，,；;]")


def _clause_head(sentence: str, option_text: str, ends: re.Pattern = _CLAUSE_END) -> str:
    """The plain words before an option's text within its clause of ``sentence`` ("但办案机关并未掌握
    这一事实，应当告知公安机关" → "" for option "应当告知公安机关"; "不构成犯罪的是甲…" → "不构成犯罪的是").
    Clauses end at ``ends`` (:data:`_COMMA`: a colon does not end one, "不正确的说法是：<text>")."""
    first = _first_clause(option_text)
    for clause in ends.split(sentence):
        at = plain_text(clause).find(first) if first else -1
        if at >= 0:
            return plain_text(clause)[:at]
    return ""


def _head_negated(head: str, ctx: Context) -> bool:
    """Whether ``head`` (plain text before an option's text) negates, not counting the question's own
    words copied into it ("…定作人未向承揽人支付…" restates the question; "女儿不应向…" negates)."""
    return any(head[match.start():match.end() + 1] not in ctx.stem for match in HEAD_NEGATIVE.finditer(head))


def _retracted_after(text: str, opening: re.Match) -> bool:
    """Whether the sentence after the opening takes it back ("…。这一说法错误", "…。不对")."""
    return bool(_RETRACTED.match(plain_text(text[opening.end():opening.end() + 40])))


def _opening(text: str, ctx: Context) -> Optional[frozenset[str]]:
    """The turn opens with a statement of an option's text (rule ``option_text``; a grader reads it as the answer):
    the sentence is the text ("甲公司应支付该款项。根据…"), it states options' texts after 构成/属于/
    是 ("…的行为构成挪用资金罪、金融凭证诈骗罪。") or after the question's own words ("女儿应向张某偿还
    50万元" for "女儿应向张某偿还多少钱?"), or it calls them right ("<text>是正确的", or wrong when the
    question asks for the wrong one).

    Not a statement: a question or a hedge ("是否构成…？", "可能构成…", "假设…", "有人认为…"), a
    negation before the text ("不能构成…", "并未构成…"), an opening taken back by the next sentence
    ("这一说法错误"), the chosen text negated later ("…综上，不构成诈骗罪"), another option's text stated
    later (a later conclusion may differ), two options' texts each standing as a sentence (a copy), a
    numbered list. For a question asking for the wrong statement only the text itself or its verdict
    counts (a sentence naming what *is* right would answer the mirror question)."""
    opening = _guarded_opening(text)
    if opening is None:
        return None
    plain = plain_text(opening.group("sentence"))
    if len(plain) < 2 or plain.isdigit():
        return None                          # ("①④②③④…": digits, not a statement)
    if opening.group(0).lstrip()[:1].isdigit() and re.search(r"(?m)^[ \t]*2[ \t]*[、.．)）]", text):
        return None                          # "1. <text>\n2. <text>…": a numbered list, not a statement
    sentences = {plain_text(piece.group("sentence")) for piece in _OPENING.finditer(text)}
    if sum(1 for target in set(ctx.targets.values()) if target in sentences) >= 2:
        return None                          # the options' texts copied, one a line
    chosen = _stated(plain, ctx)
    if not chosen or _retracted_after(text, opening):
        return None
    if _other_option_later(text, opening, plain, chosen, ctx) or _negated_in_clause(text, opening, plain, chosen, ctx):
        return None
    return chosen


def _other_option_later(text: str, opening: re.Match, plain: str, chosen: frozenset[str], ctx: Context) -> bool:
    """Whether another option's text is stated after the opening ("…属于紧急避险行为… 因此构成了重大责任事故罪":
    which one?), or, for an opening by an option's last clause, that clause is negated or hedged later
    ("…综上所述，丁的行为不构成诈骗罪") or another option's last clause stated ("甲的行为也构成诈骗罪")."""
    rest = plain_text(text[opening.end():])
    texts = [ctx.targets[key] for key in chosen]
    for key, target in ctx.targets.items():
        if key not in chosen and target in rest and not any(target in own for own in texts):
            return True
    if plain in ctx.keys_by_conclusion:      # an opening by an option's last clause ("丁的行为构成诈骗罪。")
        loose = _LOOSE.sub("", rest)
        if loose.count(plain) > rest.count(plain):
            return True
        if any(not keys & chosen and clause in loose for clause, keys in ctx.keys_by_conclusion.items()):
            return True
    return False


def _negated_in_clause(text: str, opening: re.Match, plain: str, chosen: frozenset[str], ctx: Context) -> bool:
    """Whether the chosen text is negated later, in the same clause ("…综上所述，甲的行为不构成诈骗罪"; not
    "如果…不成立，法院应当…", where the negation ends the clause before)."""
    firsts = {_first_clause(ctx.texts[key]) for key in chosen} - {""}
    if plain in ctx.keys_by_conclusion:
        firsts.add(plain)                    # (an opening by an option's last clause: that clause)
    for clause in _CLAUSE_END.split(text[opening.end():]):
        plain_clause = plain_text(clause)
        for first in firsts:
            at = plain_clause.find(first)
            while at >= 0:
                if _NEGATED_BEFORE.search(plain_clause, max(0, at - 8), at):
                    return True
                at = plain_clause.find(first, at + len(first))
    return False


def _stated(plain: str, ctx: Context) -> Optional[frozenset[str]]:
    """The options an opening sentence (``plain``: without punctuation) states (:func:`_opening`)."""
    whole = _joined(plain, ctx)
    if whole is not None:
        return whole
    if plain in ctx.keys_by_conclusion:
        return ctx.keys_by_conclusion[plain]   # "丁的行为构成诈骗罪。": the last clause of one option alone
    stated = [at for target in ctx.targets.values() if (at := plain.find(target)) >= 0]
    if not stated:
        return None
    at = min(stated)                         # the earliest option text stated, and what comes after it
    head = plain[:at]
    if at == 0:
        judged = re.match(r"(?P<joined>.+?)(?P<verdict>(?:的说法|说法|的表述|表述)?(?:都|均|也)?是?(?:正确|对|错误|不正确|错)的?)$", plain)
        if judged and (options := _joined(judged.group("joined"), ctx)):
            verdict = TEXT_VERDICT.fullmatch(judged.group("verdict"))
            if verdict and (verdict.group("pos") is not None) != ctx.negative_question:
                return options
        return _asked_words_after(plain, ctx)
    if _head_negated(head, ctx) != ctx.negated_ask:
        return None                          # "不构成犯罪的是…", "错误的是…", "属于…的是…" (for 不属于…)
    joined = _joined(plain[at:], ctx)
    if joined is None:
        return None
    asked = list(_QUESTION_WORD.finditer(ctx.stem[-40:]))
    before = ctx.stem[-40:][:asked[-1].start()] if asked else ""
    if head.endswith(_STATED_BY) or (len(head) >= 4 and head[-4:] in before):
        return joined
    return None


def _asked_words_after(plain: str, ctx: Context) -> Optional[frozenset[str]]:
    """Options' texts followed by the question's own last words, as asked ("望湖乡政府办公楼建设用地
    不能取得划拨土地使用权" for "下列哪一建设用地项目不能取得划拨土地使用权?"): those options. The words
    must be the stem's whole ending, at least four characters, not preceded there by a negation (the
    question "…不能取得…" is not answered by "…能取得…")."""
    common = 0
    while common < min(len(plain), len(ctx.stem)) and plain[-1 - common] == ctx.stem[-1 - common]:
        common += 1
    tried = 0
    for length in range(common, 3, -1):      # the longest ending first, then shorter (the text may end alike)
        if ctx.stem[-length - 1:-length] in ("不", "非", "没", "未", "无"):
            continue
        if not plain.endswith(tuple(ctx.keys_by_target), 0, len(plain) - length):
            continue                         # (only where an option's text ends)
        options = _joined(plain[:-length], ctx)
        if options is not None:
            return options
        tried += 1
        if tried == 4:                       # (_joined runs at most 5 times: linear in the opening)
            break
    return None


# Words that make the option text after them the model's conclusion ("因此，…", "故应向…", "指的是…").
_CONCLUSION = re.compile(r"^答(?!案)|因此|所以|故|综上|可见|答案|应选|选择|指的是|的是|应当是|应是|应为")


_SUMMARY = re.compile(r"综上")
_SUMMARY_HEDGE = re.compile(alternatives(SUPPOSITIONS, VIEWS, ("判断", "是否", "还是", "与否"), DOUBTS))
_WHEN = ("后", "时", "前", "之后", "以后", "之前")
# 是/为 that end a supposition, a question or someone's view ("如果是", "要是", "难道是", "有人认为(是)",
# "争议焦点为"): the text after them is not stated. ("因为<text>" states it as a reason: read only when
# the question does not ask for the wrong statement.)
_HEDGED_COPULA = re.compile(r"(?:如果|要|假如|假设|若|难道|认为|以为|是否|可能|也许|或许|焦点|误解)(?:是|为)$|(?:认|以)为$")


def read_option_text(text: str, ctx: Context, last_label: Optional[tuple[int, str]] = None,
                labelled: bool = False) -> Optional[frozenset[str]]:
    """Rule ``option_text``: the option whose own text the answer states (module docstring).

    Args:
        text: one turn, prepared (:func:`cpsd_tasks.reading.letters.prepare`).
        ctx: the question.
        last_label: when the turn copies the options (labels, or three options' texts), where the
            last label of the copy ends and its letter (``None``: no copy, or a copy without labels);
            only a conclusion after it counts.
        labelled: the turn copies the options with labels (the opening statement is then no answer).

    Returns:
        The one option read, or ``None``.
    """
    targets = ctx.targets
    answer = compared_text(text)
    for key, target in targets.items():
        if target == answer:
            return frozenset({key})
    if not labelled and (any(target in answer for target in targets.values())
                         or any(clause in answer for clause in ctx.keys_by_conclusion)) and (
            opened := _opening(text, ctx) or _filled(text, ctx)):
        return opened
    # Copied options ("A:外国人", "…的是A:法与宗教…") are not statements: drop each label with its text.
    prose = plain = plain_text(text)
    for key, target in targets.items():
        prose = prose.replace(key + target, "\0")
    if ctx.stem and len(ctx.stem) >= 8:
        prose = prose.replace(ctx.stem, "\0")     # the question copied is not a statement either
    if re.fullmatch(r"[\d\0]*", prose):
        return None
    present = {key: target for key, target in targets.items() if target in prose}
    alone = _only_its_text(prose, plain, present, targets)
    if alone is not None:
        return alone
    if not present:
        return None
    return _named_in_prose(text, ctx, present, last_label)


def _only_its_text(prose: str, plain: str, present: dict[str, str], targets: dict[str, str]) -> Optional[frozenset[str]]:
    """The option whose text is all the prose holds, repeated (maybe cut off); not digits ("①④", NFKC
    "14": numbering leaves them too), nor a copied list's first item whose label was lost
    ("<A's text>;\nB:<B's text>…")."""
    for key, target in present.items():
        if target.isdigit():
            continue
        following = chr(ord(key) + 1)
        if following in targets and plain.count(target) == plain.count(target + following + targets[following]):
            continue
        rest = re.sub(r"[\d\0\ufffd]", "", prose.replace(target, ""))
        if not rest or target.startswith(rest):
            return frozenset({key})
    return None


def _own_section(text: str, targets: dict[str, str], tail_start: int, last_letter: Optional[str]) -> Optional[str]:
    """The letter of a copied list's last option when what follows its label discusses that option
    ("…D:甲定…两人是共犯。根据…因此，甲定…两人是共犯。"; "D：根据…规定，<D's text>。因此，<D's text>。": its
    text in the section's first sentence, too): its conclusion is no answer."""
    first_sentence = re.match(r"[^。！？!?\n]*", text[tail_start:tail_start + 400]).group(0)
    if last_letter and (compared_text(text[tail_start:tail_start + 80]).startswith(targets.get(last_letter, "\0"))
                        or targets.get(last_letter, "\0") in plain_text(first_sentence)):
        return last_letter
    return None


def _named_in_sentence(sentence: str, ctx: Context, present: dict[str, str], in_tail: bool,
                       own: Optional[str]) -> Optional[tuple[str, bool]]:
    """The one option a sentence names as stated, and whether the sentence is a summary ending with it
    (``综上所述,<C's text>。``), or ``None``."""
    plain = plain_text(sentence)
    stated = {key: at for key, target in present.items()
              if (at := plain.find(target)) >= 0 and not NEGATED_CONTENT.search(plain[:at])
              and not (plain.endswith("在", 0, at) and plain.startswith(_WHEN, at + len(target)))}
    # ("在解除条件成就后…": the text names a time, it is not stated)
    if len(stated) != 1:
        return None                          # none, or "外孙子女、侄子、侄女及干儿子都可以": several
    key, position = next(iter(stated.items()))
    head = plain[:position]
    if (_NEGATED_BEFORE.search(head) and not ctx.negated_ask) or _head_negated(
            _clause_head(sentence, ctx.texts[key]), ctx) > ctx.negated_ask:
        return None                          # "不应当承担赔偿责任的是甲", "错误的是<text>"
    copula_head = _clause_head(sentence, ctx.texts[key], _COMMA)
    if not ((copula_head.endswith(("是", "为")) and not _HEDGED_COPULA.search(copula_head)
             and not (copula_head.endswith("因为") and ctx.negated_ask))
            or (in_tail and key != own and _CONCLUSION.search(head) and len(present[key]) >= 4)
            or (ctx.stem_tail and head.endswith(ctx.stem_tail))):
        return None
    # "…注册资本的35%": the option completes the question; a summary that ends with the option's text,
    # stated by the model ("综上所述,<C's text>。")
    summary = bool(_SUMMARY.search(head) and not _SUMMARY_HEDGE.search(head)
                   and re.fullmatch(r"的?", plain[position + len(present[key]):]))
    return key, summary


def _named_in_prose(text: str, ctx: Context, present: dict[str, str],
                    last_label: Optional[tuple[int, str]]) -> Optional[frozenset[str]]:
    """Exactly one option's text stated in the prose's sentences (with a copied option list, only a
    conclusion after its last label counts); of several, the one a ``综上所述`` summary states last."""
    tail_start, last_letter = last_label or (0, None)
    own = _own_section(text, ctx.targets, tail_start, last_letter)
    named = set()
    summed: Optional[str] = None             # the option the last naming sentence, a summary, states
    offset = 0
    for piece in re.finditer(r"([^。！？!?\n]*)([。！？!?\n]|$)", text):
        sentence = piece.group(1)
        in_tail = offset >= tail_start
        offset += len(sentence) + 1
        if piece.group(2) in ("?", "？") or re.search(r"[吗呢][ \t]*$", sentence):
            continue                         # "诉讼时效期间为2年？", "是诈骗罪吗": asked
        found = _named_in_sentence(sentence, ctx, present, in_tail, own)
        if found is not None:
            named.add(found[0])
            summed = found[0] if found[1] else None
    if len(named) >= 2 and summed is not None:
        return frozenset({summed})           # "因此，<B's text>。…综上所述，<C's text>。": the summary's
    return frozenset(named) if len(named) == 1 else None


def option_text(turn: Turn) -> Optional[frozenset[str]]:
    """The options named by their own text (:func:`read_option_text`): the whole answer, the opening
    statement, or exactly one option's text stated in the prose (past a copied list's last label).

    In detail: the option's own text (:mod:`cpsd_tasks.reading.option_text`): the whole answer equals it, the turn
    opens by stating it (after 构成/属于/是, in the question's own words, followed by the question's last
    words, as one option's own last clause, or the question's blank ``（ ）`` or its ``哪个机关`` filled
    in), or, outside copied option lines, exactly one option's text (at least four characters after
    a conclusion, or right after 是/为/指的是; of several, the one a ``综上所述`` summary states last) is
    stated.

    Example: ``"甲的行为构成诈骗罪。"`` → B (option B: 诈骗罪).
    """
    last = max(LABEL.finditer(turn.text), key=lambda m: m.end(), default=None) if turn.option_list else None
    return read_option_text(turn.text, turn.ctx, (last.end(), label_letter(last)) if last else None,
                            labelled=len(turn.labels) >= 2)
