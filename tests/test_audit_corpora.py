"""The corpus audit (issue 25): the peers' rules, graded-set counting, and the real audit on the
disc, lexeval and lawbench_tasks corpora beside the lawbench one.

The peers' rules are pinned on small hand-made outputs whose readings were worked out by hand from
the rules' definitions (:mod:`cpsd_tasks.audit.peers`); the graded counting on a hand-made 6-item set.
The e2e tests run the real ``cpsd-audit-reading`` over ``../shared/realout`` (each skips, with its
reason, when its corpus folder is absent) and pin only the peers' figures and the counts: the plugin's
graded figures are held by :data:`PLUGIN_FLOORS` (floors: a reader change that reads better passes).
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from cpsd_tasks import audit
from cpsd_tasks.audit import corpora, graded, ner, peers

from conftest import ROOT

REALOUT = (ROOT.parent / "shared" / "realout").resolve()

#: Floors of the plugin's graded figures, ``{(corpus, set or "all", split): (accuracy at least,
#: false credits at most)}``: filled in when the reader for these corpora is settled (issue 25's
#: targets: single ≥ 0.97, multi ≥ 0.95, false credit ≤ 0.5 %). Empty until then.
PLUGIN_FLOORS: dict[tuple[str, str, str], tuple[float, int]] = {
    # reader 10, on the whole graded set of each corpus: (accuracy at least, false credits at most)
    ("disc", "all", "multi"): (0.950, 13), ("disc", "all", "single"): (0.962, 5),
    ("lexeval", "all", "multi"): (0.970, 15), ("lexeval", "all", "single"): (0.974, 16),
    ("lawbench_tasks", "all", "single"): (0.935, 66), ("lawbench_tasks", "all", "label"): (0.974, 30),
    # the sets a frozen reader read first (audit.graded.FIRST_READS), as reader 7 read them (reader 8 reads them as well or better)
    ("disc", "disc4", "multi"): (0.951, 1), ("disc", "disc5", "multi"): (0.946, 1),
    ("disc", "disc6", "multi"): (0.953, 1), ("disc", "disc6", "single"): (0.953, 0),
    ("disc", "disc7", "multi"): (0.950, 0), ("disc", "disc7", "single"): (0.980, 1),
    ("lexeval", "lexeval4", "multi"): (0.972, 0), ("lexeval", "lexeval4", "single"): (0.991, 1),
    ("lexeval", "lexeval5", "multi"): (0.983, 1), ("lexeval", "lexeval5", "single"): (0.983, 2),
    ("lexeval", "lexeval6", "multi"): (0.946, 0), ("lexeval", "lexeval6", "single"): (0.953, 2),
    ("lawbench_tasks", "argument3", "single"): (0.930, 5), ("lawbench_tasks", "labels3", "label"): (0.956, 3),
    ("lawbench_tasks", "argument4", "single"): (0.903, 14), ("lawbench_tasks", "labels4", "label"): (0.963, 4),
    ("disc", "disc8", "multi"): (0.970, 1), ("disc", "disc8", "single"): (0.970, 0),
    ("lexeval", "lexeval7", "multi"): (0.980, 1), ("lexeval", "lexeval7", "single"): (0.995, 1),
    ("lawbench_tasks", "argument5", "single"): (0.933, 8), ("lawbench_tasks", "labels5", "label"): (0.973, 5),
    ("disc", "disc9", "multi"): (0.930, 1), ("disc", "disc9", "single"): (0.930, 1),
    ("lexeval", "lexeval8", "multi"): (0.970, 4), ("lexeval", "lexeval8", "single"): (0.960, 4),
    ("lawbench_tasks", "argument6", "single"): (0.933, 8), ("lawbench_tasks", "labels6", "label"): (0.960, 6),
    ("disc", "disc10", "multi"): (0.950, 2), ("disc", "disc10", "single"): (0.940, 2),
    ("lexeval", "lexeval9", "multi"): (0.945, 4), ("lexeval", "lexeval9", "single"): (0.990, 2),
    ("disc", "disc11", "multi"): (0.965, 0), ("disc", "disc11", "single"): (0.975, 0),
    ("lexeval", "lexeval10", "multi"): (0.970, 1), ("lexeval", "lexeval10", "single"): (0.985, 0),
    ("lawbench_tasks", "argument7", "single"): (0.936, 5), ("lawbench_tasks", "labels7", "label"): (0.943, 8),
    # read first by reader 10
    ("lawbench_tasks", "argument8", "single"): (0.926, 12), ("lawbench_tasks", "labels8", "label"): (0.973, 3),
}


def needs(corpus: str):
    """Skip unless ``../shared/realout/<corpus>`` is present."""
    return pytest.mark.skipif(not (REALOUT / corpus).is_dir(),
                              reason=f"real-output corpus {REALOUT / corpus} not present (it lives beside the checkout)")


# --------------------------------------------------------------------------- peers, by hand

@pytest.mark.parametrize("output, expected", [
    # the 4-shot examples' form: no pattern of the first list matches, the "X." labels are joined
    ("A.丁某构成盗窃罪\nD.崔某构成非法持有枪支罪", "AD"),
    ("A. 医疗费\nC. 残疾生活辅助具费\nD. 残疾赔偿金", "ACD"),
    ("BC", "BC"),                                          # under 10 characters: taken whole
    ("答案是E", None),                                       # taken whole; E is no A–D letter
    # 答案是 + letters: the first pattern's group only; the later "A" is not read
    ("根据法律规定，答案是B、D。其他选项A错误", "BD"),
    ("ABCD都是正确的，因为这样", "ABCD"),                      # first list fails, no "X.": the second list
    ("我认为这道题没有正确的选项可以选择", None),                  # 选择 with no letter after it: nothing
    ("", None),
    (None, None),
])
def test_disc_rule_reads_as_its_cascade(output, expected):
    assert peers.disc_rule(output) == expected


@pytest.mark.parametrize("output, expected", [
    ("B, C", "BC"),                                        # separators deleted, runs joined
    ("BA", "BA"),                                          # order kept: LexEval's accuracy wants "AB" exactly
    ("ABCD\n\n解析：选项E错误", "ABCD"),                       # cut at 解析
    ("AAB", None),                                         # one run with a repeated letter: dropped
    ("ABCDEF", "ABCDE"),                                   # runs of at most five; F is no letter
    ("C和D", "CD"),                                        # 和 deleted
    ("答案是Apple", "A"),                                    # the capital of an English word counts
    ("D\nA: 犯罪的预备阶段", "DA"),                            # an echoed option's label counts, after D
    (None, None),
])
def test_lexeval_rule_reads_as_find_valid_substrings(output, expected):
    assert peers.lexeval_rule(output) == expected


def test_lexeval_accuracy_wants_the_exact_string_and_the_set_variant_does_not():
    item = {"gold": "AB", "answer": "AB"}
    assert not corpora.LEXEVAL_EXACT.credited("BA", item) and corpora.LEXEVAL_SET.credited("BA", item)
    assert corpora.LEXEVAL_EXACT.letters("BA") == corpora.LEXEVAL_SET.letters("BA") == "AB"
    odd = {"gold": "BD", "answer": "B D"}                  # a gold string that is not bare letters
    assert not corpora.LEXEVAL_EXACT.credited("BD", odd) and corpora.LEXEVAL_SET.credited("BD", odd)


def test_gold_lines_are_the_gold_options_lines_and_nothing_else():
    item = {"gold": "AD", "options": {"A": "丁某构成盗窃罪", "B": "乙", "C": "丙", "D": "崔某构成非法持有枪支罪"}}
    assert corpora.is_gold_lines("A.丁某构成盗窃罪\nD.崔某构成非法持有枪支罪", item)
    assert corpora.is_gold_lines(" D、崔某构成非法持有枪支罪 \n\n(A) 丁某构成盗窃罪\n", item)    # order, styles, blanks
    assert not corpora.is_gold_lines("A.丁某构成盗窃罪", item)                                  # a proper subset
    assert not corpora.is_gold_lines("A.丁某构成盗窃罪\nD.崔某构成盗窃罪", item)                  # D's text altered
    assert not corpora.is_gold_lines("答案：A.丁某构成盗窃罪\nD.崔某构成非法持有枪支罪", item)        # a head: not only lines
    assert not corpora.is_gold_lines("A.丁某构成盗窃罪\nA.丁某构成盗窃罪", item)
    assert not corpora.is_gold_lines(None, item)


def test_lawbench_rules_are_substring_matches():
    labels = ["婚姻家庭", "劳动纠纷", "交通事故"]
    assert peers.lawbench_label("[类别]婚姻家庭<eoa>", labels) == "婚姻家庭"
    assert peers.lawbench_label("是劳动纠纷还是婚姻家庭？", labels) == "婚姻家庭|劳动纠纷"   # label order
    assert peers.lawbench_label("抚养？", labels) is None
    assert peers.lawbench_letters("[正确答案]E<eoa>") == "E"
    assert peers.lawbench_letters("Because of A and C") == "ABC"     # the B of "Because" counts
    assert peers.lawbench_letters("E", "ABCD") is None


NER_TYPES = ("犯罪嫌疑人", "受害人", "被盗货币", "物品价值", "盗窃获利", "被盗物品", "作案工具", "时间", "地点", "组织机构")


def test_lawbench_2_6_reads_one_value_per_type_after_its_name_and_a_colon():
    output = "犯罪嫌疑人：黄某某 被告人\n受害人:无\n作案时间：13时许\n受害人人：戚某某\n受害人：李某\n地点：北"
    # 犯罪嫌疑人 up to the space; 受害人:无 is no entity, 受害人人： gives nothing, the last 受害人 wins;
    # 作案时间： gives 时间; 地点：北 has one character after the colon: skipped
    assert peers.lawbench_entities(output, NER_TYPES) == {"犯罪嫌疑人": "黄某某", "受害人": "李某", "时间": "13时许"}
    # a one-line answer: the value runs to the end of the line
    assert peers.lawbench_entities("犯罪嫌疑人：黄某某；受害人：戚某某", NER_TYPES) == {
        "犯罪嫌疑人": "黄某某；受害人：戚某某", "受害人": "戚某某"}
    # the value after the colon may start on the next line; 未提及 is no entity
    assert peers.lawbench_entities("时间：\n6月底\n地点：未提及\n", NER_TYPES) == {"时间": "6月底"}
    assert peers.lawbench_entities(None, NER_TYPES) == {}
    assert peers.lawbench_value_at("时间：6月底", 2) == "6月底" and peers.lawbench_value_at("时间：无。", 2) == "无。"
    assert peers.lawbench_reference("受害人:严某某、肖某某;被盗物品:查获手机") == {"受害人": "严某某、肖某某",
                                                                              "被盗物品": "查获手机"}
    assert peers.lawbench_reference(" ") == {}


def test_lawbench_2_6_scores_character_f1_per_type():
    assert peers.char_f1("严某某、肖某某", "严某某肖某某") == 1.0             # punctuation does not count
    # 黄某某 in 被告人黄某某: 3 characters shared, P 3/6, R 1: F1 2/3
    assert peers.char_f1("黄某某", "被告人黄某某") == pytest.approx(2 / 3)
    assert peers.char_f1("ABC", "abc") == 1.0 and peers.char_f1("", "。") == 1.0 and peers.char_f1("", "x") == 0.0
    found = {"犯罪嫌疑人": "被告人黄某某", "时间": "13时许", "地点": "北京"}
    reference = {"犯罪嫌疑人": "黄某某", "时间": "13时许", "受害人": "李某"}
    # overlap 2/3 + 1 (地点 is not in the reference); P = R = (5/3) / 3 = 5/9
    assert peers.lawbench_ner_score(found, reference) == pytest.approx(5 / 9)
    assert peers.lawbench_ner_score({}, reference) == 0.0
    assert peers.lawbench_ner_score({}, {}) == 1.0 and peers.lawbench_ner_score(found, {}) == 0.0


def test_2_6_kinds_where_the_readings_differ():
    from cpsd_tasks.reading.ie_parse import parse_output

    def kinds(output):
        parsed = parse_output(output, ner.inventory(NER_TYPES))
        return dict(ner.reading_kinds(output, parsed.items, parsed.valid,
                                      peers.lawbench_entities(output, NER_TYPES), NER_TYPES))

    assert kinds("犯罪嫌疑人：黄某某\n受害人：戚某某") == {}
    # the one-line answer: LawBench's 犯罪嫌疑人 runs on; its 受害人 is the plugin's
    assert kinds("犯罪嫌疑人：黄某某；受害人：戚某某") == {ner.RUN_ON: 1}
    assert kinds("被告人：黄某某\n作案工具：未提及") == {ner.PLUGIN_OTHER_NAME: 1, ner.PLUGIN_NOT_MENTIONED: 1}
    assert kinds("实体信息:犯罪嫌疑人:黄某某 受害人:戚某某") == {ner.PEER_AFTER_LABEL: 1, ner.PEER_SPACED: 1}
    assert kinds("时间:\n6月底\n地点:花木田") == {ner.PEER_NEXT_LINE: 1}
    assert kinds("地点:花木田\n地点:花木田") == {ner.REPEATED: 1}
    assert kinds("地点:花木田<eoa>\n犯罪嫌疑人:黄某某") == {ner.PEER_PAST_TURN: 1}


def test_2_6_gold_splits_at_the_mention_separator():
    assert ner.gold_entities([["受害人", "严某某、肖某某"], ["物品价值", "人民币1，794元"]]) == (
        ("受害人", "严某某"), ("受害人", "肖某某"), ("物品价值", "人民币1,794元"))


# --------------------------------------------------------------------------- graded counting, by hand

def _hand_corpus() -> corpora.RealCorpus:
    def item(gold: str, multi: bool) -> dict:
        return {"kind": "choice", "group": "multi" if multi else "single", "multi": multi, "gold": gold,
                "answer": gold, "options": dict.fromkeys("ABCD", "…"), "question": "…", "task": "t"}
    items = {"i1": item("B", False), "i2": item("A", False), "i3": item("AC", True),
             "i4": item("ABD", True), "i5": item("CD", True), "i6": item("D", False)}
    return corpora.RealCorpus("disc", Path("."), items, {}, "")


def test_graded_scoring_counts_six_items_by_hand():
    # readings fixed by hand: [plugin letters, plugin credited, why, gold lines, DISC letters]
    read = {"M": {"i1": ["B", True, "x", False, "B"], "i2": [None, False, "x", False, "A"],
                  "i3": [None, False, "x", False, "AC"], "i4": ["AB", False, "x", False, "ABCD"],
                  "i5": ["CD", True, "x", False, None], "i6": ["D", True, "x", False, "C"]}}
    rows = [{"set": "s1", "model": "M", "id": "i1", "answer": "B"},       # both right
            {"set": "s1", "model": "M", "id": "i2", "answer": "NONE"},    # DISC: false credit of the gold
            {"set": "s1", "model": "M", "id": "i3", "answer": "AC"},      # plugin: missed the gold
            {"set": "s2", "model": "M", "id": "i4", "answer": "AB"},      # DISC: wrong letters, no score change
            {"set": "s2", "model": "M", "id": "i5", "answer": "NONE"},    # plugin: false credit of the gold
            {"set": "s2", "model": "M", "id": "i6", "answer": "C"},       # plugin: wrong, credited the gold
            {"set": "s2", "model": "X", "id": "i6", "answer": "C"}]       # a model not in the corpus
    scores, problems = graded.score_graded_items(_hand_corpus(), rows, read)
    assert problems == ["s2 X i6: not in the corpus"]

    def counts(key, reader):
        s = scores[key][reader]
        return s.n, s.right, s.false_credit, s.missed, s.wrong_letters, s.credit_differs

    assert counts(("all", "single"), "plugin") == (3, 2, 0, 0, 1, 1)      # i1 i2 right; i6 wrong, changed
    assert counts(("all", "single"), "DISC") == (3, 2, 1, 0, 0, 1)        # i1 i6 right; i2 false credit
    assert counts(("all", "multi"), "plugin") == (3, 1, 1, 1, 0, 2)       # i4 right; i5 false, i3 missed
    assert counts(("all", "multi"), "DISC") == (3, 2, 0, 0, 1, 0)         # i3 i5 right; i4 wrong
    assert counts(("s1", "multi"), "plugin") == (1, 0, 0, 1, 0, 1)
    assert counts(("s2", "single"), "DISC") == (1, 1, 0, 0, 0, 0)
    assert set(scores) == {("s1", "single"), ("s1", "multi"), ("s2", "single"), ("s2", "multi"),
                           ("all", "single"), ("all", "multi")}


def _tiny_disc(root: Path) -> None:
    """A 4-item disc-like corpus: one model, two 多选 and two 单选 items."""
    docs = {"mcq_mult_x": [("m1", "AD", "A.丁某构成盗窃罪\nD.崔某构成非法持有枪支罪"), ("m2", "BC", "答案是B")],
            "mcq_sing_x": [("s1", "C", "我认为这道题没有正确的选项可以选择"), ("s2", "A", "A")]}
    outputs = []
    for task, rows in docs.items():
        (root / "data" / task).mkdir(parents=True)
        with (root / "data" / task / "test.jsonl").open("w", encoding="utf-8") as handle:
            for item_id, gold, output in rows:
                options = {"A": "丁某构成盗窃罪", "B": "乙", "C": "丙", "D": "崔某构成非法持有枪支罪"}
                handle.write(json.dumps({"id": item_id, "task": task, "question": "下列说法正确的是？",
                                         "options": options, "answer": gold, "gold_letters": list(gold),
                                         "multi": len(gold) > 1}, ensure_ascii=False) + "\n")
                outputs.append({"id": item_id, "output": output})
    (root / "predictions").mkdir()
    with gzip.open(root / "predictions" / "M.jsonl.gz", "wt", encoding="utf-8") as handle:
        handle.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in outputs)


def test_audit_of_a_tiny_corpus_skips_absent_ones_and_caches(tmp_path, capsys):
    _tiny_disc(tmp_path / "realout" / "disc")
    argv = ["--realout", str(tmp_path / "realout"), "--corpora", "disc", "lexeval", "--cache", str(tmp_path / "c")]
    assert audit.main(argv) == 0
    first = capsys.readouterr()
    assert "lexeval skipped: corpus folder" in first.err and len(first.err.strip().splitlines()) == 1
    # DISC's rule by hand: m1 AD right, m2 B wrong; s1 nothing, s2 A right
    assert re.search(r"\| M \| 2 \| 多选 \| \d\.\d{3} \| 0\.500 \|$", first.out, re.M)
    assert re.search(r"\| M \| 2 \| 单选 \| \d\.\d{3} \| 0\.500 \|$", first.out, re.M)
    assert "0 of 1 models' readings from the cache" in first.out
    assert audit.main(argv) == 0
    second = capsys.readouterr().out
    assert "1 of 1 models' readings from the cache" in second
    strip = lambda text: re.sub(r"Audit of .*", "", text)                       # noqa: E731 (timings differ)
    assert strip(second) == strip(first.out)


def _tiny_2_6(root: Path) -> None:
    """A 2-doc lawbench_tasks-like corpus of 2-6 only: one model, LawBench's published figure 0.7857."""
    docs = [("2-6_a", [["犯罪嫌疑人", "黄某某"], ["受害人", "戚某某、李某"]], "犯罪嫌疑人：黄某某；受害人：戚某某、李某"),
            ("2-6_b", [["被盗物品", "电动自行车一辆"]], "被盗物品：电动自行车1辆")]
    (root / "data" / "2-6").mkdir(parents=True)
    with (root / "data" / "2-6" / "test.jsonl").open("w", encoding="utf-8") as handle:
        for item_id, gold, _ in docs:
            answer = ";".join(f"{name}:{value}" for name, value in gold)
            handle.write(json.dumps({"id": item_id, "task": "2-6", "question": "句子:…", "labels": list(NER_TYPES),
                                     "answer": answer, "gold": gold}, ensure_ascii=False) + "\n")
    (root / "predictions").mkdir()
    with gzip.open(root / "predictions" / "M.jsonl.gz", "wt", encoding="utf-8") as handle:
        handle.writelines(json.dumps({"id": i, "output": out}, ensure_ascii=False) + "\n" for i, _, out in docs)
    (root / "lawbench_published.csv").write_text("model,task,lawbench_score,lawbench_abstention_rate\n"
                                                 "M,2-6,0.7857,0.0000\n", encoding="utf-8")


