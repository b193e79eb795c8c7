"""Robustness: endpoint faults through the real CLI and the harness API (issue 8).

A loopback server (:mod:`benchmarks.fault_server`) answers like the rule baseline but injects 429, 500,
timeouts, connection resets, invalid JSON, ``content: null`` and error bodies without ``choices``.
What lm-eval 0.4.13's ``local-chat-completions`` does with each (found here, documented in README
"Running long jobs safely"):

* 429 / 500 / timeout / reset / invalid JSON raise inside the request and are retried by tenacity
  (exponential wait ≥ 1 s). ``max_retries=N`` means N attempts in all (``stop_after_attempt(N)``),
  so ``max_retries=1`` never retries. A 429's ``Retry-After`` is not read.
* When the attempts are used up the exception ends the whole run: non-zero exit, no results file,
  the traceback's last line names the error (``ClientResponseError: 500 …``; a timeout is a bare
  ``TimeoutError``); the server's error text is in a WARNING line before it. Through ``cpsd-eval``
  (which runs ``local-chat-completions`` as ``cpsd-local-chat``) it is one line quoting the
  server, exit 1.
* ``content: null`` (a content filter) is not retried: it becomes ``""``
  (``LMEVAL_MODEL_NONE_ANSWER_PLACEHOLDER``) and our metrics score it as a refusal and invalid.
* A 200 answer without ``choices`` is not retried either: the harness logs "Could not parse
  generations" and scores ``""`` (``cpsd-local-chat``: "HTTP 200 answer without choices"). Our
  metrics count it as a refusal/invalid, never dropped.
* An answer with a lone surrogate escape (``"\\ud800"``) is scored, but the harness's sample writer
  fails at it: that task's samples file keeps only the samples before it (WARNING "Could not save
  sample results", exit code 0).
* ``--use_cache`` writes every answer to SQLite as it arrives (blocking commit), so a killed run
  loses at most the requests in flight; with ``num_concurrent=1`` a null answer is *not* cached
  and is asked again on resume. The cache key is the prompt and generation kwargs, not the model.
"""

from __future__ import annotations

import gc
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cpsd_tasks.baseline import answer
from cpsd_tasks.classification import process_results
from benchmarks.fault_server import FaultServer, ordinal_plan
from cpsd_tasks.data.loading import DEMO_DIR, read_jsonl

pytestmark = pytest.mark.e2e

TRANSIENT = ("429", "500", "timeout", "reset", "badjson")


def cli(tasks: str, url: str, out_dir: Path, hf_home: Path, model_args: str, extra: tuple[str, ...] = (),
        popen: bool = False):
    """Run ``cpsd-eval`` (real CLI subprocess) against ``url``; returns CompletedProcess or Popen."""
    cmd = [sys.executable, "-m", "cpsd_tasks.cli", "--model", "local-chat-completions",
           "--model_args", f"base_url={url},model=fault,{model_args}", "--apply_chat_template",
           "--tasks", tasks, "--output_path", str(out_dir), "--log_samples", *extra]
    env = dict(os.environ, HF_HOME=str(hf_home), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    env.pop("CPSD_DATA_DIR", None)
    if popen:
        return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                cwd=out_dir.parent, env=env)
    return subprocess.run(cmd, capture_output=True, text=True, cwd=out_dir.parent, env=env, timeout=600)


def load_samples(out_dir: Path) -> dict[str, list[dict]]:
    samples = {}
    for path in out_dir.rglob("samples_*.jsonl"):
        task = path.name[len("samples_"):].rsplit("_", 1)[0]
        samples[task] = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return samples


def prompt_of(sample: dict) -> str:
    """The user message the harness sent for a logged sample."""
    args = sample["arguments"]
    arg = args["gen_args_0"]["arg_0"] if isinstance(args, dict) else args[0][0]  # log file / in memory
    if not isinstance(arg, str):  # the harness's JsonChatStr (a 1-tuple), or its JSON form, a list
        arg = arg[0]
    messages = json.loads(arg)
    return messages[-1]["content"]


def n_demo(task: str) -> int:
    return len(read_jsonl(DEMO_DIR / task / "test.jsonl", task))


@pytest.fixture
def server():
    """Factory of fault servers, stopped after the test.

    At teardown the garbage collector runs while pytest still captures output: when a harness run
    fails, lm-eval leaves the other failed request tasks and their tqdm bar unreferenced, and they
    would otherwise print "Task exception was never retrieved" tracebacks after pytest's summary.
    """
    servers = []

    def make(**kwargs) -> FaultServer:
        servers.append(FaultServer(**kwargs))
        return servers[-1]

    yield make
    for s in servers:
        s.stop()
    gc.collect()


