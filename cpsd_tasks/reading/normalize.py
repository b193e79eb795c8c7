"""Normalisation of an answer or a gold string for comparison (docs/metrics.md#normalisation), and the two
views of the model's own turn the label and judgement readers start from."""

from __future__ import annotations

import functools
import re
from typing import Optional

from cpsd_tasks.reading.prepare import (
    FENCE_LINE,
    HTML_TAG,
    canonical_declarations,
    fold_traditional,
    strip_edges,
)
from cpsd_tasks.reading.turns import own_turn


def normalize(text: Optional[str]) -> str:
    """Normalise an answer or a gold string for comparison (docs/metrics.md#normalisation).

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

