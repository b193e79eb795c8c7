"""End to end: the real lm_eval CLI on cpsd_clf against the rule-baseline endpoint (loopback)."""

import json
import os
import subprocess
import sys

import pytest

from cpsd_tasks.data.loading import DEMO_DIR, read_jsonl

from conftest import SHARED_DATA, needs_shared_data, run_cpsd_eval

CLF = ["sentiment", "rumor", "fraud_detection", "incident_classification"]
METRICS = ["acc", "acc_fuzzy", "f1_macro", "precision_macro", "recall_macro", "refusal_rate", "invalid_rate"]

pytestmark = pytest.mark.e2e


def check_run(run, data_dir):
    results = run["results"]["results"]
    for task in CLF:
        row = results[f"cpsd_{task}"]
        for metric in METRICS + ["score"]:
            value = row[f"{metric},none"]
            assert 0.0 <= value <= 1.0, (task, metric, value)
        assert row["invalid_rate,none"] >= row["refusal_rate,none"]
        n = len(read_jsonl(data_dir / task / "test.jsonl", task))
        assert run["results"]["n-samples"][f"cpsd_{task}"]["effective"] == n
        assert len(run["samples"][f"cpsd_{task}"]) == n
    assert 0.0 <= results["cpsd_clf"]["acc,none"] <= 1.0


def test_clf_on_demo(tmp_path, baseline_url, hf_home):
    run = run_cpsd_eval("cpsd_clf", baseline_url, tmp_path / "out", hf_home)
    check_run(run, DEMO_DIR)
    sample = run["samples"]["cpsd_fraud_detection"][0]
    assert sample["doc"]["data_source"] == "demo"
    assert "DEMO data" in run["stderr"]
    # The rule baseline's answers are exact labels, so strict and fuzzy accuracy agree.
    row = run["results"]["results"]["cpsd_fraud_detection"]
    assert row["acc,none"] == row["acc_fuzzy,none"] and row["invalid_rate,none"] == 0.0


@needs_shared_data
def test_clf_on_shared_data(tmp_path, baseline_url, hf_home):
    run = run_cpsd_eval("cpsd_clf", baseline_url, tmp_path / "out", hf_home, data_dir=SHARED_DATA)
    check_run(run, SHARED_DATA)
    assert run["samples"]["cpsd_rumor"][0]["doc"]["data_source"] == str(SHARED_DATA / "rumor" / "test.jsonl")


def test_plain_lm_eval_with_include_path(tmp_path, baseline_url, hf_home):
    path = subprocess.run([sys.executable, "-m", "cpsd_tasks", "path"], capture_output=True, text=True,
                          check=True).stdout.strip()
    env = dict(os.environ, HF_HOME=str(hf_home), HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1")
    cmd = [sys.executable, "-m", "lm_eval", "--include_path", path, "--tasks", "cpsd_rumor", "--limit", "4",
           "--model", "local-chat-completions", "--model_args", f"base_url={baseline_url},model=baseline",
           "--apply_chat_template", "--output_path", str(tmp_path / "o")]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads(next((tmp_path / "o").rglob("results_*.json")).read_text())
    assert results["n-samples"]["cpsd_rumor"]["effective"] == 4


def test_bad_data_fails_before_any_request(tmp_path, baseline_server, baseline_url, hf_home):
    bad = tmp_path / "data" / "rumor"
    bad.mkdir(parents=True)
    (bad / "test.jsonl").write_text('{"id": "1", "text": "x", "label": "谣言"}\n'
                                    '{"id": "2", "text": "y", "label": "假"}\n', encoding="utf-8")
    before = baseline_server.requests
    env = dict(os.environ, HF_HOME=str(hf_home), HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1")
    cmd = [sys.executable, "-m", "cpsd_tasks.cli", "--tasks", "cpsd_rumor", "--model", "local-chat-completions",
           "--model_args", f"base_url={baseline_url},model=baseline", "--apply_chat_template",
           "--metadata", json.dumps({"data_dir": str(tmp_path / "data")})]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600)
    assert proc.returncode == 2
    assert "cpsd-eval: bad data, nothing was sent to the model." in proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"{bad / 'test.jsonl'}:2: field 'label': expected one of 谣言/非谣言, got '假'" in proc.stderr
    assert baseline_server.requests == before


def test_fewshot_from_fewshot_jsonl_and_clear_error_without_it(tmp_path, baseline_url, hf_home):
    data = tmp_path / "data" / "rumor"
    data.mkdir(parents=True)
    rows = [{"id": f"t{i}", "text": f"帖子{i}：今天天气晴。", "label": "非谣言"} for i in range(3)]
    (data / "test.jsonl").write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")
    shots = [{"id": "f1", "text": "紧急扩散！明天全市停水", "label": "谣言"},
             {"id": "f2", "text": "紧急扩散！地铁停运", "label": "谣言"}]
    (data / "fewshot.jsonl").write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in shots),
                                        encoding="utf-8")
    run = run_cpsd_eval("cpsd_rumor", baseline_url, tmp_path / "out", hf_home, data_dir=tmp_path / "data",
                        extra=("--num_fewshot", "2"))
    # lm-eval 0.4.13 logs a chat prompt as [<messages as a JSON string>, <gen kwargs>]
    messages = json.loads(run["samples"]["cpsd_rumor"][0]["arguments"]["gen_args_0"]["arg_0"][0])
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant", "user"]
    assert [m["content"] for m in messages if m["role"] == "assistant"] == ["谣言", "谣言"]
    assert run["results"]["results"]["cpsd_rumor"]["acc,none"] == 1.0

    (data / "fewshot.jsonl").unlink()
    env = dict(os.environ, HF_HOME=str(hf_home), HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1")
    cmd = [sys.executable, "-m", "cpsd_tasks.cli", "--tasks", "cpsd_rumor", "--num_fewshot", "1",
           "--model", "local-chat-completions", "--model_args", f"base_url={baseline_url},model=baseline",
           "--apply_chat_template", "--metadata", json.dumps({"data_dir": str(tmp_path / "data")})]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600)
    assert proc.returncode == 2
    assert "--num_fewshot 1 needs few-shot examples: put them in <data_dir>/<task id>/fewshot.jsonl" in proc.stderr
    assert "cpsd-eval: missing few-shot examples, nothing was sent to the model." in proc.stderr
    assert "bad data" not in proc.stderr
