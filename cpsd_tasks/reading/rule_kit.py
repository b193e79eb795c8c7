"""What every option-letter rule receives and returns.

A rule of :data:`cpsd_tasks.reading.letters.RULES` is a function ``rule(turn: Turn) -> Optional[frozenset]``:

* ``None`` — the rule does not apply: the next rule is tried;
* a non-empty frozenset of letters — the answer; no later rule is tried;
* a :class:`NoAnswer` (an empty frozenset with a ``reason``) — the rule decides that the turn gives
  no answer (``"declarations take each other back"``); no later rule is tried.

The rule's name (``rule.__name__``) is what the sample's ``reading`` record logs as ``"rule"``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cpsd_tasks.reading.question import Context


class NoAnswer(frozenset):
    """An empty letter set that says why nothing was read (falsy, equal to ``frozenset()``).

    >>> NoAnswer("letters recited in a loop").reason
    'letters recited in a loop'
    """

    reason: str

    def __new__(cls, reason: str) -> "NoAnswer":
        made = super().__new__(cls)
        made.reason = reason
        return made

    def __repr__(self) -> str:
        return f"NoAnswer({self.reason!r})"


@dataclass
class Turn:
    """One turn of an output as the rules read it (built once per turn by the engine).

    Attributes:
        text: the turn, prepared (letters mapped to themselves, ``A.A B.B``, removed).
        ctx: the question (:class:`~cpsd_tasks.reading.question.Context`).
        labels: the letters used as labels in the turn (``A:…``, ``B.…``, letters on lines of their own).
        option_list: the turn restates the option list (two or more labels, or three options' texts).
        answer: ``text`` with its edges stripped (:func:`~cpsd_tasks.reading.prepare.strip_edges`).
        memo: values one rule computes and a later one reuses (each a pure function of the turn).
    """

    text: str
    ctx: Context
    labels: set[str]
    option_list: bool
    answer: str
    memo: dict[str, Any] = field(default_factory=dict)
