"""Information extraction: output parser and the paper's hybrid exact + Levenshtein metric (SPEC §4.2).

Tasks ``cpsd_drug_ner`` (人名/时间/地点/毒品类型/毒品数量), ``cpsd_fraud_ner``
(报案人/时间/地点/金额/社交账号/电话号码) and ``cpsd_drug_re`` (贩卖毒品/贩卖给/持有/非法容留).

Pipeline for one document:

1. :func:`parse_output` reads the model output (JSON, repaired JSON, or ``类型：实体`` lines) into
   items: ``(type, text)`` for NER, ``(relation, head, tail)`` for RE. Unparseable → no items and
   ``valid=False`` (counted in ``invalid_rate``); it never raises on model output.
2. :func:`match_entities` / :func:`match_relations` count, per type (NER) or relation (RE), exact
   and fuzzy true positives on multisets: exact matches first, then on what is left the best
   one-to-one assignment (``scipy.optimize.linear_sum_assignment``, maximum number of pairs, ties
   to the highest total similarity) among pairs whose rapidfuzz normalised Levenshtein similarity
   is ≥ τ. Exact-only types (:data:`EXACT_ONLY_TYPES`) never match fuzzily; strings shorter than
   :data:`MIN_FUZZY_LEN` characters never match fuzzily either.
3. :func:`doc_scores` turns the counts into per-document P/R/F1 (exact, fuzzy, and the mix
   ``α·exact + (1−α)·fuzzy``); a document with no gold and no prediction scores 1, one with only
   one of the two scores 0.

Metrics (see the task YAMLs): ``precision``, ``recall``, ``f1`` (document averages of the mixed
scores, the paper's way), ``f1_exact``, ``f1_fuzzy`` (document averages), ``f1_micro`` (counts
pooled over documents, then the α mix), ``f1_<type>`` per type or relation (pooled, α mix),
``invalid_rate``, ``score`` (= ``f1``). The α and τ used are in the task's scoring signature
(``configs.<task>.metadata.cpsd_signature`` of the results JSON, :mod:`cpsd_tasks.options`).
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Optional, Sequence

from cpsd_tasks.options import get_option
from cpsd_tasks.specs import CountItem
from cpsd_tasks.taxonomy import error_class, reading
from cpsd_tasks.tasks import get_task
from cpsd_tasks.reader import first_turn
from cpsd_tasks.text import answer_text, is_refusal, normalize  # noqa: F401

#: Defaults of the mix weight α and the fuzzy threshold τ (SPEC §4.2).
DEFAULT_ALPHA = 0.5
DEFAULT_TAU = 0.8
#: Types that never match fuzzily (SPEC §4.2): names, amounts, identifiers.
EXACT_ONLY_TYPES = frozenset({"人名", "报案人", "金额", "电话号码", "社交账号"})
#: Length floor (characters, after normalisation) for a fuzzy match: both strings must be at least
#: this long. At τ = 0.8 no string of ≤ 3 characters can reach τ with a single edit anyway; the
#: floor keeps a lowered τ from pairing 2–3 character strings such as 冰毒/冰糖 or 当晚/当天.
MIN_FUZZY_LEN = 4
#: NER types that are persons: a trailing "(主犯)" style note is dropped from their line values.
PERSON_TYPES = frozenset({"人名", "报案人"})
#: RE relations whose tail is a person (exact) or a drug (may match fuzzily) (SPEC §4.2).
PERSON_TAIL_RELATIONS = frozenset({"贩卖给", "非法容留"})
DRUG_TAIL_RELATIONS = frozenset({"贩卖毒品", "持有"})
#: Bucket of predictions whose type/relation is not in the task's inventory: they count as
#: predictions (false positives) and never match.
UNKNOWN = "<unknown>"


_KEY_DROP = re.compile(r"[\s_\-]+")
_SPACES = re.compile(r"\s+")


#: JSON keys and type/relation names up to this many characters go through an LRU cache (the same
#: few names recur in every output); longer ones (a model can write any key) are not kept.
KEY_CACHE_MAX_CHARS = 64


def _key_uncached(text: str) -> str:
    return _KEY_DROP.sub("", normalize(text)).casefold()


_key_cached = functools.lru_cache(maxsize=4096)(_key_uncached)


def _key(text: str) -> str:
    """Lookup form of a type/relation/field name: normalised, no spaces/_/-, case-folded."""
    return _key_cached(text) if len(text) <= KEY_CACHE_MAX_CHARS else _key_uncached(text)


def _aliases(table: dict[str, Iterable[str]]) -> dict[str, str]:
    out: dict[str, str] = {}
    for canonical, forms in table.items():
        for form in (canonical, *forms):
            out[_key(form)] = canonical
    return out


#: Accepted type names per task (canonical Chinese name, synonyms, unambiguous English names).
#: A name that could mean two of a task's types is not listed (e.g. "数量" in fraud_ner).
TYPE_ALIASES: dict[str, dict[str, str]] = {
    "drug_ner": _aliases({
        "人名": ("姓名", "人物", "人员", "嫌疑人", "犯罪嫌疑人", "被告人", "person", "people", "persons",
               "name", "per", "personname"),
        "时间": ("日期", "时间点", "案发时间", "time", "date", "datetime"),
        "地点": ("地址", "地名", "位置", "案发地点", "location", "place", "address", "loc"),
        "毒品类型": ("毒品", "毒品名称", "毒品种类", "毒品类别", "drug", "drugs", "drugtype", "drugname"),
        "毒品数量": ("数量", "重量", "毒品重量", "quantity", "amount", "weight", "drugquantity",
                 "drugamount", "drugweight"),
    }),
    "fraud_ner": _aliases({
        "报案人": ("报警人", "报案人姓名", "受害人", "被害人", "事主", "人名", "姓名", "reporter", "complainant",
                "victim", "person", "name"),
        "时间": ("日期", "时间点", "案发时间", "time", "date", "datetime"),
        "地点": ("地址", "地名", "位置", "案发地点", "location", "place", "address", "loc"),
        "金额": ("涉案金额", "被骗金额", "钱款", "amount", "money", "sum"),
        "社交账号": ("账号", "社交媒体账号", "微信", "微信号", "qq", "qq号", "抖音号", "socialaccount",
                 "socialmediaaccount", "account", "wechat", "wechatid"),
        "电话号码": ("电话", "手机号", "手机号码", "联系电话", "phone", "phonenumber", "telephone", "tel",
                 "mobile"),
    }),
}
#: Accepted relation names for drug_re (Chinese synonyms and the CAIL2022 English names).
RELATION_ALIASES: dict[str, str] = _aliases({
    "贩卖毒品": ("贩毒", "贩卖", "trafficin", "traffic", "drugtrafficking"),
    "贩卖给": ("卖给", "出售给", "售卖给", "贩卖毒品给", "selldrugsto", "sellto", "soldto"),
    "持有": ("非法持有", "持有毒品", "非法持有毒品", "possess", "posess", "possession"),
    "非法容留": ("容留", "容留他人吸毒", "容留吸毒", "provideshelterfor", "shelter"),
})

# Field names of one JSON item (compared after _key).
_TYPE_KEYS = frozenset(map(_key, ("type", "类型", "实体类型", "entity_type", "label", "类别", "category", "tag")))
_TEXT_KEYS = frozenset(map(_key, ("text", "实体", "实体文本", "实体名称", "entity", "value", "内容", "mention",
                                   "span", "word", "name", "名称")))
_HEAD_KEYS = frozenset(map(_key, ("head", "主体", "头实体", "subject", "source", "h", "实体1", "head_entity",
                                   "主语")))
_REL_KEYS = frozenset(map(_key, ("relation", "关系", "relation_type", "关系类型", "predicate", "rel", "type")))
_TAIL_KEYS = frozenset(map(_key, ("tail", "客体", "尾实体", "object", "target", "t", "实体2", "tail_entity",
                                   "宾语")))
# Outputs that explicitly say "nothing found" (after normalisation, case-folded).
_NONE_ANSWERS = frozenset({"无", "没有", "none", "null", "nil", "empty", "无实体", "没有实体", "未发现实体",
                           "无关系", "没有关系", "未发现关系", "不存在", "无相关实体", "无相关关系"})
# Every regex below runs in linear time on any input: no two unbounded quantifiers can match the
# same characters (a 50k-space line or an unclosed 50k-character fence used to take seconds).
_FENCE_INFO = re.compile(r"[ \t]*[A-Za-z0-9_-]*[ \t]*\n?")  # language tag after an opening ```
# 类型：值 line: optional list marker, type (1–16 characters, starting with a non-space, optionally
# **bold**), colon, value (stripped afterwards).
_LINE = re.compile(r"^\s*(?:(?:[-*+•·]|\d{1,3}[.、)])\s*)?(?:\*\*)?([^:\s][^:\n]{0,15}?)(?:\*\*)?[ \t]*:(.+)$")
_VALUE_SPLIT = re.compile(r"[、;]|(?<!\d),|,(?!\d)")
_GROUP_SPLIT = re.compile(r"([;,])")  # separators that may also start a new 类型：值 group on one line
_TRIPLE_SPLIT = re.compile(r"->|→|=>|—+|[|\t]|(?<!\d),|,(?!\d)|(?<!\d)-+(?!\d)")  # parts are stripped
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9]{0,10}(?:\s[^<>\n]{0,200})?/?>")  # <b>, </b>, <br/>, <span …>
_NOTE = re.compile(r"\([^()]*\)$")  # a trailing parenthetical note "张某 (主犯)" (after NFKC: ASCII parens)
# An explicit answer declaration; the text after the last one is read first (see parse_output).
_DECLARATION = re.compile(r"(?:最终答案|答案|final answer|answer)(?:如下|是|为)?[ \t]*:", re.IGNORECASE)
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
#: JSON nesting read into items (deeper values are ignored, never recursed into).
_MAX_DEPTH = 6


def norm_text(text: Any) -> str:
    """Comparison form of an entity/argument string (SPEC §4 normalisation, plus two extensions).

    Steps: :func:`cpsd_tasks.text.normalize` (NFKC, edge punctuation/quotes/Markdown stripped,
    answer prefix removed), then all inner whitespace removed and case folded (``汪 某`` and ``汪某``,
    ``WXID_AB`` and ``wxid_ab`` are the same entity). Non-strings give ``""``.
    """
    if not isinstance(text, (str, int, float)) or isinstance(text, bool):
        return ""
    return _SPACES.sub("", normalize(str(text))).casefold()


# --------------------------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Parsed:
    """What could be read from one model output.

    Attributes:
        items: NER: ``(type, text)`` pairs; RE: ``(relation, head, tail)`` triples; strings in
            comparison form (:func:`norm_text`), types/relations canonical or :data:`UNKNOWN`;
            in output order, duplicates kept.
        valid: a JSON/line answer of the required shape was found (an explicit empty answer such as
            ``[]`` or ``无`` is valid); ``False`` means unparseable (SPEC §4.2 ``invalid_rate``).
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


