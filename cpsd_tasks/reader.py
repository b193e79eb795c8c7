"""The shared grammar of answer reading: what every task reader does to a raw model output first.

(Over 400 lines because it is the one owner of that grammar, listed below; every task reader
imports it, so splitting it would only add an import layer.)

Source: SPEC.md §4 (normalisation, ``<think>``), §4.1 (labels, refusals), §4.6 (refusal class),
and the project's audit of 34 real LLMs' outputs (README "Answer reading"). One module owns:

* **reasoning blocks** — :func:`strip_think` (text after the last ``</think>``; unclosed → empty);
* **end-of-turn markers** — ``<eoa>``, ``<eos>``, ``<end>``, ``<|im_end|>``, ``</s>``,
  ``<|endoftext|>``, ``<|eot_id|>``, ``<|end|>``, ``<end_of_turn>`` and bracketed or unclosed forms
  (``[eoa]``, ``【eoa】``, ``<eoa``): :data:`END_MARKER`. They are never content: a marker ends the
  model's turn, and what follows it is another turn (:func:`turns`);
* **invented follow-up turns** — role markers (``<human>``, ``<|Human|>`` in any case, ``<bot>``, ``### Human``,
  ``Human:`` (also inline, after a space), ``User:``, ``<|im_start|>``, ``[INST]``) always start another
  turn; question markers (``问题：``, ``问：``, ``题目：``, ``请回答问题``, ``Question:``) start one only after an
  answer was read
  (:data:`ROLE_MARKER`, :data:`QUESTION_MARKER`);
* **bracketed answer declarations** — ``[正确答案]B``, ``【正确答案】B``, ``正确答案]D``,
  ``<答案>C``, ``[答案]：A`` are rewritten as ``正确答案：B`` (:func:`canonical_declarations`);
* **Traditional → Simplified folding** — OpenCC with the pinned ``t2s`` configuration
  (:data:`OPENCC_CONFIG`), applied by :func:`normalize` to outputs and gold strings alike, so
  ``電信詐騙`` equals ``电信诈骗`` and ``張三`` equals ``张三``;
* **normalisation** — :func:`normalize` (NFKC, zero-width, HTML tags, fences, prefixes, edges);
  a sign or decimal point before a digit is never stripped (``.5克`` stays ``.5克``);
* **refusals** — :func:`is_refusal` (broad: any refusal phrase; used when no answer was read) and
  :func:`is_clear_refusal` (strict: the output *opens* with a refusal; used where an answer may
  legitimately contain words such as 敏感). Both count ``不便回答`` and ``无法提供相关信息``;
* **negation** — :data:`NEGATIONS`, the words that, right before a mention, make it name the
  opposite (used by the label and judgement readers).

All functions are pure, accept ``None`` (a missing model answer) and never raise on model output.
Every pattern is linear-time on adversarial input (no nested quantifiers over the same text).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Callable, Optional

# --------------------------------------------------------------------------- reasoning blocks

_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)
#: A lone UTF-16 surrogate: what a broken \\u escape decodes to; not valid Unicode text.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def strip_think(text: Optional[str]) -> str:
    """Remove a reasoning model's ``<think>…</think>`` text (SPEC §4).

    Args:
        text: raw model output, or ``None`` for a missing answer.

    Returns:
        The answer part: the text after the last ``</think>`` when there is one (this removes
        closed blocks and handles a lone ``</think>`` alike; text *before* a reasoning block, which
        reasoning models do not write, is dropped with it); ``""`` when a ``<think>`` is left
        unclosed (nothing to score). Linear in the length of the text. Lone surrogates (a broken
        ``\\u`` escape in an API answer) become U+FFFD, so no later step (tokenizers, hashing,
        JSON) fails on them.
    """
    if not text:
        return ""
    text = LONE_SURROGATE.sub("\ufffd", text)
    last_close = None
    for last_close in _THINK_CLOSE.finditer(text):
        pass
    if last_close is not None:
        text = text[last_close.end():]
    if _THINK_OPEN.search(text):
        return ""
    return text


# Zero-width characters and a stray byte-order mark are invisible and never part of an answer.
_ZERO_WIDTH = re.compile("[\u200b-\u200d\u2060\ufeff]")


def answer_text(text: Optional[str]) -> str:
    """The answer part of an output, Unicode NFKC-folded: :func:`strip_think`, then NFKC.

    Full-width letters, digits and punctuation become their ASCII forms (SPEC §4) and zero-width
    characters are removed; nothing else is changed (end markers and Traditional characters stay:
    generation metrics score the text as written). Returns ``""`` for ``None``, empty output or an
    unclosed ``<think>``.
    """
    return _ZERO_WIDTH.sub("", unicodedata.normalize("NFKC", strip_think(text)))


# --------------------------------------------------------------------------- Traditional folding

#: The OpenCC configuration used to fold Traditional Chinese into Simplified (pinned: ``t2s`` is
#: OpenCC's character-and-phrase Traditional → Simplified conversion, without regional idioms).
OPENCC_CONFIG = "t2s"


@functools.lru_cache(maxsize=1)
def _converter():
    import opencc

    return opencc.OpenCC(OPENCC_CONFIG)


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def fold_traditional(text: str) -> str:
    """Fold Traditional Chinese characters into Simplified (OpenCC :data:`OPENCC_CONFIG`).

    Args:
        text: any string.

    Returns:
        The folded string (``電信詐騙`` → ``电信诈骗``); ASCII-only text is returned unchanged
        without calling OpenCC. Simplified text is a fixed point (the task labels are tested).
    """
    if not text or not _NON_ASCII.search(text):
        return text
    return _converter().convert(text)


# --------------------------------------------------------------------------- turn boundaries

#: End-of-turn / end-of-answer markers: ``<eoa>``, ``</s>``, ``<|im_end|>``, ``[eoa]``, an unclosed
#: ``<eoa`` … (case-insensitive). Matched after NFKC, so full-width brackets are ASCII here.
END_MARKER = re.compile(
    r"</s>|</?\|?(?:eoa|eos|eod|eol|end|eot)\|?>|<\|(?:im_end|endoftext|eot_id|end_of_text|end|eot)\|?>"
    r"|<end_of_turn>|\[(?:eoa|eos|end)\]|【(?:eoa|eos|end)】|<(?:eoa|eos)(?![A-Za-z>])",
    re.IGNORECASE,
)
#: Markers of another speaker's turn: text after them was not the model's answer.
ROLE_MARKER = re.compile(
    r"<\|im_start\|>[ \t]*(?:assistant|user|system)?|<\|?(?i:human|user|bot|assistant|system|moss)\|?>|\[INST\]|\[/INST\]"
    r"|(?:^|\n)[ \t]*(?:#{2,4}[ \t]*)?(?:Human|User|USER|HUMAN|Assistant|Instruction|用户|人类)[ \t]*[:：]"
    r"|(?:^|\n)[ \t]*#{2,4}[ \t]*(?:Human|User|Instruction|Input|Response|Question)\b"
    r"|(?<=[ \t])(?:Human|HUMAN|User|USER)[ \t]*:(?=[ \t]*\S)",      # inline: "正确答案：B Human: 下一题…"
)
_OTHER_ROLE = re.compile(r"human|user|用户|人类|\[INST\]|system|Instruction|Input|Question", re.IGNORECASE)
#: Markers of a new question or of the prompt's instructions echoed back: a new exchange starts
#: there unless they are the output's first words (a model restating the question before answering).
QUESTION_MARKER = re.compile(
    r"(?:^|\n)[ \t]*(?:问题|题目|例题|案件|案例|新问题|下一题|下一个问题|我的问题|请问|问|Question|Q)[ \t]*\d*[ \t]*[:：]"
    r"|[【\[](?:题目|问题|新问题|例题)[】\]]|【(?:角色|任务|输入|约束)】"
    r"|请回答问题|请回答下列问题|请回答以下问题|请判断以下陈述|〖指令〗|解决这个问题[:：]"
    r"|请从以下选项中|请从下列选项中|请阅读(?:以下|下列|下面)(?:文本|材料|文字|案例)?并回答",
)
#: An echo of a prompt's answer-format instruction (LawBench's "请你运用法律知识…从A,B,C,D中选出…
#: 例如[正确答案]A<eoa>。请你严格按照这个格式回答。"): its example answer is no answer, and the
#: echo marks where a copy of the prompt starts. :func:`mark_echoes` replaces it with "〖指令〗".
INSTRUCTION_ECHO = re.compile(
    r"请你?(?:运用法律知识)?(?:分析下列案件[,，]?)?(?:从|选择)\s*A\s*[,，、][^\n]{0,160}?请你?严格按照这个格式回答[。.]?"
)


def mark_echoes(text: str) -> str:
    """Replace each echoed answer-format instruction (:data:`INSTRUCTION_ECHO`) by a line
    ``〖指令〗``, a :data:`QUESTION_MARKER`: the example answer inside it disappears with it."""
    return INSTRUCTION_ECHO.sub("\n〖指令〗\n", text)


def turns(text: str) -> list[str]:
    """Split an (already NFKC-folded) output into turns at end markers and role markers.

    Args:
        text: the output after :func:`answer_text`.

    Returns:
        The pieces in order, markers removed; a role marker at the very start (the model naming
        its own role, ``<bot>: A``) is dropped without starting a turn. Never empty: ``[""]``
        for an empty text.
    """
    pieces: list[str] = []
    for piece in END_MARKER.split(text):
        start = 0
        for match in ROLE_MARKER.finditer(piece):
            head = piece[start:match.start()]
            other = bool(_OTHER_ROLE.search(match.group(0)))
            if not pieces and start == 0 and not _CONTENT.search(head) and not other:
                start = match.end()          # the model naming its own role before answering
                continue
            pieces.append(head)
            if other:
                return pieces or [""]        # a human/user turn: nothing after it is the model's answer
            start = match.end()
        pieces.append(piece[start:])
    return pieces or [""]


def own_turn(text: Optional[str]) -> str:
    """The model's own answer turn: :func:`answer_text`, then the first turn with content.

    Args:
        text: raw model output or ``None``.

    Returns:
        The first piece of :func:`turns` that holds anything but whitespace and punctuation
        (``"谣言"`` for ``"谣言<eoa>\\n<human>: 下一题"``); ``""`` when there is none.
    """
    return _first(turns(answer_text(text)), lambda piece: bool(piece.strip(_EDGE_CHARS)))


def _first(pieces: list[str], keep: Callable[[str], bool]) -> str:
    """The first of ``pieces`` that ``keep`` accepts, else ``""``."""
    return next((piece for piece in pieces if keep(piece)), "")


def first_turn(text: Optional[str]) -> str:
    """:func:`answer_text`, then the first piece of :func:`turns` that is not blank (punctuation
    counts: ``[]`` is an IE answer); ``""`` when there is none."""
    return _first(turns(answer_text(text)), lambda piece: bool(piece.strip()))


def written_turn(text: Optional[str]) -> str:
    """The model's own turn as written, for generation metrics: :func:`strip_think`, then the first
    piece of :func:`turns` that holds more than whitespace and punctuation, whitespace-stripped;
    no NFKC (BERTScore reads the text as written). ``""`` when there is none: an output that is
    only punctuation (``。``, ``……``) has nothing to score.

    Args:
        text: raw model output or ``None``.

    Returns:
        The text to score (``"摘要。"`` for ``"摘要。<eoa>\\n<human>: 再写一条"``), or ``""``.
    """
    return _first(turns(_ZERO_WIDTH.sub("", strip_think(text))), _has_text).strip()


def _has_text(piece: str) -> bool:
    """Whether a piece holds anything but whitespace and punctuation (emoji or stray control
    characters are text: garbage to score, not an empty answer)."""
    return any(not (ch.isspace() or ch in _EDGE_CHARS or unicodedata.category(ch).startswith("P"))
               for ch in unicodedata.normalize("NFKC", piece))


_CONTENT = re.compile(r"[0-9A-Za-z\u3400-\u9fff]")


# --------------------------------------------------------------------------- declarations

# A bracketed declaration ("[正确答案]", "【答案】", "<正确答案>", "正确答案]") and what follows it
# up to the answer, rewritten as "正确答案：" so that every reader sees one form.
_BRACKET_DECLARATION = re.compile(
    # starts only at a bracket or a head (never at whitespace: no quadratic re-scan of long runs)
    r"(?=[\[【<〔(（正最参标答])[\[【<〔(（]?[ \t]?(正确答案|最终答案|参考答案|标准答案|答案|正确选项|答)[ \t]?[\]】>〕)）]"
    r"(?:[ \t]*[:：])?"
)


def canonical_declarations(text: str) -> str:
    """Rewrite bracketed answer declarations as plain ones: ``[正确答案]B`` → ``正确答案：B``.

    Args:
        text: an NFKC-folded output.

    Returns:
        The text with each ``[X]``, ``【X】``, ``<X>``, ``X]`` declaration (X one of 正确答案, 最终答案,
        参考答案, 标准答案, 答案, 正确选项, 答) replaced by ``X：``. ``正确答案：[正确答案]D``
        becomes ``正确答案：正确答案：D`` (read as D).
    """
    return _BRACKET_DECLARATION.sub(lambda m: f"{m.group(1)}：", text)


# --------------------------------------------------------------------------- normalisation

_WHITESPACE = re.compile(r"\s+")
# Simple HTML tags (<b>, </span>, <br/>) and a Markdown code fence's opening line (```json).
# Tag names are lower-case only, so an option letter in brackets (<B>) is not taken for a tag.
HTML_TAG = re.compile(r"</?(?:b|i|u|s|em|strong|span|p|div|br|hr|code|pre|font|mark|small|sup|sub|"
                      r"h[1-6]|li|ul|ol|td|th|tr|table|blockquote)(?:\s[^<>]{0,100})?\s?/?>")
_FENCE_OPEN = r"[ \t]*`{3,}[A-Za-z0-9_+-]{0,20}[ \t]*\n"   # ([ \t]: a newline run is eaten one by one)
# Characters stripped from both ends of an answer: ASCII and CJK punctuation, quotes, brackets,
# Markdown emphasis/heading marks. After NFKC, full-width ASCII forms are already half-width.
_EDGE_CHARS = (
    " \t\r\n\u3000"
    "\"'`*#_~>-=+|.,;:!?()[]{}<>/\\"
    "。，、；：！？“”‘’「」『』《》〈〉【】〔〕（）…—·～"
)
# Edge characters that are part of a number when a digit follows (".5克", "-3", "+86…").
_NUMERIC_EDGE = ".-+"
_EDGE_CLASS = re.escape("".join(c for c in _EDGE_CHARS if c not in _NUMERIC_EDGE))
# A leading answer prefix such as 答案：/ 答： / 回答: / Answer: / 最终答案是 / 结论：
_PREFIX = (r"(?:最终答案|正确答案|答案|回答|结论|结果|分类结果|分类|判断结果|判断|answer|final answer)"
           r"\s*(?:是|为)?\s*[:：]?\s*|答\s*[:：]\s*")
# Everything normalize() drops from the front, in one pass (linear: one character or one whole
# prefix per repetition, no nested quantifier): fence openers, answer prefixes, edge characters
# (a sign or decimal point only when no digit follows it).
_LEADING = re.compile(
    f"(?:{_FENCE_OPEN}|{_PREFIX}|[{_EDGE_CLASS}]|[{re.escape(_NUMERIC_EDGE)}](?![0-9]))+",
    re.IGNORECASE,
)


def normalize(text: Optional[str]) -> str:
    """Normalise an answer or a gold string for comparison (SPEC §4).

    Steps: ``<think>`` removal, Unicode NFKC (full-width to half-width), zero-width characters
    removed, the model's own turn kept (:func:`own_turn`: end markers such as ``<eoa>`` and
    invented follow-up turns cut off), Traditional → Simplified folding
    (:func:`fold_traditional`), bracketed declarations made plain, simple HTML tags (``<b>``,
    ``</span>``) removed, a Markdown code fence's opening line (```` ```json ````) removed, then
    leading "答案：/答：/Answer:" style prefixes and whitespace, punctuation, quotes and Markdown
    marks (``**``, ``#``, backticks) stripped from the front, in any order and number, and the
    same marks from the end. A ``.``, ``-`` or ``+`` right before a digit is kept (``.5克`` ≠
    ``5克``). Other inner text is left as it is. Linear in the length of the text.

    Args:
        text: any string or ``None``.

    Returns:
        The normalised string; ``""`` for ``None``/empty input.
    """
    if text is not None and len(text) <= _CACHED_UP_TO:
        return _normalize_short(text)        # IE keys and values, labels, gold strings: repeated
    return _normalize(text)


#: Strings up to this length are normalised through a cache (a pure function of the string).
_CACHED_UP_TO = 256


def _normalize(text: Optional[str]) -> str:
    return strip_edges(HTML_TAG.sub("", canonical_declarations(fold_traditional(own_turn(text)))))


_normalize_short = functools.lru_cache(maxsize=65536)(_normalize)


def strip_edges(text: str) -> str:
    """The last step of :func:`normalize` alone, for text already prepared: fence openers, answer
    prefixes and edge characters stripped from the front, edge characters from the end."""
    leading = _LEADING.match(text)
    if leading:
        text = text[leading.end():]
    return text.rstrip(_EDGE_CHARS)


def squeeze_spaces(text: str) -> str:
    """``text`` with every whitespace run removed (the form the label readers search)."""
    return _WHITESPACE.sub("", text)


# --------------------------------------------------------------------------- refusals

# Refusals anywhere in an answer: a safety refusal or an inability statement (SPEC §4.1
# refusal_rate, §4.6 refusal). Consulted only when no answer could be read.
_REFUSAL = re.compile(
    r"(抱歉|对不起|很遗憾|作为一个?(?:人工智能|AI|语言模型|大模型)|我(?:无法|不能|没有办法|不便|不方便|不可以)"
    r"|无法(?:回答|提供|协助|完成|处理)|不能(?:回答|提供|协助)|不便(?:回答|作答|回复|透露|提供|评论)"
    r"|敏感|违反.{0,6}(?:政策|规定|法律)"
    r"|I(?:'m| am) sorry|I (?:cannot|can't|can not|won't)|as an AI|unable to (?:help|assist|comply))",
    re.IGNORECASE,
)

# A clear refusal: an apology or an "as an AI" disclaimer followed, in the same sentence, by an
# inability ("抱歉，我无法判断…", "作为AI，我不能…"), or an output that opens with 我无法回答/无法作答/
# 不便回答/无法提供相关信息…. Words such as 敏感, 违反…规定, 无法提供身份证明 inside an answer are no refusal.
_CLEAR_REFUSAL = re.compile(
    r"^(?:(?:很|非常|十分)?抱歉|对不起[,，]?\s?我|作为(?:一个|一名)?\s?(?:人工智能|AI|语言模型|大模型|大语言模型|AI助手))"
    r"[^。.!！?？\n]{0,40}?(?:无法|不能|不便|没有办法|没办法|不可以|不予)"
    r"|^我?(?:无法|不能|不便|拒绝)(?:回答|作答|回复|协助|帮助|提供帮助)"
    r"|^我?(?:不便|不方便)(?:透露|提供|评论|回应)"
    r"|^(?:我)?(?:无法|不能)提供(?:相关|有关|此类|这类|该类|任何)(?:的)?(?:信息|内容|回答|帮助)"
    r"|^(?:I(?:'m| am) sorry|Sorry|As an AI)\b[^.!?\n]{0,60}?(?:cannot|can't|can not|unable|won't|not able)"
    r"|^I (?:cannot|can't|can not|won't|am unable|'m unable)",
    re.IGNORECASE,
)
# Markdown code-fence lines anywhere (normalize drops only an opening fence at the start).
FENCE_LINE = re.compile(r"^[ \t]*(?:```|~~~)[^\n`~]*$", re.MULTILINE)


def unwrap(output: Optional[str]) -> str:
    """The model's own turn (:func:`own_turn`) without simple HTML tags and Markdown fence lines."""
    return FENCE_LINE.sub("", HTML_TAG.sub("", own_turn(output)))


_SENTENCE = re.compile(r"(?<=[。！!？?\n])")


def drop_questions(text: str) -> str:
    """``text`` without its sentences that end in a question mark: a question ("这是诈骗吗？不是",
    "他是凶手吗？不是") names no answer. Linear in the length of the text."""
    if "?" not in text and "？" not in text:
        return text
    return "".join(part for part in _SENTENCE.split(text) if not part.endswith(("?", "？")))


def is_refusal(text: Optional[str]) -> bool:
    """Say whether an output is a refusal: empty/missing, or a refusal phrase (SPEC §4.1, §4.6).

    Args:
        text: raw model output (``None`` = missing, e.g. a content-filter block with null content).

    Returns:
        ``True`` for ``None``, an empty answer after ``<think>`` removal and end-marker cutting,
        or a text that contains a refusal phrase ("抱歉，我无法…", "作为一个AI…", "不便回答",
        "无法提供相关信息", "I'm sorry, I cannot…"). Callers consult it only when no answer could
        be read (so invalid ≥ refusal).
    """
    answer = normalize(text)
    return not answer or bool(_REFUSAL.search(answer))


def is_clear_refusal(output: Optional[str]) -> bool:
    """Say whether an output is empty or a clear refusal (strict rule, SPEC §4.6 ``refusal``).

    Stricter than :func:`is_refusal` (which fires on words such as 敏感, 违反…规定 anywhere): the
    normalised output must *start* with an apology or an "as an AI" disclaimer followed by an
    inability in the same sentence ("抱歉，我无法判断…", "I'm sorry, I cannot…"), or with
    我无法回答/无法作答/不便回答/不便透露/无法提供相关信息….

    Args:
        output: raw model output (``None`` = missing).

    Returns:
        ``True`` for a missing/empty answer or a clear refusal.
    """
    answer = normalize(unwrap(output))
    return not answer or bool(_CLEAR_REFUSAL.search(answer))


# --------------------------------------------------------------------------- negation

#: Words that, right before a mention of a label, make it name no label (in a two-label task: the
#: other label): "不是诈骗", "并非谣言", "非诈骗", "不太可能是诈骗".
NEGATIONS: tuple[str, ...] = ("不是", "并非", "不属于", "不构成", "不算", "不为", "而非", "非", "不",
                              "不可能是", "不太可能是", "不像是", "不像", "不应是", "不应该是", "谈不上",
                              "没有", "未发现", "未见", "不存在", "不太")
#: A mention right after one of these, or right before 与否, is part of a question or of another
#: word and names no label: "是否是诈骗", "无法判断是否诈骗", "正确与否", "反诈骗宣传".
NAMES_NOTHING_BEFORE: tuple[str, ...] = ("是否", "是否是", "是否为", "是否属于", "是不是", "能否", "可否",
                                         "有无", "反", "防")
NAMES_NOTHING_AFTER: tuple[str, ...] = ("与否",)
