"""The answer readers (issue 11): one table per fault kind found in 34 real LLMs' outputs.

Each table holds inputs of one kind and what a careful human reads from them, worked out by
hand. The option-letter cases of the breaker and held-out rounds are data, one file per rule
(tests/data/reading_cases, read by tests/test_reading_rules.py); the graded real outputs
themselves are checked in tests/test_audit.py.
"""

import itertools
import math

import pytest

from cpsd_tasks import classification, generation, ie, qa
from cpsd_tasks.reading import (extract_choices, fold_traditional, is_clear_refusal, is_refusal, lawbench_rule,
                                normalize,
                                own_turn, read_choices, read_judgement, read_label, strict_label, turns, written_turn)
from cpsd_tasks.reading.labels import unread_label_reason
from cpsd_tasks.reading import ie_names, lexicon
from cpsd_tasks.tasks import TASKS, get_task
from cpsd_tasks.taxonomy import agg_reading

OPTS = {"A": "隋朝", "B": "五代十国时期", "C": "唐朝", "D": "汉朝"}
LAW = {"A": "盗窃罪", "B": "诈骗罪", "C": "抢劫罪", "D": "侵占罪"}


def letters(output, options=OPTS, question=None):
    got = extract_choices(output, options, question)
    return "".join(sorted(got)) if got else None


@pytest.mark.parametrize("output, expected", [
    ("A<eoa>", "A"),
    ("[正确答案]D<eoa>", "D"),
    ("正确答案]D<eoa", "D"),                      # unclosed marker, missing opening bracket
    ("B<|im_end|>", "B"),
    ("B<end>", "B"),
    ("C</s>", "C"),
    ("D<|eot_id|>", "D"),
    ("[正确答案]B[eoa]", "B"),
    ("\n\n[正确答案]：C<eoa>。", "C"),
    ("C<eoa>\n", "C"),
    ("<eoa>", None),
])
def test_letter_then_end_marker(output, expected):
    assert letters(output) == expected


@pytest.mark.parametrize("output, expected", [
    ("【正确答案】B【解析】唐朝实行三省六部制。", "B"),
    ("因此，正确答案是[正确答案]D。", "D"),
    ("正确答案：[正确答案]D<eoa>", "D"),
    ("答案\n[正确答案]C", "C"),
    ("【答案】A", "A"),
    ("[答案]：B", "B"),
])
def test_bracket_between_declaration_and_letter(output, expected):
    assert letters(output) == expected


@pytest.mark.parametrize("output, question, expected", [
    ("只有选项B是对的", None, "B"),
    ("因此，A选项<eoa>是正确的答案。", None, "A"),          # the end marker sits inside the sentence
    ("根据法律规定，下列表示错误的是:C:被告人可以委托辩护人", "下列表示错误的是", "C"),
    ("综上所述，选项A是关于本题的正确表述。", None, "A"),
    ("A项错误，B项正确", None, "B"),
    ("A: 正确。\nB: 错误。\nC: 正确。\nD: 错误。", None, "AC"),    # per-option verdicts
    ("A正确，B错误，C错误，D错误", "下列说法错误的是", "BCD"),  # a "which is wrong" question
    ("甲的行为属于D:汉朝", None, "D"),                      # a letter used as a label after 属于
])
def test_answer_stated_in_a_sentence(output, question, expected):
    assert letters(output, question=question) == expected


@pytest.mark.parametrize("output", [
    "A:B:C:D:",
    "\nA:隋朝;B:五代十国时期;C:唐朝;D:汉朝。",
    "A. 隋朝\nB. 五代十国时期\nC. 唐朝\nD. 汉朝\nA. 隋朝\nB. 五代十国时期\nC. 唐",   # copies cut off
    "A: The Sui dynasty\nB: The Five Dynasties\nC: The Tang dynasty\nD: The Han dynasty",
    "[正确答案]A:隋朝;B:五代十国时期;C:唐朝;D:汉朝。",          # an answer slot holding the list
    "1.A 2.B 3.C 4.D 5.A 6.B 7.C 8.D",
    "A. 正确答案：B\nB. 正确答案：C\nC. 正确答案：A\nD. 正确答案：D",  # a garbage mapping
    "下列朝代中最早实行科举的是?A:隋朝;B:五代十国时期;C:唐朝;D:汉朝。",  # the question restated
    "请你运用法律知识从A,B,C,D中选出一个正确的答案，并写在[正确答案]和<eoa>之间。例如[正确答案]A<eoa>。"
    "请你严格按照这个格式回答。",                                   # the instruction echoed
    "A:隋朝\nB:五代十国时期\nC:唐朝\nD:汉朝\n请你运用法律知识从A,B,C,D中选出一个正确的答案，并写在"
    "[正确答案]和<eoa>之间。例如[正确答案]A<eoa>。请你严格按照这个格式回答。下列朝代…答案：A:隋朝",
])
def test_restated_options_are_not_answers(output):
    assert letters(output) is None


