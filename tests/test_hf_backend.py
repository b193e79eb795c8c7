"""End to end through lm-eval's ``hf`` backend on CPU with tiny local models (issue 7).

Every ``cpsd_*`` task found in ``cpsd_tasks/yaml`` (discovered, not listed here) runs through the
real CLI with ``--model hf`` on a tiny random Llama built by :mod:`tiny_models`:

* a "chat" model (ChatML template) with ``--apply_chat_template``; a "base" model (no template)
  without it — the results must be complete: every metric of every task's ``metric_list``;
* a *scripted* model whose greedy output is ``积极</s>多余`` whatever the prompt — the task's
  stop string ``</s>`` must cut it to ``积极``, and the scores equal hand-computed values, for the
  generative and the log-likelihood (``cpsd_ll``) variants alike; its context is 128 tokens and
  some inputs have thousands of characters, so left truncation must happen (the harness warns)
  and the run must still complete;
* two CPU processes (``accelerate launch`` with a gloo process group) give the same scores as
  one — see :func:`test_accelerate_two_cpu_processes_match_single_process` for what that does and
  does not prove.

Values from random weights are meaningless; what is asserted is that nothing breaks and that
every number the harness reports is there. Cost: 4 CLI runs (one with two processes),
about 2 minutes on 2 shared cores.
"""

from __future__ import annotations

import json
import math
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any, Optional, Sequence

import pytest

from cpsd_tasks import YAML_DIR
from cpsd_tasks.data.loading import DEMO_DIR, read_jsonl
from cpsd_tasks.tasks import TASKS, get_task

import tiny_models

pytestmark = pytest.mark.e2e

LIMIT = 3
GEN_TOKS = 8
SCRIPT = "积极</s>多余"


# --------------------------------------------------------------------------- task discovery

def _load(path: Path) -> dict[str, Any]:
    from lm_eval.tasks._yaml_loader import load_yaml

    return load_yaml(path, resolve_func=False)


def discover_tasks() -> tuple[list[str], list[str]]:
    """``(paper tasks, cpsd_ll tasks)``: names of every ``cpsd_*.yaml`` task in the task folder."""
    paper, ll = [], []
    for path in sorted(YAML_DIR.glob("cpsd_*.yaml")):
        cfg = _load(path)
        if "task" not in cfg or not isinstance(cfg["task"], str):
            continue
        tags = cfg.get("tag") or []
        (ll if "cpsd_ll" in ([tags] if isinstance(tags, str) else tags) else paper).append(cfg["task"])
    return paper, ll


def task_configs() -> dict[str, dict[str, Any]]:
    """Task name -> merged YAML config (includes resolved, ``!function`` left unresolved)."""
    out = {}
    for path in sorted(YAML_DIR.glob("cpsd_*.yaml")):
        cfg = _load(path)
        if isinstance(cfg.get("task"), str):
            out[cfg["task"]] = cfg
    return out


def group_members(group: str) -> set[str]:
    """Leaf tasks a group YAML in the task folder expands to (empty set if there is no such group)."""
    groups = {}
    for path in YAML_DIR.glob("*.yaml"):
        cfg = _load(path)
        if isinstance(cfg.get("group"), str):
            groups[cfg["group"]] = cfg.get("task") or []
    if group not in groups:
        return set()
    leaves: set[str] = set()
    for item in groups[group]:
        name = item["task"] if isinstance(item, dict) else item
        leaves |= group_members(name) if name in groups else {name}
    return leaves


def expected_keys(cfg: dict[str, Any]) -> list[str]:
    """Result keys ``"<metric>,<filter>"`` a task must report, from its ``metric_list``.

    A shared template may list per-type metrics of sibling tasks (``f1_报案人`` in the IE
    template); a metric ending in ``_<label>`` where the label belongs to another task only is not
    expected from this one.
    """
    spec = get_task(cfg["dataset_kwargs"]["task_id"])
    foreign = {label for other in TASKS.values() for label in other.labels} - set(spec.labels)
    filters = [f["name"] for f in cfg.get("filter_list") or []] or ["none"]
    metrics = [m["metric"] for m in cfg.get("metric_list") or []
               if not any(m["metric"].endswith(f"_{label}") for label in foreign)]
    assert metrics, f"{cfg['task']} has no metric_list"
    return [f"{m},{f}" for f in filters for m in metrics]


