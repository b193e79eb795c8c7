"""cpsd-eval's start-up: usage, task resolution, pre-flight, the cpsd-only run without the harness's
built-in task index (cpsd_tasks.cli.cpsd_eval, cpsd_tasks.cli.run). Tests that launch the CLI are e2e."""

from __future__ import annotations

import argparse
import difflib
import inspect
import json
import os
import re
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cpsd_tasks.cli import cpsd_eval as cli
from cpsd_tasks.tasks import TASKS

from conftest import run_cpsd_eval

TWELVE = sorted(s.harness_name for s in TASKS.values())


# --------------------------------------------------------------------------- unit

def test_run_execute_mirrors_the_harness():
    """cpsd_tasks.cli.run.execute is lm-eval's Run._execute except for the TaskManager lines. When the
    harness changes the method, this fails: bring cpsd_tasks/cli/run.py in line with it."""
    from lm_eval._cli.run import Run

    from cpsd_tasks.cli import run

    def body(func) -> list[str]:
        lines = textwrap.dedent(inspect.getsource(func)).splitlines()
        start = lines.index('    os.environ["TOKENIZERS_PARALLELISM"] = "false"')
        return [line for line in lines[start:] if line.strip()]

    changed = [line for line in difflib.unified_diff(body(Run._execute), body(run.execute), lineterm="", n=0)
               if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    assert changed == [
        "-    eval_logger = logging.getLogger(__name__)",
        '+    eval_logger = logging.getLogger("lm_eval._cli.run")',
        "-    # Create task manager (metadata already set up in config validation)",
        "-    task_manager = cfg.process_tasks(cfg.metadata)",
        "+    # ---- the one difference: our folder only, names already resolved (harness:",
        "+    # ---- task_manager = cfg.process_tasks(cfg.metadata), which indexes every built-in task)",
        "+    task_manager_ = task_manager(cfg.include_path, cfg.metadata)",
        "+    cfg.tasks = list(tasks)",
        "+    # ----",
        "-        task_manager=task_manager,",
        "+        task_manager=task_manager_,",
    ], "\n".join(changed)


def test_run_task_manager_has_no_builtins():
    from cpsd_tasks import YAML_DIR
    from cpsd_tasks.cli.run import task_manager

    tm = task_manager(str(YAML_DIR), {"bertscore_model": "none"})
    assert tm.all_tasks and all(name.startswith("cpsd") for name in tm.all_tasks)


PROCESS_GROUP_PROBE = """
import sys
import torch.distributed as dist
from cpsd_tasks.cli.cpsd_eval import close_process_group
print(close_process_group())                       # no group yet
dist.init_process_group("gloo", init_method="file://" + sys.argv[1], rank=0, world_size=1)
print(close_process_group(), dist.is_initialized())  # destroyed, and gone
"""


@pytest.mark.e2e
def test_close_process_group_destroys_an_initialised_group_only(tmp_path):
    """The guard against a rank > 0 exiting with gloo threads alive (SIGABRT; see cli docstring)."""
    proc = subprocess.run([sys.executable, "-c", PROCESS_GROUP_PROBE, str(tmp_path / "store")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["False", "True", "False"]
    assert "rank 0: closed the torch.distributed process group" in proc.stderr


@pytest.mark.e2e
def test_close_process_group_without_torch_loaded_imports_nothing():
    code = ("import sys; from cpsd_tasks.cli.cpsd_eval import close_process_group; "
            "print(close_process_group(), 'torch' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.stdout.split() == ["False", "False"], proc.stderr[-2000:]


def test_no_arguments_prints_usage(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main([])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: cpsd-eval") and "--no_preflight" in err and "'cpsd_*'" in err


def test_own_flags_removed():
    argv, own = cli.split_own_flags(["--tasks", "cpsd", "--no_preflight", "--limit", "2", "--index_builtins"])
    assert argv == ["--tasks", "cpsd", "--limit", "2"] and own == {"--no_preflight", "--index_builtins"}


def test_requested_reads_cli_over_config(tmp_path):
    config = tmp_path / "run.yaml"
    config.write_text("tasks: cpsd_clf,cpsd_ie\nmodel: cpsd-openai-chat\n"
                      "model_args: model=gpt-4o,base_url=http://h:1/v1\n", encoding="utf-8")
    ns = argparse.Namespace(config=str(config), tasks=None, model=None, model_args=None)
    assert cli.requested(ns) == (["cpsd_clf", "cpsd_ie"], "cpsd-openai-chat",
                                 {"model": "gpt-4o", "base_url": "http://h:1/v1"})
    ns = argparse.Namespace(config=str(config), tasks=["cpsd_*"], model="hf", model_args={"pretrained": "x"})
    assert cli.requested(ns) == (["cpsd_*"], "hf", {"pretrained": "x"})
    assert cli.requested(argparse.Namespace(tasks=["a,b", "c"])) == (["a", "b", "c"], "hf", {})


def test_connection_failure_found_in_the_chain():
    import requests

    try:
        try:
            raise ConnectionRefusedError(111, "Connection refused")
        except OSError as inner:
            raise requests.exceptions.ConnectionError("HTTPConnectionPool(host='127.0.0.1', port=9)") from inner
    except Exception as err:  # noqa: BLE001
        # the root cause
        assert cli.connection_failure(err) == "ConnectionRefusedError: [Errno 111] Connection refused"
    assert cli.connection_failure(ValueError("x")) is None
    assert cli.connection_failure(RuntimeError("wrapped")) is None


# --------------------------------------------------------------------------- e2e helpers

def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def cpsd_eval(args: list[str], tmp_path: Path, hf_home: Path, env_extra: dict | None = None,
              env_drop: tuple[str, ...] = (), timeout: int = 600) -> subprocess.CompletedProcess:
    env = dict(os.environ, HF_HOME=str(hf_home), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", **(env_extra or {}))
    for key in ("CPSD_DATA_DIR", *env_drop):
        env.pop(key, None)
    return subprocess.run([sys.executable, "-m", "cpsd_tasks.cli", *args], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=timeout)


def one_line_error(proc: subprocess.CompletedProcess, code: int = 2) -> str:
    assert proc.returncode == code, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("cpsd-eval: "), proc.stderr[-3000:]
    return lines[0]


# --------------------------------------------------------------------------- e2e

@pytest.mark.e2e
def test_usage_without_importing_the_harness(tmp_path, hf_home):
    proc = cpsd_eval([], tmp_path, hf_home)
    assert proc.returncode == 2 and proc.stderr.startswith("usage: cpsd-eval")
    code = ("import sys\nfrom cpsd_tasks.cli.cpsd_eval import main\ntry:\n    main([])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('lm_eval', 'torch', 'datasets')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.e2e
def test_unknown_cpsd_task_did_you_mean(tmp_path, hf_home, baseline_url):
    proc = cpsd_eval(["--tasks", "cpsd_clf,cpsd_sentimnet", "--model", "cpsd-local-chat",
                      "--model_args", f"base_url={baseline_url},model=baseline"], tmp_path, hf_home)
    line = one_line_error(proc)
    assert "'cpsd_sentimnet'" in line and "did you mean 'cpsd_sentiment'" in line


@pytest.mark.e2e
@pytest.mark.parametrize("model", ["cpsd-local-chat", "local-chat-completions", "local-completions"])
def test_nothing_listening_is_one_line(tmp_path, hf_home, model):
    path = "/v1/completions" if model == "local-completions" else "/v1/chat/completions"
    url = f"http://127.0.0.1:{closed_port()}{path}"
    proc = cpsd_eval(["--tasks", "cpsd_*", "--model", model, "--model_args", f"base_url={url},model=m",
                      "--apply_chat_template"], tmp_path, hf_home)
    line = one_line_error(proc)
    assert url in line and "nothing is listening" in line and "--no_preflight" in line


@pytest.mark.e2e
@pytest.mark.parametrize("model", ["cpsd-openai-chat", "openai-chat-completions"])
def test_missing_key_is_one_line(tmp_path, hf_home, baseline_url, model):
    proc = cpsd_eval(["--tasks", "cpsd_rumor", "--model", model, "--model_args", f"base_url={baseline_url},model=m",
                      "--apply_chat_template"], tmp_path, hf_home, env_drop=("OPENAI_API_KEY",))
    assert "OPENAI_API_KEY" in one_line_error(proc)


@pytest.mark.e2e
def test_no_preflight_and_nothing_listening_still_no_traceback(tmp_path, hf_home):
    """--no_preflight skips the check (the flag never reaches the harness); the run then fails on
    the first request, with one line and no traceback."""
    url = f"http://127.0.0.1:{closed_port()}/v1/chat/completions"
    proc = cpsd_eval(["--tasks", "cpsd_rumor", "--limit", "1", "--no_preflight", "--model", "cpsd-local-chat",
                      "--model_args", f"base_url={url},model=m,max_retries=1", "--apply_chat_template"],
                     tmp_path, hf_home)
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr and "unrecognized arguments" not in proc.stderr
    ours = [line for line in proc.stderr.splitlines() if line.startswith("cpsd-eval: the endpoint")]
    assert len(ours) == 1, proc.stderr[-3000:]  # on a line of its own, after the progress bar
    assert "did not answer" in ours[0] and "Connection refused" in ours[0] and "--use_cache" in ours[0]


@pytest.mark.e2e
def test_design_command_runs_the_twelve_tasks(tmp_path, hf_home, baseline_url, baseline_server):
    """Issue 13's command: --tasks 'cpsd_*' with openai-chat-completions (a dummy key) against the
    baseline: the twelve generate_until tasks once each (group cpsd), no cpsd_ll task, and the
    built-in task index skipped (said on stderr)."""
    out = tmp_path / "out"
    before = baseline_server.requests
    proc = cpsd_eval(["--tasks", "cpsd_*", "--limit", "1", "--model", "openai-chat-completions",
                      "--model_args", f"base_url={baseline_url},model=baseline,num_concurrent=4,max_retries=2",
                      "--apply_chat_template", "--output_path", str(out), "--log_samples",
                      "--metadata", '{"bertscore_model": "none"}'],
                     tmp_path, hf_home, env_extra={"OPENAI_API_KEY": "dummy"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads(next(out.rglob("results_*.json")).read_text(encoding="utf-8"))
    assert sorted(results["n-samples"]) == TWELVE
    assert "cpsd" in results["groups"] and not any(t.startswith("cpsd_ll") for t in results["results"])
    assert baseline_server.requests - before == 12
    startup = [line for line in proc.stderr.splitlines() if line.startswith("cpsd-eval: ")]
    assert len(startup) == 2 and "cpsd_* → cpsd" in startup[0] and "not lm_eval's ~15k built-in" in startup[0]
    assert startup[1].startswith("cpsd-eval: --model openai-chat-completions runs as cpsd-openai-chat")


def _comparable(run: dict) -> dict:
    """Results and samples with the per-process parts removed (times, object addresses)."""
    results = {k: v for k, v in run["results"].items() if k not in ("date", "total_evaluation_time_seconds")}
    text = json.dumps([results, run["samples"]], sort_keys=True, ensure_ascii=False)
    return json.loads(re.sub(r" at 0x[0-9a-f]+", " at 0x…", text))


@pytest.mark.e2e
def test_cpsd_only_run_equals_the_harness_run(tmp_path, hf_home, baseline_url):
    """The same run through cpsd_tasks.cli.run (our folder only) and through the harness's own run code
    (--index_builtins): identical results JSON and sample logs, apart from times and addresses."""
    ours = run_cpsd_eval("cpsd_rumor,cpsd_drug_ner", baseline_url, tmp_path / "ours", hf_home, extra=("--limit", "3"))
    harness = run_cpsd_eval("cpsd_rumor,cpsd_drug_ner", baseline_url, tmp_path / "harness", hf_home,
                            extra=("--limit", "3", "--index_builtins"))
    assert "only the cpsd task folder is indexed" in ours["stderr"]
    assert "--index_builtins given: lm_eval indexes its ~15k built-in tasks" in harness["stderr"]
    assert _comparable(ours) == _comparable(harness)
    assert ours["stdout"].splitlines()[1:] == harness["stdout"].splitlines()[1:]  # the printed tables


@pytest.mark.e2e
def test_builtin_task_in_the_run_indexes_builtins(tmp_path, hf_home, baseline_url):
    """A run naming a non-cpsd task takes the harness's path (built-ins indexed, said on stderr); an
    unknown one is one line, with the close cpsd name."""
    proc = cpsd_eval(["--tasks", "cpsd_rumor,sentimnet", "--model", "cpsd-local-chat",
                      "--model_args", f"base_url={baseline_url},model=baseline", "--apply_chat_template"],
                     tmp_path, hf_home)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    lines = [line for line in proc.stderr.splitlines() if line.startswith("cpsd-eval: ")]
    assert "sentimnet is not cpsd: lm_eval indexes its ~15k built-in tasks too" in lines[0]
    assert "unknown task(s) 'sentimnet'" in lines[-1] and "'cpsd_sentiment'" in lines[-1]
