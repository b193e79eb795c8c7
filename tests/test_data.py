"""Data validation and loading (docs/data.md#record-format): every bad-data case raises one clear error."""

import json
from pathlib import Path

import pytest

from cpsd_tasks.data import harness_dataset
from cpsd_tasks.data.loading import DEMO_DIR, load_task_docs, read_jsonl, resolve_data_dir
from cpsd_tasks.exceptions import DataError
from cpsd_tasks.tasks import TASKS

from conftest import SHARED_DATA, needs_shared_data


def write(tmp_path: Path, task: str, lines, raw: bytes = None, name: str = "test.jsonl") -> Path:
    folder = tmp_path / task
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    if raw is None:
        raw = "\n".join(l if isinstance(l, str) else json.dumps(l, ensure_ascii=False) for l in lines).encode()
    path.write_bytes(raw)
    return path


GOOD = {"id": "a", "text": "您的快递已到驿站。", "label": "正常"}


@pytest.mark.parametrize("lines, message", [
    ([GOOD, "{bad json"], ":2: field '(line)': expected one JSON object per line, got invalid JSON"),
    ([GOOD, "[1, 2]"], ":2: field '(line)': expected a JSON object, got list"),
    ([{"id": "a", "text": "x"}], ":1: field 'label': missing; expected a non-empty string"),
    ([{"id": "a", "text": "  ", "label": "正常"}], ":1: field 'text': expected a non-empty string, got an empty one"),
    ([{"id": "a", "text": 5, "label": "正常"}], ":1: field 'text': expected a non-empty string, got int 5"),
    ([{"id": "a", "text": "x", "label": "骗局"}], ":1: field 'label': expected one of 诈骗/正常, got '骗局'"),
    ([GOOD, GOOD], ":2: field 'id': duplicate id 'a', first used on line 1"),
    ([{"text": "x", "label": "正常"}], ":1: field 'id': expected a non-empty string or integer, got None"),
    ([], ":1: field '(file)': expected at least one sample, got an empty file"),
])
def test_bad_classification_data(tmp_path, lines, message):
    path = write(tmp_path, "fraud_detection", lines)
    with pytest.raises(DataError) as err:
        read_jsonl(path, "fraud_detection")
    assert f"{path}{message}" in str(err.value)


def test_not_utf8_names_line_and_byte(tmp_path):
    raw = json.dumps(GOOD, ensure_ascii=False).encode() + b"\n" + \
        json.dumps({"id": "b", "text": "诈骗短信", "label": "诈骗"}, ensure_ascii=False).encode("gbk")
    path = write(tmp_path, "fraud_detection", None, raw=raw)
    with pytest.raises(DataError, match=r"test.jsonl:2: field '\(line\)': expected UTF-8 text, got byte 0x"):
        read_jsonl(path, "fraud_detection")


def test_missing_file_and_dir(tmp_path):
    with pytest.raises(DataError, match=r"rumor/test.jsonl: file not found; expected the rumor data"):
        read_jsonl(tmp_path / "rumor" / "test.jsonl", "rumor")
    with pytest.raises(DataError, match="data directory from metadata data_dir does not exist"):
        resolve_data_dir(str(tmp_path / "nope"))
    with pytest.raises(DataError, match="file not found"):
        load_task_docs("rumor", str(tmp_path))


def test_all_problems_reported_together(tmp_path):
    path = write(tmp_path, "rumor", [{"id": "1", "text": "", "label": "谣言"}, "oops",
                                     {"id": "1", "text": "t", "label": "假"}])
    with pytest.raises(DataError) as err:
        read_jsonl(path, "rumor")
    text = str(err.value)
    assert "invalid rumor data (4 problem(s))" in text
    assert ":1: field 'text'" in text and ":2: field '(line)'" in text
    assert ":3: field 'id': duplicate id '1'" in text and ":3: field 'label'" in text


def test_bom_crlf_blank_lines_int_ids_extra_fields_accepted(tmp_path):
    body = ('{"id": 1, "text": "您好", "label": "正常", "note": "extra"}\r\n\r\n'
            '{"id": 2, "text": "转账", "label": "诈骗"}\r\n')
    path = write(tmp_path, "fraud_detection", None, raw=b"\xef\xbb\xbf" + body.encode())
    records = read_jsonl(path, "fraud_detection")
    assert records == [{"id": "1", "text": "您好", "label": "正常"}, {"id": "2", "text": "转账", "label": "诈骗"}]


