"""QA tasks (docs/metrics.md#question-answering): answer reading, span rules, per-type and total scores,
baseline, e2e."""

import json
import math

import pytest

from cpsd_tasks import qa
from cpsd_tasks.baseline import answer as baseline_answer
from cpsd_tasks.baseline import task_lines
from cpsd_tasks.baseline.rules_qa import case_reading as reading_rule
from cpsd_tasks.baseline.rules_qa import first_person_name, fuzzy_span, police_exam as exam_rule
from cpsd_tasks.data.loading import DEMO_DIR, read_jsonl
from cpsd_tasks.options import configure
from cpsd_tasks.qa import exact_span_match, fuzzy_span_match, judge_exam, judge_reading, process_results
from cpsd_tasks.reading import extract_choices, letters_of, name_set, read_judgement
from cpsd_tasks.reading import lexicon
from cpsd_tasks.tasks import EXAM_TF_LABELS, READING_JUDGE_LABELS

from conftest import ROOT, SHARED_DATA, needs_shared_data, run_cpsd_eval
from growth import assert_linear

OPTS = {"A": "交通肇事罪", "B": "过失致人死亡罪", "C": "故意杀人罪", "D": "交通肇事罪、过失致人死亡罪，应数罪并罚"}
LONG = "根据《刑法》的相关规定进行分析。" * 700  # ~10k characters of explanation


# --------------------------------------------------------------------------- choice letters

@pytest.mark.parametrize("output, expected", [
    ("答案：AC", "AC"),
    ("A、C", "AC"),
    ("A和C", "AC"),
    ("选项A和选项C", "AC"),
    ("A，C", "AC"),
    ("A C", "AC"),
    ("**B**", "B"),
    ("B. 过失致人死亡罪。甲的行为……", "B"),
    ("B．内容……", "B"),
    ("(B)", "B"),
    ("【C】", "C"),
    ("ＡＣ", "AC"),                                       # full-width letters (NFKC)
    ("正确答案为：A,B,C。", "ABC"),
    ("故选B。", "B"),
    ("选A、C", "AC"),
    ("所以本题选择 A 选项", "A"),
    ("答案是A选项和C选项", "AC"),
    ("答案：B（过失致人死亡罪）", "B"),
    ("答案：\n\n**BD**", "BD"),
    ("答案是A……更正：答案是B", "B"),                       # self-correction: last declaration wins
    ("答案是A。\n等等，我再想想。\n最终答案：C", "C"),
    ("A. 交通肇事罪\nB. 过失致人死亡罪\n答案：D", "D"),       # echoed options, then the answer
    ("我认为答案是A，不选C", "A"),                          # a negated declaration is skipped
    ("不应选A，应选B", "B"),
    ("A项：错误。B项：正确。C项：正确。故选BC", "BC"),
    ("使用APP和GPS定位，Let's see. 答案是C", "C"),           # acronyms and English words are no options
    ("The answer is D", "D"),
    ("分析如下……\n\nAC", "AC"),                              # last bare line
    ("过失致人死亡罪", "B"),                                  # the option's own text
    ("<think>答案是A</think>C", "C"),
    ("答案：A、E", "A"),                                      # E is not an option: ignored
    ("BAD", "ABD"),                                          # distinct valid letters read as a list
])
def test_extract_choices(output, expected):
    assert extract_choices(output, OPTS) == frozenset(expected)


@pytest.mark.parametrize("output", [
    "APP", "GPS", "Let's go", "答案：E", "答案：AE", "A项错误", "The answer is a car", "", None, "   ",
    "<think>答案是A", "抱歉，我无法回答这个问题。", "我不确定。", "ADD", LONG, "选项 " * 5000 + "是什么",
])
def test_extract_choices_nothing_readable(output):
    assert extract_choices(output, OPTS) is None


def test_extract_choices_accepts_harness_option_list_and_long_output():
    options = letters_of([{"key": "A", "text": "x"}, {"key": "B", "text": "y"}, {"key": "C", "text": "z"}])
    assert options == {"A": "x", "B": "y", "C": "z"}
    assert extract_choices(LONG + "\n故选B", options) == frozenset("B")
    assert extract_choices("答案是A" + " " * 20000 + "。", options) == frozenset("A")   # no backtracking blow-up
    assert extract_choices("D", options) is None                                       # D is not an option


# --------------------------------------------------------------------------- 判断 labels

