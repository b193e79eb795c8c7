"""What decided a reading is logged (issue 24): the sample's ``reading`` record names the option-letter
rule that gave the answer (``"rule": "declared"``) or why nothing was read (``"reason": "copied option
list"``), and the error analysis (``mistakes.csv``'s ``decided``) and the HTML sample browser show it."""

from __future__ import annotations

import csv

from cpsd_tasks.qa import process_results
from cpsd_tasks.reading import read_choices
from cpsd_tasks.report import errors, html

OPTIONS = {"A": "盗窃罪", "B": "诈骗罪", "C": "抢劫罪", "D": "侵占罪"}


def exam_doc(answer: str = "B") -> dict:
    return {"task": "police_exam", "id": "e1", "question": "甲的行为构成何罪？", "qtype": "单选", "answer": answer,
            "options": [{"key": k, "text": v} for k, v in OPTIONS.items()]}


def test_the_choice_reading_names_the_rule_or_the_reason():
    assert read_choices("答案：B", OPTIONS).rule == "declared"
    assert read_choices("A项错误，B项正确", OPTIONS).rule == "verdicts"
    copied = read_choices("A:盗窃罪\nB:诈骗罪\nC:抢劫罪\nD:侵占罪", OPTIONS)
    assert (copied.letters, copied.rule, copied.reason) == (None, None, "copied option list")
    assert read_choices(None, OPTIONS).reason == "empty output"
    assert read_choices("答案：B", {}).reason == "no options"
    # the two later turns: a second declaration replaces the first
    assert read_choices("[正确答案]B<eoa>[正确答案]D<eoa>", OPTIONS).rule == "later_turns"
    # rule and reason are facts about the reading, not part of its value
    assert read_choices("答案：B", OPTIONS) == read_choices("B", OPTIONS)


def test_the_sample_record_carries_rule_and_reason():
    record = process_results(exam_doc(), ["故选B"])["reading"]
    assert (record["answer"], record["class"], record["rule"]) == ("B", "format", "declared")
    assert "reason" not in record
    record = process_results(exam_doc(), ["A:盗窃罪\nB:诈骗罪\nC:抢劫罪\nD:侵占罪"])["reading"]
    assert (record["answer"], record["reason"]) == (None, "copied option list") and "rule" not in record
    judged = dict(exam_doc(), qtype="判断", answer="正确", options=[])
    assert not {"rule", "reason"} & set(process_results(judged, ["正确"])["reading"])   # 判断: no letter rules


def test_error_analysis_and_sample_browser_show_what_decided(tmp_path):
    doc = exam_doc("C")
    samples = [{"doc_id": n, "doc": doc, "filtered_resps": [out], "reading": process_results(doc, [out])["reading"]}
               for n, out in enumerate(["故选B", "A:盗窃罪\nB:诈骗罪\nC:抢劫罪\nD:侵占罪", "C"])]
    judged = errors.judge_task_samples("m", "demo", "police_exam", samples)
    assert [(j.prediction, j.decided) for j in judged] == [
        ("B", "rule: declared"), (None, "reason: copied option list"), ("C", "rule: letter_list")]
    errors.write_mistakes(judged, tmp_path)
    with (tmp_path / "mistakes.csv").open(encoding="utf-8-sig") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["decided"] for row in rows] == ["rule: declared", "reason: copied option list"]
    facts = 'rule: declared · refused: false · qtype: "单选" · truncated: false'
    assert html._reading_facts(samples[0]["reading"]) == facts
    assert html._reading_facts(samples[1]["reading"]).startswith("reason: copied option list · refused: false")