def test_restatement_before_the_declared_label_does_not_count():
    rumor = get_task("rumor")
    j = classification.judge("题目要求判断是谣言还是非谣言。结论：谣言", "谣言", rumor)
    assert (j.fuzzy, j.error_class) == ("谣言", "format")
    assert read_label("题目要求判断是谣言还是非谣言。", rumor.labels) is None


@pytest.mark.parametrize("output, expected", [
    ("AC两项", "AC"),
    ("AC两项正确", "AC"),
    ("答案：A, B and C", "ABC"),
    ("Answer: A, C and D", "ACD"),
    ("[正确答案]C<eoa>\nD<eoa>", "CD"),                      # a bare letter turn adds to the first
    ("[正确答案]C<eoa>\n[正确答案]D<eoa>", "D"),             # a second declaration: the last wins
    ("[正确答案]：B<eoa>\n\n[正确答案]：B<eoa>\n\n[正确答案]：D<eoa>", "D"),   # (graders: corrected)
    ("[正确答案]A<eoa>\n[正确答案]B<eoa>\n[正确答案]C<eoa>", "ABC"),   # one slot per option: a template
    ("【答案】A\n【解析】甲\n【答案】B\n【解析】乙\n【答案】C\n【解析】丙\n【答案】D", None),  # every letter: recited
])
def test_several_choices(output, expected):
    assert letters(output) == expected


@pytest.mark.parametrize("output, expected", [
    ("答案：b", "B"),
    ("b", "B"),
    ("b. 诈骗罪", "B"),
    ("答案：a、c", "AC"),
    ("The answer is B because a car moves", "B"),
    ("The answer is b", "B"),
    ("The answer is a car", None),                           # an English word is no option
    ("I think a lot about this", None),
])
def test_lowercase_letters(output, expected):
    assert letters(output, LAW) == expected


@pytest.mark.parametrize("output, expected", [
    ("$\\boxed{C}$", "C"),
    ("\\boxed{AC}", "AC"),
    ("$\\boxed{\\text{B}}$", "B"),
    ("答案：$B$", "B"),
    ("$\\mathrm{A}$", "A"),
    ("所以最终答案为 $\\boxed{\\mathrm{D}}$。", "D"),
])
def test_latex(output, expected):
    assert letters(output) == expected


@pytest.mark.parametrize("output, expected", [
    ("答案不是B，而是D", "D"),
    ("不是B，是D", "D"),
    ("A项错误，B项也错误，正确的是D", "D"),
    ("不选C，应选A", "A"),
    ("答案是A……更正：答案是B", "B"),
])
def test_ruled_out_distractor(output, expected):
    assert letters(output) == expected


@pytest.mark.parametrize("output, expected", [
    ("B<eoa>\n<human>: 下一题是什么？\n<bot>: 答案：C", "B"),
    ("答案：B\n\n问题：下列哪个朝代最晚？A:秦 B:汉 C:唐 D:宋\n答案：D", "B"),
    ("正确答案:B<eoa>\n\n《宪法》第十三条规定的是:A:甲;B:乙;C:丙;D:丁。\n正确答案:C<eoa>",
     "B"),  # an invented next question
    ("### Human: 再来一题\n### Assistant: A", None),          # the only answer is in an invented turn
    ("案件：某甲盗窃一案。\n[正确答案]：B<eoa>", None),        # under a case the model made up
])
def test_invented_follow_up_turns(output, expected):
    question = "下列朝代中最早实行科举制度的是哪一个?"
    assert letters(output, question=question) == expected