# --------------------------------------------------------------------------- CLI: faults retried

CLF = ("sentiment", "rumor", "fraud_detection", "incident_classification")
#: Of every 14 distinct prompts: one of each transient fault (on the first attempt), one null, one no-choices.
SCHEDULE = {1: "429", 3: "500", 5: "timeout", 7: "reset", 9: "badjson", 11: "null", 13: "nochoices"}


def test_transient_faults_are_retried_and_every_sample_scored(tmp_path, hf_home, server):
    # timeout=3 leaves a loaded CI machine ample time for normal answers (they take milliseconds).
    srv = server(plan=ordinal_plan(SCHEDULE, period=14, failing_attempts=1), hang=5)
    out = tmp_path / "out"
    proc = cli("cpsd_clf", srv.url, out, hf_home, "num_concurrent=4,max_retries=3,timeout=3")
    assert proc.returncode == 0, proc.stderr[-3000:]
    total = sum(n_demo(t) for t in CLF)  # 110 demo prompts, all distinct
    per_fault = {a: sum(1 for n in range(total) if SCHEDULE.get(n % 14) == a) for a in SCHEDULE.values()}
    assert all(v >= 7 for v in per_fault.values()), per_fault
    # Each transient fault cost exactly one extra request; null / no-choices answers were not retried.
    for action in TRANSIENT:
        assert srv.actions[action] == per_fault[action], (action, dict(srv.actions))
        assert all(srv.attempts[p] == 2 for p in srv.prompts[action])
    for action in ("null", "nochoices"):
        assert srv.actions[action] == per_fault[action]
        assert all(srv.attempts[p] == 1 for p in srv.prompts[action])
    assert srv.requests == total + sum(per_fault[a] for a in TRANSIENT)

    results = json.loads(next(out.rglob("results_*.json")).read_text(encoding="utf-8"))
    samples = load_samples(out)
    empty = srv.prompts["null"] | srv.prompts["nochoices"]
    for task in CLF:
        logged = samples[f"cpsd_{task}"]
        assert len(logged) == n_demo(task) == results["n-samples"][f"cpsd_{task}"]["effective"]
        expected = {"acc": [], "refusal_rate": [], "invalid_rate": []}
        for sample in logged:
            prompt = prompt_of(sample)
            want = "" if prompt in empty else answer(prompt)
            assert sample["resps"] == [[want]], (task, sample["doc_id"])
            values = process_results(sample["doc"], [want])
            for metric in expected:
                assert sample[metric] == values[metric]
                expected[metric].append(values[metric])
            if prompt in empty:  # a filtered/empty answer is a counted refusal, not a dropped sample
                assert (sample["acc"], sample["refusal_rate"], sample["invalid_rate"]) == (0.0, 1.0, 1.0)
        row = results["results"][f"cpsd_{task}"]
        for metric, values in expected.items():
            assert row[f"{metric},none"] == pytest.approx(sum(values) / len(values))
    hit = sum(1 for s in samples.values() for x in s if prompt_of(x) in empty)
    assert hit == per_fault["null"] + per_fault["nochoices"]
    # cpsd-eval runs local-chat-completions as cpsd-local-chat: an answer without choices is its warning
    assert "API returned null content" in proc.stderr and "HTTP 200 answer without choices" in proc.stderr


# --------------------------------------------------------------------------- CLI: beyond retries

def test_faults_beyond_retries_fail_the_run_clearly(tmp_path, hf_home, server):
    srv = server(plan=ordinal_plan({3: "500"}, period=1000, failing_attempts=99))
    out = tmp_path / "out"
    proc = cli("cpsd_rumor", srv.url, out, hf_home, "num_concurrent=4,max_retries=2,timeout=5")
    assert proc.returncode == 1
    # One line names the status and quotes the server; no traceback (issue 23).
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    (line,) = [x for x in proc.stderr.splitlines() if x.startswith("cpsd-eval: the endpoint")]
    assert line.startswith('cpsd-eval: the endpoint answered HTTP 500 Internal Server Error: {"error": {"message": '
                           '"The server had an error while processing your request (fault injected)"')
    assert "Status code: 500, Response text: {\"error\": {\"message\": \"The server had an error" in proc.stderr
    assert not list(out.rglob("results_*.json")), "a failed run must not leave a results file"
    (bad,) = srv.prompts["500"]
    assert srv.attempts[bad] == 2  # max_retries=2 means two attempts in all


# --------------------------------------------------------------------------- harness API: each fault type

