"""Run integrity on the backend side (issue 12, cases 1, 2, 3, 5, 6, 7).

lm-eval 0.4.13's chat backends, tried against a capturing loopback endpoint
(:mod:`capture_server`), did this; the cpsd backends (:mod:`cpsd_tasks.backends`) and ``cpsd-eval``
now do what each test asserts:

1. ``openai-chat-completions`` with ``model=gpt-3.5-turbo`` (any name containing "5", o1/o3/o4)
   sent ``temperature: 1`` and no ``stop`` while the results said temperature 0.
2. An HTTP 200 with ``"choices": []`` ended the run (``ValueError: zip() argument 2 is shorter``).
3. ``--cache_requests true`` with data dir A, then B: run B sent A's prompts.
5. A server that rejects ``stop`` had no switch; a fifth stop string was dropped silently.
6. A lone surrogate in an answer cut the sample log short.
7. ``finish_reason: "length"`` was invisible; a cut answer counted as a refusal.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cpsd_tasks import truncation
from cpsd_tasks.data.loading import DEMO_DIR, load_task_docs

from capture_server import CaptureServer, Reply, baseline_reply, completion

UNTIL = ["<|im_end|>", "<|endoftext|>", "</s>", "<|eot_id|>"]
TASK_KWARGS = {"until": UNTIL, "max_gen_toks": 2048, "do_sample": False, "temperature": 0.0}
MESSAGES = [{"role": "user", "content": "【任务】判断"}]


# --------------------------------------------------------------------------- helpers

def run_cli(model: str, model_args: str, tasks: str, out: Path, hf_home: Path, extra: tuple[str, ...] = (),
            env_extra: dict | None = None) -> subprocess.CompletedProcess:
    """The real ``cpsd-eval`` CLI in a subprocess."""
    cmd = [sys.executable, "-m", "cpsd_tasks.cli", "--model", model, "--model_args", model_args,
           "--apply_chat_template", "--tasks", tasks, "--output_path", str(out), "--log_samples", *extra]
    env = dict(os.environ, HF_HOME=str(hf_home), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1",
               **(env_extra or {}))
    env.pop("CPSD_DATA_DIR", None)
    return subprocess.run(cmd, capture_output=True, text=True, cwd=out.parent, env=env, timeout=600)


def results_of(out: Path) -> dict:
    files = sorted(out.rglob("results_*.json"))
    assert files, f"no results file under {out}"
    return json.loads(files[-1].read_text(encoding="utf-8"))


def samples_of(out: Path) -> dict[str, list[dict]]:
    samples = {}
    for path in out.rglob("samples_*.jsonl"):
        task = path.name[len("samples_"):].rsplit("_", 1)[0]
        samples[task] = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return samples


def demo(task: str) -> list[dict]:
    """The demo test docs as the harness sees them."""
    return load_task_docs(task, str(DEMO_DIR))["test"]


def doc_text(doc: dict) -> str:
    """The field of a demo doc that appears verbatim in its prompt and identifies it."""
    for field in ("question", "text", "input"):
        if field in doc:
            return doc[field]
    raise KeyError(doc)


@pytest.fixture
def capture():
    servers = []

    def make(reply=baseline_reply) -> CaptureServer:
        servers.append(CaptureServer(reply))
        return servers[-1]

    yield make
    for s in servers:
        s.stop()


@pytest.fixture
def openai_backend(monkeypatch):
    from cpsd_tasks.backends import api as backends

    monkeypatch.setenv("OPENAI_API_KEY", "test-key")

    def make(model: str, **kwargs):
        return backends.CpsdOpenAIChat(model=model, base_url="http://127.0.0.1:9/v1/chat/completions", **kwargs)

    return make


# --------------------------------------------------------------------------- case 1: the name rule

REASONING = ["o1", "o1-mini", "o1-preview", "o3", "o3-mini-2025-01-31", "o3-pro", "o4-mini", "gpt-5",
             "gpt-5-mini", "gpt-5-nano", "gpt-5.1", "GPT-5", "openai/o3", "ft:o4-mini:org::abc"]
NOT_REASONING = ["gpt-3.5-turbo", "gpt-3.5-turbo-0125", "gpt-4o", "gpt-4o-2024-05-13", "gpt-4o-mini",
                 "gpt-4.5-preview", "qwen2.5-72b-instruct", "Qwen/Qwen2.5-7B-Instruct", "glm-4.5",
                 "gpt-5-chat-latest", "deepseek-r1", "claude-3-5-sonnet", "yi-1.5-34b", "o1x", "xo1", "",
                 None]


@pytest.mark.parametrize("name", REASONING)
def test_reasoning_rule_matches_reasoning_models(name):
    from cpsd_tasks.backends.api import is_reasoning_model

    assert is_reasoning_model(name)


@pytest.mark.parametrize("name", NOT_REASONING)
def test_reasoning_rule_leaves_chat_models_alone(name):
    from cpsd_tasks.backends.api import is_reasoning_model

    assert not is_reasoning_model(name)


@pytest.mark.parametrize("name", ["gpt-3.5-turbo", "qwen2.5-72b-instruct", "glm-4.5", "gpt-4o-2024-05-13"])
def test_payload_keeps_greedy_decoding_and_stops(openai_backend, name):
    lm = openai_backend(name)
    payload = lm._create_payload(MESSAGES, generate=True, gen_kwargs=dict(TASK_KWARGS))
    assert payload["temperature"] == 0.0
    assert payload["stop"] == UNTIL
    assert payload["max_completion_tokens"] == 2048
    assert "do_sample" not in payload and "max_gen_toks" not in payload
    assert not lm.get_model_info()["cpsd_backend"]["decoding_differs_from_task"]


def test_reasoning_model_sends_no_temperature_or_stop_and_records_it(openai_backend, caplog):
    with caplog.at_level(logging.WARNING, logger="cpsd_tasks.backends"):
        lm = openai_backend("o3-mini")
        payload = lm._create_payload(MESSAGES, generate=True, gen_kwargs=dict(TASK_KWARGS))
    assert "temperature" not in payload and "stop" not in payload
    info = lm.get_model_info()["cpsd_backend"]
    assert info["reasoning_model"] and info["decoding_differs_from_task"]
    (entry,) = info["decoding_sent"]
    assert entry["task_gen_kwargs"] == TASK_KWARGS
    assert "temperature" not in entry["sent"] and "stop" not in entry["sent"]
    assert any("temperature" in d for d in entry["differences"])
    assert any(d.startswith("stop") for d in entry["differences"])
    assert "REASONING model" in caplog.text and "DECODING DIFFERS FROM THE TASK" in caplog.text


def test_reasoning_override_both_ways(openai_backend):
    lm = openai_backend("gpt-5", reasoning=False)
    payload = lm._create_payload(MESSAGES, generate=True, gen_kwargs=dict(TASK_KWARGS))
    assert payload["temperature"] == 0.0 and payload["stop"] == UNTIL
    lm = openai_backend("my-gateway-thinker", reasoning="true")
    payload = lm._create_payload(MESSAGES, generate=True, gen_kwargs=dict(TASK_KWARGS))
    assert "temperature" not in payload and "stop" not in payload
    assert lm.get_model_info()["cpsd_backend"]["reasoning_decided_by"] == "model_args reasoning="
    with pytest.raises(ValueError, match="reasoning='maybe'"):
        openai_backend("gpt-4o", reasoning="maybe")


# --------------------------------------------------------------------------- case 5: stop strings

def test_more_than_four_stop_strings_warns_and_says_what_was_dropped(openai_backend, caplog):
    five = [*UNTIL, "\n\n"]
    with caplog.at_level(logging.WARNING, logger="cpsd_tasks.backends"):
        lm = openai_backend("gpt-4o")
        payload = lm._create_payload(MESSAGES, generate=True, gen_kwargs={**TASK_KWARGS, "until": list(five)})
    assert payload["stop"] == UNTIL
    assert "5 stop strings" in caplog.text and "dropped ['\\n\\n']" in caplog.text
    (entry,) = lm.get_model_info()["cpsd_backend"]["decoding_sent"]
    assert entry["differences"] and entry["task"]["stop"] == five
    # a server that takes more: max_stop=N
    lm = openai_backend("gpt-4o", max_stop=8)
    payload = lm._create_payload(MESSAGES, generate=True, gen_kwargs={**TASK_KWARGS, "until": list(five)})
    assert payload["stop"] == five
    assert not lm.get_model_info()["cpsd_backend"]["decoding_differs_from_task"]


@pytest.mark.e2e
def test_cli_five_stop_strings_warn_and_are_recorded(tmp_path, hf_home, capture):
    srv = capture()
    five = [*UNTIL, "###"]
    out = tmp_path / "out"
    proc = run_cli("cpsd-openai-chat", f"model=gpt-4o,base_url={srv.url},num_concurrent=2,max_retries=1",
                   "cpsd_rumor", out, hf_home, ("--limit", "2", "--gen_kwargs", json.dumps({"until": five})),
                   {"OPENAI_API_KEY": "test-key"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert [p["stop"] for p in srv.payloads] == [UNTIL, UNTIL]
    assert "DECODING DIFFERS FROM THE TASK" in proc.stderr and "dropped ['###']" in proc.stderr
    (entry,) = results_of(out)["config"]["cpsd_backend"]["decoding_sent"]
    assert entry["task"]["stop"] == five and entry["sent"]["stop"] == UNTIL
    assert entry["differences"] and "5 stop strings" in entry["differences"][0]


def test_send_stop_false_sends_no_stop(openai_backend):
    lm = openai_backend("gpt-4o", send_stop=False)
    payload = lm._create_payload(MESSAGES, generate=True, gen_kwargs=dict(TASK_KWARGS))
    assert "stop" not in payload and payload["temperature"] == 0.0
    (entry,) = lm.get_model_info()["cpsd_backend"]["decoding_sent"]
    assert entry["differences"] == [f"stop: task {UNTIL}, sent none (send_stop=false)"]


# --------------------------------------------------------------------------- cases 2, 6, 7: parsing

def test_parse_generations_filtered_surrogates_and_finish_reason(openai_backend):
    lm = openai_backend("gpt-4o")
    assert lm.parse_generations({"choices": []}) == [None]
    assert lm.parse_generations({"error": {"message": "filtered"}}) == [None]
    assert lm.parse_generations({"choices": [{"index": 0, "message": None, "finish_reason": "content_filter"}]}) \
        == [None]
    assert lm.parse_generations(completion(None, "m", "content_filter")) == [None]
    assert lm.parse_generations(completion("谣言\ud835", "m")) == ["谣言\ufffd"]
    parts = completion(None, "m")
    parts["choices"][0]["message"]["content"] = [{"type": "text", "text": "非"}, {"type": "text", "text": "谣言"}]
    assert lm.parse_generations(parts) == ["非谣言"]
    info = lm.get_model_info()["cpsd_backend"]
    assert info["answers_filtered"] == 4


def test_truncation_registry_is_exact_per_document():
    truncation.clear()
    d1, d2 = {"id": "1", "text": "甲"}, {"id": "2", "text": "乙"}
    k1, k2 = truncation.doc_digest(d1), truncation.doc_digest(d2)
    truncation.record("", True, [k1])    # a reasoning model that spent its budget thinking
    truncation.record("", False, [k2])   # a filtered answer: also ""
    truncation.record("<think>还在想", True, [k1])
    assert truncation.was_truncated("", d1) and not truncation.was_truncated("", d2)
    assert truncation.was_truncated(None, d1)
    assert not truncation.was_truncated("", None)  # text alone is ambiguous: seen both ways
    assert truncation.was_truncated("<think>还在想")  # text alone, only ever seen truncated
    assert not truncation.was_truncated("<think>还在想", d2)
    assert not truncation.was_truncated("谣言", d1)
    truncation.clear()
    assert not truncation.was_truncated("", d1)


def test_truncation_registry_is_bounded(monkeypatch):
    truncation.clear()
    monkeypatch.setattr(truncation, "MAX_ENTRIES", 10)
    for n in range(50):
        truncation.record(f"out{n}", True, [f"{n:064x}"])
    assert len(truncation._BY_DOC) == 10 and len(truncation._BY_TEXT) == 10
    truncation.clear()


def test_process_results_truncated_is_not_a_refusal():
    from cpsd_tasks import classification, generation, ie, qa

    truncation.clear()
    cases = [(classification, demo("rumor")[0]), (qa, demo("case_reading")[0]), (ie, demo("drug_ner")[0]),
             (generation, demo("case_summary")[0])]
    cut = "<think>先分析一下这段文本的"
    for module, doc in cases:
        before = module.process_results(doc, [cut])
        assert before["truncated_rate"] == 0.0
        if "refusal_rate" in before:
            assert before["refusal_rate"] == 1.0  # an unclosed <think> reads as no answer
    for module, doc in cases:
        truncation.record(cut, True, [truncation.doc_digest(doc)])
        after = module.process_results(doc, [cut])
        assert after["truncated_rate"] == 1.0
        if "refusal_rate" in after:
            assert after["refusal_rate"] == 0.0
    truncation.clear()


# --------------------------------------------------------------------------- CLI: case 1

@pytest.mark.e2e
@pytest.mark.parametrize("model, reasoning", [("gpt-3.5-turbo", False), ("gpt-5", True)])
def test_cli_openai_chat_sends_what_the_results_record(tmp_path, hf_home, capture, model, reasoning):
    srv = capture()
    out = tmp_path / "out"
    proc = run_cli("cpsd-openai-chat", f"model={model},base_url={srv.url},num_concurrent=2,max_retries=1",
                   "cpsd_rumor", out, hf_home, ("--limit", "3"), {"OPENAI_API_KEY": "test-key"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert len(srv.payloads) == 3
    res = results_of(out)
    info = res["config"]["cpsd_backend"]
    assert info["backend"] == "cpsd-openai-chat" and info["reasoning_model"] is reasoning
    (entry,) = info["decoding_sent"]
    assert entry["tasks"] == ["cpsd_rumor"]
    task_kwargs = res["configs"]["cpsd_rumor"]["generation_kwargs"]
    assert entry["task_gen_kwargs"] == task_kwargs
    for payload in srv.payloads:
        sent = {k: v for k, v in payload.items() if k not in ("messages", "model")}
        assert sent == entry["sent"]  # the record is what went over the wire
        assert payload["max_completion_tokens"] == task_kwargs["max_gen_toks"]
    if not reasoning:
        assert all(p["temperature"] == 0.0 and p["stop"] == task_kwargs["until"] for p in srv.payloads)
        assert not info["decoding_differs_from_task"] and not entry["differences"]
        assert "DECODING DIFFERS" not in proc.stderr
    else:
        assert all("temperature" not in p and "stop" not in p for p in srv.payloads)
        assert info["decoding_differs_from_task"] and len(entry["differences"]) == 2
        assert "REASONING model" in proc.stderr
        assert proc.stderr.count("DECODING DIFFERS FROM THE TASK") == 2
        assert "this run's decoding differed from the task's (cpsd_rumor)" in proc.stderr


# --------------------------------------------------------------------------- CLI: cases 2, 5, 6, 7

FAMILY_TASKS = ("rumor", "case_reading", "drug_ner", "case_summary")
CUT = "<think>先逐条核对材料中的人物、时间和地点，再"


def _fault_plan() -> dict[str, str]:
    """doc text -> fault, over the first four demo docs of each family's task."""
    plan = {}
    for task in FAMILY_TASKS:
        docs = demo(task)[:4]
        plan[doc_text(docs[0])] = "nochoices" if task == "rumor" else "length"
        plan[doc_text(docs[1])] = "null" if task == "rumor" else "surrogate"
        plan[doc_text(docs[2])] = "surrogate" if task == "rumor" else "ok"
        plan[doc_text(docs[3])] = "length" if task == "rumor" else "ok"
    return plan


