"""Information extraction: output parser and the paper's hybrid exact + Levenshtein metric.

Definitions: docs/metrics.md#information-extraction.

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

The package, along the lines of lm-eval's ``ifeval`` folder (logic modules under thin hooks):

* reading is :mod:`cpsd_tasks.reading` — :mod:`~cpsd_tasks.reading.ie_names` (type/relation name
  tables, key and comparison forms), :mod:`~cpsd_tasks.reading.ie_items` (items from decoded JSON of any
  accepted shape and from lines/tables), :mod:`~cpsd_tasks.reading.ie_parse` (``parse_output``:
  declarations, fences, strict and repaired JSON);
* :mod:`~cpsd_tasks.ie.schema` — the metric's constants, gold items;
* :mod:`~cpsd_tasks.ie.match` — exact + optimal fuzzy matching, P/R/F1 and the α mix, :func:`judge`;
* :mod:`~cpsd_tasks.ie.hooks` — ``doc_to_target``, ``process_results`` and the
  aggregations the YAMLs name.

The names below are reached as ``cpsd_tasks.ie.<name>`` (YAML ``!function``, :mod:`cpsd_tasks.specs`,
:mod:`cpsd_tasks.options`, :mod:`cpsd_tasks.report.errors`, scripts, tests).
"""

from __future__ import annotations

from cpsd_tasks.ie import hooks, match, schema
from cpsd_tasks.ie.hooks import (agg_f1_pooled, agg_f1_type, doc_to_target, process_results,
                                 run_options)
from cpsd_tasks.ie.match import (Counts, DocScores, Judgement, best_assignment, doc_scores, judge, match_entities,
                                 match_relations, prf)
from cpsd_tasks.ie.schema import (DEFAULT_ALPHA, DEFAULT_TAU, DRUG_TAIL_RELATIONS, EXACT_ONLY_TYPES, MIN_FUZZY_LEN,
                                  gold_items)
from cpsd_tasks.tasks import get_task

__all__ = [
    # hooks (named by the YAMLs and cpsd_tasks.specs)
    "doc_to_target", "process_results", "agg_f1_pooled", "agg_f1_type", "run_options",
    # matching and scores
    "match_entities", "match_relations", "best_assignment", "Counts", "prf", "DocScores", "doc_scores",
    "Judgement", "judge",
    # schema
    "gold_items", "DEFAULT_ALPHA", "DEFAULT_TAU", "EXACT_ONLY_TYPES", "MIN_FUZZY_LEN", "DRUG_TAIL_RELATIONS",
    "get_task",
    # modules
    "hooks", "match", "schema",
]
