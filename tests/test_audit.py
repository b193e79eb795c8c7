"""Answer reading audited on 34 real LLMs' outputs (issue 11): graded set, GPT-4 by hand, real CLI.

Needs the real-output corpus beside the checkout (``../shared/realout/lawbench``); the tests skip
with that reason when it is absent. The graded set (tests/data/graded_single_choice.jsonl) holds
model, item id and the graders' reading only; the outputs stay in the corpus.
"""

from __future__ import annotations

import json
import re

import pytest

from cpsd_tasks import audit
from cpsd_tasks.reading.letters import read_choices

from capture_server import CaptureServer, Reply
from conftest import ROOT, run_cpsd_eval

CORPUS = (ROOT.parent / "shared" / "realout" / "lawbench").resolve()
GRADED = ROOT / "tests" / "data" / "graded_single_choice.jsonl"
needs_corpus = pytest.mark.skipif(
    not CORPUS.is_dir(), reason=f"real-output corpus {CORPUS} not present (it lives beside the checkout in CI)")


@pytest.fixture(scope="module")
def corpus():
    return audit.load_corpus(CORPUS)


def test_graded_set_file_is_well_formed():
    rows = audit.load_graded(GRADED)
    assert len(rows) >= 400
    assert {row["set"] for row in rows} >= {"dev", *(f"heldout{n}" for n in range(1, 22))}
    assert len({row["model"] for row in rows}) == 34                  # spread over all 34 models
    assert len({(row["model"], row["id"]) for row in rows}) == len(rows)
    for row in rows:
        assert row["answer"] == "NONE" or re.fullmatch(r"A?B?C?D?", row["answer"]) and row["answer"]
        assert set(row) == {"set", "key", "model", "id", "answer", "settled"}   # no outputs kept here


@pytest.mark.e2e
@needs_corpus
def test_reading_against_the_graded_set(corpus):
    scores = audit.score_graded(corpus, audit.load_graded(GRADED))
    plugin, rule = scores["all"]["plugin"], scores["all"]["lawbench"]
    # Measured when the reader was last changed (README "Answer reading"); a change that reads
    # fewer graded items right, or credits an answer nobody gave, fails here.
    assert plugin.n == 6810
    # reader 2: 6,691 (one fewer: "A:贪污罪" where 贪污罪 is option C's text is no answer now, as the graders
    # of the disc and lexeval sets read a letter carrying another option's text; this set's graders read A)
    # reader 6: 0.9836, after 33 items were re-read under the recitation convention
    # reader 8: 0.9824 (6,690), after 20 of 60 items were re-read under the convention "a declared letter restated
    # with another option's text is no answer" (reader 7 on the re-read set: 0.9806, 42 false credits, 29 changed)
    # reader 9: 6,691 (English "…is point B: <text>" read)
    assert plugin.right >= 6691 and plugin.false_credit <= 28 and plugin.wrong_letters <= 12
    assert plugin.credit_differs <= 22                                  # reading errors that change a score
    assert rule.right < 3550 and rule.credit_differs >= 385            # LawBench's rule: 0.503, 403
    for name, (accuracy, false_credit) in SET_FLOORS.items():
        assert scores[name]["plugin"].accuracy >= accuracy, name
        assert scores[name]["plugin"].false_credit <= false_credit, name


