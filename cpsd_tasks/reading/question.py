"""The question as every letter and text rule compares it: :class:`Context` (built once per output
by :func:`cpsd_tasks.reading.letters.read_choices`), the forms texts are compared in
(:func:`plain_text`, :func:`compared_text`, :func:`option_target`), the question's asking clause and
its polarity (:func:`asking_clause`, :func:`negated_ask`, :data:`HEAD_NEGATIVE`), its blank
(:data:`BLANK`), and the verdicts and negations read next to an option's text
(:data:`TEXT_VERDICT`, :data:`NEGATED_CONTENT`; rules ``verdicts`` and ``option_text``)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Mapping, Optional

from cpsd_tasks.reading.normalize import normalize
from cpsd_tasks.reading.prepare import strip_edges

# --------------------------------------------------------------------------- the question, as the rules compare it


@dataclass(frozen=True)
class Context:
    """One question as every reading rule compares it (built once per output by
    :func:`cpsd_tasks.reading.letters.read_choices`)."""

    valid: frozenset[str]
    texts: Mapping[str, str]
    negative_question: bool
    targets: Mapping[str, str]          # each option's text, normalised and without punctuation
    stem: str = ""                      # the question, folded and without punctuation ("" unknown)
    blank: tuple[str, str] = ("", "")   # the stem's words right before and after its blank "（ ）"
    blank_alone: bool = False           # the blank is an interrogative ("哪个机关"): filled, it must be the whole answer
    negated_ask: bool = False           # the asking words carry a negation ("下列…不属于…的是", "错误的是")

    @property
    def stem_tail(self) -> str:
        """The question's last six characters (without punctuation), or ``""``."""
        return self.stem[-6:] if len(self.stem) >= 6 else ""

    @functools.cached_property
    def listed(self) -> str:
        """The option list as a copy of it is compared: each letter followed by its text, in order
        (``A家罪B公罪C公室告D非公室告``), or ``""`` when an option's text is unknown."""
        if any(not self.targets.get(key) for key in self.valid):
            return ""
        return "".join(key + self.targets[key] for key in sorted(self.valid))

    @functools.cached_property
    def keys_by_target(self) -> dict[str, frozenset[str]]:
        """``{option text as compared: the letters with that text}`` (two options may share one)."""
        grouped: dict[str, set[str]] = {}
        for key, target in self.targets.items():
            grouped.setdefault(target, set()).add(key)
        return {target: frozenset(keys) for target, keys in grouped.items()}

    @functools.cached_property
    def keys_by_conclusion(self) -> dict[str, frozenset[str]]:
        """``{last clause: its letter}`` for options of two or more clauses whose last clause (plain, at
        least six characters) is in no other option ("…送给教育局长何某。丁的行为构成诈骗罪" →
        "丁的行为构成诈骗罪")."""
        grouped: dict[str, set[str]] = {}
        for key, text in self.texts.items():
            clauses = [plain for clause in _CLAUSES.split(normalize(text)) if (plain := plain_text(clause))]
            if len(clauses) >= 2 and len(clauses[-1]) >= 6:
                grouped.setdefault(clauses[-1], set()).add(key)
        return {clause: frozenset(keys) for clause, keys in grouped.items() if len(keys) == 1
                and not any(clause in self.targets.get(key, "") for key in self.texts if key not in keys)}


_PLAIN_DROP = re.compile(r"[\s,，。.;；:：、\"“”'‘’!！?？()（）\[\]【】]")


def plain_text(text: str) -> str:
    """``text`` without whitespace and punctuation: texts are compared in this form."""
    return _PLAIN_DROP.sub("", text)


def compared_text(text: str) -> str:
    """A piece of output in the form an option's text is compared in (:func:`option_target`): answer prefixes
    and edge marks stripped from its front as :func:`cpsd_tasks.reading.normalize.normalize` strips them from the
    option (a leading ``《`` too), then :func:`plain_text`."""
    return plain_text(strip_edges(text))


@functools.lru_cache(maxsize=4096)
def option_target(option_text: str) -> str:
    """An option's text as the content rules compare it: normalised, without punctuation."""
    return plain_text(normalize(option_text))


# A question's blank ("经（ ）批准", "____"): the words around it make :attr:`Context.blank`.
BLANK = re.compile(r"[(（][ \t\u3000]*[)）]|_{2,}")
_CLAUSES = re.compile(r"[，,；;。:：!！]")


@functools.lru_cache(maxsize=4096)
def asking_clause(question: str) -> str:
    """The question's last clause (after its last comma or full stop), where it asks: "关于违法性认识
    错误，下列说法正确的是？" → "下列说法正确的是？" (its topic names no polarity)."""
    for clause in reversed(_CLAUSES.split(question)):
        if plain_text(clause):
            return clause
    return question


# A head that states the negative ("不应当承担…的是", "错误的是", "女儿不应向…"): it must match the
# question's own polarity (a head naming what *is* right answers the mirror question).
HEAD_NEGATIVE = re.compile(r"不|非|没|未|无需|无须|错误")


def negated_ask(question: str) -> bool:
    """Whether the question's asking clause (its last clause, after the last comma or full stop)
    carries a negation: "下列哪一罪名不属于财产犯罪?" yes; "…拒不退还，甲的行为构成何罪？" and
    "关于违法性认识错误，下列说法正确的是？" no."""
    return bool(HEAD_NEGATIVE.search(asking_clause(question)))


# --------------------------------------------------------------------------- verdicts and negations next to a text
# (read by this rule and by the verdict rule ``verdicts`` of :mod:`cpsd_tasks.reading.letters`)

# A verdict right after an option's own text ("A:该合同为附解除条件的合同是错误的。").
TEXT_VERDICT = re.compile(r"(?:(?:这个|这一|这种|该|此)?(?:的说法|说法|的表述|表述))?(?:都|均|也)?(?:(?P<pos>是?(?:正确|对)的?|(?:是)?符合(?:法律|相关|有关)?(?:法律)?规定的?|符合题意)"
                           r"|(?P<neg>是?(?:错误|不正确|错)的?|(?:是)?不符合(?:法律|相关|有关)?(?:法律)?规定的?|不符合题意))")
# A negation right before an option's text ("不构成…", "不属于…"): the text is denied, not stated.
NEGATED_CONTENT = re.compile(r"(?:不构成|不是|不属于|并非|不能|不应|不得|不会|没有|无需|不|非)$")


#: A text this alike (rapidfuzz ``ratio``, 0–100) to another option's text, and this much closer to it than to its
#: own option's, carries that other option's text: a letter's line (:mod:`cpsd_tasks.reading.option_lines`) or the
#: text after a declared letter (:func:`cpsd_tasks.reading.declarations.restated_as`).
CARRIES_CLOSE, CARRIES_CLOSE_MARGIN = 90, 5
CARRIES_NEAR, CARRIES_NEAR_MARGIN = 75, 15


def carried_option(alike: Mapping[str, float], letter: str) -> Optional[str]:
    """The option other than ``letter`` whose text a piece carries, given ``alike`` (each option's
    ``fuzz.ratio`` to the piece, 0–100), or ``None`` (:data:`CARRIES_CLOSE`, :data:`CARRIES_NEAR`)."""
    if not alike:
        return None
    mine = alike.get(letter, 0.0)
    best = max(alike, key=alike.get)
    if best != letter and (alike[best] >= CARRIES_CLOSE and alike[best] > mine + CARRIES_CLOSE_MARGIN
                           or alike[best] >= CARRIES_NEAR and alike[best] > mine + CARRIES_NEAR_MARGIN):
        return best
    return None
