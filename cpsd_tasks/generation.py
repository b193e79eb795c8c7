"""Text generation tasks: BERTScore, character/word BLEU and ROUGE (SPEC.md §4.5).

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
* ``score`` — equals ``bertscore_f1`` (the paper's TG metric, SPEC §2); NaN when BERTScore is
  missing (see below), never a stand-in metric and never 0;
* ``empty_rate`` — share of outputs with nothing to score (empty, whitespace, or an unclosed
  ``<think>``); they score 0 on every metric;
* ``bertscore_config`` — a text (not a number) saying which model, layer and bert-score version
  produced ``bertscore_f1``, how many texts were truncated to the model's 512-token window, or
  why BERTScore is missing. It shows in the printed table and in the results JSON.

Both sides are cleaned first: ``<think>`` removal (:func:`cpsd_tasks.text.strip_think`; an
unclosed ``<think>`` leaves nothing) and stripping of surrounding whitespace; for BLEU and ROUGE
also Unicode NFKC (full-width to half-width, so ``５００元`` matches ``500元``). BERTScore reads the
text as written (BERT has its own vocabulary for full-width forms). The label-oriented parts of
SPEC §4 normalisation (answer-prefix and edge-punctuation removal) are not applied to prose.

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
"""

from __future__ import annotations

import functools
import hashlib
import logging
import math
import os
import re
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Sequence

from cpsd_tasks.options import get_option
from cpsd_tasks.tasks import get_task
from cpsd_tasks.reader import written_turn
from cpsd_tasks.taxonomy import reading
from cpsd_tasks.text import answer_text, strip_think

log = logging.getLogger("cpsd_tasks.generation")

#: Per-sample text metrics, in the order :func:`text_scores` returns them.
TEXT_METRICS: tuple[str, ...] = ("bleu_char", "bleu_word", "rouge1_char", "rougeL_char",
                                 "rouge1_word", "rougeL_word")
#: Every reported metric (SPEC §4.5 plus ``score``, ``empty_rate`` and ``bertscore_config``).
METRICS: tuple[str, ...] = ("bertscore_f1", *TEXT_METRICS, "score", "empty_rate", "bertscore_config")

DEFAULT_BERTSCORE_MODEL = "bert-base-chinese"
DEFAULT_BERTSCORE_BATCH_SIZE = 32
ENV_MODEL = "CPSD_BERTSCORE_MODEL"
ENV_NUM_LAYERS = "CPSD_BERTSCORE_NUM_LAYERS"
ENV_BATCH_SIZE = "CPSD_BERTSCORE_BATCH_SIZE"
#: ``bertscore_model`` values that switch BERTScore off.
DISABLED = ("none", "off")


# --------------------------------------------------------------------------- text side

def clean(text: Optional[str]) -> str:
    """Text as scored: ``<think>`` removed, NFKC, surrounding whitespace stripped.

    Args:
        text: model output or reference; ``None`` counts as empty.

    Returns:
        The cleaned text, ``""`` when nothing is left (e.g. an unclosed ``<think>``).
    """
    return answer_text(text).strip()


def char_tokens(text: str) -> list[str]:
    """Character tokens for ROUGE: every non-whitespace character, punctuation included."""
    return [ch for ch in text if not ch.isspace()]


#: jieba's HMM is quadratic on a long run of characters that forms no dictionary word (100,000
#: such characters took 23 s); text is cut into pieces of at most this many characters first.
JIEBA_MAX_PIECE = 1000
# Split after sentence-final punctuation or a line end, keeping it with its sentence.
_SENTENCE_SPLIT = re.compile(r"(?<=[。！？!?；;\n])")


_JIEBA: dict[str, Any] = {}


