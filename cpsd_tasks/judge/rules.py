"""The judge package's one bridge to the rule readers.

Everything :mod:`cpsd_tasks.judge` needs from the answer-reading modules is imported here, so the
path is changed in one place when those modules move: a doc's options as ``{letter: text}``
(:func:`options_of`) and the plugin's own reading of option letters (:func:`rule_letters`, used
by the audit to compare the judge with the rules).
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

from cpsd_tasks.reading import letters_of, read_choices


def options_of(options: Any) -> dict[str, str]:
    """A doc's options as ``{letter: text}`` (harness list of ``{"key", "text"}`` or the file's
    ``{letter: text}``; ``{}`` for none) — :func:`cpsd_tasks.reading.letters_of`."""
    return letters_of(options)


def rule_letters(output: Optional[str], options: Mapping[str, str], question: Optional[str]) -> Optional[str]:
    """The letters the rules read from ``output`` (sorted, e.g. ``"AC"``), ``None`` when none —
    :func:`cpsd_tasks.reading.read_choices`."""
    return read_choices(output, dict(options), question).letters