@pytest.mark.parametrize("output, expected", [
    # an invented question whose options follow on the same line, after this question's answer
    ("正确答案：A\n\n下列哪个朝代统一了六国？B:秦朝；C:晋朝；D:宋朝。\n正确答案：B", "A"),
    ("正确答案：C:唐朝。\n\n下列哪个朝代最晚？A:元朝；B:明朝；C:清朝。\n正确答案：C:清朝。\n正确答案：A", "C"),
])
def test_invented_question_with_inline_options(output, expected):
    assert letters(output, question="下列朝代中最早实行科举制度的是哪一个?") == expected


DYNASTIES = "下列朝代中，说法正确的有"
@pytest.mark.parametrize("output", [
    # the option list copied again and again, cut off after the next copy's first label
    "A:隋朝;B:五代十国时期;C:唐朝;D:汉朝。\nA:隋朝;B:五代十国时期;C:唐朝;D:汉朝。\nA",
    # the question restated with its options: "…说法正确的有A:隋朝;" is no declaration
    "1. 下列朝代中，说法正确的有A:隋朝;\n2. 五代十国时期;\n3. 唐朝;\n4. 汉朝。\n这些朝代各有特点。",
    # every option discussed in turn, the first line being option A with its text
    "A:隋朝; 隋朝历时较短。隋朝开创了科举。B:五代十国时期，战乱频繁。C:唐朝，国力强盛。D:汉朝，历时较长。",
])
def test_copied_or_walked_through_options_are_no_answer(output):
    assert letters(output, question=DYNASTIES) is None


@pytest.mark.parametrize("output", [
    # letters and a space opening lines, each with some text: a list, not answer A
    "A 隋朝开科举\nB 五代十国时期战乱\nC 唐朝沿用\nD 汉朝察举",
    # end markers where the labels were: "…?<eoa>:<option A's text>;<eoa>:<option B's text>…"
    "下列朝代中，说法正确的有?A:隋朝;B:五代十国时期;C:唐朝;D:汉朝。\n"
    "下列朝代中，说法正确的有?<eoa>:隋朝;<eoa>:五代十国时期;<eoa>:唐朝。",
])
def test_lists_without_usual_labels_are_no_answer(output):
    assert letters(output, question=DYNASTIES) is None


@pytest.mark.parametrize("output, expected", [
    # end markers separating the items of a copied list: no answer …
    ("请你选出正确的答案。\n[正确答案]A:隋朝;\n[eoa]B:五代十国时期;\n[eoa]C:唐朝;\n[eoa]D:汉朝。", None),
    # … unless the list is followed by a declaration
    ("下列朝代中，说法正确的有?A:隋朝。<eoa>B:五代十国时期。<eoa>C:唐朝。<eoa>D:汉朝。<eoa>本题答案为C。", "C"),
    # the same option labelled both the correct answer and a wrong statement: contradictory, none
    ("正确答案: A: 隋朝。\n\n错误说法: B: 五代十国时期。\n\n正确答案: C: 唐朝。\n\n"
     "错误说法: A: 隋朝。\n\n正确答案: B: 五代十国时期。", None),
    # …whereas "错误说法是D" answers a question asking for the wrong statement
    ("错误说法是D。理由如下。", "D"),
])
def test_end_markers_in_lists_and_contradictory_labels(output, expected):
    assert letters(output, question=DYNASTIES) == expected


def test_each_option_concluded_in_turn_is_no_answer():
    """Every option gets its own "因此…" sentence: the last one is the last option's discussion."""
    output = ("A:甲定盗窃罪。根据规定，因此，甲定盗窃罪。\nB:甲定诈骗罪。根据规定，因此，甲定诈骗罪。\n"
              "C:甲定抢劫罪。根据规定，因此，甲定抢劫罪。\nD:甲定侵占罪。根据规定，因此，甲定侵占罪。")
    options = {"A": "甲定盗窃罪", "B": "甲定诈骗罪", "C": "甲定抢劫罪", "D": "甲定侵占罪"}
    assert letters(output, options, question="对甲的行为，下列选项正确的是:") is None
    # …whereas a conclusion after the list still names the answer
    concluded = output + "\n综上，本案中甲定诈骗罪是正确的。"
    assert letters(concluded, options, question="对甲的行为，下列选项正确的是:") == "B"


