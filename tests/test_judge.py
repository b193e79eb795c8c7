"""cpsd-judge: reading by meaning after the run, from the sample log (docs/judge.md).

Pinned here: the strict reading of a judge's reply; the prompts and their digest; which samples
each mode sends and the judged figures and agreement they give (hand-counted on small runs whose
sample records come from the tasks' real hooks); the client's cache, retries and failure line on
loopback endpoints; the whole sequence through the real CLIs (a harness run, cpsd-judge against a
scripted judge, the leaderboard); and the audit's --judge mode on the graded set.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from benchmarks.fault_server import FaultServer
from capture_server import CaptureServer, Reply
from conftest import ROOT, run_cpsd_eval
from cpsd_tasks import classification, qa
from cpsd_tasks.judge import prompts
from cpsd_tasks.judge.client import JudgeClient, JudgeTransportError, ReplyCache, chat_url, sample_digest
from cpsd_tasks.judge.items import agreement, judged_metrics, needs_judge, task_items
from cpsd_tasks.judge.reply import read_reply, read_rubric
from judge_server import judge_server, scripted_reply

OPTS = [{"key": "A", "text": "十二小时"}, {"key": "B", "text": "二十四小时"}, {"key": "C", "text": "四十八小时"},
        {"key": "D", "text": "七十二小时"}]


# --------------------------------------------------------------------------- the reply, read strictly

@pytest.mark.parametrize("reply, status, answer", [
    ('{"answer": "谣言"}', "answer", "谣言"),
    ('好的。{"answer": "非谣言"}', "answer", "非谣言"),                 # a sentence before the object
    ('```json\n{"answer": "非谣言"}\n```', "answer", "非谣言"),           # a code fence
    ("{'answer': '谣言',}", "answer", "谣言"),                           # repaired by json-repair
    ('<think>先看看……也许是{"answer": "谣言"}</think>{"answer": "非谣言"}', "answer", "非谣言"),
    ('{"answer": "无有效答案"}', "no_answer", None),
    ('{"answer": "[No valid answer]"}', "no_answer", None),            # xFinder's form
    ('{"answer": "谣言"} {"answer": "非谣言"}', "invalid", None),       # two objects: a change of mind
    ('{"answer": "谣言、非谣言"}', "invalid", None),                    # two labels
    ('{"answer": "是谣言"}', "invalid", None),                          # not exactly a label
    ('谣言', "invalid", None),                                           # no JSON at all
    ('{"label": "谣言"}', "invalid", None),                             # another key
    ('{"answer": "谣言", "reason": "x"}', "invalid", None),             # a key more
    ('{"answer": 1}', "invalid", None),
    ("Error: upstream timeout", "invalid", None),                       # an error string is no answer
    ("", "invalid", None),
    (None, "invalid", None),
])
def test_label_reply(reply, status, answer):
    r = read_reply(reply, "label", ("谣言", "非谣言"))
    assert (r.status, r.answer) == (status, answer)


@pytest.mark.parametrize("reply, answer", [
    ('{"answer": "B"}', "B"), ('{"answer": "b"}', "B"), ('{"answer": "Ｂ"}', "B"),      # full-width folded
    ('{"answer": "C, A"}', "AC"), ('{"answer": "A、C、D"}', "ACD"), ('{"answer": "DCA"}', "ACD"),
    ('{"answer": "AA"}', None), ('{"answer": "E"}', None), ('{"answer": "B选项"}', None),
    ('{"answer": "第二个"}', None), ('{"answer": ""}', None),
])
def test_choice_reply(reply, answer):
    assert read_reply(reply, "choice", ("A", "B", "C", "D")).answer == answer


def test_equivalence_and_judgement_replies():
    assert read_reply('{"answer": "等价"}', "equivalence").answer == "等价"
    assert read_reply('{"answer": "不等价"}', "equivalence").answer == "不等价"
    assert read_reply('{"answer": "大致等价"}', "equivalence").status == "invalid"
    assert read_reply('{"answer": "未知"}', "judgement", ("是", "否", "未知")).answer == "未知"
    assert read_reply('{"answer": "正确"}', "judgement", ("是", "否", "未知")).status == "invalid"
    with pytest.raises(ValueError):
        read_reply("{}", "ner")


def test_rubric_reply():
    assert read_rubric('{"准确性": 4, "完整性": 3.0, "规范性": 5}').answer == \
        {"accuracy": 4, "completeness": 3, "conformity": 5}
    for bad in ('{"准确性": "4", "完整性": 3, "规范性": 5}', '{"准确性": 6, "完整性": 3, "规范性": 5}',
                '{"准确性": true, "完整性": 3, "规范性": 5}', '{"准确性": 4.5, "完整性": 3, "规范性": 5}',
                '{"准确性": 4, "完整性": 3}', '{"准确性": 0, "完整性": 3, "规范性": 5}'):
        assert read_rubric(bad).status == "invalid", bad


# --------------------------------------------------------------------------- prompts

def test_choice_prompt_holds_question_options_output_and_format():
    text = prompts.user_message("choice", {"qtype": "单选", "question": "拘留后多久讯问？", "output": "我选第二个",
                                           "options": {"B": "二十四小时", "A": "十二小时"}})
    assert "【题目】\n拘留后多久讯问？" in text and "A. 十二小时\nB. 二十四小时" in text
    assert "【模型的回答】\n我选第二个" in text and '{"answer": "<所选选项的字母' in text
    assert "无有效答案" in text and "{" in text and "{{" not in text


def test_long_output_is_cut_with_its_length():
    text = prompts.user_message("label", {"task_title": "谣言检测", "input": "x", "labels": ("谣言", "非谣言"),
                                          "output": "长" * 5000})
    assert "长" * prompts.MAX_OUTPUT_CHARS + "……（以下截断，共5000字）" in text
    assert "长" * (prompts.MAX_OUTPUT_CHARS + 1) not in text


def test_every_kind_renders_and_the_digest_follows_the_templates(monkeypatch):
    fields = {"output": "o", "task_title": "t", "input": "i", "labels": ("是", "否"), "question": "q",
              "context": "c", "qtype": "精确", "options": {"A": "a"}, "gold": "g", "reference": "r"}
    for kind in prompts.KINDS:
        assert prompts.user_message(kind, fields).strip()
    before = prompts.prompt_digest()
    assert before == prompts.prompt_digest() and len(before) == 16
    monkeypatch.setitem(prompts.TEMPLATES, "label", prompts.TEMPLATES["label"] + "。")
    assert prompts.prompt_digest() != before
    assert prompts.prompt_digest(["choice"]) != prompts.prompt_digest()


# --------------------------------------------------------------------------- items, modes, figures

def _record(doc_id, doc, output, hooks):
    values = hooks.process_results(doc, [output])
    return json.loads(json.dumps({"doc_id": doc_id, "doc": doc, "filtered_resps": [output], "resps": [[output]],
                                  "filter": "none", **values}))


def rumor_records():
    """Four rumor samples: read right, unreadable (gold 非谣言), unreadable (gold 谣言), read wrong."""
    cases = [("谣言", "谣言"), ("非谣言", "我认为这条消息是真实可信的"), ("谣言", "这个不好说"), ("非谣言", "谣言")]
    return [_record(i, {"id": f"r{i}", "task": "rumor", "text": "消息", "label": gold}, out, classification)
            for i, (gold, out) in enumerate(cases)]


def exam_records():
    """Exam: 判断 right, 判断 by meaning (gold 正确), 单选 by meaning (gold B), 单选 read as CD (gold B)."""
    tf = {"task": "police_exam", "qtype": "判断", "answer": "正确", "options": [], "question": "可以先行拘留。"}
    single = {"task": "police_exam", "qtype": "单选", "answer": "B", "options": OPTS,
              "question": "多长时间以内讯问？（）"}
    cases = [(tf, "正确"), (tf, "这个说法站得住脚"), (single, "我认为第二个说法站得住脚"), (single, "答案是C和D")]
    return [_record(i, {**doc, "id": f"e{i}"}, out, qa) for i, (doc, out) in enumerate(cases)]


def _attach(items, replies):
    for item, text in zip(items, replies):
        if text is not None:
            item.reading = read_reply(text, item.kind, item.allowed)


def test_abstained_mode_sends_only_what_the_rules_could_not_read():
    items = task_items("rumor", rumor_records())
    assert [it.kind for it in items] == ["label"] * 4
    assert [needs_judge(it, "abstained") for it in items] == [False, True, True, False]
    assert all(needs_judge(it, "all") for it in items)
    _attach(items, [None, '{"answer": "非谣言"}', '{"answer": "无有效答案"}', None])
    judged, rules = judged_metrics("rumor", items, "abstained")
    assert rules == {"acc_fuzzy": 0.25, "invalid_rate": 0.5}          # 1 of 4 right; 2 of 4 read nothing
    assert judged == {"acc_fuzzy": 0.5, "invalid_rate": 0.25}         # + the one read by meaning
    assert agreement(items) == {"n": 2, "agree": 1, "judge_only": 1, "rules_only": 0, "different": 0,
                                "score_changed": 1, "rate": 0.5}


def test_all_mode_lets_the_judge_decide_every_sample():
    items = task_items("rumor", rumor_records())
    # the judge reads sample 3 ("谣言", gold 非谣言) as 非谣言: a misreading, which all mode believes
    _attach(items, ['{"answer": "谣言"}', '{"answer": "非谣言"}', '{"answer": "无有效答案"}', '{"answer": "非谣言"}'])
    judged, _ = judged_metrics("rumor", items, "all")
    assert judged == {"acc_fuzzy": 0.75, "invalid_rate": 0.25}
    a = agreement(items)
    assert (a["n"], a["agree"], a["judge_only"], a["different"], a["rate"]) == (4, 2, 1, 1, 0.5)


def test_exam_kinds_and_per_type_figures():
    items = task_items("police_exam", exam_records())
    assert [(it.kind, it.qtype) for it in items] == [("judgement", "判断"), ("judgement", "判断"),
                                                     ("choice", "单选"), ("choice", "单选")]
    assert items[2].allowed == ("A", "B", "C", "D") and items[2].gold == "B"
    assert [needs_judge(it, "abstained") for it in items] == [False, True, True, False]
    _attach(items, [None, '{"answer": "正确"}', '{"answer": "B"}', None])
    judged, rules = judged_metrics("police_exam", items, "abstained")
    assert rules == {"acc_tf": 0.5, "acc_single": 0.0, "acc_multi": None, "total": 0.25}
    assert judged == {"acc_tf": 1.0, "acc_single": 0.5, "acc_multi": None, "total": 0.75}


def test_equivalence_is_compared_with_the_span_rule():
    doc = {"task": "case_reading", "qtype": "精确", "answer": "赵某", "context": "店主赵某随即拨打110报警。",
           "question": "谁拨打110报警？"}
    records = [_record(i, {**doc, "id": f"c{i}"}, out, qa) for i, out in enumerate(["赵某", "是店主报的警", ""])]
    items = task_items("case_reading", records)
    assert [it.kind for it in items] == ["equivalence"] * 3
    assert [needs_judge(it, "abstained") for it in items] == [False, False, True]   # only the empty one
    _attach(items, ['{"answer": "等价"}', '{"answer": "等价"}', '{"answer": "无有效答案"}'])
    judged, rules = judged_metrics("case_reading", items, "all")
    assert rules["acc_exact"] == pytest.approx(1 / 3) and judged["acc_exact"] == pytest.approx(2 / 3)
    a = agreement(items)   # item 2: rules 0 (wrong span), judge 1 (等价) → different; item 3: both none
    assert (a["agree"], a["different"], a["score_changed"]) == (2, 1, 1)


def test_ie_is_not_judged_and_generation_only_with_rubric():
    rec = {"doc_id": 0, "doc": {"id": "g", "task": "case_summary", "input": "原文", "reference": "参考"},
           "filtered_resps": ["摘要"], "reading": {"answer": 2}}
    assert task_items("case_summary", [rec]) == []
    (item,) = task_items("case_summary", [rec], rubric=True)
    assert item.kind == "rubric" and item.fields["reference"] == "参考"
    assert task_items("drug_ner", [{"doc_id": 0, "doc": {"task": "drug_ner"}, "filtered_resps": ["[]"]}]) == []


# --------------------------------------------------------------------------- shown where people look

STAMP = "2026-01-02T03-04-05.000006"


def hand_judged_run(folder: Path) -> Path:
    """A run folder holding the four rumor samples, its results file, and a judged_*.json of the
    abstained mode whose judge read sample 1 as 非谣言 and found no answer in sample 2."""
    from cpsd_tasks.judge.cli import task_entry
    from cpsd_tasks.report.runs import load_runs

    folder.mkdir(parents=True)
    records = rumor_records()
    (folder / f"samples_cpsd_rumor_{STAMP}.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    results = {"results": {"cpsd_rumor": {"alias": "cpsd_rumor", "acc,none": 0.25, "acc_fuzzy,none": 0.25,
                                          "invalid_rate,none": 0.5}},
               "configs": {"cpsd_rumor": {}}, "n-samples": {"cpsd_rumor": {"effective": 4}},
               "config": {"model": "local-chat-completions", "model_args": "model=m1"}}
    (folder / f"results_{STAMP}.json").write_text(json.dumps(results), encoding="utf-8")
    (run,) = load_runs([folder])
    items = task_items("rumor", run.tasks["rumor"].samples())
    for item, text in zip(items, [None, '{"answer": "非谣言"}', '{"answer": "无有效答案"}', None]):
        if text is not None:
            item.raw_reply = text
            item.reading = read_reply(text, item.kind, item.allowed)
    judged = {"kind": "cpsd-judge", "judge": {"model": "jm", "mode": "abstained", "prompt_digest": "d" * 16},
              "tasks": {"cpsd_rumor": task_entry("rumor", run.tasks["rumor"], items, "abstained")}}
    (folder / f"judged_{STAMP}.json").write_text(json.dumps(judged, ensure_ascii=False), encoding="utf-8")
    return folder


def test_leaderboard_shows_judged_figures_beside_the_rule_figures(tmp_path):
    from cpsd_tasks.report import html
    from cpsd_tasks.report.render import judged_csv, judged_markdown, to_markdown
    from cpsd_tasks.report.runs import load_runs
    from cpsd_tasks.report.tables import TABLES, build_rows

    rows = build_rows(load_runs([hand_judged_run(tmp_path / "m1")]))
    assert rows[0].value("rumor", "acc_fuzzy") == 0.25               # the rule figure is unchanged
    assert "ʲ" not in to_markdown(TABLES[0], rows)                   # and the paper tables too
    md = judged_markdown(rows)
    assert "| m1 | unknown§ | rumor | acc_fuzzy | 0.2500 | 0.5000ʲ | 2/4 | 0.5000 (1/2) | jm (abstained) |" in md
    assert "| m1 | unknown§ | rumor | invalid_rate | 0.5000 | 0.2500ʲ | 2/4 | 0.5000 (1/2) | jm (abstained) |" in md
    assert f"ʲ m1: judged after the run by cpsd-judge with judge jm (abstained mode, prompts {'d' * 16})" in md
    assert judged_csv(rows).splitlines()[1] == "m1,unknown,rumor,acc_fuzzy,0.25,0.5,2,4,0.5,jm,abstained," + "d" * 16
    shown = [s[8] for s in html.sample_data(rows)["samples"]]
    assert shown == [None, "judgeʲ jm (abstained): 非谣言", "judgeʲ jm (abstained): no valid answer", None]
    page = html.render_page(rows, figures=False)
    assert '<a href="#judged">Judged figures</a>' in page and "<td>jm (abstained)</td>" in page


def test_a_judging_of_another_sample_log_is_not_attached(tmp_path):
    from cpsd_tasks.report.render import judged_markdown
    from cpsd_tasks.report.runs import load_runs
    from cpsd_tasks.report.tables import build_rows

    folder = hand_judged_run(tmp_path / "m1")
    path = folder / f"judged_{STAMP}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["tasks"]["cpsd_rumor"]["source"] = "/elsewhere/samples_cpsd_rumor_2020-01-01T00-00-00.jsonl"
    path.write_text(json.dumps(data), encoding="utf-8")
    (run,) = load_runs([folder])
    assert run.tasks["rumor"].judged == {} and judged_markdown(build_rows([run])) == ""


@pytest.mark.e2e
def test_the_sample_browser_shows_the_judges_reading(tmp_path):
    from test_html_report import CHROMIUM, dom

    if CHROMIUM is None:
        pytest.skip("headless Chromium is not installed (Debian package 'chromium'; .ci/run installs it)")
    from cpsd_tasks.report import html

    page = html.build([hand_judged_run(tmp_path / "m1")], tmp_path / "p.html", figures=False)
    text = dom(page.as_uri() + "#browse?task=rumor")
    assert text.count('class="facts judge"') == 2
    assert "judgeʲ jm (abstained): 非谣言" in text and "judgeʲ jm (abstained): no valid answer" in text


# --------------------------------------------------------------------------- the client on loopback

def test_chat_url_and_sample_digest():
    assert chat_url("http://h:1/v1") == chat_url("http://h:1/v1/") == "http://h:1/v1/chat/completions"
    assert chat_url("http://h:1/v1/chat/completions") == "http://h:1/v1/chat/completions"
    m = [{"role": "user", "content": "问"}]
    assert sample_digest(m) == sample_digest(json.loads(json.dumps(m))) != sample_digest([{"role": "user",
                                                                                           "content": "问 "}])


@pytest.mark.e2e
def test_cache_answers_a_second_run_and_requests_are_temperature_zero(tmp_path):
    server = CaptureServer(lambda payload, prompt: Reply('{"answer": "B"}'))
    try:
        reqs = [([{"role": "user", "content": f"题{i}"}], "choice") for i in range(5)]
        for run in range(2):
            cache = ReplyCache(tmp_path / "c.db")
            client = JudgeClient(server.url, "j", cache, "d1", concurrency=3, backoff=0)
            got = {}
            client.replies(reqs, lambda i, text, cached: got.setdefault(i, (text, cached)), progress=False)
            cache.close()
            assert sorted(got) == [0, 1, 2, 3, 4] and {c for _, c in got.values()} == {run == 1}
        assert len(server.payloads) == 5                               # the second run sent nothing
        assert {p["temperature"] for p in server.payloads} == {0} and {p["model"] for p in server.payloads} == {"j"}
        cache = ReplyCache(tmp_path / "c.db")                          # another judge model: not cached
        JudgeClient(server.url, "k", cache, "d1", backoff=0).replies(reqs[:1], lambda *a: None, progress=False)
        assert len(server.payloads) == 6 and len(cache) == 6
        cache.close()
    finally:
        server.stop()


@pytest.mark.e2e
def test_retries_then_one_line_failure_keeps_what_was_judged(tmp_path):
    # every prompt fails with 500 twice, then answers: retried with back-off (0 here) until it does
    with FaultServer(plan=lambda prompt, attempt: "500" if attempt <= 2 else "ok",
                     content=lambda prompt: '{"answer": "A"}') as fs:
        cache = ReplyCache(tmp_path / "a.db")
        client = JudgeClient(fs.url, "j", cache, "d", concurrency=2, max_retries=2, backoff=0)
        got = []
        client.replies([([{"role": "user", "content": f"q{i}"}], "choice") for i in range(3)],
                       lambda i, t, c: got.append(t), progress=False)
        assert got == ['{"answer": "A"}'] * 3 and fs.requests == 9
        cache.close()
    # prompt q2 always fails: the others are kept, and a second run sends only q2
    with FaultServer(plan=lambda prompt, attempt: "500" if prompt == "q2" else "ok",
                     content=lambda prompt: '{"answer": "C"}') as fs:
        cache = ReplyCache(tmp_path / "b.db")
        client = JudgeClient(fs.url, "j", cache, "d", concurrency=1, max_retries=1, backoff=0)
        reqs = [([{"role": "user", "content": f"q{i}"}], "choice") for i in range(5)]
        with pytest.raises(JudgeTransportError) as err:
            client.replies(reqs, lambda *a: None, progress=False)
        assert "\n" not in str(err.value) and "failed 2 times (last: HTTP 500)" in str(err.value)
        assert len(cache) == 2                                         # q0, q1; nothing after the failure
        fs.reset_counts()
        with pytest.raises(JudgeTransportError):
            client.replies(reqs, lambda *a: None, progress=False)
        assert fs.attempts["q0"] == fs.attempts["q1"] == 0 and fs.attempts["q2"] == 2
        cache.close()


@pytest.mark.e2e
def test_concurrency_keeps_that_many_requests_in_flight(tmp_path):
    with FaultServer(delay=0.3, content=lambda prompt: '{"answer": "A"}') as fs:
        cache = ReplyCache(tmp_path / "c.db")
        JudgeClient(fs.url, "j", cache, "d", concurrency=3, backoff=0).replies(
            [([{"role": "user", "content": f"q{i}"}], "choice") for i in range(7)], lambda *a: None, progress=False)
        assert fs.requests == 7 and fs.max_in_flight == 3 and len(cache) == 7
        cache.close()


@pytest.mark.e2e
def test_unretried_status_and_unreachable_endpoint(tmp_path):
    server = CaptureServer(lambda payload, prompt: Reply(status=401, body={"error": "bad key"}))
    cache = ReplyCache(tmp_path / "c.db")
    try:
        with pytest.raises(JudgeTransportError, match="answered HTTP 401"):
            client = JudgeClient(server.url, "j", cache, "d", backoff=0)
            client.replies([([{"role": "user", "content": "q"}], "label")], lambda *a: None, progress=False)
        assert len(server.payloads) == 1                               # a 401 is not retried
    finally:
        server.stop()
    with pytest.raises(JudgeTransportError, match="failed 2 times .last: cannot connect"):
        JudgeClient(server.url, "j", cache, "d", max_retries=1, backoff=0).replies(
            [([{"role": "user", "content": "q"}], "label")], lambda *a: None, progress=False)
    cache.close()


# --------------------------------------------------------------------------- the Done-when sequence

MEANING = {"rumor": "我认为这条消息是真实可信的", "exam": "我认为第二个说法站得住脚"}


def _model_reply(payload, prompt):
    """The rule baseline, except every third prompt (by CRC-32) answered only by meaning."""
    from cpsd_tasks.baseline import answer

    if zlib.crc32(prompt.encode("utf-8")) % 3 == 0:
        return Reply(MEANING["rumor"] if "谣言" in prompt else MEANING["exam"])
    return Reply(answer(prompt))


def _cli(*args, cwd):
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=300)


@pytest.mark.e2e
def test_run_then_judge_then_leaderboard(tmp_path, hf_home, capsys):
    model = CaptureServer(_model_reply)
    try:
        run = run_cpsd_eval("cpsd_rumor,cpsd_police_exam", model.url, tmp_path / "out", hf_home)
    finally:
        model.stop()
    logs = run["samples"]
    unread = {t: [s for s in logs[f"cpsd_{t}"] if s["reading"]["answer"] is None] for t in ("rumor", "police_exam")}
    assert all(unread.values())                                        # some answers are given by meaning only
    n_unread = sum(map(len, unread.values()))
    script = {MEANING["rumor"]: '{"answer": "非谣言"}', MEANING["exam"]: '{"answer": "B"}'}
    judge = judge_server(script)
    try:
        args = ("cpsd_tasks.judge.cli", str(tmp_path / "out"), "--base_url", judge.url, "--model", "scripted-judge",
                "--no-progress")
        first = _cli(*args, cwd=tmp_path)
        assert first.returncode == 0, first.stderr
        assert len(judge.payloads) == n_unread                         # abstained: only what the rules could not read
        sent = [prompts_section for p in judge.payloads for prompts_section in [p["messages"][-1]["content"]]]
        assert all(MEANING["rumor"] in s or MEANING["exam"] in s for s in sent)
        assert f"{n_unread} requests sent, 0 replies from the cache" in first.stderr
        second = _cli(*args, cwd=tmp_path)
        assert second.returncode == 0 and len(judge.payloads) == n_unread          # the cache: nothing sent
        assert f"0 requests sent, {n_unread} replies from the cache" in second.stderr
    finally:
        judge.stop()

    (folder,) = {p.parent for p in (tmp_path / "out").rglob("results_*.json")}
    judged_files = sorted(folder.glob("judged_*.json"))
    assert len(judged_files) == 2
    data = json.loads(judged_files[-1].read_text(encoding="utf-8"))
    assert data["judge"]["model"] == "scripted-judge" and data["judge"]["mode"] == "abstained"
    assert data["judge"]["prompt_digest"] == prompts.prompt_digest(["choice", "judgement", "label"])
    rumor = data["tasks"]["cpsd_rumor"]
    docs = logs["cpsd_rumor"]
    # by hand: the rules' right answers, plus the unread samples whose gold is 非谣言 (the judge reads 非谣言)
    judged_right = sum(s["doc"]["label"] == "非谣言" for s in unread["rumor"])
    expected = (sum(s["acc_fuzzy"] for s in docs) + judged_right) / len(docs)
    assert rumor["metrics"]["acc_fuzzy"] == pytest.approx(expected)
    assert expected > rumor["rule_metrics"]["acc_fuzzy"]                # the judge credits answers given by meaning
    in_run = run["results"]["results"]["cpsd_rumor"]["acc_fuzzy,none"]
    assert rumor["rule_metrics"]["acc_fuzzy"] == pytest.approx(in_run)
    assert rumor["sent"] == len(unread["rumor"]) and rumor["agreement"]["n"] == len(unread["rumor"])
    exam = data["tasks"]["cpsd_police_exam"]
    single = [s for s in unread["police_exam"] if s["doc"]["qtype"] == "单选"]
    tf = [s for s in unread["police_exam"] if s["doc"]["qtype"] == "判断"]
    assert all(exam["samples"][str(s["doc_id"])]["judge"] == "B" for s in single)
    assert all(exam["samples"][str(s["doc_id"])]["status"] == "invalid" for s in tf)   # "B" is no 判断 answer

    from cpsd_tasks.report import cli as leaderboard

    assert leaderboard.main([str(tmp_path / "out"), "--tables", "3", "--out", str(tmp_path / "lb"), "--no-plots",
                             "--no-errors"]) == 0
    shown = capsys.readouterr().out
    assert "### Judged figuresʲ" in shown
    row = next(line for line in shown.splitlines() if "| rumor | acc_fuzzy |" in line)
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[4:] == [f"{rumor['rule_metrics']['acc_fuzzy']:.4f}", f"{expected:.4f}ʲ",
                         f"{len(unread['rumor'])}/{len(docs)}", f"{rumor['agreement']['rate']:.4f} "
                         f"({rumor['agreement']['agree']}/{rumor['agreement']['n']})", "scripted-judge (abstained)"]
    assert "judge scripted-judge (abstained mode, prompts" in shown
    csv_text = (tmp_path / "lb" / "judged.csv").read_text(encoding="utf-8")
    assert f"rumor,acc_fuzzy,{rumor['rule_metrics']['acc_fuzzy']!r},{expected!r}," in csv_text

    from cpsd_tasks.report import html
    from cpsd_tasks.report.runs import load_runs
    from cpsd_tasks.report.tables import build_rows

    rows = build_rows(load_runs([tmp_path / "out"]))
    page = html.render_page(rows, figures=False)
    assert 'id="judged-table"' in page and "scripted-judge (abstained)" in page
    data_pack = html.sample_data(rows)
    shown_judge = [s[8] for s in data_pack["samples"] if s[8]]
    assert len(shown_judge) == n_unread
    assert "judgeʲ scripted-judge (abstained): 非谣言" in shown_judge


@pytest.mark.e2e
def test_all_mode_through_cpsd_leaderboard_judge(tmp_path, hf_home):
    model = CaptureServer(_model_reply)
    try:
        run = run_cpsd_eval("cpsd_rumor", model.url, tmp_path / "out", hf_home)
    finally:
        model.stop()
    n = len(run["samples"]["cpsd_rumor"])
    judge = CaptureServer(scripted_reply({}))
    try:
        proc = _cli("cpsd_tasks.report.cli", "judge", str(tmp_path / "out"), "--base_url", judge.url, "--model", "j",
                    "--mode", "all", "--no-progress", cwd=tmp_path)
    finally:
        judge.stop()
    assert proc.returncode == 0, proc.stderr
    assert len(judge.payloads) == n
    # the default script reads a bare label and nothing else: it agrees with the rules wherever they read a
    # bare label, and finds no answer where they found none
    said = f"cpsd_rumor: {n} of {n} samples sent to the judge, agreement with the rules {n}/{n} = 1.0000"
    assert said in proc.stdout


@pytest.mark.e2e
def test_endpoint_failure_is_one_line_and_exit_1(tmp_path, hf_home):
    model = CaptureServer(_model_reply)
    try:
        run_cpsd_eval("cpsd_rumor", model.url, tmp_path / "out", hf_home)
    finally:
        model.stop()
    proc = _cli("cpsd_tasks.judge.cli", str(tmp_path / "out"), "--base_url", "http://127.0.0.1:9/v1", "--model", "j",
                "--mode", "all", "--max_retries", "0", "--no-progress", cwd=tmp_path)
    assert proc.returncode == 1
    lines = [line for line in proc.stderr.splitlines() if line.startswith("cpsd-judge: error:")]
    assert len(lines) == 1 and "run again to resume" in lines[0] and "Traceback" not in proc.stderr
    assert not list((tmp_path / "out").rglob("judged_*.json"))


def test_no_sample_log_is_a_usage_error(tmp_path, capsys):
    from cpsd_tasks.judge import cli

    assert cli.main([str(tmp_path / "missing"), "--base_url", "http://x/v1", "--model", "j"]) == 2
    assert "cpsd-judge: error:" in capsys.readouterr().err


# --------------------------------------------------------------------------- the audit's --judge mode

CORPUS = (ROOT.parent / "shared" / "realout" / "lawbench").resolve()


@pytest.mark.e2e
@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"real-output corpus {CORPUS} not present (beside the checkout in CI)")
def test_audit_scores_a_judge_on_the_graded_set(tmp_path, capsys):
    from cpsd_tasks import audit
    from judge_server import section

    corpus = audit.load_corpus(CORPUS, ["GPT4"])
    graded = [r for r in audit.load_graded(ROOT / audit.DEFAULT_GRADED) if r["model"] == "GPT4"]
    by_output = {}
    for r in graded:
        by_output.setdefault(corpus.outputs["GPT4"][r["id"]].strip(), set()).add(r["answer"])
    # a judge that reads as the graders did, except that it credits "A" where they read no answer
    def reply(payload, prompt):
        answers = by_output[section(prompt, "模型的回答")]
        graded_answer = next(iter(answers)) if len(answers) == 1 else "NONE"
        return Reply(json.dumps({"answer": "A" if graded_answer == "NONE" else graded_answer}))

    server = CaptureServer(reply)
    try:
        code = audit.main(["--corpus", str(CORPUS), "--models", "GPT4", "--judge", server.url, "--judge-model", "g",
                           "--judge-cache", str(tmp_path / "c.db"), "--graded", str(ROOT / audit.DEFAULT_GRADED)])
    finally:
        server.stop()
    assert code == 0
    out = capsys.readouterr().out
    n = len(graded)
    none = sum(r["answer"] == "NONE" for r in graded)
    assert len(server.payloads) == n
    plugin = audit.score_graded(corpus, graded)["all"]["plugin"]
    lines = out.splitlines()
    assert any(line.startswith(f"| all | {n} | judge | {(n - none) / n:.4f} | {none} | 0 | 0 |") for line in lines)
    assert any(line.startswith(f"| all | {n} | rules | {plugin.accuracy:.4f} | {plugin.false_credit} | "
                               f"{plugin.missed} | {plugin.wrong_letters} |") for line in lines)
    judge_read = {r["key"]: ("A" if r["answer"] == "NONE" else r["answer"]) for r in graded}
    rules_read = {r["key"]: audit.plugin_reading(corpus, "GPT4", r["id"]) for r in graded}
    agree = sum(rules_read[k] == judge_read[k] for k in judge_read)
    judge_only = sum(rules_read[k] is None for k in judge_read)
    assert any(line.startswith(f"| all | {n} | {agree} ({agree / n:.4f}) | {judge_only} | 0 |") for line in lines)
    assert "## The judge g against the human-graded set" in out
