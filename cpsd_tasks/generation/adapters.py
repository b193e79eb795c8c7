"""Every use of a private or undocumented API of rouge-chinese and bert-score, in one place.

Written for **rouge-chinese 1.0.3** and **bert-score 0.3.13** (the versions installed when this
was written; ``setup.cfg`` caps both below their next minor release). Nothing else in the package
reaches into these libraries' internals; a newer release that moves them breaks here, in one file,
and the tests that compare our values with the libraries' public entry points
(``rouge_chinese.Rouge().get_scores``, ``bert_score.BERTScorer.score``) say so.

rouge-chinese (``rouge_chinese.Rouge`` and its module ``rouge_chinese.rouge_score``):

* ``Rouge.cut_sent`` — the sentence cutting ``Rouge.get_scores`` applies to each side;
* ``Rouge().exclusive`` — the default ``exclusive=True`` (ROUGE-1 over *distinct* unigrams);
* ``rouge_score.rouge_n`` — ROUGE-N of two lists of sentences;
* ``rouge_score._split_into_words`` — the flattening of sentences into words before the LCS;
* ``rouge_score.f_r_p_rouge_n`` — the F formula ``2PR/(P+R+1e-8)`` from the three counts.

bert-score (``bert_score.BERTScorer`` and ``bert_score.utils``):

* ``BERTScorer._tokenizer`` / ``BERTScorer._model`` — the loaded tokenizer and model (the window
  is read from the model config; texts are cut to it explicitly);
* ``bert_score.utils.model2layers`` — bert-score's table of recommended layers per model name.

The libraries are imported inside the functions: importing this module costs nothing (bert-score
imports torch).
"""

from __future__ import annotations

import functools
from typing import Any, Sequence

#: The library versions this adapter was written and tested for.
WRITTEN_FOR = {"rouge-chinese": "1.0.3", "bert-score": "0.3.13"}


# --------------------------------------------------------------------------- rouge-chinese

@functools.cache
def _rouge():
    """The one ``rouge_chinese.Rouge()`` of this process (defaults: rouge-1/2/l, exclusive=True)."""
    from rouge_chinese import Rouge

    return Rouge()


def rouge_sentences(tokens: Sequence[str]) -> list[str]:
    """One side of a ROUGE pair as ``Rouge.get_scores`` prepares it (``Rouge._get_scores``):
    tokens joined by spaces, cut into sentences by ``Rouge.cut_sent``, runs of whitespace in each
    sentence collapsed to one space, empty sentences dropped.

    Args:
        tokens: the side's tokens (no whitespace inside a token).

    Returns:
        The sentences, each a space-joined token string; ``[]`` when nothing is left.
    """
    rouge = _rouge()
    return [" ".join(s.split()) for s in rouge.cut_sent(" ".join(tokens)) if len(s) > 0]


def rouge1_f(hyp: list[str], ref: list[str]) -> float:
    """ROUGE-1 F of two :func:`rouge_sentences` lists: ``rouge_score.rouge_n(hyp, ref, 1,
    exclusive=Rouge().exclusive)["f"]``, in [0, 1)."""
    from rouge_chinese import rouge_score

    return rouge_score.rouge_n(hyp, ref, 1, exclusive=_rouge().exclusive)["f"]


def rouge_words(sentences: list[str]) -> list[str]:
    """``rouge_score._split_into_words``: the sentences' words, flattened (what ROUGE-L's
    summary-level LCS runs on)."""
    from rouge_chinese import rouge_score

    return rouge_score._split_into_words(sentences)


def rouge_f_from_counts(hyp_count: int, ref_count: int, overlap: int) -> float:
    """``rouge_score.f_r_p_rouge_n(hyp_count, ref_count, overlap)["f"]``: ``2PR/(P+R+1e-8)`` with
    ``P = overlap/hyp_count`` and ``R = overlap/ref_count`` (0 for a zero count), in [0, 1)."""
    from rouge_chinese import rouge_score

    return rouge_score.f_r_p_rouge_n(hyp_count, ref_count, overlap)["f"]


# --------------------------------------------------------------------------- bert-score

def known_layers() -> dict[str, int]:
    """``bert_score.utils.model2layers``: bert-score's recommended layer per model name
    (``"bert-base-chinese"`` → 8)."""
    from bert_score.utils import model2layers

    return model2layers


def scorer_tokenizer(scorer: Any) -> Any:
    """The transformers tokenizer a ``bert_score.BERTScorer`` loaded (``scorer._tokenizer``)."""
    return scorer._tokenizer


def scorer_window(scorer: Any) -> int:
    """The position window of a ``bert_score.BERTScorer``'s model: its config's
    ``max_position_embeddings`` (``scorer._model.config``), 512 when the model does not say."""
    return getattr(getattr(scorer._model, "config", None), "max_position_embeddings", None) or 512