def jieba_tokenizer():
    """This package's own ``jieba.Tokenizer`` on jieba's default dictionary, built on first use.

    Not jieba's global tokenizer: ``jieba.add_word``/``load_userdict`` called anywhere else in the
    process change only that one, so they cannot change ``bleu_word``/``rouge*_word``.
    """
    if "tokenizer" not in _JIEBA:
        import jieba

        _JIEBA["tokenizer"] = jieba.Tokenizer()  # default dictionary, same cache file as jieba.dt
    return _JIEBA["tokenizer"]


def word_tokens(text: str) -> list[str]:
    """Word tokens: jieba precise mode (``cut`` with HMM, on :func:`jieba_tokenizer`), whitespace
    dropped.

    Text is cut at line ends and sentence punctuation, and any piece still longer than
    :data:`JIEBA_MAX_PIECE` characters is cut into pieces of that length before jieba sees it;
    ordinary prose (sentences shorter than that) is tokenised exactly as a fresh
    ``jieba.cut(text)`` would.
    """
    cut = jieba_tokenizer().cut
    tokens: list[str] = []
    for sentence in _SENTENCE_SPLIT.split(text):
        for start in range(0, len(sentence), JIEBA_MAX_PIECE):
            piece = sentence[start:start + JIEBA_MAX_PIECE]
            tokens.extend(part for word in cut(piece) for part in word.split())
    return tokens


_ROUGE = None


def _rouge():
    global _ROUGE
    if _ROUGE is None:
        from rouge_chinese import Rouge

        _ROUGE = Rouge()  # defaults: rouge-1/2/l, exclusive=True (as the paper would have used)
    return _ROUGE


def rouge_f(hyp_tokens: Sequence[str], ref_tokens: Sequence[str]) -> tuple[float, float]:
    """ROUGE-1 and ROUGE-L F of two token lists, exactly as rouge-chinese 1.0.3 computes them.

    ``rouge_chinese.Rouge().get_scores(" ".join(hyp), " ".join(ref))`` would spend O(n·m) Python
    dict entries on the LCS (36 s and ~4 GB for a 5,000-character pair). This function runs the
    same rouge-chinese code — its sentence cutting and word splitting, ``rouge_n`` for ROUGE-1
    (default ``exclusive=True``: overlap of *distinct* unigrams) and ``f_r_p_rouge_n`` for the
    F formula ``2PR/(P+R+1e-8)`` — and takes only the LCS length from rapidfuzz's C++
    ``LCSseq.similarity`` (exact, bit-parallel). The values equal rouge-chinese's bit for bit
    (tests compare them on a test set); a 5,000-character pair takes well under a second.

    Args:
        hyp_tokens: hypothesis tokens (no whitespace inside a token).
        ref_tokens: reference tokens.

    Returns:
        ``(rouge1_f, rougeL_f)``, each in [0, 1); ``(0.0, 0.0)`` when either side has no token
        (rouge-chinese would raise ``ValueError: Hypothesis is empty.``).
    """
    from rapidfuzz.distance import LCSseq
    from rouge_chinese import rouge_score

    if not hyp_tokens or not ref_tokens:
        return 0.0, 0.0
    rouge = _rouge()
    # Exactly Rouge._get_scores' preprocessing of each side.
    hyp = [" ".join(s.split()) for s in rouge.cut_sent(" ".join(hyp_tokens)) if len(s) > 0]
    ref = [" ".join(s.split()) for s in rouge.cut_sent(" ".join(ref_tokens)) if len(s) > 0]
    if not hyp or not ref:
        return 0.0, 0.0
    r1 = rouge_score.rouge_n(hyp, ref, 1, exclusive=rouge.exclusive)["f"]
    # rouge_l_summary_level: LCS of the flattened word lists, P = lcs/len(hyp), R = lcs/len(ref).
    hyp_words = rouge_score._split_into_words(hyp)
    ref_words = rouge_score._split_into_words(ref)
    lcs = LCSseq.similarity(ref_words, hyp_words)
    rl = rouge_score.f_r_p_rouge_n(len(hyp_words), len(ref_words), lcs)["f"]
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


