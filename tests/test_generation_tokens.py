"""Generation scoring tokenises each text once and gives the same values as before (issue 16).

``text_scores`` no longer calls ``sacrebleu.sentence_bleu(..., tokenize="zh")``: it tokenises each
side once (:func:`cpsd_tasks.generation.text_tokens`: sacrebleu's ``zh`` tokenisation through
``str.translate``, jieba once) and computes BLEU from n-gram counts with sacrebleu's own
``BLEU.compute_bleu``. These tests prove the values are the same floats (``==``, no tolerance) as
the direct calls, on the stand-in data, the demo data and odd texts, and count the work done.
No test here measures time.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from cpsd_tasks import generation as g
from cpsd_tasks.generation import tokens
from cpsd_tasks.baseline.rules_tg import LEAD_CHARS, lead
from cpsd_tasks.data.loading import DEMO_DIR

from conftest import SHARED_DATA, needs_shared_data

TASKS = ("case_summary", "case_report", "legal_analysis")

#: Texts that stress sacrebleu's zh tokenizer: its range bounds written with five hex digits
#: (two characters each, so U+2001..U+2A6D and U+2F81..U+2FA1 count as "Chinese"), characters
#: outside the BMP, the 13a context rules (period/comma beside digits, dash after a digit),
#: whitespace of every kind, control characters, lone surrogates, full-width forms.
ODD = [
    "a.,b", ".,", "1,000.50元", "3-4-5", "x-y", "-5", "5-", "...", ",,,", "a.b.c", "U.S.A.", "1.5,2.5",
    ". , .", "。，、；：？！", "５００元（一）", "\u3000开头\u3000结尾\u3000", "emoji 😀🚓 ok",
    "\u2000\u2001\u2a6d\u2a6e\u2f80\u2f81\u2fa1\u2fa2\u20ac\u2026—–", "𠀀𠀁 ext B \U0002f800\U0002fa1d",
    "A&B<C>D", "{[(x)]}", "`~^_|\\", "tab\tsep\x0bvt\x0cff\x1cfs\x85nel\xa0nbsp", "line1\nline2\r\n",
    "\x00\x07ctl", "e\u0301 combining", "ｆｕｌｌ　ｗｉｄｔｈ", "Ⅻ ① ㈠ ㊣ ㎡", "中文English混合123.45%",
    "2023-05-01 12:30", "http://x.y/z?a=1&b=2#frag", "\ud83d lone surrogate \udc00", "ㄅㄆ ㆠ ㇀ ⺀ ⼀ ⿰",
    "﹐﹑ ︰ ☀ ✂ ㈱", "犯罪嫌疑人张某于2023年5月在北京市朝阳区某小区贩卖毒品，被公安机关当场抓获。",
    "被告人李某某（男，1985年生）因涉嫌诈骗罪，于2020.3.15被刑事拘留；同年4-5月间…", " ", "",
]


def _fuzz(n: int = 300, seed: int = 16) -> list[str]:
    """Random strings over an alphabet mixing every kind above."""
    alphabet = list("".join(ODD)) + list("的了是在有人中国法院.,-0123456789 ")
    rng = random.Random(seed)
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 60))) for _ in range(n)]


def _read(folder, task: str) -> list[dict]:
    with open(folder / task / "test.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _pairs(folder, every: bool = True) -> list[tuple[str, str]]:
    """The baseline's answer and another doc's reference against each reference; with ``every``
    also half the reference and the reference itself."""
    pairs = []
    for task in TASKS:
        docs = _read(folder, task)
        for i, doc in enumerate(docs):
            ref = doc["reference"]
            pairs += [(lead(doc["input"], LEAD_CHARS[task]), ref), (docs[(i + 1) % len(docs)]["reference"], ref)]
            if every:
                pairs += [(ref[: len(ref) // 2], ref), (ref, ref)]
    return pairs


def _odd_pairs() -> list[tuple[str, str]]:
    texts = ODD + _fuzz(120)
    rng = random.Random(7)
    return [(h, r) for h in texts for r in rng.sample(texts, 3)]


def previous_text_scores(hypothesis, reference) -> dict[str, float]:
    """``text_scores`` as it was before issue 16: sacrebleu's own zh tokenisation per call."""
    hyp, ref = g.clean(hypothesis), g.clean(reference)
    if not hyp or not ref:
        return {name: 0.0 for name in g.TEXT_METRICS}
    hyp_words, ref_words = g.word_tokens(hyp), g.word_tokens(ref)
    r1c, rlc = g.rouge_f(g.char_tokens(hyp), g.char_tokens(ref))
    r1w, rlw = g.rouge_f(hyp_words, ref_words)
    return {
        "bleu_char": g.sentence_bleu(hyp, ref, "zh"),
        "bleu_word": g.sentence_bleu(" ".join(hyp_words), " ".join(ref_words), "none"),
        "rouge1_char": r1c, "rougeL_char": rlc, "rouge1_word": r1w, "rougeL_word": rlw,
    }