def doc_count(task_cfg: dict[str, Any]) -> int:
    """Number of docs a task has in the demo set (after its qtype filter, if any)."""
    task_id = task_cfg["dataset_kwargs"]["task_id"]
    docs = read_jsonl(DEMO_DIR / task_id / "test.jsonl", task_id)
    process = str(task_cfg.get("process_docs") or "")
    if process.endswith("judge_docs"):
        docs = [d for d in docs if d["qtype"] == "判断"]
    elif process.endswith("single_choice_docs"):
        docs = [d for d in docs if d["qtype"] == "单选"]
    return len(docs)


# --------------------------------------------------------------------------- running the CLI

def run_hf(model_dir: Path, tasks: Sequence[str], out_dir: Path, hf_home: Path, *,
           chat: bool, limit: Optional[int] = LIMIT, metadata: Optional[dict] = None,
           launcher: Sequence[str] = (), env_extra: Optional[dict] = None,
           gen_toks: Optional[int] = GEN_TOKS) -> dict[str, Any]:
    """Run ``cpsd-eval --model hf`` on CPU (optionally under a launcher) and read its outputs.

    Returns:
        ``{"results": results JSON, "samples": {task: [sample, …]}, "stderr": str}``.

    Raises:
        AssertionError: non-zero exit (the stderr tail is in the message).
    """
    args = ["--model", "hf", "--model_args", f"pretrained={model_dir},dtype=float32", "--device", "cpu",
            "--batch_size", "4", "--tasks", ",".join(tasks), "--output_path", str(out_dir), "--log_samples"]
    if gen_toks is not None:
        args += ["--gen_kwargs", f"max_gen_toks={gen_toks}"]
    if limit is not None:
        args += ["--limit", str(limit)]
    if chat:
        args.append("--apply_chat_template")
    if metadata:
        args += ["--metadata", json.dumps(metadata)]
    cmd = [*launcher, *args] if launcher else [sys.executable, "-m", "cpsd_tasks.cli", *args]
    env = dict(os.environ, HF_HOME=str(hf_home), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1",
               TOKENIZERS_PARALLELISM="false", **(env_extra or {}))
    env.pop("CPSD_DATA_DIR", None)
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=out_dir.parent, env=env, timeout=900)
    assert proc.returncode == 0, f"run failed ({proc.returncode}):\n{proc.stderr[-5000:]}"
    results = sorted(out_dir.rglob("results_*.json"))
    assert len(results) == 1, results
    samples: dict[str, list[dict]] = {}
    for path in out_dir.rglob("samples_*.jsonl"):
        task = path.name[len("samples_"):].rsplit("_", 1)[0]
        samples[task] = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {"results": json.loads(results[0].read_text(encoding="utf-8")), "samples": samples,
            "stderr": proc.stderr}


def prompt_of(sample: dict) -> str:
    """The context string the model saw (first request of the sample)."""
    return sample["arguments"]["gen_args_0"]["arg_0"]


def check_complete(run: dict, tasks: Sequence[str], configs: dict[str, dict], limit: int) -> None:
    """Every task reports every metric of its metric_list, on min(limit, docs) docs."""
    results = run["results"]["results"]
    for task in tasks:
        assert task in results, f"{task} missing from results"
        row = results[task]
        n = min(limit, doc_count(configs[task]))
        assert run["results"]["n-samples"][task]["effective"] == n, task
        assert len(run["samples"][task]) == n, task
        higher = {m["metric"]: m.get("higher_is_better") for m in configs[task]["metric_list"]}
        for key in expected_keys(configs[task]):
            assert key in row, f"{task}: metric {key} missing; got {sorted(row)}"
            value = row[key]
            if higher[key.split(",")[0]] is None:       # descriptive entries, e.g. bertscore_config
                assert value is not None, (task, key)
            else:
                assert isinstance(value, (int, float)) and not isinstance(value, bool), (task, key, value)
        if "score,none" in row:
            assert 0.0 <= row["score,none"] <= 1.0, (task, row["score,none"])


