"""Robustness: bad and odd data files (docs/data.md#record-format), beyond the cases of tests/test_data.py (issue 8).

Every case asserts the exact outcome: either the file is accepted and the records are what the
file says, or a ``DataError`` names ``file:line: field '…'`` and what was expected.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cpsd_tasks.data import harness_dataset
from cpsd_tasks.data.loading import MAX_REPORTED, load_task_docs, read_jsonl, resolve_data_dir
from cpsd_tasks.exceptions import DataError


def write(base: Path, task: str, raw: bytes, name: str = "test.jsonl") -> Path:
    folder = base / task
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(raw)
    return path


def j(obj) -> str:
    return json.dumps(obj, ensure_ascii=False)


R1 = {"id": "r1", "text": "网传某地自来水有毒。", "label": "谣言"}
R2 = {"id": "r2", "text": "警方通报：嫌疑人已被刑事拘留。", "label": "非谣言"}


# --------------------------------------------------------------------------- rejected, with file:line:field

@pytest.mark.parametrize("task, raw, message", [
    # encodings and byte-level oddities
    ("rumor", (j(R1) + "\n" + j(R2)).encode("utf-16"),
     ":1: field '(line)': expected UTF-8 text, got byte 0xff at column 1"),
    ("rumor",
     j(R1).encode() + b"\n" + '{"id": "x", "text": "caf\u00e9", "label": "\u8c23\u8a00"}'.encode("latin-1", "ignore"),
     ":2: field '(line)': expected UTF-8 text, got byte 0xe9 at column 25"),
    ("rumor", (j(R1) + "\n\ufeff" + j(R2)).encode(),
     ":2: field '(line)': expected one JSON object per line, got invalid JSON (Unexpected UTF-8 BOM"),
    ("rumor", (j(R1) + "\r" + j(R2) + "\r").encode(),  # old-Mac CR-only line ends: one physical line
     ":1: field '(line)': expected one JSON object per line, got invalid JSON (Extra data at column"),
    ("rumor", b"\xef\xbb\xbf", ":1: field '(file)': expected at least one sample, got an empty file"),
    ("rumor", b"\r\n\r\n  \t\n", ":1: field '(file)': expected at least one sample, got an empty file"),
    # JSON-level
    ("rumor", b'{"id": "1", "text": "a", "label": "\xe8\xb0\xa3\xe8\xa8\x80",}',
     ":1: field '(line)': expected one JSON object per line, got invalid JSON (Expecting property name"),
    ("rumor", (j(R1) + " " + j(R2)).encode(), ":1: field '(line)': expected one JSON object per line, got invalid "
                                              "JSON (Extra data"),
    ("rumor", b"null", ":1: field '(line)': expected a JSON object, got NoneType"),
    ("rumor", '"网传某地自来水有毒"'.encode(), ":1: field '(line)': expected a JSON object, got str"),
    ("rumor", b"42", ":1: field '(line)': expected a JSON object, got int"),
    ("rumor", b'{"id": "1", "text": NaN, "label": "\xe8\xb0\xa3\xe8\xa8\x80"}',
     ":1: field 'text': expected a non-empty string, got float nan"),
    # ids
    ("rumor", (j({**R1, "id": 1}) + "\n" + j({**R2, "id": "1"})).encode(),
     ":2: field 'id': duplicate id '1', first used on line 1"),
    ("rumor", j({**R1, "id": True}).encode(), ":1: field 'id': expected a non-empty string or integer, got True"),
    ("rumor", j({**R1, "id": 1.5}).encode(), ":1: field 'id': expected a non-empty string or integer, got 1.5"),
    ("rumor", j({**R1, "id": "  "}).encode(), ":1: field 'id': expected a non-empty string or integer, got '  '"),
    # text and label values
    ("rumor", j({**R1, "text": "\u3000\u3000"}).encode(),
     ":1: field 'text': expected a non-empty string, got an empty one"),
    ("rumor", j({**R1, "text": None}).encode(), ":1: field 'text': expected a non-empty string, got NoneType None"),
    ("rumor", j({**R1, "label": " 谣言"}).encode(), ":1: field 'label': expected one of 谣言/非谣言, got ' 谣言'"),
    ("sentiment", j({"id": "s", "text": "好", "label": "正面"}).encode(),  # aliases are for model output only
     ":1: field 'label': expected one of 积极/消极/中性, got '正面'"),
    ("rumor", j({**R1, "label": ["谣言"]}).encode(),
     ":1: field 'label': expected a non-empty string, got list ['谣言']"),
    # line numbers count blank and CRLF lines
    ("rumor", ("\t\r\n  \r\n" + j(R1) + "\r\n\r\n\r\n" + j({**R2, "label": "假"}) + "\r\n").encode(),
     ":6: field 'label': expected one of 谣言/非谣言, got '假'"),
    # other schemas
    ("fraud_ner", j({"id": "1", "text": "t", "entities": ["张三"]}).encode(),
     ":1: field 'entities[0]': expected an object, got str"),
    ("fraud_ner", j({"id": "1", "text": "t", "entities": [{"type": "报案人", "text": " "}]}).encode(),
     ":1: field 'entities[0].text': expected a non-empty string, got an empty one"),
    ("drug_ner", j({"id": "1", "text": "t"}).encode(),
     ":1: field 'entities': expected a list of {type, text} objects, "
                                                        "got nothing"),
    ("drug_re", j({"id": "1", "text": "t", "relations": [{"head": "张某", "relation": "持有"}]}).encode(),
     ":1: field 'relations[0].tail': expected a non-empty string, got NoneType None"),
    ("case_reading", j({"id": "1", "context": "c", "question": "q", "answer": "a"}).encode(),
     ":1: field 'qtype': missing; expected a non-empty string"),
    ("case_reading", j({"id": "1", "context": "c", "question": "q", "answer": " ", "qtype": "精确"}).encode(),
     ":1: field 'answer': expected a non-empty string, got an empty one"),
    ("police_exam", j({"id": "1", "question": "q", "options": {"a": "x", "b": "y"}, "answer": "A",
                       "qtype": "单选"}).encode(),
                       ":1: field 'options': expected single capital letters as keys, got 'a'"),
    ("police_exam", j({"id": "1", "question": "q", "options": ["x", "y"], "answer": "A", "qtype": "单选"}).encode(),
     ":1: field 'options': expected an object of letter -> text ({} for 判断), got list"),
    ("police_exam", j({"id": "1", "question": "q", "options": {"A": "x"}, "answer": "A", "qtype": "单选"}).encode(),
     ":1: field 'options': expected at least two options for a 单选 question"),
    ("police_exam", j({"id": "1", "question": "q", "options": {"A": "x", "B": "y"}, "answer": "A",
                       "qtype": "多选"}).encode(),
                       ":1: field 'answer': expected two or more sorted, distinct letters"),
    ("police_exam", j({"id": "1", "question": "q", "options": {"A": "x", "B": "y"}, "answer": "b",
                       "qtype": "单选"}).encode(), ":1: field 'answer': expected option letters, got 'b'"),
    ("case_report", j({"id": "1", "input": "", "reference": "r"}).encode(),
     ":1: field 'input': expected a non-empty string, got an empty one"),
    ("legal_analysis", j({"id": "1", "input": "i", "reference": 5}).encode(),
     ":1: field 'reference': expected a non-empty string, got int 5"),
])
def test_bad_file_names_file_line_field(tmp_path, task, raw, message):
    path = write(tmp_path, task, raw)
    with pytest.raises(DataError) as err:
        read_jsonl(path, task)
    assert f"{path}{message}" in str(err.value)


def test_very_long_bad_line_gives_a_short_message(tmp_path):
    path = write(tmp_path, "rumor", j({**R1, "text": "长" * 1_000_000, "label": "谣" * 1_000}).encode())
    with pytest.raises(DataError) as err:
        read_jsonl(path, "rumor")
    text = str(err.value)
    assert f"{path}:1: field 'label': expected one of 谣言/非谣言, got '谣谣谣" in text
    assert len(text) < 500 + len(str(path))  # the 1 MB line is not echoed back


def test_problems_beyond_the_limit_are_counted(tmp_path):
    lines = [j({"id": str(i), "text": "", "label": "谣言"}) for i in range(MAX_REPORTED + 10)]
    path = write(tmp_path, "rumor", "\n".join(lines).encode())
    with pytest.raises(DataError) as err:
        read_jsonl(path, "rumor")
    text = str(err.value)
    assert f"invalid rumor data ({MAX_REPORTED + 10} problem(s))" in text
    assert text.count(f"{path}:") == MAX_REPORTED
    assert text.endswith("… and 10 more problem(s)")


def test_bad_fewshot_file_is_named(tmp_path):
    write(tmp_path, "rumor", j(R1).encode())
    bad = write(tmp_path, "rumor", (j(R2) + "\n{oops").encode(), name="fewshot.jsonl")
    with pytest.raises(DataError) as err:
        load_task_docs("rumor", str(tmp_path))
    assert f"{bad}:2: field '(line)': expected one JSON object per line" in str(err.value)


def test_test_jsonl_that_is_a_folder(tmp_path):
    (tmp_path / "rumor" / "test.jsonl").mkdir(parents=True)
    with pytest.raises(DataError, match=r"rumor/test.jsonl: file not found; expected the rumor data"):
        load_task_docs("rumor", str(tmp_path))


def test_env_var_pointing_nowhere(tmp_path, monkeypatch):
    monkeypatch.setenv("CPSD_DATA_DIR", str(tmp_path / "missing"))
    with pytest.raises(DataError, match=r"missing: data directory from \$CPSD_DATA_DIR does not exist"):
        resolve_data_dir(None)


def test_unknown_task_and_missing_task_id():
    with pytest.raises(KeyError, match="unknown CPSDBench task 'cpsd_weather'; expected one of sentiment"):
        read_jsonl(Path("x.jsonl"), "cpsd_weather")
    with pytest.raises(KeyError, match=r"must set dataset_kwargs: \{task_id"):
        harness_dataset(data_dir="/nonexistent")


# --------------------------------------------------------------------------- accepted, with the right records

def test_bom_crlf_blank_and_whitespace_lines(tmp_path):
    raw = b"\xef\xbb\xbf\r\n \t \r\n  " + j(R1).encode() + b"  \r\n\r\n" + j(R2).encode()  # no final newline
    assert read_jsonl(write(tmp_path, "rumor", raw), "rumor") == [R1, R2]


def test_very_long_line_is_kept_whole(tmp_path, monkeypatch, hf_home):
    monkeypatch.setenv("HF_HOME", str(hf_home))
    long_text = "某" * 1_000_000 + "END"
    write(tmp_path, "rumor", (j({**R1, "text": long_text}) + "\n" + j(R2)).encode())
    ds = harness_dataset(task_id="rumor", data_dir=str(tmp_path))
    assert ds["test"][0]["text"] == long_text and ds["test"][1]["id"] == "r2"


def test_odd_but_valid_values(tmp_path):
    raw = "\n".join([
        j({"id": 0, "text": "\u200b", "label": "谣言"}),            # zero-width space is not whitespace: kept
        j({"id": -7, "text": "a\u0000b", "label": "非谣言"}),        # NUL inside text: kept
        j({"id": 10 ** 30, "text": "😀 🚓", "label": "谣言"}),       # emoji, huge integer id
        '{"id": "d", "text": "first", "label": "谣言", "label": "非谣言"}',  # duplicate key: last wins (json)
    ]).encode()
    records = read_jsonl(write(tmp_path, "rumor", raw), "rumor")
    assert records == [
        {"id": "0", "text": "\u200b", "label": "谣言"},
        {"id": "-7", "text": "a\u0000b", "label": "非谣言"},
        {"id": str(10 ** 30), "text": "😀 🚓", "label": "谣言"},
        {"id": "d", "text": "first", "label": "非谣言"},
    ]


def test_extra_fields_of_mixed_types_are_dropped(tmp_path, monkeypatch, hf_home):
    monkeypatch.setenv("HF_HOME", str(hf_home))
    write(tmp_path, "rumor", (j({**R1, "meta": 1, "source": {"a": 1}}) + "\n" +
                              j({**R2, "meta": "x", "source": [1, 2]})).encode())
    ds = harness_dataset(task_id="rumor", data_dir=str(tmp_path))
    assert ds["test"].column_names == ["id", "text", "label", "task", "data_source"]
    assert ds["test"]["label"] == ["谣言", "非谣言"]


def test_entities_may_be_empty_everywhere(tmp_path, monkeypatch, hf_home):
    monkeypatch.setenv("HF_HOME", str(hf_home))
    write(tmp_path, "drug_ner", (j({"id": "1", "text": "无毒品信息。", "entities": []}) + "\n" +
                                 j({"id": "2", "text": "无。", "entities": []})).encode())
    ds = harness_dataset(task_id="drug_ner", data_dir=str(tmp_path))
    assert ds["test"]["entities"] == [[], []]


def test_duplicate_entities_are_kept(tmp_path):
    ents = [{"type": "人名", "text": "张某"}, {"type": "人名", "text": "张某"}]
    path = write(tmp_path, "drug_ner", j({"id": "1", "text": "张某和张某", "entities": ents}).encode())
    assert read_jsonl(path, "drug_ner")[0]["entities"] == ents


def test_tf_question_with_options_is_accepted(tmp_path, monkeypatch, hf_home):
    """Options are empty for 判断 (docs/data.md#record-format); options given anyway are kept, not an error."""
    monkeypatch.setenv("HF_HOME", str(hf_home))
    write(tmp_path, "police_exam", (j({"id": "1", "question": "q", "options": {"B": "y", "A": "x"}, "answer": "正确",
                                       "qtype": "判断"}) + "\n" +
                                    j({"id": "2", "question": "q2", "options": {"A": "x", "B": "y", "C": "z"},
                                       "answer": "AC", "qtype": "多选"})).encode())
    ds = harness_dataset(task_id="police_exam", data_dir=str(tmp_path))
    assert ds["test"][0]["options"] == [{"key": "A", "text": "x"}, {"key": "B", "text": "y"}]
    assert [o["key"] for o in ds["test"][1]["options"]] == ["A", "B", "C"]


# --------------------------------------------------------------------------- text Arrow cannot hold

def test_lone_surrogate_escape_is_a_data_error(tmp_path, monkeypatch, hf_home):
    monkeypatch.setenv("HF_HOME", str(hf_home))
    write(tmp_path, "rumor", (j(R1) + "\n" + '{"id": "s", "text": "\\ud800坏", "label": "谣言"}').encode())
    with pytest.raises(DataError, match=r"test.jsonl:2: field 'text'"):
        harness_dataset(task_id="rumor", data_dir=str(tmp_path))


def test_entity_extra_keys_of_mixed_types(tmp_path, monkeypatch, hf_home):
    monkeypatch.setenv("HF_HOME", str(hf_home))
    write(tmp_path, "drug_ner",
          (j({"id": "1", "text": "张某", "entities": [{"type": "人名", "text": "张某", "start": 0}]})
                                 + "\n" +
                                 j({"id": "2", "text": "李某",
                                    "entities": [{"type": "人名", "text": "李某", "start": "0"}]})
                                 ).encode())
    ds = harness_dataset(task_id="drug_ner", data_dir=str(tmp_path))
    assert [e["text"] for e in ds["test"][1]["entities"]] == ["李某"]