def _parse_block(text: str, task_id: str, budget: _Budget) -> Optional[Parsed]:
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
    def read(value: Any) -> _Reader:
        reader = _Reader(task_id)
        reader.read(value)
        return reader

    try:
        whole = read(json.loads(text.strip()))
    except (ValueError, RecursionError):
        pass
    else:
        return Parsed(tuple(whole.items), True) if whole.items or whole.shaped else None
    values, failed = _strict_values(text)
    best: Optional[tuple[int, _Reader]] = None
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


def _first(d: dict[str, Any], keys: frozenset[str]) -> Any:
    for k, v in d.items():
        if isinstance(k, str) and _key(k) in keys:
            return v
    return None


def _strings(value: Any, depth: int = 0) -> list[str]:
    """A field value as a list of strings (a list of strings stays a list, scalars become one;
    lists nested deeper than :data:`_MAX_DEPTH` are ignored)."""
    if isinstance(value, list):
        return [s for v in value for s in _strings(v, depth + 1)] if depth <= _MAX_DEPTH else []
    text = norm_text(value)
    return [text] if text else []


class _Reader:
    """Collect NER/RE items from decoded JSON of any of the accepted shapes."""

    def __init__(self, task_id: str):
        self.task_id = task_id
        self.kind = get_task(task_id).kind
        self.types = TYPE_ALIASES.get(task_id, {})
        self.items: list[tuple[str, ...]] = []
        self.shaped = False  # saw a structure of the required shape (possibly empty)

    def type_of(self, name: Any) -> Optional[str]:
        table = RELATION_ALIASES if self.kind == "re" else self.types
        return table.get(_key(name)) if isinstance(name, str) else None

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
            head, rel, tail = _first(d, _HEAD_KEYS), _first(d, _REL_KEYS), _first(d, _TAIL_KEYS)
            if head is not None and tail is not None and rel is not None:
                self.add_triple(rel, head, tail)
                return
        else:
            typ, text = _first(d, _TYPE_KEYS), _first(d, _TEXT_KEYS)
            if typ is not None and text is not None:
                for s in _strings(text):
                    self.add_entity(typ, s)
                self.shaped = True
                return
        grouped = [(k, v) for k, v in d.items() if self.type_of(k)]
        if grouped:
            for k, v in grouped:
                if self.kind == "re":  # {"贩卖给": [{"head":…, "tail":…}], …}
                    for pair in (v if isinstance(v, list) else [v]):
                        if isinstance(pair, dict):
                            h, t = _first(pair, _HEAD_KEYS), _first(pair, _TAIL_KEYS)
                            if h is not None and t is not None:
                                self.add_triple(k, h, t)
                else:  # {"人名": ["汪某", "张某"], "时间": "…"}
                    for s in _strings(v):
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
        head, tail = (_first(a, _TEXT_KEYS) if isinstance(a, dict) else a for a in (head, tail))
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
        table = _Reader(self.task_id)
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
        person values (``人名：张某 (主犯)`` → 张某): NER types in :data:`PERSON_TYPES`, RE heads,
        and tails of :data:`PERSON_TAIL_RELATIONS`."""
        if self.kind == "re":
            parts = [p for p in (norm_text(x) for x in _TRIPLE_SPLIT.split(line.strip(" ()[]（）【】<>"))) if p]
            if len(parts) == 3 and self.type_of(parts[1]):
                self.add_triple(parts[1], parts[0], parts[2])
                return
        m = _LINE.match(line)
        typ = self.type_of(m.group(1)) if m else None
        if not typ:
            return
        raw = [v for v in _VALUE_SPLIT.split(m.group(2)) if (n := norm_text(v)) and n not in _NONE_ANSWERS]
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
                self.add_entity(typ, norm_text(_drop_note(v) if typ in PERSON_TYPES else v))


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


def _fenced(text: str) -> list[str]:
    """Bodies of the Markdown fences (```` ``` ```` … ```` ``` ````) in ``text``, language tag removed;
    linear time (an unclosed fence is not a block)."""
    parts = text.split("```")
    return [body[_FENCE_INFO.match(body).end():] for body in parts[1:-1:2]]


def parse_output(output: Optional[str], task_id: str) -> Parsed:
    """Read a model's NER/RE answer (SPEC §4.2 "The model answers in JSON …").

    Accepted: a JSON list of ``{"type","text"}`` / ``{"head","relation","tail"}`` objects, alone,
    in a Markdown fence, or with prose before/after; one object instead of a list; a wrapper
    object (``{"entities": [...]}``); grouped objects (``{"人名": ["汪某", …]}``); RE triples as
    ``["汪某", "贩卖给", "张某"]``; broken JSON repaired by ``json_repair`` (trailing commas, single
    or curly quotes); full-width punctuation (NFKC first); ``类型：实体、实体`` lines; RE lines
    ``汪某 | 贩卖给 | 张某`` or ``贩卖给：汪某，张某``; synonyms and unambiguous English names of
    types/relations (:data:`TYPE_ALIASES`, :data:`RELATION_ALIASES`); Markdown tables with a
    header row (see :meth:`_Reader.read_table`). ``<think>`` blocks are removed first (unclosed →
    nothing to score). When the output declares its answer (``答案：``, ``答案如下：``, ``最终答案：``,
    ``Answer:``, ``Final answer:``), the text after the last declaration is read first and used
    when it holds a valid answer (so a JSON example before the answer is not scored). Linear time;
    JSON nested too deeply for the ``json`` module counts as not JSON. Items with an empty text are dropped; items with
    a type outside the inventory are kept under :data:`UNKNOWN` (false positives).

    Args:
        output: raw model output, or ``None``.
        task_id: ``drug_ner``, ``fraud_ner`` or ``drug_re`` (``cpsd_`` prefix allowed).

    Returns:
        :class:`Parsed`; never raises on model output.

    Raises:
        KeyError: unknown task id.
    """
    spec = get_task(task_id)
    text = first_turn(output)   # the model's own turn: no items from after <eoa> or an invented turn
    budget = _Budget()
    declaration = None
    for declaration in _DECLARATION.finditer(text):
        pass
    if declaration is not None:
        parsed = _parse_text(text[declaration.end():], spec.id, budget)
        if parsed.valid:
            return parsed
    return _parse_text(text, spec.id, budget)


def _parse_text(text: str, task_id: str, budget: _Budget) -> Parsed:
    """:func:`parse_output` on an NFKC-folded, think-free text, without the declaration rule."""
    if not text.strip():
        return Parsed((), False)
    if len(text) <= _MAX_NONE_CHARS and norm_text(text) in _NONE_ANSWERS:
        return Parsed((), True)
    for block in _fenced(text) + [text]:
        parsed = _parse_block(block, task_id, budget)
        if parsed is not None:
            return parsed
    reader = _Reader(task_id)
    reader.read_lines(text)
    return Parsed(tuple(reader.items), reader.shaped)


def gold_items(doc: dict[str, Any]) -> tuple[tuple[str, ...], ...]:
    """The gold items of a doc in the shape of :attr:`Parsed.items` (normalised, duplicates kept).

    Args:
        doc: an NER doc (``entities``) or RE doc (``relations``), SPEC §3.

    Returns:
        ``(type, text)`` or ``(relation, head, tail)`` tuples; entries that normalise to an empty
        string are skipped.
    """
    if "relations" in doc:
        out = [(r["relation"], norm_text(r["head"]), norm_text(r["tail"])) for r in doc["relations"] or ()]
        return tuple(x for x in out if x[1] and x[2])
    out = [(e["type"], norm_text(e["text"])) for e in doc.get("entities") or ()]
    return tuple(x for x in out if x[1])


# --------------------------------------------------------------------------------------------
# Matching
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Counts:
    """Match counts of one type (or of a whole document, or a corpus).

    Attributes:
        tp_exact: exact one-to-one matches.
        tp_fuzzy: exact matches plus fuzzy matches on the rest (so ``tp_fuzzy >= tp_exact``).
        n_pred: predictions. n_gold: gold items.
    """

    tp_exact: int = 0
    tp_fuzzy: int = 0
    n_pred: int = 0
    n_gold: int = 0

    def __add__(self, other: "Counts") -> "Counts":
        return Counts(self.tp_exact + other.tp_exact, self.tp_fuzzy + other.tp_fuzzy,
                      self.n_pred + other.n_pred, self.n_gold + other.n_gold)


def best_assignment(preds: Sequence[Any], golds: Sequence[Any],
                    similarity: Callable[[Any, Any], Optional[float]]) -> list[tuple[int, int]]:
    """Best one-to-one pairing of ``preds`` with ``golds`` among eligible pairs (never greedy).

    Args:
        preds, golds: the unmatched predictions and gold items.
        similarity: ``similarity(pred, gold)`` → a score in [0, 1] when the pair may match, else
            ``None``.

    Returns:
        ``[(pred index, gold index), …]``: a maximum-cardinality matching; among those, one with
        the highest total similarity (``scipy.optimize.linear_sum_assignment`` on weights
        ``M + similarity`` with ``M`` larger than any similarity sum).
    """
    if not preds or not golds:
        return []
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    big = min(len(preds), len(golds)) + 1.0
    weights = np.zeros((len(preds), len(golds)))
    eligible = np.zeros((len(preds), len(golds)), dtype=bool)
    for i, p in enumerate(preds):
        for j, g in enumerate(golds):
            s = similarity(p, g)
            if s is not None:
                weights[i, j] = big + s
                eligible[i, j] = True
    if not eligible.any():
        return []
    rows, cols = linear_sum_assignment(weights, maximize=True)
    return [(int(i), int(j)) for i, j in zip(rows, cols) if eligible[i, j]]


def _levenshtein(tau: float) -> Callable[[str, str], Optional[float]]:
    from rapidfuzz.distance import Levenshtein

    def sim(p: str, g: str) -> Optional[float]:
        if min(len(p), len(g)) < MIN_FUZZY_LEN:
            return None
        s = Levenshtein.normalized_similarity(p, g)
        return s if s >= tau else None

    return sim


def _count(gold: Sequence[Any], pred: Sequence[Any],
           similarity: Optional[Callable[[Any, Any], Optional[float]]]) -> Counts:
    g, p = Counter(gold), Counter(pred)
    exact = sum((g & p).values())
    fuzzy = 0
    if similarity is not None:
        fuzzy = len(best_assignment(list((p - g).elements()), list((g - p).elements()), similarity))
    return Counts(exact, exact + fuzzy, len(pred), len(gold))


def match_entities(gold: Iterable[tuple[str, str]], pred: Iterable[tuple[str, str]],
                   tau: float = DEFAULT_TAU) -> dict[str, Counts]:
    """Per-type exact and fuzzy match counts of one NER document (SPEC §4.2).

    Args:
        gold, pred: ``(type, text)`` items in comparison form (see :func:`gold_items`,
            :func:`parse_output`); multisets (duplicates count).
        tau: fuzzy threshold in (0, 1]: normalised Levenshtein similarity ≥ ``tau``.

    Returns:
        ``{type: Counts}`` for every type present in gold or prediction (incl. :data:`UNKNOWN`).
        Types in :data:`EXACT_ONLY_TYPES` and :data:`UNKNOWN` get no fuzzy matches; other types
        fuzzy-match only strings of at least :data:`MIN_FUZZY_LEN` characters.
    """
    gold, pred = list(gold), list(pred)
    sim = _levenshtein(tau)
    out = {}
    for typ in dict.fromkeys([t for t, _ in gold] + [t for t, _ in pred]):
        fuzzy_ok = typ not in EXACT_ONLY_TYPES and typ != UNKNOWN
        out[typ] = _count([x for t, x in gold if t == typ], [x for t, x in pred if t == typ],
                          sim if fuzzy_ok else None)
    return out


def match_relations(gold: Iterable[tuple[str, str, str]], pred: Iterable[tuple[str, str, str]],
                    tau: float = DEFAULT_TAU) -> dict[str, Counts]:
    """Per-relation exact and fuzzy match counts of one RE document (SPEC §4.2).

    A triple matches exactly when relation, head and tail are equal (comparison form). Fuzzily:
    same relation, equal heads (persons), and tails equal (贩卖给/非法容留: persons) or, for
    贩卖毒品/持有 (drug tails), tails with similarity ≥ ``tau`` (and at least
    :data:`MIN_FUZZY_LEN` characters). Head and tail are never swapped.

    Args:
        gold, pred: ``(relation, head, tail)`` items; multisets.
        tau: fuzzy threshold in (0, 1].

    Returns:
        ``{relation: Counts}`` for every relation present in gold or prediction.
    """
    gold, pred = list(gold), list(pred)
    tail_sim = _levenshtein(tau)

    def sim(p: tuple[str, str], g: tuple[str, str]) -> Optional[float]:
        return tail_sim(p[1], g[1]) if p[0] == g[0] else None

    out = {}
    for rel in dict.fromkeys([r for r, _, _ in gold] + [r for r, _, _ in pred]):
        out[rel] = _count([(h, t) for r, h, t in gold if r == rel], [(h, t) for r, h, t in pred if r == rel],
                          sim if rel in DRUG_TAIL_RELATIONS else None)
    return out


# --------------------------------------------------------------------------------------------
# Scores
# --------------------------------------------------------------------------------------------

def prf(tp: int, n_pred: int, n_gold: int) -> tuple[float, float, float]:
    """Precision, recall, F1 (each in [0, 1]) with SPEC §4.2's empty rules.

    No gold and no prediction → ``(1, 1, 1)``; only one of them empty → ``(0, 0, 0)``.
    """
    if n_pred == 0 and n_gold == 0:
        return 1.0, 1.0, 1.0
    if n_pred == 0 or n_gold == 0:
        return 0.0, 0.0, 0.0
    p, r = tp / n_pred, tp / n_gold
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


@dataclass(frozen=True)
class DocScores:
    """Scores of one document (all in [0, 1]).

    ``precision``/``recall``/``f1`` are the α mix ``α·exact + (1−α)·fuzzy`` of the exact and fuzzy
    scores (SPEC §4.2 ``Score_total``); the others are the two stages on their own.
    """

    precision: float
    recall: float
    f1: float
    precision_exact: float
    recall_exact: float
    f1_exact: float
    precision_fuzzy: float
    recall_fuzzy: float
    f1_fuzzy: float


def doc_scores(counts: Counts, alpha: float = DEFAULT_ALPHA) -> DocScores:
    """Mixed, exact and fuzzy P/R/F1 from one document's (or a corpus's pooled) counts.

    Args:
        counts: the document's summed :class:`Counts`.
        alpha: weight of the exact stage, in [0, 1].

    Returns:
        :class:`DocScores`.
    """
    pe, re_, fe = prf(counts.tp_exact, counts.n_pred, counts.n_gold)
    pf, rf, ff = prf(counts.tp_fuzzy, counts.n_pred, counts.n_gold)

    def mix(e: float, f: float) -> float:
        return alpha * e + (1 - alpha) * f

    return DocScores(mix(pe, pf), mix(re_, rf), mix(fe, ff), pe, re_, fe, pf, rf, ff)


@dataclass(frozen=True)
class Judgement:
    """How one IE output scores against its gold.

    Attributes:
        parsed: the parsed prediction (:class:`Parsed`).
        by_type: per type/relation counts (:func:`match_entities` / :func:`match_relations`).
        total: the document's counts summed over types.
        scores: the document's :class:`DocScores`.
        error_class: SPEC §4.6 class: ``correct`` (exact F1 = 1), ``format`` (fuzzy F1 = 1 only),
            ``content`` (parsed, not fully right), ``refusal`` / ``instruction`` (unparseable).
    """

    parsed: Parsed
    by_type: dict[str, Counts]
    total: Counts
    scores: DocScores
    error_class: str


def judge(doc: dict[str, Any], output: Optional[str], alpha: float = DEFAULT_ALPHA,
          tau: float = DEFAULT_TAU) -> Judgement:
    """Parse and score one output against a doc (SPEC §4.2, §4.6).

    Args:
        doc: a doc with ``task`` (``drug_ner``/``fraud_ner``/``drug_re``) and ``entities`` or
            ``relations`` (SPEC §3).
        output: raw model output (``None`` = missing).
        alpha: exact-stage weight in [0, 1]. tau: fuzzy threshold in (0, 1].

    Returns:
        A :class:`Judgement`; never raises on model output.
    """
    spec = get_task(doc["task"])
    parsed = parse_output(output, spec.id)
    gold = gold_items(doc)
    match = match_relations if spec.kind == "re" else match_entities
    by_type = match(gold, parsed.items, tau)
    total = sum(by_type.values(), Counts())
    scores = doc_scores(total, alpha)
    return Judgement(parsed, by_type, total, scores, error_class(
        strict_correct=scores.f1_exact == 1.0, lenient_correct=scores.f1_fuzzy == 1.0,
        parsed=parsed.valid, refused=not parsed.valid and is_refusal(output)))


def run_options(task_id: str) -> tuple[float, float]:
    """The run's ``(alpha, tau)`` for a task, from the harness metadata (defaults 0.5, 0.8).

    Raises:
        ValueError: a value is not a number, ``alpha`` is outside [0, 1] or ``tau`` outside (0, 1].
    """
    alpha = get_option(task_id, "alpha", DEFAULT_ALPHA, float)
    tau = get_option(task_id, "tau", DEFAULT_TAU, float)
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"cpsd_{task_id}: option alpha={alpha} must be in [0, 1]")
    if not 0.0 < tau <= 1.0:
        raise ValueError(f"cpsd_{task_id}: option tau={tau} must be in (0, 1]")
    return alpha, tau


def process_docs(dataset: Any) -> Any:
    """lm-eval ``process_docs`` hook: check α/τ before any request is sent; docs are unchanged.

    Args:
        dataset: a split from :func:`cpsd_tasks.data.harness_dataset` (rows carry ``task``).

    Returns:
        ``dataset`` itself.

    Raises:
        ValueError: see :func:`run_options`.
    """
    if len(dataset):
        run_options(dataset[0]["task"])
    return dataset


def doc_to_target(doc: dict[str, Any]) -> str:
    """The gold answer as the JSON the prompt asks for (few-shot targets, sample logs)."""
    if "relations" in doc:
        items = [{"head": r["head"], "relation": r["relation"], "tail": r["tail"]} for r in doc["relations"]]
    else:
        items = [{"type": e["type"], "text": e["text"]} for e in doc["entities"]]
    return json.dumps(items, ensure_ascii=False)


def process_results(doc: dict[str, Any], results: Sequence[Optional[str]]) -> dict[str, Any]:
    """lm-eval ``process_results`` for the three IE tasks (SPEC §4.2).

    Args:
        doc: a doc from :func:`cpsd_tasks.data.harness_dataset`.
        results: filtered responses; ``results[0]`` is the model output (may be ``None``).

    Returns:
        Per-sample values. Floats in [0, 1] (aggregated by ``mean``): ``precision``, ``recall``,
        ``f1``, ``f1_exact``, ``f1_fuzzy``, ``invalid_rate`` (0/1), ``score`` (= ``f1``); α and τ
        are in the task's scoring signature (:mod:`cpsd_tasks.options`), not metrics. Count items
        :class:`~cpsd_tasks.specs.CountItem` (logged as ``[tp_exact, tp_fuzzy, n_pred, n_gold, alpha]``;
        aggregated by :func:`agg_f1_pooled` and :func:`agg_f1_type`): ``f1_micro`` (whole document) and ``f1_<type>`` for
        each of the task's types/relations (SPEC §2 labels). ``truncated_rate`` (0/1) and
        ``reading``: the items read, ``[type, text]`` or ``[relation, head, tail]`` in comparison
        form, ``None`` when unparseable (:func:`cpsd_tasks.taxonomy.reading`).
    """
    spec = get_task(doc["task"])
    alpha, tau = run_options(spec.id)
    j = judge(doc, results[0] if results else None, alpha, tau)
    s = j.scores
    out: dict[str, Any] = {
        "precision": s.precision, "recall": s.recall, "f1": s.f1,
        "f1_exact": s.f1_exact, "f1_fuzzy": s.f1_fuzzy,
        "f1_micro": _item(j.total, alpha),
        "invalid_rate": float(not j.parsed.valid),
        "score": s.f1,
    }
    from cpsd_tasks.truncation import was_truncated

    truncated = was_truncated(results[0] if results else None, doc)
    out["truncated_rate"] = float(truncated)
    refused = j.error_class == "refusal" and not truncated
    out["reading"] = reading([list(item) for item in j.parsed.items] if j.parsed.valid else None,
                             j.error_class, refused, truncated=truncated)
    for label in spec.labels:
        out[f"f1_{label}"] = _item(j.by_type.get(label, Counts()), alpha)
    return out


def _item(c: Counts, alpha: float) -> CountItem:
    return CountItem(c.tp_exact, c.tp_fuzzy, c.n_pred, c.n_gold, alpha)


def agg_f1_pooled(items: Sequence[Sequence[float]]) -> float:
    """Aggregation of ``f1_micro`` and ``f1_<type>``: pooled counts, then ``α·F1_exact + (1−α)·F1_fuzzy``.

    Args:
        items: a :class:`~cpsd_tasks.specs.CountItem` per document, or the ``[tp_exact, tp_fuzzy,
            n_pred, n_gold, alpha]`` list a sample log holds (α is the run's, the same in every item).

    Returns:
        F1 in [0, 1]; 1.0 when the pooled gold and predictions are both empty (SPEC §4.2 empty
        rule), 0.0 for no items.
    """
    if not items:
        return 0.0
    items = [CountItem._make(it) for it in items]
    total = Counts(int(sum(it.tp_exact for it in items)), int(sum(it.tp_fuzzy for it in items)),
                   int(sum(it.n_pred for it in items)), int(sum(it.n_gold for it in items)))
    return doc_scores(total, float(items[0].alpha)).f1


def agg_f1_type(items: Sequence[Sequence[float]]) -> float:
    """Aggregation of ``f1_<type>``: as :func:`agg_f1_pooled`, but ``NaN`` (not measured) when the
    type occurs in neither the gold nor the predictions of the whole run.

    Args:
        items: as for :func:`agg_f1_pooled`.

    Returns:
        F1 in [0, 1], or ``NaN`` when the type was never seen (a perfect 1.0 would be unearned).
    """
    items = [CountItem._make(it) for it in items]
    if not any(it.n_pred or it.n_gold for it in items):
        return math.nan
    return agg_f1_pooled(items)