CRIMES = {"A": "甲指使乙作伪证", "B": "甲煽动他人分裂国家", "C": "甲教唆乙贩卖毒品", "D": "甲指使丙殴打丁"}


@pytest.mark.parametrize("output, question, expected", [
    # a verdict right after each option's own text, on a question asking for the wrong one
    ("A:甲指使乙作伪证是错误的。理由一。\nB:甲煽动他人分裂国家是正确的。理由二。\nC:甲教唆乙贩卖毒品是错误的。",
     "下列说法错误的是:", "AC"),
    # the question's own predicate after each option's text
    ("A:甲指使乙作伪证属于教唆犯。\n\nB:甲煽动他人分裂国家属于教唆犯。\n\nC:甲教唆乙贩卖毒品属于教唆犯。",
     "下列哪种情形属于教唆犯?", "ABC"),
    ("A:甲指使乙作伪证不属于教唆犯。\nC:甲教唆乙贩卖毒品属于教唆犯。", "下列哪种情形属于教唆犯?", "C"),
    ("A:甲指使乙作伪证是违法的。\nB:甲煽动他人分裂国家是合法的。", "下列哪一条是违法的?", "A"),
    ("不符合相关规定。\n\nA: 甲指使乙作伪证，符合相关规定。\n\nB: 甲煽动他人分裂国家，不符合相关规定。",
     "下列哪项做法符合相关规定?", "A"),
    # a header asserting a verdict on the options listed under it (explanations may come between)
    ("根据法律，下列说法是正确的：\n\nA: 甲指使乙作伪证。\n\nB: 甲煽动他人分裂国家。\n\n因此，下列说法是错误的：\n\n"
     "B: 甲煽动他人分裂国家。\n\n因为……", "下列说法错误的是:", "B"),
    ("下列表述是不正确的：\n\nA: 甲指使乙作伪证。\n\n理由一。\n\nB: 甲煽动他人分裂国家。\n\n理由二。",
     "下列哪些表述是不正确的?", "AB"),
    # …but a verdict naming one option outranks the header's list
    ("下列选项表述是错误的：\n\nA: 甲指使乙作伪证。\n\nB: 甲煽动他人分裂国家。\n\n因此，选项A表述错误。",
     "下列哪一选项表述是错误的?", "A"),
    # the question's own form ("下列说法错误的是：") over a copied list is no verdict
    ("下列说法错误的是：\nA: 甲指使乙作伪证。\nB: 甲煽动他人分裂国家。", "下列说法错误的是:", None),
    # the option's text followed by more words is no verdict on it
    ("A:甲指使乙作伪证是错误的行为人所为。\nB:甲煽动他人分裂国家是正确的理由之一。", "下列说法错误的是:", None),
])
def test_verdict_after_an_options_own_text(output, question, expected):
    assert letters(output, CRIMES, question=question) == expected


def test_question_restated_then_answered_counts():
    question = "下列朝代中最早实行科举制度的是哪一个?"
    assert letters("题目：下列朝代中最早实行科举制度的是哪一个？\n答案：A", question=question) == "A"


def test_turns_split_at_markers():
    assert turns("A<eoa>B</s>C") == ["A", "B", "C"]
    assert turns("<bot>: A") == [": A"]                       # a role marker first names the speaker
    assert own_turn("谣言<eoa>\n<human>: 下一题") == "谣言"
    assert own_turn("<eoa>") == ""
    # an answer head left open before a marker: the next piece fills the slot (reader 8)
    assert own_turn("答案：<eoa>谣言<eop>") == "答案:谣言<eop>"                 # (NFKC: full-width colon folded)
    assert own_turn("？\n回答：\n<eoa>非谣言<eoa>下一题") == "?\n回答:\n非谣言"
    assert own_turn("[类别]<eoa>婚姻家庭") == "[类别]"              # the asked "[类别]X<eoa>" left empty
    assert own_turn("答案：<eoa>   <eoa>") == "答案:"            # nothing in the next piece: the head alone
    assert own_turn("我的答案<eoa>谣言") == "我的答案"             # no colon: not an open slot


TOPICS = ("诉讼主体", "租金情况", "利息", "本金争议", "责任认定", "责任划分")