def _faulty_reply(plan: dict[str, str]):
    def reply(payload, prompt):
        if "stop" in payload:  # an endpoint that rejects the parameter (case 5)
            return Reply(status=400, body={"error": {"message": "Unsupported parameter: 'stop'"}})
        fault = next((f for text, f in plan.items() if text in prompt), "ok")
        if fault == "nochoices":
            return Reply(body={"id": "x", "object": "chat.completion", "choices": []})
        if fault == "null":
            return Reply(None, "content_filter")
        if fault == "surrogate":
            return Reply(baseline_reply(payload, prompt).content + "\ud835")
        if fault == "length":
            return Reply(CUT, "length")
        return baseline_reply(payload, prompt)

    return reply


@pytest.mark.e2e
def test_cli_stop_rejecting_endpoint_fails_without_send_stop_false(tmp_path, hf_home, capture):
    srv = capture(_faulty_reply({}))
    out = tmp_path / "out"
    proc = run_cli("cpsd-local-chat", f"model=m,base_url={srv.url},num_concurrent=1,max_retries=1",
                   "cpsd_rumor", out, hf_home, ("--limit", "1"))
    assert proc.returncode != 0
    assert "Unsupported parameter: 'stop'" in proc.stderr
    assert srv.payloads and all("stop" in p for p in srv.payloads)