#: Per graded set: (accuracy at least, false credits at most), measured when the reader last changed.
#: The first read of each unseen set (heldout8 on) is in docs/answer_reading.md.
SET_FLOORS = {
    **{name: (0.98, 0) for name in ("dev", "heldout2", "heldout3", "heldout6")},
    # reader 6: one false credit each in heldout1, 4, 9, 10, 13 and 19 from the 33 items re-read under the
    # recitation convention (a template the reader still reads as all the options, e.g. "【答案】：【A】：【B】：…")
    **{name: (0.98, 1) for name in ("heldout1", "heldout4")},
    # reader 8: 20 items re-read under the later convention "a declared letter restated with another option's
    # text is no answer" (e.g. "正确答案：C<eoa><B's text>"); the reader keeps the letter on four of them (the rest
    # of the reply goes on to the letter's own text, a re-posed question): heldout5 (two), 7, 13, 17 (one each)
    "heldout5": (0.975, 3),     # false credits: p099 and two re-read items
    # heldout7: letter loops after an answer slot, read as garbage by its third grader (so read since heldout13)
    "heldout7": (0.99, 1),
    # heldout8 (first read 0.957): "A.A B.B C.C D.D" before copies of the prompt is no answer since
    # heldout13 (four sets' graders read the mapping so)
    "heldout8": (0.98, 0),
    "heldout9": (0.97, 1),      # first read 0.957; graders agreed on 299 of 300
    # heldout10 (first read 0.963): a refusal quoting an option's text, "答案：A、<text>;B、<text>…" a copy
    "heldout10": (0.975, 2),
    # heldout11 (first read 0.947): left an answer under a generic re-posed question, a loop of answer
    # slots (C, A, C, D, …), one answer after each of many copies of the question, "…的异议是<C's text>"
    "heldout11": (0.96, 4),
    # heldout12 (first read 0.970): left answers under a re-posed <|Human|> question and under options
    # the model rewrote itself
    "heldout12": (0.98, 1),
    # heldout13 (first read 0.953): left a copied list declared from its first option, and the loop
    # "【答案】：【A】：【B】：【C】：【D】…" its graders read as all four letters (heldout7's as none)
    "heldout13": (0.98, 2),
    # heldout14 (first read 0.920): left a leading "A:" before English or garbage text, copies of the
    # question followed by a discussion or by one option's text looping
    "heldout14": (0.95, 3),
    # heldout15 (first read with this round's final reader 0.953): left answers only by meaning
    "heldout15": (0.955, 1),
    # heldout16 (first read 0.967): left a copy of the stem and one option in the prompt's format (none for
    # its third grader, an answer for both graders of the same form with D), answers only by meaning
    "heldout16": (0.98, 1),
    # heldout17 (first read 0.970; graders agreed on all 300): left answers only by meaning and an answer
    # under a question the model rewrote with options of its own
    "heldout17": (0.98, 2),
    # heldout18 (first read 0.957 with the reader after the sixth breaker round): left answers only by
    # meaning, headers over all four options read as all four by its graders, an "A. <text> 正确答案：B"
    # mapping its graders read as the letters declared
    "heldout18": (0.965, 1),
    # heldout19 (first read 0.970 with the session-start reader): left a template with an answer slot
    # for every option, only the first closed by an end marker (its graders: all four)
    "heldout19": (0.995, 1),
    # heldout20 (first read 0.960 with the heldout19 round's reader; graders agreed on all 300): left answers
    # only by meaning, an answer slot looping C, A, D, C, D … (its graders: C), an answer to a question the
    # model posed itself with options of its own
    "heldout20": (0.985, 1),
    # heldout21 (first read 0.960 with the heldout20 rules): left answers only by meaning, per-option
    # affirmations its graders read as the options affirmed, templates giving every option a slot
    "heldout21": (0.965, 2),
}


def test_credit_differs_counts_the_reading_errors_that_change_a_score():
    score = audit.ReadingScore()
    score.add("B", "B", "B")            # right, credited both ways
    score.add("AC", "NONE", "B")        # false credit, but no score changes (AC is not B)
    score.add(None, "B", "B")           # missed the gold letter: the score changes
    score.add("B", "NONE", "B")         # false credit of the gold letter: changes
    score.add("D", "A", None)           # gold unknown: not counted
    assert (score.n, score.right, score.false_credit, score.missed, score.wrong_letters) == (5, 1, 2, 1, 1)
    assert score.credit_differs == 2


@pytest.mark.e2e
@needs_corpus
def test_gpt4_acc_single_equals_the_hand_count(corpus):
    """GPT-4 answered 989 of 1,000 questions exactly as ``[正确答案]X<eoa>``; the other 11 were read
    by hand: all give several letters or 无, so none is a single-choice answer (listed below)."""
    outputs = corpus.outputs["GPT4"]
    strict = re.compile(r"^\s*\[正确答案\]\s*([A-D])\s*<eoa>\s*$")
    by_hand_wrong = {"1-2_098", "1-2_152", "1-2_222", "1-2_223", "1-2_266", "1-2_474", "1-2_494",
                     "3-6_105", "3-6_155", "3-6_285", "3-6_344"}
    assert {i for i in corpus.questions if not strict.match(outputs[i])} == by_hand_wrong
    for subset, hand in (("1-2", 276), ("3-6", 243)):
        ids = [i for i in corpus.questions if i.startswith(subset)]
        counted = sum(strict.match(outputs[i]).group(1) == corpus.questions[i]["answer"]
                      for i in ids if i not in by_hand_wrong)
        assert counted == hand
        read = sum(read_choices(outputs[i], corpus.questions[i]["options"], corpus.questions[i]["question"]).letters
                   == corpus.questions[i]["answer"] for i in ids)
        assert read == hand                                             # 0.552 and 0.486, as published
        assert abs(read / len(ids) - corpus.published[("GPT4", subset)]) < 0.01