def test_2_6_audit_of_a_tiny_corpus_by_hand(tmp_path, capsys):
    _tiny_2_6(tmp_path / "realout" / "lawbench_tasks")
    argv = ["--realout", str(tmp_path / "realout"), "--corpora", "lawbench_tasks", "--no-cache"]
    assert audit.main(argv) == 0
    out = capsys.readouterr().out
    # plugin: doc a reads 黄某某, 戚某某, 李某 (3 exact of 3 gold); doc b 电动自行车1辆 is 1 edit from the gold's 7
    # characters (similarity 6/7 ≥ 0.8: fuzzy). Pooled: exact 3/4, fuzzy 4/4 of 4 predicted and 4 gold:
    # F1 exact 0.75, fuzzy 1, f1_micro 0.875.
    # LawBench: doc a's 犯罪嫌疑人 value runs to the end of the line (黄某某受害人戚某某李某, 11 characters):
    # char F1 2·(3/11)/(1 + 3/11) = 3/7; 受害人 1; doc score (3/7 + 1)/2 = 5/7. Doc b: 6 of 7 characters
    # shared: 6/7. Mean (5/7 + 6/7)/2 = 11/14 = 0.786
    assert "| M | 2 | 2-6 NER | 0.875 | 0.786 | 0.786 |" in out
    # the plugin's reading under LawBench's measure: doc a 1, doc b 6/7: 13/14; reading 13/14 − 11/14 = +0.143,
    # measure 0.875 − 13/14 = −0.054; one type read differently (the run-on 犯罪嫌疑人)
    assert ("- M 2-6 NER: plugin 0.875 (exact 0.750, fuzzy 1.000; 2 of 2 docs answered), LawBench 0.786, published "
            f"0.786 — reading +0.143 (types read differently: 1 {ner.RUN_ON}); measure -0.054 (") in out
    assert "gives the published figure, to 4 decimals, for 1 of 1 models" in out
    assert "2-6 not read" not in out