@pytest.mark.parametrize("action, error, text", [
    ("429", "ClientResponseError", "429, message='Too Many Requests'"),
    ("500", "ClientResponseError", "500, message='Internal Server Error'"),
    ("timeout", "TimeoutError", ""),
    ("reset", "ClientOSError", "Connection reset by peer"),
    ("badjson", "JSONDecodeError", "Unterminated string"),
])
def test_each_fault_beyond_retries_raises_its_error(server, hf_home, monkeypatch, action, error, text):
    from lm_eval import simple_evaluate

    import cpsd_tasks

    monkeypatch.setenv("HF_HOME", str(hf_home))
    srv = server(plan=ordinal_plan({1: action}, period=1000, failing_attempts=99), hang=3)
    with pytest.raises(BaseException) as err:
        simple_evaluate(model="local-chat-completions",
                        model_args={"base_url": srv.url, "model": "fault", "num_concurrent": 2, "max_retries": 1,
                                    "timeout": 1},
                        tasks=["cpsd_rumor"], task_manager=cpsd_tasks.task_manager(), apply_chat_template=True,
                        limit=3, bootstrap_iters=0)
    assert type(err.value).__name__ == error
    assert text in str(err.value)
    (bad,) = srv.prompts[action]
    assert srv.attempts[bad] == 1  # max_retries=1: no retry at all


def test_faults_within_retries_via_api_then_null_scored(server, hf_home, monkeypatch):
    """max_retries=2 absorbs one failure of every kind; the null answer is scored as a refusal."""
    from lm_eval import simple_evaluate

    import cpsd_tasks

    monkeypatch.setenv("HF_HOME", str(hf_home))
    schedule = {0: "429", 1: "500", 2: "timeout", 3: "reset", 4: "badjson", 5: "null"}
    srv = server(plan=ordinal_plan(schedule, period=1000, failing_attempts=1), hang=4)
    res = simple_evaluate(model="local-chat-completions",
                          model_args={"base_url": srv.url, "model": "fault", "num_concurrent": 3, "max_retries": 2,
                                      "timeout": 2},
                          tasks=["cpsd_rumor"], task_manager=cpsd_tasks.task_manager(), apply_chat_template=True,
                          limit=8, bootstrap_iters=0, log_samples=True)
    assert res["n-samples"]["cpsd_rumor"]["effective"] == 8
    assert srv.requests == 8 + 5
    samples = res["samples"]["cpsd_rumor"]
    assert len(samples) == 8
    nulls = [s for s in samples if prompt_of(s) in srv.prompts["null"]]
    assert len(nulls) == 1 and nulls[0]["resps"] == [[""]] and nulls[0]["refusal_rate"] == 1.0
    row = res["results"]["cpsd_rumor"]
    assert row["refusal_rate,none"] == pytest.approx(1 / 8) and row["invalid_rate,none"] == pytest.approx(1 / 8)


# --------------------------------------------------------------------------- lone surrogate in an answer

def test_lone_surrogate_answer_is_scored_but_the_harness_drops_the_sample_log(server, hf_home, tmp_path,
                                                                            monkeypatch, caplog):
    """A JSON answer may carry a lone surrogate escape ("\\ud800"). Our metrics score it; lm-eval's
    sample writer (strict UTF-8) then fails at that sample: the task's samples file keeps only the
    samples before it, with a WARNING "Could not save sample results" and exit code 0 (harness
    behaviour, documented)."""
    from lm_eval import simple_evaluate
    from lm_eval.loggers import EvaluationTracker

    import cpsd_tasks

    monkeypatch.setenv("HF_HOME", str(hf_home))
    bad_text = read_jsonl(DEMO_DIR / "rumor" / "test.jsonl", "rumor")[2]["text"]
    srv = server(content=lambda prompt: answer(prompt) + ("\ud800" if bad_text in prompt else ""))
    res = simple_evaluate(model="local-chat-completions",
                          model_args={"base_url": srv.url, "model": "fault", "num_concurrent": 2},
                          tasks=["cpsd_rumor"], task_manager=cpsd_tasks.task_manager(), apply_chat_template=True,
                          limit=4, bootstrap_iters=0, log_samples=True)
    samples = res["samples"]["cpsd_rumor"]
    assert [s["doc_id"] for s in samples] == [0, 1, 2, 3]
    assert [s["resps"][0][0].endswith("\ud800") for s in samples] == [False, False, True, False]
    row = res["results"]["cpsd_rumor"]
    expected = [process_results(s["doc"], [s["resps"][0][0]]) for s in samples]
    assert expected[2]["acc"] == 0.0 and expected[2]["invalid_rate"] == 0.0  # the label is still read
    for metric in ("acc", "acc_fuzzy", "invalid_rate"):
        assert row[f"{metric},none"] == pytest.approx(sum(e[metric] for e in expected) / 4)
    caplog.set_level("INFO", logger="lm_eval.loggers.evaluation_tracker")
    tracker = EvaluationTracker(output_path=str(tmp_path / "out"))
    tracker.general_config_tracker.model_name_sanitized = "fault"
    tracker.date_id = "now"  # set by save_results_aggregated in a CLI run
    tracker.save_results_samples(task_name="cpsd_rumor", samples=samples)
    (written,) = list((tmp_path / "out").rglob("samples_cpsd_rumor_*.jsonl"))
    kept = [json.loads(line)["doc_id"] for line in written.read_text(encoding="utf-8").splitlines()]
    assert kept == [0, 1]  # the samples from the bad one on are lost
    assert "Could not save sample results" in caplog.text and "surrogates not allowed" in caplog.text