@pytest.mark.parametrize("output, expected", [
    ("答案：<eoa>利息<eop>。", "利息"),
    ("？\n\n回答：\n<eoa>责任认定<eop>您好，根据您的问题…", "责任认定"),
    ("问题：请指出句子的争议焦点类别。\n\n答案：<eoa>本金争议<eop>。\n\n句子：…", "本金争议"),
    ("答案：<eoa>\n\n解题思路：先看句子", None),                 # the slot stays empty
    ("综上。\n答案:<eoa>责任认定<eop>责任划分<eoa>原告诉称", None),  # a list after the head: two labels
    ("综上。\n答案：责任认定\n责任划分", None),
    ("综上。\n答案：责任认定\n责任认定", "责任认定"),               # the same label twice is one
    ("综上。\n答案：租金情况。", "租金情况"),
])
def test_open_answer_slot_and_label_lists_after_a_head(output, expected):
    assert read_label(output, TOPICS) == expected


@pytest.mark.parametrize("output, expected, why", [
    ("诉讼主体：本案中双方都是诉讼主体。\n\n租金情况：关于租金存在争议。\n\n利息：原审判决支付利息。", None,
     "labels as the headings of a form"),
    ("争议焦点类别： 诉讼主体：原告、被告 责任认定：被告 责任划分：被告", None, "labels as the headings of a form"),
    ("利息：\n借款利息如何计算？\n本金争议：\n本金是否已还？\n责任认定：\n谁负责？", None,
     "labels as the headings of a form"),
    ("诉讼主体：无\n答案：利息", "利息", None),              # one field name, then the answer
    ("诉讼主体：无。利息：有争议。", None, None),              # two headings: no form, but two labels named
])
def test_labels_as_headings_of_a_form(output, expected, why):
    assert read_label(output, TOPICS) == expected
    if why:
        assert unread_label_reason(output, TOPICS) == why


@pytest.mark.parametrize("output", ["不便回答", "无法提供相关信息", "抱歉，我不便回答这个问题。", "我不方便透露。"])
def test_refusals_in_every_task(output):
    assert is_refusal(output) and is_clear_refusal(output)
    assert classification.judge(output, "诈骗", get_task("fraud_detection")).error_class == "refusal"
    assert qa.judge_reading(output, "张三", "精确").error_class == "refusal"
    assert qa.judge_reading(output, "否", "判断").error_class == "refusal"
    assert qa.judge_exam(output, "A", "单选", LAW).error_class == "refusal"
    doc = {"task": "drug_ner", "id": "x", "text": "t", "entities": [{"type": "人名", "text": "张三"}]}
    assert ie.judge(doc, output).error_class == "refusal"


def test_traditional_characters_are_folded():
    incident = get_task("incident_classification")
    assert classification.judge("電信詐騙", "电信诈骗", incident).error_class == "correct"
    assert strict_label("答案：電信詐騙", incident.labels) == "电信诈骗"
    assert qa.judge_reading("張三", "张三", "精确").correct
    assert qa.judge_reading("張三、李四", "李四，张三", "精确").correct
    doc = {"task": "drug_ner", "id": "x", "text": "t", "entities": [{"type": "人名", "text": "张三"}]}
    assert ie.judge(doc, '[{"type": "人名", "text": "張三"}]').scores.f1 == 1.0
    assert fold_traditional("電信詐騙 張三 後來") == "电信诈骗 张三 后来"


def test_simplified_labels_are_fixed_points_of_the_folding():
    for spec in TASKS.values():
        for form in (*spec.labels, *spec.aliases):
            assert fold_traditional(form) == form, form
    for form in (*lexicon.EXAM_TF_SHORT, *lexicon.READING_JUDGE_SHORT, *lexicon.EXAM_TF_ALIASES,
                 *lexicon.READING_JUDGE_ALIASES):
        assert fold_traditional(form) == form, form


@pytest.mark.parametrize("output", ["。", "……", "  ！！ ", "<eoa>", "***", "。<eoa>", "<think>草稿</think>……"])
def test_punctuation_only_generation_scores_zero(output):
    doc = {"task": "case_summary", "id": "s", "text": "案情", "reference": "某人盗窃财物被抓获。"}
    out = generation.process_results(doc, [output])
    assert out["empty_rate"] == 1.0
    assert all(out[name] == 0.0 for name in generation.TEXT_METRICS)
    assert out["bertscore_f1"][1] == ""                      # BERTScore scores an empty candidate 0
    assert out["reading"]["answer"] is None


