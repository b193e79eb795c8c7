"""Pattern builders: regular-expression pieces made from the word lists of :mod:`cpsd_tasks.reading.lexicon`.

An alternation of literal words matches the same strings in any order except where one word is a
prefix of another (the first that fits wins); :func:`alternatives` puts every word before its
prefixes (longest first, otherwise in the order given), so a list's order never changes what it reads.
"""

from __future__ import annotations

import re
from typing import Iterable


def alternatives(*groups: Iterable[str], without: Iterable[str] = ()) -> str:
    """``a|b|c`` of the words of ``groups`` (each escaped, duplicates and ``without`` dropped), longest first.

    >>> alternatives(("答", "答案"), ("结论",))
    '答案|结论|答'
    """
    dropped = set(without)
    words = list(dict.fromkeys(word for group in groups for word in group if word not in dropped))
    if not words:
        raise ValueError("alternatives: no word left")
    return "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))


def one_of(*groups: Iterable[str], without: Iterable[str] = ()) -> str:
    """``(?:a|b|c)``: :func:`alternatives` as one non-capturing group."""
    return f"(?:{alternatives(*groups, without=without)})"