def test_audit_without_any_corpus_says_so(tmp_path, capsys):
    assert audit.main(["--realout", str(tmp_path), "--cache", str(tmp_path / "c")]) == 2
    err = capsys.readouterr().err
    assert "disc skipped" in err and "no corpus found" in err


# --------------------------------------------------------------------------- the real audit

@pytest.fixture(scope="module")
def audit_run(tmp_path_factory):
    """The whole real audit, once (its cache in a temporary folder): ``(report, cache folder)``."""
    if not REALOUT.is_dir():
        pytest.skip(f"real-output corpora {REALOUT} not present")
    cache = tmp_path_factory.mktemp("audit_cache")
    out = tmp_path_factory.mktemp("audit_out")
    assert audit.main(["--realout", str(REALOUT), "--cache", str(cache), "--out", str(out)]) == 0
    return (out / "audit.md").read_text(encoding="utf-8"), cache


def _scores(name: str, cache: Path):
    corpus = corpora.load_real_corpus(name, REALOUT / name)
    read, hits = corpora.readings(corpus, cache)
    assert hits == len(read)                                  # the audit's run left every model in the cache
    scores, problems = graded.score_graded_items(corpus, audit.load_graded(ROOT / graded.GRADED_FILES[name]), read)
    assert problems == []
    return corpus, read, scores