R = (READING_JUDGE_LABELS, lexicon.READING_JUDGE_ALIASES, lexicon.READING_JUDGE_SHORT)
E = (EXAM_TF_LABELS, lexicon.EXAM_TF_ALIASES, lexicon.EXAM_TF_SHORT)


@pytest.mark.parametrize("output, expected, strict", [
    ("是", "是", True), ("否。", "否", True), ("**未知**", "未知", True), ("答案：否", "否", True),
    ("是的", "是", False),
    ("否。被告人是在家中被抓获的", "否", False),          # explanation names 是: leading clause decides
    ("根据材料无法确定", "未知", False),
    ("材料中未提及王某是否到场", "未知", False),            # 是否 names neither 是 nor 否
    ("不是", "否", False),
    ("王某并不是主犯", "否", False),
    ("被告人王某是在家中被抓获的，所以答案是否", "否", False),
    ("没有。材料显示王某未到场", "否", False),
    ("有，王某当时在场", "是", False),
    ("<think>应该是否</think>是", "是", True),
    ("抱歉，我无法回答", None, False), ("", None, False), (None, None, False), ("<think>是", None, False),
    ("王某可能是主犯，也可能不是", None, False),       # a hedge naming both: unreadable
    ("我认为这是一个难题，需要更多信息。", None, False),  # 是 inside 这是 is no answer
    ("材料中没有提及，无法确定", "未知", False),
    ("是或否都说得通，很难判断", None, False),          # the first clause names both: unreadable
])
def test_read_reading_judgement(output, expected, strict):
    assert read_judgement(output, *R) == (expected, strict)


@pytest.mark.parametrize("output, expected", [
    ("正确", "正确"), ("错误。", "错误"), ("对", "正确"), ("错", "错误"), ("√", "正确"), ("×", "错误"),
    ("是", "正确"), ("否", "错误"), ("对。因为现行犯可以先行拘留", "正确"), ("答案：×", "错误"),
    ("对于本题，说法错误", "错误"),                           # 对 inside a word is not an answer
    ("该说法错误，正确的做法是立即送看守所羁押", "错误"),
    ("不正确", "错误"), ("这种说法是对的", "正确"), ("说法有误", "错误"), ("True", "正确"),
    ("这道题考查先行拘留的条件", None), ("我不知道", None), (LONG, None),
])
def test_read_exam_judgement(output, expected):
    assert read_judgement(output, *E)[0] == expected


# --------------------------------------------------------------------------- spans

@pytest.mark.parametrize("output, gold, expected", [
    ("张三、李四", "李四，张三", True),
    ("李四 和 张三", "张三、李四", True),
    ("李四;张三", "张三及李四", True),
    ("**胡某甲**。", "胡某甲", True),
    ("胡某甲", "胡某甲", True),
    ("郭某、汤某丙", "被告人汤某丙、郭某", True),               # role title is not part of a name
    ("张三", "张三、李四", False),
    ("张三、李四、王五", "张三、李四", False),
    ("报警人是胡某甲", "胡某甲", False),                        # a sentence is not the name
    ("胡某甲\n理由：材料第二句", "胡某甲", False),
    ("胡某", "胡某甲", False),
    ("", "胡某甲", False), (None, "胡某甲", False),
])
def test_exact_span_match(output, gold, expected):
    assert exact_span_match(output, gold) is expected


def test_name_set():
    assert name_set("张三、李四 王五;赵六和钱七") == frozenset({"张三", "李四", "王五", "赵六", "钱七"})
    assert name_set("被告人") == frozenset({"被告人"})          # a bare title stays as it is
    assert name_set(None) == frozenset()


GOLD_PLACE = "广州市白云区一出租屋内"          # 11 characters


