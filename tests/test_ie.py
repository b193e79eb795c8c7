"""Information extraction (docs/metrics.md#information-extraction): parser table, hand-worked hybrid metric
cases, end-to-end runs."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
from rapidfuzz.distance import Levenshtein

from cpsd_tasks import ie
from cpsd_tasks.reading import ie_items, ie_parse
from cpsd_tasks.baseline.rules_ie import RULES, drug_entities, drug_relations, fraud_entities
from cpsd_tasks.data.loading import load_task_docs
from cpsd_tasks.exceptions import DataError
from cpsd_tasks.options import configure, reset_run_configs
from conftest import SHARED_DATA, needs_shared_data, run_cpsd_eval
from growth import assert_linear


def ner_doc(entities, task="drug_ner"):
    return {"task": task, "text": "…", "entities": [{"type": t, "text": x} for t, x in entities]}


def re_doc(relations):
    return {"task": "drug_re", "text": "…",
            "relations": [{"head": h, "relation": r, "tail": t} for h, r, t in relations]}


def ner_json(entities):
    return json.dumps([{"type": t, "text": x} for t, x in entities], ensure_ascii=False)


def re_json(relations):
    return json.dumps([{"head": h, "relation": r, "tail": t} for h, r, t in relations], ensure_ascii=False)


@pytest.fixture(autouse=True)
def _default_options():
    """Every test starts (and ends) with the default α/τ."""
    reset_run_configs()
    yield
    reset_run_configs()


# ------------------------------------------------------------------------------------ parser

P1 = (("人名", "汪某"),)
PARSER_TABLE = [
    # (name, task, output, expected items, valid)
    ("plain", "drug_ner", '[{"type": "人名", "text": "汪某"}]', P1, True),
    ("fence", "drug_ner", '好的：\n```json\n[{"type": "人名", "text": "汪某"}]\n```\n以上是结果。', P1, True),
    ("fence_no_lang_trailing_comma", "drug_ner", '```\n[{"type": "人名", "text": "汪某"},]\n```', P1, True),
    ("prose_before_after", "drug_ner", '抽取结果如下：[{"type": "人名", "text": "汪某"}]\n说明：共1个实体。', P1,
     True),
    ("prose_with_brackets", "drug_ner", '根据[原文]：[{"type": "人名", "text": "汪某"}] [注]', P1, True),
    ("footnote_then_broken", "drug_ner", '[1] 见下：[{"type": "人名", "text": "汪某"},]', P1, True),
    ("single_quotes", "drug_ner", "[{'type': '人名', 'text': '汪某'}]", P1, True),
    ("curly_quotes_fullwidth", "drug_ner", "[{“type”：“人名”，“text”：“汪某”}]", P1, True),
    ("fullwidth_ascii", "drug_ner", "［｛＂type＂：＂人名＂，＂text＂：＂汪某＂｝］", P1, True),
    ("one_object", "drug_ner", '{"type": "人名", "text": "汪某"}', P1, True),
    ("wrapper_object", "drug_ner", '{"entities": [{"type": "人名", "text": "汪某"}]}', P1, True),
    ("grouped_object", "drug_ner", '{"人名": ["汪某", "张某"], "时间": "2014年"}',
     (("人名", "汪某"), ("人名", "张某"), ("时间", "2014年")), True),
    ("pairs", "drug_ner", '[["人名", "汪某"], ["毒品", "海洛因"]]', (("人名", "汪某"), ("毒品类型", "海洛因")), True),
    ("truncated", "drug_ner", '[{"type": "人名", "text": "汪某"}, {"type": "时间", "tex', P1, True),
    ("lines", "drug_ner", "人名：汪某、张某\n**时间**：2014年2月25日\n- 毒品数量: 1,000克；0.5克\n说明：无",
     (("人名", "汪某"), ("人名", "张某"), ("时间", "2014年2月25日"), ("毒品数量", "1,000克"),
      ("毒品数量", "0.5克")), True),
    ("english_types", "drug_ner",
     '[{"type": "Person", "text": "汪某"}, {"type": "time", "text": "当晚"}, {"type": "Location", "text": "本市"},'
     ' {"type": "drug_type", "text": "冰毒"}, {"type": "quantity", "text": "1克"}]',
     (("人名", "汪某"), ("时间", "当晚"), ("地点", "本市"), ("毒品类型", "冰毒"), ("毒品数量", "1克")), True),
    ("fraud_english_types", "fraud_ner",
     '[{"type": "name", "text": "李某"}, {"type": "amount", "text": "500元"},'
     ' {"type": "phone", "text": "138 1234 5678"}, {"type": "WeChat", "text": "WXID_A1"}]',
     (("报案人", "李某"), ("金额", "500元"), ("电话号码", "13812345678"), ("社交账号", "wxid_a1")), True),
    ("unknown_type_kept", "drug_ner", '[{"type": "车辆", "text": "白色轿车"}]', (("<unknown>", "白色轿车"),), True),
    ("entity_text_normalised", "drug_ner", '[{"type": " 人名 ", "text": "**汪　某**。"}]', P1, True),
    ("empty_text_dropped", "drug_ner", '[{"type": "人名", "text": ""}, {"type": "人名", "text": "汪某"}]', P1, True),
    ("think_closed", "drug_ner", '<think>先找[人名]：张某？</think>[{"type": "人名", "text": "汪某"}]', P1, True),
    ("think_lone_close", "drug_ner", '推理……[{"type":"人名","text":"错"}]</think>[{"type": "人名", "text": "汪某"}]',
     P1, True),
    ("think_unclosed", "drug_ner", '<think>[{"type": "人名", "text": "汪某"}]', (), False),
    ("empty_list", "drug_ner", "[]", (), True),
    ("fenced_empty_list", "drug_ner", "```json\n[]\n```", (), True),
    ("none_word", "drug_ner", "无。", (), True),
    ("refusal", "drug_ner", "抱歉，我无法协助处理涉毒内容。", (), False),
    ("prose_only", "drug_ner", "文中提到了汪某和海洛因。", (), False),
    ("untyped_strings", "drug_ner", '["汪某", "张某"]', (), False),
    ("json_scalar", "drug_ner", "42", (), False),
    ("empty", "drug_ner", "", (), False),
    ("none", "drug_ner", None, (), False),
    ("re_plain", "drug_re", '[{"head": "汪某", "relation": "贩卖给", "tail": "张某"}]', (("贩卖给", "汪某", "张某"),),
     True),
    ("re_english_relation", "drug_re", '{"head": "汪某", "relation": "posess", "tail": "冰毒"}',
     (("持有", "汪某", "冰毒"),), True),
    ("re_list_triples", "drug_re", '[["汪某", "sell_drugs_to", "张某"], ["汪某", "traffic_in", "冰毒"]]',
     (("贩卖给", "汪某", "张某"), ("贩卖毒品", "汪某", "冰毒")), True),
    ("re_chinese_keys", "drug_re", '[{"主体": "汪某", "关系": "容留", "客体": "张某"}]',
     (("非法容留", "汪某", "张某"),), True),
    ("re_lines", "drug_re", "（汪某，贩卖给，张某）\n汪某 | 贩卖毒品 | 海洛因\n持有：张某，海洛因\n汪某-非法容留-李某",
     (("贩卖给", "汪某", "张某"), ("贩卖毒品", "汪某", "海洛因"), ("持有", "张某", "海洛因"),
      ("非法容留", "汪某", "李某")), True),
    ("re_entity_objects", "drug_re",
     '[{"head": {"text": "汪某", "type": "人名"}, "relation": "贩卖毒品", "tail": {"text": "冰毒"}}]',
     (("贩卖毒品", "汪某", "冰毒"),), True),
    ("re_ner_shape_invalid", "drug_re", '[{"type": "人名", "text": "汪某"}]', (), False),
    # line format: several groups on one line, HTML tags, person notes, Markdown tables
    ("one_line_groups", "drug_ner", "人名：汪某、张某；地点：北京市朝阳区",
     (("人名", "汪某"), ("人名", "张某"), ("地点", "北京市朝阳区")), True),
    ("one_line_groups_commas_thousands", "drug_ner", "人名:汪某,地点:北京,毒品数量:1,000克;0.5克",
     (("人名", "汪某"), ("地点", "北京"), ("毒品数量", "1,000克"), ("毒品数量", "0.5克")), True),
    ("html_tags", "drug_ner", "<b>人名</b>：汪某<br/>", P1, True),
    ("html_tag_with_colon_attribute", "drug_ner", '<span style="color:red">人名</span>：<b>汪某</b>', P1, True),
    ("person_note", "drug_ner", "人名: 汪某 (主犯)", P1, True),
    ("person_notes_not_drug_names", "drug_ner", "人名：汪某（主犯）、张某（从犯）\n毒品类型：甲基苯丙胺（冰毒）",
     (("人名", "汪某"), ("人名", "张某"), ("毒品类型", "甲基苯丙胺(冰毒")), True),
    ("note_only_kept", "drug_ner", "人名：(不详)", (("人名", "不详"),), True),
    ("re_line_trailing_separator", "drug_re", "贩卖给：汪某，张某，\n持有：张某，无", (("贩卖给", "汪某", "张某"),),
     True),
    ("re_person_notes_one_line", "drug_re", "贩卖给：汪某（主犯），张某（吸毒人员）；持有：张某，冰毒",
     (("贩卖给", "汪某", "张某"), ("持有", "张某", "冰毒")), True),
    ("md_table", "drug_ner", "| 类型 | 实体 |\n|---|---|\n| 人名 | 汪某 |\n| **地点** | 北京 |\n\n以上。",
     (("人名", "汪某"), ("地点", "北京")), True),
    ("md_table_columns_swapped", "drug_ner", "| 实体 | 实体类型 |\n| :--- | :---: |\n| 汪某 | 人名 |", P1, True),
    ("md_table_type_columns", "drug_ner", "人名 | 地点\n--- | ---\n汪某 | 北京\n张某 |",
     (("人名", "汪某"), ("地点", "北京"), ("人名", "张某")), True),
    ("md_table_unknown_header", "drug_ner", "| 序号 | 内容 |\n|---|---|\n| 1 | 汪某 |", (), False),
    ("re_md_table", "drug_re",
     "| 头实体 | 关系 | 尾实体 |\n|---|---|---|\n| 汪某 | 贩卖给 | 张某 |\n| 汪某 | 持有 | 冰毒 |",
     (("贩卖给", "汪某", "张某"), ("持有", "汪某", "冰毒")), True),
    # an explicit answer declaration: the text after the last one is read first
    ("answer_after_example", "drug_ner",
     '示例：[{"type":"人名","text":"王某"}]\n答案：[{"type":"人名","text":"汪某"},{"type":"地点","text":"北京"}]',
     (("人名", "汪某"), ("地点", "北京")), True),
    ("final_answer_fenced_after_fenced_example", "drug_ner",
     '示例：\n```json\n[{"type":"人名","text":"王某"}]\n```\n最终答案：\n```json\n'
     '[{"type":"人名","text":"汪某"},{"type":"地点","text":"北京"}]\n```', (("人名", "汪某"), ("地点", "北京")), True),
    ("answer_is_english_declaration", "drug_ner",
     'Example: [{"type":"人名","text":"王某"}]\nFinal Answer: [{"type":"人名","text":"汪某"}]', P1, True),
    ("answer_none_after_example", "drug_ner", '示例：[{"type":"人名","text":"王某"}]\n答案如下：无', (), True),
    ("answer_lines_after_example", "drug_ner", "示例：人名：王某\n答案：人名：汪某", P1, True),
    ("declaration_without_answer_falls_back", "drug_ner",
     '[{"type":"人名","text":"汪某"},{"type":"地点","text":"北京"}]\n答案：见上', (("人名", "汪某"), ("地点", "北京")),
     True),
]


@pytest.mark.parametrize("name,task,output,items,valid", PARSER_TABLE, ids=[row[0] for row in PARSER_TABLE])
def test_parser_table(name, task, output, items, valid):
    parsed = ie_parse.parse_output(output, task)
    assert parsed.items == items
    assert parsed.valid is valid


def _prose_then_truncated_json(k: int) -> str:
    return "这是一段很长的说明文字。" * k + ner_json([("人名", f"张某{i}") for i in range(k)])[:-1] + ',{"type"'


@pytest.mark.slow
def test_parser_long_outputs_are_linear_and_never_crash():
    long_valid = ner_json([("人名", f"张某{i}") for i in range(600)])  # ~17k chars
    garbage = "[{" * 5000 + "汪某"  # 10k chars of unbalanced brackets
    prose = "这是一段很长的说明文字。" * 900
    assert len(ie_parse.parse_output(long_valid, "drug_ner").items) == 600
    assert ie_parse.parse_output(garbage, "drug_ner").items == ()
    assert ie_parse.parse_output(prose, "drug_ner") == ie_parse.Parsed((), False)
    assert ie_parse.parse_output(_prose_then_truncated_json(600), "drug_ner").items[599] == ("人名", "张某599")
    # Time grows linearly with the output (no wall-clock budget here: benchmarks/adversarial.py has those).
    assert_linear(lambda text: ie_parse.parse_output(text, "drug_ner"), lambda k: ner_json(
        [("人名", f"张某{i}") for i in range(k)]), 150, what="long valid JSON")
    assert_linear(lambda text: ie_parse.parse_output(text, "drug_ner"), lambda k: "[{" * k + "汪某", 1250,
                  what="unbalanced brackets")
    assert_linear(lambda text: ie_parse.parse_output(text, "drug_ner"), _prose_then_truncated_json, 150,
                  what="prose then truncated JSON")


DEEP_OUTPUTS = {
    "open_brackets": "[" * 1000,
    "balanced_brackets": "[" * 1000 + "]" * 1000,
    "open_objects": '{"a":' * 1000,
    "prose_then_deep": "答案：" + "[" * 5000 + "]" * 5000,
    "fenced_deep": "```json\n" + "[" * 3000 + "\n```",
}


@pytest.mark.parametrize("name", DEEP_OUTPUTS)
def test_deep_nesting_is_invalid_never_recursion_error(name):
    doc = ner_doc([("人名", "汪某")])
    assert ie_parse.parse_output(DEEP_OUTPUTS[name], "drug_ner") == ie_parse.Parsed((), False)
    assert ie_parse.parse_output(DEEP_OUTPUTS[name], "drug_re") == ie_parse.Parsed((), False)
    out = ie.process_results(doc, [DEEP_OUTPUTS[name]])
    assert (out["score"], out["invalid_rate"]) == (0.0, 1.0)


def test_valid_answer_followed_by_deep_junk_is_read():
    doc = ner_doc([("人名", "汪某")])
    for junk in ("[" * 1000, "{" * 1000, '{"a":' * 1000):
        output = '[{"type": "人名", "text": "汪某"}]\n' + junk
        assert ie_parse.parse_output(output, "drug_ner") == ie_parse.Parsed(P1, True)
        out = ie.process_results(doc, [output])
        assert (out["score"], out["invalid_rate"]) == (1.0, 0.0)


def test_deeply_nested_text_values_are_ignored():
    value = "汪某"
    for _ in range(5000):  # far deeper than the recursion limit
        value = [value]
    assert ie_items.field_strings(value) == []
    assert ie_items.field_strings([["汪某"], "张某"]) == ["汪某", "张某"]


def _cut(pattern: str, n: int) -> str:
    return (pattern * (n // len(pattern) + 1))[:n]


#: Outputs that were slow once, as builders of an n-character output (n = 100,000 in
#: benchmarks/adversarial.py, which holds the absolute budget), with the task and the expected Parsed
#: (None = not checked).
SLOW_BEFORE = {
    "repair_unclosed_strings": (lambda n: _cut('[{"type": "人名", "text": "张', n), "drug_ner", None),
    "repair_unclosed_strings_re": (lambda n: _cut('[{"type": "人名", "text": "张', n), "drug_re",
                                   ie_parse.Parsed((), False)),
    "repair_list_of_quotes": (lambda n: '["' * (n // 2), "drug_ner", ie_parse.Parsed((), False)),
    "line_long_spaces": (lambda n: "人名:a" + " " * n + "b", "drug_ner", ie_parse.Parsed((("人名", "ab"),), True)),
    "re_line_long_spaces": (lambda n: "贩卖给:汪某" + " " * n + ",张某", "drug_re",
                            ie_parse.Parsed((("贩卖给", "汪某", "张某"),), True)),
    "spaces_no_colon": (lambda n: " " * n + "汪某", "drug_ner", ie_parse.Parsed((), False)),
    "unclosed_fence": (lambda n: "```" + "a" * n, "drug_ner", ie_parse.Parsed((), False)),
    # normalize() strips leading 答案 prefixes (linear): nothing is left, so the item is dropped
    "answer_prefix_runs": (lambda n: "人名:" + "答案" * (n // 2), "drug_ner", ie_parse.Parsed((), True)),
    "long_json_key": (lambda n: json.dumps({"答案" * (n // 2): "汪某"}, ensure_ascii=False), "drug_ner",
                      ie_parse.Parsed((), False)),
    "many_fences": (lambda n: '```json\n[{"a":\n```\n' * (n // 20), "drug_ner", None),
}
#: The growth check's sizes: GROWTH_N and 4 × GROWTH_N characters (above the parser's caps on
#: json_repair input, 2,500/5,000 characters, where a step in cost is not growth).
GROWTH_N = 5_000


@pytest.mark.slow
@pytest.mark.parametrize("name", SLOW_BEFORE)
def test_pathological_outputs_parse_in_linear_time(name):
    make, task, expected = SLOW_BEFORE[name]
    output = make(4 * GROWTH_N)
    assert len(output) >= 4 * GROWTH_N * 0.95
    # ×4 the output, about ×4 the time (quadratic: ×16); the 100k-character budget is in benchmarks/adversarial.py.
    assert_linear(lambda text: ie_parse.parse_output(text, task), make, GROWTH_N, what=name)
    parsed = ie_parse.parse_output(output, task)
    if expected is not None:
        assert parsed == expected
    if name == "repair_unclosed_strings":  # json_repair's reading: 人名 items, first text starts with 张
        assert parsed.valid and parsed.items and all(t == "人名" for t, _ in parsed.items)
        assert parsed.items[0][1].startswith("张")


def test_repair_reads_broken_json_up_to_the_cap():
    # single quotes: strict JSON stops at position 2 ("[{" is valid), so json_repair gets the first
    # 2 + 2500 characters. Each item "{'type': '人名', 'text': '张某NNN'}" is 31 characters, 33 with
    # ", ": item k starts at 1 + 33k; items 0..74 end by 2501, item 75 starts at 2476 and is cut
    # inside its text after "张某" (indices 2500, 2501).
    assert ie_parse.REPAIR_MAX_CHARS == 2500
    output = "[" + ", ".join(f"{{'type': '人名', 'text': '张某{i:03d}'}}" for i in range(200)) + "]"
    parsed = ie_parse.parse_output(output, "drug_ner")
    assert len(parsed.items) == 76
    assert parsed.items[74] == ("人名", "张某074") and parsed.items[75] == ("人名", "张某")
    # a truncated answer that is valid JSON up to the cut is read whole, however long
    valid = ner_json([("人名", f"张某{i}") for i in range(1500)])  # ~45k characters
    assert len(ie_parse.parse_output(valid[:-1] + ', {"type": "人', "drug_ner").items) == 1500


# ------------------------------------------------------------------------------------ metric

def scores(doc, output, alpha=0.5, tau=0.8):
    return ie.judge(doc, output, alpha, tau).scores


def test_duplicates_gold_twice_predicted_once():
    doc = ner_doc([("人名", "张某"), ("毒品类型", "甲基苯丙胺"), ("毒品类型", "甲基苯丙胺")])
    once = scores(doc, ner_json([("人名", "张某"), ("毒品类型", "甲基苯丙胺")]))
    # tp 2, pred 2, gold 3: P 1, R 2/3, F1 0.8 — exact and fuzzy alike
    assert (once.precision, once.recall, once.f1) == pytest.approx((1.0, 2 / 3, 0.8))
    thrice = scores(doc, ner_json([("人名", "张某")] + [("毒品类型", "甲基苯丙胺")] * 3))
    # tp 3 (one per gold), pred 4, gold 3: P 3/4, R 1, F1 6/7
    assert (thrice.precision, thrice.recall, thrice.f1) == pytest.approx((0.75, 1.0, 6 / 7))


def test_fuzzy_hit_on_time():
    gold_time, pred_time = "2021年8月6日上午9时", "2021年8月6日上午9时许"
    assert Levenshtein.normalized_similarity(pred_time, gold_time) == pytest.approx(13 / 14)
    doc = ner_doc([("人名", "张某"), ("时间", gold_time)])
    s = scores(doc, ner_json([("人名", "张某"), ("时间", pred_time)]))
    assert (s.precision_exact, s.recall_exact, s.f1_exact) == pytest.approx((0.5, 0.5, 0.5))
    assert (s.precision_fuzzy, s.recall_fuzzy, s.f1_fuzzy) == (1.0, 1.0, 1.0)
    assert (s.precision, s.recall, s.f1) == pytest.approx((0.75, 0.75, 0.75))
    assert scores(doc, ner_json([("人名", "张某"), ("时间", pred_time)]), alpha=0.2).f1 == pytest.approx(0.9)
    # τ above the similarity: no fuzzy hit
    assert scores(doc, ner_json([("人名", "张某"), ("时间", pred_time)]), tau=0.95).f1_fuzzy == 0.5


def test_near_miss_names_never_match():
    # 张三/张四 are 50 % similar; 欧阳某某/欧阳某甲 75 %: still no match even with τ = 0.5 (names are exact-only)
    for gold, pred in (("张三", "张四"), ("欧阳某某", "欧阳某甲")):
        assert Levenshtein.normalized_similarity(gold, pred) >= 0.5
        s = scores(ner_doc([("人名", gold)]), ner_json([("人名", pred)]), tau=0.5)
        assert (s.f1_exact, s.f1_fuzzy, s.f1) == (0.0, 0.0, 0.0)
    for typ in ("报案人", "金额", "电话号码", "社交账号"):
        s = scores(ner_doc([(typ, "wxid_abcd1")], "fraud_ner"), ner_json([(typ, "wxid_abcd2")]), tau=0.5)
        assert s.f1_fuzzy == 0.0, typ
    # the same pair under a fuzzy type does match: it is the type rule that blocks names
    s = scores(ner_doc([("地点", "欧阳某某")]), ner_json([("地点", "欧阳某甲")]), tau=0.7)
    assert s.f1_fuzzy == 1.0


def test_length_floor_blocks_short_strings():
    assert Levenshtein.normalized_similarity("冰毒", "冰糖") == 0.5
    s = scores(ner_doc([("毒品类型", "冰毒")]), ner_json([("毒品类型", "冰糖")]), tau=0.5)
    assert s.f1_fuzzy == 0.0  # 2 characters < MIN_FUZZY_LEN
    s = scores(ner_doc([("时间", "上午9时")]), ner_json([("时间", "下午9时")]), tau=0.5)
    assert s.f1_fuzzy == 1.0  # 4 characters: allowed, 0.75 ≥ 0.5
    assert ie.MIN_FUZZY_LEN == 4


def greedy_fuzzy(preds, golds, tau):
    """Greedy reference: each prediction in turn takes its most similar unmatched gold."""
    free, hits = list(golds), 0
    for p in preds:
        best = max(free, key=lambda g: Levenshtein.normalized_similarity(p, g), default=None)
        if best is not None and Levenshtein.normalized_similarity(p, best) >= tau:
            free.remove(best)
            hits += 1
    return hits


def test_optimal_assignment_beats_greedy():
    x, y = "东城区滨河路88号如家酒店", "西城区滨江路86号如家酒店"  # gold
    a, b = "东城区滨河路86号如家酒店", "东城区滨河路88号汉庭酒店"  # predictions
    sim = Levenshtein.normalized_similarity
    assert sim(a, x) == pytest.approx(12 / 13) and sim(a, y) == pytest.approx(11 / 13)
    assert sim(b, x) == pytest.approx(11 / 13) and sim(b, y) == pytest.approx(8 / 13)
    assert greedy_fuzzy([a, b], [x, y], 0.8) == 1  # a grabs x, b is left with nothing
    counts = ie.match_entities([("地点", x), ("地点", y)], [("地点", a), ("地点", b)], 0.8)["地点"]
    assert counts == ie.Counts(tp_exact=0, tp_fuzzy=2, n_pred=2, n_gold=2)
    s = scores(ner_doc([("地点", x), ("地点", y)]), ner_json([("地点", a), ("地点", b)]))
    assert (s.f1_exact, s.f1_fuzzy, s.f1) == (0.0, 1.0, 0.5)  # greedy would give f1_fuzzy 0.5, f1 0.25
    assert ie.best_assignment([a, b], [x, y], lambda p, g: sim(p, g) if sim(p, g) >= 0.8 else None) == [(0, 1), (1, 0)]


@pytest.mark.e2e
def test_assignment_without_a_choice_skips_the_solver():
    """Pairs that share no pred and no gold are the matching itself (no solver, scipy not loaded);
    where a pred could go to two golds the solver decides, as before."""
    sims = {(0, 1): 0.9, (2, 0): 0.85}
    lone = ie.best_assignment([0, 1, 2], [0, 1], lambda p, g: sims.get((p, g)))
    assert lone == [(0, 1), (2, 0)]
    shared = {(0, 0): 0.9, (0, 1): 0.95, (1, 1): 0.8}     # pred 0 could take either gold
    assert ie.best_assignment([0, 1], [0, 1], lambda p, g: shared.get((p, g))) == [(0, 0), (1, 1)]
    assert ie.best_assignment([0], [0], lambda p, g: None) == []
    code = ("import sys; from cpsd_tasks import ie; "
            "print(ie.best_assignment(['a', 'b'], ['b', 'a'], lambda p, g: 1.0 if p == g else None), "
            "'scipy.optimize' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.stdout.strip() == "[(0, 1), (1, 0)] False", proc.stderr[-2000:]


def test_empty_gold_rules():
    empty = ner_doc([])
    both_empty = scores(empty, "[]")
    assert (both_empty.precision, both_empty.recall, both_empty.f1) == (1.0, 1.0, 1.0)
    assert (both_empty.f1_exact, both_empty.f1_fuzzy) == (1.0, 1.0)
    extra = scores(empty, ner_json([("人名", "张某")]))
    assert (extra.precision, extra.recall, extra.f1) == (0.0, 0.0, 0.0)
    missing = scores(ner_doc([("人名", "张某")]), "[]")
    assert (missing.precision, missing.recall, missing.f1) == (0.0, 0.0, 0.0)
    # an unparseable answer has no predictions: 1 on an empty document, but counted invalid
    out = ie.process_results(empty, ["对不起，我不能回答。"])
    assert (out["f1"], out["invalid_rate"]) == (1.0, 1.0)


def test_error_classes():
    doc = ner_doc([("人名", "张某"), ("时间", "2021年8月6日上午9时")])
    cls = lambda out: ie.judge(doc, out).error_class  # noqa: E731
    assert cls(ner_json([("人名", "张某"), ("时间", "2021年8月6日上午9时")])) == "correct"
    assert cls(ner_json([("人名", "张某"), ("时间", "2021年8月6日上午9时许")])) == "format"
    assert cls(ner_json([("人名", "张某")])) == "content"
    assert cls("抱歉，我无法回答。") == "refusal"
    assert cls("文中有张某。") == "instruction"


def test_unknown_types_are_false_positives():
    s = scores(ner_doc([("人名", "张某")]), ner_json([("人名", "张某"), ("车辆", "白色轿车")]))
    assert (s.precision, s.recall) == (0.5, 1.0)


def test_re_swapped_head_tail_and_fuzzy_drug_tail():
    doc = re_doc([("汪某", "贩卖给", "张某"), ("汪某", "贩卖毒品", "甲基苯丙胺")])
    swapped = scores(doc, re_json([("张某", "贩卖给", "汪某"), ("甲基苯丙胺", "贩卖毒品", "汪某")]), tau=0.1)
    assert (swapped.f1_exact, swapped.f1_fuzzy, swapped.f1) == (0.0, 0.0, 0.0)
    # drug tail 甲基苯丙胺片 (5/6 similar) matches fuzzily; the person pair is exact
    s = scores(doc, re_json([("汪某", "贩卖给", "张某"), ("汪某", "贩卖毒品", "甲基苯丙胺片")]))
    assert (s.f1_exact, s.f1_fuzzy, s.f1) == pytest.approx((0.5, 1.0, 0.75))
    # person tails (贩卖给/非法容留) and heads never match fuzzily
    doc2 = re_doc([("欧阳某某", "非法容留", "司马某某甲"), ("欧阳某某", "持有", "甲基苯丙胺")])
    s2 = scores(doc2, re_json([("欧阳某某", "非法容留", "司马某某乙"), ("欧阳某甲", "持有", "甲基苯丙胺")]), tau=0.5)
    assert (s2.f1_exact, s2.f1_fuzzy) == (0.0, 0.0)
    # the relation must be equal
    s3 = scores(doc, re_json([("汪某", "非法容留", "张某")]))
    assert s3.f1 == 0.0


def test_doc_average_vs_micro_two_documents():
    d1 = ner_doc([("人名", "张某")])
    d2 = ner_doc([("人名", "李某"), ("人名", "王某"), ("毒品类型", "海洛因")])
    r1 = ie.process_results(d1, [ner_json([("人名", "张某")])])
    r2 = ie.process_results(d2, [ner_json([("人名", "李某")])])
    mean = lambda key: (r1[key] + r2[key]) / 2  # noqa: E731 - the harness's `mean`
    # doc 1: P=R=F1=1; doc 2: P 1, R 1/3, F1 0.5
    assert (mean("precision"), mean("recall"), mean("f1")) == pytest.approx((1.0, 2 / 3, 0.75))
    # pooled: tp 2, pred 2, gold 4 -> P 1, R 0.5, F1 2/3
    assert ie.agg_f1_pooled([r1["f1_micro"], r2["f1_micro"]]) == pytest.approx(2 / 3)
    # per type, pooled: 人名 tp 2 / pred 2 / gold 3 -> 0.8; 毒品类型 gold 1, pred 0 -> 0;
    # 时间 absent from gold and predictions: not measured (NaN), though the pooled rule alone gives 1
    assert ie.agg_f1_type([r1["f1_人名"], r2["f1_人名"]]) == pytest.approx(0.8)
    assert ie.agg_f1_type([r1["f1_毒品类型"], r2["f1_毒品类型"]]) == 0.0
    assert math.isnan(ie.agg_f1_type([r1["f1_时间"], r2["f1_时间"]]))
    assert ie.agg_f1_pooled([r1["f1_时间"], r2["f1_时间"]]) == 1.0
    # the paper's doc-averaged F1 sits below the harmonic mean of its P and R
    p, r = mean("precision"), mean("recall")
    assert mean("f1") < 2 * p * r / (p + r)


def test_process_results_keys_options_and_ugly_outputs():
    doc = ner_doc([("人名", "张某"), ("时间", "2021年8月6日上午9时")])
    out = ie.process_results(doc, ['```json\n[{"type": "人名", "text": "张某"}, '
                                   '{"type": "时间", "text": "2021年8月6日上午9时许"}]\n```'])
    assert out["f1"] == pytest.approx(0.75) and out["score"] == out["f1"]
    assert (out["f1_exact"], out["f1_fuzzy"]) == (0.5, 1.0)
    assert "alpha" not in out and "tau" not in out  # not metrics: they are in the scoring signature
    assert out["f1_micro"] == (1, 2, 2, 2, 0.5)  # a CountItem, logged as a list
    assert {k for k in out if k.startswith("f1_") and k not in ("f1_exact", "f1_fuzzy", "f1_micro")} == {
        "f1_人名", "f1_时间", "f1_地点", "f1_毒品类型", "f1_毒品数量"}
    for bad in (None, "", "<think>还没想完", "x" * 10_000):
        assert ie.process_results(doc, [bad])["f1"] == 0.0
        assert ie.process_results(doc, [bad])["invalid_rate"] == 1.0
    assert ie.process_results(doc, [])["invalid_rate"] == 1.0
    configure("drug_ner", {"alpha": "1", "tau": 0.9})
    out = ie.process_results(doc,
                             ['[{"type": "人名", "text": "张某"}, {"type": "时间", "text": "2021年8月6日上午9时许"}]'])
    assert (out["f1"], out["f1_micro"][4]) == (0.5, 1.0)


def test_doc_to_target_is_the_requested_json():
    doc = re_doc([("汪某", "贩卖给", "张某")])
    assert ie.doc_to_target(doc) == '[{"head": "汪某", "relation": "贩卖给", "tail": "张某"}]'
    assert ie_parse.parse_output(ie.doc_to_target(doc), "drug_re").items == (("贩卖给", "汪某", "张某"),)


# ------------------------------------------------------------------------------------ baseline

def test_baseline_rules_hand_checked():
    text = ("2023年5月9日9时许，报案人陈某到开发区派出所报案称，微信号为sunjz_2023的人让其转账48000元，"
            "陈某拨打13912345678核实。")
    assert [(t, s) for _, _, t, s in sorted(fraud_entities(text))] == [
        ("时间", "2023年5月9日9时"), ("报案人", "陈某"), ("地点", "开发区派出所"), ("社交账号", "sunjz_2023"),
        ("金额", "48000元"), ("报案人", "陈某"), ("电话号码", "13912345678")]
    text = "2022年9月3日14时30分，邓某在东阳市江北街道农贸市场门口将甲基苯丙胺0.8克贩卖给许某。"
    assert [(t, s) for _, _, t, s in sorted(drug_entities(text))] == [
        ("时间", "2022年9月3日14时30分"), ("人名", "邓某"), ("地点", "东阳市江北街道农贸市场门口"),
        ("毒品类型", "甲基苯丙胺"), ("毒品数量", "0.8克"), ("人名", "许某")]
    assert drug_relations(text) == [{"head": "邓某", "relation": "贩卖给", "tail": "许某"},
                                    {"head": "邓某", "relation": "贩卖毒品", "tail": "甲基苯丙胺"}]
    assert json.loads(RULES["drug_re"]({"输入": "王某在家中容留李某、赵某吸食冰毒。"})) == [
        {"head": "王某", "relation": "非法容留", "tail": "李某"},
        {"head": "王某", "relation": "非法容留", "tail": "赵某"}]


def test_demo_data_covers_every_type_with_duplicates():
    for task, key, field in (("drug_ner", "entities", "type"), ("fraud_ner", "entities", "type"),
                             ("drug_re", "relations", "relation")):
        docs = load_task_docs(task)["test"]
        assert 10 <= len(docs) <= 15 and all(d["id"].startswith(f"demo-{task}-") for d in docs)
        seen = {item[field] for d in docs for item in d[key]}
        assert seen == set(ie.get_task(task).labels), task
        if key == "entities":
            assert any(len(d[key]) > len({(e["type"], e["text"]) for e in d[key]}) for d in docs)


@needs_shared_data
def test_fraud_ner_has_no_stand_in_data():
    with pytest.raises(DataError, match="fraud_ner"):
        load_task_docs("fraud_ner", str(SHARED_DATA))


# ------------------------------------------------------------------------------------ end to end

def in_process(task, data_dir=None, alpha=0.5, tau=0.8):
    """Expected task metrics: the baseline rules and our metric applied directly to the docs."""
    configure(task, {"alpha": alpha, "tau": tau})
    docs = load_task_docs(task, data_dir)["test"]
    rows = [ie.process_results(d, [RULES[task]({"输入": d["text"]})]) for d in docs]
    reset_run_configs()
    return {k: (ie.agg_f1_pooled([r[k] for r in rows]) if isinstance(rows[0][k], tuple)
                else sum(r[k] for r in rows) / len(rows))
            for k in rows[0] if not isinstance(rows[0][k], dict)}, len(docs)   # (reading: a record)


def check_run(out, task, expected, n_docs, alpha, tau):
    got = out["results"]["results"][task]
    assert out["results"]["n-samples"][task]["effective"] == n_docs
    for key, value in expected.items():
        assert got[f"{key},none"] == pytest.approx(value, abs=1e-9), key
    assert "alpha,none" not in got and "tau,none" not in got  # α/τ are not metrics ...
    sig = out["results"]["configs"][task]["metadata"]["cpsd_signature"]  # ... but in the signature
    assert (sig["alpha"], sig["tau"], sig["task"], sig["n_test"]) == (alpha, tau, task[len("cpsd_"):], n_docs)
    assert f"|alpha:{alpha}|tau:{tau}" in sig["string"]
    assert got["f1,none"] == pytest.approx(alpha * got["f1_exact,none"] + (1 - alpha) * got["f1_fuzzy,none"])
    assert got["score,none"] == got["f1,none"]
    assert got["invalid_rate,none"] == 0.0


@pytest.mark.e2e
def test_e2e_group_on_demo(baseline_url, hf_home, tmp_path):
    out = run_cpsd_eval("cpsd_ie", baseline_url, tmp_path / "out", hf_home,
                        extra=("--metadata", json.dumps({"alpha": 0.7, "tau": 0.9})))
    f1s = []
    for task in ("drug_ner", "drug_re", "fraud_ner"):
        expected, n = in_process(task, alpha=0.7, tau=0.9)
        check_run(out, f"cpsd_{task}", expected, n, 0.7, 0.9)
        f1s.append(expected["f1"])
        sample = out["samples"][f"cpsd_{task}"][0]
        assert sample["doc"]["data_source"] == "demo"
        assert json.loads(sample["target"])  # the gold JSON
        assert ie_parse.parse_output(sample["resps"][0][0], task).valid
    group = out["results"]["results"]["cpsd_ie"]
    assert group["f1,none"] == pytest.approx(sum(f1s) / 3)
    assert 0.7 < group["f1,none"] < 1.0  # rules do well on the demo but miss places and times


@pytest.mark.e2e
@needs_shared_data
def test_e2e_stand_in_data(baseline_url, hf_home, tmp_path):
    out = run_cpsd_eval("cpsd_drug_ner,cpsd_drug_re", baseline_url, tmp_path / "out", hf_home,
                        data_dir=SHARED_DATA)
    for task in ("drug_ner", "drug_re"):
        expected, n = in_process(task, str(SHARED_DATA))
        assert n == 200
        check_run(out, f"cpsd_{task}", expected, n, 0.5, 0.8)
    ner = out["results"]["results"]["cpsd_drug_ner"]
    assert ner["f1_fuzzy,none"] > ner["f1_exact,none"]  # boundary differences exist on real data
    assert out["samples"]["cpsd_drug_ner"][0]["doc"]["data_source"].endswith("drug_ner/test.jsonl")