# --------------------------------------------------------------------------- cache: one per model

def test_cache_key_ignores_the_model_name(server, hf_home, tmp_path, monkeypatch):
    """Why README says "one cache per model": a second model reusing the path gets the first's answers."""
    from lm_eval import simple_evaluate

    import cpsd_tasks

    monkeypatch.setenv("HF_HOME", str(hf_home))
    srv = server()
    cache = str(tmp_path / "cache" / "shared")
    runs = []
    for model in ("model-a", "model-b"):
        runs.append(simple_evaluate(model="local-chat-completions",
                                    model_args={"base_url": srv.url, "model": model, "num_concurrent": 2},
                                    tasks=["cpsd_rumor"], task_manager=cpsd_tasks.task_manager(),
                                    apply_chat_template=True, limit=5, bootstrap_iters=0, use_cache=cache))
    assert (tmp_path / "cache" / "shared_rank0.db").exists()
    assert srv.requests == 5  # model-b sent nothing: it was served model-a's cached answers
    assert runs[0]["results"]["cpsd_rumor"] == runs[1]["results"]["cpsd_rumor"]


# --------------------------------------------------------------------------- CLI: kill and resume

def test_killed_run_resumes_from_cache_without_re_requesting(tmp_path, hf_home, server):
    tasks = ("rumor", "fraud_detection")
    total = sum(n_demo(t) for t in tasks)  # 40 distinct prompts
    kill_after = 12
    srv = server(plan=ordinal_plan({4: "null"}, period=10), delay=0.1)
    cache = tmp_path / "cache" / "run"
    args = ("--use_cache", str(cache))
    model_args = "num_concurrent=1,max_retries=2,timeout=10"
    proc = cli(",".join(f"cpsd_{t}" for t in tasks), srv.url, tmp_path / "out1", hf_home, model_args, args,
               popen=True)
    deadline = time.monotonic() + 300
    while srv.served_ok < kill_after and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)  # a crash: no clean-up handlers run
    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    time.sleep(0.3)  # let the server finish the request that was in flight
    first = dict(srv.attempts)
    served_first = srv.served_ok
    nulls_first = set(srv.prompts["null"])
    assert kill_after <= served_first <= kill_after + 1 < total

    srv.reset_counts()
    out2 = tmp_path / "out2"
    done = cli(",".join(f"cpsd_{t}" for t in tasks), srv.url, out2, hf_home, model_args, args)
    assert done.returncode == 0, done.stderr[-3000:]
    second = dict(srv.attempts)
    # Nothing answered with content in run 1 is asked again, except at most the one in flight at the kill;
    # null answers are not cached on the sequential path (num_concurrent=1), so they are asked again.
    answered_first = set(first) - nulls_first
    again = answered_first & set(second)
    assert len(again) <= 1, again
    assert nulls_first <= set(second)
    assert set(first) | set(second) == {prompt_of(s) for v in load_samples(out2).values() for s in v}
    assert srv.requests == total - len(answered_first) + len(again)
    assert "Cached requests: " in done.stderr
    results = json.loads(next(out2.rglob("results_*.json")).read_text(encoding="utf-8"))
    samples = load_samples(out2)
    for task in tasks:
        assert results["n-samples"][f"cpsd_{task}"]["effective"] == len(samples[f"cpsd_{task}"]) == n_demo(task)
        for sample in samples[f"cpsd_{task}"]:
            prompt = prompt_of(sample)
            assert sample["resps"] == [["" if prompt in srv.prompts["null"] | nulls_first else answer(prompt)]]
