"""BLEU and ROUGE of one pair (docs/metrics.md#text-generation): the six per-sample text metrics.

* ``bleu_char`` / ``bleu_word`` — sacrebleu ``sentence_bleu`` (BLEU-4, brevity penalty, default
  ``exp`` smoothing, effective order) / 100; ``char`` uses sacrebleu's ``zh`` tokenizer, ``word``
  joins jieba precise-mode tokens with spaces and uses ``none``. Each text is tokenised once for
  all six metrics (:func:`cpsd_tasks.generation.tokens.text_tokens`) and BLEU is computed from its
  n-gram counts with sacrebleu's own formula (:func:`bleu_from_counts`): the values are
  sacrebleu's, bit for bit;
* ``rouge1_char`` / ``rougeL_char`` / ``rouge1_word`` / ``rougeL_word`` — rouge-chinese F on
  space-joined characters / jieba tokens (:func:`rouge_f`: rouge-chinese's own code through
  :mod:`cpsd_tasks.generation.adapters`, the LCS length from rapidfuzz; values identical to
  ``rouge_chinese.Rouge().get_scores``).
"""

from __future__ import annotations

from collections import Counter
from typing import Optional, Sequence

from cpsd_tasks.generation import adapters
from cpsd_tasks.generation.tokens import BLEU_ORDER, _reference_tokens, clean, rouge_side, text_tokens

#: Per-sample text metrics, in the order :func:`text_scores` returns them.
TEXT_METRICS: tuple[str, ...] = ("bleu_char", "bleu_word", "rouge1_char", "rougeL_char",
                                 "rouge1_word", "rougeL_word")


def rouge_f(hyp_tokens: Sequence[str], ref_tokens: Sequence[str]) -> tuple[float, float]:
    """ROUGE-1 and ROUGE-L F of two token lists, exactly as rouge-chinese 1.0.3 computes them.

    ``rouge_chinese.Rouge().get_scores(" ".join(hyp), " ".join(ref))`` would spend O(n·m) Python
    dict entries on the LCS (36 s and ~4 GB for a 5,000-character pair). This function runs the
    same rouge-chinese code — its sentence cutting and word splitting, ``rouge_n`` for ROUGE-1
    (default ``exclusive=True``: overlap of *distinct* unigrams) and ``f_r_p_rouge_n`` for the
    F formula ``2PR/(P+R+1e-8)`` (all through :mod:`cpsd_tasks.generation.adapters`) — and takes
    only the LCS length from rapidfuzz's C++ ``LCSseq.similarity`` (exact, bit-parallel). The
    values equal rouge-chinese's bit for bit (tests compare them on a test set); a
    5,000-character pair takes well under a second.

    Args:
        hyp_tokens: hypothesis tokens (no whitespace inside a token).
        ref_tokens: reference tokens.

    Returns:
        ``(rouge1_f, rougeL_f)``, each in [0, 1); ``(0.0, 0.0)`` when either side has no token
        (rouge-chinese would raise ``ValueError: Hypothesis is empty.``).
    """
    return rouge_f_prepared(rouge_side(hyp_tokens), rouge_side(ref_tokens))


def rouge_f_prepared(hyp: tuple[tuple[str, ...], tuple[str, ...]],
                     ref: tuple[tuple[str, ...], tuple[str, ...]]) -> tuple[float, float]:
    """:func:`rouge_f` of two :func:`rouge_side` results (same values, bit for bit)."""
    from rapidfuzz.distance import LCSseq

    (hyp_sentences, hyp_words), (ref_sentences, ref_words) = hyp, ref
    if not hyp_sentences or not ref_sentences:
        return 0.0, 0.0
    r1 = adapters.rouge1_f(list(hyp_sentences), list(ref_sentences))
    # rouge_l_summary_level: LCS of the flattened word lists, P = lcs/len(hyp), R = lcs/len(ref).
    lcs = LCSseq.similarity(ref_words, hyp_words)
    rl = adapters.rouge_f_from_counts(len(hyp_words), len(ref_words), lcs)
    return float(r1), float(rl)


