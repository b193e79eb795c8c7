"""The rule baseline: task identification, classification rules, and the HTTP endpoint."""

import json
import urllib.error
import urllib.request

import pytest

from cpsd_tasks.baseline import UnknownPrompt, answer, identify, split_sections, task_lines
from cpsd_tasks.baseline.rules_clf import classify


def prompt(task_line: str, text: str) -> str:
    return f"【角色】某角色。\n【任务】{task_line}\n【输入】{text}\n【约束】只输出标签。"


def line_of(task_id: str) -> str:
    return next(line for line, tid in task_lines().items() if tid == task_id)


def test_every_classification_yaml_is_recognised():
    assert {"sentiment", "rumor", "fraud_detection", "incident_classification"} <= set(task_lines().values())


def test_split_sections():
    assert split_sections("前言【角色】甲\n【任务】乙\n【输入】丙【丁】\n【约束】戊") == {
        "角色": "甲", "任务": "乙", "输入": "丙【丁】", "约束": "戊"}


@pytest.mark.parametrize("task, text, expected", [
    ("fraud_detection", "请把钱转账到安全账户，并告诉我验证码", "诈骗"),
    ("fraud_detection", "您的快递已放在驿站", "正常"),              # no cue -> fallback
    ("rumor", "紧急扩散！明天全市停水", "谣言"),
    ("rumor", "今天天气晴", "非谣言"),
    ("sentiment", "感谢民警，辛苦了，致敬！", "积极"),
    ("sentiment", "太可怕了，我很害怕", "消极"),
    ("sentiment", "今天开会", "中性"),
    ("incident_classification", "张某驾驶轿车在路口与电动车相撞", "交通事故"),
    ("incident_classification", "李某接到冒充客服的电话后转账", "电信诈骗"),
    ("incident_classification", "王某持刀将赵某刺伤", "故意伤害"),
    ("incident_classification", "家中财物不翼而飞", "盗窃"),          # no cue -> fallback
])
def test_classification_rules(task, text, expected):
    assert classify(task, text) == expected
    assert answer(prompt(line_of(task), text)) == expected


def test_tie_goes_to_earlier_label():
    # one 消极 cue (害怕) and one 积极 cue (感谢): 消极 is listed first
    assert classify("sentiment", "害怕，感谢") == "消极"


def test_unknown_prompt_rejected():
    with pytest.raises(UnknownPrompt):
        identify("你好，请写一首诗")


@pytest.mark.parametrize("task_id, inp, expected", [
    ("rumor", "任何帖子", "谣言"),                               # the first label
    ("drug_ner", "张某贩卖冰毒5克。", "[]"),
    ("case_reading", "案情", "未知"),
    ("police_exam", "题目", "A"),
    ("case_summary", "第一句。第二句。", "第一句。"),             # the input's first sentence
])
def test_fallback_rule_for_a_task_without_rules(task_id, inp, expected):
    from cpsd_tasks.baseline import fallback_rule

    assert fallback_rule(task_id)({"输入": inp}) == expected


def _post(url: str, payload: dict):
    req = urllib.request.Request(url, data=json.dumps(payload).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return resp.status, json.loads(resp.read())


def test_http_endpoint(baseline_server, baseline_url):
    before = baseline_server.requests
    status, body = _post(baseline_url, {"model": "baseline", "messages": [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": prompt(line_of("fraud_detection"), "验证码发我，马上转账")}]})
    assert status == 200
    assert body["choices"][0]["message"]["content"] == "诈骗"
    assert baseline_server.requests == before + 1
    with pytest.raises(urllib.error.HTTPError) as err:
        _post(baseline_url, {"model": "baseline", "messages": [{"role": "user", "content": "写一首诗"}]})
    assert err.value.code == 400
    assert "only answers cpsd prompts" in json.loads(err.value.read())["error"]["message"]
    models_url = baseline_url.replace("/chat/completions", "/models")
    with urllib.request.urlopen(models_url, timeout=10) as resp:
        assert json.loads(resp.read())["data"][0]["id"] == "baseline"


@pytest.mark.parametrize("body, message", [
    (b"[1,2]", "request body must be a JSON object, got list"),
    (b'"hello"', "request body must be a JSON object, got str"),
    (b"null", "request body must be a JSON object, got NoneType"),
    (b"{not json", "request body is not JSON"),
    (b"", "request body is not JSON"),
    (b"\xff\xfe{}", "request body is not UTF-8"),
    (b"[" * 100_000 + b"]" * 100_000, "request body is not JSON"),
    (b'{"messages": "hi"}', "request needs 'messages': a non-empty list"),
    (b'{"messages": []}', "request needs 'messages': a non-empty list"),
    (b'{"messages": [1, 2]}', "messages[0] must be an object, got int"),
    (b'{"messages": [{"content": "x"}]}', "messages[0].role must be a string"),
    (b'{"messages": [{"role": "user", "content": 5}]}', "messages[0].content must be a string or a list of parts"),
    (b'{"messages": [{"role": "user", "content": [1]}]}', "messages[0].content[0] must be an object, got int"),
    (b'{"messages": [{"role": "user", "content": [{"type": "text", "text": 5}]}]}',
     "messages[0].content[0].text must be a string, got int"),
    (b'{"messages": [{"role": "system", "content": "x"}]}', "request has no user message"),
])
def test_malformed_bodies_get_400_json_and_the_connection_stays_usable(baseline_server, body, message):
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", baseline_server.server_port, timeout=10)
    try:
        conn.request("POST", "/v1/chat/completions", body=body, headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        assert resp.status == 400
        assert resp.getheader("Content-Type").startswith("application/json")
        error = json.loads(resp.read())["error"]
        assert message in error["message"] and error["type"] == "invalid_request_error"
        # The same keep-alive connection still answers a good request.
        good = {"messages": [{"role": "user", "content": prompt(line_of("rumor"), "今天天气晴。")}]}
        conn.request("POST", "/v1/chat/completions", body=json.dumps(good).encode())
        resp = conn.getresponse()
        assert resp.status == 200 and json.loads(resp.read())["choices"][0]["message"]["content"]
    finally:
        conn.close()


@pytest.mark.parametrize("length, status, message", [
    ("abc", 400, "Content-Length 'abc' is not a number"),
    ("-5", 400, "Content-Length -5 is negative"),
    (str(10**12), 413, "is larger than"),
])
def test_bad_content_length_gets_json_error(baseline_server, length, status, message):
    import socket

    with socket.create_connection(("127.0.0.1", baseline_server.server_port), timeout=10) as sock:
        sock.sendall(f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: {length}\r\n\r\n{{}}".encode())
        data = b""
        while chunk := sock.recv(65536):  # the server closes: where the body ends is unknown
            data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    assert head.startswith(f"HTTP/1.1 {status}".encode())
    assert message in json.loads(body)["error"]["message"]


def test_a_bug_in_a_rule_is_a_500_json_answer(baseline_server, baseline_url, monkeypatch, capsys):
    from cpsd_tasks.baseline import server

    def broken(text):
        raise KeyError("oops")

    monkeypatch.setattr(server, "answer", broken)
    with pytest.raises(urllib.error.HTTPError) as err:
        _post(baseline_url, {"messages": [{"role": "user", "content": prompt(line_of("rumor"), "x")}]})
    assert err.value.code == 500
    assert json.loads(err.value.read())["error"]["message"] == "cpsd-baseline-server bug: KeyError: 'oops'"