# --------------------------------------------------------------------------- fixtures

@pytest.fixture(scope="module")
def models(tmp_path_factory) -> dict[str, Path]:
    """The tiny models, built once per module (about 2 s in all)."""
    root = tmp_path_factory.mktemp("tiny_models")
    return {
        "chat": tiny_models.build_tiny_lm(root / "chat", chat_template=True),
        "base": tiny_models.build_tiny_lm(root / "base", chat_template=False),
        "script": tiny_models.build_tiny_lm(root / "script", chat_template=True, script=SCRIPT,
                                            max_position_embeddings=128),
        "bert": tiny_models.build_tiny_bert(root / "bert"),
    }


@pytest.fixture(scope="module")
def hf_cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("hf_home")


@pytest.fixture(scope="module")
def all_tasks() -> tuple[list[str], list[str], dict[str, dict]]:
    paper, ll = discover_tasks()
    assert len(ll) == 7, ll
    return paper, ll, task_configs()


def paper_selection(paper: Sequence[str]) -> tuple[list[str], bool]:
    """Run the ``cpsd`` group when it covers every discovered paper task, else the task list."""
    members = group_members("cpsd")
    if members and set(paper) <= members:
        return ["cpsd"], True
    return list(paper), False


@pytest.fixture(scope="module")
def base_run(models, hf_cache, all_tasks, tmp_path_factory) -> dict:
    """All tasks (paper + cpsd_ll) with the base model, no chat template, one process."""
    paper, ll, _ = all_tasks
    selection, _ = paper_selection(paper)
    out = tmp_path_factory.mktemp("base_run") / "out"
    return run_hf(models["base"], [*selection, "cpsd_ll"], out, hf_cache, chat=False,
                  metadata={"bertscore_model": str(models["bert"]), "bertscore_num_layers": 2})


# --------------------------------------------------------------------------- tests

def test_tokenizer_covers_every_demo_character(models):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(models["chat"])
    chars = {ch for text in tiny_models.project_corpus() for ch in tiny_models.CJK_RE.findall(text)}
    assert len(chars) > 500
    # Every CJK character of the demo data and prompts is one token; nothing is unknown.
    long_ones = [ch for ch in chars if len(tok.encode(ch, add_special_tokens=False)) != 1]
    assert long_ones == []
    sample = "报警人称：１２３ＡＢＣ，“未知”\n答案：积极"
    assert tok.decode(tok.encode(sample, add_special_tokens=False)) == sample
    # A character never seen still round-trips (byte fallback), in several tokens.
    assert tok.decode(tok.encode("龘", add_special_tokens=False)) == "龘"
    assert tok.chat_template and AutoTokenizer.from_pretrained(models["base"]).chat_template is None


def test_scripted_model_emits_its_script(models):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(models["script"])
    model = AutoModelForCausalLM.from_pretrained(models["script"])
    ids = tok("【约束】只输出标签。\n答案：", return_tensors="pt").input_ids
    with torch.no_grad():
        out = model.generate(ids, max_new_tokens=12, do_sample=False)
    assert tok.decode(out[0, ids.shape[1]:], skip_special_tokens=False) == SCRIPT + tiny_models.BOS_EOS
    with pytest.raises(ValueError, match="repeats a token"):
        tiny_models._script_model(model, tok, "积极积极")


