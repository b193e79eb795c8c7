"""The paper's hybrid IE metric: exact then optimal fuzzy matching, and the α mix (docs/metrics.md).

Per type (NER) or relation (RE), on multisets: exact matches first, then on what is left the best
one-to-one assignment (``scipy.optimize.linear_sum_assignment``, maximum number of pairs, ties to
the highest total similarity) among pairs whose rapidfuzz normalised Levenshtein similarity is
≥ τ (:func:`match_entities`, :func:`match_relations`, :func:`best_assignment`). The counts give
P/R/F1 of both stages and their mix ``α·exact + (1−α)·fuzzy`` (:func:`doc_scores`, with the
empty-document rules in :func:`prf`; docs/metrics.md#information-extraction); :func:`judge` parses and scores
one output against its doc.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import AbstractSet, Any, Callable, Iterable, Optional, Sequence

from cpsd_tasks.ie.schema import (DEFAULT_ALPHA, DEFAULT_TAU, DRUG_TAIL_RELATIONS, EXACT_ONLY_TYPES, MIN_FUZZY_LEN,
                                  gold_items)
from cpsd_tasks.reading.ie_names import UNKNOWN
from cpsd_tasks.reading.ie_parse import Parsed, parse_output
from cpsd_tasks.taxonomy import error_class
from cpsd_tasks.tasks import get_task
from cpsd_tasks.reading.refusals import is_refusal

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
    pairs = [(i, j, s) for i, p in enumerate(preds) for j, g in enumerate(golds)
             if (s := similarity(p, g)) is not None]
    if len({i for i, _, _ in pairs}) == len(pairs) and len({j for _, j, _ in pairs}) == len(pairs):
        return [(i, j) for i, j, _ in pairs]  # no pred or gold in two eligible pairs: all of them
    import numpy as np                       # (scipy is imported only when there is a choice to make)
    from scipy.optimize import linear_sum_assignment

    big = min(len(preds), len(golds)) + 1.0
    weights = np.zeros((len(preds), len(golds)))
    eligible = np.zeros((len(preds), len(golds)), dtype=bool)
    for i, j, s in pairs:
        weights[i, j] = big + s
        eligible[i, j] = True
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
                   tau: float = DEFAULT_TAU, exact_only: AbstractSet[str] = EXACT_ONLY_TYPES) -> dict[str, Counts]:
    """Per-type exact and fuzzy match counts of one NER document (docs/metrics.md#information-extraction).

    Args:
        gold, pred: ``(type, text)`` items in comparison form (see :func:`gold_items`,
            :func:`parse_output`); multisets (duplicates count).
        tau: fuzzy threshold in (0, 1]: normalised Levenshtein similarity ≥ ``tau``.
        exact_only: the types that never match fuzzily (default :data:`EXACT_ONLY_TYPES`, the
            plugin's names, amounts and identifiers; another inventory names its own).

    Returns:
        ``{type: Counts}`` for every type present in gold or prediction (incl. :data:`UNKNOWN`).
        Types in ``exact_only`` and :data:`UNKNOWN` get no fuzzy matches; other types
        fuzzy-match only strings of at least :data:`MIN_FUZZY_LEN` characters.
    """
    gold, pred = list(gold), list(pred)
    sim = _levenshtein(tau)
    out = {}
    for typ in dict.fromkeys([t for t, _ in gold] + [t for t, _ in pred]):
        fuzzy_ok = typ not in exact_only and typ != UNKNOWN
        out[typ] = _count([x for t, x in gold if t == typ], [x for t, x in pred if t == typ],
                          sim if fuzzy_ok else None)
    return out


def match_relations(gold: Iterable[tuple[str, str, str]], pred: Iterable[tuple[str, str, str]],
                    tau: float = DEFAULT_TAU) -> dict[str, Counts]:
    """Per-relation exact and fuzzy match counts of one RE document (docs/metrics.md#information-extraction).

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
    """Precision, recall, F1 (each in [0, 1]) with the empty-document rules (docs/metrics.md#information-extraction).

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
    scores (the paper's ``Score_total``); the others are the two stages on their own.
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
        error_class: the error class (docs/metrics.md#error-classes): ``correct`` (exact F1 = 1), ``format``
            (fuzzy F1 = 1 only),
            ``content`` (parsed, not fully right), ``refusal`` / ``instruction`` (unparseable).
    """

    parsed: Parsed
    by_type: dict[str, Counts]
    total: Counts
    scores: DocScores
    error_class: str


def judge(doc: dict[str, Any], output: Optional[str], alpha: float = DEFAULT_ALPHA,
          tau: float = DEFAULT_TAU) -> Judgement:
    """Parse and score one output against a doc (docs/metrics.md#information-extraction,
    docs/metrics.md#error-classes).

    Args:
        doc: a doc with ``task`` (``drug_ner``/``fraud_ner``/``drug_re``) and ``entities`` or
            ``relations`` (docs/data.md#record-format).
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
