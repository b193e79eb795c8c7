"""IE items from decoded JSON and from text lines: the shapes a model's answer takes (docs/metrics.md).

:class:`ItemReader` collects ``(type, text)`` (NER) or ``(relation, head, tail)`` (RE) items, in
comparison form (:func:`~cpsd_tasks.reading.ie_names.norm_text`), from JSON of any accepted shape (a list
of objects, one object, a wrapper, grouped objects, triples as lists) and from lines (Markdown
tables, ``类型：实体、实体``, ``head | relation | tail``, ``关系：head，tail``), filing each under the
canonical name its task's :class:`~cpsd_tasks.reading.ie_names.Inventory` gives it. Where the JSON
comes from (strict, fenced, repaired) is :mod:`cpsd_tasks.reading.ie_parse`'s business.
"""

from __future__ import annotations

import re
from typing import Any, Optional, Union

from cpsd_tasks.reading.ie_names import (HEAD_KEYS, NONE_ANSWERS, PERSON_TAIL_RELATIONS, REL_KEYS, TAIL_KEYS,
                                         TEXT_KEYS, TYPE_KEYS, UNKNOWN, Inventory, lookup_key, norm_text,
                                         task_inventory)

# Every regex below runs in linear time on any input: no two unbounded quantifiers can match the
# same characters (a 50k-space line or an unclosed 50k-character fence used to take seconds).
# 类型：值 line: optional list marker, type (1–16 characters, starting with a non-space, optionally
# **bold**), colon, value (stripped afterwards).
_LINE = re.compile(r"^\s*(?:(?:[-*+•·]|\d{1,3}[.、)])\s*)?(?:\*\*)?([^:\s][^:\n]{0,15}?)(?:\*\*)?[ \t]*:(.+)$")
_VALUE_SPLIT = re.compile(r"[、;]|(?<!\d),|,(?!\d)")
_GROUP_SPLIT = re.compile(r"([;,])")  # separators that may also start a new 类型：值 group on one line
_TRIPLE_SPLIT = re.compile(r"->|→|=>|—+|[|\t]|(?<!\d),|,(?!\d)|(?<!\d)-+(?!\d)")  # parts are stripped
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9]{0,10}(?:\s[^<>\n]{0,200})?/?>")  # <b>, </b>, <br/>, <span …>
_NOTE = re.compile(r"\([^()]*\)$")  # a trailing parenthetical note "张某 (主犯)" (after NFKC: ASCII parens)
#: JSON nesting read into items (deeper values are ignored, never recursed into).
_MAX_DEPTH = 6


def _first(d: dict[str, Any], keys: frozenset[str]) -> Any:
    for k, v in d.items():
        if isinstance(k, str) and lookup_key(k) in keys:
            return v
    return None


def field_strings(value: Any, depth: int = 0) -> list[str]:
    """A field value as a list of strings (a list of strings stays a list, scalars become one;
    lists nested deeper than :data:`_MAX_DEPTH` are ignored)."""
    if isinstance(value, list):
        return [s for v in value for s in field_strings(v, depth + 1)] if depth <= _MAX_DEPTH else []
    text = norm_text(value)
    return [text] if text else []


