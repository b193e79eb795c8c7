"""Question-answering tasks: answer reading, judging and per-type metrics (docs/metrics.md#question-answering).

Two tasks, one module:

``cpsd_case_reading`` (case-file reading comprehension; ``qtype`` 判断/精确/模糊)
    * 判断 — the output is read as 是/否/未知 (:func:`read_judgement`); accuracy ``acc_judge``.
    * 精确 — person names: correct only if the normalised answer equals the gold, or the set of
      names it gives (split on 、，,;；和及与 and whitespace) equals the gold's set
      (:func:`exact_span_match`); accuracy ``acc_exact``.
    * 模糊 — places, times, methods: correct if the rapidfuzz normalised Levenshtein similarity is
      ≥ τ_qa (default 0.6, ``--metadata '{"tau_qa": …}'``) or one string contains the other while
      the answer is at most twice the gold's length (:func:`fuzzy_span_match`); ``acc_fuzzy``.

``cpsd_police_exam`` (law-enforcement exam; ``qtype`` 判断/单选/多选)
    * 判断 — 正确/错误, also read from 对/错/√/×/是/否 (:func:`read_judgement`); ``acc_tf``.
    * 单选/多选 — option letters (:func:`extract_choices`); correct only when the letter set equals
      the gold set: ``acc_single``, ``acc_multi``; ``multi_partial`` gives a 多选 answer that is a
      subset of the gold the share of gold letters chosen (any wrong letter → 0).

Both tasks report ``total`` — the sample-weighted mean over all documents, i.e.
``Σ_t n_t·acc_t / Σ_t n_t`` (the paper's Table 5 total: (70·a + 70·b + 60·c)/200) — plus
``invalid_rate`` (no answer of the required kind could be read: a wrong answer, never a guess),
``refusal_rate`` (the unreadable outputs that are refusals or empty) and ``score`` (= ``total``,
the key the ``cpsd`` group averages).

Per-type metrics average over their own type's documents only: :func:`process_results` returns
a ``(qtype, value)`` item (:class:`~cpsd_tasks.specs.TypeItem`) for a document of that type and
``None`` for the others, and the ``agg_*`` aggregations keep only their own type's items. A
per-type metric whose type has no document in the run (e.g. with ``--limit 3``) is ``nan`` ("not
measured"), never 0 and never an error.
The harness reports its stderr as ``N/A`` (it only computes stderr for built-in aggregations).

The package, along the lines of lm-eval's ``ifeval`` folder (logic modules under thin hooks):

* reading is :mod:`cpsd_tasks.reading` (判断 labels: :func:`~cpsd_tasks.reading.read_judgement`,
  option letters: :func:`~cpsd_tasks.reading.read_choices`, span names:
  :func:`~cpsd_tasks.reading.name_set`, the label forms: :mod:`cpsd_tasks.reading.lexicon`);
* :mod:`~cpsd_tasks.qa.score` — the span rules, :func:`judge_reading`, :func:`judge_exam`,
  :func:`weighted_total`;
* :mod:`~cpsd_tasks.qa.hooks` — ``process_results``, the per-type aggregations the YAMLs name and
  :func:`tau_qa`.

The names below are reached as ``cpsd_tasks.qa.<name>`` (YAML ``!function``, :mod:`cpsd_tasks.specs`,
:mod:`cpsd_tasks.options`, :mod:`cpsd_tasks.report.errors`, scripts, tests).
"""

from __future__ import annotations

from cpsd_tasks.qa import hooks, score
from cpsd_tasks.qa.hooks import (TYPE_METRICS, agg_acc_exact, agg_acc_fuzzy, agg_acc_judge, agg_acc_multi,
                                 agg_acc_single, agg_acc_tf, agg_multi_partial, process_results, tau_qa,
                                 type_mean)
from cpsd_tasks.qa.score import (TAU_QA_DEFAULT, QAJudgement, exact_span_match, fuzzy_span_match, judge_exam,
                                 judge_reading, weighted_total)

__all__ = [
    # hooks (named by the YAMLs and cpsd_tasks.specs)
    "process_results", "agg_acc_judge", "agg_acc_exact", "agg_acc_fuzzy", "agg_acc_tf", "agg_acc_single",
    "agg_acc_multi", "agg_multi_partial", "type_mean", "TYPE_METRICS", "tau_qa",
    # judging
    "judge_reading", "judge_exam", "QAJudgement", "exact_span_match", "fuzzy_span_match", "TAU_QA_DEFAULT",
    "weighted_total",
    # modules
    "hooks", "score",
]