# sacrebleu's ``zh`` tokenizer, the same string in a fraction of the time. sacrebleu's own code
# (``TokenizerZh.__call__``) walks the text in Python, one character at a time, to put spaces
# around every "Chinese" character, then runs its ``13a`` rules whose first rule (spaces around
# ASCII punctuation, and around every space) calls back into Python for each match. Both steps map
# one character to a fixed string with no context, so ``str.translate`` does them in C. The
# tables are built from sacrebleu's own ``_UCODE_RANGES`` and compiled rule, and the remaining
# context rules (period, comma, dash) are sacrebleu's own regexes, applied as it applies them.
_ZH: dict[str, Any] = {}


def _zh_tables() -> dict[str, Any]:
    """``{"han": table, "punct": table, "rules": [(regex, repl)], "fast": bool, "zh": TokenizerZh}``, built once.

    ``han`` maps each character ``TokenizerZh._is_chinese_char`` accepts to itself between spaces.
    The ranges are compared as Python strings, as sacrebleu compares them: a bound written with
    five hex digits (``'\u20000'``) is two characters, so ``'\u20000' <= c`` means ``c >
    '\u2000'`` and ``c <= '\u2a6d6'`` means ``c <= '\u2a6d'`` (tests check every code point
    against sacrebleu's function). ``punct`` does the same for the first ``13a`` rule's character
    class (ASCII only; tests check no other character matches it). If the installed sacrebleu's
    rules have another shape, ``"fast"`` is False and its own tokenizer is used.
    """
    if _ZH:
        return _ZH
    from sacrebleu.tokenizers import tokenizer_zh
    from sacrebleu.tokenizers.tokenizer_re import TokenizerRegexp

    def low(bound: str) -> int:  # least code point c with bound <= c (one-character c)
        return ord(bound) if len(bound) == 1 else ord(bound[0]) + 1

    def high(bound: str) -> int:  # greatest code point c with c <= bound
        return ord(bound[0])

    han: dict[int, str] = {}
    for start, end in tokenizer_zh._UCODE_RANGES:
        for cp in range(low(start), high(end) + 1):
            han[cp] = f" {chr(cp)} "
    rules = list(TokenizerRegexp()._re)
    first, repl = rules[0]
    fast = (repl == r" \1 " and first.pattern.startswith("([") and first.pattern.endswith("])")
            and first.groups == 1)
    punct = {cp: f" {chr(cp)} " for cp in range(128) if first.fullmatch(chr(cp))}
    _ZH.update(han=han, punct=punct, rules=rules[1:], fast=fast, zh=tokenizer_zh.TokenizerZh())
    return _ZH


def zh_tokenize(text: str) -> str:
    """sacrebleu's ``zh`` tokenisation of ``text`` as BLEU applies it (``TokenizerZh()(text.rstrip())``):
    tokens joined by single spaces. Equal to sacrebleu's string (tests: every code point, the
    stand-in data and odd texts)."""
    tables = _zh_tables()
    if not tables["fast"]:
        return tables["zh"](text.rstrip())
    line = text.strip().translate(tables["han"]).translate(tables["punct"])
    for regex, repl in tables["rules"]:
        line = regex.sub(repl, line)
    return " ".join(line.split())


#: BLEU-4, as ``sacrebleu.sentence_bleu`` computes it.
BLEU_ORDER = 4


def ngram_counts(tokens: Sequence[str]) -> tuple[tuple[Counter, ...], int]:
    """sacrebleu's ``extract_all_word_ngrams(" ".join(tokens), 1, 4)``, one Counter per order:
    every n-gram as a tuple of tokens with its count, and the token count; the same counts, built
    by ``zip`` in C."""
    return tuple(Counter(zip(*(tokens[i:] for i in range(n)))) for n in range(1, BLEU_ORDER + 1)), len(tokens)