@pytest.mark.e2e
@needs_corpus
def test_model_table_explains_every_large_gap(corpus):
    small = audit.Corpus(corpus.questions, corpus.summaries,
                         {m: corpus.outputs[m] for m in ("GPT4", "llama-7b")}, corpus.published)
    rows = {row["model"]: row for row in audit.model_rows(small)}
    assert rows["GPT4"]["1-2_plugin"] == pytest.approx(0.552)
    assert rows["GPT4"]["1-2_rule"] == pytest.approx(0.552)
    assert rows["llama-7b"]["1-2_plugin"] < 0.05                        # a base model gets no false credit
    report = audit.render({}, list(rows.values()), 1.0)
    for row in rows.values():
        for subset in audit.CHOICE_SETS:
            if abs(row[f"{subset}_plugin"] - row[f"{subset}_published"]) > audit.EXPLAIN_ABOVE:
                assert f"{row['model']} {subset}:" in report


def test_audit_command_without_corpus_says_so(tmp_path, capsys):
    assert audit.main(["--corpus", str(tmp_path / "nowhere")]) == 2
    assert "real-output corpus not found" in capsys.readouterr().err


@needs_corpus
@pytest.mark.e2e
def test_one_model_through_the_real_cli(corpus, tmp_path, hf_home):
    """GPT-4's recorded answers served by a scripted endpoint, scored by the real cpsd-eval: the
    figures equal the function-level audit."""
    outputs = corpus.outputs["GPT4"]
    questions = sorted(corpus.questions.items(), key=lambda kv: -len(kv[1]["question"]))
    summaries = sorted(corpus.summaries.items())

    def answer_for(prompt: str) -> str:
        for item, doc in questions:      # two questions share a stem: their options tell them apart
            if doc["question"] in prompt and all(f"{k}. {v}" in prompt for k, v in doc["options"].items()):
                return item
        for item, doc in summaries:
            if doc["input"] in prompt:
                return item
        raise AssertionError("prompt of no corpus item")

    server = CaptureServer(lambda payload, prompt: Reply(outputs[answer_for(prompt)]))
    try:
        run = run_cpsd_eval("cpsd_police_exam,cpsd_case_summary", server.url, tmp_path / "out", hf_home,
                            extra=("--metadata", json.dumps({"data_dir": str(CORPUS / "data"),
                                                             "bertscore_model": "none"})))
    finally:
        server.stop()
    results = run["results"]["results"]
    exam = results["cpsd_police_exam"]
    expected = sum(read_choices(outputs[i], d["options"], d["question"]).letters == d["answer"]
                   for i, d in corpus.questions.items()) / len(corpus.questions)
    assert exam["acc_single,none"] == pytest.approx(expected) == pytest.approx((276 + 243) / 1000)
    served = {doc["id"]: answer_for(doc["input"]) for doc in corpus.summaries.values()}
    from cpsd_tasks.generation import text_scores
    rouge = [text_scores(audit._summary(outputs[served[i]]), d["reference"])["rougeL_word"]
             for i, d in corpus.summaries.items()]
    assert results["cpsd_case_summary"]["rougeL_word,none"] == pytest.approx(sum(rouge) / len(rouge))
    logged = {s["doc"]["id"]: s["reading"]["answer"] for s in run["samples"]["cpsd_police_exam"]}
    assert logged["1-2_000"] == read_choices(outputs["1-2_000"], corpus.questions["1-2_000"]["options"]).letters


def test_rouge_l_word_with_the_shared_word_cache_equals_the_metric():
    """The audit's rougeL_word keeps every text's jieba words for the process (the 500 references
    recur for all 34 models; 31 % of the hypotheses repeat another); the cache changes no value."""
    from cpsd_tasks.generation import text_scores

    pairs = [("甲盗窃了乙的手机。", "甲盗窃了乙的手机。"),             # identical: 1.0 by hand
             ("今天天气很好", "被告人构成诈骗罪"),                     # no shared word: 0.0 by hand
             ("被告人甲盗窃手机一部，价值3000元。", "甲盗窃乙的手机一部，价值人民币3000元。")]
    cache: dict = {}
    for hypothesis, reference in pairs * 2:                               # the second pass reads the cache
        expected = text_scores(hypothesis, reference)["rougeL_word"]
        assert audit.rouge_l_word(hypothesis, reference, cache) == pytest.approx(expected, abs=1e-12)
        assert audit.rouge_l_word(hypothesis, reference) == pytest.approx(expected, abs=1e-12)
    assert audit.rouge_l_word(*pairs[0], cache) == pytest.approx(1.0)
    assert audit.rouge_l_word(*pairs[1], cache) == 0.0
    # an output of punctuation only is no summary (the model's written turn is empty): 0.0
    assert audit._summary("。") == "" and audit.rouge_l_word(audit._summary("。"), "被告人构成诈骗罪。", cache) == 0.0
    # ("今天天气很好。" against "被告人构成诈骗罪。" would be 0.25: the full stop is a shared word of four)
    assert audit.rouge_l_word("今天天气很好。", "被告人构成诈骗罪。") == pytest.approx(0.25, abs=1e-7)
    assert len(cache) == 5                                               # each distinct text once