@pytest.mark.e2e
def test_cli_filtered_surrogate_and_truncated_answers(tmp_path, hf_home, capture):
    plan = _fault_plan()
    srv = capture(_faulty_reply(plan))
    tasks = ",".join(f"cpsd_{t}" for t in FAMILY_TASKS)
    args = f"model=m,base_url={srv.url},num_concurrent=2,max_retries=1,send_stop=false"
    extra = ("--limit", "4", "--use_cache", str(tmp_path / "cache" / "m"))
    out = tmp_path / "out"
    proc = run_cli("cpsd-local-chat", args, tasks, out, hf_home, extra)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert len(srv.payloads) == 16 and all("stop" not in p for p in srv.payloads)
    assert "HTTP 200 answer without choices, scored as a filtered answer" in proc.stderr
    res, samples = results_of(out), samples_of(out)
    info = res["config"]["cpsd_backend"]
    assert (info["answers_truncated"], info["answers_filtered"]) == (4, 2)
    assert info["send_stop"] is False and info["decoding_differs_from_task"]

    def check(res, samples):
        for task in FAMILY_TASKS:
            logged = samples[f"cpsd_{task}"]
            assert len(logged) == 4, (task, len(logged))  # the sample log is complete (case 6)
            truncated = []
            for sample in logged:
                fault = plan.get(doc_text(sample["doc"]), "ok")
                (resp,) = sample["resps"][0]
                truncated.append(sample["truncated_rate"])
                assert sample["truncated_rate"] == float(fault == "length"), (task, fault)
                if fault == "surrogate":
                    assert resp.endswith("\ufffd")
                if fault in ("nochoices", "null"):  # a filtered answer: a counted refusal (case 2)
                    assert resp == "" and sample["refusal_rate"] == 1.0 and sample["invalid_rate"] == 1.0
                if fault == "length":  # cut by the limit: truncated, not a refusal (case 7)
                    assert resp == CUT
                    if "refusal_rate" in sample:
                        assert sample["refusal_rate"] == 0.0
            row = res["results"][f"cpsd_{task}"]
            assert row["truncated_rate,none"] == pytest.approx(sum(truncated) / 4)
            assert row["truncated_rate,none"] > 0

    check(res, samples)
    # Resume from --use_cache: no request is sent, the truncation marks come from the cache.
    srv.payloads.clear()
    out2 = tmp_path / "out2"
    proc = run_cli("cpsd-local-chat", args, tasks, out2, hf_home, extra)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert srv.payloads == []
    check(results_of(out2), samples_of(out2))


