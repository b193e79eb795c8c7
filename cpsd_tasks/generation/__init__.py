"""Text generation tasks: BERTScore, character/word BLEU and ROUGE (docs/metrics.md#text-generation).

Metrics of ``cpsd_case_summary``, ``cpsd_case_report`` and ``cpsd_legal_analysis``:

* ``bertscore_f1`` — BERTScore F1 (bert-score), default ``bert-base-chinese`` at layer 8, no
  baseline rescaling, no idf; one :class:`bert_score.BERTScorer` per process, loaded on first use,
  all pairs of a task scored in one batched call at aggregation time;
* ``bleu_char`` / ``bleu_word`` — sacrebleu ``sentence_bleu`` (BLEU-4, brevity penalty, default
  ``exp`` smoothing, effective order) / 100, averaged over samples; ``char`` uses sacrebleu's
  ``zh`` tokenizer, ``word`` joins jieba precise-mode tokens with spaces and uses ``none``
  (each text is tokenised once for all six text metrics and BLEU computed from its n-gram counts
  with sacrebleu's own formula: :func:`text_scores`; the values are sacrebleu's, bit for bit);
* ``rouge1_char`` / ``rougeL_char`` / ``rouge1_word`` / ``rougeL_word`` — rouge-chinese F on
  space-joined characters / jieba tokens, averaged over samples (see :func:`rouge_f` for how the
  LCS is computed fast while the values stay identical to ``rouge_chinese.Rouge().get_scores``);
* ``score`` — equals ``bertscore_f1`` (the paper's TG metric); NaN when BERTScore is
  missing (see below), never a stand-in metric and never 0;
* ``empty_rate`` — share of outputs with nothing to score (empty, whitespace, or an unclosed
  ``<think>``); they score 0 on every metric;
* ``bertscore_config`` — a text (not a number) saying which model, layer and bert-score version
  produced ``bertscore_f1``, how many texts were truncated to the model's 512-token window, or
  why BERTScore is missing. It shows in the printed table and in the results JSON.

Both sides are cleaned first: ``<think>`` removal (:func:`cpsd_tasks.reading.prepare.strip_think`; an
unclosed ``<think>`` leaves nothing) and stripping of surrounding whitespace; for BLEU and ROUGE
also Unicode NFKC (full-width to half-width, so ``５００元`` matches ``500元``). BERTScore reads the
text as written (BERT has its own vocabulary for full-width forms). The label-oriented parts of
normalisation (docs/metrics.md#normalisation: answer-prefix and edge-punctuation removal) are not applied to prose.

BERTScore options (per run; ``--metadata`` wins over the environment):

* ``bertscore_model`` / ``$CPSD_BERTSCORE_MODEL``: hub name or local directory
  (default ``bert-base-chinese``); ``none`` switches BERTScore off (reported as missing);
* ``bertscore_num_layers`` / ``$CPSD_BERTSCORE_NUM_LAYERS``: layer to use; required for a local
  directory unless its path names a model bert-score knows (``…/bert-base-chinese`` → 8);
* ``bertscore_batch_size`` / ``$CPSD_BERTSCORE_BATCH_SIZE``: batch size (default 32).

When the model cannot be loaded (no hub access and no local copy, a bad path …) the run logs an
ERROR naming the model, the cause and the fix, and ``bertscore_f1`` and ``score`` are NaN
(``NaN`` in the printed table and in the results JSON); groups averaging them become NaN too. NaN
rather than ``None`` because the harness's group mean multiplies every value (``None`` would
crash the whole run) and NaN cannot be mistaken for a score. The sample log keeps the texts, so
``scripts/rescore.py`` can fill the metric in later without calling the model again.

The package, along the lines of lm-eval's ``ifeval`` folder (logic modules under thin hooks):

* :mod:`~cpsd_tasks.generation.tokens` — cleaning and every tokenisation, once per text;
* :mod:`~cpsd_tasks.generation.overlap` — BLEU (sacrebleu) and ROUGE (rouge-chinese) of a pair;
* :mod:`~cpsd_tasks.generation.settings` — BERTScore options and :class:`BertScoreUnavailable`;
* :mod:`~cpsd_tasks.generation.bertscore` — the :class:`BertScorer` object holding all BERTScore
  state of a process (model, failures, results per task, counters);
* :mod:`~cpsd_tasks.generation.adapters` — every private API of rouge-chinese and bert-score;
* :mod:`~cpsd_tasks.generation.hooks` — ``process_results`` and the aggregations the YAMLs name.

Every name below keeps its old path ``cpsd_tasks.generation.<name>`` (YAML ``!function``,
scripts, tests, :mod:`cpsd_tasks.report.rescore`).
"""

from __future__ import annotations

from cpsd_tasks.generation import adapters, bertscore, hooks, overlap, settings, tokens
from cpsd_tasks.generation.bertscore import (PROGRESS_FROM, BertScorer, bert_scorer, bertscore_f1s,
                                             describe_bertscore, get_scorer, reset_bertscore_state,
                                             truncate_to_tokens)
from cpsd_tasks.generation.hooks import (METRICS, agg_bertscore_config, agg_bertscore_f1, agg_score,
                                         is_missing, process_results)
from cpsd_tasks.generation.overlap import (TEXT_METRICS, bleu_from_counts, rouge_f, sentence_bleu,
                                           text_scores)
from cpsd_tasks.generation.settings import (DEFAULT_BERTSCORE_BATCH_SIZE, DEFAULT_BERTSCORE_MODEL,
                                            DISABLED, ENV_BATCH_SIZE, ENV_MODEL, ENV_NUM_LAYERS,
                                            BertScoreSettings, BertScoreUnavailable,
                                            bert_score_version, bertscore_settings)
from cpsd_tasks.generation.tokens import (BLEU_ORDER, JIEBA_MAX_PIECE, TextTokens, char_tokens, clean,
                                          jieba_tokenizer, ngram_counts, text_tokens, word_tokens, zh_tokenize)

__all__ = [
    # hooks (named by the YAMLs)
    "process_results", "agg_bertscore_f1", "agg_score", "agg_bertscore_config", "is_missing",
    "METRICS", "TEXT_METRICS",
    # text metrics
    "text_scores", "rouge_f", "sentence_bleu", "bleu_from_counts",
    # tokens
    "clean", "char_tokens", "word_tokens", "jieba_tokenizer", "zh_tokenize", "ngram_counts",
    "text_tokens", "TextTokens", "BLEU_ORDER", "JIEBA_MAX_PIECE",
    # BERTScore
    "BertScorer", "bert_scorer", "bertscore_f1s", "describe_bertscore", "get_scorer",
    "reset_bertscore_state", "truncate_to_tokens", "PROGRESS_FROM",
    "BertScoreSettings", "BertScoreUnavailable", "bertscore_settings", "bert_score_version",
    "DEFAULT_BERTSCORE_MODEL", "DEFAULT_BERTSCORE_BATCH_SIZE", "ENV_MODEL", "ENV_NUM_LAYERS",
    "ENV_BATCH_SIZE", "DISABLED",
    # modules
    "adapters", "bertscore", "hooks", "overlap", "settings", "tokens",
]