@pytest.mark.parametrize("output, gold, expected", [
    # similarity 1 - 1/11 = 0.909 (one deletion)
    ("广州市白云区出租屋内", GOLD_PLACE, True),
    # contained in the gold (docs/metrics.md#case-reading: one contains the other)
    ("广州市", GOLD_PLACE, True),
    # contains the gold, 19 <= 2*11 characters
    ("陈某甲在广州市白云区一出租屋内被抓获", GOLD_PLACE, True),
    # 骑红色摩托车 vs 骑红色无牌摩托车: distance 2 over 8 -> similarity 0.75, not a substring
    ("骑红色摩托车", "骑红色无牌摩托车", True),
    ("２０２１年８月３日凌晨２时许", "2021年8月3日凌晨2时许", True),
    # contains the gold but 34 > 22 characters, similarity 0.32
    ("2023年3月8日，陈某甲在广州市白云区一出租屋内被抓获，刘某至今在逃", GOLD_PLACE, False),
    # 骑摩托车: distance 4 over 8 -> 0.5 < 0.6, not a substring
    ("骑摩托车", "骑红色无牌摩托车", False),
    ("深圳市南山区某酒店", GOLD_PLACE, False),
    ("广", GOLD_PLACE, False),                         # one character inside the gold is too little
    ("", GOLD_PLACE, False), (None, GOLD_PLACE, False),
])
def test_fuzzy_span_match(output, gold, expected):
    assert fuzzy_span_match(output, gold) is expected


def test_fuzzy_threshold_is_settable():
    assert fuzzy_span_match("骑红色摩托车", "骑红色无牌摩托车", tau=0.8) is False   # 0.75 < 0.8
    doc = {"task": "case_reading", "qtype": "模糊", "answer": "骑红色无牌摩托车", "id": "x", "context": "c",
           "question": "q"}
    try:
        configure("case_reading", {"tau_qa": "0.8"})
        assert process_results(doc, ["骑红色摩托车"])["acc_fuzzy"] == ("模糊", 0.0)
        configure("case_reading", {"tau_qa": 0.7})
        assert process_results(doc, ["骑红色摩托车"])["acc_fuzzy"] == ("模糊", 1.0)
        with pytest.raises(ValueError, match="tau_qa=1.5"):
            configure("case_reading", {"tau_qa": 1.5})
        assert process_results(doc, ["骑红色摩托车"])["acc_fuzzy"] == ("模糊", 1.0)  # 0.7 kept: refused
    finally:
        configure("case_reading", {})
    assert process_results(doc, ["骑红色摩托车"])["acc_fuzzy"] == ("模糊", 1.0)        # default 0.6


# --------------------------------------------------------------------------- judges and taxonomy

def test_judge_classes():
    assert judge_reading("否", "否", "判断").error_class == "correct"
    assert judge_reading("否。因为材料显示……", "否", "判断").error_class == "format"
    assert judge_reading("是", "否", "判断").error_class == "content"
    assert judge_reading("抱歉，我无法回答", "否", "判断").error_class == "refusal"
    assert judge_reading("这个问题很有意思", "否", "判断").error_class == "instruction"
    assert judge_reading("报警人是胡某甲", "胡某甲", "精确").error_class == "format"
    j = judge_reading("抱歉，我无法回答该问题", "胡某甲", "精确")
    assert (j.parsed, j.refusal, j.error_class) == (False, True, "refusal")
    assert judge_exam("AC", "AC", "多选", OPTS).error_class == "correct"
    assert judge_exam("答案：AC，因为……", "AC", "多选", OPTS).error_class == "format"
    j = judge_exam("A", "AC", "多选", OPTS)
    assert (j.correct, j.partial, j.prediction) == (False, 0.5, "A")
    assert judge_exam("ABD", "AC", "多选", OPTS).partial == 0.0
    assert judge_exam(None, "B", "单选", OPTS).error_class == "refusal"
    with pytest.raises(ValueError):
        judge_exam("A", "A", "填空", OPTS)


# --------------------------------------------------------------------------- per-type and total

def _reading(qtype, gold):
    return {"task": "case_reading", "id": "r", "context": "c", "question": "q", "qtype": qtype, "answer": gold}


def _exam(qtype, gold):
    opts = [] if qtype == "判断" else [{"key": k, "text": v} for k, v in OPTS.items()]
    return {"task": "police_exam", "id": "e", "question": "q", "options": opts, "qtype": qtype, "answer": gold}


def _aggregate(task_id, docs_outputs):
    per_doc = [process_results(doc, [out]) for doc, out in docs_outputs]
    metrics = list(qa.TYPE_METRICS[task_id]) + ["total", "invalid_rate", "refusal_rate", "score"]
    out = {}
    for metric in metrics:
        items = [d[metric] for d in per_doc]
        agg = getattr(qa, f"agg_{metric}", None)
        out[metric] = agg(items) if agg else sum(items) / len(items)
    return out