def test_ll_choices_and_gold_by_hand():
    from cpsd_tasks import ll

    assert ll.choices({"task": "rumor", "label": "非谣言"}) == ["谣言", "非谣言"]
    assert ll.gold_index({"task": "rumor", "label": "非谣言"}) == 1
    assert ll.gold_index({"task": "incident_classification", "label": "交通事故"}) == 2
    assert ll.gold_index({"task": "case_reading", "qtype": "判断", "answer": "未知"}) == 2
    assert ll.gold_index({"task": "police_exam", "qtype": "判断", "answer": "错误", "options": []}) == 1
    single = {"task": "police_exam", "qtype": "单选", "answer": "C",
              "options": [{"key": "A", "text": "甲"}, {"key": "B", "text": "乙"}, {"key": "C", "text": "丙"}]}
    assert ll.choices(single) == ["A", "B", "C"] and ll.gold_index(single) == 2
    with pytest.raises(ValueError, match="no closed choice set"):
        ll.choices({"task": "police_exam", "qtype": "多选", "answer": "AB", "options": single["options"]})
    with pytest.raises(ValueError, match="no closed choice set"):
        ll.choices({"task": "case_reading", "qtype": "精确", "answer": "张某"})
    with pytest.raises(ValueError, match="not one of"):
        ll.gold_index({**single, "answer": "D"})


def test_ll_qtype_filters_keep_order():
    import datasets

    from cpsd_tasks import ll

    rows = [{"id": str(i), "qtype": q} for i, q in enumerate(["单选", "判断", "多选", "判断", "单选"])]
    ds = datasets.Dataset.from_list(rows)
    assert ll.judge_docs(ds)["id"] == ["1", "3"]
    assert ll.single_choice_docs(ds)["id"] == ["0", "4"]
    assert len(ll.judge_docs(ds.select([]))) == 0


def test_every_task_with_chat_template(models, hf_cache, all_tasks, tmp_path):
    paper, ll, configs = all_tasks
    selection, is_group = paper_selection(paper)
    run = run_hf(models["chat"], [*selection, "cpsd_ll"], tmp_path / "out", hf_cache, chat=True,
                 metadata={"bertscore_model": str(models["bert"]), "bertscore_num_layers": 2})
    check_complete(run, [*paper, *ll], configs, LIMIT)
    if is_group:
        assert 0.0 <= run["results"]["results"]["cpsd"]["score,none"] <= 1.0
    for task in [*paper, *ll]:
        for sample in run["samples"][task]:
            prompt = prompt_of(sample)
            assert prompt.startswith("<|im_start|>user\n【角色】"), (task, prompt[:80])
            assert prompt.endswith("<|im_end|>\n<|im_start|>assistant\n"), (task, prompt[-80:])
            if task in ll:
                assert prompt.endswith("答案：<|im_end|>\n<|im_start|>assistant\n")
            else:
                # max_gen_toks=8 from --gen_kwargs replaced the task's 1280–2048 tokens.
                assert sample["arguments"]["gen_args_0"]["arg_1"]["max_gen_toks"] == GEN_TOKS
    for task in (t for t in paper if t in ("cpsd_case_summary", "cpsd_case_report", "cpsd_legal_analysis")):
        # BERTScore ran on the tiny local BERT: a number, not the NaN of a missing model.
        assert not math.isnan(run["results"]["results"][task]["bertscore_f1,none"]), task


def test_every_task_base_model_without_template(base_run, all_tasks):
    paper, ll, configs = all_tasks
    check_complete(base_run, [*paper, *ll], configs, LIMIT)
    for task in [*paper, *ll]:
        for sample in base_run["samples"][task]:
            prompt = prompt_of(sample)
            assert prompt.startswith("【角色】") and "<|im_start|>" not in prompt, (task, prompt[:80])
            if task in ll:
                # Plain prompt ending in 答案：, each choice follows with no delimiter.
                assert prompt.endswith("\n答案：")
                conts = [arg["arg_1"] for arg in sample["arguments"].values()]
                assert not any(c.startswith(" ") for c in conts), conts
                assert len(sample["resps"]) == len(conts) >= 2
                assert 0 <= int(sample["target"]) < len(conts)