@pytest.mark.parametrize("task, record, message", [
    ("drug_ner", {"id": "1", "text": "t", "entities": [{"type": "毒品", "text": "冰毒"}]},
     "field 'entities[0].type': expected one of 人名/时间/地点/毒品类型/毒品数量, got '毒品'"),
    ("drug_ner", {"id": "1", "text": "t", "entities": "冰毒"},
     "field 'entities': expected a list of {type, text} objects, got str"),
    ("drug_re", {"id": "1", "text": "t", "relations": [{"head": "张某", "relation": "贩卖", "tail": "李某"}]},
     "field 'relations[0].relation': expected one of 贩卖毒品/贩卖给/持有/非法容留, got '贩卖'"),
    ("case_reading", {"id": "1", "context": "c", "question": "q", "answer": "对", "qtype": "判断"},
     "field 'answer': expected one of 是/否/未知, got '对'"),
    ("case_reading", {"id": "1", "context": "c", "question": "q", "answer": "张某", "qtype": "简答"},
     "field 'qtype': expected one of 判断/精确/模糊, got '简答'"),
    ("police_exam", {"id": "1", "question": "q", "options": {"A": "a", "B": "b", "C": "c"}, "answer": "CA",
                     "qtype": "多选"}, "field 'answer': expected two or more sorted, distinct letters"),
    ("police_exam", {"id": "1", "question": "q", "options": {"A": "a", "B": "b"}, "answer": "C", "qtype": "单选"},
     "field 'answer': expected letters among the options AB, got 'C'"),
    ("police_exam", {"id": "1", "question": "q", "options": {}, "answer": "对", "qtype": "判断"},
     "field 'answer': expected one of 正确/错误, got '对'"),
    ("case_summary", {"id": "1", "input": "i"}, "field 'reference': missing"),
])
def test_bad_data_other_kinds(tmp_path, task, record, message):
    path = write(tmp_path, task, [record])
    with pytest.raises(DataError) as err:
        read_jsonl(path, task)
    assert message in str(err.value)


def test_demo_is_default_and_marked(monkeypatch):
    monkeypatch.delenv("CPSD_DATA_DIR", raising=False)
    assert resolve_data_dir(None) == (DEMO_DIR, True)
    docs = load_task_docs("sentiment")
    assert docs["fewshot"] == []
    assert len(docs["test"]) == 30
    assert {d["data_source"] for d in docs["test"]} == {"demo"}
    assert {d["task"] for d in docs["test"]} == {"sentiment"}
    assert all(d["id"].startswith("demo-") for d in docs["test"])


def test_env_var_then_metadata_precedence(tmp_path, monkeypatch):
    env_dir, meta_dir = tmp_path / "env", tmp_path / "meta"
    write(env_dir, "rumor", [{"id": "e", "text": "t", "label": "谣言"}])
    write(meta_dir, "rumor", [{"id": "m", "text": "t", "label": "谣言"}, {"id": "n", "text": "u", "label": "非谣言"}])
    monkeypatch.setenv("CPSD_DATA_DIR", str(env_dir))
    assert [d["id"] for d in load_task_docs("rumor")["test"]] == ["e"]
    ds = harness_dataset(task_id="rumor", data_dir=str(meta_dir), config_source="/x.yaml")
    assert ds["test"]["id"] == ["m", "n"]
    assert ds["test"][0]["data_source"] == str(meta_dir / "rumor" / "test.jsonl")
    assert len(ds["fewshot"]) == 0


def test_relative_data_dir_resolves_against_cwd(tmp_path, monkeypatch):
    write(tmp_path, "rumor", [{"id": "r", "text": "t", "label": "谣言"}])
    monkeypatch.chdir(tmp_path.parent)
    assert load_task_docs("rumor", tmp_path.name)["test"][0]["id"] == "r"


def test_fewshot_split_and_exam_options_shape(tmp_path):
    write(tmp_path, "police_exam", [
        {"id": "1", "question": "q", "options": {"B": "b", "A": "a"}, "answer": "A", "qtype": "单选"},
        {"id": "2", "question": "q2", "options": {}, "answer": "正确", "qtype": "判断"}])
    write(tmp_path, "police_exam", [{"id": "f", "question": "q", "options": {}, "answer": "错误", "qtype": "判断"}],
          name="fewshot.jsonl")
    ds = harness_dataset(task_id="police_exam", data_dir=str(tmp_path))
    assert ds["test"][0]["options"] == [{"key": "A", "text": "a"}, {"key": "B", "text": "b"}]
    assert ds["test"][1]["options"] == []
    assert ds["fewshot"]["id"] == ["f"]


