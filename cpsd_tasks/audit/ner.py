"""lawbench_tasks 2-6 in the corpus audit: LawBench's entity lists read by the plugin's IE reader and
scored by the plugin's IE metric, beside LawBench's own rule.

2-6 (CAIL2021 theft cases) asks for ten entity types (``labels`` of each doc); the models answer with
``类型:实体`` lines, Markdown lists, JSON or prose. Per output (:func:`read_ner`):

* **the plugin**: :func:`cpsd_tasks.reading.ie_parse.parse_output` with an explicit inventory of
  LawBench's ten types (:func:`inventory`: each type's own name and the aliases of
  :data:`TYPE_ALIASES`), then :func:`cpsd_tasks.ie.match.match_entities` against the gold
  (:func:`gold_entities`) — exact, then fuzzy matching at τ 0.8, names and amounts exact only
  (:data:`EXACT_ONLY`), as for the plugin's own NER tasks; a model's figure is ``f1_micro``
  (:func:`cpsd_tasks.ie.hooks.agg_f1_pooled`: counts pooled over docs, α 0.5);
* **LawBench's rule** (:func:`cpsd_tasks.audit.peers.lawbench_entities`, ``lawbench_ner_score``): one
  value per type after ``类型:`` anywhere in the output, soft character F1, mean over docs;
* **the kinds** where the two readings differ, type by type (:func:`reading_kinds`), and, to tell
  reading from measuring, the plugin's reading scored by LawBench's measure (:func:`joined`).

:func:`ner_rows` turns the readings into the audit's table rows; :func:`explain` writes the line that
explains a model's gap.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from typing import TYPE_CHECKING, Iterable, Optional

from cpsd_tasks.audit import peers

if TYPE_CHECKING:
    from cpsd_tasks.reading.ie_names import Inventory

#: Other names of LawBench's 2-6 types that are plain synonyms in a theft case (时间/地点 also get the
#: plugin's shared ones, :data:`cpsd_tasks.reading.ie_names.SHARED_TYPE_ALIASES`). A name that could
#: mean two of the ten (物品, 金额, 人名, 价值 alone is kept: the only value type is 物品价值) is left out.
TYPE_ALIASES: dict[str, tuple[str, ...]] = {
    "犯罪嫌疑人": ("嫌疑人", "被告人", "犯罪人", "suspect", "criminalsuspect", "defendant"),
    "受害人": ("被害人", "受害者", "被害者", "失主", "事主", "被盗人", "victim"),
    "被盗货币": ("被盗现金", "被盗钱款", "被盗金钱", "stolenmoney", "stolencurrency"),
    "物品价值": ("被盗物品价值", "价值", "财物价值", "涉案价值", "itemvalue"),
    "盗窃获利": ("获利", "非法获利", "违法所得", "销赃获利", "profit"),
    "被盗物品": ("被盗财物", "盗窃物品", "被窃物品", "失窃物品", "赃物", "stolenitems", "stolengoods",
             "stolenproperty"),
    "作案工具": ("犯罪工具", "盗窃工具", "作案工具名称", "tool", "tools"),
    "时间": ("作案时间", "犯罪时间", "盗窃时间", "被盗时间"),
    "地点": ("作案地点", "犯罪地点", "盗窃地点", "被盗地点"),
    "组织机构": ("机构", "组织", "机构名称", "组织名称", "organization", "organisation", "org"),
}
#: The person types (a trailing ``(主犯)`` note is dropped from their values, as for 人名/报案人).
PERSONS = ("犯罪嫌疑人", "受害人")
#: Names and amounts match exactly only, as 人名/报案人 and 金额 do in the plugin's tasks.
EXACT_ONLY = frozenset({*PERSONS, "被盗货币", "物品价值", "盗窃获利"})
#: What the gold's values are joined by (``受害人:严某某、肖某某`` is two 受害人 entities).
GOLD_SEPARATOR = "、"


@functools.lru_cache(maxsize=8)
def inventory(types: tuple[str, ...]) -> Inventory:
    """The plugin reader's inventory of LawBench's types (``labels`` of a 2-6 doc), with :data:`TYPE_ALIASES`."""
    from cpsd_tasks.reading.ie_names import ner_inventory

    return ner_inventory({name: TYPE_ALIASES.get(name, ()) for name in types},
                         person_types=[name for name in PERSONS if name in types])


def gold_entities(gold: Iterable[Iterable[str]]) -> tuple[tuple[str, str], ...]:
    """The gold ``[[type, value], …]`` of a doc as the metric's items: each value split at
    :data:`GOLD_SEPARATOR`, each piece in comparison form (:func:`cpsd_tasks.ie.schema.gold_items`)."""
    from cpsd_tasks.ie.schema import gold_items

    return gold_items({"entities": [{"type": name, "text": piece} for name, value in gold
                                    for piece in value.split(GOLD_SEPARATOR)]})


# --------------------------------------------------------------------------- reading one output

#: Where the plugin's line reader looks for a type name: at a line's start (after a list marker, ``**``)
#: or after ``;``/``,`` (the text before the name must end so).
_LINE_START = re.compile(r"(?:^|[\n;,])[ \t]*(?:(?:[-*+•·#]+|\d{1,3}[.、)])[ \t]*)?(?:\*\*)?$")
#: A type name after a space (and a list number): a group of a one-line, space-separated answer.
_AFTER_SPACE = re.compile(r"[ \t](?:\d{1,3}[.、)])?[ \t]*$")
#: A type name right after a heading's colon (and a list number): ``实体信息:1、时间:…``.
_AFTER_HEADING = re.compile(r"[:：][ \t]*(?:\d{1,3}[.、)])?[ \t]*$")


def _peer_spot(text: str, name: str) -> Optional[int]:
    """Where LawBench's rule took its value of ``name`` in ``text`` (the start of the name), or ``None``."""
    at, spot = text.find(name), None
    while at >= 0:
        end = at + len(name)
        if peers.lawbench_value_at(text, end) is not None:
            spot = at
        at = text.find(name, end)
    return spot


