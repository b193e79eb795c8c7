"""IE schema: the tasks' types and relations, their accepted names, and the comparison form (SPEC §4.2).

* Constants of the metric: the defaults of α and τ (:data:`DEFAULT_ALPHA`, :data:`DEFAULT_TAU`),
  :data:`EXACT_ONLY_TYPES`, :data:`MIN_FUZZY_LEN`, the person/drug roles of types and relations,
  and :data:`UNKNOWN` (the bucket of predictions outside the task's inventory).
* Name tables: :data:`TYPE_ALIASES` (per NER task) and :data:`RELATION_ALIASES` (drug_re), keyed by
  :func:`_key` (the lookup form of a type, relation or JSON field name), and the field names of
  one JSON item (``type``/``text``, ``head``/``relation``/``tail`` and their synonyms).
* :func:`norm_text`, the comparison form of an entity or argument string, and
  :func:`gold_items`, a gold doc's items in that form.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Iterable

from cpsd_tasks.reading.normalize import normalize

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


def norm_text(text: Any) -> str:
    """Comparison form of an entity/argument string (SPEC §4 normalisation, plus two extensions).

    Steps: :func:`cpsd_tasks.reading.normalize.normalize` (NFKC, edge punctuation/quotes/Markdown stripped,
    answer prefix removed), then all inner whitespace removed and case folded (``汪 某`` and ``汪某``,
    ``WXID_AB`` and ``wxid_ab`` are the same entity). Non-strings give ``""``.
    """
    if not isinstance(text, (str, int, float)) or isinstance(text, bool):
        return ""
    return _SPACES.sub("", normalize(str(text))).casefold()


def gold_items(doc: dict[str, Any]) -> tuple[tuple[str, ...], ...]:
    """The gold items of a doc in the shape of :attr:`~cpsd_tasks.ie.parse.Parsed.items` (normalised,
    duplicates kept).

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