def test_every_demo_file_is_valid():
    for task in TASKS:
        path = DEMO_DIR / task / "test.jsonl"
        if path.exists():
            assert read_jsonl(path, task)


@needs_shared_data
def test_every_shared_file_is_valid():
    found = [t for t in TASKS if (SHARED_DATA / t / "test.jsonl").exists()]
    assert len(found) == 11  # fraud_ner has no public stand-in
    for task in found:
        assert len(read_jsonl(SHARED_DATA / task / "test.jsonl", task)) > 0


# --------------------------------------------------------------------------- few-shot leaks (issue 12, case 4)

def test_fewshot_doc_duplicating_a_test_doc_is_an_error_naming_both_places(tmp_path):
    test = write(tmp_path, "rumor", [{"id": "t1", "text": "今天天气晴。", "label": "非谣言"},
                                     {"id": "t2", "text": "紧急扩散！明天全市停水", "label": "谣言"},
                                     {"id": "t3", "text": "地铁正常运营。", "label": "非谣言"}])
    few = write(tmp_path, "rumor", [{"id": "f1", "text": "别的帖子", "label": "谣言"},
                                    # same text (full-width ！, extra spaces), another id: still the test doc
                                    {"id": "f2", "text": " 紧急扩散! 明天全市停水 ", "label": "谣言"},
                                    {"id": "t3", "text": "另一段文字", "label": "非谣言"}], name="fewshot.jsonl")
    with pytest.raises(DataError) as err:
        load_task_docs("rumor", str(tmp_path))
    text = str(err.value)
    assert err.value.headline == "few-shot examples leak test docs"
    assert "rumor: 2 few-shot example(s) duplicate a test doc" in text
    assert (f"{few}:2: field 'text': expected a few-shot example that is not a test doc, got the text of "
            f"{test}:2 (id 't2')") in text
    assert (f"{few}:3: field 'id': expected a few-shot example that is not a test doc, got id 't3', "
            f"the id of {test}:3") in text
    assert f"{few}:1:" not in text


@pytest.mark.parametrize("task, test_rec, shot", [
    ("case_reading", {"id": "1", "context": "材料", "question": "谁？", "answer": "张某", "qtype": "精确"},
     {"id": "9", "context": "材料", "question": "谁？", "answer": "张某", "qtype": "精确"}),
    ("police_exam", {"id": "1", "question": "题目", "options": {}, "answer": "正确", "qtype": "判断"},
     {"id": "9", "question": "题目", "options": {}, "answer": "正确", "qtype": "判断"}),
    ("case_summary", {"id": "1", "input": "案情", "reference": "摘要"},
     {"id": "9", "input": "案情", "reference": "另一个摘要"}),
])
def test_fewshot_leak_by_content_in_other_task_kinds(tmp_path, task, test_rec, shot):
    write(tmp_path, task, [test_rec])
    few = write(tmp_path, task, [shot], name="fewshot.jsonl")
    with pytest.raises(DataError, match=f"{few}:1: field '[a-z+]+': expected a few-shot example that is not"):
        harness_dataset(task_id=task, data_dir=str(tmp_path))


def test_same_context_other_question_is_not_a_leak(tmp_path):
    write(tmp_path, "case_reading",
          [{"id": "1", "context": "材料", "question": "谁？", "answer": "张某", "qtype": "精确"}])
    write(tmp_path, "case_reading",
          [{"id": "2", "context": "材料", "question": "在哪？", "answer": "北京", "qtype": "模糊"}],
          name="fewshot.jsonl")
    assert [d["id"] for d in load_task_docs("case_reading", str(tmp_path))["fewshot"]] == ["2"]


def test_problems_of_both_files_are_reported_together(tmp_path):
    test = write(tmp_path, "rumor", [{"id": "1", "text": "x", "label": "假"}])
    few = write(tmp_path, "rumor", ["{oops"], name="fewshot.jsonl")
    with pytest.raises(DataError) as err:
        load_task_docs("rumor", str(tmp_path))
    assert f"{test}:1: field 'label'" in str(err.value) and f"{few}:1: field '(line)'" in str(err.value)
    assert err.value.headline == "bad data"