def bleu_from_counts(hyp: tuple[tuple[Counter, ...], int], ref: tuple[tuple[Counter, ...], int]) -> float:
    """Sentence BLEU / 100 from :func:`ngram_counts` of both sides, clipped at 1.0.

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


@dataclass(frozen=True)
class TextTokens:
    """Every tokenisation of one cleaned text that the text metrics use, each made once.

    Attributes:
        chars: non-whitespace characters (``rouge*_char``).
        words: jieba words (``rouge*_word``; their n-grams give ``bleu_word``).
        zh_ngrams: :func:`ngram_counts` of sacrebleu's ``zh`` tokens (``bleu_char``).
        word_ngrams: :func:`ngram_counts` of ``words`` (``bleu_word``).
    """

    chars: tuple[str, ...]
    words: tuple[str, ...]
    zh_ngrams: tuple[tuple[Counter, ...], int]
    word_ngrams: tuple[tuple[Counter, ...], int]


def text_tokens(text: str) -> TextTokens:
    """:class:`TextTokens` of a cleaned text: jieba once, sacrebleu's ``zh`` once."""
    words = tuple(word_tokens(text))
    return TextTokens(tuple(char_tokens(text)), words, ngram_counts(zh_tokenize(text).split()),
                      ngram_counts(words))


#: References are tokenised through this cache (a reference recurs: repeats, re-scoring, the
#: bench's resampled docs); hypotheses are not cached.
_REFERENCE_CACHE_SIZE = 4096
_reference_tokens = functools.lru_cache(maxsize=_REFERENCE_CACHE_SIZE)(text_tokens)