def test_reading_scores_by_hand():
    mixed = [
        (_reading("判断", "是"), "是"),                 # right
        (_reading("判断", "否"), "否，王某当时不在场"),   # right (leading clause)
        (_reading("判断", "未知"), "是"),               # wrong
        (_reading("判断", "否"), "```\n否\n```"),       # right: fences and newlines are edges
        (_reading("精确", "张三、李四"), "李四，张三"),    # right (name sets)
        (_reading("精确", "胡某甲"), "报警人是胡某甲"),   # wrong (not the bare name)
        (_reading("精确", "王某"), None),               # missing answer: wrong, invalid, refusal
        (_reading("模糊", GOLD_PLACE), "广州市白云区出租屋内"),  # right (similarity 0.909)
        (_reading("模糊", "接群众举报"), "抱歉，我无法回答"),    # refusal: wrong, invalid
    ]
    got = _aggregate("case_reading", mixed)
    assert got["acc_judge"] == pytest.approx(3 / 4)
    assert got["acc_exact"] == pytest.approx(1 / 3)
    assert got["acc_fuzzy"] == pytest.approx(1 / 2)
    assert got["total"] == pytest.approx(5 / 9) == got["score"]
    # total is the sample-weighted mean of the per-type accuracies
    assert got["total"] == pytest.approx((4 * 3 / 4 + 3 * 1 / 3 + 2 * 1 / 2) / 9)
    assert got["invalid_rate"] == pytest.approx(2 / 9)
    assert got["refusal_rate"] == pytest.approx(2 / 9)


def test_exam_scores_by_hand():
    mixed = [
        (_exam("判断", "正确"), "对"),                  # right
        (_exam("判断", "错误"), "正确"),                # wrong
        (_exam("判断", "错误"), "这题考查拘留期限"),      # unreadable: wrong, invalid, not a refusal
        (_exam("单选", "B"), "**B**"),                  # right
        (_exam("单选", "C"), "答案是A……更正：答案是C"),  # right
        (_exam("多选", "AC"), "A和C"),                  # right; partial 1
        (_exam("多选", "AC"), "A"),                     # wrong; partial 1/2
        (_exam("多选", "ABD"), "答案：ABC"),             # wrong; C is wrong -> partial 0
        (_exam("多选", "ABCD"), "GPS"),                 # unreadable; partial 0
    ]
    got = _aggregate("police_exam", mixed)
    assert got["acc_tf"] == pytest.approx(1 / 3)
    assert got["acc_single"] == pytest.approx(1.0)
    assert got["acc_multi"] == pytest.approx(1 / 4)
    assert got["multi_partial"] == pytest.approx((1 + 0.5 + 0 + 0) / 4)
    assert got["total"] == pytest.approx(4 / 9) == got["score"]
    assert got["invalid_rate"] == pytest.approx(2 / 9)
    assert got["refusal_rate"] == 0.0


def test_per_type_metric_only_averages_its_own_type():
    items = [None, ["判断", 1.0], ["单选", 0.0], None, ["判断", 0.0], ["判断", 1.0]]
    assert qa.agg_acc_tf(items) == pytest.approx(2 / 3)
    assert qa.agg_acc_single(items) == 0.0
    assert math.isnan(qa.agg_acc_multi(items))        # no 多选 document: not measured
    assert math.isnan(qa.agg_acc_judge([]))
    out = process_results(_exam("单选", "B"), ["B"])
    assert out["acc_tf"] is None and out["acc_multi"] is None and out["multi_partial"] is None
    assert out["acc_single"] == ("单选", 1.0)


PAPER = json.loads((ROOT.parent / "shared" / "reference" / "paper_results.json").read_text(encoding="utf-8")) \
    if (ROOT.parent / "shared" / "reference" / "paper_results.json").is_file() else None

READING_KEYS = {"判断": "judge", "精确": "exact", "模糊": "fuzzy"}
EXAM_KEYS = {"判断": "true_false", "单选": "single_choice", "多选": "multi_choice"}
PAPER_COUNTS = {"判断": 70, "精确": 70, "模糊": 60}   # the paper's per-type counts (docs/metrics.md)
EXAM_COUNTS = {"判断": 70, "单选": 70, "多选": 60}