def _check_floors(name: str, scores) -> None:
    for (corpus, set_name, split), (accuracy, false_credit) in PLUGIN_FLOORS.items():
        if corpus == name:
            assert scores[(set_name, split)]["plugin"].accuracy >= accuracy, (set_name, split)
            assert scores[(set_name, split)]["plugin"].false_credit <= false_credit, (set_name, split)


def _counts(score) -> tuple[int, int, int, int, int, int]:
    return score.n, score.right, score.false_credit, score.missed, score.wrong_letters, score.credit_differs


@pytest.mark.e2e
@needs("disc")
def test_disc_audit(audit_run):
    report, cache = audit_run
    corpus, read, scores = _scores("disc", cache)
    assert "## disc: plugin vs peer, 6 models" in report and "### disc: reading against the graded set" in report
    assert scores[("all", "multi")]["plugin"].n == 2075 and scores[("all", "single")]["plugin"].n == 1525
    assert "| all | multi | 2075 | DISC | 0.7311 | 405 | 78 | 75 | 97 (4.7%) |" in report
    assert _counts(scores[("all", "single")]["DISC"]) == (1525, 1399, 38, 72, 16, 28)
    # DISC's rule as re-expressed gives, model by model and task by task, the item counts of DISC's own
    # code re-run on these files (disc_peer_recomputed.csv; its published figures differ in 16 of 60)
    import csv

    with (REALOUT / "disc" / "disc_peer_recomputed.csv").open(encoding="utf-8") as handle:
        recomputed = {(r["model"], r["task"]): round(float(r["recomputed_pct"]) * int(r["n_items"]) / 100)
                      for r in csv.DictReader(handle)}
    counted: dict[tuple[str, str], int] = {}
    for model, readings_of in read.items():
        for item_id, reading in readings_of.items():
            key = (model, corpus.items[item_id]["task"])
            counted[key] = counted.get(key, 0) + corpora.DISC.credited(reading[corpora.PEERS_AT], corpus.items[item_id])
    assert len(counted) == 60 and counted == recomputed
    rows = {(row["model"], row["group"]): row for row in corpora.model_table(corpus, read)}
    assert len(rows) == 12
    # every plugin figure more than 0.05 from DISC's rule or the published one is explained
    for row in rows.values():
        if max(abs(row["plugin"] - row["DISC"]), abs(row["plugin"] - row["published"])) > audit.EXPLAIN_ABOVE:
            assert f"- {row['model']} {'多选' if row['group'] == 'multi' else '单选'}: plugin" in report
    _check_floors("disc", scores)


