"""The design's own command is as safe as ours (issue 23), through the real CLI with a capturing
endpoint on loopback: what was sent, how many requests went out before a refusal, the line
printed and the exit code.

1. ``cpsd-eval --model openai-chat-completions|local-chat-completions|local-completions`` runs
   with the cpsd guards (one stderr line, ``config.cpsd_backend.requested_as``); plain
   ``lm_eval --include_path`` warns once, naming the harness rule;
2. a ``base_url`` whose path is not the endpoint stops before the run (exit 2), an endpoint that
   fails mid-run ends with one line (exit 1);
3. a BERTScore model folder that cannot be used stops the run before any request (exit 2), in
   both ``--metadata`` forms;
6. ``cpsd-eval ls`` lists only our names; ``validate`` takes wildcards and ``--metadata
   data_dir=…``; every data problem of every task is reported at once.
"""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cpsd_tasks import YAML_DIR
from cpsd_tasks.data.loading import DEMO_DIR, load_task_docs
from cpsd_tasks.cli.selection import local_index

from capture_server import CaptureServer, Reply, baseline_reply

pytestmark = pytest.mark.e2e


def cpsd_eval(args: list[str], cwd: Path, hf_home: Path, env_extra: dict | None = None,
              module: str = "cpsd_tasks.cli") -> subprocess.CompletedProcess:
    env = dict(os.environ, HF_HOME=str(hf_home), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", **(env_extra or {}))
    env.pop("CPSD_DATA_DIR", None)
    return subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=900)


def results_of(out: Path) -> dict:
    (path,) = sorted(out.rglob("results_*.json"))
    return json.loads(path.read_text(encoding="utf-8"))


def ours(proc: subprocess.CompletedProcess) -> list[str]:
    return [line for line in proc.stderr.splitlines() if line.startswith("cpsd-eval: ")]


@pytest.fixture
def capture():
    servers = []

    def make(reply=baseline_reply, only_path=None) -> CaptureServer:
        servers.append(CaptureServer(reply, only_path=only_path))
        return servers[-1]

    yield make
    for s in servers:
        s.stop()


def write_jsonl(folder: Path, task: str, rows: list[dict]) -> Path:
    (folder / task).mkdir(parents=True, exist_ok=True)
    path = folder / task / "test.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    return path


# --------------------------------------------------------------------------- 1. the harness's backend names

def test_harness_rule_is_the_installed_one():
    """The rule our warning names is lm-eval's own, in the installed source."""
    from lm_eval.models.openai_completions import OpenAIChatCompletion

    source = inspect.getsource(OpenAIChatCompletion._create_payload)
    for mark in ('"o1" in self.model', '"5" in self.model', '"o3" in self.model', '"o4" in self.model',
                 'output["temperature"] = 1', 'output.pop("stop")'):
        assert mark in source, mark