def _synthetic_run(task_id, counts, accuracies):
    """Items as process_results would emit them for a run with these per-type accuracies."""
    per_doc = []
    for qtype, n in counts.items():
        right = round(accuracies[qtype] * n)
        for i in range(n):
            value = float(i < right)
            doc = {m: ([qtype, value] if t == qtype else None) for m, t in qa.TYPE_METRICS[task_id].items()}
            doc["total"] = value
            per_doc.append(doc)
    return per_doc


@pytest.mark.skipif(PAPER is None, reason="shared/reference/paper_results.json not present")
@pytest.mark.parametrize("model", sorted(PAPER["models"]) if PAPER else [])
def test_total_reproduces_paper_table5(model):
    row = PAPER["models"][model]
    assert PAPER["type_counts"]["case_reading"] == {"judge": 70, "exact": 70, "fuzzy": 60}
    for task_id, keys, counts, metric_of in (
            ("case_reading", READING_KEYS, PAPER_COUNTS,
             {"判断": "acc_judge", "精确": "acc_exact", "模糊": "acc_fuzzy"}),
            ("police_exam", EXAM_KEYS, EXAM_COUNTS, {"判断": "acc_tf", "单选": "acc_single", "多选": "acc_multi"})):
        paper = row[task_id]
        acc = {qtype: paper[key] for qtype, key in keys.items()}
        per_doc = _synthetic_run(task_id, counts, acc)
        for qtype, metric in metric_of.items():
            assert getattr(qa, f"agg_{metric}")([d[metric] for d in per_doc]) == pytest.approx(acc[qtype], abs=0.001)
        total = sum(d["total"] for d in per_doc) / len(per_doc)
        assert total == pytest.approx(paper["total"], abs=0.003)
        assert qa.weighted_total(acc, counts) == pytest.approx(paper["total"], abs=0.003)


def test_weighted_total_by_hand():
    # GPT-3.5-turbo's Table 5 reading row: (70*0.7 + 70*0.4143 + 60*0.8667) / 200 = 0.65
    total = qa.weighted_total({"判断": 0.7, "精确": 0.4143, "模糊": 0.8667}, PAPER_COUNTS)
    assert total == pytest.approx(0.65, abs=1e-4)
    with pytest.raises(ValueError):
        qa.weighted_total({"判断": 1.0}, {"判断": 0})


@pytest.mark.parametrize("output", [None, "", "   ", "```json\n{\"answer\": \"A\"}\n```", LONG, "<think>",
                                    "抱歉，该内容涉及敏感信息，我无法回答。", "Ａ", "\x00\ufeff"])
def test_odd_outputs_score_without_crashing(output):
    for doc in (_reading("判断", "是"), _reading("精确", "王某"), _reading("模糊", "家中"),
                _exam("判断", "正确"), _exam("单选", "A"), _exam("多选", "AB")):
        out = process_results(doc, [output])
        assert out["total"] in (0.0, 1.0) and out["invalid_rate"] in (0.0, 1.0)
        assert out["refusal_rate"] <= out["invalid_rate"]
    # a fenced JSON answer names its letter on a line of its own: read, not guessed
    assert process_results(_exam("单选", "A"), ["```json\n{\"answer\": \"A\"}\n```"])["total"] == 1.0
    assert process_results(_exam("单选", "A"), ["```json\n{\"answer\": \"B\"}\n```"])["total"] == 0.0
    assert process_results(_exam("单选", "A"), ["Ａ"])["total"] == 1.0


# --------------------------------------------------------------------------- prompts and baseline

@pytest.fixture(scope="module")
def qa_tasks():
    """The two harness tasks built in-process on the demo data (Dataset.from_list: in memory)."""
    from cpsd_tasks import task_manager

    mp = pytest.MonkeyPatch()
    mp.delenv("CPSD_DATA_DIR", raising=False)
    try:
        yield task_manager().load(["cpsd_case_reading", "cpsd_police_exam"])["tasks"]
    finally:
        mp.undo()