def sentence_bleu(hyp: str, ref: str, tokenize: str) -> float:
    """sacrebleu ``sentence_bleu(hyp, [ref], tokenize=tokenize).score / 100``.

    Default smoothing (``exp``) and effective order, as ``sacrebleu.sentence_bleu`` sets them.

    Returns:
        BLEU in [0, 1] (clipped at 1.0: sacrebleu returns 100.00000000000004 for identical text);
        0.0 for an empty hypothesis.
    """
    import sacrebleu

    if not hyp.strip() or not ref.strip():
        return 0.0
    return min(1.0, sacrebleu.sentence_bleu(hyp, [ref], tokenize=tokenize).score / 100.0)


def bleu_from_counts(hyp: tuple[tuple[Counter, ...], int], ref: tuple[tuple[Counter, ...], int]) -> float:
    """Sentence BLEU / 100 from :func:`~cpsd_tasks.generation.tokens.ngram_counts` of both sides,
    clipped at 1.0.

    The match statistics are sacrebleu's (``BLEU._compute_segment_statistics``: per order the
    hypothesis n-grams and the clipped matches ``min(hyp count, ref count)``, the hypothesis and
    reference lengths; integers, summed over the n-grams both sides share) and the score is
    sacrebleu's own ``BLEU.compute_bleu`` on them with ``sacrebleu.sentence_bleu``'s settings
    (``exp`` smoothing, effective order), so the float is the same bit for bit (tests compare it
    with ``sacrebleu.sentence_bleu`` on the stand-in data and odd texts). 0.0 when a side is empty.
    """
    from sacrebleu.metrics.bleu import BLEU

    (hyp_ngrams, hyp_len), (ref_ngrams, ref_len) = hyp, ref
    if not hyp_len or not ref_len:
        return 0.0
    total = [sum(h.values()) for h in hyp_ngrams]
    correct = [sum(min(h[g], r[g]) for g in h.keys() & r.keys()) for h, r in zip(hyp_ngrams, ref_ngrams)]
    score = BLEU.compute_bleu(correct=correct, total=total, sys_len=hyp_len, ref_len=ref_len,
                              smooth_method="exp", smooth_value=None, effective_order=True,
                              max_ngram_order=BLEU_ORDER)
    return min(1.0, score.score / 100.0)


def text_scores(hypothesis: Optional[str], reference: Optional[str]) -> dict[str, float]:
    """The six BLEU/ROUGE metrics of one pair (docs/metrics.md#text-generation).

    Each side is tokenised once (:func:`~cpsd_tasks.generation.tokens.text_tokens`: jieba once for
    ``bleu_word`` and ``rouge*_word``, sacrebleu's ``zh`` once; the reference's tokens cached); the
    values are those of ``sacrebleu.sentence_bleu(hyp, [ref], tokenize="zh")`` and of the
    jieba/ROUGE definitions above, bit for bit (tests compare with the direct calls).

    Args:
        hypothesis: model output (raw: ``<think>`` and NFKC handled here); ``None`` = empty.
        reference: gold text (raw).

    Returns:
        ``{metric: value}`` for :data:`TEXT_METRICS`, each in [0, 1]; all 0.0 when the cleaned
        hypothesis (or reference) is empty. Never raises on odd text.
    """
    hyp, ref = clean(hypothesis), clean(reference)
    if not hyp or not ref:
        return {name: 0.0 for name in TEXT_METRICS}
    h, r = text_tokens(hyp), _reference_tokens(ref)
    r1c, rlc = rouge_f_prepared(h.rouge_chars, r.rouge_chars)
    r1w, rlw = rouge_f_prepared(h.rouge_words, r.rouge_words)
    return {
        "bleu_char": bleu_from_counts(h.zh_ngrams, r.zh_ngrams),
        "bleu_word": bleu_from_counts(h.word_ngrams, r.word_ngrams),
        "rouge1_char": r1c,
        "rougeL_char": rlc,
        "rouge1_word": r1w,
        "rougeL_word": rlw,
    }
