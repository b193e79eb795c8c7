"""IE schema: the metric's constants and the gold items (docs/metrics.md#information-extraction).

* Constants of the metric: the defaults of α and τ (:data:`DEFAULT_ALPHA`, :data:`DEFAULT_TAU`),
  :data:`EXACT_ONLY_TYPES`, :data:`MIN_FUZZY_LEN`, :data:`DRUG_TAIL_RELATIONS`.
* :func:`gold_items`, a gold doc's items in the comparison form of what is read.

The names an answer uses (accepted type/relation names, JSON field names, :data:`UNKNOWN`,
:func:`norm_text`) belong to the reader: :mod:`cpsd_tasks.reading.ie_names`.
"""

from __future__ import annotations

from typing import Any

#: Defaults of the mix weight α and the fuzzy threshold τ (docs/metrics.md#information-extraction),
#: declared with the run configuration (:class:`cpsd_tasks.options.RunConfig`).
from cpsd_tasks.options import DEFAULT_ALPHA, DEFAULT_TAU  # noqa: F401  (re-exported)
from cpsd_tasks.reading.ie_names import norm_text

#: Types that never match fuzzily (docs/metrics.md#information-extraction): names, amounts, identifiers.
EXACT_ONLY_TYPES = frozenset({"人名", "报案人", "金额", "电话号码", "社交账号"})
#: Length floor (characters, after normalisation) for a fuzzy match: both strings must be at least
#: this long. At τ = 0.8 no string of ≤ 3 characters can reach τ with a single edit anyway; the
#: floor keeps a lowered τ from pairing 2–3 character strings such as 冰毒/冰糖 or 当晚/当天.
MIN_FUZZY_LEN = 4
#: RE relations whose tail is a drug (may match fuzzily; docs/metrics.md#information-extraction); those whose
#: tail is a person are
#: :data:`cpsd_tasks.reading.ie_names.PERSON_TAIL_RELATIONS`.
DRUG_TAIL_RELATIONS = frozenset({"贩卖毒品", "持有"})


def gold_items(doc: dict[str, Any]) -> tuple[tuple[str, ...], ...]:
    """The gold items of a doc in the shape of :attr:`~cpsd_tasks.reading.ie_parse.Parsed.items` (normalised,
    duplicates kept).

    Args:
        doc: an NER doc (``entities``) or RE doc (``relations``), docs/data.md#record-format.

    Returns:
        ``(type, text)`` or ``(relation, head, tail)`` tuples; entries that normalise to an empty
        string are skipped.
    """
    if "relations" in doc:
        out = [(r["relation"], norm_text(r["head"]), norm_text(r["tail"])) for r in doc["relations"] or ()]
        return tuple(x for x in out if x[1] and x[2])
    out = [(e["type"], norm_text(e["text"])) for e in doc.get("entities") or ()]
    return tuple(x for x in out if x[1])
