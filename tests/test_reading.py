"""The answer reader (issue 11): one table per fault kind found in 34 real LLMs' outputs.

Each table holds inputs of one kind and what a careful human reads from them, worked out by
hand. The graded real outputs themselves are checked in tests/test_audit.py.
"""

import itertools
import math

import pytest

from cpsd_tasks import classification, generation, ie, qa
from cpsd_tasks.reading import (extract_choices, fold_traditional, is_clear_refusal, is_refusal, lawbench_rule, normalize,
                                own_turn, read_choices, read_judgement, read_label, strict_label, turns, written_turn)
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
    ("【答案】A\n【解析】甲\n【答案】B\n【解析】乙\n【答案】C\n【解析】丙\n【答案】D", "ABCD"),  # template
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
    ("正确答案:B<eoa>\n\n《宪法》第十三条规定的是:A:甲;B:乙;C:丙;D:丁。\n正确答案:C<eoa>", "B"),  # an invented next question
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
    "下列朝代中，说法正确的有?A:隋朝;B:五代十国时期;C:唐朝;D:汉朝。\n下列朝代中，说法正确的有?<eoa>:隋朝;<eoa>:五代十国时期;<eoa>:唐朝。",
])
def test_lists_without_usual_labels_are_no_answer(output):
    assert letters(output, question=DYNASTIES) is None