#: The kinds of a type of one doc that the two readings read differently (:func:`reading_kinds`).
RUN_ON = "one-line answer split at ；: LawBench reads the rest of the line as the value"
NEXT_LABEL = "empty value (类型: and a line break): LawBench takes the next label as the value"
REPEATED = "a value written again and again (runaway output, invented next items): the plugin counts every copy"
SEVERAL = "several values of a type: the plugin reads all, LawBench one"
CUT = "LawBench cuts a value at its first space or line break (the plugin reads on: a note, a second word)"
OTHER_VALUES = "other values of a type"
PEER_PAST_TURN = "only LawBench reads it: past the model's own turn (after <eoa>, an invented turn)"
PEER_NEXT_LINE = "only LawBench reads it: the value on the line after its label"
PEER_SPACED = "only LawBench reads it: groups on one line separated by spaces (类型:值 类型:值)"
PEER_AFTER_LABEL = "only LawBench reads it: a type right after a heading (实体信息:犯罪嫌疑人:…)"
PEER_MID_SENTENCE = "only LawBench reads it: a type name inside a sentence or a longer name (盗窃时间:)"
PEER_PLUGIN_NONE = "only LawBench reads it: an output the plugin reads no answer from"
PEER_NONE_VALUE = "only LawBench reads it: a none-answer (无。, 没有, 不存在) taken for an entity"
PEER_OTHER = "only LawBench reads it: the plugin read another block (JSON, a declared answer)"
PLUGIN_NOT_MENTIONED = "only the plugin reads it: 未提及 taken for an entity"
PLUGIN_AT_END = "only the plugin reads it: a value at the very end (LawBench wants two characters after the colon)"
PLUGIN_OTHER_NAME = "only the plugin reads it: a type named otherwise (被告人, 被害人, JSON, a table)"
UNKNOWN_TYPE = "the plugin reads an entity of a type outside the ten (a false positive)"
#: The kind of a type where the two measures part on the plugin's reading (:func:`measure_kinds`).
PART_CREDIT = "types LawBench's character F1 credits in part and the plugin's exact/fuzzy matching not at all"