# --------------------------------------------------------------------------- CLI: case 3

@pytest.mark.e2e
def test_cli_request_cache_never_serves_another_data_dirs_prompts(tmp_path, hf_home, capture):
    docs = demo("rumor")
    dirs = {}
    for name, suffix in (("A", ""), ("B", "（来源：B 版数据）")):
        folder = tmp_path / name / "rumor"
        folder.mkdir(parents=True)
        rows = [{**d, "text": d["text"] + suffix} for d in docs]
        (folder / "test.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                           encoding="utf-8")
        dirs[name] = tmp_path / name
    srv = capture()
    env = {"LM_HARNESS_CACHE_PATH": str(tmp_path / "request_cache")}
    prompts = {}
    for run, name in enumerate(("A", "B", "A")):
        srv.payloads.clear()
        out = tmp_path / f"out{run}"
        proc = run_cli("cpsd-local-chat", f"model=m,base_url={srv.url},num_concurrent=2",
                       "cpsd_rumor", out, hf_home,
                       ("--cache_requests", "true", "--metadata", json.dumps({"data_dir": str(dirs[name])})), env)
        assert proc.returncode == 0, proc.stderr[-3000:]
        sent = sorted(p["messages"][-1]["content"] for p in srv.payloads)
        logged = samples_of(out)["cpsd_rumor"]
        assert len(sent) == len(logged) == len(docs)
        for sample in logged:  # the prompt that was sent is the logged doc's
            assert any(sample["doc"]["text"] in p for p in sent)
        prompts.setdefault(name, sent)
        assert sent == prompts[name]
    assert prompts["A"] != prompts["B"]
    assert all("B 版数据" in p for p in prompts["B"]) and not any("B 版数据" in p for p in prompts["A"])
    caches = sorted(p.name for p in (tmp_path / "request_cache").iterdir())
    assert len(caches) == 2 and all("cpsd-data" in c for c in caches), caches


def test_task_digest_follows_the_data(tmp_path):
    import cpsd_tasks
    from cpsd_tasks.backends.api import task_digest

    for name in ("A", "B"):
        folder = tmp_path / name / "rumor"
        folder.mkdir(parents=True)
        shutil.copy(DEMO_DIR / "rumor" / "test.jsonl", folder / "test.jsonl")
    with (tmp_path / "B" / "rumor" / "test.jsonl").open("a", encoding="utf-8") as f:
        f.write(json.dumps({"id": "extra", "text": "新增一条", "label": "谣言"}, ensure_ascii=False) + "\n")

    def digest_of(name):
        tm = cpsd_tasks.task_manager(metadata={"data_dir": str(tmp_path / name)})
        return task_digest(tm.load(["cpsd_rumor"])["tasks"]["cpsd_rumor"])

    a, a2, b = digest_of("A"), digest_of("A"), digest_of("B")
    assert a == a2 and a != b


# --------------------------------------------------------------------------- cpsd-hf: token count

HF_SCRIPT = "这是一条谣言"  # 6 distinct tokens, then EOS


@pytest.mark.e2e
def test_cli_cpsd_hf_flags_outputs_cut_by_the_token_budget(tmp_path, hf_home):
    import tiny_models

    model = tiny_models.build_tiny_lm(tmp_path / "script", chat_template=True, script=HF_SCRIPT,
                                      max_position_embeddings=512)
    rates = {}
    for budget in (3, 16):
        out = tmp_path / f"out{budget}"
        proc = run_cli("cpsd-hf", f"pretrained={model},dtype=float32", "cpsd_rumor", out, hf_home,
                       ("--device", "cpu", "--batch_size", "2", "--limit", "3",
                        "--gen_kwargs", f"max_gen_toks={budget}"))
        assert proc.returncode == 0, proc.stderr[-3000:]
        samples = samples_of(out)["cpsd_rumor"]
        expected_output = HF_SCRIPT[:budget] if budget < len(HF_SCRIPT) else HF_SCRIPT
        assert [s["resps"][0][0] for s in samples] == [expected_output] * 3
        rates[budget] = [s["truncated_rate"] for s in samples]
        res = results_of(out)
        assert res["results"]["cpsd_rumor"]["truncated_rate,none"] == pytest.approx(sum(rates[budget]) / 3)
        assert res["config"]["cpsd_backend"]["answers_truncated"] == sum(rates[budget])
    assert rates == {3: [1.0, 1.0, 1.0], 16: [0.0, 0.0, 0.0]}


# --------------------------------------------------------------------------- plain lm_eval: the warning (issue 23)

def test_task_layer_warns_once_about_the_harness_backend_it_cannot_guard(monkeypatch, caplog):
    from lm_eval.models.openai_completions import LocalChatCompletion, OpenAIChatCompletion

    from cpsd_tasks.backends import api as backends
    from cpsd_tasks.cli import unguarded

    monkeypatch.setenv("OPENAI_API_KEY", "k")
    url = "http://127.0.0.1:9/v1/chat/completions"

    def simple_evaluate(lm):  # the harness's frame, as the hook sees it
        return unguarded.warn_once({"model": "ignored when the model object is found"})

    for name in ("qwen2.5-7b-instruct", "glm-4.5", "gpt-3.5-turbo", "o1-mini"):
        monkeypatch.setattr(unguarded, "_warned", False)
        message = simple_evaluate(OpenAIChatCompletion(model=name, base_url=url))
        assert message.startswith(f"cpsd: model {name!r} is sampled, NOT decoded greedily as the task asks "
                                  f"({unguarded.HARNESS_REASONING_RULE})")
        assert simple_evaluate(OpenAIChatCompletion(model=name, base_url=url)) is None  # once per run
    monkeypatch.setattr(unguarded, "_warned", False)
    message = simple_evaluate(LocalChatCompletion(model="qwen2.5-7b-instruct", base_url=url))
    assert message.startswith("cpsd: lm_eval's own local-chat-completions backend runs without cpsd's guards")
    monkeypatch.setattr(unguarded, "_warned", False)
    assert simple_evaluate(OpenAIChatCompletion(model="gpt-4o", base_url=url)).startswith(
        "cpsd: lm_eval's own openai-chat-completions backend runs without")  # no sampling, still unguarded
    monkeypatch.setattr(unguarded, "_warned", False)
    assert simple_evaluate(backends.CpsdOpenAIChat(model="qwen2.5-7b-instruct", base_url=url)) is None
    assert simple_evaluate(OpenAIChatCompletion(model="qwen2.5", base_url=url)) is None  # said nothing, ever
    # No model object found: the name alone, conditionally
    monkeypatch.setattr(unguarded, "_warned", False)
    assert unguarded.warn_once({"model": "qwen2.5-7b"}).startswith("cpsd: model 'qwen2.5-7b': IF this run uses")
    monkeypatch.setattr(unguarded, "_warned", False)
    assert unguarded.warn_once({"model": "gpt-4o"}) is None and unguarded.warn_once({}) is None
    assert [unguarded.harness_rule_applies(n) for n in ("gpt-4o-2024-05-13", "o3", "llama-3", "", None)] == \
        [True, True, False, False, False]


def test_harness_names_map_to_the_guarded_classes():
    from cpsd_tasks.backends import api as backends
    from lm_eval.api.registry import get_model

    assert backends.GUARDED_HARNESS_BACKENDS == {"openai-chat-completions": "cpsd-openai-chat",
                                                 "local-chat-completions": "cpsd-local-chat",
                                                 "local-completions": "cpsd-local-completions"}
    for harness, ours in backends.GUARDED_HARNESS_BACKENDS.items():
        assert issubclass(get_model(ours), get_model(harness))  # same arguments, same behaviour beyond the fixes
    assert backends.guard_harness_backend("hf") is None