def test_prompts_and_baseline_rules_on_demo(qa_tasks):
    assert task_lines()["仔细阅读下面的案情材料，根据材料回答问题。"] == "case_reading"
    assert task_lines()["回答下面这道公安执法资格考试题。"] == "police_exam"
    exam = qa_tasks["cpsd_police_exam"]
    docs = list(exam.test_docs())
    multi = next(d for d in docs if d["qtype"] == "多选")
    prompt = exam.doc_to_text(multi)
    for option in multi["options"]:
        assert f"\n{option['key']}. {option['text']}" in prompt
    assert "多项选择题" in prompt and baseline_answer(prompt) == "AB"
    tf = next(d for d in docs if d["qtype"] == "判断")
    assert "\nA. " not in exam.doc_to_text(tf) and baseline_answer(exam.doc_to_text(tf)) == "正确"
    single = next(d for d in docs if d["qtype"] == "单选")
    assert baseline_answer(exam.doc_to_text(single)) == "A"
    reading = qa_tasks["cpsd_case_reading"]
    rdocs = list(reading.test_docs())
    by_type = {q: next(d for d in rdocs if d["qtype"] == q) for q in ("判断", "精确", "模糊")}
    assert baseline_answer(reading.doc_to_text(by_type["判断"])) == "未知"
    prompt = reading.doc_to_text(by_type["精确"])
    assert by_type["精确"]["context"] in prompt and "人名" in prompt
    assert baseline_answer(prompt) == first_person_name(by_type["精确"]["context"]) == "王某"


@pytest.mark.parametrize("text, name", [
    ("被告人王某在本市某区某号开店", "王某"),
    ("其在某网络平台结识一男子，后被害人黄某报案", "黄某"),
    ("经审理查明：被害人李某某因琐事与刘1某争执", "李某某"),
    ("犯罪嫌疑人陈某甲伙同刘某", "陈某甲"),
    ("刘1某、王1某从合肥等地购买", "刘1某"),
    ("在某市某县某镇发生一起盗窃案", "未知"),
])
def test_first_person_name(text, name):
    assert first_person_name(text) == name


def test_baseline_rules_direct():
    context = "2021年8月3日凌晨2时许，被告人周某驾驶摩托车行驶至县道路段，后周某在广州市白云区一出租屋内被抓获。"
    assert fuzzy_span(context, "事故发生在什么时间？") == "2021年8月3日凌晨2时许"
    assert fuzzy_span(context, "周某在哪里被抓获？") == "广州市白云区一出租屋内"
    assert reading_rule({"输入": f"案情材料：{context}\n问题：谁驾驶摩托车？",
                         "约束": "答案是材料中出现的人名"}) == "周某"
    assert exam_rule({"输入": "单选题：x\nB. y\nC. z", "约束": "这是单项选择题"}) == "B"   # option A missing
    assert exam_rule({"输入": "多选题：x\nA. y\nB. z\nC. w", "约束": "这是多项选择题"}) == "AB"


# --------------------------------------------------------------------------- end to end

pytest_e2e = pytest.mark.e2e


@pytest_e2e
def test_qa_on_demo_end_to_end(tmp_path, baseline_url, hf_home):
    run = run_cpsd_eval("cpsd_qa", baseline_url, tmp_path / "out", hf_home)
    res = run["results"]["results"]
    reading, exam = res["cpsd_case_reading"], res["cpsd_police_exam"]
    # Worked out by hand from the demo files and the documented rules:
    # 判断 8 (2 未知 golds), 精确 7 (first name right in 3), 模糊 7 (2 places + 1 time right)
    assert reading["acc_judge,none"] == pytest.approx(2 / 8)
    assert reading["acc_exact,none"] == pytest.approx(3 / 7)
    assert reading["acc_fuzzy,none"] == pytest.approx(3 / 7)
    assert reading["total,none"] == pytest.approx(8 / 22) == reading["score,none"]
    # 判断 6 (3 正确), 单选 6 (2 A), 多选 6 (never AB; AB ⊂ gold in 3 of them: partial 2/3 each)
    assert exam["acc_tf,none"] == pytest.approx(3 / 6)
    assert exam["acc_single,none"] == pytest.approx(2 / 6)
    assert exam["acc_multi,none"] == 0.0
    assert exam["multi_partial,none"] == pytest.approx(3 * (2 / 3) / 6)
    assert exam["total,none"] == pytest.approx(5 / 18)
    assert exam["invalid_rate,none"] == 0.0 == reading["invalid_rate,none"]
    assert exam["acc_tf_stderr,none"] == "N/A"
    assert res["cpsd_qa"]["total,none"] == pytest.approx((8 / 22 + 5 / 18) / 2)
    assert len(run["samples"]["cpsd_case_reading"]) == len(read_jsonl(DEMO_DIR / "case_reading" / "test.jsonl",
                                                                      "case_reading"))
    sample = run["samples"]["cpsd_police_exam"][0]
    assert sample["acc_tf"] == ["判断", 1.0] and sample["acc_single"] is None


