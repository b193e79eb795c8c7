"""The names an IE answer uses: the accepted type and relation names of each task, the field names of
one JSON item, the "nothing found" answers, and the comparison form of an entity string
(docs/metrics.md#information-extraction).

* :func:`lookup_key` — the lookup form of a type, relation or JSON field name (normalised, no
  spaces/``_``/``-``, case-folded; an LRU cache for the short names that recur);
* :data:`TYPE_ALIASES` (per NER task), :data:`RELATION_ALIASES` (drug_re), keyed by :func:`lookup_key`;
* the field names of one JSON item: :data:`TYPE_KEYS`/:data:`TEXT_KEYS` (NER),
  :data:`HEAD_KEYS`/:data:`REL_KEYS`/:data:`TAIL_KEYS` (RE), and :data:`NONE_ANSWERS`;
* :data:`PERSON_TYPES`, :data:`PERSON_TAIL_RELATIONS` (a trailing "(主犯)" note is dropped from
  persons' values), :data:`UNKNOWN` (the bucket of types outside the task's inventory);
* :class:`Inventory`, the names one task's answers may use: :func:`task_inventory` for the plugin's
  own IE tasks, :func:`ner_inventory` for an explicit list of entity types (another benchmark's,
  such as LawBench's ten of its 2-6);
* :func:`norm_text`, the comparison form of an entity or argument string.

Read by :mod:`cpsd_tasks.reading.ie_items` and :mod:`cpsd_tasks.reading.ie_parse`; the metric
(:mod:`cpsd_tasks.ie`) compares what they read.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Iterable, Mapping, Union

from cpsd_tasks.reading.normalize import normalize

#: NER types that are persons: a trailing "(主犯)" style note is dropped from their line values.
PERSON_TYPES = frozenset({"人名", "报案人"})
#: RE relations whose tail is a person (exact) or a drug (may match fuzzily) (docs/metrics.md#information-extraction).
PERSON_TAIL_RELATIONS = frozenset({"贩卖给", "非法容留"})
#: Bucket of predictions whose type/relation is not in the task's inventory: they count as
#: predictions (false positives) and never match.
UNKNOWN = "<unknown>"


_KEY_DROP = re.compile(r"[\s_\-]+")
_SPACES = re.compile(r"\s+")


#: JSON keys and type/relation names up to this many characters go through an LRU cache (the same
#: few names recur in every output); longer ones (a model can write any key) are not kept.
KEY_CACHE_MAX_CHARS = 64


def uncached_lookup_key(text: str) -> str:
    """:func:`lookup_key` without the cache."""
    return _KEY_DROP.sub("", normalize(text)).casefold()


#: :func:`uncached_lookup_key` through an LRU cache (``cached_lookup_key.cache_info()``).
cached_lookup_key = functools.lru_cache(maxsize=4096)(uncached_lookup_key)


def lookup_key(text: str) -> str:
    """Lookup form of a type/relation/field name: normalised, no spaces/_/-, case-folded."""
    return cached_lookup_key(text) if len(text) <= KEY_CACHE_MAX_CHARS else uncached_lookup_key(text)


def _aliases(table: dict[str, Iterable[str]]) -> dict[str, str]:
    out: dict[str, str] = {}
    for canonical, forms in table.items():
        for form in (canonical, *forms):
            out[lookup_key(form)] = canonical
    return out


#: The other names of the types several inventories share (the plugin's tasks and an explicit
#: inventory such as LawBench's): :func:`ner_inventory` gives them to a type of the same name.
SHARED_TYPE_ALIASES: dict[str, tuple[str, ...]] = {
    "时间": ("日期", "时间点", "案发时间", "time", "date", "datetime"),
    "地点": ("地址", "地名", "位置", "案发地点", "location", "place", "address", "loc"),
}

#: Accepted type names per task (canonical Chinese name, synonyms, unambiguous English names).
#: A name that could mean two of a task's types is not listed (e.g. "数量" in fraud_ner).
TYPE_ALIASES: dict[str, dict[str, str]] = {
    "drug_ner": _aliases({
        "人名": ("姓名", "人物", "人员", "嫌疑人", "犯罪嫌疑人", "被告人", "person", "people", "persons",
               "name", "per", "personname"),
        "时间": SHARED_TYPE_ALIASES["时间"],
        "地点": SHARED_TYPE_ALIASES["地点"],
        "毒品类型": ("毒品", "毒品名称", "毒品种类", "毒品类别", "drug", "drugs", "drugtype", "drugname"),
        "毒品数量": ("数量", "重量", "毒品重量", "quantity", "amount", "weight", "drugquantity",
                 "drugamount", "drugweight"),
    }),
    "fraud_ner": _aliases({
        "报案人": ("报警人", "报案人姓名", "受害人", "被害人", "事主", "人名", "姓名", "reporter", "complainant",
                "victim", "person", "name"),
        "时间": SHARED_TYPE_ALIASES["时间"],
        "地点": SHARED_TYPE_ALIASES["地点"],
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


@dataclass(frozen=True)
class Inventory:
    """The names one IE task's answers may use, and what the reader files them under.

    Attributes:
        kind: ``"ner"`` (``(type, text)`` items) or ``"re"`` (``(relation, head, tail)`` items).
        names: ``{lookup_key(accepted name): canonical type or relation}`` (read-only); a name not in
            it is no type of this task (its items are kept under :data:`UNKNOWN`).
        person_types: NER types whose line values lose a trailing note (``张某 (主犯)`` → 张某).
    """

    kind: str
    names: Mapping[str, str]
    person_types: frozenset[str] = PERSON_TYPES

    def canonical(self, name: Any) -> Union[str, None]:
        """The canonical type or relation ``name`` stands for, or ``None`` (not a name of this task)."""
        return self.names.get(lookup_key(name)) if isinstance(name, str) else None


def task_inventory(task_id: str) -> Inventory:
    """The inventory of one of the plugin's IE tasks (:data:`TYPE_ALIASES`, :data:`RELATION_ALIASES`).

    Args:
        task_id: ``drug_ner``, ``fraud_ner`` or ``drug_re`` (``cpsd_`` prefix allowed).

    Raises:
        KeyError: unknown task id.
    """
    from cpsd_tasks.tasks import get_task

    spec = get_task(task_id)
    return _task_inventory(spec.id, spec.kind)


@functools.lru_cache(maxsize=None)
def _task_inventory(task_id: str, kind: str) -> Inventory:
    return Inventory(kind, MappingProxyType(RELATION_ALIASES if kind == "re" else TYPE_ALIASES.get(task_id, {})))


def ner_inventory(types: Union[Mapping[str, Iterable[str]], Iterable[str]],
                  person_types: Iterable[str] = ()) -> Inventory:
    """An NER inventory of explicit entity types (e.g. another benchmark's), read as the plugin reads its own.

    Each type is accepted under its own name and the aliases given with it, plus the shared ones of a
    type of the same name (:data:`SHARED_TYPE_ALIASES`: 时间, 地点), all compared in
    :func:`lookup_key` form. An alias given for two types is dropped from both (it names neither).

    Args:
        types: the canonical type names, or ``{type: aliases}``.
        person_types: the types that are persons (a trailing ``(主犯)`` note is dropped from their values).

    Returns:
        The :class:`Inventory`.

    Raises:
        ValueError: no type, a type given twice, or a person type that is no type.
    """
    table = dict(types) if isinstance(types, Mapping) else {name: () for name in types}
    if not table:
        raise ValueError("ner_inventory: no entity type")
    if set(person_types) - set(table):
        raise ValueError(f"ner_inventory: person types {sorted(set(person_types) - set(table))} are no types")
    names: dict[str, str] = {}
    clashes: set[str] = set()
    for canonical in table:
        if lookup_key(canonical) in names:
            raise ValueError(f"ner_inventory: type {canonical!r} given twice")
        names[lookup_key(canonical)] = canonical
    for canonical, forms in table.items():
        for form in (*SHARED_TYPE_ALIASES.get(canonical, ()), *forms):
            key = lookup_key(form)
            if names.get(key, canonical) != canonical:
                clashes.add(key)
            names.setdefault(key, canonical)
    canonical_keys = {lookup_key(name) for name in table}
    for key in clashes - canonical_keys:
        del names[key]
    return Inventory("ner", MappingProxyType(names), frozenset(person_types))


# Field names of one JSON item (compared after lookup_key).
TYPE_KEYS = frozenset(map(lookup_key, ("type", "类型", "实体类型", "entity_type", "label", "类别", "category", "tag")))
TEXT_KEYS = frozenset(map(lookup_key, ("text", "实体", "实体文本", "实体名称", "entity", "value", "内容", "mention",
                                   "span", "word", "name", "名称")))
HEAD_KEYS = frozenset(map(lookup_key, ("head", "主体", "头实体", "subject", "source", "h", "实体1", "head_entity",
                                   "主语")))
REL_KEYS = frozenset(map(lookup_key, ("relation", "关系", "relation_type", "关系类型", "predicate", "rel", "type")))
TAIL_KEYS = frozenset(map(lookup_key, ("tail", "客体", "尾实体", "object", "target", "t", "实体2", "tail_entity",
                                   "宾语")))
# Outputs that explicitly say "nothing found" (after normalisation, case-folded).
NONE_ANSWERS = frozenset({"无", "没有", "none", "null", "nil", "empty", "无实体", "没有实体", "未发现实体",
                           "无关系", "没有关系", "未发现关系", "不存在", "无相关实体", "无相关关系"})


def norm_text(text: Any) -> str:
    """Comparison form of an entity/argument string (docs/metrics.md#normalisation, plus two extensions).

    Steps: :func:`cpsd_tasks.reading.normalize.normalize` (NFKC, edge punctuation/quotes/Markdown stripped,
    answer prefix removed), then all inner whitespace removed and case folded (``汪 某`` and ``汪某``,
    ``WXID_AB`` and ``wxid_ab`` are the same entity). Non-strings give ``""``.
    """
    if not isinstance(text, (str, int, float)) or isinstance(text, bool):
        return ""
    return _SPACES.sub("", normalize(str(text))).casefold()
