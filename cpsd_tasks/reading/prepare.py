"""Preparation: what every reader does to a raw output before reading it.

* **reasoning blocks** — :func:`strip_think` (text after the last ``</think>``; unclosed → empty);
* **Unicode** — :func:`answer_text` (NFKC, zero-width characters removed);
* **Traditional → Simplified folding** — OpenCC with the pinned ``t2s`` configuration
  (:data:`OPENCC_CONFIG`), :func:`fold_traditional`: ``電信詐騙`` equals ``电信诈骗``;
* **bracketed answer declarations** — ``[正确答案]B``, ``【正确答案】B``, ``正确答案]D``,
  ``<答案>C``, ``[答案]：A`` are rewritten as ``正确答案：B`` (:func:`canonical_declarations`);
* **markup** — simple HTML tags (:data:`HTML_TAG`), fence lines (:data:`FENCE_LINE`);
* **edges** — :func:`strip_edges` (fence openers, answer prefixes, edge characters
  :data:`EDGE_CHARS`; a sign or decimal point before a digit is kept), :func:`squeeze_spaces`.

Source: docs/metrics.md#normalisation (normalisation, ``<think>``). All functions are pure, accept ``None`` where
typed so and never raise on model output; every pattern is linear-time on adversarial input.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Optional

from cpsd_tasks.reading.lexicon import BRACKETED_HEADS, PREFIX_HEADS
from cpsd_tasks.reading.patterns import alternatives, one_of

# --------------------------------------------------------------------------- reasoning blocks

_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)
#: A lone UTF-16 surrogate: what a broken \\u escape decodes to; not valid Unicode text.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def strip_think(text: Optional[str]) -> str:
    """Remove a reasoning model's ``<think>…</think>`` text (docs/metrics.md#normalisation).

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
ZERO_WIDTH = re.compile("[\u200b-\u200d\u2060\ufeff]")


def answer_text(text: Optional[str]) -> str:
    """The answer part of an output, Unicode NFKC-folded: :func:`strip_think`, then NFKC.

    Full-width letters, digits and punctuation become their ASCII forms (docs/metrics.md#normalisation) and zero-width
    characters are removed; nothing else is changed (end markers and Traditional characters stay:
    generation metrics score the text as written). Returns ``""`` for ``None``, empty output or an
    unclosed ``<think>``.
    """
    return ZERO_WIDTH.sub("", unicodedata.normalize("NFKC", strip_think(text)))


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


# --------------------------------------------------------------------------- declarations

# A bracketed declaration ("[正确答案]", "【答案】", "<正确答案>", "正确答案]") and what follows it
# up to the answer, rewritten as "正确答案：" so that every reader sees one form.
_BRACKET_DECLARATION = re.compile(
    # starts only at a bracket or a head (never at whitespace: no quadratic re-scan of long runs)
    r"(?=[\[【<〔(（正最参标答])[\[【<〔(（]?[ \t]?" f"({alternatives(BRACKETED_HEADS)})" r"[ \t]?[\]】>〕)）]"
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
EDGE_CHARS = (
    " \t\r\n\u3000"
    "\"'`*#_~>-=+|.,;:!?()[]{}<>/\\"
    "。，、；：！？“”‘’「」『』《》〈〉【】〔〕（）…—·～"
)
# Edge characters that are part of a number when a digit follows (".5克", "-3", "+86…").
_NUMERIC_EDGE = ".-+"
_EDGE_CLASS = re.escape("".join(c for c in EDGE_CHARS if c not in _NUMERIC_EDGE))
# A leading answer prefix such as 答案：/ 答： / 回答: / Answer: / 最终答案是 / 结论：
_PREFIX = (one_of(PREFIX_HEADS) +
           r"\s*(?:是|为)?\s*[:：]?\s*|答\s*[:：]\s*")
# Everything normalize() drops from the front, in one pass (linear: one character or one whole
# prefix per repetition, no nested quantifier): fence openers, answer prefixes, edge characters
# (a sign or decimal point only when no digit follows it).
_LEADING = re.compile(
    f"(?:{_FENCE_OPEN}|{_PREFIX}|[{_EDGE_CLASS}]|[{re.escape(_NUMERIC_EDGE)}](?![0-9]))+",
    re.IGNORECASE,
)



def strip_edges(text: str) -> str:
    """The last step of :func:`normalize` alone, for text already prepared: fence openers, answer
    prefixes and edge characters stripped from the front, edge characters from the end."""
    leading = _LEADING.match(text)
    if leading:
        text = text[leading.end():]
    return text.rstrip(EDGE_CHARS)


def squeeze_spaces(text: str) -> str:
    """``text`` with every whitespace run removed (the form the label readers search)."""
    return _WHITESPACE.sub("", text)


_BLANKS = re.compile(r"[^\S\n]+")
_LINE_BREAK = re.compile(r" ?\n[ \n]*")


def squeeze(text: str) -> str:
    """Collapse whitespace runs to one space (one newline if the run has one), so that the
    patterns' optional whitespace cannot backtrack over long runs (no quadratic blow-up)."""
    return _LINE_BREAK.sub("\n", _BLANKS.sub(" ", text))


# Markdown code-fence lines anywhere (normalize drops only an opening fence at the start).
FENCE_LINE = re.compile(r"^[ \t]*(?:```|~~~)[^\n`~]*$", re.MULTILINE)