def _runs_on(value: str, types: Iterable[str]) -> Optional[str]:
    """:data:`NEXT_LABEL` or :data:`RUN_ON` when a value LawBench's rule read holds another ``type:``
    label (at its start, or further on), else ``None``."""
    spots = [value.find(name + colon) for name in types for colon in ":：" if name + colon in value]
    if not spots:
        return None
    return NEXT_LABEL if min(spots) == 0 or value.endswith((":", "：")) else RUN_ON


def _only_peer(own: str, name: str, plugin_valid: bool) -> str:
    """Why LawBench's rule reads a type the plugin does not (``own``: the model's own turn)."""
    spot = _peer_spot(own, name)
    if spot is None:
        return PEER_PAST_TURN
    if not own[spot + len(name) + 1:].split("\n", 1)[0].strip():
        return PEER_NEXT_LINE
    if _AFTER_HEADING.search(own[max(0, spot - 8):spot]):
        return PEER_AFTER_LABEL
    if not _LINE_START.search(own[max(0, spot - 12):spot]):
        return PEER_SPACED if _AFTER_SPACE.search(own[max(0, spot - 6):spot]) else PEER_MID_SENTENCE
    return PEER_OTHER if plugin_valid else PEER_PLUGIN_NONE


def _both(values: list[str], peer_value: str) -> Optional[str]:
    """The kind of a type both read with different values, or ``None`` when they read the same."""
    from cpsd_tasks.reading.ie_names import norm_text

    theirs = norm_text(peer_value)
    if peers.char_f1("、".join(values), theirs) == 1.0:
        return None
    if len(values) > 1 and theirs in values:
        return REPEATED if len(set(values)) == 1 else SEVERAL
    return CUT if theirs and "".join(values).startswith(theirs) else OTHER_VALUES


def _type_kind(text: str, name: str, mine: dict[str, list[str]], found: dict[str, str],
               own: _Own, types: tuple[str, ...], plugin_valid: bool) -> Optional[str]:
    """The kind of one type of one doc where the two readings differ, or ``None``."""
    run_on = _runs_on(found[name], types) if name in found else None
    if run_on:
        return run_on
    if name in mine and name not in found:
        if "未提及" in mine[name]:
            return PLUGIN_NOT_MENTIONED
        return PLUGIN_AT_END if name + ":" in text or name + "：" in text else PLUGIN_OTHER_NAME
    if name in found and name not in mine:
        from cpsd_tasks.reading.ie_names import NONE_ANSWERS, norm_text

        return PEER_NONE_VALUE if norm_text(found[name]) in NONE_ANSWERS else _only_peer(own.text, name, plugin_valid)
    return _both(mine[name], found[name]) if name in found else None


class _Own:
    """The model's own turn of an output, worked out when first asked for."""

    def __init__(self, output: str):
        self.output, self._text = output, None

    @property
    def text(self) -> str:
        from cpsd_tasks.reading.turns import first_turn

        if self._text is None:
            self._text = first_turn(self.output)
        return self._text


def reading_kinds(output: Optional[str], items: Iterable[Iterable[str]], plugin_valid: bool,
                  found: dict[str, str], types: Iterable[str]) -> Counter:
    """The kinds of type where the plugin's reading of one output and LawBench's differ.

    Args:
        output: raw output. items: the plugin's ``(type, text)`` items. plugin_valid: the plugin read
            an answer. found: LawBench's ``{type: value}``. types: the task's types.

    Returns:
        ``Counter({kind: types of this doc})`` (the kinds are this module's constants); empty when
        both read the same values of every type (compared as LawBench compares them, by
        :func:`~cpsd_tasks.audit.peers.char_f1`).
    """
    text, types = output or "", tuple(types)
    mine: dict[str, list[str]] = {}
    for name, value in items:
        mine.setdefault(name, []).append(value)
    own = _Own(text)
    kinds: Counter = Counter()
    for name in types:
        kind = _type_kind(text, name, mine, found, own, types, plugin_valid)
        if kind:
            kinds[kind] += 1
    unknown = sum(1 for name, _ in items if name not in types)
    if unknown:
        kinds[UNKNOWN_TYPE] += unknown
    return kinds