# --------------------------------------------------------------------------- zh tokenisation

def test_chinese_table_matches_sacrebleu_on_every_code_point():
    from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh

    is_chinese = TokenizerZh._is_chinese_char.__wrapped__  # the function, not its LRU cache
    han = tokens._zh_tables()["han"]
    assert tokens._zh_tables()["fast"]
    wrong = [cp for cp in range(0x110000) if is_chinese(chr(cp)) != (cp in han)]
    assert wrong == []
    # the two-character bounds, as sacrebleu compares them
    assert 0x2000 not in han and 0x2001 in han and 0x2A6D in han and 0x2A6E not in han
    assert 0x20000 not in han  # CJK Extension B is *not* split by sacrebleu's zh tokenizer


def test_first_13a_rule_is_ascii_only():
    """The per-character table of the first rule covers every character its regex matches."""
    from sacrebleu.tokenizers.tokenizer_re import TokenizerRegexp

    first = TokenizerRegexp()._re[0][0]
    assert first.search("".join(chr(cp) for cp in range(128, 0x110000))) is None
    assert set(tokens._zh_tables()["punct"]) == {cp for cp in range(128) if first.fullmatch(chr(cp))}


def _sacrebleu_zh(text: str) -> str:
    from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh

    return TokenizerZh()(text.rstrip())  # what BLEU._preprocess_segment does


def test_zh_tokenize_equals_sacrebleu_on_odd_texts():
    texts = ODD + _fuzz()
    assert [g.zh_tokenize(t) for t in texts] == [_sacrebleu_zh(t) for t in texts]


def test_zh_tokenize_equals_sacrebleu_on_demo_texts():
    texts = [doc[key] for task in TASKS for doc in _read(DEMO_DIR, task) for key in ("input", "reference")]
    assert [g.zh_tokenize(t) for t in texts] == [_sacrebleu_zh(t) for t in texts]


@pytest.mark.e2e
@needs_shared_data
def test_zh_tokenize_equals_sacrebleu_on_stand_in_texts():
    texts = [doc[key] for task in TASKS for doc in _read(SHARED_DATA, task) for key in ("input", "reference")]
    assert len(texts) == 700
    assert [g.zh_tokenize(t) for t in texts] == [_sacrebleu_zh(t) for t in texts]


# --------------------------------------------------------------------------- BLEU from counts

def _check_bleu(pairs) -> int:
    import sacrebleu

    compared = 0
    for hyp, ref in pairs:
        hyp, ref = g.clean(hyp), g.clean(ref)
        if not hyp.strip() or not ref.strip():
            continue
        expected = min(1.0, sacrebleu.sentence_bleu(hyp, [ref], tokenize="zh").score / 100.0)
        got = g.bleu_from_counts(g.ngram_counts(g.zh_tokenize(hyp).split()),
                                 g.ngram_counts(g.zh_tokenize(ref).split()))
        assert got == expected, (hyp, ref)
        hw, rw = g.word_tokens(hyp), g.word_tokens(ref)
        expected = min(1.0, sacrebleu.sentence_bleu(" ".join(hw), [" ".join(rw)], tokenize="none").score / 100.0)
        assert g.bleu_from_counts(g.ngram_counts(hw), g.ngram_counts(rw)) == expected, (hyp, ref)
        compared += 1
    return compared


def test_bleu_from_counts_is_sacrebleu_sentence_bleu_on_odd_and_demo_pairs():
    assert _check_bleu(_odd_pairs() + _pairs(DEMO_DIR)) > 400


def test_ngram_counts_equal_sacrebleu_extraction():
    from sacrebleu.metrics.helpers import extract_all_word_ngrams

    for text in ODD + _fuzz(100):
        tokens = g.zh_tokenize(text).split()
        per_order, length = g.ngram_counts(tokens)
        merged = sum(per_order, Counter())
        assert (merged, length) == extract_all_word_ngrams(" ".join(tokens), 1, 4)
        assert all(len(gram) == n for n, counts in enumerate(per_order, 1) for gram in counts)


# --------------------------------------------------------------------------- text_scores as before

def _check_scores(pairs, again: bool = True) -> None:
    for hyp, ref in pairs:
        tokens._reference_tokens.cache_clear()
        scores = g.text_scores(hyp, ref)
        assert scores == previous_text_scores(hyp, ref), (hyp, ref)
        if again:  # the reference's tokens from the cache this time
            assert g.text_scores(hyp, ref) == scores


