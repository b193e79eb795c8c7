"""The text side of the generation metrics: cleaning and every tokenisation, once per text.

* :func:`clean` — the text as BLEU and ROUGE score it (``<think>`` removed, NFKC, stripped);
* :func:`char_tokens` — characters for ``rouge*_char``;
* :func:`word_tokens` — jieba precise-mode words for ``bleu_word`` and ``rouge*_word``, on this
  package's own ``jieba.Tokenizer`` (:func:`jieba_tokenizer`);
* :func:`zh_tokenize` — sacrebleu's ``zh`` tokenisation for ``bleu_char``, bit for bit, in C
  (``str.translate`` tables built from sacrebleu's own ranges and rules: :func:`_zh_tables`);
* :func:`ngram_counts` — the 1- to 4-gram counts BLEU needs;
* :func:`text_tokens` — all of the above for one text (:class:`TextTokens`), each made once;
  references go through an LRU cache (:data:`_reference_tokens`).
"""

from __future__ import annotations

import functools
import re
import threading
from collections import Counter
from dataclasses import dataclass
from typing import Any, Optional, Sequence

from cpsd_tasks.generation import adapters
from cpsd_tasks.reading.prepare import answer_text


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


_TOKENIZER_LOCK = threading.Lock()


@functools.cache
def jieba_tokenizer():
    """This package's own ``jieba.Tokenizer`` on jieba's default dictionary, built on first use.

    Not jieba's global tokenizer: ``jieba.add_word``/``load_userdict`` called anywhere else in the
    process change only that one, so they cannot change ``bleu_word``/``rouge*_word``.
    """
    with _TOKENIZER_LOCK:                    # one instance even when warm_up's thread races a cut
        import jieba

        return jieba.Tokenizer()  # default dictionary, same cache file as jieba.dt