def test_openai_chat_completions_with_a_5_in_the_name_is_sent_greedy_decoding(tmp_path, hf_home, capture):
    srv = capture()
    out = tmp_path / "out"
    proc = cpsd_eval(["--model", "openai-chat-completions", "--model_args",
                      f"model=qwen2.5-7b-instruct,base_url={srv.url},num_concurrent=2,max_retries=1",
                      "--apply_chat_template", "--tasks", "cpsd_rumor", "--limit", "3", "--output_path", str(out)],
                     tmp_path, hf_home, {"OPENAI_API_KEY": "k"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = results_of(out)
    until = res["configs"]["cpsd_rumor"]["generation_kwargs"]["until"]
    assert len(srv.payloads) == 3
    assert all(p["temperature"] == 0.0 and p["stop"] == until for p in srv.payloads)  # lm-eval alone: 1, no stop
    (line,) = [x for x in ours(proc) if "runs as" in x]
    assert line.startswith("cpsd-eval: --model openai-chat-completions runs as cpsd-openai-chat: the same arguments")
    info = res["config"]["cpsd_backend"]
    assert (info["requested_as"], info["backend"], info["reasoning_model"]) == ("openai-chat-completions",
                                                                                 "cpsd-openai-chat", False)
    (entry,) = info["decoding_sent"]
    assert entry["sent"]["temperature"] == 0.0 and entry["sent"]["stop"] == until and not entry["differences"]
    assert res["config"]["model"] == "cpsd-openai-chat"


def test_local_chat_completions_scores_an_answer_without_choices_as_a_refusal(tmp_path, hf_home, capture):
    first = load_task_docs("rumor")["test"][0]["text"]

    def reply(payload, prompt):
        if first in prompt:
            return Reply(body={"id": "x", "object": "chat.completion", "choices": []})
        return baseline_reply(payload, prompt)

    srv = capture(reply)
    out = tmp_path / "out"
    proc = cpsd_eval(["--model", "local-chat-completions", "--model_args",
                      f"model=m,base_url={srv.url},num_concurrent=2,max_retries=1", "--apply_chat_template",
                      "--tasks", "cpsd_rumor", "--limit", "3", "--output_path", str(out), "--log_samples"],
                     tmp_path, hf_home)
    assert proc.returncode == 0, proc.stderr[-3000:]  # lm-eval alone: exit 1, no results file
    assert len(srv.payloads) == 3
    res = results_of(out)
    info = res["config"]["cpsd_backend"]
    assert (info["requested_as"], info["backend"], info["answers_filtered"]) == (
        "local-chat-completions", "cpsd-local-chat", 1)
    assert res["n-samples"]["cpsd_rumor"]["effective"] == 3
    assert res["results"]["cpsd_rumor"]["refusal_rate,none"] == pytest.approx(1 / 3)
    assert sum("runs as cpsd-local-chat" in x for x in ours(proc)) == 1


def test_local_completions_runs_guarded(tmp_path, hf_home, capture):
    """A completions endpoint: the prompt is sent with greedy decoding and the task's stops; an
    answer without choices is a refusal, a lone surrogate is repaired, a cut answer is counted."""
    docs = [d["text"] for d in load_task_docs("rumor")["test"][:4]]

    def reply(payload, prompt):
        text = payload["prompt"]
        if docs[0] in text:
            return Reply(body={"id": "x", "object": "text_completion", "choices": []})
        answer = "谣言" if docs[1] in text else "非谣言\ud835" if docs[2] in text else "非谣言"
        finish = "length" if docs[3] in text else "stop"
        return Reply(body={"id": "x", "object": "text_completion",
                           "choices": [{"index": 0, "text": answer, "finish_reason": finish}]})

    srv = capture(reply)
    url = srv.url.replace("/chat/completions", "/completions")
    out = tmp_path / "out"
    proc = cpsd_eval(["--model", "local-completions", "--model_args",
                      f"model=m,base_url={url},tokenizer_backend=None,tokenized_requests=False,max_retries=1",
                      "--tasks", "cpsd_rumor", "--limit", "4", "--output_path", str(out), "--log_samples"],
                     tmp_path, hf_home)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert len(srv.payloads) == 4
    res = results_of(out)
    until = res["configs"]["cpsd_rumor"]["generation_kwargs"]["until"]
    for p in srv.payloads:
        assert isinstance(p["prompt"], str) and "messages" not in p
        assert p["temperature"] == 0.0 and p["stop"] == until
    info = res["config"]["cpsd_backend"]
    assert (info["requested_as"], info["backend"]) == ("local-completions", "cpsd-local-completions")
    assert (info["answers_filtered"], info["answers_truncated"]) == (1, 1)
    row = res["results"]["cpsd_rumor"]
    assert row["truncated_rate,none"] == pytest.approx(1 / 4) and row["refusal_rate,none"] == pytest.approx(1 / 4)
    (samples,) = out.rglob("samples_cpsd_rumor_*.jsonl")
    logged = [json.loads(x) for x in samples.read_text(encoding="utf-8").splitlines() if x]
    assert len(logged) == 4 and any("\ufffd" in s["resps"][0][0] for s in logged)  # the log kept every sample


def test_plain_lm_eval_warns_once_naming_the_harness_rule(tmp_path, hf_home, capture):
    """Plain lm_eval builds its own class: our task layer cannot guard it, it says so once."""
    srv = capture()
    proc = cpsd_eval(["run", "--include_path", str(YAML_DIR), "--tasks", "cpsd_rumor,cpsd_sentiment", "--limit", "1",
                      "--model", "openai-chat-completions", "--model_args",
                      f"model=qwen2.5-7b-instruct,base_url={srv.url},max_retries=1", "--apply_chat_template"],
                     tmp_path, hf_home, {"OPENAI_API_KEY": "k"}, module="lm_eval")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert len(srv.payloads) == 2 and all(p["temperature"] == 1 and "stop" not in p for p in srv.payloads)
    warned = [x for x in proc.stderr.splitlines() if "is sampled, NOT decoded greedily" in x]
    assert len(warned) == 1, proc.stderr[-3000:]
    assert "'qwen2.5-7b-instruct'" in warned[0] and '"5" in model' in warned[0] and "cpsd-eval" in warned[0]


# --------------------------------------------------------------------------- 2. the path, and failures mid-run

def test_base_url_without_the_endpoint_path_is_one_line_before_any_request(tmp_path, hf_home, capture):
    srv = capture(only_path="/v1/chat/completions")
    proc = cpsd_eval(["--model", "local-chat-completions", "--model_args", f"model=m,base_url={srv.root}/v1",
                      "--apply_chat_template", "--tasks", "cpsd_rumor"], tmp_path, hf_home)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    (line,) = [x for x in proc.stderr.splitlines() if x.strip()]
    assert line == (f"cpsd-eval: base_url {srv.root}/v1 does not end with /chat/completions: --model "
                    f"local-chat-completions posts to base_url as given and needs the chat-completions endpoint; "
                    f"use base_url={srv.root}/v1/chat/completions; skip this check with --no_preflight")
    assert srv.payloads == [] and srv.not_found == 0  # nothing at all was sent


def test_a_path_the_server_does_not_have_is_one_line_before_any_request(tmp_path, hf_home, capture):
    srv = capture(only_path="/v1/chat/completions")
    url = f"{srv.root}/api/v1/chat/completions"
    proc = cpsd_eval(["--model", "openai-chat-completions", "--model_args", f"model=m,base_url={url}",
                      "--apply_chat_template", "--tasks", "cpsd_rumor"], tmp_path, hf_home, {"OPENAI_API_KEY": "k"})
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    (line,) = [x for x in proc.stderr.splitlines() if x.strip()]
    assert line.startswith(f"cpsd-eval: the server at base_url {url} has no such endpoint: HTTP 404 "
                           f'({{"detail": "Not Found"}}); fix the path in base_url')
    assert srv.payloads == [] and srv.not_found == 2  # the GET and the empty POST {} of the check


def test_endpoint_failing_mid_run_is_one_line_and_exit_1(tmp_path, hf_home, capture):
    srv = capture(only_path="/v1/chat/completions")
    url = f"{srv.root}/v2/chat/completions"
    proc = cpsd_eval(["--no_preflight", "--model", "local-chat-completions", "--model_args",
                      f"model=m,base_url={url},num_concurrent=2,max_retries=1", "--apply_chat_template",
                      "--tasks", "cpsd_rumor", "--limit", "3", "--output_path", str(tmp_path / "out")],
                     tmp_path, hf_home)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    (line,) = [x for x in ours(proc) if "the endpoint" in x]
    assert line.startswith('cpsd-eval: the endpoint answered HTTP 404 Not Found: {"detail": "Not Found"} '
                           "(after the retries in max_retries); the run stopped. Base_url's path is probably wrong")
    assert not list((tmp_path / "out").rglob("results_*.json"))


def test_server_error_beyond_retries_is_one_line_quoting_the_server(tmp_path, hf_home, capture):
    def reply(payload, prompt):
        return Reply(status=500, body={"error": {"message": "CUDA out of memory on the server"}})

    srv = capture(reply)
    proc = cpsd_eval(["--model", "cpsd-local-chat", "--model_args", f"model=m,base_url={srv.url},max_retries=2",
                      "--apply_chat_template", "--tasks", "cpsd_rumor", "--limit", "1"], tmp_path, hf_home)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    (line,) = [x for x in ours(proc) if "the endpoint" in x]
    assert "HTTP 500 Internal Server Error" in line and "CUDA out of memory on the server" in line
    assert len(srv.payloads) == 2  # max_retries=2: two attempts in all


# --------------------------------------------------------------------------- 3. BERTScore folder

@pytest.mark.parametrize("form", ["k=v", "json"])
def test_bertscore_folder_missing_stops_before_any_request(tmp_path, hf_home, capture, form):
    srv = capture()
    folder = "/models/bert-base-chinese-typo"
    metadata = ([f"bertscore_model={folder}", "bertscore_num_layers=8"] if form == "k=v"
                else [json.dumps({"bertscore_model": folder, "bertscore_num_layers": 8})])
    proc = cpsd_eval(["--model", "cpsd-local-chat", "--model_args", f"model=m,base_url={srv.url}",
                      "--apply_chat_template", "--tasks", "cpsd", "--metadata", *metadata], tmp_path, hf_home)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    (line,) = [x for x in proc.stderr.splitlines() if x.strip()]
    assert line.startswith("cpsd-eval: invalid run option, nothing was sent to the model. cpsd_case_report: "
                           f"BERTScore model (--metadata bertscore_model={folder}): folder '{folder}' does not exist")
    assert srv.payloads == []


def test_bertscore_folder_without_weights_stops_before_any_request(tmp_path, hf_home, capture):
    srv = capture()
    folder = tmp_path / "bert"
    folder.mkdir()
    (folder / "config.json").write_text('{"model_type": "bert"}', encoding="utf-8")
    (folder / "vocab.txt").write_text("[PAD]\n[UNK]\n", encoding="utf-8")
    proc = cpsd_eval(["--model", "cpsd-local-chat", "--model_args", f"model=m,base_url={srv.url}",
                      "--apply_chat_template", "--tasks", "cpsd_tg", "--metadata", f"bertscore_model={folder}",
                      "bertscore_num_layers=8"], tmp_path, hf_home)
    assert proc.returncode == 2
    assert f"folder '{folder}' has no weights (model.safetensors or pytorch_model.bin)" in proc.stderr
    assert srv.payloads == []


# --------------------------------------------------------------------------- 6. ls, validate, every problem

def test_ls_lists_only_cpsd_names_without_the_harness(tmp_path, hf_home):
    code = ("import sys\nfrom cpsd_tasks.cli.cpsd_eval import main\ntry:\n    main(['ls', 'tasks'])\n"
            "except SystemExit as e:\n    assert e.code == 0\n"
            "print('MODULES', sorted(m for m in sys.modules if m.split('.')[0] == 'lm_eval'))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-1] == "MODULES []"
    index = local_index()
    names = [line.split()[0] for line in lines[:-1] if line.startswith("  ")]
    assert sorted(names) == sorted([*index.groups, *index.tasks, *index.tags])
    assert len(names) == 5 + 19 + 5
    assert "  cpsd_rumor" in proc.stdout and "folder rumor" in proc.stdout


def test_validate_takes_wildcards_and_data_dir_and_reports_every_problem(tmp_path, hf_home):
    data = tmp_path / "data"
    for task in ("sentiment", "fraud_detection", "incident_classification"):
        write_jsonl(data, task, load_task_docs(task)["test"])
    rumor = write_jsonl(data, "rumor",
                        [{"id": "1", "text": "x", "label": "谣言"}, {"id": "2", "text": "y", "label": "假"},
                                        {"id": "2", "text": "z", "label": "非谣言"}])
    sentiment = write_jsonl(data, "sentiment", [{"id": "a", "text": "", "label": "积极"}])
    proc = cpsd_eval(["validate", "--tasks", "cpsd_clf*", "--metadata", f"data_dir={data}"], tmp_path, hf_home)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert lines[0] == "cpsd-eval: bad data: 3 problem(s) in 2 of 4 task(s), one per line:"
    assert sorted(lines[1:]) == sorted([f"{rumor}:2: field 'label': expected one of 谣言/非谣言, got '假'",
                                        f"{rumor}:3: field 'id': duplicate id '2', first used on line 2",
                                        f"{sentiment}:1: field 'text': expected a non-empty string, got an empty one"])
    good = tmp_path / "good"
    for task in ("sentiment", "rumor", "fraud_detection", "incident_classification"):
        write_jsonl(good, task, load_task_docs(task)["test"])
    proc = cpsd_eval(["validate", "--tasks", "cpsd_clf", "--metadata", json.dumps({"data_dir": str(good)})],
                     tmp_path, hf_home)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"cpsd-eval: 4 task(s) valid (cpsd_clf), data from {good}; run options valid"


def test_run_reports_every_data_problem_of_every_task_before_any_request(tmp_path, hf_home, capture):
    srv = capture()
    data = tmp_path / "data"
    rumor = write_jsonl(data, "rumor", [{"id": "1", "text": "x", "label": "假"}])
    ner = write_jsonl(data, "drug_ner", [{"id": "1", "text": "x", "entities": [{"type": "毒品", "text": "冰毒"}]}])
    proc = cpsd_eval(["--model", "cpsd-local-chat", "--model_args", f"model=m,base_url={srv.url}",
                      "--apply_chat_template", "--tasks", "cpsd_rumor,cpsd_drug_ner,cpsd_fraud_ner",
                      "--metadata", f"data_dir={data}"], tmp_path, hf_home)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    lines = [x for x in proc.stderr.splitlines() if x.strip()]
    assert lines[0] == ("cpsd-eval: bad data, nothing was sent to the model. 3 problem(s) in 3 of 3 task(s), "
                        "one per line:")
    assert lines[1:] == [f"{rumor}:1: field 'label': expected one of 谣言/非谣言, got '假'",
                         f"{ner}:1: field 'entities[0].type': expected one of 人名/时间/地点/毒品类型/毒品数量, "
                         "got '毒品'",
                         f"{data / 'fraud_ner' / 'test.jsonl'}: file not found; expected the fraud_ner data as "
                         f"<data_dir>/fraud_ner/test.jsonl (record format: docs/data.md)"]
    assert srv.payloads == []
    assert str(DEMO_DIR) not in proc.stderr


@pytest.mark.parametrize("action, start", [
    ("badjson",
     "cpsd-eval: the endpoint answered with something that is not JSON (JSONDecodeError: Unterminated string"),
    ("timeout", "cpsd-eval: the endpoint did not answer within the timeout (timeout= in --model_args, seconds)"),
    ("reset", "cpsd-eval: the endpoint did not answer (ConnectionResetError: [Errno 104] Connection reset by peer)"),
    ("429", 'cpsd-eval: the endpoint answered HTTP 429 Too Many Requests: {"error": {"message": "Rate limit reached'),
])
def test_each_endpoint_failure_mid_run_is_one_line_and_exit_1(tmp_path, hf_home, action, start):
    from benchmarks.fault_server import FaultServer, ordinal_plan

    with FaultServer(plan=ordinal_plan({0: action}, period=1, failing_attempts=99), hang=4) as srv:
        proc = cpsd_eval(["--model", "local-chat-completions", "--model_args",
                          f"model=m,base_url={srv.url},max_retries=1,timeout=2,num_concurrent=2",
                          "--apply_chat_template", "--tasks", "cpsd_rumor", "--limit", "2"], tmp_path, hf_home)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    (line,) = [x for x in ours(proc) if "the endpoint" in x]
    assert line.startswith(start) and line.endswith("answers already received are kept)")