def measure_kinds(items: Iterable[Iterable[str]], by_type: dict, reference: dict[str, str]) -> Counter:
    """Where the two measures part on the plugin's own reading of one doc: the types the plugin reads
    whose values LawBench's character F1 credits in part (``0 < F1``) while exact and fuzzy matching
    match none of them (:data:`PART_CREDIT`)."""
    mine = joined(items)
    part = sum(1 for name, value in mine.items() if name in reference and by_type[name].tp_fuzzy == 0
               and peers.char_f1(reference[name], value) > 0)
    return Counter({PART_CREDIT: part}) if part else Counter()


def joined(items: Iterable[Iterable[str]]) -> dict[str, str]:
    """The plugin's items in LawBench's form, one value per type: a type's values joined by ``、``
    (LawBench's character F1 ignores the separator), items of unknown type left out."""
    from cpsd_tasks.reading.ie_names import UNKNOWN

    out: dict[str, list[str]] = {}
    for name, value in items:
        if name != UNKNOWN:
            out.setdefault(name, []).append(value)
    return {name: "、".join(values) for name, values in out.items()}


def read_ner(item: dict, output: Optional[str]) -> list:
    """One 2-6 output read by the plugin and by LawBench's rule.

    Returns:
        ``[plugin items (``[[type, text], …]``) or None when no answer was read, [tp_exact, tp_fuzzy,
        n_pred, n_gold], {kind: types} (:func:`reading_kinds`), {kind: types} (:func:`measure_kinds`),
        LawBench's {type: value}]`` (the peer's reading at :data:`cpsd_tasks.audit.corpora.PEERS_AT`,
        as in the audit's other records).
        Never raises on model output.
    """
    from cpsd_tasks.ie.match import Counts, match_entities
    from cpsd_tasks.ie.schema import DEFAULT_TAU
    from cpsd_tasks.reading.ie_parse import parse_output

    types = tuple(item["labels"])
    parsed = parse_output(output, inventory(types))
    by_type = match_entities(item["entities"], parsed.items, DEFAULT_TAU, exact_only=EXACT_ONLY)
    total = sum(by_type.values(), Counts())
    found = peers.lawbench_entities(output, types)
    kinds = reading_kinds(output, parsed.items, parsed.valid, found, types)
    measure = measure_kinds(parsed.items, by_type, item["reference"])
    items = [list(entity) for entity in parsed.items] if parsed.valid else None
    return [items, [total.tp_exact, total.tp_fuzzy, total.n_pred, total.n_gold], dict(kinds), dict(measure), found]


# --------------------------------------------------------------------------- model rows

def ner_rows(items: dict[str, dict], read: dict[str, dict[str, list]], published: dict) -> list[dict]:
    """One table row per model for 2-6.

    Returns:
        Rows ``{"model", "group": "2-6", "n", "plugin": f1_micro, "LawBench": mean soft F1,
        "published", "kinds": Counter of type kinds, "gold_lines": [0, 0], "ner": {...}}`` where
        ``ner`` holds the parts of the gap: ``plugin_f1`` (the plugin's doc-mean F1), ``exact``/``fuzzy``
        (pooled F1 of each stage), ``plugin_read_lawbench_measure`` (the plugin's reading scored by
        LawBench's measure), ``answered`` (docs where the plugin read an answer) and ``abstained``
        (LawBench found no type though the gold has one).
    """
    from cpsd_tasks.ie.hooks import agg_f1_pooled
    from cpsd_tasks.ie.match import Counts, doc_scores
    from cpsd_tasks.ie.schema import DEFAULT_ALPHA
    from cpsd_tasks.specs import CountItem

    rows = []
    for model, readings_of in read.items():
        counts, peer_sum, cross_sum, doc_f1, answered, abstained = [], 0.0, 0.0, 0.0, 0, 0
        kinds: Counter = Counter()
        measure: Counter = Counter()
        for item_id, record in readings_of.items():
            item = items[item_id]
            if item["kind"] != "ner":
                continue
            tally = Counts(*record[1])
            counts.append(CountItem(*record[1], DEFAULT_ALPHA))
            doc_f1 += doc_scores(tally, DEFAULT_ALPHA).f1
            reference = item["reference"]
            peer_sum += peers.lawbench_ner_score(record[4], reference)
            cross_sum += peers.lawbench_ner_score(joined(record[0] or ()), reference)
            answered += record[0] is not None
            abstained += bool(reference) and not record[4]
            kinds.update(record[2])
            measure.update(record[3])
        if not counts:
            continue
        n = len(counts)
        pooled = Counts(*(sum(c[k] for c in counts) for k in range(4)))
        rows.append({"model": model, "group": "2-6", "n": n, "plugin": agg_f1_pooled(counts),
                     "LawBench": peer_sum / n, "published": published.get((model, "2-6")), "kinds": kinds,
                     "gold_lines": [0, 0],
                     "ner": {"plugin_f1": doc_f1 / n, "exact": doc_scores(pooled, 1.0).f1,
                             "fuzzy": doc_scores(pooled, 0.0).f1, "plugin_read_lawbench_measure": cross_sum / n,
                             "answered": answered, "abstained": abstained, "measure_kinds": measure}})
    return rows