@pytest.mark.e2e
def test_fewshot_leak_stops_the_cli_before_any_request(tmp_path, baseline_server, baseline_url, hf_home):
    import os
    import subprocess
    import sys

    test = write(tmp_path / "data", "rumor", [{"id": "t1", "text": "今天天气晴。", "label": "非谣言"},
                                              {"id": "t2", "text": "紧急扩散！明天全市停水", "label": "谣言"}])
    few = write(tmp_path / "data", "rumor", [{"id": "x9", "text": "紧急扩散！明天全市停水", "label": "谣言"}],
                name="fewshot.jsonl")
    before = baseline_server.requests
    env = dict(os.environ, HF_HOME=str(hf_home), HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1")
    cmd = [sys.executable, "-m", "cpsd_tasks.cli", "--tasks", "cpsd_rumor", "--num_fewshot", "1",
           "--model", "local-chat-completions", "--model_args", f"base_url={baseline_url},model=baseline",
           "--apply_chat_template", "--metadata", json.dumps({"data_dir": str(tmp_path / "data")})]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600)
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert "cpsd-eval: few-shot examples leak test docs, nothing was sent to the model." in proc.stderr
    assert f"{few}:1: field 'text': expected a few-shot example that is not a test doc, got the text of {test}:2" \
        in proc.stderr
    assert "Traceback" not in proc.stderr and "bad data" not in proc.stderr
    assert baseline_server.requests == before


# --------------------------------------------------------------------------- every task at once (issue 23)

def test_check_tasks_reports_every_problem_of_every_task_uncapped(tmp_path):
    from cpsd_tasks.data.loading import MAX_REPORTED, check_tasks

    rumor = write(tmp_path, "rumor", [{"id": str(i), "text": "x", "label": "假"} for i in range(MAX_REPORTED + 5)])
    few = write(tmp_path, "sentiment", [{"id": "s1", "text": "好", "label": "积极"}], name="fewshot.jsonl")
    write(tmp_path, "sentiment", [{"id": "t1", "text": "好", "label": "积极"}])
    counts, errs = check_tasks(["cpsd_rumor", "sentiment", "rumor", "drug_re"], str(tmp_path))  # rumor read once
    assert counts == {}
    assert [e.headline for e in errs] == ["bad data", "few-shot examples leak test docs", "bad data"]
    assert len(errs[0].problems) == MAX_REPORTED + 5  # all of them, not the first 20
    assert errs[0].problems[-1] == f"{rumor}:{MAX_REPORTED + 5}: field 'label': expected one of 谣言/非谣言, got '假'"
    assert errs[1].problems == [f"{few}:1: field 'text': expected a few-shot example that is not a test doc, got the "
                                f"text of {tmp_path / 'sentiment' / 'test.jsonl'}:1 (id 't1')"]
    assert errs[2].problems == [f"{tmp_path / 'drug_re' / 'test.jsonl'}: file not found; expected the drug_re data as "
                                f"<data_dir>/drug_re/test.jsonl (record format: docs/data.md)"]
    counts, errs = check_tasks(["rumor", "sentiment"], str(DEMO_DIR))
    assert errs == [] and counts == {"rumor": 20, "sentiment": len(load_task_docs("sentiment")["test"])}


def test_problems_before_run_names_ll_variants_by_their_data_and_checks_options(tmp_path):
    from cpsd_tasks.cli.check import parse_metadata, problems_before_run
    from cpsd_tasks.cli.selection import local_index

    index = local_index()
    rumor = write(tmp_path, "rumor", [{"id": "1", "text": "x"}])
    text = problems_before_run(["cpsd_ll_rumor", "cpsd_rumor"], index, {"data_dir": str(tmp_path)})
    assert text.splitlines() == [
        "bad data, nothing was sent to the model. 1 problem(s) in 1 of 1 task(s), one per line:",
        f"{rumor}:1: field 'label': missing; expected a non-empty string"]
    assert problems_before_run(["cpsd_rumor"], index, {}) is None  # the demo data
    text = problems_before_run(["cpsd_drug_ner"], index, {"tau": "2"})
    assert text == ("invalid run option, nothing was sent to the model. cpsd_drug_ner: option tau='2' (IE fuzzy-match "
                    "threshold τ) must be a number in (0, 1]")
    assert parse_metadata(["data_dir=/d", "tau=0.5"]) == {"data_dir": "/d", "tau": "0.5"}
    assert parse_metadata(['{"data_dir": "/d", "bertscore_num_layers": 8}']) == {"data_dir": "/d",
                                                                                 "bertscore_num_layers": 8}
    with pytest.raises(ValueError, match="expected key=value"):
        parse_metadata(["data_dir"])