def text_scores(hypothesis: Optional[str], reference: Optional[str]) -> dict[str, float]:
    """The six BLEU/ROUGE metrics of one pair (SPEC §4.5).

    Each side is tokenised once (:func:`text_tokens`: jieba once for ``bleu_word`` and
    ``rouge*_word``, sacrebleu's ``zh`` once; the reference's tokens cached); the values are those
    of ``sacrebleu.sentence_bleu(hyp, [ref], tokenize="zh")`` and of the jieba/ROUGE definitions
    above, bit for bit (tests compare with the direct calls).

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
    r1c, rlc = rouge_f(h.chars, r.chars)
    r1w, rlw = rouge_f(h.words, r.words)
    return {
        "bleu_char": bleu_from_counts(h.zh_ngrams, r.zh_ngrams),
        "bleu_word": bleu_from_counts(h.word_ngrams, r.word_ngrams),
        "rouge1_char": r1c,
        "rougeL_char": rlc,
        "rouge1_word": r1w,
        "rougeL_word": rlw,
    }


def process_results(doc: dict[str, Any], results: Sequence[Optional[str]]) -> dict[str, Any]:
    """lm-eval ``process_results`` for the three generation tasks (SPEC §4.5).

    Args:
        doc: a doc from :func:`cpsd_tasks.data.harness_dataset` (needs ``task`` and ``reference``).
        results: filtered responses; ``results[0]`` is the output (may be ``None``).

    Returns:
        The six text metrics and ``empty_rate`` as floats; ``bertscore_f1`` and ``score`` as
        ``[reference, candidate, task id]`` items for the batched BERTScore aggregation (the
        candidate is the model's own turn, :func:`cpsd_tasks.reader.written_turn`: ``<think>``
        removed, cut at the first end marker such as ``<eoa>`` or invented ``<human>`` turn,
        whitespace stripped, not NFKC-folded: BERT reads the text as written; an output that is
        only punctuation is empty and scores 0 everywhere); ``bertscore_config`` as the task id;
        ``reading`` (what was scored: its length, whether it was empty, cut at an end marker or
        truncated; see :func:`cpsd_tasks.taxonomy.reading`).
    """
    from cpsd_tasks.truncation import was_truncated as _was_truncated

    task_id = get_task(doc["task"]).id
    output = results[0] if results else None
    candidate = written_turn(output)
    reference = strip_think(doc["reference"]).strip()
    item = [reference, candidate, task_id]
    truncated = _was_truncated(output, doc)
    empty = not clean(candidate)
    error = "refusal" if empty and not truncated else "correct"
    return {
        "bertscore_f1": item,
        **text_scores(candidate, reference),
        "score": item,
        "empty_rate": float(empty),
        "bertscore_config": task_id,
        "truncated_rate": float(truncated),
        "reading": reading(None if empty else f"{len(candidate)} chars", error, empty and not truncated,
                           empty=empty, cut=len(candidate) < len(strip_think(output).strip()),
                           truncated=truncated),
    }


# --------------------------------------------------------------------------- BERTScore

class BertScoreUnavailable(RuntimeError):
    """BERTScore cannot be computed (model not loadable, switched off, bad option).

    ``str(err)`` is the full message for the log; ``err.short`` a one-line reason for the table.
    """

    def __init__(self, message: str, short: str):
        super().__init__(message)
        self.short = short


@dataclass(frozen=True)
class BertScoreSettings:
    """Resolved BERTScore options of a run.

    Attributes:
        model: hub name or local directory, as given.
        num_layers: layer whose embeddings are compared (``None`` when unknown: an error).
        batch_size: texts per forward pass.
        origin: where ``model`` came from (``--metadata bertscore_model``,
            ``$CPSD_BERTSCORE_MODEL`` or ``default``).
    """

    model: str
    num_layers: Optional[int]
    batch_size: int
    origin: str

    @property
    def disabled(self) -> bool:
        """``bertscore_model=none``: BERTScore switched off on purpose."""
        return self.model.lower() in DISABLED


def _known_layers(model: str) -> Optional[int]:
    """bert-score's recommended layer for ``model`` or for a local path that names a known model.

    ``/models/bert-base-chinese`` and a hub-cache ``…/models--bert-base-chinese/snapshots/<hash>``
    both give 8; an unknown name gives ``None``.
    """
    from bert_score.utils import model2layers

    if model in model2layers:
        return model2layers[model]
    for part in reversed(Path(model).parts):
        name = part[len("models--"):].replace("--", "/") if part.startswith("models--") else part
        if name in model2layers:
            return model2layers[name]
    return None


def _env_int(name: str) -> Optional[int]:
    """Environment variable ``name`` as an integer, ``None`` when unset or empty.

    Raises:
        ValueError: it is set but not an integer (the message names it).
    """
    value = os.environ.get(name)
    if not value:
        return None
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"${name}={value!r} is not an integer") from None


def bertscore_settings(task_id: str) -> BertScoreSettings:
    """Resolve the BERTScore options of ``task_id`` (``--metadata`` > environment > default).

    Raises:
        ValueError: a numeric option cannot be read as an integer (the message names it).
    """
    model = get_option(task_id, "bertscore_model", None)
    origin = "--metadata bertscore_model"
    if model is None and os.environ.get(ENV_MODEL):
        model, origin = os.environ[ENV_MODEL], f"${ENV_MODEL}"
    if model is None:
        model, origin = DEFAULT_BERTSCORE_MODEL, "default"
    model = str(model).strip()
    layers = get_option(task_id, "bertscore_num_layers", None, int)
    if layers is None:
        layers = _env_int(ENV_NUM_LAYERS)
    if layers is None and model.lower() not in DISABLED:  # _known_layers imports bert_score
        layers = _known_layers(model)
    batch = get_option(task_id, "bertscore_batch_size", None, int)
    if batch is None:
        batch = _env_int(ENV_BATCH_SIZE)
    if batch is None:
        batch = DEFAULT_BERTSCORE_BATCH_SIZE
    return BertScoreSettings(model=model, num_layers=layers, batch_size=max(1, batch), origin=origin)


def bert_score_version() -> str:
    """Installed bert-score distribution version (``"0.3.13"``), ``"?"`` if unknown."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("bert-score")
    except PackageNotFoundError:
        return "?"