def test_generation_scores_the_models_own_turn():
    assert written_turn("某人盗窃财物被抓获。<eoa>\n<human>: 再写一条") == "某人盗窃财物被抓获。"
    doc = {"task": "case_summary", "id": "s", "text": "案情", "reference": "某人盗窃财物被抓获。"}
    out = generation.process_results(doc, ["某人盗窃财物被抓获。<eoa>\n<human>: 再写一条摘要"])
    assert out["rougeL_char"] == pytest.approx(1.0) and out["reading"]["cut"] is True


@pytest.mark.parametrize("a, b", [(".5克", "5克"), (".5万元", "5万元"), ("-3", "3"), ("+86 138", "86 138")])
def test_normalisation_never_changes_a_number(a, b):
    assert normalize(a) != normalize(b)
    assert ie_names.norm_text(a) != ie_names.norm_text(b)


def test_ie_exact_amounts_keep_their_decimal_point():
    doc = {"task": "drug_ner", "id": "x", "text": "t", "entities": [{"type": "毒品数量", "text": "5克"}]}
    assert ie.judge(doc, '[{"type": "毒品数量", "text": ".5克"}]').scores.f1_exact == 0.0
    assert ie.judge(doc, '[{"type": "毒品数量", "text": "5克"}]').scores.f1_exact == 1.0


@pytest.mark.parametrize("output, expected", [
    ("\nA:隋朝\n\nB:五代十国时期\n\nC:唐朝\n\nD:汉朝\n\n最早实行科举的朝代是隋朝。", "A"),   # by content
    ("五代十国时期", "B"),                                       # the option's own text
    ("\n1. 唐朝。\n2. 唐朝。唐朝。\n3. 唐", "C"),                     # nothing but one option, repeated
    ("因此，隋朝不是正确答案，汉朝也不是。", None),                     # named and denied
    ("分析：隋、唐两朝都实行过。", None),                              # no commitment: nothing guessed
])
def test_answer_by_the_options_own_text(output, expected):
    assert letters(output, question="最早实行科举的朝代是?") == expected


def test_nothing_is_guessed():
    for output in ("", None, "   ", "我不知道", "这道题考查科举制度的起源。", "APP和GPS都不是选项"):
        reading = read_choices(output, OPTS)
        assert reading.letters is None and reading.turn is None


def test_lawbench_rule_for_comparison():
    assert lawbench_rule("[正确答案]B<eoa>") == "B"
    assert lawbench_rule("A:隋朝;B:五代十国时期") == "AB"
    assert lawbench_rule("") is None


def test_reading_is_in_every_sample_record():
    exam = {"task": "police_exam", "id": "e", "question": "q", "qtype": "单选", "answer": "B",
            "options": [{"key": k, "text": v} for k, v in LAW.items()]}
    rec = qa.process_results(exam, ["[正确答案]B<eoa>"])["reading"]
    # end markers and a bracketed declaration are not content: "[正确答案]B<eoa>" is the bare letter
    assert rec == {"answer": "B", "class": "correct", "refused": False, "qtype": "单选", "truncated": False,
                   "rule": "declared"}
    rec = qa.process_results(exam, ["我选B，因为诈骗罪以非法占有为目的"])["reading"]
    assert (rec["answer"], rec["class"]) == ("B", "format")
    clf = {"task": "rumor", "id": "r", "text": "t", "label": "谣言"}
    rec = classification.process_results(clf, ["不便回答"])["reading"]
    assert (rec["answer"], rec["class"], rec["refused"]) == (None, "refusal", True)
    doc = {"task": "drug_ner", "id": "x", "text": "t", "entities": [{"type": "人名", "text": "张三"}]}
    rec = ie.process_results(doc, ['[{"type": "人名", "text": "张三"}]'])["reading"]
    assert rec["answer"] == [["人名", "张三"]] and rec["class"] == "correct"
    assert agg_reading([{"answer": "B"}, {"answer": None}, {"answer": [["人名", "张三"]]}, {"answer": None}]) == 0.5
    assert math.isnan(agg_reading([]))