def warm_up(references: Sequence[str] = ()) -> threading.Thread:
    """Load jieba's dictionary (about 1 s of CPU) and tokenise the task's references in a daemon
    thread: called when a generation task is built, this gold-side preparation overlaps the
    requests in flight instead of delaying the scoring. jieba's own lock makes a ``cut`` that comes
    first wait for the dictionary; a reference not yet tokenised is tokenised by the scorer as
    before (the cache gives the same :class:`TextTokens` either way).

    Args:
        references: the raw reference texts of the task's docs (at most half the reference cache
            is filled, so a large task cannot evict its own entries).

    Returns:
        The started thread (tests join it).
    """
    from cpsd_tasks.reading.prepare import strip_think

    def work() -> None:
        jieba_tokenizer().initialize()
        for reference in list(references)[:_REFERENCE_CACHE_SIZE // 2]:
            text = clean(strip_think(reference).strip())
            if text:
                _reference_tokens(text)

    thread = threading.Thread(target=work, name="cpsd-jieba-warm-up", daemon=True)
    thread.start()
    return thread


def word_tokens(text: str) -> list[str]:
    """Word tokens: jieba precise mode (``cut`` with HMM, on :func:`jieba_tokenizer`), whitespace
    dropped.

    Text is cut at line ends and sentence punctuation, and any piece still longer than
    :data:`JIEBA_MAX_PIECE` characters is cut into pieces of that length before jieba sees it;
    ordinary prose (sentences shorter than that) is tokenised exactly as a fresh
    ``jieba.cut(text)`` would. Short pieces' words come from an LRU cache
    (:func:`_piece_words`): the same sentence recurs in a text that loops and across texts.
    """
    tokens: list[str] = []
    for sentence in _SENTENCE_SPLIT.split(text):
        for start in range(0, len(sentence), JIEBA_MAX_PIECE):
            tokens.extend(_piece_words(sentence[start:start + JIEBA_MAX_PIECE]))
    return tokens


#: Pieces up to this many characters have their words cached (:func:`_piece_words`).
_CACHED_PIECE = 200


def _piece_words(piece: str) -> tuple[str, ...]:
    """jieba's words of one piece (at most :data:`JIEBA_MAX_PIECE` characters), whitespace dropped.

    jieba's cut of a piece depends on the piece alone (this package's tokenizer, default
    dictionary), so a cached piece gives the words a new cut gives. Pieces of at most
    :data:`_CACHED_PIECE` characters go through an LRU cache of 16,384 (a few MB for sentences,
    about 100 MB at the very worst): on the 16,500 summaries of the real-output corpus, 212,000 of
    267,000 pieces were found in it (sentences recur in a text that loops and across texts), and
    the summaries' ROUGE took 28 % less CPU.
    """
    if len(piece) <= _CACHED_PIECE:
        return _cached_piece_words(piece)
    return _cut_piece(piece)


def _cut_piece(piece: str) -> tuple[str, ...]:
    return tuple(part for word in jieba_tokenizer().cut(piece) for part in word.split())


_cached_piece_words = functools.lru_cache(maxsize=1 << 14)(_cut_piece)


# sacrebleu's ``zh`` tokenizer, the same string in a fraction of the time. sacrebleu's own code
# (``TokenizerZh.__call__``) walks the text in Python, one character at a time, to put spaces
# around every "Chinese" character, then runs its ``13a`` rules whose first rule (spaces around
# ASCII punctuation, and around every space) calls back into Python for each match. Both steps map
# one character to a fixed string with no context, so ``str.translate`` does them in C. The
# tables are built from sacrebleu's own ``_UCODE_RANGES`` and compiled rule, and the remaining
# context rules (period, comma, dash) are sacrebleu's own regexes, applied as it applies them.
@functools.cache
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
    return dict(han=han, punct=punct, rules=rules[1:], fast=fast, zh=tokenizer_zh.TokenizerZh())


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


def rouge_side(tokens: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """One side of a ROUGE pair prepared once: ``(sentences, words)`` — exactly
    ``Rouge._get_scores``' preprocessing (:func:`~cpsd_tasks.generation.adapters.rouge_sentences`)
    and the words ROUGE-L's LCS runs on (:func:`~cpsd_tasks.generation.adapters.rouge_words`);
    ``((), ())`` for no token. A reference's side is kept with its cached tokens
    (:class:`~cpsd_tasks.generation.tokens.TextTokens`), so it is prepared once per reference."""
    if not tokens:
        return (), ()
    sentences = adapters.rouge_sentences(tokens)
    return tuple(sentences), (tuple(adapters.rouge_words(sentences)) if sentences else ())


@dataclass(frozen=True)
class TextTokens:
    """Every tokenisation of one cleaned text that the text metrics use, each made once.

    Attributes:
        chars: non-whitespace characters (``rouge*_char``).
        words: jieba words (``rouge*_word``; their n-grams give ``bleu_word``).
        zh_ngrams: :func:`ngram_counts` of sacrebleu's ``zh`` tokens (``bleu_char``).
        word_ngrams: :func:`ngram_counts` of ``words`` (``bleu_word``).
        rouge_chars, rouge_words: :func:`rouge_side` of ``chars`` and of ``words``.
    """

    chars: tuple[str, ...]
    words: tuple[str, ...]
    zh_ngrams: tuple[tuple[Counter, ...], int]
    word_ngrams: tuple[tuple[Counter, ...], int]
    rouge_chars: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    rouge_words: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())


def text_tokens(text: str) -> TextTokens:
    """:class:`TextTokens` of a cleaned text: jieba once, sacrebleu's ``zh`` once."""
    words = tuple(word_tokens(text))
    chars = tuple(char_tokens(text))
    return TextTokens(chars, words, ngram_counts(zh_tokenize(text).split()), ngram_counts(words),
                      rouge_side(chars), rouge_side(words))


#: References are tokenised through this cache (a reference recurs: repeats, re-scoring, the
#: bench's resampled docs); hypotheses are not cached.
_REFERENCE_CACHE_SIZE = 4096
_reference_tokens = functools.lru_cache(maxsize=_REFERENCE_CACHE_SIZE)(text_tokens)