@pytest_e2e
def test_qa_limit_leaves_missing_types_nan(tmp_path, baseline_url, hf_home):
    # The first three demo exam questions are all 判断: the choice metrics have no document.
    run = run_cpsd_eval("cpsd_qa", baseline_url, tmp_path / "out", hf_home, extra=("--limit", "3"))
    exam = run["results"]["results"]["cpsd_police_exam"]
    assert exam["acc_tf,none"] == pytest.approx(2 / 3) == exam["total,none"]
    for metric in ("acc_single", "acc_multi", "multi_partial"):
        assert math.isnan(exam[f"{metric},none"])
    assert "| NaN" in run["stdout"] or "|   NaN" in run["stdout"]


@pytest_e2e
@needs_shared_data
def test_qa_on_shared_data_end_to_end(tmp_path, baseline_url, hf_home):
    run = run_cpsd_eval("cpsd_qa", baseline_url, tmp_path / "out", hf_home, data_dir=SHARED_DATA)
    res = run["results"]["results"]
    for task, metrics in (("case_reading", ["acc_judge", "acc_exact", "acc_fuzzy"]),
                          ("police_exam", ["acc_tf", "acc_single", "acc_multi", "multi_partial"])):
        row = res[f"cpsd_{task}"]
        samples = run["samples"][f"cpsd_{task}"]
        n = len(read_jsonl(SHARED_DATA / task / "test.jsonl", task))
        assert len(samples) == n == 200
        counts = {}
        for s in samples:
            counts[s["doc"]["qtype"]] = counts.get(s["doc"]["qtype"], 0) + 1
        assert sorted(counts.values()) == [60, 70, 70]
        for metric in metrics + ["total", "invalid_rate", "refusal_rate", "score"]:
            assert 0.0 <= row[f"{metric},none"] <= 1.0, (task, metric)
        # total = the per-type accuracies weighted by their counts
        acc = {qa.TYPE_METRICS[task][m]: row[f"{m},none"] for m in metrics[:3]}
        assert row["total,none"] == pytest.approx(qa.weighted_total(acc, counts), abs=1e-9)
        assert samples[0]["doc"]["data_source"] == str(SHARED_DATA / task / "test.jsonl")
    assert res["cpsd_police_exam"]["acc_tf,none"] == pytest.approx(0.5)   # 35 正确 of 70, always 正确


# --------------------------------------------------------------------------- fuzzing findings

ABCD = {k: k for k in "ABCD"}
ABCDE = {k: k for k in "ABCDE"}