def test_ll_qtype_filters_and_choices(base_run):
    samples = base_run["samples"]
    for sample in samples["cpsd_ll_case_reading_judge"]:
        assert sample["doc"]["qtype"] == "判断"
        assert [a["arg_1"] for a in sample["arguments"].values()] == ["是", "否", "未知"]
    for sample in samples["cpsd_ll_police_exam_tf"]:
        assert sample["doc"]["qtype"] == "判断"
        assert [a["arg_1"] for a in sample["arguments"].values()] == ["正确", "错误"]
    for sample in samples["cpsd_ll_police_exam_single"]:
        doc = sample["doc"]
        letters = [o["key"] for o in doc["options"]]
        assert doc["qtype"] == "单选"
        assert [a["arg_1"] for a in sample["arguments"].values()] == letters
        assert letters[int(sample["target"])] == doc["answer"]
        assert all(f"\n{o['key']}. {o['text']}" in prompt_of(sample) for o in doc["options"])
    for sample in samples["cpsd_ll_incident_classification"]:
        assert [a["arg_1"] for a in sample["arguments"].values()] == ["盗窃", "电信诈骗", "交通事故", "故意伤害"]


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now (for the process group's rendezvous)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _write(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


#: 2,880 characters: far beyond the scripted model's 128-token context.
LONG_TEXT = "报警人称其在小区门口被人以投资理财为名骗走现金。" * 120
SCRIPT_TASKS = ["cpsd_sentiment", "cpsd_rumor", "cpsd_case_reading",
                "cpsd_ll_sentiment", "cpsd_ll_rumor", "cpsd_ll_case_reading_judge"]


@pytest.fixture(scope="module")
def script_run(models, hf_cache, tmp_path_factory) -> dict:
    """The scripted 128-token model on a small hand-written data set with very long inputs."""
    root = tmp_path_factory.mktemp("script_run")
    data = root / "data"
    sentiment = ["积极", "消极", "积极", "中性", "消极", "消极"]
    rumor = ["谣言", "非谣言", "非谣言"]
    _write(data / "sentiment" / "test.jsonl", [
        {"id": f"s{i}", "text": LONG_TEXT if i == 4 else f"第{i}条测试留言：民警处理得怎么样？", "label": label}
        for i, label in enumerate(sentiment)])
    _write(data / "rumor" / "test.jsonl", [
        {"id": f"r{i}", "text": f"第{i}条测试帖子：某地发生地震，请转发。", "label": label}
        for i, label in enumerate(rumor)])
    _write(data / "case_reading" / "test.jsonl", [
        {"id": "c1", "context": LONG_TEXT, "question": "报警人是否被骗走现金？", "answer": "是", "qtype": "判断"},
        {"id": "c2", "context": LONG_TEXT, "question": "报警人在哪里被骗？", "answer": "小区门口", "qtype": "模糊"},
    ])
    run = run_hf(models["script"], SCRIPT_TASKS, root / "out", hf_cache, chat=True, limit=None,
                 metadata={"data_dir": str(data)})
    run["gold"] = {"sentiment": sentiment, "rumor": rumor}
    return run


def samples_by_id(run: dict, task: str) -> dict[str, dict]:
    return {s["doc"]["id"]: s for s in run["samples"][task]}


def test_scripted_model_scores_by_hand(script_run):
    res, samples = script_run["results"]["results"], script_run["samples"]
    gold = script_run["gold"]["sentiment"]
    # The script is 积极</s>多余: the stop string </s> (task until) must cut it to exactly 积极.
    assert [s["resps"][0][0] for s in samples["cpsd_sentiment"]] == ["积极"] * 6
    assert res["cpsd_sentiment"]["acc,none"] == pytest.approx(2 / 6)
    assert res["cpsd_sentiment"]["invalid_rate,none"] == 0.0
    # f1_macro by hand: 积极 P=2/6 R=1 F1=1/2; 消极 and 中性 never predicted -> 0. Mean = 1/6.
    assert res["cpsd_sentiment"]["f1_macro,none"] == pytest.approx(1 / 6)
    # 积极 is no rumor label: nothing readable.
    assert res["cpsd_rumor"]["acc,none"] == 0.0 and res["cpsd_rumor"]["invalid_rate,none"] == 1.0
    # Log-likelihood: 积极 (choice 0) is the only likely continuation, for every doc. Each token
    # off the script costs 160 nats. The harness moves the context's trailing whitespace (the
    # "\n" after "<|im_start|>assistant") into every continuation, which costs all choices the
    # same 160: 积极 = -160, 消极 / 中性 = -480.
    for sample in samples["cpsd_ll_sentiment"]:
        lls = [float(r[0]) for r in sample["filtered_resps"]]
        assert lls == pytest.approx([-160.0, -480.0, -480.0], abs=0.5), lls
    assert res["cpsd_ll_sentiment"]["acc,none"] == pytest.approx(gold.count("积极") / 6)
    assert res["cpsd_ll_sentiment"]["acc_norm,none"] == pytest.approx(gold.count("积极") / 6)
    # Every rumor choice is unlikely, each token about equally so: the 2-token 谣言 beats the
    # 3-token 非谣言 on raw log-likelihood, for every doc.
    for sample in samples["cpsd_ll_rumor"]:
        lls = [float(r[0]) for r in sample["filtered_resps"]]
        assert lls[0] > lls[1], lls
    assert res["cpsd_ll_rumor"]["acc,none"] == pytest.approx(script_run["gold"]["rumor"].count("谣言") / 3)


def test_long_inputs_are_truncated_not_fatal(script_run):
    res, stderr = script_run["results"]["results"], script_run["stderr"]
    configs = task_configs()
    for task in SCRIPT_TASKS:
        for key in expected_keys(configs[task]):
            assert key in res[task], (task, key)
    assert script_run["results"]["n-samples"]["cpsd_case_reading"]["effective"] == 2
    assert script_run["results"]["n-samples"]["cpsd_ll_case_reading_judge"]["effective"] == 1
    # generate_until: the context is cut from the left to max_length - max_gen_toks = 120 tokens.
    assert "Left truncation applied" in stderr and "truncating to last 120 tokens" in stderr
    # loglikelihood: context + choice are cut from the left to the 128-token window.
    assert "exceeds model's maximum length (128)" in stderr
    # The long sentiment doc (2,880 characters) still got the script's answer.
    assert samples_by_id(script_run, "cpsd_sentiment")["s4"]["resps"][0][0] == "积极"


DP_SHIM = '''\
"""Run cpsd-eval so that lm-eval's HFLM shards requests over CPU processes.

HFLM only enters its data-parallel branch when torch.cuda.device_count() > 1; on a CPU-only
machine that count is 0, so each process would evaluate every document. Reporting one "device"
per process makes it split the documents by rank and gather the results on rank 0, as on GPUs.
"""
import os
import torch
torch.cuda.device_count = lambda: int(os.environ.get("WORLD_SIZE", "1"))
from cpsd_tasks.cli.cpsd_eval import main
main()
'''


def test_accelerate_two_cpu_processes_match_single_process(models, hf_cache, all_tasks, base_run, tmp_path):
    """Two CPU processes (gloo) through ``accelerate launch``: the merged scores equal one process.

    What runs: ``accelerate launch --multi_gpu --num_processes 2`` with ``ACCELERATE_USE_CPU=true``
    (accelerate's own ``--cpu --num_processes 2`` starts ONE process unless mpirun and a hostfile
    are given), and a shim making HFLM see one device per process (see ``DP_SHIM``). Each rank
    evaluates every second document (``--limit 3`` -> 2 + 1, so padding is exercised) and rank 0
    gathers the per-sample values, including the tuples and dicts our corpus-level aggregations
    (macro F1, BERTScore, per-type accuracies) need. Without the shim each process evaluates
    everything and only rank 0 writes — same numbers, no speed-up.
    """
    paper, ll, configs = all_tasks
    selection, _ = paper_selection(paper)
    shim = tmp_path / "dp_shim.py"
    shim.write_text(DP_SHIM, encoding="utf-8")
    accelerate = Path(sys.executable).with_name("accelerate")
    launcher = [str(accelerate), "launch", "--multi_gpu", "--num_processes", "2", "--num_machines", "1",
                "--mixed_precision", "no", "--dynamo_backend", "no", "--main_process_port", str(free_port()),
                str(shim)]
    run = run_hf(models["base"], [*selection, "cpsd_ll"], tmp_path / "out", hf_cache, chat=False,
                 launcher=launcher, env_extra={"ACCELERATE_USE_CPU": "true"},
                 metadata={"bertscore_model": str(models["bert"]), "bertscore_num_layers": 2})
    assert "on rank 1" in run["stderr"], "documents were not sharded over two ranks"
    for rank in (0, 1):  # each rank tears down its group (a rank 1 that does not can SIGABRT the run)
        assert f"rank {rank}: closed the torch.distributed process group" in run["stderr"]
    check_complete(run, [*paper, *ll], configs, LIMIT)
    single, multi = base_run["results"]["results"], run["results"]["results"]
    assert set(single) == set(multi)
    for task, row in single.items():
        for key, value in row.items():
            if "_stderr" in key or key in ("name", "alias", "sample_len"):
                continue
            other = multi[task][key]
            if isinstance(value, float) and math.isnan(value):
                assert isinstance(other, float) and math.isnan(other), (task, key, other)
            elif isinstance(value, float):
                assert other == pytest.approx(value, rel=1e-6, abs=1e-9), (task, key, value, other)
            else:
                assert other == value, (task, key, value, other)
    for task in [*paper, *ll]:
        ids_single = sorted(s["doc"]["id"] for s in base_run["samples"][task])
        assert sorted(s["doc"]["id"] for s in run["samples"][task]) == ids_single, task


# --------------------------------------------------------------------------- README's CPU recipe

def test_fit_budget_rule():
    from cpsd_tasks.backends.hf import fit_budget

    assert fit_budget(64, 1024, 900) == 64            # fits: untouched (the harness cuts the prompt)
    assert fit_budget(2048, 1024, 300) == 724         # max_length minus the longest prompt
    assert fit_budget(1024, 1024, 300) == 724         # "must be less than": equal does not fit
    assert fit_budget(2048, 1024, 1000) == 256        # at least a quarter of the context
    assert fit_budget(8, 1, 5) == 1


def test_readme_cpu_recipe_with_the_documented_tiny_model(tmp_path, hf_home):
    """README's CPU command as printed (``--limit`` smaller), on the model built as docs/local_models.md
    says (``python tests/tiny_models.py DIR``: 1024 positions, below the tasks' 2048-token budget)."""
    model = tmp_path / "tiny-chat"
    subprocess.run([sys.executable, str(Path(tiny_models.__file__)), str(model)], check=True,
                   capture_output=True, timeout=600)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "cpsd_tasks.cli", "--model", "cpsd-hf", "--model_args",
           f"pretrained={model},dtype=float32", "--device", "cpu", "--batch_size", "4", "--tasks", "cpsd_rumor",
           "--apply_chat_template", "--limit", "2", "--output_path", str(out)]
    env = dict(os.environ, HF_HOME=str(hf_home), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1",
               TOKENIZERS_PARALLELISM="false")
    env.pop("CPSD_DATA_DIR", None)
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=900)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "must be less than" not in proc.stderr
    assert "cpsd_rumor: max_gen_toks 2048 does not fit the model's context (max_length 1024)" in proc.stderr
    (results,) = out.rglob("results_*.json")
    data = json.loads(results.read_text(encoding="utf-8"))
    capped = data["config"]["cpsd_backend"]["max_gen_toks_capped"]["cpsd_rumor"]
    assert capped["requested"] == 2048 and capped["max_length"] == 1024
    assert capped["used"] == 1024 - capped["longest_prompt"] and capped["used"] > 0
    assert data["n-samples"]["cpsd_rumor"]["effective"] == 2