#: The one BERTScorer of this process: ``{"key": (model, layers), "scorer": BERTScorer}``.
_SCORER: dict[str, Any] = {}
#: Load failures by ``(model, layers)``: a model that failed is not retried in this process.
_FAILED: dict[tuple[str, Optional[int]], BertScoreUnavailable] = {}
#: From this many pairs on, bert-score's progress bar is shown while BERTScore runs.
PROGRESS_FROM = 100
#: BERTScorer constructions and batched ``score`` calls in this process (tests assert on them).
STATS = {"loads": 0, "score_calls": 0}
#: Per task id: the last scoring (see :func:`bertscore_f1s`).
_RESULTS: dict[str, dict[str, Any]] = {}

_FIX = (f"give a local copy with --metadata bertscore_model=<dir> bertscore_num_layers=8 (or "
        f"${ENV_MODEL}/${ENV_NUM_LAYERS}), or re-score the sample log later with cpsd-rescore")


def _fail(key: tuple[str, Optional[int]], message: str, short: str) -> BertScoreUnavailable:
    err = BertScoreUnavailable(message, short)
    _FAILED[key] = err
    return err


def get_scorer(settings: BertScoreSettings):
    """Return the process's BERTScorer for ``settings``, loading it on first use.

    One scorer is kept per process; asking for another model/layer replaces it (logged).

    Raises:
        BertScoreUnavailable: switched off, missing directory, unknown layer, or the model cannot
            be loaded; the message names the model, the cause and the fix. Failures are
            remembered and not retried in the same process.
    """
    if settings.disabled:
        raise BertScoreUnavailable(
            f"BERTScore switched off ({settings.origin}={settings.model})",
            f"switched off ({settings.model})")
    key = (settings.model, settings.num_layers)
    if _SCORER.get("key") == key:
        return _SCORER["scorer"]
    if key in _FAILED:
        raise _FAILED[key]
    path = Path(settings.model).expanduser()
    if (path.is_absolute() or settings.model.startswith((".", "~"))) and not path.is_dir():
        raise _fail(key, f"BERTScore model directory {str(path)!r} ({settings.origin}) does not "
                    f"exist; give a directory holding config.json, the weights and the tokenizer",
                    f"no such directory {str(path)!r}")
    if settings.num_layers is None:
        raise _fail(key, f"no layer known for BERTScore model {settings.model!r}: set --metadata "
                    f"bertscore_num_layers=N or ${ENV_NUM_LAYERS} (bert-base-chinese uses 8)",
                    f"set bertscore_num_layers for {settings.model!r}")
    started = time.perf_counter()
    try:
        from bert_score import BERTScorer

        model_type = str(path) if path.is_dir() else settings.model  # "~/m" works too
        scorer = BERTScorer(model_type=model_type, num_layers=settings.num_layers, idf=False,
                            rescale_with_baseline=False, batch_size=settings.batch_size)
    except Exception as err:  # OSError (no hub, no local files), ValueError, ImportError, ...
        first_line = (str(err).strip().splitlines() or [""])[0][:300].rstrip(". ")
        raise _fail(key, f"could not load BERTScore model {settings.model!r} ({settings.origin}): "
                    f"{type(err).__name__}: {first_line}. To fix: {_FIX}",
                    f"cannot load {settings.model!r} ({type(err).__name__}; see log)") from err
    if _SCORER:
        log.warning("cpsd generation: replacing BERTScore model %s by %s", _SCORER["key"], key)
    _SCORER.clear()
    _SCORER.update(key=key, scorer=scorer)
    STATS["loads"] += 1
    log.warning("cpsd generation: BERTScore model %s (%s), layer %d, bert-score %s, no baseline "
                "rescaling, idf off, device %s; loaded in %.1f s", settings.model, settings.origin,
                settings.num_layers, bert_score_version(), scorer.device,
                time.perf_counter() - started)
    return scorer


