"""The tolerant IE output parser: one model output → :class:`Parsed` items (docs/metrics.md#information-extraction).

:func:`parse_output` reads the model's own turn (:func:`cpsd_tasks.reading.turns.first_turn`): after the
last answer declaration first, then the whole text; in each, a bare "nothing found" answer, then
the JSON of each Markdown fence and of the text itself (strict JSON, JSON embedded in prose,
broken JSON repaired by ``json_repair`` within a character budget), then lines and tables
(:class:`~cpsd_tasks.reading.ie_items.ItemReader`). Linear time on any input; never raises on model output.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass
from typing import Any, Optional, Union

from cpsd_tasks.reading.ie_items import ItemReader
from cpsd_tasks.reading.ie_names import NONE_ANSWERS, Inventory, norm_text, task_inventory
from cpsd_tasks.reading.lexicon import IE_HEADS
from cpsd_tasks.reading.patterns import one_of
from cpsd_tasks.reading.turns import first_turn

# Every regex below runs in linear time on any input: no two unbounded quantifiers can match the
# same characters (a 50k-space line or an unclosed 50k-character fence used to take seconds).
_FENCE_INFO = re.compile(r"[ \t]*[A-Za-z0-9_-]*[ \t]*\n?")  # language tag after an opening ```
# An explicit answer declaration; the text after the last one is read first (see parse_output).
_DECLARATION = re.compile(one_of(IE_HEADS) + r"(?:如下|是|为)?[ \t]*:", re.IGNORECASE)
_MAX_NONE_CHARS = 100  # longer outputs are never a bare "无"/"none" answer
_MAX_CANDIDATES = 200  # strict JSON start positions tried per block (keeps 10k-char outputs fast)
_MAX_REPAIRS = 2  # json_repair attempts per block (it reads on past the first value)
#: Most characters handed to ``json_repair`` in one call after the strictly valid prefix (where
#: ``json.JSONDecoder`` stopped); the rest is cut off, so a broken answer is read up to here. A
#: truncated but otherwise valid answer of any length is read whole (json_repair is fast on valid
#: JSON), but json_repair is quadratic on broken input (repeated unclosed strings: 26k characters
#: took 2.4 s, 78k 21 s; ``["`` repeated: 8k characters 1.8 s); 2,500 characters cost at most
#: ~0.25 s and are ~2× the longest gold answer of the stand-in data (1,175 characters as JSON).
REPAIR_MAX_CHARS = 2_500
#: Total broken characters (as in :data:`REPAIR_MAX_CHARS`) handed to ``json_repair`` per
#: :func:`parse_output` call (all blocks together).
REPAIR_BUDGET = 2 * REPAIR_MAX_CHARS


@dataclass(frozen=True)
class Parsed:
    """What could be read from one model output.

    Attributes:
        items: NER: ``(type, text)`` pairs; RE: ``(relation, head, tail)`` triples; strings in
            comparison form (:func:`norm_text`), types/relations canonical or :data:`UNKNOWN`;
            in output order, duplicates kept.
        valid: a JSON/line answer of the required shape was found (an explicit empty answer such as
            ``[]`` or ``无`` is valid); ``False`` means unparseable (``invalid_rate``).
    """

    items: tuple[tuple[str, ...], ...]
    valid: bool


def _strict_values(text: str) -> tuple[list[tuple[int, Any]], list[tuple[int, int]]]:
    """Strict JSON values embedded in ``text`` (``json.JSONDecoder.raw_decode`` at each ``[``/``{``).

    Returns:
        ``([(start, value), …], [(start, error position), …])``, left to right: the values, and the
        start positions where no valid JSON begins with the position where strict decoding
        stopped (the start itself after a RecursionError); positions inside a decoded value are
        skipped; at most :data:`_MAX_CANDIDATES` are tried.
    """
    decoder = json.JSONDecoder()
    values: list[tuple[int, Any]] = []
    failed: list[tuple[int, int]] = []
    end = -1
    for m in itertools.islice(re.finditer(r"[\[{]", text), _MAX_CANDIDATES):
        if m.start() < end:
            continue
        try:
            value, end = decoder.raw_decode(text, m.start())
        except json.JSONDecodeError as e:
            failed.append((m.start(), max(e.pos, m.start())))
            continue
        except RecursionError:  # thousands of nested brackets
            failed.append((m.start(), m.start()))
            continue
        values.append((m.start(), value))
    return values, failed


class _Budget:
    """Characters still allowed to ``json_repair`` in one :func:`parse_output` call."""

    def __init__(self, chars: int = REPAIR_BUDGET):
        self.chars = chars


def _repaired(text: str, valid: int, budget: _Budget) -> Any:
    """``json_repair``'s reading of ``text``, whose first ``valid`` characters are strictly valid
    JSON (cheap to repair): the text is cut after ``valid`` + :data:`REPAIR_MAX_CHARS` characters,
    or what is left of ``budget``, which is charged for the characters after ``valid`` only.

    Returns:
        A list/dict, ``None`` (no JSON), or ``False`` when it gave up with an error (e.g.
        thousands of nested brackets: RecursionError) or the budget is spent; never raises.
    """
    import json_repair

    if budget.chars <= 0:
        return False
    broken = min(REPAIR_MAX_CHARS, budget.chars, len(text) - valid)
    text = text[:valid + broken]
    budget.chars -= broken
    try:
        value = json_repair.loads(text)
    except Exception:  # noqa: BLE001 - a lenient parser on arbitrary text: any failure = no value
        return False
    return value if isinstance(value, (list, dict)) else None


def _parse_block(text: str, inventory: Inventory, budget: _Budget) -> Optional[Parsed]:
    """Read items from the JSON in one block of text, or ``None`` when it holds no usable JSON.

    Order: the whole block as strict JSON; else the first strict JSON value embedded in prose
    that has items; and, when a ``[``/``{`` before that value does not start valid JSON (broken or
    truncated JSON, whose inner objects alone would parse), ``json_repair`` from there (up to
    :data:`_MAX_REPAIRS` such positions) — the
    reading with more items wins (trailing commas, single/curly quotes, unquoted keys, missing
    closing brackets are repaired; json_repair sees the strictly valid prefix plus at most
    :data:`REPAIR_MAX_CHARS` characters, and at most :data:`REPAIR_BUDGET` such characters per
    output). Nesting too deep for the ``json`` module
    (RecursionError) counts as not JSON.
    """
    def read(value: Any) -> ItemReader:
        reader = ItemReader(inventory)
        reader.read(value)
        return reader

    try:
        whole = read(json.loads(text.strip()))
    except (ValueError, RecursionError):
        pass
    else:
        return Parsed(tuple(whole.items), True) if whole.items or whole.shaped else None
    values, failed = _strict_values(text)
    best: Optional[tuple[int, ItemReader]] = None
    shaped = False
    for start, value in values:
        reader = read(value)
        if reader.items:
            best = (start, reader)
            break
        shaped = shaped or reader.shaped
    for start, stop in [f for f in failed if best is None or f[0] < best[0]][:_MAX_REPAIRS]:
        value = _repaired(text[start:], stop - start, budget)
        if value is False:  # unrepairable from here: later starts are suffixes of the same text
            break
        if value is None:
            continue
        reader = read(value)
        shaped = shaped or reader.shaped
        if reader.items:
            if best is None or len(reader.items) > len(best[1].items):
                best = (start, reader)
            break
    if best is not None:
        return Parsed(tuple(best[1].items), True)
    return Parsed((), True) if shaped else None


def _fenced(text: str) -> list[str]:
    """Bodies of the Markdown fences (```` ``` ```` … ```` ``` ````) in ``text``, language tag removed;
    linear time (an unclosed fence is not a block)."""
    parts = text.split("```")
    return [body[_FENCE_INFO.match(body).end():] for body in parts[1:-1:2]]


def parse_output(output: Optional[str], task: Union[str, Inventory]) -> Parsed:
    """Read a model's NER/RE answer (docs/metrics.md#information-extraction "The model answers in JSON …").

    Accepted: a JSON list of ``{"type","text"}`` / ``{"head","relation","tail"}`` objects, alone,
    in a Markdown fence, or with prose before/after; one object instead of a list; a wrapper
    object (``{"entities": [...]}``); grouped objects (``{"人名": ["汪某", …]}``); RE triples as
    ``["汪某", "贩卖给", "张某"]``; broken JSON repaired by ``json_repair`` (trailing commas, single
    or curly quotes); full-width punctuation (NFKC first); ``类型：实体、实体`` lines; RE lines
    ``汪某 | 贩卖给 | 张某`` or ``贩卖给：汪某，张某``; synonyms and unambiguous English names of
    types/relations (:data:`TYPE_ALIASES`, :data:`RELATION_ALIASES`); Markdown tables with a
    header row (see :meth:`ItemReader.read_table`). ``<think>`` blocks are removed first (unclosed →
    nothing to score). When the output declares its answer (``答案：``, ``答案如下：``, ``最终答案：``,
    ``Answer:``, ``Final answer:``), the text after the last declaration is read first and used
    when it holds a valid answer (so a JSON example before the answer is not scored). Linear time;
    JSON nested too deeply for the ``json`` module counts as not JSON. Items with an empty text are dropped; items with
    a type outside the inventory are kept under :data:`UNKNOWN` (false positives).

    Args:
        output: raw model output, or ``None``.
        task: ``drug_ner``, ``fraud_ner`` or ``drug_re`` (``cpsd_`` prefix allowed), read with that
            task's names; or an explicit :class:`~cpsd_tasks.reading.ie_names.Inventory` of entity
            types (:func:`~cpsd_tasks.reading.ie_names.ner_inventory`, e.g. LawBench's ten types of its
            2-6), read the same way with those names.

    Returns:
        :class:`Parsed`; never raises on model output.

    Raises:
        KeyError: unknown task id.
    """
    inventory = task if isinstance(task, Inventory) else task_inventory(task)
    text = first_turn(output)   # the model's own turn: no items from after <eoa> or an invented turn
    budget = _Budget()
    declaration = None
    for declaration in _DECLARATION.finditer(text):
        pass
    if declaration is not None:
        parsed = _parse_text(text[declaration.end():], inventory, budget)
        if parsed.valid:
            return parsed
    return _parse_text(text, inventory, budget)


def _parse_text(text: str, inventory: Inventory, budget: _Budget) -> Parsed:
    """:func:`parse_output` on an NFKC-folded, think-free text, without the declaration rule."""
    if not text.strip():
        return Parsed((), False)
    if len(text) <= _MAX_NONE_CHARS and norm_text(text) in NONE_ANSWERS:
        return Parsed((), True)
    for block in _fenced(text) + [text]:
        parsed = _parse_block(block, inventory, budget)
        if parsed is not None:
            return parsed
    reader = ItemReader(inventory)
    reader.read_lines(text)
    return Parsed(tuple(reader.items), reader.shaped)