# Inputs that once made a reader quadratic (each found by breaking the reader on purpose): long
# whitespace, newline, `$` and fence runs before a declaration, a question looping with its
# options, repeated question markers and headers. Checked by growth (time at n vs 4n), never by
# seconds (tests/growth.py).
SLOW_ONCE = {
    "whitespace run": lambda n: "答案" + " " * n + "B",
    "newlines": lambda n: "\n" * n,
    "dollars": lambda n: "$" * n,
    "fence lines": lambda n: ("```\n" * n)[:n],
    "question sentences": lambda n: ("这是什么?\n" * n)[:n],
    "looping question": lambda n: ("下列关于拘留的说法哪项正确？\nA. 三个月\nB. 五个月\nC. 六个月\nD. 一年\n" * n)[:n],
    "question markers": lambda n: ("题目：根据治安管理处罚法，下列说法正确的是\n" * n)[:n],
    "headers": lambda n: ("【问题】〖指令〗\n" * n)[:n],
    "labels with no sentence end": lambda n: ("A:三个月B:五个月" * n)[:n],
    "verdict after each option": lambda n: ("A:三个月是错误的。\nB:五个月是正确的。\n" * n)[:n],
    "answer turns": lambda n: ("[正确答案]A<eoa>\n[正确答案]B<eoa>\n" * n)[:n],
    # many different letter-list lines, each three times (the echo check searched the text per line)
    "repeated letter lists": lambda n: "\n".join(line for line in LETTER_LISTS for _ in range(3))[:n],
    "declarations on one line": lambda n: ("选D，" * n)[:n],
    # an opening sentence made of option texts only (segmented by dynamic programming, no recursion)
    "option texts in one sentence": lambda n: ("三个月五个月" * n)[:n],
    # this question restated after a declaration that reads nothing (each copy re-read the text before it)
    "restated questions after an empty declaration": lambda n: (
        "答案：A、B、C、D中的一个\n" + "下列说法正确的是?\nA:三个月\nB:五个月\n" * n)[:n],
    # declared lists ending before the last option (the rest of the output was normalised per list)
    "declared lists ending before the last option": lambda n: ("正确的做法应该是A:三个月;B:五个月;C:六个月。" * n)[:n],
}
FOUR = {"A": "三个月", "B": "五个月", "C": "六个月", "D": "一年"}
LETTER_LISTS = [p[0] + a + p[1] + b + p[2] + c + p[3] for p in itertools.permutations("ABCD")
                for a, b, c in itertools.product(" ,、，和及与/;；&+", repeat=3)]   # 41,472 different lines


def _read_everything(text):
    read_choices(text, FOUR, "下列说法正确的是?")
    read_judgement(text, ("是", "否", "未知"), lexicon.READING_JUDGE_ALIASES, lexicon.READING_JUDGE_SHORT)
    classification.judge(text, "谣言", get_task("rumor"))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["repeated letter lists", "declarations on one line"])
def test_choice_reader_stays_linear_at_larger_sizes(name):
    """These two were quadratic with a small constant (1.8 s at 23,000 characters, 30 s at 92,000):
    measured at 20,000 vs 80,000 characters, where a quadratic term shows."""
    from growth import BOUND, growth_ratio

    assert growth_ratio(lambda text: read_choices(text + "\n答案：D", FOUR), SLOW_ONCE[name], 20_000) < BOUND


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SLOW_ONCE))
def test_readers_stay_linear_on_inputs_that_were_quadratic(name):
    from growth import BOUND, growth_ratio

    assert growth_ratio(_read_everything, SLOW_ONCE[name], 5000) < BOUND


