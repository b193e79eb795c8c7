"""Span answers: the names a span answer gives (:func:`name_set`, docs/metrics.md#case-reading)."""

from __future__ import annotations

import re
from typing import Optional

from cpsd_tasks.reading.normalize import normalize

_NAME_SPLIT = re.compile(r"[、，,;；和及与\s]+")
# A role title before a name ("被告人汤某丙") is not part of the name.
_ROLE_TITLE = re.compile(r"^(?:原审被告人|被告人|被害人|受害人|犯罪嫌疑人|嫌疑人|被上诉人|上诉人|证人|报案人|报警人|"
                         r"同案犯|被告|民警)(?=[^人])")


def name_set(text: Optional[str]) -> frozenset[str]:
    """The set of names an answer gives: split on 、，,;；和及与 and whitespace (docs/metrics.md#case-reading).

    Each piece is normalised and loses a leading role title (被告人/被害人/犯罪嫌疑人/证人/报案人…),
    so "被告人汤某丙、郭某" and "郭某，汤某丙" give the same set (project rule; the paper is silent).

    Args:
        text: an answer or a gold string (``None`` allowed).

    Returns:
        The non-empty names as a frozenset (empty for an empty answer).
    """
    pieces = (_ROLE_TITLE.sub("", normalize(piece)) for piece in _NAME_SPLIT.split(normalize(text)))
    return frozenset(piece for piece in pieces if piece)