class ItemReader:
    """Collect NER/RE items from decoded JSON of any of the accepted shapes and from lines.

    Args:
        task: one of the plugin's IE task ids (``drug_ner``, ``fraud_ner``, ``drug_re``; its
            :func:`~cpsd_tasks.reading.ie_names.task_inventory`) or an explicit
            :class:`~cpsd_tasks.reading.ie_names.Inventory` (:func:`~cpsd_tasks.reading.ie_names.ner_inventory`).

    Raises:
        KeyError: unknown task id.
    """

    def __init__(self, task: Union[str, Inventory]):
        self.inventory = task if isinstance(task, Inventory) else task_inventory(task)
        self.kind = self.inventory.kind
        self.items: list[tuple[str, ...]] = []
        self.shaped = False  # saw a structure of the required shape (possibly empty)

    def type_of(self, name: Any) -> Optional[str]:
        """The canonical type (NER) or relation (RE) ``name`` stands for, ``None`` when it is none of the task's."""
        return self.inventory.canonical(name)

    def read(self, value: Any, depth: int = 0) -> None:
        if depth > _MAX_DEPTH:
            return
        if isinstance(value, list):
            if not value:
                self.shaped = True
            if all(isinstance(v, str) for v in value):
                if self.kind == "re" and len(value) == 3 and self.type_of(value[1]):
                    self.add_triple(value[1], value[0], value[2])  # ["汪某", "贩卖给", "张某"]
                    return
                if self.kind == "ner" and len(value) == 2 and self.type_of(value[0]):
                    self.add_entity(value[0], norm_text(value[1]))  # ["人名", "汪某"]
                    return
            for v in value:
                self.read(v, depth + 1)
        elif isinstance(value, dict):
            self.read_dict(value, depth)

    def read_dict(self, d: dict[str, Any], depth: int) -> None:
        if not d:
            self.shaped = True
            return
        if self.kind == "re":
            head, rel, tail = _first(d, HEAD_KEYS), _first(d, REL_KEYS), _first(d, TAIL_KEYS)
            if head is not None and tail is not None and rel is not None:
                self.add_triple(rel, head, tail)
                return
        else:
            typ, text = _first(d, TYPE_KEYS), _first(d, TEXT_KEYS)
            if typ is not None and text is not None:
                for s in field_strings(text):
                    self.add_entity(typ, s)
                self.shaped = True
                return
        grouped = [(k, v) for k, v in d.items() if self.type_of(k)]
        if grouped:
            for k, v in grouped:
                if self.kind == "re":  # {"贩卖给": [{"head":…, "tail":…}], …}
                    for pair in (v if isinstance(v, list) else [v]):
                        if isinstance(pair, dict):
                            h, t = _first(pair, HEAD_KEYS), _first(pair, TAIL_KEYS)
                            if h is not None and t is not None:
                                self.add_triple(k, h, t)
                else:  # {"人名": ["汪某", "张某"], "时间": "…"}
                    for s in field_strings(v):
                        self.add_entity(k, s)
            self.shaped = True
            return
        for v in d.values():  # wrapper such as {"entities": [...]} / {"result": {...}}
            if isinstance(v, (list, dict)):
                self.read(v, depth + 1)

    def add_entity(self, typ: Any, text: str) -> None:
        self.shaped = True
        if text:
            self.items.append((self.type_of(typ) or UNKNOWN, text))

    def add_triple(self, rel: Any, head: Any, tail: Any) -> None:
        self.shaped = True
        # an argument given as an entity object {"text": "汪某", "type": "人名"} counts by its text
        head, tail = (_first(a, TEXT_KEYS) if isinstance(a, dict) else a for a in (head, tail))
        h, t = norm_text(head), norm_text(tail)
        if h and t:
            self.items.append((self.type_of(rel) or UNKNOWN, h, t))

    def read_lines(self, text: str) -> None:
        """Line formats: Markdown tables, ``类型：实体、实体`` lines (NER), ``head | relation | tail`` or
        ``关系：head，tail`` lines (RE). Simple HTML tags (``<b>``, ``</b>``, ``<br/>``) are removed
        first; one line may hold several ``类型：值`` groups separated by ``;`` or ``,``."""
        lines = [_HTML_TAG.sub("", line) for line in text.splitlines()]
        i = 0
        while i < len(lines):
            consumed = self.read_table(lines, i)
            if consumed:
                i += consumed
                continue
            for group in self.groups(lines[i]):
                self.read_line(group)
            i += 1

    def read_table(self, lines: list[str], i: int) -> int:
        """Read a Markdown table starting at ``lines[i]`` (header row, ``---`` separator row, data
        rows up to the first line without ``|``); each row is read as the JSON object
        ``{header cell: row cell}`` (so ``| 类型 | 实体 |``, ``| 头实体 | 关系 | 尾实体 |`` and
        ``| 人名 | 地点 |`` headers work). Returns the number of lines consumed, 0 when there is no
        table here or its header names no known field/type."""
        header = _cells(lines[i])
        if len(header) < 2 or i + 1 >= len(lines):
            return 0
        separator = _cells(lines[i + 1])
        if len(separator) != len(header) or not all(re.fullmatch(r":?-+:?", c) for c in separator):
            return 0
        table = ItemReader(self.inventory)
        j = i + 2
        while j < len(lines):
            row = _cells(lines[j])
            if not row:
                break
            table.read_dict(dict(zip(header, row)), 0)
            j += 1
        if not table.shaped:
            return 0
        self.items.extend(table.items)
        self.shaped = True
        return j - i

    def groups(self, line: str) -> list[str]:
        """``line`` cut at each ``;``/``,`` that is followed by a new ``类型：值`` group (known type)."""
        parts = _GROUP_SPLIT.split(line)
        groups = [[parts[0]]]
        for sep, segment in zip(parts[1::2], parts[2::2]):
            m = _LINE.match(segment)
            if m and self.type_of(m.group(1)):
                groups.append([segment])
            else:
                groups[-1] += [sep, segment]
        return ["".join(g) for g in groups]

    def read_line(self, line: str) -> None:
        """One ``类型：值`` group or RE triple line. A trailing parenthetical note is dropped from
        person values (``人名：张某 (主犯)`` → 张某): NER types of the inventory's ``person_types``
        (:data:`~cpsd_tasks.reading.ie_names.PERSON_TYPES` for the plugin's tasks), RE heads, and tails of
        :data:`PERSON_TAIL_RELATIONS`."""
        if self.kind == "re":
            parts = [p for p in (norm_text(x) for x in _TRIPLE_SPLIT.split(line.strip(" ()[]（）【】<>"))) if p]
            if len(parts) == 3 and self.type_of(parts[1]):
                self.add_triple(parts[1], parts[0], parts[2])
                return
        m = _LINE.match(line)
        typ = self.type_of(m.group(1)) if m else None
        if not typ:
            return
        raw = [v for v in _VALUE_SPLIT.split(m.group(2)) if (n := norm_text(v)) and n not in NONE_ANSWERS]
        if self.kind == "re":
            if len(raw) == 2:
                tail = _drop_note(raw[1]) if typ in PERSON_TAIL_RELATIONS else raw[1]
                self.add_triple(typ, norm_text(_drop_note(raw[0])), norm_text(tail))
            elif len(raw) == 1:
                pair = [p for p in re.split(r"->|→|=>|—+|(?<!\d)-+(?!\d)", norm_text(raw[0])) if p]
                if len(pair) == 2:
                    self.add_triple(typ, pair[0], pair[1])
        else:
            self.shaped = True
            for v in raw:
                self.add_entity(typ, norm_text(_drop_note(v) if typ in self.inventory.person_types else v))


def _cells(line: str) -> list[str]:
    """Cells of a Markdown table row (outer ``|`` optional), or ``[]`` for a line without ``|``."""
    line = line.strip()
    if "|" not in line:
        return []
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|"):
        line = line[:-1]
    return [c.strip() for c in line.split("|")]


def _drop_note(value: str) -> str:
    """``value`` without a trailing ``(…)`` note (``张某 (主犯)`` → ``张某 ``); unchanged when nothing
    would be left."""
    cut = _NOTE.sub("", value.rstrip(), count=1)
    return cut if norm_text(cut) else value