def test_text_scores_identical_to_previous_implementation_on_odd_and_demo_pairs():
    _check_scores(_odd_pairs() + _pairs(DEMO_DIR) + [(None, "参考"), ("<think>x</think>答案", "答案")])


@pytest.mark.e2e
@needs_shared_data
def test_text_scores_identical_to_previous_implementation_on_stand_in_pairs():
    """Both BLEU values are compared with sacrebleu.sentence_bleu here (previous_text_scores)."""
    pairs = _pairs(SHARED_DATA, every=False)
    assert len(pairs) == 2 * 350
    _check_scores(pairs, again=False)


# --------------------------------------------------------------------------- work counted

def test_each_text_segmented_once_and_reference_tokens_cached(monkeypatch):
    calls = {"jieba": 0, "zh": 0, "sacrebleu": 0}
    word_tokens, zh_tokenize = g.word_tokens, g.zh_tokenize

    def counting(name, func):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return func(*args, **kwargs)
        return wrapper

    import sacrebleu

    # patched where text_tokens looks them up (cpsd_tasks.generation.tokens)
    monkeypatch.setattr(g.tokens, "word_tokens", counting("jieba", word_tokens))
    monkeypatch.setattr(g.tokens, "zh_tokenize", counting("zh", zh_tokenize))
    monkeypatch.setattr(sacrebleu, "sentence_bleu", counting("sacrebleu", sacrebleu.sentence_bleu))
    tokens._reference_tokens.cache_clear()
    ref = "被告人张某犯盗窃罪，判处有期徒刑一年。"
    hyps = ["张某犯盗窃罪。", "被告人张某犯盗窃罪，判处有期徒刑一年。", "判处有期徒刑一年"]
    for hyp in hyps:
        g.text_scores(hyp, ref)
    # each hypothesis once; the reference once for all three (cached); sacrebleu's per-call
    # tokenising entry point is not used
    assert calls == {"jieba": len(hyps) + 1, "zh": len(hyps) + 1, "sacrebleu": 0}
    assert tokens._reference_tokens.cache_info().hits == len(hyps) - 1


def test_warm_up_loads_the_dictionary_in_a_thread_and_changes_no_token():
    from cpsd_tasks.generation import tokens

    from cpsd_tasks.generation import text_scores

    before = tokens.word_tokens("今天天气很好，我们去公园散步。")
    reference = "<think>草稿</think>民警到场后将两人带回派出所调查。"
    expected = text_scores("民警将两人带回派出所。", "民警到场后将两人带回派出所调查。")
    tokens._reference_tokens.cache_clear()
    thread = tokens.warm_up([reference, ""])
    thread.join(timeout=120)
    assert not thread.is_alive() and tokens.jieba_tokenizer().initialized
    assert tokens._reference_tokens.cache_info().currsize == 1          # the reference, ready before scoring
    assert text_scores("民警将两人带回派出所。", reference) == expected  # and scored the same from the cache
    assert tokens._reference_tokens.cache_info().hits == 1
    assert tokens.word_tokens("今天天气很好，我们去公园散步。") == before == [
        "今天天气", "很", "好", "，", "我们", "去", "公园", "散步", "。"]


def test_word_tokens_cuts_a_recurring_sentence_once_and_gives_jiebas_words():
    """A sentence that recurs (a looping output) is cut by jieba once; the words are those of a
    fresh cut, piece by piece, and a piece longer than the cached length is cut every time."""
    from cpsd_tasks.generation import tokens

    sentence = "今天天气很好，我们去公园散步。"
    fresh = [part for word in tokens.jieba_tokenizer().cut(sentence) for part in word.split()]
    long_piece = "民警" * 150 + "。"                     # 301 characters: above the cached length
    tokens._cached_piece_words.cache_clear()
    calls = Counter()
    real_cut = tokens._cut_piece

    def counting(piece):
        calls[piece] += 1
        return real_cut(piece)

    tokens._cached_piece_words = tokens.functools.lru_cache(maxsize=1 << 14)(counting)
    original_cut = tokens._cut_piece
    tokens._cut_piece = counting
    try:
        words = tokens.word_tokens(sentence * 40 + long_piece * 3)
    finally:
        tokens._cut_piece = original_cut
        tokens._cached_piece_words = tokens.functools.lru_cache(maxsize=1 << 14)(original_cut)
    assert len(long_piece) > tokens._CACHED_PIECE >= len(sentence)
    assert calls == {sentence: 1, long_piece: 3}
    long_words = [part for word in tokens.jieba_tokenizer().cut(long_piece) for part in word.split()]
    assert words == fresh * 40 + long_words * 3
    assert fresh == ["今天天气", "很", "好", "，", "我们", "去", "公园", "散步", "。"]
