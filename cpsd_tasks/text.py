"""Text helpers shared by every parser: ``<think>`` removal, normalisation, refusals, labels.

Source: SPEC.md §4 (normalisation and ``<think>`` rules), §4.1 (label reading), §4.6 (refusals).
All functions are pure, accept ``None`` (a missing model answer) and never raise on model output.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Iterable, Mapping, Optional

_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)
#: A lone UTF-16 surrogate: what a broken \\u escape decodes to; not valid Unicode text.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")

# Characters stripped from both ends of an answer: ASCII and CJK punctuation, quotes, brackets,
# Markdown emphasis/heading marks. After NFKC, full-width ASCII forms are already half-width.
_EDGE_CHARS = (
    " \t\r\n\u3000"
    "\"'`*#_~>-=+|.,;:!?()[]{}<>/\\"
    "。，、；：！？“”‘’「」『』《》〈〉【】〔〕（）…—·～"
)
# A leading answer prefix such as 答案：/ 答： / 回答: / Answer: / 最终答案是 / 结论：
_PREFIX = (r"(?:最终答案|正确答案|答案|回答|结论|结果|分类结果|分类|判断结果|判断|answer|final answer)"
           r"\s*(?:是|为)?\s*[:：]?\s*|答\s*[:：]\s*")

# Refusals: a safety refusal or an inability statement (SPEC §4.1 refusal_rate, §4.6 refusal).
_REFUSAL = re.compile(
    r"(抱歉|对不起|很遗憾|作为一个?(?:人工智能|AI|语言模型|大模型)|我(?:无法|不能|没有办法|不便|不可以)"
    r"|无法(?:回答|提供|协助|完成|处理)|不能(?:回答|提供|协助)|敏感|违反.{0,6}(?:政策|规定|法律)"
    r"|I(?:'m| am) sorry|I (?:cannot|can't|can not|won't)|as an AI|unable to (?:help|assist|comply))",
    re.IGNORECASE,
)


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


def answer_text(text: Optional[str]) -> str:
    """The answer part of an output, Unicode NFKC-folded: :func:`strip_think`, then NFKC.

    Full-width letters, digits and punctuation become their ASCII forms (SPEC §4) and zero-width
    characters are removed; nothing else is stripped. Returns ``""`` for ``None``, empty output
    or an unclosed ``<think>``.
    """
    return _ZERO_WIDTH.sub("", unicodedata.normalize("NFKC", strip_think(text)))


# Zero-width characters and a stray byte-order mark are invisible and never part of an answer.
_WHITESPACE = re.compile(r"\s+")
_ZERO_WIDTH = re.compile("[\u200b-\u200d\u2060\ufeff]")
# Simple HTML tags (<b>, </span>, <br/>) and a Markdown code fence's opening line (```json).
# Tag names are lower-case only, so an option letter in brackets (<B>) is not taken for a tag.
HTML_TAG = re.compile(r"</?(?:b|i|u|s|em|strong|span|p|div|br|hr|code|pre|font|mark|small|sup|sub|"
                      r"h[1-6]|li|ul|ol|td|th|tr|table|blockquote)(?:\s[^<>]{0,100})?\s?/?>")
_FENCE_OPEN = r"\s*`{3,}[A-Za-z0-9_+-]{0,20}[ \t]*\n"
# Everything normalize() drops from the front, in one pass (linear: one character or one whole
# prefix per repetition, no nested quantifier): fence openers, answer prefixes, edge characters.
_LEADING = re.compile(f"(?:{_FENCE_OPEN}|{_PREFIX}|[{re.escape(_EDGE_CHARS)}])+", re.IGNORECASE)


def normalize(text: Optional[str]) -> str:
    """Normalise an answer or a gold string for comparison (SPEC §4).

    Steps: ``<think>`` removal, Unicode NFKC (full-width to half-width), zero-width characters and
    simple HTML tags (``<b>``, ``</span>``) removed, a Markdown code fence's opening line
    (```` ```json ````) removed, then leading "答案：/答：/Answer:" style prefixes and whitespace,
    punctuation, quotes and Markdown marks (``**``, ``#``, backticks) stripped from the front, in
    any order and number, and the same marks from the end. Other inner text is left as it is.
    Linear in the length of the text.

    Args:
        text: any string or ``None``.

    Returns:
        The normalised string; ``""`` for ``None``/empty input.
    """
    text = HTML_TAG.sub("", answer_text(text))
    leading = _LEADING.match(text)
    if leading:
        text = text[leading.end():]
    return text.rstrip(_EDGE_CHARS)


def is_refusal(text: Optional[str]) -> bool:
    """Say whether an output is a refusal: empty/missing, or a refusal phrase (SPEC §4.1, §4.6).

    Args:
        text: raw model output (``None`` = missing, e.g. a content-filter block with null content).

    Returns:
        ``True`` for ``None``, an empty answer after ``<think>`` removal, or a text that contains a
        refusal phrase ("抱歉，我无法…", "作为一个AI…", "I'm sorry, I cannot…"). Callers that also
        read a label decide refusal only when no label could be read (so invalid ≥ refusal).
    """
    answer = normalize(text)
    return not answer or bool(_REFUSAL.search(answer))


_NEGATIONS = ("不是", "并非", "不属于", "不构成", "不算", "不为", "而非", "非", "不", "不可能是",
              "不太可能是", "不像是", "不应是", "不应该是", "谈不上")
# A mention right after one of these, or right before 与否, is part of a question or of another
# word and names no label: "是否是诈骗", "无法判断是否诈骗", "正确与否", "反诈骗宣传".
_NAMES_NOTHING_BEFORE = ("是否", "是否是", "是否为", "是否属于", "是不是", "能否", "可否", "有无",
                         "反", "防")
_NAMES_NOTHING_AFTER = ("与否",)


def read_label(text: Optional[str], labels: Iterable[str],
               aliases: Optional[Mapping[str, str]] = None) -> Optional[str]:
    """Read the one label a free-text answer names (SPEC §4.1 ``acc_fuzzy``).

    Rules: all surface forms (labels and aliases) are searched in the normalised text with its
    whitespace removed; where two overlap, the longest wins (so ``非谣言`` is not read as
    ``谣言``). A mention preceded by a negation ("不是诈骗", "并非谣言", "非诈骗", "不太可能是诈骗")
    does not name its label; in a two-label task it names the other label instead. A mention that
    is part of a question or of another word ("是否是诈骗", "正确与否", "反诈骗宣传") names nothing.
    If the remaining mentions name exactly one distinct label, that label is returned; zero or
    several different labels give ``None``.

    Args:
        text: raw model output or ``None``.
        labels: the task's canonical labels.
        aliases: optional extra surface forms -> canonical label.

    Returns:
        One canonical label, or ``None`` when no single label can be read.
    """
    labels = tuple(labels)
    forms = {label: label for label in labels}
    forms.update(aliases or {})
    answer = _WHITESPACE.sub("", normalize(text))
    if not answer:
        return None
    # Longest surface form first; claim character spans so shorter forms inside them are skipped.
    taken = [False] * len(answer)
    named: set[str] = set()
    for form in sorted(forms, key=len, reverse=True):
        for match in re.finditer(re.escape(form), answer):
            start, end = match.span()
            if any(taken[start:end]):
                continue
            for i in range(start, end):
                taken[i] = True
            label = forms[form]
            if (any(answer.endswith(word, 0, start) for word in _NAMES_NOTHING_BEFORE)
                    or any(answer.startswith(word, end) for word in _NAMES_NOTHING_AFTER)):
                continue
            negated = any(answer.endswith(neg, 0, start) for neg in _NEGATIONS)
            if negated:
                if len(labels) == 2:
                    named.add(labels[1] if label == labels[0] else labels[0])
                continue
            named.add(label)
    return named.pop() if len(named) == 1 else None


def strict_label(text: Optional[str], labels: Iterable[str]) -> Optional[str]:
    """Return the label that the normalised output equals exactly, else ``None`` (SPEC §4.1 ``acc``)."""
    answer = normalize(text)
    return answer if answer in set(labels) else None