@pytest.mark.e2e
@needs("lexeval")
def test_lexeval_audit(audit_run):
    report, cache = audit_run
    corpus, read, scores = _scores("lexeval", cache)
    assert "## lexeval: plugin vs peer, 26 models" in report
    assert scores[("all", "multi")]["plugin"].n == 1750 and scores[("all", "single")]["plugin"].n == 1550
    assert _counts(scores[("all", "multi")]["LexEval exact"]) == (1750, 1581, 118, 12, 39, 19)
    assert _counts(scores[("all", "single")]["LexEval exact"]) == (1550, 1370, 150, 10, 20, 39)
    # LexEval's accuracy rule as re-expressed equals the corpus's own run of LexEval's code, model by model
    import csv

    computed: dict[str, float] = {}
    with (REALOUT / "lexeval" / "lexeval_peer_computed.csv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            computed[row["model"]] = computed.get(row["model"], 0) + float(row["peer_accuracy"]) * int(row["n_items"])
    for model, readings_of in read.items():
        right = sum(corpora.LEXEVAL_EXACT.credited(r[corpora.PEERS_AT], corpus.items[i]) for i, r in readings_of.items())
        assert right == round(computed[model]), model
    _check_floors("lexeval", scores)


@pytest.mark.e2e
@needs("lawbench_tasks")
def test_lawbench_tasks_audit(audit_run):
    report, cache = audit_run
    corpus, read, scores = _scores("lawbench_tasks", cache)
    assert "## lawbench_tasks: plugin vs peer, 34 models" in report and "2-6 not read" not in report
    assert scores[("all", "single")]["plugin"].n == scores[("all", "label")]["plugin"].n == 2400
    # LawBench's rule on argument1, counted here from the raw outputs: right when the set of A–E
    # letters occurring equals the graded letters
    outputs: dict[str, dict[str, str]] = {}
    right = 0
    for row in audit.load_graded(ROOT / graded.GRADED_FILES["lawbench_tasks"]):
        if row["set"] != "argument1":
            continue
        if row["model"] not in outputs:
            with gzip.open(REALOUT / "lawbench_tasks" / "predictions" / f"{row['model']}.jsonl.gz", "rt") as handle:
                outputs[row["model"]] = {r["id"]: r["output"] for r in map(json.loads, handle)}
        right += ("".join(sorted(set(outputs[row["model"]][row["id"]]) & set("ABCDE"))) or "NONE") == row["answer"]
    assert scores[("argument1", "single")]["LawBench"].right == right == 170
    assert _counts(scores[("all", "label")]["LawBench"]) == (2400, 1902, 378, 5, 115, 69)
    # LawBench's rules as re-expressed give LawBench's published 2-2, 2-4 and 2-8 for every model
    rows = corpora.model_table(corpus, read)
    for row in rows:
        if row["group"] != "2-5":
            assert row["LawBench"] == pytest.approx(row["published"], abs=6e-4), (row["model"], row["group"])
    # 2-6: LawBench's rule as re-expressed gives its published figure to 4 decimals for every model, and every
    # plugin figure more than 0.05 from it is explained
    ner_rows = [row for row in rows if row["group"] == "2-6"]
    assert len(ner_rows) == 34 and all(row["n"] == 500 for row in ner_rows)
    assert [row["model"] for row in ner_rows if round(row["LawBench"], 4) != row["published"]] == []
    assert "gives the published figure, to 4 decimals, for 34 of 34 models" in report
    for row in ner_rows:
        assert f"| {row['model']} | 500 | 2-6 NER | {row['plugin']:.3f} | {row['LawBench']:.3f} |" in report
        if abs(row["plugin"] - row["LawBench"]) > audit.EXPLAIN_ABOVE:
            assert f"- {row['model']} 2-6 NER: plugin {row['plugin']:.3f}" in report
    # the gold as the plugin reads a reply that copies the answer string: a verbatim copy scores 1
    from collections import Counter
    from cpsd_tasks.reading.ie_parse import parse_output

    ner_items = [item for item in corpus.items.values() if item["kind"] == "ner"]
    assert len(ner_items) == 500
    for item in ner_items:
        answer = ";".join(f"{name}:{value}" for name, value in item["gold"])
        assert Counter(parse_output(answer, ner.inventory(tuple(item["labels"]))).items) == Counter(item["entities"])
    _check_floors("lawbench_tasks", scores)


@pytest.mark.e2e
@needs("lawbench")
def test_lawbench_section_and_the_timing_line(audit_run):
    report, _ = audit_run
    assert report.startswith("# lawbench\n\n## Reading against the human-graded set")
    assert "| all | 6810 | lawbench |" in report and "## acc_single and rougeL_word, 34 models" in report
    present = sum((REALOUT / name).is_dir() for name in audit.CORPORA)
    assert re.search(rf"^Audit of {present} corpora in \d+\.\d s \(reader version \S+;", report, re.M)


def test_graded_files_are_well_formed():
    for name, expected in (("disc", 3600), ("lexeval", 3300), ("lawbench_tasks", 4800)):
        rows = audit.load_graded(ROOT / graded.GRADED_FILES[name])
        assert len(rows) == expected and len({(r["model"], r["id"]) for r in rows}) == expected
        for row in rows:
            assert {"set", "model", "id", "answer", "settled"} <= set(row) <= {"set", "model", "id", "answer",
                                                                                "settled", "multi"}
            if "multi" in row or row["id"].startswith("2-8"):
                assert row["answer"] == "NONE" or re.fullmatch(r"A?B?C?D?E?", row["answer"]) and row["answer"]
    sets = {r["set"] for r in audit.load_graded(ROOT / graded.GRADED_FILES["lawbench_tasks"])}
    assert sets == {f"{kind}{n}" for kind in ("argument", "labels") for n in range(1, 9)}


# --------------------------------------------------------------------------- the docs block (--into)

_REPORT = """# lawbench

## Reading against the human-graded set

| set | items | reader | accuracy | false credit | missed | wrong letters | score changed |
|---|---:|---|---:|---:|---:|---:|---:|
| heldout1 | 300 | plugin | 0.9867 | 0 | 4 | 0 | 0 |
| heldout19 | 300 | plugin | 0.9967 | 0 | 0 | 1 | 0 |
| all | 600 | plugin | 0.9917 | 0 | 4 | 1 | 0 |

## disc: plugin vs peer, 6 models

| model | group | items | plugin |
|---|---|---:|---:|
| all | multi | 9 | 0.5 |

Replies that are exactly the gold options' lines (…): 多选 3 of 4 (75.0%).

### disc: reading against the graded set

| set | split | items | reader | accuracy | false credit | missed | wrong | score changed |
|---|---|---:|---|---:|---:|---:|---:|---:|
| disc1 | multi | 2 | plugin | 0.5000 | 1 | 0 | 0 | 1 (50.0%) |
| disc4 | multi | 2 | plugin | 1.0000 | 0 | 0 | 0 | 0 (0.0%) |
| all | multi | 4 | plugin | 0.7500 | 1 | 0 | 0 | 1 (25.0%) |

Audit of 2 corpora in 1.0 s (reader version 9; no BERTScore)."""


def test_docs_block_keeps_the_all_rows_and_the_first_reads(tmp_path):
    from cpsd_tasks.audit.tables import BLOCK_END, docs_block, write_block

    block = docs_block(_REPORT, {"heldout19": "1", "disc4": "2"}, "doc.md")
    rows = [line.split("|")[1].strip() for line in block.splitlines() if line.startswith("| ") and "set" not in line]
    # the per-model table's "all" row is not a graded row: left out; kinds and timing lines kept
    assert rows == ["all", "all", "heldout19", "disc4"]
    assert "(heldout19: reader 1, disc4: reader 2)" in block and "多选 3 of 4 (75.0%)." in block
    assert block.splitlines()[-2] == "Audit of 2 corpora in 1.0 s (reader version 9; no BERTScore)."
    doc = tmp_path / "doc.md"
    doc.write_text("intro\n<!-- figures: begin — printed by `cpsd-audit-reading --into doc.md`; x -->\nSTALE FIGURES\n"
                   f"{BLOCK_END}\nafter\n", encoding="utf-8")
    write_block(doc, block)
    text = doc.read_text(encoding="utf-8")
    assert text.startswith("intro\n<!-- figures: begin") and text.endswith(f"{BLOCK_END}\nafter\n") and "STALE FIGURES" not in text
    doc.write_text("no block here\n", encoding="utf-8")
    with pytest.raises(ValueError, match="doc.md: no"):
        write_block(doc, block)


def test_headline_names_each_corpus_all_row():
    from cpsd_tasks.audit.tables import headline

    line = headline(_REPORT, "README.md").splitlines()[1]
    assert line.endswith("LawBench single choice 99.2% of 600 (score changed on 0); "
                         "DISC-Law-Eval several answers 75.0% of 4 (score changed on 1).")
