"""The strict reader of a judge's reply.

A judge is a model too: its reply is read by the format its prompt asked for
(:data:`cpsd_tasks.judge.prompts.REPLY_FORMATS`) and by nothing else. A reply that names no valid
answer is no answer — never a guess, never an error string taken for an answer:

* a ``<think>…</think>`` block before the reply is dropped (reasoning judges);
* the reply must hold exactly one JSON object (a `````json`` fence and minor defects such as
  single quotes or a trailing comma are repaired by ``json-repair``; two objects — a judge
  changing its mind — are no answer);
* ``answer`` must be, after Unicode NFKC folding and trimming, exactly one allowed value: a label
  of the set given; for ``choice`` the letters of the options given (separators ``, ，、;；`` and
  spaces allowed, no letter twice, none outside the options); for ``equivalence`` 等价 or 不等价;
* ``无有效答案`` (or xFinder's ``[No valid answer]``) is the judge saying there is no answer;
* a rubric reply must give every criterion an integer 1–5.

Outcomes (:class:`JudgeReading`.status): ``answer``, ``no_answer`` (the judge found none),
``invalid`` (the reply was not in the format, or named a value outside the range).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Optional, Sequence

import json_repair

from cpsd_tasks.judge.prompts import NO_ANSWER, RUBRIC_CRITERIA, RUBRIC_SCALE

ANSWER, NO_VALID, INVALID = "answer", "no_answer", "invalid"
#: Replies meaning "the output gives no valid answer" (ours, xFinder's), compared NFKC-folded, case-folded.
NO_ANSWER_FORMS = frozenset({NO_ANSWER, "[no valid answer]", "no valid answer", "无有效答案。"})
EQUIVALENT, NOT_EQUIVALENT = "等价", "不等价"
_SEPARATORS = re.compile(r"[\s,，、;；/]+")
_THINK = re.compile(r"^\s*<think>.*?</think>", re.S)


@dataclass(frozen=True)
class JudgeReading:
    """What was read from one reply.

    Attributes:
        status: ``answer``, ``no_answer`` or ``invalid``.
        answer: the value read (a label, sorted letters such as ``"ACD"``, ``等价``/``不等价``, or
            for a rubric ``{criterion key: int}``); ``None`` unless ``status == "answer"``.
        why: for ``invalid``, a short reason (kept in ``judged_<time>.json``).
    """

    status: str
    answer: Any = None
    why: str = ""


def _fold(value: str) -> str:
    return unicodedata.normalize("NFKC", value).strip()


def reply_object(text: Optional[str]) -> Optional[dict]:
    """The one JSON object of a reply, or ``None`` (no object, several, or not an object).

    The ``<think>`` block is dropped first; the rest is parsed with ``json-repair`` (which also
    finds an object inside a code fence or after a sentence)."""
    if not text:
        return None
    body = _THINK.sub("", text).strip()
    if body.count("{") != 1:
        return None
    value = json_repair.loads(body)
    return value if isinstance(value, dict) else None


def _letters(value: str, options: Sequence[str]) -> Optional[str]:
    letters = _SEPARATORS.sub("", value).upper()
    if not letters or not letters.isascii() or not letters.isalpha():
        return None
    if len(set(letters)) != len(letters) or not set(letters) <= set(options):
        return None
    return "".join(sorted(letters))


def read_reply(text: Optional[str], kind: str, allowed: Sequence[str] = ()) -> JudgeReading:
    """Read one judge reply strictly.

    Args:
        text: the reply's content (``None`` or empty = no reply).
        kind: ``label``, ``judgement``, ``choice``, ``equivalence`` or ``rubric``.
        allowed: the labels (``label``, ``judgement``) or the option letters (``choice``).

    Returns:
        A :class:`JudgeReading`; never raises on the reply's content.

    Raises:
        ValueError: an unknown ``kind`` (a programming error, not a judge's).
    """
    if kind == "rubric":
        return read_rubric(text)
    if kind not in ("label", "judgement", "choice", "equivalence"):
        raise ValueError(f"unknown judge kind {kind!r}")
    obj = reply_object(text)
    if obj is None or set(obj) != {"answer"}:
        return JudgeReading(INVALID, why="not one JSON object with the key answer")
    value = obj["answer"]
    if not isinstance(value, str):
        return JudgeReading(INVALID, why="answer is not a string")
    value = _fold(value)
    if value.casefold() in NO_ANSWER_FORMS:
        return JudgeReading(NO_VALID)
    if kind == "choice":
        letters = _letters(value, allowed)
        if letters:
            return JudgeReading(ANSWER, letters)
        return JudgeReading(INVALID, why=f"not option letters: {value[:40]}")
    choices = (EQUIVALENT, NOT_EQUIVALENT) if kind == "equivalence" else tuple(allowed)
    if value in choices:
        return JudgeReading(ANSWER, value)
    return JudgeReading(INVALID, why=f"not one of {'/'.join(choices)}: {value[:40]}")


def read_rubric(text: Optional[str]) -> JudgeReading:
    """Read a rubric reply: every criterion of :data:`RUBRIC_CRITERIA` an integer in 1–5 (a JSON
    number such as ``4`` or ``4.0``; not a string, not a boolean), no other key.

    Returns:
        ``JudgeReading("answer", {metric suffix: int})`` or ``invalid``; a rubric has no
        ``no_answer`` (an empty output is scored 1 by the prompt's rule)."""
    obj = reply_object(text)
    if obj is None or set(obj) != set(RUBRIC_CRITERIA):
        return JudgeReading(INVALID, why="not one JSON object with the three criteria")
    scores: dict[str, int] = {}
    low, high = RUBRIC_SCALE
    for name, key in RUBRIC_CRITERIA.items():
        value = obj[name]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value) \
                or not low <= value <= high:
            return JudgeReading(INVALID, why=f"{name} is not an integer {low}-{high}")
        scores[key] = int(value)
    return JudgeReading(ANSWER, scores)