@pytest.mark.parametrize("output, expected", [
    # end markers separating the items of a copied list: no answer …
    ("请你选出正确的答案。\n[正确答案]A:隋朝;\n[eoa]B:五代十国时期;\n[eoa]C:唐朝;\n[eoa]D:汉朝。", None),
    # … unless the list is followed by a declaration
    ("下列朝代中，说法正确的有?A:隋朝。<eoa>B:五代十国时期。<eoa>C:唐朝。<eoa>D:汉朝。<eoa>本题答案为C。", "C"),
    # the same option labelled both the correct answer and a wrong statement: contradictory, none
    ("正确答案: A: 隋朝。\n\n错误说法: B: 五代十国时期。\n\n正确答案: C: 唐朝。\n\n错误说法: A: 隋朝。\n\n正确答案: B: 五代十国时期。", None),
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
    ("下列表述是不正确的：\n\nA: 甲指使乙作伪证。\n\n理由一。\n\nB: 甲煽动他人分裂国家。\n\n理由二。", "下列哪些表述是不正确的?", "AB"),
    # …but a verdict naming one option outranks the header's list
    ("下列选项表述是错误的：\n\nA: 甲指使乙作伪证。\n\nB: 甲煽动他人分裂国家。\n\n因此，选项A表述错误。", "下列哪一选项表述是错误的?", "A"),
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
    for form in (*lexicon.EXAM_TF_SHORT, *lexicon.READING_JUDGE_SHORT, *lexicon.EXAM_TF_ALIASES, *lexicon.READING_JUDGE_ALIASES):
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


@pytest.mark.parametrize("output, question, expected", [
    # each copy of the options carries another answer: none of them is the answer
    ("A:甲\nB:乙\nC:丙\nD:丁\n答案：B\nA:甲\nB:乙\nC:丙\nD:丁\n答案：D\nA:甲\nB:乙\nC:丙\nD:丁\n答案：D", None, None),
    # a numbered answer key for many questions is no answer
    ("\n".join(f"{n}. 答案：{'ABCD'[(n - 1) % 4]}" for n in range(1, 21)), None, None),
    # …but an answer slot per option in turn, unnumbered, is all of them
    ("\n".join(f"[正确答案]{'CADB'[n % 4]}" for n in range(12)), None, "ABCD"),
    # the same label prefix on every line: the declarations are real, the last one wins
    ("A: The correct answer is B.\nA: The correct answer is C.\nA: The correct answer is B.", None, "B"),
    # an answer, then a new question posed with its own options and answer
    ("正确答案：C\n\n解释：……\n\n请从以下选项中选择一个与“权利”相符的答案：\nA.权利\nB.义务\n正确答案：D", None, "C"),
    # an answer slot followed by bracketed labels with their texts: a copied list
    ("【答案】：【A】：甲说法。【B】：乙说法。【C】：丙说法。【D】：丁说法。", None, None),
    # verdicts in English, and 符合规定 as a verdict
    ("A is incorrect.\nB is incorrect.\nC is correct.\nD is incorrect.", None, "C"),
    ("因此，A选项符合法律规定；B选项不符合法律规定；C选项不符合法律规定。", None, "A"),
    # the echoed instruction "请你选择A,B,C,D中的一个正确答案…" is no answer
    ("A:甲\nB:乙\nC:丙\nD:丁\n请你选择A,B,C,D中的一个正确答案，并写在[正确答案]和<eoa>之间。例如[正确答案]A<eoa>。"
     "请你严格按照这个格式回答。", None, None),
])
def test_kinds_found_in_held_out_samples(output, question, expected):
    assert letters(output, {"A": "甲", "B": "乙", "C": "丙", "D": "丁"}, question) == expected


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
                        lambda n: "A." + "（甲" * (n // 2) + "）【正确答案】\nB.决定再审\nC.裁定驳回申请\nD.通知驳回", 5000) < BOUND


@pytest.mark.slow
def test_a_question_of_many_interrogatives_stays_linear():
    """The interrogative taken for a blank ("…应当报哪个机关批准?") must end the question: that was checked to
    the question's end from every 哪一/哪个 (1.1 s at 10,000 characters, 4.7 s at 20,000); now within 24
    characters of it."""
    from growth import BOUND, growth_ratio

    people = {"A": "甲", "B": "乙", "C": "丙", "D": "丁"}
    assert growth_ratio(lambda question: read_choices("答案：甲", people, question),
                        lambda n: "哪一" * (n // 2) + "x", 5000) < BOUND


@pytest.mark.parametrize("output, expected", [
    # found by breaking the reader on purpose (false credit before)
    ("抱歉，我无法判断是A还是B", None),
    ("作为AI，我不能确定答案是否为B", None),
    ("我无法确定，可能是A也可能是B。", None),
    ("不能选A。", None),
    ("我不会选A。", None),
    ("选A是错误的", None),
    ("很多考生误选A。", None),
    ("答案：除了A都对", None),
    ("答案是A和B都错", None),
    ("正确答案：ABCD中没有正确答案", None),
    ("答案：C还是D？", None),
    ("<|im_start|>assistant\nB", "B"),                       # the model's own role marker
    ("答案：B（错误）", "B"),                                  # still an answer to "…错误的是"
    ("A:三个月\nB:五个月\n【C】六个月\nD", None),                # bracketed label, then the next one cut off
    ("【A】三个月\n【B】五个月", None),                           # (the first raised TypeError before)
])
def test_breaker_findings(output, expected):
    assert letters(output, FOUR) == expected


CRIME = {"A": "盗窃罪", "B": "诈骗罪", "C": "抢劫罪", "D": "侵占罪"}
CRIME_Q = "甲将代为保管的乙的手表据为己有，拒不退还，甲的行为构成何罪？"
CONTRACT = {"A": "限制民事行为能力人订立的纯获利益的合同有效", "B": "无权代理订立的合同一律无效",
            "C": "恶意串通损害他人利益的合同无效", "D": "违反强制性规定的合同并非一律无效"}
CONTRACT_WRONG, CONTRACT_RIGHT = "下列关于合同效力的说法，错误的是？", "下列关于合同效力的说法，正确的是？"
CONTRACT_LIST = "\n".join(f"{k}:{v}" for k, v in CONTRACT.items())


@pytest.mark.parametrize("output, options, question, expected", [
    # found by breaking the reader on purpose, second round (false credit or a wrong answer before)
    ("A:盗窃罪？\nB:诈骗罪？\nC:抢劫罪？", CRIME, CRIME_Q, None),             # options asked about in turn
    ("正确答案：D\n\n乙冒充警察骗取丙的财物，乙的行为构成（ ）\nA:盗窃罪\nB:诈骗罪\n正确答案：B", CRIME, CRIME_Q, "D"),
    ("正确答案：D\n\n乙的行为构成何罪？\n(A) 盗窃罪 (B) 诈骗罪 (C) 抢劫罪\n正确答案：B", CRIME, CRIME_Q, "D"),
    ("正确答案：D\n\n乙的行为构成何罪？\nA) 盗窃罪\nB) 诈骗罪\n正确答案：B", CRIME, CRIME_Q, "D"),
    ("正确答案：C\n\n下列关于合同效力的说法，错误的是？\n" + CONTRACT_LIST + "\n正确答案：B",   # the mirror question
     CONTRACT, CONTRACT_RIGHT, "C"),
    ("我们需要判断哪些说法是错误的：\n" + CONTRACT_LIST + "\n下面逐一分析。", CONTRACT, CONTRACT_WRONG, None),
    ("请问以下哪个说法是错误的：\n" + CONTRACT_LIST, CONTRACT, CONTRACT_WRONG, None),
    ("下列关于合同效力的说法是错误的：\n" + CONTRACT_LIST, CONTRACT, CONTRACT_WRONG, None),   # the question restated
    ("A:盗窃罪是错误的。", CRIME, CRIME_Q, None),                             # judged, not chosen
    ("A:" + CONTRACT["A"] + "是正确的。", CONTRACT, CONTRACT_WRONG, None),
    ("[正确答案]D<eoa>A,B,C,D<eoa>", CRIME, CRIME_Q, "D"),                      # the prompt's letters echoed
    ("[正确答案]B<eoa>A、B、C、D<eoa>", CRIME, CRIME_Q, "B"),
    ("错误选项：B：无权代理订立的合同一律无效\n故选B。", CONTRACT, CONTRACT_WRONG, "B"),
    ("甲不构成A:盗窃罪。", CRIME, CRIME_Q, None),                              # negated before the label
    ("答案：B", CRIME, "\ud800", "B"),                                          # a broken question never raises
])
def test_breaker_findings_second_round(output, options, question, expected):
    assert letters(output, options, question) == expected


DEBT = {"A": "20万元", "B": "40万元", "C": "49万元", "D": "50万元"}
DEBT_Q = "遗产处理完毕后，张某通知刘某，徐某生前向其借款，本息累计70万元。女儿应向张某偿还多少钱?"
TAX = {"A": "县级以上地方税务局", "B": "市级以上地方税务局", "C": "省级国家税务局", "D": "国家税务总局"}
TAX_Q = "纳税人因有特殊困难，不能按期缴纳税款的，经()批准，可以延期缴纳税款，但最长不得超过3个月。"
FRAUD = {"A": "挪用资金罪", "B": "用账外客户资金非法拆借、发放贷款罪", "C": "金融凭证诈骗罪", "D": "诈骗罪"}
FRAUD_Q = "白某给张某开具了一张假存单，拒不归还存款。则白某的行为构成:"
TWINS = {"A": "甲的观点①和乙的观点②", "B": "甲的观点③和乙的观点①", "C": "甲的观点②", "D": "甲的观点①和乙的观点②"}


@pytest.mark.parametrize("output, options, question, expected", [
    # The turn opens with an option's own text, as a statement (rule f; heldout sets 1-7).
    ("甲公司应支付该款项。根据法律规定，甲公司应向丙公司支付货款。",
     {"A": "甲公司应支付该款项", "B": "乙公司应支付该款项", "C": "甲公司和乙公司应共同支付该款项",
      "D": "甲公司不应支付该款项"}, "下列表述正确的有:", "A"),
    ("1、诈骗罪。根据刑法第266条……", CRIME, CRIME_Q, "B"),                  # after a numbering
    ("女儿应向张某偿还50万元。", DEBT, DEBT_Q, "D"),                          # the question's own words
    ("甲的行为构成了侵占罪。根据……", CRIME, CRIME_Q, "D"),                    # after 构成
    ("白某的行为构成挪用资金罪、金融凭证诈骗罪。", FRAUD, FRAUD_Q, "AC"),      # two, the longer text first
    ("甲的观点①和乙的观点②是正确的。", TWINS, "下列选项哪些是正确的?", "AD"),  # two options, one text
    ("纳税人因有特殊困难，不能按期缴纳税款的，经县级以上地方税务局批准，可以延期缴纳税款。",
     TAX, TAX_Q, "A"),                                                          # the blank filled in
    # ...and where it is not an answer
    ("甲的行为不构成侵占罪。", CRIME, CRIME_Q, None),                         # negated
    ("甲的行为属于诈骗罪。但是……因此构成了抢劫罪。", CRIME, CRIME_Q, None),   # a later, other conclusion
    ("盗窃罪。\n诈骗罪。\n抢劫罪。\n侵占罪。", CRIME, CRIME_Q, None),          # the texts copied, one a line
    ("1. 盗窃罪\n2. 诈骗罪\n3. 抢劫罪", CRIME, CRIME_Q, None),                 # a numbered copy
    ("①④②③④④①②③④②③④②③④", {"A": "①④", "B": "②③④", "C": "都不正确", "D": "④"},
     "下列说法正确的是:", None),                                                # digits looping, not a statement
    ("诈骗罪盗窃罪诈骗罪盗窃罪诈骗罪盗窃罪", CRIME, CRIME_Q, None),              # option texts looping
    ("纳税人因有特殊困难，不能按期缴纳税款的，经()批准，可以延期缴纳税款。", TAX, TAX_Q, None),  # blank copied
    # The option's line, then its verdict on the next line (vicuna's template)
    ("A: " + CONTRACT["A"] + "\n正确答案: 正确。根据……\n\nB: " + CONTRACT["B"] + "\n错误。\n\nC: "
     + CONTRACT["C"] + "\n正确答案: 正确。\n\nD: " + CONTRACT["D"] + "\n错误。", CONTRACT, CONTRACT_RIGHT, "AC"),
    ("A: 李四\n正确答案: 不应当回避。\n\nB: 胡蕊\n正确答案: 应当回避。",
     {"A": "李四", "B": "胡蕊", "C": "王五", "D": "赵六"}, "则本案中，哪些人不应当回避?", "A"),
    # Declarations of both polarities: the one the question asks for
    ("错误的说法是：A:" + CONTRACT["A"] + "。\n\n正确的说法是：B:" + CONTRACT["B"] + "。", CONTRACT, CONTRACT_WRONG, "A"),
    ("错误的说法是：A:" + CONTRACT["A"] + "。\n\n正确的说法是：B:" + CONTRACT["B"] + "。", CONTRACT, CONTRACT_RIGHT, "B"),
    ("下列关于合同效力的说法，正确的是:A:" + CONTRACT["A"] + ";B:" + CONTRACT["B"], CONTRACT, CONTRACT_RIGHT, None),
    # the prompt's letter list opening line after line, or the alphabet recited: no answer
    ("A、B、C、D\nA、B、C、D （A）\nA、B、C、D （B）\nA、B、C、D （C）", CRIME, CRIME_Q, None),
    ("A,B,C,D\nA,B,C,D,E\nA,B,C,D,E,F\nA,B,C,D,E,F,G", CRIME, CRIME_Q, None),
    ("A,B,C,D四个选项中,只有D是正确的。\nA:盗窃罪;\nA,B,C,D四个选项中,只有D是正确的。\n"
     "A,B,C,D四个选项中,只有D是正确的。", CRIME, CRIME_Q, "D"),             # a sentence, not an echo
    # English: "the answer to your question is (C)"
    ("As an assistant, I must inform you that the answer to your question is (C) 抢劫罪.", CRIME, CRIME_Q, "C"),
])
def test_kinds_found_in_heldout8_round(output, options, question, expected):
    assert letters(output, options, question) == expected


CA, CB, CC, CD = (CONTRACT[k] for k in "ABCD")


@pytest.mark.parametrize("output, options, question, expected", [
    # kinds found after heldout8 (and on heldout9, read once before any of them was built)
    ("A、B、C、D中，只有B是违法的。而A、C、D则是合法的。", CRIME, "下列哪一条是违法的?", "B"),   # the predicate
    ("正确答案：C\n因此，C选项是不正确的。\n以下是其他选项的解答：\nA选项是正确的。", CRIME, CRIME_Q, "C"),
    ("Please provide the answer in the format [正确答案]A<eoa>.\nThe correct answer is:\n[正确答案]B: 诈骗罪。",
     CRIME, CRIME_Q, "B"),                                                     # the format's example is no answer
    (CA + ";\nB:" + CB + ";\nC:" + CC + ";\nD:" + CD + "。", CONTRACT, CONTRACT_RIGHT, None),  # a list, its first label lost
    (CD + "。\nA:" + CA + ";\nB:" + CB, CONTRACT, CONTRACT_RIGHT, "D"),        # an answer, then a copied list
    ("A选项：" + CA + "，不符合题意。\nB选项：" + CB + "，符合题意。", CONTRACT, CONTRACT_RIGHT, "B"),
    (CA + "。正确。\n" + CB + "。错误。\n" + CC + "。正确。", CONTRACT, CONTRACT_RIGHT, "AC"),   # no labels
    ("A: 正确答案是A。…\nB: 错误答案是B。…\nC: 正确答案是C。…", CONTRACT, CONTRACT_RIGHT, "AC"),
    ("A: 正确答案是A。…\nB: 正确答案是B。因此B是错误的答案。\nC: 正确答案是C。…", CONTRACT, CONTRACT_RIGHT, "AC"),
    ("A: is wrong.\nB: is correct.\nC: is wrong.", CRIME, "下列哪种做法是错误的?", "AC"),
    ("A. 甲 不需要用证据证明的免证事实\nB. 乙 需要证明", {"A": "甲", "B": "乙", "C": "丙", "D": "丁"},
     "对此，下列哪一选项是不需要用证据证明的免证事实?", "A"),                   # a predicate of 13 characters
])
def test_kinds_found_in_heldout9_round(output, options, question, expected):
    assert letters(output, options, question) == expected


@pytest.mark.parametrize("output, options, question, expected", [
    # kinds found on heldout10 (read once, 0.963, before any of them was built)
    ("答案：A、" + CA + ";B、" + CB + ";C、" + CC + ";D、" + CD + "。", CONTRACT, CONTRACT_RIGHT, None),  # 、 labels
    ("【答案】：A、" + CA + "。【说明】：根据民法典……", CONTRACT, CONTRACT_RIGHT, "A"),   # one item: an answer
    ("正确答案：B\n\n我的问题：下列哪一项不是自认的例外？\n\n正确答案：D", CRIME, CRIME_Q, "B"),  # invented question
    ("正确答案：D\n\n请问：\n\n甲将代为保管的乙的手表据为己有，拒不退还，甲的行为构成何罪？\nA:盗窃罪\nB:诈骗罪\n"
     "正确答案：B", CRIME, CRIME_Q, "D"),                                       # this question re-posed after the answer
    ("甲将代为保管的乙的手表据为己有，拒不退还，甲的行为构成何罪？\nA:盗窃罪\nB:诈骗罪\n正确答案：D", CRIME, CRIME_Q, "D"),
    ("选项A:" + CA + "是错误的。\n\n选项B:" + CB + "是正确的。", CONTRACT, CONTRACT_WRONG, "A"),   # "选项A:" labels
    ("选项A: " + CA + "是正确的。\n\n因此，在" + CB + "后，当事人可以追认。", CONTRACT, CONTRACT_WRONG, None),
])
def test_kinds_found_in_heldout10_round(output, options, question, expected):
    assert letters(output, options, question) == expected


PAY = {"A": "甲公司应支付该款项", "B": "乙公司应支付该款项", "C": "甲公司和乙公司应共同支付该款项", "D": "甲公司不应支付该款项"}
APPEAL = {"A": "十日", "B": "十五日", "C": "三十日", "D": "六个月"}
APPEAL_Q = "根据民事诉讼法，当事人不服判决的，当事人应当在（）内提起上诉。"
PEOPLE = {"A": "甲", "B": "乙", "C": "丙", "D": "丁"}
ACTS = {"A": "甲盗窃他人财物", "B": "乙正当防卫", "C": "丙紧急避险", "D": "丁意外事件"}
PROPERTY = {"A": "盗窃罪", "B": "诈骗罪", "C": "抢劫罪", "D": "故意伤害罪"}
RECUSE = {"A": "李四", "B": "胡蕊", "C": "王五", "D": "赵六"}
ABET = {"A": "甲唆使乙盗窃", "B": "甲帮助乙盗窃", "C": "甲与乙共同盗窃", "D": "甲事后窝藏乙"}
LAW4 = {"A": "第一条", "B": "第二条", "C": "第三条", "D": "第四条"}
YEARS = {"A": "2年", "B": "3年", "C": "4年", "D": "20年"}


LAND = {"A": "望湖乡政府办公楼建设用地", "B": "西关镇人民医院建设用地", "C": "南湖别墅区通往南山镇的道路建设用地",
        "D": "民办北岭大学校区扩建用地"}
LAND_Q = "依据有关法律规定，下列哪一建设用地项目不能取得划拨土地使用权?"
FRAUD = {"A": "甲用假币到电器商场购买手机，甲的行为构成诈骗罪", "B": "乙将受托送交的手表据为己有", "C": "丙收取会务费后潜逃",
         "D": "丁为孩子升学，买了一辆假冒某名牌的摩托车送给教育局长何某。丁的行为构成诈骗罪"}
LICENCE = {"A": "司法局发给李某律师执业证", "B": "工商局颁发营业执照", "C": "教育部审批拨款", "D": "地质厅给予采矿登记"}
LICENCE_Q = "下列各项中哪项不属于行政许可法的调整范围?"
APPEAL_RULE_Q = "在第二审案件的裁判中，下列哪一个表述不违反上诉不加刑原则:"
LOOP = "".join("【" + letter + "】" for letter in "BDCA" * 5)


@pytest.mark.parametrize("output, options, question, expected", [
    # kinds found on the graded set's remaining errors and on heldout11 (read once, 0.947, before any was built)
    ("【答案】：" + LOOP, PEOPLE, None, None),                        # every letter in a loop after one slot
    ("【答案】：" + "【B】【C】【D】" * 6, PEOPLE, None, "BCD"),          # a loop of some letters: those
    ("答案：A\n【答案】：" + LOOP, PEOPLE, None, "A"),                   # a declaration before the loop stands
    ("In conclusion, the correct answer is option D.", PEOPLE, None, "D"),
    ("Option A is incorrect.\nOption B is also incorrect.\nIn conclusion, the correct answer is Option C.",
     PEOPLE, "下列哪一选项是错误的?", "C"),                                # the declaration, not the verdicts
    ("Option A is incorrect.\nOption B is also incorrect.\nOption C is partially correct.", PEOPLE,
     "下列哪一选项是错误的?", "AB"),                                       # "is also incorrect" is a verdict too
    ("the answer is optional", PEOPLE, None, None),
    ("A: The statement is incorrect. It should read…\nB: The statement is correct.\n"
     "C: The description of the land tenure is incorrect.\nD: It is not in line with the legal provisions.",
     PEOPLE, "下列表述不正确的是", "ACD"),
    ("A: The statement is incorrect.\nB: The statement is correct.", PEOPLE, "下列表述正确的是", "B"),
    ("A: The statement that is correct is B.\nB: The statement that is correct is B.", PEOPLE, "下列表述正确的是", None),
    ("A: The answer is wrong. The correct answer is B.\nB: The answer is wrong. The correct answer is A.", PEOPLE,
     "下列哪一选项是错误的?", None),                                       # a mapping, not verdicts
    ("丁的行为构成诈骗罪。", FRAUD, "下列哪一选项是正确的?", "D"),        # one option's own last clause, alone
    ("甲的行为构成诈骗罪。", FRAUD, "下列哪一选项是正确的?", "A"),
    ("丁的行为不构成诈骗罪。", FRAUD, "下列哪一选项是正确的?", None),
    ("丁的行为构成诈骗罪。甲的行为构成诈骗罪。", FRAUD, "下列哪一选项是正确的?", None),
    ("丁的行为构成诈骗罪吗？", FRAUD, "下列哪一选项是正确的?", None),
    ("望湖乡政府办公楼建设用地不能取得划拨土地使用权。", LAND, LAND_Q, "A"),   # text + the question's last words
    ("望湖乡政府办公楼建设用地能取得划拨土地使用权。", LAND, LAND_Q, None),     # not as asked
    ("A: 司法局发给李某律师执业证，这是司法部门的职权，不属于行政许可法的调整范围。\n"
     "B: 工商局颁发营业执照，这是行政部门的职权，属于行政许可法的调整范围。", LICENCE, LICENCE_Q, "A"),
    ("A: 司法局发给李某律师执业证，这是司法部门的职权，是错误的。\nB: 工商局颁发营业执照，是正确的。",
     LICENCE, "下列说法正确的是", "B"),                    # a bare verdict judges the text right before it only
    ("A:不违反上诉不加刑原则。\nB:违反上诉不加刑原则。\nC:不违反上诉不加刑原则。", PEOPLE, APPEAL_RULE_Q, "AC"),
])
def test_kinds_found_in_heldout11_round(output, options, question, expected):
    assert letters(output, options, question) == expected


CHAIN = {"A": "乙的行为构成盗窃罪，甲无罪", "B": "甲的行为构成诈骗罪，乙的行为构成侵占罪", "C": "甲乙均无罪",
         "D": "甲的行为构成抢劫罪，乙的行为构成盗窃罪"}
LICENCE_B = "\nB: 工商局颁发营业执照，这是行政部门的职权，属于行政许可法的调整范围。"


@pytest.mark.parametrize("output, options, question, expected", [
    # found by breaking the heldout11 rules on purpose (fourth round): each row read a letter the
    # output does not commit to before the fix
    ("【答案】：【B】【D】【C】【A】【B】【D】【C】【A】", PEOPLE, None, None),     # two rounds are a loop already
    ("It is not true that the correct answer is option D.", PEOPLE, None, None),
    ("If the correct answer is option D, then B must be wrong.", PEOPLE, None, None),
    ("I doubt the correct answer is option D.", PEOPLE, None, None),
    ("Many think the correct answer is option D, but it is actually B.", PEOPLE, None, None),   # (B: not read)
    ("The correct answer is option D only if the contract is void, which it is not.", PEOPLE, None, None),
    ("I would advise that the correct answer would be C: 丙.", PEOPLE, None, "C"),   # "if" in an earlier clause only
    ("A: The statement is incorrect. The right choice is B.\nB: The statement is incorrect. The right choice is C.",
     PEOPLE, "下列哪一选项是错误的?", None),
    ("A: The statement is incorrect; the answer should be B.\nB: The statement is incorrect; the answer should be C.",
     PEOPLE, "下列哪一选项是错误的?", None),
    ("A: The statement is incorrect. Wait, actually it is correct.\nB: The statement is correct.", PEOPLE,
     "下列哪一选项是错误的?", None),
    ("A: This is correct if the contract is void, otherwise incorrect.\nB: This is incorrect.", PEOPLE, "下列表述正确的是", None),
    ("A: The law is correct in principle.\nB: The lawyer is correct.", PEOPLE, "下列表述正确的是", None),   # other subjects
    ("丁的行为构成诈骗罪。理由如下：丁送的是假冒摩托车。综上所述，丁的行为不构成诈骗罪，而构成行贿罪。", FRAUD,
     "下列哪一选项是正确的?", None),
    ("丁的行为构成诈骗罪。这个说法其实是错误的。", FRAUD, "下列哪一选项是正确的?", None),
    ("丁的行为构成诈骗罪。对吗？", FRAUD, "下列哪一选项是正确的?", None),
    ("丁的行为构成诈骗罪。甲的行为也构成诈骗罪。", FRAUD, "下列哪一选项是正确的?", None),
    ("乙的行为构成盗窃罪。", CHAIN, "下列说法正确的是", None),              # D's last clause is A's first clause
    ("望湖乡政府办公楼建设用地不能取得划拨土地使用权。对吗？", LAND, LAND_Q, None),
    ("望湖乡政府办公楼建设用地不能取得划拨土地使用权。这一结论并不成立。", LAND, LAND_Q, None),
    ("A: 司法局发给李某律师执业证，不属于行政许可法的调整范围的说法，是错误的。" + LICENCE_B, LICENCE, LICENCE_Q, None),
    ("A: 司法局发给李某律师执业证，假如没有法律授权，不属于行政许可法的调整范围。" + LICENCE_B, LICENCE, LICENCE_Q, None),
])
def test_breaker_findings_fourth_round(output, options, question, expected):
    assert letters(output, options, question) == expected


ARSON = {"A": "赵某与王某成立共同犯罪", "B": "赵某、王某成立放火罪", "C": "赵某、王某成立放火罪与保险诈骗罪，数罪并罚",
         "D": "赵某、王某不成立保险诈骗罪"}


@pytest.mark.parametrize("output, options, question, expected", [
    # kinds found on heldout12 (read once, 0.970, before any of them was built)
    ("正确答案：C\n\n解释：……\n\n请阅读以下文本并回答问题：\n\n【大作文】……\nA: 互联网+教育\nB: 互联网+医疗\n\n答案：A",
     PEOPLE, None, "C"),                                    # an invented exercise after the answer
    ("正确答案：<eoa>A<eop>\n\n解释：……\n\n请阅读以下文本并回答问题：\n\n【 文本】……答案：B", PEOPLE, None, "A"),
    ("正确答案是：<eoa>。\n\n请阅读以下文本并回答问题：\n\n……答案：A", PEOPLE, None, None),   # only the invented one answers
    # "行为,<text>": 为 ends the word 行为 in another clause, it is no copula before the text
    ("因为他们合谋骗取保险金，符合放火罪的构成要件，是为了骗取保险金的行为,赵某、王某不成立保险诈骗罪。", ARSON,
     "则下列说法不正确的是:", None),
    ("不正确的说法是：赵某、王某不成立保险诈骗罪。\n\n根据刑法……", ARSON, "则下列说法不正确的是:", "D"),   # 是：<text>
    ("根据刑法，赵某的行为是赵某、王某不成立保险诈骗罪。", ARSON, "则下列说法不正确的是:", "D"),
])
def test_kinds_found_in_heldout12_round(output, options, question, expected):
    assert letters(output, options, question) == expected


@pytest.mark.parametrize("output, options, question, expected", [
    # kinds found on heldout13 (read once, 0.953, before any of them was built)
    ("A: Wrong. The victim may appoint an agent.\nB: Wrong. …\nC: Correct. …\nD: Not correct. …", PEOPLE,
     "下列哪一选项是错误的?", "ABD"),                        # a bare English verdict opening the line
    ("A: Wrong.\nB: Correct.", PEOPLE, "下列说法正确的是", "B"),
    ("正确答案：B:乙;C:丙;D:丁。", PEOPLE, "以下说法不正确的是", "BCD"),   # a declared list leaving A out
    ("A:甲;B:乙;C:丙;D:丁。\n正确答案：A:甲;B:乙;C:丙;D:丁。", PEOPLE, None, None),   # the whole list: a copy
    ("【答案】：【B】乙。【C】丙。【D】丁。【答案】：【B】乙。【C】丙。【D】丁。", PEOPLE, None, "BCD"),
    ("以下说法正确的是:B:乙;C:丙;D:丁。", PEOPLE, "以下说法正确的是", None),    # the question restated, then a copy
    ("正确答案:B\n\n关于聚众犯罪，下列说法错误的是:A:聚众犯罪由多人组成；B:组织者是领导者；C:组织者是一人\n正确答案:C",
     PEOPLE, "关于首要分子，下列说法错误的是:", "B"),          # a question posed with its options inline
    ("正确答案: C\n\n关于审判管辖的说法，错误的是：B:乙。\n\n根据……", PEOPLE, "关于审判管辖，下列说法错误的是", "B"),
    ("下列哪一选项是正确的?<eoa>A<eoa>，甲。\n<eoa>B<eoa>，乙。\n<eoa>C<eoa>，丙。\n<eoa>\n<eoa>", PEOPLE,
     "下列哪一选项是正确的?", None),                         # the labels alone between end markers: a copy
    ("".join(f"{n}. [正确答案]{'ABCD'[(n - 1) % 4]}<eoa>\n" for n in range(1, 13)), PEOPLE, None, None),  # an answer key
    ("A.A B.B C.C D.D\n请你运用法律知识从A,B,C,D中选出一个正确的答案", PEOPLE, None, None),   # letters mapped to themselves
    ("A.A B.B C.C D.D\n答案：B", PEOPLE, None, "B"),
    ("A、B、C、D 都不成立。### 问题: 简易程序审理案件……", PEOPLE, "下列哪种情形可以采取简易程序进行处理:", None),
    ("A、B 都不成立。", PEOPLE, "下列哪种说法不成立:", "AB"),             # judged wrong, as the question asks
    ("A是正确答案。\n\n解释：……", PEOPLE, "下列哪一表述是错误的?", "A"),   # a declaration, not a verdict
])
def test_kinds_found_in_heldout13_round(output, options, question, expected):
    assert letters(output, options, question) == expected


DEFENCE = {"A": "正当防卫", "B": "紧急避险", "C": "防卫过当", "D": "意外事件"}
DEFENCE_Q = "甲的行为属于下列哪一种情形?"


@pytest.mark.parametrize("output, options, question, expected", [
    # found by breaking the heldout12 and heldout13 rules on purpose (fifth round): each row read a
    # letter the output does not commit to (or lost one it does) before the fix
    ("E: Correct.", PEOPLE, "下列说法正确的是", None),                    # a letter outside the options
    ("Option E is correct.", PEOPLE, "下列说法正确的是", None),
    ("A: Wrong.\nE: Correct.", PEOPLE, "下列说法正确的是", None),
    ("本题考查正当化事由。要是紧急避险，甲就不负责任。", DEFENCE, DEFENCE_Q, None),      # 是 ends 要是
    ("本题考查正当化事由。有观点认为：紧急避险。", DEFENCE, DEFENCE_Q, None),           # 为 ends 认为
    ("本题考查放火罪。有人认为赵某、王某不成立保险诈骗罪。", ARSON, "则下列说法不正确的是:", None),
    ("本题考查放火罪。因为赵某、王某不成立保险诈骗罪，所以……", ARSON, "则下列说法不正确的是:", None),
    ("答案：B:乙，错误；C:丙，错误；D:丁，错误。", PEOPLE, "下列说法正确的是", None),    # items called wrong
    ("正确答案：B:甲;C:乙;D:丙;E:丁", PEOPLE, "下列说法正确的是", None),                # labels shifted
    ("正确答案：A.A B.B C.C D.D", PEOPLE, None, None),                               # a self-mapping anywhere
    ("A.A、B.B、C.C、D.D", PEOPLE, None, None),
    ("(A).A (B).B (C).C (D).D", PEOPLE, None, None),
    ("根据《律师法》的规定，A、B、C、D中只有A符合有关规定，B、C、D不符合有关规定。", PEOPLE,
     "下列律师的宣传中哪一项是符合有关规定的?", "A"),                               # "只有A<the predicate>"
    ("根据你提供的情况，A、B、C、D中，只有D不属于行政许可。", PEOPLE, "下列哪些行为不属于行政许可?", "D"),
])
def test_breaker_findings_fifth_round(output, options, question, expected):
    assert letters(output, options, question) == expected


@pytest.mark.parametrize("output, options, question, expected", [
    # kinds found on heldout14 (read once, 0.920, before either was built)
    ("A,B,C,D," * 30, PEOPLE, None, None),                       # the letters recited in a loop
    ("A,B,C,D", PEOPLE, None, "ABCD"),                           # once: all four declared
    ("C:同等条件下的优先购买权<eoa>\n", {"A": "优先购买权", "B": "解约权", "C": "同等条件下的优先购买权", "D": "购买权"},
     "依照法律规定，按份共有人转让其共有财产份额时，其他共有人享有", "C"),   # texts inside C's are no copy
    # 正确答案/错误答案 on every option's line mark the answer, whatever the question asks (t272, q234)
    ("A: 正确答案\nB: 错误答案\nC: 错误答案\nD: 正确答案", PEOPLE, "下列不属于多边投资担保机构承保条件的是:", "AD"),
    ("A. 甲。 正确答案\nB. 乙。 错误答案", PEOPLE, "下列说法正确的是", "A"),
    ("A: 甲; 正确答案。\nB: 乙; 错误。\nC: 丙; 错误。", PEOPLE, "下列说法错误的是", "BC"),   # mixed with truth verdicts
    ("A. 正确答案：B\nB. 正确答案：C\nC. 正确答案", PEOPLE, "下列说法错误的是", None),          # a mapping
    # a question posed with inline options after a colon ("…负责的:A:…;B:…"), after an answer
    ("正确答案:C\n\n在我国，派出机关的设立是由哪个地方行政机关主要负责的:A:省级政府;B:县级人民政府;C:国务院部门;D:地方人民政府。\n正确答案:B",
     {"A": "省级政府", "B": "县级人民政府", "C": "县级以上人民政府", "D": "国务院部门"},
     "派出机关是由地方行政机关设立的派出组织。我国可以设立派出机关的地方人民政府主要有:", "C"),
    # heldout15: a last declaration that nothing can be chosen takes the answer back
    ("A: 甲。\n正确答案: A\n\nB: 乙。\n\n正确答案: 无法判断，因为没有提供足够的信息。", PEOPLE, None, None),
    ("正确答案：无法确定。……综上，正确答案：B", PEOPLE, None, "B"),
])
def test_kinds_found_in_heldout14_round(output, options, question, expected):
    assert letters(output, options, question) == expected


ROBBERY = {"A": "甲夺门而逃，甲构成盗窃罪、故意伤害罪，应数罪并罚", "B": "乙用力过猛，乙同时构成抢夺罪、过失致人重伤罪",
           "C": "丙顺势踹了李某一脚，然后逃离现场。丙构成抢劫罪", "D": "丁突然对摩托车加速，田某当即被摔成重伤。丁构成抢劫罪而不构成抢夺罪"}
HAMBURG = {"A": "《汉堡规则》取消了航行过失免责", "B": "《汉堡规则》没有规定延迟交货的责任",
           "C": "《汉堡规则》在一定范围内承认了保函的效力", "D": "《海牙规则》中只有承运人的概念"}
EVIDENCE = {"A": "被害人陈某说是吕某砍了一刀", "B": "现场留有吕某的脚印两个", "C": "在吕某家搜出陈某的手提包", "D": "菜刀上的血型与陈某一致"}
ADS = {"A": "许律师在报纸上发布广告", "B": "钱律师在名片上印上“全国十佳律师”", "C": "丁律师开辟专栏", "D": "杜律师宣称胜诉率达到87%"}
JUDGMENT = {"A": "该判决符合法律规定，实事求是", "B": "该判决不符合法律规定，违反了处分原则", "C": "该判决违反了辩论原则", "D": "该判决违反了平等原则"}


@pytest.mark.parametrize("output, options, question, expected", [
    # a declaration followed by the last clause that is one option's alone (q056)
    ("请你选出正确答案。\n\nA: 甲构成盗窃罪、故意伤害罪，应数罪并罚\nB: 乙同时构成抢夺罪、过失致人重伤罪\n\n正确答案: 丁构成抢劫罪而不构成抢夺罪。",
     ROBBERY, "下列哪些说法是错误的?", "D"),
    ("正确答案: 丙构成抢劫罪", ROBBERY, None, "C"),
    # English: "I would select option [B]" (q269); not supposed, not denied, not an instruction
    ("Based on the information provided, I would select option [B] as the correct answer.", PEOPLE, None, "B"),
    ("If I choose B, the guard is liable.", PEOPLE, None, None),
    ("I would not choose B.", PEOPLE, None, None),
    ("Please choose A, B, C or D.", PEOPLE, None, None),
    # a sub-answer's number before the declared letter (y107), not before a walk through the options
    ("### 答案: 正确答案: （1）A 。根据《证券法》第149条规定，……（2）根据第150条规定……", PEOPLE, None, "A"),
    ("### 答案: 正确答案: （1）A、甲。（2）B、乙。（3）C、丙。（4）D、丁。", PEOPLE, None, None),
    # one option's line after a whole copy of the options (q250); not the copy again, nor a line repeated
    ("不计数额，下列哪一选项构成侵占罪:A:甲;B:乙;C:丙;D:丁。\nD:丁。", PEOPLE, "不计数额，下列哪一选项构成侵占罪:", "D"),
    ("A:甲\nB:乙\nC:丙\nD:丁\nA:甲", PEOPLE, None, None),
    ("A:甲\nB:乙\nC:丙\nD:丁\nD:丁\nD:丁", PEOPLE, None, None),
    # a letter alone on the first line, then a discussion (r186, q270); not a label above a copied list
    ("\nA\n盗窃罪是公诉案件,由检察院提起公诉。\n所以法院正确的处理是:\nA:甲;\nB:乙;\nC:丙;\nD:丁。", PEOPLE, None, "A"),
    ("\nA\n被害人陈某说是吕某砍了一刀;\n现场留有吕某的脚印两个;\n在吕某家搜出陈某的手提包;\n菜刀上的血型与陈某一致。", EVIDENCE, None, None),
    ("\nA\n被害人陈某说吕某砍了他一刀\n现场留有吕某的脚印两个\n在吕某家搜出陈某的手提包\n菜刀上的血型与陈某一致", EVIDENCE, None, None),
    # a declared list that ends before the last option (z261); a whole list declared is a copy
    ("因此,正确的做法应该是A:甲;B:乙;C:丙。", PEOPLE, None, "ABC"),
    ("[正确答案]A:甲;B:乙;C:丙;D:丁。", PEOPLE, None, None),
    # "A:" opening English prose to a Chinese question is no answer (q130, q187), unless it says so
    ("A: The 1980 United Nations Convention does not apply to disputes arising from the formation of the contract.",
     PEOPLE, None, None),
    ("A: The “Legalist” chapter of the “Legalist” chapter of the “Legalist” chapter", PEOPLE, None, None),
    ("A: The correct answer is A.", PEOPLE, None, "A"),
    ("A. 甲", PEOPLE, None, "A"),
    # an option text opening with 《 compared as the options are (z207): a copied list split by end markers
    ("\n[正确答案]A:《汉堡规则》取消了航行过失免责;\n[eoa]B:《汉堡规则》没有规定延迟交货的责任;\n"
     "[eoa]C:《汉堡规则》在一定范围内承认了保函的效力;\n[eoa]D:《海牙规则》中只有承运人的概念。", HAMBURG, None, None),
    # a last declaration on the first line after the answer's end marker (j158, p069)
    (" [正确答案]B<eoa>\n\n其中错误的是A。\n\n根据中国法律，……", PEOPLE, "下列关于举证责任的规定表述错误的是?", "A"),
    ("[正确答案]A<eoa> 推进全面依法治国的基本原则是[B]坚持法律面前人人平等。",
     {"A": "坚持党的事业至上", "B": "坚持法律面前人人平等", "C": "坚持人民利益至上", "D": "坚持推进依法治国"}, None, "B"),
    ("[正确答案]A<eoa> 正确答案是A。宪法实施的制度保障的是A、B、C、D，不能是D。", PEOPLE, None, "A"),
    ("[正确答案]A<eoa>\n解析：……\n其中错误的是B。", PEOPLE, None, "A"),      # (not on the first line)
    # a letter opening the answer with the question's predicate (j136)
    ("A属于直接证据。\n\n\n", EVIDENCE, "公安机关收集的下列证据中属于直接证据的是?", "A"),
    ("A属于间接证据。", EVIDENCE, "公安机关收集的下列证据中属于直接证据的是?", None),
    # English per-option lines "… is (not) in accordance with the regulations" (j223); not a translated option
    ("A: The advertisement by Mr. Zhang on the newspaper is in accordance with the regulations.\n"
     "B: The title on Mr. Wang's card is not in accordance with the regulations.\n"
     "C: The column is not in accordance with the regulations.\nD: The advertisement is not in accordance with the regulations.",
     ADS, "下列律师的宣传中哪一项是符合有关规定的?", "A"),
    ("A: The judgment is consistent with the legal provisions.\nB: The judgment does not conform to the legal provisions.",
     JUDGMENT, None, None),
    # an answer under a <|Human|> turn that poses a question (j208, y007)
    ("\n\n##工具/原料\n<|Human|>: 在中国历史上，哪个朝代是第一个使用“皇帝”称号的?\n\n##方法/步骤\n1正确答案是：B\n2解析：……",
     PEOPLE, "北魏首先确立了下列哪些制度或原则?", None),
    # declarations that go back and forth are a loop (j284); hypothetical ones inside quotation marks don't count
    ("A: The correct answer is B. The correct answer is B. The correct answer is D.The correct answer is B.\n"
     "The correct answer is B. The correct answer is D.The correct answer is B.\nThe correct answer is D.", PEOPLE, None, None),
    ("答案：A。不对，答案：B", PEOPLE, None, "B"),
    ("\n##方法/步骤\n1问题……\n2答案：D\n\n##注意事项\n" + "如回答正确，请回答“回答正确，正确答案为：D”。\n如回答错误，请回答“回答错误，正确答案为：A”。\n" * 3,
     PEOPLE, None, "D"),
])
def test_kinds_found_in_heldout15_and_heldout16_round(output, options, question, expected):
    """Kinds from the errors left on heldout14/15 and from heldout16 (first read 0.967, before any was built);
    each with the near misses that must stay as they were."""
    assert letters(output, options, question) == expected


COUNCIL = {"A": "基层群众性自治组织要严格遵守基层人民代表大会的决议；可以反映群众的意见和要求",
           "B": "基层人民代表大会要依法对基层群众性自治组织进行监督", "C": "乡镇人民政府对村民委员会的工作应给予指导、支持和帮助",
           "D": "不设区的市的人民政府对居民委员会的工作给予指导、支持和帮助"}
GUEST = {"A": "皇帝所尊请而来的客人", "B": "外国使节", "C": "化外人", "D": "前朝皇帝的后代被尊为国宾的人"}


@pytest.mark.parametrize("output, options, question, expected", [
    # a copied list split by end markers whose first option's own text holds a "；", the rest reworded (f062)
    ("\n请选出正确的答案。\n[正确答案]A:基层群众性自治组织要严格遵守基层人民代表大会的决议；可以反映群众的意见和要求;\n"
     "[eoa]B:基层人民代表大会要依法对基层群众性自治组织进行监督;\n[eoa]C:乡镇人民政府对村民委员会的工作应给予严格监督;\n"
     "[eoa]D:不设区的市的人民政府对居民委员会的工作给予严格监督。", COUNCIL, None, None),
    # a declared option with its whole text ending the output, after a copied list (f147): no copy cut off
    ("\n\nA: 皇帝所尊请而来的客人\nB: 外国使节\nC: 化外人\nD: 前朝皇帝的后代被尊为国宾的人\n\n正确答案：A: 皇帝所尊请而来的客人",
     GUEST, None, "A"),
    ("\n\nA: 皇帝所尊请而来的客人\nB: 外国使节\nC: 化外人\nD: 前朝皇帝的后代被尊为国宾的人\n\n正确答案：A: 皇帝所尊请", GUEST, None, None),
    # "A.B.C.D." lines: the letters echoed (f172)
    ("\nA.B.C.D.\nA.B.C.D.\nA.B.C.D.\nA.B.C.D.", PEOPLE, None, None),
    # a label line that calls its own letter right (f273)
    ("请你选出正确的答案。\nA: 正确的是A。这是因为观点A是对法律规则的规定，观点B是关于法律规则的构成的观点。", PEOPLE, None, "A"),
    ("\nA: 正确答案是A。甲。\nB: 错误答案是B。乙。\nC: 正确答案是C。丙。", PEOPLE, "下列说法正确的是", "AC"),
    # the letters named as where the answer is to be found are no answer (f296)
    ("注意：答案为A、B、C、D中的一个，请从中选择正确的答案。", PEOPLE, None, None),
    # a copy cut off at the next copy's first label, after the last option (f038)
    ("\nA. By the plaintiff.\nB. By the defendants.\nC. Jointly.\nD. By the defendants.\nA", PEOPLE, None, None),
    ("\nA:甲\nB:乙\nC:丙\nD:丁\nA", PEOPLE, None, None),
])
def test_kinds_found_in_heldout17_round(output, options, question, expected):
    """Kinds from heldout17 (first read 0.970, before any was built), with their near misses."""
    assert letters(output, options, question) == expected


WAIVER = {"A": "是有效行为", "B": "是无效行为", "C": "是可撤销行为", "D": "是效力未定行为"}
ARSON = {"A": "因甲不满16周岁，所以对其行为不追究刑事责任", "B": "甲构成放火罪", "C": "甲构成故意毁坏财物罪",
         "D": "甲构成故意毁坏财物罪和放火罪，实行数罪并罚"}


@pytest.mark.parametrize("output, options, question, expected", [
    # a heading and the letter alone on the next line (e254); not a copied list under a heading
    ("\n##正确答案\nC\n\n##解释\n甲放弃债权的行为是有效行为。\n\n##列出选项\nA.是有效行为\nB.是无效行为\nC.是可撤销行为\nD.是效力未定行为",
     WAIVER, None, "C"),
    ("答案\nA:是有效行为\nB:是无效行为\nC:是可撤销行为\nD:是效力未定行为", WAIVER, None, None),
    # "B、C、D三项均属正确" (e055)
    ("【答案】：【A】：因甲不满16周岁，所以对其行为不追究刑事责任。【B】：甲构成放火罪。【C】：甲构成故意毁坏财物罪。"
     "【D】：甲构成故意毁坏财物罪和放火罪，实行数罪并罚。【解析】：【B】、【C】、【D】三项均属正确。", ARSON, "下列说法正确的是:", "BCD"),
    # a letter alone ending a long output that copies the options: a word cut off (e077), not an answer
    ("A: 甲\nB: 乙\nC: 丙\nD: 丁\n" + "The following is a list of the most common types of business structures.\n" * 14 + "C",
     PEOPLE, None, None),
    ("A: 甲\nB: 乙\nC: 丙\nD: 丁\n\nC", PEOPLE, None, "C"),          # (a short one answers)
])
def test_kinds_found_in_heldout18_round(output, options, question, expected):
    """Kinds from heldout18 (first read 0.957 with the reader after the sixth breaker round), with near misses."""
    assert letters(output, options, question) == expected


RETRIAL = {"A": "裁定再审", "B": "决定再审", "C": "裁定不予受理", "D": "裁定驳回申请"}
DISTRICT = {"A": "重庆市人民政府", "B": "国务院", "C": "重庆市人大常委会", "D": "重庆市渝北区人大常委会"}
ROYALTY = {"A": "《昨天》的稿费属于甲婚前个人财产", "B": "《今天》的稿费属于夫妻共同财产",
           "C": "《明天》的稿费属于夫妻共同财产", "D": "《昨天》、《今天》和《明天》的稿费都属于夫妻共同财产"}
QIN = {"A": "家罪", "B": "公罪", "C": "公室告", "D": "非公室告"}
COMPANY = {"A": "张某转让股权的行为无效", "B": "股东代表诉讼中股东应当以自己的名义起诉", "C": "股东资格以工商局登记的为准",
           "D": "个人负数额较大的债务不能担任公司的董事"}


@pytest.mark.parametrize("output, options, question, expected", [
    # a "【正确答案】" tag ending an option's line marks that line (d186), not the next line's letter
    ("\nA.裁定再审\nB.决定再审\nC.裁定不予受理\nD.裁定驳回申请\nA.裁定再审 【正确答案】\nB.决定再审\nC.裁定不予受理\n"
     "D.裁定驳回申请\n【解析】本题考查法院再审的裁定程序。\nA.裁定再审 【错误答案】", RETRIAL, None, "A"),
    ("A.裁定再审 （正确答案）\nB.决定再审 （错误答案）\nC.裁定不予受理 （错误答案）\nD.裁定驳回申请 （错误答案）",
     RETRIAL, "下列哪一选项是错误的?", "A"),
    ("根据法律规定，正确答案：\nB.决定再审", RETRIAL, None, "B"),       # (a declaration on its own line answers)
    # "答案：【A】：<sentences>。【B】：…" on one line: an item of a copied list (d162), no answer
    ("【答案】：【A】：甲。乙。丙。【B】：乙。丙。【C】：丙。【D】：丁。【E】：乙。", PEOPLE, None, None),
    ("The correct answer is:\n\nA: 甲。\n\nExplanation: 甲 is right.\n\nB: 乙 is not correct.", PEOPLE, None, "A"),
    # a copy in "A. …;B. …" form cut off at the next copy's first letter (d132)
    ("\nA. 甲\nB. 乙\nC. 丙\nD. 丁\nA. 甲;B. 乙;C. 丙;D. 丁\nA. 甲;B. 乙;C. 丙;D. 丁\nA", PEOPLE, None, None),
    ("\nA. 甲\nB. 乙\nC. 丙\nD. 丁\n答案：A", PEOPLE, None, "A"),
    # an answer, then a made-up 【例题】 with answers of its own (d082)
    ("请从A、B、C、D四个选项中选择一个正确的答案。\n\n正确答案：C\n\n\n【例题】下列哪一选项是正确的：\n\nA：甲\n\nB：乙\n\n"
     "【解析】因此，选择B。\n\n【例题】下列哪一选项是正确的：\n\n【解析】因此，选择A。", PEOPLE, None, "C"),
    ("【例题】下列哪一选项是正确的：A：家罪\nB：公罪\n【解析】因此，选择B。", QIN, "秦朝把杀伤、盗窃等危害封建统治的犯罪称为", None),
    ("【例题】秦朝把杀伤、盗窃等危害封建统治的犯罪称为:A：家罪\nB：公罪\n【解析】因此，选择B。", QIN,
     "秦朝把杀伤、盗窃等危害封建统治的犯罪称为", "B"),              # (this question, restated)
    # the question's "哪个机关" filled with an option's text (d131)
    ("根据《宪法》，重庆市渝北区人民政府设立红楼街道办事处，应当报重庆市人民政府批准。", DISTRICT,
     "重庆市渝北区人民政府设立红楼街道办事处，应当报哪个机关批准?", "A"),
    ("重庆市渝北区人民政府设立红楼街道办事处，应当报哪个机关批准？这要看情况。", DISTRICT,
     "重庆市渝北区人民政府设立红楼街道办事处，应当报哪个机关批准?", None),
    # each option's labelled discussion concluding with its own text (d113): the last one is not chosen
    ("本题考查公司法。A：根据规定，张某可以转让。因此，张某可以转让。B：根据规定，股东可以委托。因此，股东代表诉讼中股东应当以自己的名义起诉。"
     "C：根据规定，股东资格以工商局登记的为准。因此，股东资格以工商局登记的为准。D：根据规定，个人负数额较大的债务不能担任公司的董事。"
     "因此，个人负数额较大的债务不能担任公司的董事。", COMPANY, "下列说法正确的是?", None),
    # a summary ("综上所述") stating one option after conclusions stating several (d261)
    ("甲在婚姻存续期间创作小说《明天》。因此,《明天》的稿费属于夫妻共同财产。\n乙在婚姻存续期间发表了小说《今天》。"
     "因此,《今天》的稿费属于夫妻共同财产。\n综上所述,《明天》的稿费属于夫妻共同财产。", ROYALTY, "下列哪一选项是正确的?", "C"),
    ("甲在婚姻存续期间创作小说《明天》。因此,《明天》的稿费属于夫妻共同财产。\n乙在婚姻存续期间发表了小说《今天》。"
     "因此,《今天》的稿费属于夫妻共同财产。", ROYALTY, "下列哪一选项是正确的?", None),
    # an answer to options the model rewrote as letter combinations (d016)
    ("A:甲;\nB:乙;\nC:丙;\nD:丁。\nA.A,B,C\nB.A,B,D\nC.A,C,D\nD.B,C,D\n答案：A.A,B,C\n【解析】本题考查劳动法。",
     PEOPLE, None, None),
    ("答案：A. 甲\n【解析】本题考查劳动法。", PEOPLE, None, "A"),
    # "只有C是<not the question's words>": the option singled out (s216)
    ("下列选项中,只有C是符合多边投资担保机构承保条件,其他选项均不符合该机构的要求。", PEOPLE,
     "下列不属于多边投资担保机构承保条件的是:", "C"),
    ("如果只有C是符合条件的,那么答案就很明显了。", PEOPLE, "下列不属于承保条件的是:", None),
    # moss's "现在，解决这个问题：<this question's options>\n解决方案：<an option's text>" (y154)
    ("\n\n现在，解决这个问题：A:家罪;B:公罪;C:公室告;D:非公室告\n解决方案：公室告\n\n##注意事项\n注意：祝你好运！", QIN,
     "秦朝把杀伤、盗窃等危害封建统治的犯罪称为", "C"),
    ("\n\n现在，解决这个问题：汉朝把这类犯罪称为什么？\n解决方案：公室告", QIN, "秦朝把杀伤、盗窃等危害封建统治的犯罪称为", None),
    # an answer, then this question re-posed after "请问：" with another answer (w251)
    ("\n\n正确答案：D\n\n解释：甲的观点是正确的。\n\n请问：\n\n秦朝把杀伤、盗窃等危害封建统治的犯罪称为:A:家罪;B:公罪;"
     "C:公室告;D:非公室告。\n\n正确答案：B\n\n解释：乙的观点是正确的。", QIN, "秦朝把杀伤、盗窃等危害封建统治的犯罪称为", "D"),
    # (not when that answer was to a question the model posed itself: the re-posed question's answer)
    ("根据法律规定，下列哪一项是正确的？\nA:家罪或公罪\n\n答案：A\n\n请回答以下问题：\n\n秦朝把杀伤、盗窃等危害封建统治的犯罪称为"
     "\n\nA:家罪;B:公罪;C:公室告;D:非公室告\n\n答案：C", QIN, "秦朝把杀伤、盗窃等危害封建统治的犯罪称为", "C"),
])
def test_kinds_found_in_heldout19_round(output, options, question, expected):
    """Kinds from heldout19 (first read 0.970 with the session-start reader), with their near misses."""
    assert letters(output, options, question) == expected


HISTORY = {"A": "英国是最早实行宪政的国家", "B": "世界上第一部成文宪法是美国宪法",
           "C": "欧洲大陆第一部成文宪法是1875年法国宪法", "D": "英国宪法是典型的不成文宪法"}
JURORS = {"A": "诉讼案件的双方当事人都有权申请人民陪审员参与诉讼", "B": "人大代表不能成为人民陪审员",
          "C": "人民陪审员只能在基层人民法院审理一审案件", "D": "人民陪审员的任免由当地人大常委会决定"}


@pytest.mark.parametrize("output, options, question, expected", [
    # "<text>，这个表述是正确的/不正确的" per option (c154), after a copied list under "正确答案:"
    ("正确答案:\nA:英国是最早实行宪政的国家;\nB:世界上第一部成文宪法是美国宪法;\nC:欧洲大陆第一部成文宪法是1875年法国宪法;\n"
     "D:英国宪法是典型的不成文宪法。\n解释:\nA:英国是最早实行宪政的国家，这个表述是正确的。\nB:世界上第一部成文宪法是美国宪法，"
     "这个表述是正确的。\nC:欧洲大陆第一部成文宪法是1875年法国宪法，这个表述是正确的。\nD:英国宪法是典型的不成文宪法，这个表述是不正确的。",
     HISTORY, "下列关于外国宪法史哪些表述是不正确的?", "D"),
    ("正确答案:\nA:英国是最早实行宪政的国家;\nB:世界上第一部成文宪法是美国宪法;\nC:欧洲大陆第一部成文宪法是1875年法国宪法;\n"
     "D:英国宪法是典型的不成文宪法。", HISTORY, "下列关于外国宪法史哪些表述是不正确的?", None),
    # "<option's line>; 正确答案 <its text again>": marks on the options' lines (c260), not a declared text
    ("A. 诉讼案件的双方当事人都有权申请人民陪审员参与诉讼; 正确答案\nB. 人大代表不能成为人民陪审员; 错误答案\n"
     "C. 人民陪审员只能在基层人民法院审理一审案件; 错误答案\nD. 人民陪审员的任免由当地人大常委会决定; 正确答案\n"
     "A. 诉讼案件的双方当事人都有权申请人民陪审员参与诉讼; 正确答案 诉讼案件的双方当事人都有权申请人民陪审员参与诉讼。\n"
     "D. 人民陪审员的任免由当地人大常委会决定; 正确答案 人民陪审员的任免由当地人大常委会决定。", JURORS, "下列关于人民陪审员制度正确的是", "AD"),
    ("正确答案：人民陪审员的任免由当地人大常委会决定。", JURORS, "下列关于人民陪审员制度正确的是", "D"),
    # marks looping after the options' lines ("正确答案 1. 正确答案 2. 错误答案 …", c205): those lines judge nothing
    ("A. 甲 正确答案\nB. 乙 错误答案\nC. 丙 错误答案\nD. 丁 错误答案\nA. 甲 正确答案 1. 正确答案 2. 错误答案 3. 错误答案\n"
     "B. 乙 正确答案 1. 正确答案 2. 错误答案 3. 错误答案", PEOPLE, None, "A"),
    # numbered lines each mapping option A to another letter (c141): an answer key, no answer
    ("\n1. A. 正确答案：B\n2. A. 正确答案：C\n3. A. 正确答案：D\n4. A. 正确答案：A\n5. A. 正确答案：B", PEOPLE, None, None),
    ("\nA. 正确答案：B\nA. 正确答案：B", PEOPLE, None, "B"),              # (one letter behind the same prefix)
    # the prompt copied with its instructions, cut off after option A's text (c147)
    ("\n请你运用法律知识分析下列案件，从A,B,C,D中选出一个正确的答案，并写在[正确答案]和<eoa>之间。例如[正确答案]A<eoa>。"
     "请你严格按照这个格式回答。\n秦朝把杀伤、盗窃等危害封建统治的犯罪称为:A:家罪", QIN, "秦朝把杀伤、盗窃等危害封建统治的犯罪称为", None),
    ("秦朝把杀伤、盗窃等危害封建统治的犯罪称为:A:家罪。", QIN, "秦朝把杀伤、盗窃等危害封建统治的犯罪称为", "A"),
    # "只有C中的行为构成了不正当竞争行为": words that are no verdict, though they hold a 不 (c231)
    ("正确答案: 在这四个行为中，只有C中的行为构成了不正当竞争行为。", PEOPLE, "在下列行为中，不构成法律规定的不正当竞争行为的是:", "C"),
    ("只有C不构成不正当竞争行为。", PEOPLE, "在下列行为中，构成不正当竞争行为的是:", None),   # (the words negated)
    # letters alone on their lines, in turn, cut off at the next one (c003): the prompt's letters, no answer
    ("\nA \nB \nC \nD \nA \nB \nC \nD \nA \nB \nC \nD \nA ", PEOPLE, None, None),
    ("\nA \nB \nC \nD \n\nC", PEOPLE, None, "C"),                    # (not the next one: an answer)
])
def test_kinds_found_in_heldout20_round(output, options, question, expected):
    """Kinds from heldout20 (first read 0.960 with the heldout19 round's reader), with their near misses."""
    assert letters(output, options, question) == expected


B6_ROBBERY = {'A': '甲深夜潜入他人住宅，窃取财物，甲构成盗窃罪', 'B': '乙冒充警察，骗取他人钱财，乙构成诈骗罪', 'C': '丙当场使用暴力，劫取财物，丙构成抢劫罪', 'D': '丁骑摩托车抢走路人的提包并将其拖倒致伤，丁构成抢劫罪而不构成抢夺罪'}
B6_CRIMES = {'A': '盗窃罪', 'B': '诈骗罪', 'C': '抢劫罪', 'D': '侵占罪'}
B6_EVIDENCE = {'A': '被害人陈述', 'B': '现场指纹', 'C': '作案工具', 'D': '血迹鉴定意见'}
B6_PRACTICE = {'A': '张某在报纸上发布医疗广告', 'B': '李某未经批准开设诊所', 'C': '王某出租医师执业证书', 'D': '赵某在诊所内悬挂执业许可证'}

@pytest.mark.parametrize("output, options, question, expected", [
    ('错误答案：丁构成抢劫罪而不构成抢夺罪。', B6_ROBBERY, '下列说法正确的是?', None),
    ('正确答案：乙构成诈骗罪。\n错误答案：丁构成抢劫罪而不构成抢夺罪。', B6_ROBBERY, '下列说法正确的是?', 'B'),
    ("I'll go with B.", B6_CRIMES, '甲的行为构成何罪?', 'B'),
    ("After weighing the options, I'll choose B.", B6_CRIMES, '甲的行为构成何罪?', 'B'),
    ('正确答案：(1)A 盗窃罪 (2)B 诈骗罪 (3)C 抢劫罪 (4)D 侵占罪', B6_CRIMES, '甲的行为构成何罪?', None),
    ("A. Theft\n\nThe defendant secretly took the victim's property.", B6_CRIMES, '甲的行为构成何罪?', 'A'),
    ('B. Fraud (诈骗罪). Jia deceived the victim into handing over the money.', B6_CRIMES, '甲的行为构成何罪?', 'B'),
    ('[正确答案]B<eoa>\n\n其中错误的是A。', B6_CRIMES, '关于盗窃罪，下列说法正确的是?', 'B'),
    ('[正确答案]B<eoa>\n本题容易混淆的是A。', B6_CRIMES, '甲的行为构成何罪?', 'B'),
    ('[正确答案]B<eoa>\n如果选A，则会错误地认定为盗窃罪。', B6_CRIMES, '甲的行为构成何罪?', 'B'),
    ('[正确答案]B<eoa>\n第2题答案：C', B6_CRIMES, '甲的行为构成何罪?', 'B'),
    ('[正确答案]B<eoa>\n下一题的正确答案是C', B6_CRIMES, '甲的行为构成何罪?', 'B'),
    ('[正确答案]A<eoa>\n2.关于抢劫罪的认定，下列说法正确的是(B)', B6_CRIMES, '甲的行为构成何罪?', 'A'),
    ('[正确答案]B<eoa>\n考生容易错选为A。', B6_CRIMES, '甲的行为构成何罪?', 'B'),
    ('[正确答案]B<eoa>\n有观点认为答案是A，但这种观点是错误的。', B6_CRIMES, '甲的行为构成何罪?', 'B'),
    ('[正确答案]B<eoa>\n干扰项为A。', B6_CRIMES, '甲的行为构成何罪?', 'B'),
    ('[正确答案]D<eoa>\n注：本题有争议，有人认为答案为A。', B6_CRIMES, '甲的行为构成何罪?', 'D'),
    ('答案：B。如果选A，则会错误地认定为盗窃罪。', B6_CRIMES, '甲的行为构成何罪?', 'B'),
    ('正确答案：B。很多人会选A，但甲并未秘密窃取。', B6_CRIMES, '甲的行为构成何罪?', 'B'),
    ('A属于直接证据，这种说法是错误的。被害人陈述属于间接证据。', B6_EVIDENCE, '下列证据中属于直接证据的是?', None),
    ("A: Whether Zhang's advertisement is in accordance with the regulations depends on whether he obtained approval.\nB: Li's act is not in accordance with the regulations.\nC: Wang's act is not in accordance with the regulations.\nD: Zhao's act is in accordance with the regulations.", B6_PRACTICE, '下列做法符合规定的是?', 'D'),
    ("A: Zhang claims that his advertisement is in accordance with the law, but this is wrong.\nB: Li's act is not in accordance with the regulations.\nC: Wang's act is not in accordance with the regulations.\nD: Zhao's act is in accordance with the regulations.", B6_PRACTICE, '下列做法符合规定的是?', 'D'),
    ('我认为答案是A。但是再仔细分析，甲使用了欺骗手段，所以答案应该是B。不过，甲最终是秘密取得财物的，因此答案是A。然而，被害人是基于错误认识交付财物，综上，最终答案是B。', B6_CRIMES, '甲的行为构成何罪?', 'B'),
    ('The correct answer is B. Hmm, on second thought, the answer is D. Wait, actually the answer is B. Let me reconsider once more. Final answer: D.', B6_CRIMES, '甲的行为构成何罪?', 'D'),
    ('根据分析，回答如下：“正确答案：B”', B6_CRIMES, '甲的行为构成何罪?', 'B'),
    ('本题考查“盗窃罪“与“诈骗罪“的区别，正确答案是B。', B6_CRIMES, '甲的行为构成何罪?', 'B'),
    ('甲的行为构成何罪?\nA.盗窃罪\nB.诈骗罪\nC.抢劫罪\nD.侵占罪\n答案：A/B/C/D\n甲的行为构成何罪?\nA.盗窃罪\nB.诈骗罪\nC.抢劫罪\nD.侵占罪\n答案：A/B/C/D\n甲的行为构成何罪?\nA.盗窃罪\nB.诈骗罪\nC.抢劫罪\nD.侵占罪\n答案：A/B/C/D\n', B6_CRIMES, '甲的行为构成何罪?', None),
    # an invented next turn inline ("… Human: 下一题") or opened by 问： after the answer
    ('正确答案：B Human: 下一题，正确答案：C', B6_CRIMES, '甲的行为构成何罪?', 'B'),
    ('正确答案：B\n\n问：乙冒充警察骗取他人钱财，构成何罪？\n正确答案：C', B6_CRIMES, '甲的行为构成何罪?', 'B'),
])
def test_breaker_findings_sixth_round(output, options, question, expected):
    """A breaker helper attacked this round's rules (44 findings in about 75 inputs, 0 crashes in 40,000
    random outputs); the fixed ones: hedged or someone else's answers after an end marker, another question's
    answer, a final answer after going back and forth, "A. Theft" (an option translated), 错误答案 with a text…"""
    assert letters(output, options, question) == expected


B7_COURTS = {"A": "甲县人民法院", "B": "乙县人民法院", "C": "丙市中级人民法院", "D": "丁市中级人民法院"}
B7_DEEDS = {"A": "甲的做法", "B": "乙的做法", "C": "丙的做法", "D": "丁的做法"}


# Seventh breaker round: a helper attacked the heldout19 rules (44 findings, 0 crashes in about 1.5 million
# random outputs); each comment names what the attacked reader did wrong. Left (docs/answer_reading.md): a
# filled "哪个法院" blank then a later conclusion (no answer, people: the conclusion), "只有C是<the question's
# opposite>" (C, as heldout's graders read s216), 【例题】 inside an analysis or over an abridged restatement.
@pytest.mark.parametrize("output, options, question, expected", [
    # tag: per-option analysis, last line (D, called 错误) ends '因此，正确答案为：', answer on next line read as D
    ('A. 裁定再审：错误。\nB. 决定再审：正确。\nC. 裁定不予受理：错误。\nD. 裁定驳回申请：错误。因此，正确答案为：\n\nB. 决定再审',
     RETRIAL, '当事人申请再审，符合条件的，人民法院应当如何处理?', 'B'),
    # tag: '综上，正确答案是：' at the end of D's line, 'B' alone next line
    ('A. 裁定再审——错误，应当裁定再审需满足条件。\nB. 决定再审——正确。\nC. 裁定不予受理——错误。\nD. 裁定驳回申请——错误。综上，正确答案是：\nB',
     RETRIAL, '当事人申请再审，符合条件的，人民法院应当如何处理?', 'B'),
    # tag: English 'the correct answer is:' ending D's line
    ('A. 裁定再审: incorrect\nB. 决定再审: correct\nC. 裁定不予受理: incorrect\nD. 裁定驳回申请: incorrect. Therefore, the correct answer is:\nB',
     RETRIAL, '当事人申请再审，符合条件的，人民法院应当如何处理?', 'B'),
    # tag: markdown answer on next line
    ('D. 裁定驳回申请。综上所述，本题的正确答案为\n**B**',
     RETRIAL, '当事人申请再审，符合条件的，人民法院应当如何处理?', 'B'),
    # tag: prompt copied, template tag appended to the last option line, answer B<eoa>
    ('A.裁定再审\nB.决定再审\nC.裁定不予受理\nD.裁定驳回申请 [正确答案]\nB<eoa>',
     RETRIAL, '当事人申请再审，符合条件的，人民法院应当如何处理?', 'B'),
    # tag: one-line option copy + template tag, answer next line
    ('A:裁定再审;B:决定再审;C:裁定不予受理;D:裁定驳回申请 [正确答案]\nB<eoa>',
     RETRIAL, '当事人申请再审，符合条件的，人民法院应当如何处理?', 'B'),
    # tag: '（不是正确答案）' negated tag credited to A (old read B, also wrong)
    ('A. 裁定再审（不是正确答案）\nB. 决定再审\nC. 裁定不予受理\nD. 裁定驳回申请',
     RETRIAL, '当事人申请再审，符合条件的，人民法院应当如何处理?', None),
    # tag: hedged '看起来像正确答案' + '我无法确定' credited to A
    ('A. 裁定再审（这个选项看起来像正确答案）\nB. 决定再审\nC. 裁定不予受理\nD. 裁定驳回申请\n我无法确定。',
     RETRIAL, '当事人申请再审，符合条件的，人民法院应当如何处理?', None),
    # tag: '正确答案：' ending A's analysis line, B on the next
    ('解析：\nA. 裁定再审，正确答案：\nB. 决定再审。',
     RETRIAL, '当事人申请再审，符合条件的，人民法院应当如何处理?', 'B'),
    # combination: 'C. A, B, D are wrong' skipped as rewritten options
    ('The correct answer is C. A, B, D are wrong.',
     RETRIAL, '当事人申请再审，符合条件的，人民法院应当如何处理?', 'C'),
    # combination: 'B. A, C, D are incorrect'
    ('The answer is B. A, C, D are incorrect.',
     RETRIAL, '当事人申请再审，符合条件的，人民法院应当如何处理?', 'B'),
    # summary: 综上所述 names A's text only to call it wrong
    ('甲在婚姻存续期间创作小说《明天》。因此,《明天》的稿费属于夫妻共同财产。\n乙在婚姻存续期间发表了小说《今天》。因此,《今天》的稿费属于夫妻共同财产。\n综上所述,《昨天》的稿费属于甲婚前个人财产的说法是错误的。',
     ROYALTY, '下列哪一选项是正确的?', None),
    # summary: '本题的关键在于判断…还是…'
    ('甲在婚姻存续期间创作小说《明天》。因此,《明天》的稿费属于夫妻共同财产。\n乙在婚姻存续期间发表了小说《今天》。因此,《今天》的稿费属于夫妻共同财产。\n综上所述，本题的关键在于判断《昨天》的稿费属于甲婚前个人财产还是夫妻共同财产。',
     ROYALTY, '下列哪一选项是正确的?', None),
    # summary: '认为<A>是错误的'
    ('因此,《明天》的稿费属于夫妻共同财产。因此,《今天》的稿费属于夫妻共同财产。综上所述,认为《昨天》的稿费属于甲婚前个人财产是错误的。',
     ROYALTY, '下列哪一选项是正确的?', None),
    # summary: '…这一说法不能成立'
    ('因此,《明天》的稿费属于夫妻共同财产。因此,《今天》的稿费属于夫妻共同财产。综上所述,《昨天》的稿费属于甲婚前个人财产这一说法不能成立。',
     ROYALTY, '下列哪一选项是正确的?', None),
    # summary: someone's view rejected
    ('甲在婚姻存续期间创作小说《明天》。因此,《明天》的稿费属于夫妻共同财产。\n乙在婚姻存续期间发表了小说《今天》。因此,《今天》的稿费属于夫妻共同财产。\n综上，有人认为《昨天》的稿费属于甲婚前个人财产，但这一观点不正确。',
     ROYALTY, '下列哪一选项是正确的?', None),
    # summary: supposition 如果<A>…
    ('甲在婚姻存续期间创作小说《明天》。因此,《明天》的稿费属于夫妻共同财产。\n乙在婚姻存续期间发表了小说《今天》。因此,《今天》的稿费属于夫妻共同财产。\n综上所述，如果《昨天》的稿费属于甲婚前个人财产，则D错误。',
     ROYALTY, '下列哪一选项是正确的?', None),
    # summary: '本题考查的是…与否的问题'
    ('甲在婚姻存续期间创作小说《明天》。因此,《明天》的稿费属于夫妻共同财产。\n乙在婚姻存续期间发表了小说《今天》。因此,《今天》的稿费属于夫妻共同财产。\n综上所述，本题考查的是《昨天》的稿费属于甲婚前个人财产与否的问题。',
     ROYALTY, '下列哪一选项是正确的?', None),
    # blank: filled with A, then corrected to D
    ('重庆市渝北区人民政府设立红楼街道办事处，应当报重庆市人民政府批准。但是，根据《宪法》第一百零七条的规定，街道办事处的设立属于区人大常委会的职权，因此应当报重庆市渝北区人大常委会批准。',
     DISTRICT, '重庆市渝北区人民政府设立红楼街道办事处，应当报哪个机关批准?', 'D'),
    # blank: filled sentence labelled a common misconception
    ('重庆市渝北区人民政府设立红楼街道办事处，应当报重庆市人民政府批准，这是很多考生的误解。正确做法是报重庆市渝北区人大常委会备案。',
     DISTRICT, '重庆市渝北区人民政府设立红楼街道办事处，应当报哪个机关批准?', None),
    # blank: the filled sentence is judged '不正确' after a heading
    ('重庆市渝北区人民政府设立红楼街道办事处，应当报重庆市人民政府批准。\n\n【分析】这个说法不正确。',
     DISTRICT, '重庆市渝北区人民政府设立红楼街道办事处，应当报哪个机关批准?', None),
    # blank: '这种观点值得商榷'
    ('重庆市渝北区人民政府设立红楼街道办事处，应当报重庆市人民政府批准，这种观点值得商榷。根据《地方组织法》第68条，应当报上一级人民政府批准。',
     DISTRICT, '重庆市渝北区人民政府设立红楼街道办事处，应当报哪个机关批准?', None),
    # blank: filled statement then asked '以上说法是否正确？'
    ('重庆市渝北区人民政府设立红楼街道办事处，应当报重庆市人民政府批准。以上说法是否正确？',
     DISTRICT, '重庆市渝北区人民政府设立红楼街道办事处，应当报哪个机关批准?', None),
    # blank: the agent's view, not the model's
    ('张某的代理人认为，张某应当向甲县人民法院提起诉讼，但对方认为应当向乙县人民法院起诉。',
     B7_COURTS, '张某应当向哪个法院提起诉讼?', None),
    # blank: '…还是…' undecided
    ('张某应当向甲县人民法院提起诉讼还是乙县人民法院提起诉讼，取决于合同约定。',
     B7_COURTS, '张某应当向哪个法院提起诉讼?', None),
    # only-C: hedged 可能
    ('可能只有C是符合条件的，需要进一步分析。',
     B6_CRIMES, '甲的行为构成何罪?', None),
    # only-C: 未必
    ('未必只有C是符合条件的，还需要结合具体案情分析。',
     B6_CRIMES, '甲的行为构成何罪?', None),
    # only-C: someone else's view rejected
    ('有同学认为只有C是使用了暴力的，但这种理解是片面的。',
     B6_CRIMES, '甲的行为构成何罪?', None),
    # only-C: first impression withdrawn
    ('乍一看只有C是使用暴力取财，但仔细分析甲并未使用暴力。',
     B6_CRIMES, '甲的行为构成何罪?', None),
    # only-C: C singled out as the distractor
    ('只有C是干扰项，A、B、D都符合题意。',
     B6_CRIMES, '甲的行为构成何罪?', 'ABD'),
    # moss loop: three copies, three different 解决方案
    ('现在，解决这个问题：A:家罪;B:公罪;C:公室告;D:非公室告\n解决方案：公室告\n\n现在，解决这个问题：A:家罪;B:公罪;C:公室告;D:非公室告\n解决方案：家罪\n\n现在，解决这个问题：A:家罪;B:公罪;C:公室告;D:非公室告\n解决方案：公罪',
     QIN, '秦朝把杀伤、盗窃等危害封建统治的犯罪称为', None),
    # moss loop: two copies with different answers
    ('现在，解决这个问题：A:家罪;B:公罪;C:公室告;D:非公室告\n解决方案：家罪\n\n现在，解决这个问题：A:家罪;B:公罪;C:公室告;D:非公室告\n解决方案：公罪',
     QIN, '秦朝把杀伤、盗窃等危害封建统治的犯罪称为', None),
    # 请问: the model's own sub-question inside its reasoning cuts the turn
    ('根据题意，我们需要判断秦朝的罪名分类。\n请问：秦朝的“公室告”指的是什么？\n答：公室告是指控告他人杀伤、盗窃等行为。因此本题答案为C。',
     QIN, '秦朝把杀伤、盗窃等危害封建统治的犯罪称为', 'C'),
    # 请问: self-posed sub-question before the [正确答案]
    ('我们来一步步分析。\n请问：什么是公室告？\n公室告是秦朝对危害封建统治犯罪的称谓。\n[正确答案]C<eoa>',
     QIN, '秦朝把杀伤、盗窃等危害封建统治的犯罪称为', 'C'),
    # 例题: this question restated with a '（单选题）' prefix is not recognised as a restatement
    ('【例题】（单选题）秦朝把杀伤、盗窃等危害封建统治的犯罪称为（ ）。\nA.家罪 B.公罪 C.公室告 D.非公室告\n【答案】C\n【解析】秦朝把危害封建统治的犯罪称为公室告。',
     QIN, '秦朝把杀伤、盗窃等危害封建统治的犯罪称为', 'C'),
    # one-line list: answer B explained, then C discussed
    ('正确答案：B：公罪。秦朝时，危害封建统治的杀伤、盗窃等犯罪被称为“公罪”。C：公室告是指控告他人杀伤、盗窃等行为的诉讼。',
     QIN, '秦朝把杀伤、盗窃等危害封建统治的犯罪称为', 'B'),
    # one-line list: answer B, other options explained
    ('[正确答案]B:公罪。这是因为秦朝将危害国家的犯罪称为公罪。C:公室告则是诉讼类型。D:非公室告也是诉讼类型。<eoa>',
     QIN, '秦朝把杀伤、盗窃等危害封建统治的犯罪称为', 'B'),
    # the review of the round: an answer given, then a question the model poses itself, after the prompt's echo
    ("〖指令〗请回答\n答案：C\n\n下列关于秦朝法律的说法正确的是？\nA. 秦律严苛\nB. 秦律宽松\n答案：B", QIN, "秦朝把案件分为哪两类?", "C"),
    ("题目：秦朝把案件分为哪两类?\n答案：C\n\n下列关于秦朝法律的说法正确的是？\nA. 秦律严苛\nB. 秦律宽松\n答案：B", QIN,
     "秦朝把案件分为哪两类?", "C"),
    # a self-correction by the options' texts (no copies of the question: the last one wins)
    ("答案：公罪。\n不对。答案：家罪。", QIN, "秦朝把案件分为哪两类?", "A"),
    # "只有C…" condemning C in words of its own, or doubted
    ("只有C的做法违法。", B7_DEEDS, "下列做法合法的是：", None),
    ("只有C需要排除，其余三项均可选。", B7_DEEDS, "下列说法正确的是：", None),
    ("只有C选项的表述存在问题。", B7_DEEDS, "下列说法正确的是：", None),
    ("我不确定只有C是符合的", B7_DEEDS, "下列做法符合规定的是：", None),
    ("因此，只有B选项违反了上诉不加刑原则。", B7_DEEDS, "下列哪一选项违反上诉不加刑原则?", "B"),   # (the question's words)
    # a mapping line after the last end marker does not replace the answer
    ("[正确答案]C<eoa>\n\nA. 正确答案：B", QIN, "秦朝把案件分为哪两类?", "C"),
])
def test_breaker_findings_seventh_round(output, options, question, expected):
    assert letters(output, options, question) == expected


@pytest.mark.parametrize("output, options, question, expected", [
    # found by breaking this session's rules on purpose (third round): each row read an answer the
    # output does not give (false credit) before the fix, or shows the fix keeps a real answer
    ('无权代理订立的合同一律无效。这一说法错误，根据民法典，无权代理的合同经追认有效。', CONTRACT, CONTRACT_RIGHT, None),  # F2a
    ('甲公司应支付该款项。这一表述错误，因为合同相对性原则。', PAY, '下列表述正确的有:', None),  # F2b
    ('甲的行为不能构成诈骗罪。', CRIME, CRIME_Q, None),  # F3a
    ('甲的行为不成立诈骗罪。', CRIME, CRIME_Q, None),  # F3b
    ('甲的行为并未构成诈骗罪。', CRIME, CRIME_Q, None),  # F3c
    ('甲的行为没有构成诈骗罪。', CRIME, CRIME_Q, None),  # F3d
    ('甲的行为不应认定为诈骗罪。', CRIME, CRIME_Q, None),  # F3e
    ('甲的行為不能構成詐騙罪。', CRIME, CRIME_Q, None),  # F3f
    ('我不认为甲的行为是诈骗罪。', CRIME, CRIME_Q, None),  # F3g
    ('甲的行为不一定构成诈骗罪。', CRIME, CRIME_Q, None),  # F3h
    ('不应当承担赔偿责任的是甲。', PEOPLE, '下列哪个人应当承担赔偿责任?', None),  # F4a
    ('不构成犯罪的是甲盗窃他人财物。', ACTS, '下列行为构成犯罪的是?', None),  # F4b
    ('错误的是无权代理订立的合同一律无效。', CONTRACT, CONTRACT_RIGHT, None),  # F4c
    ('属于财产犯罪的是盗窃罪、诈骗罪、抢劫罪。', PROPERTY, '下列哪一罪名不属于财产犯罪?', None),  # F5
    ('女儿不应向张某偿还50万元。', DEBT, DEBT_Q, None),  # F6a
    ('女儿无需向张某偿还50万元。', DEBT, DEBT_Q, None),  # F6b
    ('女儿是否应向张某偿还50万元？', DEBT, DEBT_Q, None),  # F6c
    ('甲的行为是否构成诈骗罪？', CRIME, CRIME_Q, None),  # F7a
    ('首先，我们来分析甲的行为是否构成盗窃罪。盗窃罪要求秘密窃取，本案中甲并未秘密窃取他人财物。', CRIME, CRIME_Q, None),  # F7b
    ('甲的行为构成诈骗罪？\n答：不构成。', CRIME, CRIME_Q, None),  # F7c
    ('诉讼时效期间为2年？不对。', YEARS, '普通诉讼时效期间为几年?', None),  # F7d
    ('假设甲的行为构成诈骗罪。', CRIME, CRIME_Q, None),  # F7e
    ('甲的行为可能构成诈骗罪。', CRIME, CRIME_Q, None),  # F7f
    ('诈骗罪。不对，应该重新考虑。', CRIME, CRIME_Q, None),  # F8a
    ('甲的行为构成诈骗罪。\n以上回答是错误的，正确答案需要进一步分析。', CRIME, CRIME_Q, None),  # F8b
    ('有观点认为甲的行为构成诈骗罪。但这种观点是错误的。', CRIME, CRIME_Q, None),  # F8c
    ('甲的行为可能构成盗窃罪或侵占罪。', CRIME, CRIME_Q, None),  # F10a
    ('甲的行为构成盗窃罪或侵占罪？', CRIME, CRIME_Q, None),  # F10b
    ('纳税人因有特殊困难，不能按期缴纳税款的，经县级以上地方税务局或者国家税务总局批准，可以延期缴纳税款。', TAX, TAX_Q, None),  # F10c
    ('若当事人应当在十日内提起上诉，则逾期；若当事人应当在十五日内提起上诉，则未逾期。', APPEAL, APPEAL_Q, None),  # F11a
    ('有人认为当事人应当在十日内提起上诉，这是错误的。', APPEAL, APPEAL_Q, None),  # F11b
    ('纳税人因有特殊困难，不能按期缴纳税款的，经县级以上地方税务局批准，可以延期缴纳税款，这种说法是错误的。', TAX, TAX_Q, None),  # F11c
    ('错误的是：A。正确的是：B。', CONTRACT, CONTRACT_WRONG, 'A'),  # F12a
    ('正确的是：B。错误的是：A。', CONTRACT, CONTRACT_RIGHT, 'B'),  # F12b
    ('正确的有：B、C、D；错误的有：A', CONTRACT, CONTRACT_RIGHT, 'BCD'),  # F12c
    ('答案：A\n错误的说法是：B、C、D', CONTRACT, CONTRACT_RIGHT, 'A'),  # F13a
    ('正确答案为A。错误的是B、C、D。', CONTRACT, CONTRACT_RIGHT, 'A'),  # F13b
    ('正确的说法是：B。错误的说法是：A、C、D。', CONTRACT, '关于违法性认识错误，下列说法正确的是？', 'B'),  # F14a
    ('正确的说法是：B。错误的说法是：A、C、D。', CONTRACT, '关于不予受理的情形，下列说法正确的是？', 'B'),  # F14b
    ('无权代理订立的合同一律无效是错误的。', CONTRACT, '关于违法合同的效力，下列说法正确的是？', None),  # F14c
    ('分析如下：\nA: 李四\n正确答案: 应当回避。\nB: 胡蕊\n正确答案: 应当回避。', RECUSE, '则本案中，哪些人不应当回避?', None),  # F15a
    ('分析：\nA: 甲唆使乙盗窃\n属于教唆犯\nB: 甲帮助乙盗窃\n属于帮助犯', ABET, '下列哪种情形不属于教唆犯?', None),  # F15b
    ('分析：\nA: 盗窃罪\n正确？\n', CRIME, CRIME_Q, None),  # F16a
    ('分析：\nA选项：盗窃罪\n正确？\n', CRIME, CRIME_Q, None),  # F16b
    ('A:限制民事行为能力人订立的纯获利益的合同有效\nB:无权代理订立的合同一律无效\nC:恶意串通损害他人利益的合同无效\nD:违反强制性规定的合同并非一律无效\n正确。', CONTRACT, CONTRACT_RIGHT, None),  # F17
    ('A: 如果正确答案是A，则甲构成盗窃罪，但这不成立。\nB: 如果正确答案是B，则甲构成诈骗罪，这也不成立。', CRIME, CRIME_Q, None),  # F18a
    ('A: 正确答案是A的可能性不大。\nB: 正确答案是B的可能性也不大。', CRIME, CRIME_Q, None),  # F18b
    ('A: 假设正确答案是A。\nB: 假设正确答案是B。', CRIME, CRIME_Q, None),  # F18c
    ('如果只有B是违法的，那么其他选项都合法。但事实并非如此。', LAW4, '下列哪一条是违法的?', None),  # F19a
    ('A、B、C、D （B）\nA、B、C、D （C）', CRIME, CRIME_Q, None),  # F20a
    ('A,B,C,D\nA,B,C,D', CRIME, CRIME_Q, None),  # F20b
    ('是诈骗罪吗', CRIME, CRIME_Q, None),  # F21a
    ('分析：\nA: 盗窃罪\n对？不对。\n', CRIME, CRIME_Q, None),  # F21b
    ('A选项：盗窃罪，符合题意吗？', CRIME, CRIME_Q, None),  # F21c
])
def test_breaker_findings_third_round(output, options, question, expected):
    assert letters(output, options, question) == expected


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