def _max_tokens(scorer) -> int:
    """Content tokens that fit the model window (512 for BERT, minus [CLS] and [SEP] = 510)."""
    tokenizer = scorer._tokenizer
    window = getattr(getattr(scorer._model, "config", None), "max_position_embeddings", None) or 512
    if not tokenizer.model_max_length or tokenizer.model_max_length > window:
        # An unset model_max_length (a huge sentinel) makes bert-score's encode overflow.
        tokenizer.model_max_length = window
    return tokenizer.model_max_length - tokenizer.num_special_tokens_to_add(pair=False)


def truncate_to_tokens(tokenizer, text: str, limit: int) -> tuple[str, bool]:
    """Cut ``text`` to its longest character prefix of at most ``limit`` tokens.

    Args:
        tokenizer: a transformers tokenizer (``tokenize`` counts tokens without special tokens).
        text: the text.
        limit: maximum number of tokens (>= 0).

    Returns:
        ``(text or its prefix, truncated?)``.
    """
    if len(tokenizer.tokenize(text)) <= limit:
        return text, False
    low, high = 0, len(text)
    while low < high:  # largest prefix length whose token count fits
        mid = (low + high + 1) // 2
        if len(tokenizer.tokenize(text[:mid])) <= limit:
            low = mid
        else:
            high = mid - 1
    return text[:low], True


def _digest(items: Sequence[Sequence[Any]]) -> str:
    h = hashlib.sha1()
    for ref, cand, _ in items:
        h.update(ref.encode("utf-8") + b"\x00" + cand.encode("utf-8") + b"\x01")
    return h.hexdigest()


def bertscore_f1s(items: Sequence[Sequence[Any]]) -> list[float]:
    """BERTScore F1 of every ``[reference, candidate, task id]`` item, in one batched call.

    Empty candidates score 0 without the model; the others (and their references) are cut to
    the model window explicitly (:func:`truncate_to_tokens`, 510 tokens for BERT; the count is
    logged and shown in ``bertscore_config``) and scored in one ``BERTScorer.score`` call. The
    result is cached per task, item list and settings, so ``bertscore_f1`` and ``score`` share
    one computation.

    Args:
        items: per-sample items from :func:`process_results`, all of one task.

    Returns:
        F1 per item (raw BERTScore, no rescaling; in [0, 1] for real BERT models).

    Raises:
        BertScoreUnavailable: see :func:`get_scorer`; also when scoring itself fails. The full
            message is logged as an ERROR once per task.
    """
    if not items:
        return []
    task_id = items[0][2]
    try:
        settings: Optional[BertScoreSettings] = bertscore_settings(task_id)
        settings_error = None
    except ValueError as err:
        settings, settings_error = None, BertScoreUnavailable(f"bad BERTScore option: {err}",
                                                              "bad BERTScore option (see log)")
    digest = _digest(items)
    cached = _RESULTS.get(task_id)
    if cached and cached["digest"] == digest and cached["settings"] == settings:
        if cached["error"]:
            raise cached["error"]
        return cached["f1s"]
    f1s = [0.0] * len(items)
    todo = [i for i, (_, cand, _) in enumerate(items) if cand.strip()]
    record: dict[str, Any] = {"digest": digest, "settings": settings, "f1s": f1s, "truncated": 0,
                              "limit": None, "seconds": 0.0, "error": None, "n": len(items),
                              "scored": len(todo)}
    _RESULTS[task_id] = record
    if not todo:
        return f1s
    try:
        if settings_error is not None:
            raise settings_error
        scorer = get_scorer(settings)
        started = time.perf_counter()
        limit = record["limit"] = _max_tokens(scorer)
        cands, refs = [], []
        for i in todo:
            ref, cand, _ = items[i]
            cand, cut_c = truncate_to_tokens(scorer._tokenizer, cand, limit)
            ref, cut_r = truncate_to_tokens(scorer._tokenizer, ref, limit)
            record["truncated"] += int(cut_c) + int(cut_r)
            cands.append(cand)
            refs.append(ref)
        STATS["score_calls"] += 1
        # Hundreds of pairs take minutes on a CPU: say so first, and let bert-score's own progress
        # bar run for large batches (printing only; the values are the same).
        log.warning("cpsd_%s: scoring BERTScore of %d pairs with %s (layer %s)…", task_id, len(todo),
                    settings.model, settings.num_layers)
        _, _, f = scorer.score(cands, refs, batch_size=settings.batch_size,
                               verbose=len(todo) >= PROGRESS_FROM)
        for i, value in zip(todo, f.tolist()):
            f1s[i] = float(value)
        record["seconds"] = time.perf_counter() - started
    except BertScoreUnavailable as err:
        record["error"] = err
    except Exception as err:  # scoring itself failed (e.g. out of memory): missing, not a crash
        record["error"] = BertScoreUnavailable(
            f"BERTScore failed while scoring: {type(err).__name__}: {err}",
            f"scoring failed ({type(err).__name__}; see log)")
    if record["error"] is not None:
        log.error("cpsd_%s: bertscore_f1 and score are MISSING (reported as NaN, not 0): %s",
                  task_id, record["error"])
        raise record["error"]
    log.warning("cpsd_%s: BERTScore of %d pairs (%d empty outputs scored 0 without the model) in "
                "%.1f s; %d texts cut to %d tokens", task_id, len(todo), len(items) - len(todo),
                record["seconds"], record["truncated"], limit)
    return f1s