@pytest.mark.parametrize("output", [
    "A " * 26 + "x",                          # took 20 s before the letter-list grammar was made unambiguous
    "A B C D " * 6 + "都不对",                 # 4.8 s before
    "A\nB\nC\nD\n" * 6 + "以上",               # 4.9 s before
    "A B C D " * 1250 + "x",                  # 10,000 characters
    "A选项B选项" * 2000 + "x",                 # 选项 as suffix of one letter or prefix of the next
    "选项A 选项B " * 1000 + "x",
    "A 、 " * 2500 + "x",
    "(A) (B) " * 1250 + "x",
    "A项 和 选项B " * 800 + "x",
    "答案是" + "A、" * 5000 + "x",
    "A" * 10000,
])
@pytest.mark.slow
def test_extract_choices_is_linear_on_adversarial_lists(output):
    # Time at k and 4k copies of the output (at least ~2,500 characters), not a wall-clock budget.
    def read(text):
        extract_choices(text, ABCD)
        judge_exam(text, "A", "多选", ABCD)

    assert_linear(read, lambda k: output * k, max(1, 2500 // len(output)), what=repr(output[:20]))


@pytest.mark.parametrize("output, options, expected", [
    # negation guard: only a negation right before the declaration skips it
    ("这道题不难。答案：B", ABCD, "B"),
    ("选项A说法不对，正确答案是B", ABCD, "B"),
    ("A不对，选B", ABCD, "B"),
    ("A、C不对，故选B", ABCD, "B"),
    ("不选A，选B", ABCD, "B"),
    ("选A是错的，应选B", ABCD, "B"),
    # self-corrections: a retracted (不对) or questioned (吗？) declaration is skipped, the last one wins
    ("选B吗？不，选C", ABCD, "C"),
    ("答案：A（不对）应该是C", ABCD, "C"),
    ("答案：A。不对，应该是C", ABCD, "C"),
    ("答案：A（不对）", ABCD, None),
    ("答案：B（错误）", ABCD, "B"),            # answers a "下列说法错误的是" question
    # options dismissed all together: never ABCD
    ("A B C D 都不对，选E", ABCDE, "E"),
    ("A B C D 都不对，选E", ABCD, None),
    # leading lists are taken whole
    ("B、C、D正确，A错误", ABCD, "BCD"),       # was BC (list cut back to a delimiter)
    ("A、B、C、D 四个选项中", ABCD, None),          # an enumeration, not an answer (was ABCD)
    ("A、B、C、D 四个选项中，B正确", ABCD, "B"),    # ...but the verdict after it names B (issue 11)
    ("A 错误", ABCD, None),
    # wrappers
    ("<b>B</b>", ABCD, "B"),
    ("解析……答案是<b>A</b>，因为", ABCD, "A"),
    ("分析\n```\nAC\n```", ABCD, "AC"),
    ("<B>", ABCD, "B"),                        # an upper-case letter in angle brackets is an option
])
def test_extract_choices_fuzzing_findings(output, options, expected):
    got = extract_choices(output, options)
    assert got == (frozenset(expected) if expected else None)


@pytest.mark.parametrize("gold", ["违反治安管理规定", "以公开其敏感照片相要挟", "无法提供身份证明",
                                  "对不起被害人，当场道歉", "嫌疑人称我不能还钱"])
@pytest.mark.parametrize("qtype", ["精确", "模糊"])
def test_span_matching_gold_is_never_a_refusal(gold, qtype):
    j = judge_reading(gold, gold, qtype)
    assert (j.correct, j.parsed, j.refusal, j.error_class) == (True, True, False, "correct")


@pytest.mark.parametrize("output, gold, qtype, expected", [
    # (correct, parsed, refusal)
    ("无法提供身份证明", "张某", "模糊", (False, True, False)),      # wrong span, but no refusal
    ("以公开其敏感照片相要挟", "在家中", "模糊", (False, True, False)),
    ("抱歉，我无法回答该问题", "张某", "精确", (False, False, True)),   # clear refusals
    ("作为一个AI语言模型，我不能提供此类信息。", "在家中", "模糊", (False, False, True)),
    ("对不起，我无法回答", "在家中", "模糊", (False, False, True)),
    ("我无法回答这个问题", "张某", "精确", (False, False, True)),
    ("", "张某", "精确", (False, False, True)),
    ("<b>张某</b>", "张某", "精确", (True, True, False)),             # HTML and fences are wrappers
    ("```text\n张某\n```", "张某", "精确", (True, True, False)),
    ("```text\n广州市白云区一出租屋内\n```", GOLD_PLACE, "模糊", (True, True, False)),
])
def test_span_refusals_are_only_clear_ones(output, gold, qtype, expected):
    j = judge_reading(output, gold, qtype)
    assert (j.correct, j.parsed, j.refusal) == expected


@pytest.mark.parametrize("output, expected, refusal", [
    ("抱歉，我无法判断该说法是否正确。", None, True),     # was 正确
    ("无法判断正确与否", None, False),                     # was 正确
    ("正确与否取决于具体情况", None, False),               # was 正确
    ("我无法判断这个说法是否正确", None, False),
    ("不完全正确", "错误", False),                         # was 正确
    ("说法正确吗？不，错误", "错误", False),               # a question names no answer (was 正确)
    ("<b>正确</b>", "正确", False),
    ("抱歉，刚才答错了，答案是错误", "错误", False),       # an apology without an inability is no refusal
])
def test_exam_judgement_fuzzing_findings(output, expected, refusal):
    assert read_judgement(output, *E)[0] == expected
    j = judge_exam(output, "正确", "判断")
    assert (j.prediction, j.refusal) == (expected, refusal)
    assert j.correct is (expected == "正确")


@pytest.mark.parametrize("output, expected", [
    ("他是凶手吗？不是", "否"),
    ("王某到场了吗？是的，到场了", "是"),
    ("抱歉，我无法判断", None),        # a clear refusal is not credited as 未知
    ("根据材料无法判断", "未知"),
])
def test_reading_judgement_fuzzing_findings(output, expected):
    assert read_judgement(output, *R)[0] == expected
