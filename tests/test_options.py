"""Run options and the scoring signature (issue 12, cases 8 and 9): every option is checked when
the tasks are built, before any request; each task's results carry how they were scored."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from cpsd_tasks import options, task_yaml
from cpsd_tasks.data import harness_dataset
from cpsd_tasks.data.loading import DEMO_DIR, load_task_docs
from cpsd_tasks.options import OptionError, reset_run_configs
from cpsd_tasks.reading import READER_VERSION
from cpsd_tasks.specs import METRICS_VERSION
from cpsd_tasks.tasks import TASKS

from conftest import ROOT, run_cpsd_eval

YAML_DIR = ROOT / "cpsd_tasks" / "yaml"


@pytest.fixture(autouse=True)
def no_options(monkeypatch):
    for var in ("CPSD_BERTSCORE_MODEL", "CPSD_BERTSCORE_NUM_LAYERS", "CPSD_BERTSCORE_BATCH_SIZE", "CPSD_DATA_DIR"):
        monkeypatch.delenv(var, raising=False)
    yield
    reset_run_configs()


# --------------------------------------------------------------------------- case 9: options

@pytest.mark.parametrize("task, opts, message", [
    ("case_reading", {"tau_qa": 1.5},
     "cpsd_case_reading: option tau_qa=1.5 (case_reading 模糊 similarity threshold τ_qa) must be a number in [0, 1]"),
    ("case_reading", {"tau_qa": "abc"}, "option tau_qa='abc'"),
    ("case_reading", {"tau_qa": float("nan")}, "option tau_qa=nan"),
    ("rumor", {"tau_qa": -0.1}, "cpsd_rumor: option tau_qa=-0.1"),  # --metadata reaches every task
    ("drug_ner", {"alpha": 1.5}, "option alpha=1.5 (IE weight of the exact stage α) must be a number in [0, 1]"),
    ("drug_re", {"tau": 0}, "option tau=0 (IE fuzzy-match threshold τ) must be a number in (0, 1]"),
    ("fraud_ner", {"alpha": True}, "option alpha=True"),
    ("case_summary", {"bertscore_num_layers": "eight"}, "option bertscore_num_layers='eight' must be an integer ≥ 1"),
    ("case_summary", {"bertscore_num_layers": 0}, "option bertscore_num_layers=0 must be an integer ≥ 1"),
    ("case_report", {"bertscore_batch_size": 2.5}, "option bertscore_batch_size=2.5 must be an integer ≥ 1"),
    ("legal_analysis", {"bertscore_model": 5}, "option bertscore_model=5 must be a model name or a directory"),
])
def test_bad_option_stops_the_task_build(task, opts, message):
    with pytest.raises(OptionError) as err:
        harness_dataset(task_id=task, **opts)
    assert message in str(err.value)
    assert err.value.headline == "invalid run option" and isinstance(err.value, ValueError)


def test_bad_bertscore_environment_variable_stops_the_build(monkeypatch):
    monkeypatch.setenv("CPSD_BERTSCORE_NUM_LAYERS", "eight")
    with pytest.raises(OptionError, match=r"cpsd_case_summary: \$CPSD_BERTSCORE_NUM_LAYERS='eight' is not an integer"):
        harness_dataset(task_id="case_summary")


def test_good_options_are_resolved_into_the_signature():
    slot: dict = {}
    harness_dataset(task_id="case_reading", tau_qa="0.8", cpsd_signature=slot)
    assert slot["tau_qa"] == 0.8 and "alpha" not in slot
    harness_dataset(task_id="drug_re", alpha=0.25, tau="0.9", tau_qa=0.3, cpsd_signature=slot)
    assert (slot["alpha"], slot["tau"], slot["task"]) == (0.25, 0.9, "drug_re") and "tau_qa" not in slot
    harness_dataset(task_id="case_summary", bertscore_model="hfl/chinese-roberta-wwm-ext", bertscore_num_layers="6",
                    cpsd_signature=slot)
    assert (slot["bertscore_model"], slot["bertscore_num_layers"], slot["bertscore_rescale"]) == \
        ("hfl/chinese-roberta-wwm-ext", 6, False)  # a hub name is not looked up


def test_the_build_keeps_one_frozen_config_that_the_hooks_read():
    import dataclasses

    from cpsd_tasks import ie, qa
    from cpsd_tasks.options import RunConfig, run_config

    assert run_config("drug_re") == RunConfig("drug_re", alpha=0.5, tau=0.8)  # not built here: defaults
    harness_dataset(task_id="drug_re", alpha="0.25", tau=1, tau_qa="0.3", data_dir=None)
    config = run_config("drug_re")
    assert config == RunConfig("drug_re", alpha=0.25, tau=1.0, tau_qa=0.3)  # cast once, "0.25" -> 0.25
    assert ie.run_options("drug_re") == (0.25, 1.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.alpha = 0.9  # type: ignore[misc]
    assert run_config("drug_ner") == RunConfig("drug_ner")  # per task id
    harness_dataset(task_id="case_reading", tau_qa=0.7)
    assert qa.tau_qa() == 0.7
    with pytest.raises(OptionError):
        harness_dataset(task_id="case_reading", tau_qa=7)
    assert qa.tau_qa() == 0.7  # a refused build leaves the configuration it had


def test_only_the_dataset_hook_builds_a_run_config():
    """Report code (re-scoring, bootstraps) builds its own RunConfig and passes it; nothing but the
    dataset hook calls ``configure`` or touches the registry."""
    import re

    root = Path(__file__).resolve().parents[1] / "cpsd_tasks"
    writers = sorted(str(p.relative_to(root)) for p in root.rglob("*.py")
                     if p.name != "options.py" and re.search(r"\bconfigure\(|_CONFIGS", p.read_text(encoding="utf-8")))
    assert writers == ["data/__init__.py"]


# --------------------------------------------------------------------------- case 8: signature

def write(base, task, rows, name="test.jsonl"):
    folder = base / task
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")


def test_signature_fields_and_digests(tmp_path):
    from lm_eval.tasks._yaml_loader import load_yaml  # the harness's own reading of the YAML

    slot: dict = {}
    config = YAML_DIR / "cpsd_drug_ner.yaml"
    harness_dataset(task_id="drug_ner", config_source=str(config), cpsd_signature=slot)
    template = load_yaml(config, resolve_func=False)["doc_to_text"]
    assert slot["prompt"] == options.digest([template]) and slot["prompt"].startswith("sha256:")
    assert slot["data"] == options.data_digest(load_task_docs("drug_ner"))
    assert (slot["cpsd_tasks"], slot["task"], slot["n_test"], slot["n_fewshot"]) == ("0.1.0", "drug_ner", 12, 0)
    assert (slot["reader"], slot["metrics"]) == (READER_VERSION, METRICS_VERSION) == ("11", "1")
    assert (slot["alpha"], slot["tau"]) == (0.5, 0.8)
    assert slot["string"] == (f"cpsd:0.1.0|reader:11|metrics:1|task:drug_ner|"
                              f"prompt:{slot['prompt'].replace(':', '.')}|"
                              f"data:{slot['data'].replace(':', '.')}|n_test:12|n_fewshot:0|alpha:0.5|tau:0.8")
    assert options.SIGNATURES["drug_ner"] == slot

    gen: dict = {}
    harness_dataset(task_id="legal_analysis", bertscore_model="none", cpsd_signature=gen)
    assert gen["jieba"] == version("jieba") and gen["bert_score"] == version("bert-score")
    assert (gen["sacrebleu"], gen["rouge_chinese"]) == (version("sacrebleu"), version("rouge-chinese"))
    assert (gen["bertscore_model"], gen["bertscore_idf"]) == ("none", False)

    # The data digest follows the docs, not the folder they lie in.
    rows = [{"id": "1", "text": "今天天气晴。", "label": "非谣言"}, {"id": "2", "text": "明天停水", "label": "谣言"}]
    digests = []
    for folder, data in (("a", rows), ("b", rows), ("c", [rows[0], dict(rows[1], label="非谣言")])):
        write(tmp_path / folder, "rumor", data)
        sig: dict = {}
        harness_dataset(task_id="rumor", data_dir=str(tmp_path / folder), cpsd_signature=sig)
        digests.append(sig["data"])
    write(tmp_path / "a", "rumor", [{"id": "f", "text": "别的帖子", "label": "谣言"}], name="fewshot.jsonl")
    sig = {}
    harness_dataset(task_id="rumor", data_dir=str(tmp_path / "a"), cpsd_signature=sig)
    assert digests[0] == digests[1] != digests[2] and sig["data"] not in digests and sig["n_fewshot"] == 1


def test_every_task_yaml_has_a_signature_slot():
    for task in TASKS:
        meta = task_yaml.read(YAML_DIR / f"cpsd_{task}.yaml").get("metadata") or {}
        assert meta.get("cpsd_signature") == {}, task
        assert options.prompt_template(task) is not None


# --------------------------------------------------------------------------- through the CLI

@pytest.mark.e2e
def test_bad_tau_qa_stops_the_cli_before_any_request(tmp_path, baseline_server, baseline_url, hf_home):
    # --limit 2 runs no 模糊 question: before, tau_qa=1.5 was never even looked at (exit 0).
    assert "模糊" not in [d["qtype"] for d in load_task_docs("case_reading")["test"][:2]]
    before = baseline_server.requests
    env = dict(os.environ, HF_HOME=str(hf_home), HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1")
    cmd = [sys.executable, "-m", "cpsd_tasks.cli", "--tasks", "cpsd_case_reading", "--limit", "2",
           "--model", "local-chat-completions", "--model_args", f"base_url={baseline_url},model=baseline",
           "--apply_chat_template", "--metadata", json.dumps({"tau_qa": 1.5})]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600)
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert "cpsd-eval: invalid run option, nothing was sent to the model." in proc.stderr
    assert "option tau_qa=1.5 (case_reading 模糊 similarity threshold τ_qa) must be a number in [0, 1]" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert baseline_server.requests == before


@pytest.mark.e2e
def test_results_json_carries_each_tasks_signature(tmp_path, baseline_url, hf_home):
    meta = {"alpha": 0.6, "tau": 0.85, "tau_qa": 0.7, "bertscore_model": "none",  # (a folder must exist)
            "bertscore_num_layers": 8}
    run = run_cpsd_eval("cpsd_rumor,cpsd_drug_ner,cpsd_case_reading,cpsd_case_summary", baseline_url,
                        tmp_path / "out", hf_home, extra=("--limit", "2", "--metadata", json.dumps(meta)))
    res = run["results"]
    for task in ("rumor", "drug_ner", "case_reading", "case_summary"):
        config = res["configs"][f"cpsd_{task}"]
        sig = config["metadata"]["cpsd_signature"]
        assert sig["task"] == task and sig["cpsd_tasks"] == "0.1.0"
        assert sig["prompt"] == options.digest([config["doc_to_text"]])  # the template the run used
        assert sig["data"] == options.data_digest(load_task_docs(task))  # all docs loaded, not only --limit
        assert sig["n_test"] == len(load_task_docs(task)["test"])
        assert not {"alpha,none", "tau,none"} & set(res["results"][f"cpsd_{task}"])
    sigs = {t: res["configs"][f"cpsd_{t}"]["metadata"]["cpsd_signature"] for t in ("drug_ner", "case_reading",
                                                                                      "case_summary", "rumor")}
    assert (sigs["drug_ner"]["alpha"], sigs["drug_ner"]["tau"]) == (0.6, 0.85)
    assert sigs["case_reading"]["tau_qa"] == 0.7
    assert (sigs["case_summary"]["bertscore_model"], sigs["case_summary"]["bertscore_num_layers"],
            sigs["case_summary"]["jieba"]) == ("none", 8, version("jieba"))
    assert not {"alpha", "tau", "tau_qa", "jieba"} & set(sigs["rumor"])
    assert all(str(DEMO_DIR) not in json.dumps(s) for s in sigs.values())  # nothing machine-specific
