"""The project's own exception types, in a module that imports nothing of the project (so the data
layer and the run options can both raise them without importing each other)."""

from __future__ import annotations


class DataError(ValueError):
    """Bad data: the message names file, line, field and what was expected (docs/data.md#record-format).

    Attributes:
        headline: what kind of problem this is, for the one-line heading ``cpsd-eval`` prints
            above the message (``bad data``; ``missing few-shot examples`` …).
        problems: every problem, one line each (``<file>:<line>: field '<name>': …``); the
            message itself when not given.
    """

    def __init__(self, message: str, headline: str = "bad data", problems: tuple[str, ...] | list[str] = ()):
        super().__init__(message)
        self.headline = headline
        self.problems = list(problems) or [message]
