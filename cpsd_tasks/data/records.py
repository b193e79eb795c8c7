"""What valid data is: the fields of each record kind and the check of each (docs/data.md#record-format).

One short check per record kind (``classification``, ``ner``, ``re``, ``reading``, ``exam``,
``generation``), each adding ``<file>:<line>: field '<name>': expected …, got …`` problems to a
:class:`Problems`; :data:`FIELDS` are the fields a doc keeps, :func:`content_key` what makes two
docs the same. :mod:`cpsd_tasks.data.loading` reads the files and runs these checks.
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path
from typing import Any, Callable, Optional

from cpsd_tasks.reading.prepare import LONE_SURROGATE
from cpsd_tasks.tasks import EXAM_TF_LABELS, READING_JUDGE_LABELS, TaskSpec


class Problems:
    """Collects the problems of one file; each is ``file:line: field 'x': message``."""

    def __init__(self, path: Path):
        self.path = path
        self.items: list[str] = []

    def add(self, line: int, field: str, message: str) -> None:
        self.items.append(f"{self.path}:{line}: field '{field}': {message}")


def _string_problem(value: Any) -> Optional[str]:
    """What is wrong with a value that should be a non-empty string, or ``None``."""
    if not isinstance(value, str):
        return f"expected a non-empty string, got {type(value).__name__} {value!r:.40}"
    if not value.strip():
        return "expected a non-empty string, got an empty one"
    bad = LONE_SURROGATE.search(value)
    if bad:
        return (f"expected valid Unicode text, got a lone surrogate \\u{ord(bad.group()):04x} at "
                f"character {bad.start() + 1} (a broken \\u escape)")
    return None


def _text(rec: dict, key: str, line: int, probs: Problems) -> bool:
    if key not in rec:
        probs.add(line, key, "missing; expected a non-empty string")
        return False
    problem = _string_problem(rec[key])
    if problem:
        probs.add(line, key, problem)
    return problem is None


def _one_of(rec: dict, key: str, allowed: tuple[str, ...], line: int, probs: Problems) -> bool:
    if not _text(rec, key, line, probs):
        return False
    if rec[key] not in allowed:
        probs.add(line, key, f"expected one of {'/'.join(allowed)}, got {rec[key]!r:.40}")
        return False
    return True


def _check_classification(rec: dict, spec: TaskSpec, line: int, probs: Problems) -> None:
    _text(rec, "text", line, probs)
    _one_of(rec, "label", spec.labels, line, probs)


def _check_list_of_objects(rec: dict, key: str, keys: tuple[str, ...], typed: str,
                           allowed: tuple[str, ...], line: int, probs: Problems) -> None:
    value = rec.get(key)
    if not isinstance(value, list):
        probs.add(line, key, f"expected a list of {{{', '.join(keys)}}} objects, got "
                             f"{'nothing' if key not in rec else type(value).__name__}")
        return
    for i, item in enumerate(value):
        where = f"{key}[{i}]"
        if not isinstance(item, dict):
            probs.add(line, where, f"expected an object, got {type(item).__name__}")
            continue
        for k in keys:
            problem = _string_problem(item.get(k))
            if problem:
                probs.add(line, f"{where}.{k}", problem)
        if isinstance(item.get(typed), str) and item[typed] not in allowed:
            probs.add(line, f"{where}.{typed}", f"expected one of {'/'.join(allowed)}, got {item[typed]!r:.40}")


def _check_ner(rec: dict, spec: TaskSpec, line: int, probs: Problems) -> None:
    _text(rec, "text", line, probs)
    _check_list_of_objects(rec, "entities", ("type", "text"), "type", spec.labels, line, probs)


def _check_re(rec: dict, spec: TaskSpec, line: int, probs: Problems) -> None:
    _text(rec, "text", line, probs)
    _check_list_of_objects(rec, "relations", ("head", "relation", "tail"), "relation", spec.labels,
                           line, probs)


def _check_reading(rec: dict, spec: TaskSpec, line: int, probs: Problems) -> None:
    _text(rec, "context", line, probs)
    _text(rec, "question", line, probs)
    if _one_of(rec, "qtype", spec.labels, line, probs) and rec["qtype"] == "判断":
        _one_of(rec, "answer", READING_JUDGE_LABELS, line, probs)
    else:
        _text(rec, "answer", line, probs)


_LETTERS = re.compile(r"^[A-Z]+$")


def _check_exam(rec: dict, spec: TaskSpec, line: int, probs: Problems) -> None:
    _text(rec, "question", line, probs)
    options = rec.get("options")
    if not isinstance(options, dict):
        probs.add(line, "options", "expected an object of letter -> text ({} for 判断), got "
                                   f"{'nothing' if 'options' not in rec else type(options).__name__}")
        options = None
    else:
        for key, value in options.items():
            if not (len(key) == 1 and _LETTERS.match(key)):
                probs.add(line, "options", f"expected single capital letters as keys, got {key!r}")
            problem = _string_problem(value)
            if problem:
                probs.add(line, f"options.{key}", problem)
    if not _one_of(rec, "qtype", spec.labels, line, probs):
        _text(rec, "answer", line, probs)
        return
    qtype = rec["qtype"]
    if qtype == "判断":
        _one_of(rec, "answer", EXAM_TF_LABELS, line, probs)
        return
    if options is not None and len(options) < 2:
        probs.add(line, "options", f"expected at least two options for a {qtype} question")
    if not _text(rec, "answer", line, probs):
        return
    answer = rec["answer"]
    if not _LETTERS.match(answer):
        probs.add(line, "answer", f"expected option letters, got {answer!r:.40}")
    elif qtype == "单选" and len(answer) != 1:
        probs.add(line, "answer", f"expected one letter for 单选, got {answer!r}")
    elif qtype == "多选" and (answer != "".join(sorted(set(answer))) or len(answer) < 2):
        probs.add(line, "answer", f"expected two or more sorted, distinct letters for 多选 (e.g. 'ACD'), "
                                  f"got {answer!r}")
    elif options is not None and any(letter not in options for letter in answer):
        probs.add(line, "answer", f"expected letters among the options {''.join(sorted(options))}, "
                                  f"got {answer!r}")


def _check_generation(rec: dict, spec: TaskSpec, line: int, probs: Problems) -> None:
    _text(rec, "input", line, probs)
    _text(rec, "reference", line, probs)


RECORD_CHECKS: dict[str, Callable[[dict, TaskSpec, int, Problems], None]] = {
    "classification": _check_classification,
    "ner": _check_ner,
    "re": _check_re,
    "reading": _check_reading,
    "exam": _check_exam,
    "generation": _check_generation,
}

#: Fields kept for each task kind, in this order (extra fields in the file are ignored).
FIELDS: dict[str, tuple[str, ...]] = {
    "classification": ("id", "text", "label"),
    "ner": ("id", "text", "entities"),
    "re": ("id", "text", "relations"),
    "reading": ("id", "context", "question", "answer", "qtype"),
    "exam": ("id", "question", "options", "answer", "qtype"),
    "generation": ("id", "input", "reference"),
}


#: Keys kept inside list items (extra keys such as offsets are ignored, like extra fields).
ITEM_KEYS: dict[str, tuple[str, ...]] = {"entities": ("type", "text"), "relations": ("head", "relation", "tail")}


#: The fields that make a doc's content, per task kind: a few-shot doc with the same content as a
#: test doc would show that test doc solved in its own prompt.
CONTENT_FIELDS: dict[str, tuple[str, ...]] = {
    "classification": ("text",),
    "ner": ("text",),
    "re": ("text",),
    "reading": ("context", "question"),
    "exam": ("question", "options"),
    "generation": ("input",),
}

_ALL_SPACE = re.compile(r"\s+")


def content_key(rec: dict[str, Any], kind: str) -> tuple[str, ...]:
    """A doc's content for duplicate detection: its :data:`CONTENT_FIELDS`, NFKC-folded, with all
    whitespace removed (a copy that differs only in spacing or full-width forms is the same doc)."""
    def flat(value: Any) -> str:
        if isinstance(value, dict):  # exam options: letter order does not matter
            value = json.dumps(value, ensure_ascii=False, sort_keys=True)
        return _ALL_SPACE.sub("", unicodedata.normalize("NFKC", str(value or "")))

    return tuple(flat(rec.get(f)) for f in CONTENT_FIELDS[kind])