@pytest.mark.slow
def test_text_followed_by_the_questions_words_stays_linear_with_a_long_question():
    """An opening compared with the question's last words (options' texts, then the stem's ending):
    when both end in one repeated character every split was tried, O(opening × stem) (8.8 s for
    16,000 characters after a 300-character ending); at most five are tried now. Output and
    question grow together here, so the old cost shows as quadratic growth."""
    from growth import BOUND, growth_ratio

    people = {"A": "甲", "B": "乙", "C": "丙", "D": "丁"}
    assert growth_ratio(lambda pair: read_choices(pair[0], people, pair[1]),
                        lambda n: ("甲" * n, "下列哪一项" + "甲" * (n // 4)), 2000) < BOUND


@pytest.mark.slow
def test_an_option_line_of_many_open_brackets_before_a_tag_stays_linear():
    """Whether a tag ("A.裁定再审 【正确答案】") sits inside a bracket of other words was searched from every open
    bracket of the line to its end (1.2 s at 20,000 characters); now each bracket's search stops at the next."""
    from growth import BOUND, growth_ratio

    retrial = {"A": "裁定再审", "B": "决定再审", "C": "裁定不予受理", "D": "裁定驳回申请"}
    assert growth_ratio(lambda text: read_choices(text, retrial, "问?"),
                        lambda n: "A." + "（甲" * (n // 2) + "）【正确答案】\nB.决定再审\nC.裁定驳回申请\nD.通知驳回",
                        5000) < BOUND


@pytest.mark.slow
def test_a_question_of_many_interrogatives_stays_linear():
    """The interrogative taken for a blank ("…应当报哪个机关批准?") must end the question: that was checked to
    the question's end from every 哪一/哪个 (1.1 s at 10,000 characters, 4.7 s at 20,000); now within 24
    characters of it."""
    from growth import BOUND, growth_ratio

    people = {"A": "甲", "B": "乙", "C": "丙", "D": "丁"}
    assert growth_ratio(lambda question: read_choices("答案：甲", people, question),
                        lambda n: "哪一" * (n // 2) + "x", 5000) < BOUND


CRIME = {"A": "盗窃罪", "B": "诈骗罪", "C": "抢劫罪", "D": "侵占罪"}
CRIME_Q = "甲将代为保管的乙的手表据为己有，拒不退还，甲的行为构成何罪？"


def test_an_opening_answer_negated_10k_characters_later_is_no_answer():
    long = ("甲的行为是否构成诈骗罪？诈骗罪要求行为人虚构事实、隐瞒真相。" + "本案中，甲并没有实施欺骗行为。" * 300
            + "综上所述，甲的行为不构成诈骗罪。")
    assert len(long) > 4000 and letters(long, CRIME, CRIME_Q) is None
    assert letters("甲的行为构成诈骗罪。" + "本案中，甲虚构了事实。" * 300, CRIME, CRIME_Q) == "B"


@pytest.mark.parametrize("output, task, gold, expected", [
    ("这是诈骗吗？不是", "fraud_detection", "正常", None),         # a question names no label
    ("没有诈骗风险", "fraud_detection", "正常", "正常"),
    ("未发现诈骗迹象", "fraud_detection", "正常", "正常"),
    ("不像谣言", "rumor", "非谣言", "非谣言"),
    ("标签：谣言/非谣言", "rumor", "谣言", None),                  # the label list echoed
    ("类别：盗窃/电信诈骗/交通事故/故意伤害", "incident_classification", "盗窃", None),
])
def test_label_reader_breaker_findings(output, task, gold, expected):
    assert classification.judge(output, gold, get_task(task)).fuzzy == expected


def test_span_denial_and_ie_own_turn():
    assert not qa.fuzzy_span_match("不是北京市海淀区", "北京市海淀区")
    assert qa.fuzzy_span_match("北京市海淀区", "北京市海淀区")
    doc = {"task": "drug_ner", "id": "x", "text": "t", "entities": [{"type": "人名", "text": "张三"}]}
    parsed = ie.judge(doc, "人名：张三<eoa>人名：李四").parsed
    assert parsed.items == (("人名", "张三"),)
    parsed = ie.judge(doc, "人名：张三\n### Human: 下一段\n人名：李四").parsed
    assert parsed.items == (("人名", "张三"),)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SLOW_ONCE))
def test_the_several_answer_reading_stays_linear(name):
    """The output rules that run only for several answers (``multi=True``: letter groups, all judged right,
    options named by their texts, a letter above a copy) on the inputs that were quadratic once."""
    from growth import BOUND, growth_ratio

    assert growth_ratio(lambda text: read_choices(text, FOUR, "下列哪些说法正确？", multi=True), SLOW_ONCE[name],
                        5000) < BOUND