def agg_bertscore_f1(items: Sequence[Sequence[Any]]) -> float:
    """Aggregation of ``bertscore_f1``: mean BERTScore F1 in [0, 1], or NaN when missing."""
    if not items:
        return float("nan")
    try:
        f1s = bertscore_f1s(items)
    except BertScoreUnavailable:
        return float("nan")
    return sum(f1s) / len(f1s)


def agg_score(items: Sequence[Sequence[Any]]) -> float:
    """Aggregation of ``score``: the task's primary metric ``bertscore_f1`` (NaN when missing)."""
    return agg_bertscore_f1(items)


def describe_bertscore(task_id: str) -> str:
    """One line on how ``bertscore_f1`` of ``task_id`` was computed, or why it is missing.

    Examples: ``"bert-base-chinese, layer 8, bert-score 0.3.13, 3 of 400 texts cut to 510 tokens"``
    (candidates and references both count);
    ``"MISSING: cannot load 'bert-base-chinese' (OSError; see log)"``; ``"not computed"``.
    """
    record = _RESULTS.get(task_id)
    if record is None:
        return "not computed"
    if record["error"] is not None:
        return f"MISSING: {record['error'].short}"
    if not record["scored"]:
        return "model not loaded: every output was empty (all scored 0)"
    settings = record["settings"]
    return (f"{settings.model}, layer {settings.num_layers}, bert-score {bert_score_version()}, "
            f"{record['truncated']} of {2 * record['scored']} texts cut to {record['limit']} tokens")


def agg_bertscore_config(items: Sequence[str]) -> str:
    """Aggregation of ``bertscore_config``: :func:`describe_bertscore` of the task (a string).

    The harness aggregates metrics in the order :func:`process_results` returns them, so this
    runs after ``bertscore_f1``; run first it would say ``not computed``.
    """
    if not items:
        return "not computed"
    return describe_bertscore(str(items[0]))


def reset_bertscore_state() -> None:
    """Forget the loaded scorer, failures, cached results and counters (tests, re-scoring)."""
    _SCORER.clear()
    _FAILED.clear()
    _RESULTS.clear()
    STATS.update(loads=0, score_calls=0)


def is_missing(value: Any) -> bool:
    """True for the NaN (or ``None``) that marks a missing metric."""
    return value is None or (isinstance(value, float) and math.isnan(value))