def explain(row: dict) -> str:
    """The line explaining a model's 2-6 gap: the figures, the reading part (the plugin's reading
    scored by LawBench's measure, minus LawBench's figure) with the kinds of type read differently, and
    the measure part (the plugin's figure minus that) with the types only LawBench's measure credits."""
    ner = row["ner"]
    cross = ner["plugin_read_lawbench_measure"]
    kinds = "; ".join(f"{count} {kind}" for kind, count in row["kinds"].most_common()) or "none"
    published = "" if row["published"] is None else f", published {row['published']:.3f}"
    return (f"- {row['model']} 2-6 NER: plugin {row['plugin']:.3f} (exact {ner['exact']:.3f}, fuzzy "
            f"{ner['fuzzy']:.3f}; {ner['answered']} of {row['n']} docs answered), LawBench {row['LawBench']:.3f}"
            f"{published} — reading {cross - row['LawBench']:+.3f} (types read differently: {kinds}); "
            f"measure {row['plugin'] - cross:+.3f} ({ner['measure_kinds'].get(PART_CREDIT, 0)} {PART_CREDIT}; "
            f"doc-mean F1 {ner['plugin_f1']:.3f})")


def summary(rows: list[dict]) -> str:
    """The paragraph under the table on 2-6: what the figures are, for how many models LawBench's rule
    as re-expressed gives the published figure, and the kinds of type read differently over all models."""
    published = [row for row in rows if row["published"] is not None]
    same = sum(1 for row in published if round(row["LawBench"], 4) == row["published"])
    kinds: Counter = Counter()
    for row in rows:
        kinds.update(row["kinds"])
    measure = sum(row["ner"]["measure_kinds"].get(PART_CREDIT, 0) for row in rows)
    abstained = [row["ner"]["abstained"] for row in rows]
    return ("2-6 NER: *plugin* is the plugin's IE metric on its own reading (the IE reader with LawBench's ten "
            "types and their plain synonyms; f1_micro: exact then fuzzy matching at τ 0.8, names and amounts "
            "exact only, counts pooled over docs, α 0.5); *LawBench rule* is LawBench's soft F1 (one value per "
            "type after `类型:` anywhere in the output, character F1 per type, mean over docs). LawBench's rule "
            f"as re-expressed gives the published figure, to 4 decimals, for {same} of {len(published)} models "
            "(LawBench's published 2-6 abstention is 0 for every model: its scorer returns the rate under a "
            "misspelt key its results table does not read; the rule finds no type in "
            f"{min(abstained)}–{max(abstained)} outputs per model whose gold has one). A gap is split into "
            "*reading* (the plugin's reading scored by LawBench's measure, minus LawBench's figure) and *measure* "
            "(the plugin's figure minus that). Types read differently, all models: "
            + "; ".join(f"{count} {kind}" for kind, count in kinds.most_common())
            + f". Measure: {measure} {PART_CREDIT}."
            if rows else "")
