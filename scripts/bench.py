#!/usr/bin/env python
"""Benchmark of the plugin's own cost (issue 8): prints a table and writes JSON.

    python scripts/bench.py                       # everything, ~4–8 min on 2 cores
    python scripts/bench.py --parts startup       # start-up of a cpsd_* run, before/after, ~1–2 min
    python scripts/bench.py --parts scoring,floor # full run vs the harness floor, ~4 min
    python scripts/bench.py --parts scoring,loading --json /tmp/bench.json
    python scripts/bench.py --bertscore tiny      # a tiny random BERT only (fast)

Parts (``--parts``, comma-separated; default all):

* ``scoring`` — parsing + metrics (each task's ``process_results`` and the aggregations named in
  its YAML, loaded through the harness's TaskManager) for all twelve tasks at the paper's sizes
  (3,150 samples, :attr:`cpsd_tasks.tasks.TaskSpec.paper_size`), without BERTScore. Docs are
  resampled (seeded) from the stand-in data (``--data-dir``, default ``../shared/data`` beside the
  checkout, demo data for a task it lacks) and model outputs are varied: the gold answer, the rule
  baseline's answer, prose around the answer, a ``<think>`` block, a Markdown fence, a refusal, an
  empty answer and a half answer. Target: ≤ 2 s in all. Also times one pathological 100,000-
  character output per task kind.
* ``bertscore`` — BERTScore F1 of the three generation tasks at paper size (350 pairs), reported
  separately: with a real local model if ``--bertscore-model``/``$CPSD_BERTSCORE_MODEL`` names one,
  else with *random* local BERTs built on the spot (no download): ``tiny`` (2 layers, hidden 32)
  and ``base-random`` (bert-base-chinese's shape: 12 layers of which bert-score uses 8, hidden
  768 — the compute of the real model, meaningless values).
* ``overhead`` — a full run of every task through the real ``cpsd-eval`` CLI (lm_eval) on the
  stand-in data against a loopback endpoint that answers at once (the rule baseline), BERTScore
  off: total wall time against the request phase measured at the server, with the phases before
  the first request and after the last answer; peak RSS of the CLI process (target ≤ 1 GiB).
* ``latency`` — the endpoint sleeps 50 ms per request; ``cpsd_clf`` on the stand-in data with
  ``--limit`` (480 requests by default), ``num_concurrent`` 1, 8 and 16: request-phase wall time
  against the bound ``requests × 0.05 s / concurrency`` (target ≤ 1.3× at 16).
* ``loading`` — in a fresh interpreter: importing lm_eval, indexing tasks (with and without the
  harness's ~15k built-in tasks, which ``lm_eval``'s CLI always indexes) and building every
  ``--tasks cpsd`` task on the stand-in data; peak RSS of that process.
* ``startup`` — the start-up of a ``cpsd_*`` run before and after ``cpsd-eval`` stopped indexing
  the built-in tasks, measured side by side in this session: ``--startup-pairs`` interleaved pairs
  (default 3) of *before* = the harness's own CLI with our folder (``python -m lm_eval
  --include_path <cpsd yaml> --tasks cpsd``: what ``cpsd-eval`` ran until then; ``cpsd_*`` itself
  failed there) and *after* = ``cpsd-eval --tasks 'cpsd_*'``, each with ``--limit 1`` (12 requests)
  against an instant loopback endpoint. Start-up = launch to the first request at the endpoint
  (imports, task index, task build and data validation, prompts); also the whole run's wall and
  CPU time. Reported as medians and after/before ratios.
* ``floor`` — a full run against the harness floor (issue 16), side by side in this session: the
  part builds the floor task itself (one ``generate_until`` + ``exact_match`` YAML, one line of
  template per field, over the same prompts rendered once from the twelve tasks on the stand-in
  data, 2,933 of them) and runs ``--floor-pairs`` interleaved pairs (default 3, the order
  alternating) of ``cpsd-eval --tasks cpsd`` (BERTScore off) and ``python -m lm_eval run
  --include_path <floor> --tasks cpsd_floor`` (the harness's own CLI, built-in index included:
  what a user of any built-in task pays) through the real CLIs against one instant loopback
  endpoint, same model arguments, ``num_concurrent`` (``--overhead-concurrency``) and
  ``--log_samples``. Reports per-pair wall and CPU ratios (median; target wall ≤ 0.75×), the
  phases of both (launch → first request, requests, last answer → exit), peak RSS of each run's
  process (``VmHWM``; target ≤ 550 MiB without BERTScore), the 1-minute load seen, and the
  scoring share of the cpsd run (target ≤ 10 %), measured inside each run: the CPU time spent in
  ``process_results`` and the tasks' aggregation step (:data:`_SCORING_PROBE`) over the run's CPU
  time (the process and its children), median over the runs; the same for the floor.
* ``adversarial`` — the absolute time budgets for adversarial model outputs at full size
  (100,000-character IE outputs, long letter lists, unclosed ``<think>`` tags, a 5,000-character
  text pair), from ``scripts/adversarial.py``. The tests only prove linear growth (time at n
  against 4n, ``tests/growth.py``), which a busy machine cannot break; the seconds are measured here.

Every CLI run goes to 127.0.0.1 only; nothing is downloaded. The machine's load from other
processes changes the figures: the JSON records ``os.getloadavg()`` at the start and the end.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Optional

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # fault_server: the loopback endpoint the tests use too
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

GROUPS = ("cpsd_clf", "cpsd_ie", "cpsd_qa", "cpsd_tg")
PARTS = ("scoring", "bertscore", "overhead", "latency", "loading", "startup", "floor", "adversarial")
GIB = 1024 ** 3


# --------------------------------------------------------------------------- helpers

def rss_now_peak() -> int:
    """Peak RSS of this process so far, in bytes (``VmHWM`` of /proc/self/status)."""
    return vm_hwm(Path("/proc/self/status").read_text())


def vm_hwm(status: str) -> int:
    """Peak RSS in bytes from the text of a ``/proc/<pid>/status`` (its ``VmHWM:`` line, in kB);
    without that line (not Linux) this process's ``ru_maxrss``."""
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # not Linux: best effort


#: Runs a module or a script and writes its own peak RSS (VmHWM) to $CPSD_BENCH_RSS at exit. A
#: child's ru_maxrss is no use here: Linux carries the parent's high-water mark over fork+exec.
_RSS_WRAPPER = (
    "import atexit, os, runpy, sys\n"
    "def _rss():\n"
    "    with open('/proc/self/status') as f, open(os.environ['CPSD_BENCH_RSS'], 'w') as out:\n"
    "        out.write(next(l for l in f if l.startswith('VmHWM:')).split()[1])\n"
    "atexit.register(_rss)\n"
    "target = sys.argv[1]; sys.argv = sys.argv[1:]\n"
    "runpy.run_module(target[2:], run_name='__main__', alter_sys=True) if target.startswith('-m') "
    "else exec(compile(target, '<bench>', 'exec'), {'__name__': '__main__'})\n"
)


#: Prepended to :data:`_RSS_WRAPPER` by ``run_child(..., probe=True)``: times, inside the run, every
#: ``process_results`` call (``ConfigurableTask.process_results``, which calls a task's own hook)
#: and every task's aggregation step (``lm_eval.evaluator_utils._compute_task_aggregations``: the
#: task's aggregation functions and their stderr), in CPU time of the calling thread
#: (``time.thread_time``, blind to other processes' load) and wall time, and writes the sums to
#: $CPSD_BENCH_PROBE at exit. The functions are wrapped, not replaced: same calls, same values.
_SCORING_PROBE = (
    "import atexit as _atexit, json as _json, os as _os, time as _time\n"
    "def _cpsd_probe():\n"
    "    import lm_eval.api.task as task_mod, lm_eval.evaluator_utils as utils_mod\n"
    "    acc = {'process_results': [0.0, 0.0, 0], 'aggregation': [0.0, 0.0, 0]}\n"
    "    tasks = {}\n"
    "    def timed(key, fn):\n"
    "        def wrapper(*args, **kwargs):\n"
    "            cpu, wall = _time.thread_time(), _time.perf_counter()\n"
    "            try:\n"
    "                return fn(*args, **kwargs)\n"
    "            finally:\n"
    "                spent = _time.thread_time() - cpu\n"
    "                slot = acc[key]\n"
    "                slot[0] += spent; slot[1] += _time.perf_counter() - wall; slot[2] += 1\n"
    "                name = str(getattr(args[0], 'task_name', None) if args else None)\n"
    "                per = tasks.setdefault(name, {'process_results_cpu': 0.0, 'calls': 0, 'first_call_cpu': None,\n"
    "                                              'aggregation_cpu': 0.0})\n"
    "                if key == 'aggregation':\n"
    "                    per['aggregation_cpu'] += spent\n"
    "                else:\n"
    "                    per['process_results_cpu'] += spent; per['calls'] += 1\n"
    "                    per['first_call_cpu'] = spent if per['first_call_cpu'] is None else per['first_call_cpu']\n"
    "        return wrapper\n"
    "    task_mod.ConfigurableTask.process_results = timed('process_results', "
    "task_mod.ConfigurableTask.process_results)\n"
    "    utils_mod._compute_task_aggregations = timed('aggregation', utils_mod._compute_task_aggregations)\n"
    "    def dump():\n"
    "        with open(_os.environ['CPSD_BENCH_PROBE'], 'w') as f:\n"
    "            _json.dump({**{k: {'cpu': v[0], 'wall': v[1], 'calls': v[2]} for k, v in acc.items()},\n"
    "                        'tasks': tasks}, f)\n"
    "    _atexit.register(dump)\n"
    "_cpsd_probe()\n"
)


def run_child(cmd: list[str], env: dict[str, str], cwd: Path, timeout: float = 1800,
              probe: bool = False) -> dict[str, Any]:
    """Run ``[python, "-m", module, *args]`` or ``[python, "-c", code, *args]``.

    With ``probe``, the child times its scoring hooks (:data:`_SCORING_PROBE`).

    Returns:
        ``rc``, ``wall`` seconds, ``started``/``ended`` (monotonic), ``maxrss`` (the child's own
        peak RSS in bytes, or ``None`` if it could not be read), ``stdout``, ``stderr`` and
        ``probe`` (the probe's sums, ``None`` without ``probe`` or if the child wrote none).
    """
    assert cmd[1] in ("-m", "-c"), cmd
    target = "-m" + cmd[2] if cmd[1] == "-m" else cmd[2]
    rss_file = Path(tempfile.mkstemp(prefix="rss-", dir=cwd)[1])
    probe_file = Path(tempfile.mkstemp(prefix="probe-", dir=cwd)[1])
    env = dict(env, CPSD_BENCH_RSS=str(rss_file), CPSD_BENCH_PROBE=str(probe_file))
    wrapper = _SCORING_PROBE + _RSS_WRAPPER if probe else _RSS_WRAPPER
    with tempfile.TemporaryFile("w+", encoding="utf-8") as out, tempfile.TemporaryFile("w+", encoding="utf-8") as err:
        started = time.monotonic()
        proc = subprocess.Popen([cmd[0], "-c", wrapper, target, *cmd[3:]], stdout=out, stderr=err, env=env,
                                cwd=cwd, text=True)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        ended = time.monotonic()
        out.seek(0)
        err.seek(0)
        text = rss_file.read_text().strip()
        probed = probe_file.read_text().strip()
        return {"rc": proc.returncode, "wall": ended - started, "started": started, "ended": ended,
                "maxrss": int(text) * 1024 if text else None, "stdout": out.read(), "stderr": err.read(),
                "probe": json.loads(probed) if probed else None}


def scoring_share(probe: Optional[dict[str, Any]], cpu: float, wall: float) -> Optional[dict[str, Any]]:
    """A run's scoring figures from :data:`_SCORING_PROBE`'s sums and the run's total ``cpu``
    (user + system of the process and its children) and ``wall`` seconds.

    Returns:
        ``process_results_cpu``, ``aggregation_cpu``, ``cpu`` (their sum), ``wall`` (the same two
        in wall time), ``calls`` (``process_results`` calls), ``cpu_share`` (``cpu`` ÷ the run's
        CPU) and ``wall_share``; ``None`` when there is no probe.
    """
    if not probe:
        return None
    pr, agg = probe["process_results"], probe["aggregation"]
    scoring_cpu, scoring_wall = pr["cpu"] + agg["cpu"], pr["wall"] + agg["wall"]
    return {"process_results_cpu": pr["cpu"], "aggregation_cpu": agg["cpu"], "cpu": scoring_cpu,
            "wall": scoring_wall, "calls": pr["calls"], "tasks": probe.get("tasks", {}),
            "cpu_share": scoring_cpu / cpu if cpu > 0 else None,
            "wall_share": scoring_wall / wall if wall > 0 else None}


def stand_in_dir(data_dir: Optional[Path], workdir: Path) -> tuple[Path, dict[str, str]]:
    """A data folder with every task: the stand-in file where there is one, else the demo file.

    Files are symlinked (nothing is copied). Returns the folder and ``{task: "stand-in"|"demo"}``.
    """
    from cpsd_tasks.data.loading import DEMO_DIR
    from cpsd_tasks.tasks import TASKS

    folder = workdir / "data"
    source = {}
    for task in TASKS:
        (folder / task).mkdir(parents=True, exist_ok=True)
        real = data_dir / task / "test.jsonl" if data_dir else None
        if real is not None and real.is_file():
            target, source[task] = real, "stand-in"
        else:
            target, source[task] = DEMO_DIR / task / "test.jsonl", "demo"
        link = folder / task / "test.jsonl"
        if not link.exists():
            link.symlink_to(target)
    return folder, source


def cli_env(hf_home: Path) -> dict[str, str]:
    """Environment of a child CLI run: this one, offline, ``HF_HOME=hf_home``, no ``$CPSD_DATA_DIR``."""
    env = dict(os.environ, HF_HOME=str(hf_home), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1",
               TOKENIZERS_PARALLELISM="false")
    env.pop("CPSD_DATA_DIR", None)
    return env


def task_selection(tm) -> tuple[str, list[str]]:
    """``--tasks`` value for all twelve tasks: ``cpsd`` if the group holds them all, else the groups."""
    from cpsd_tasks.tasks import TASKS

    names = sorted(t.harness_name for t in TASKS.values())
    try:
        if sorted(tm.load(["cpsd"])["tasks"]) == names:
            return "cpsd", names
    except Exception:  # noqa: BLE001 - a group still being written: fall back
        pass
    groups = [g for g in GROUPS if g in tm.all_groups]
    covered = set()
    for g in groups:
        covered |= set(tm.load([g])["tasks"])
    if sorted(covered) == names:
        return ",".join(groups), names
    return ",".join(names), names


# --------------------------------------------------------------------------- model outputs

def varied_outputs(task, doc: dict, i: int) -> str:
    """One of eight kinds of model output for ``doc`` (cycled by ``i``)."""
    from cpsd_tasks.baseline import UnknownPrompt, answer

    gold = str(task.doc_to_target(doc))
    kind = i % 8
    if kind == 0:
        return gold
    if kind == 1:
        try:
            return answer(task.doc_to_text(doc))
        except UnknownPrompt:
            return gold
    if kind == 2:
        return f"根据材料分析，答案是：{gold}。理由：材料中的事实与这一判断相符，其他选项均不符合题意。"
    if kind == 3:
        return "<think>" + "先梳理案情，再逐项核对。" * 20 + "</think>\n" + gold
    if kind == 4:
        return f"```json\n{gold}\n```"
    if kind == 5:
        return "抱歉，我无法回答这个问题。"
    if kind == 6:
        return ""
    return gold[: max(1, len(gold) // 2)]


def paper_docs(task, size: int, seed: int = 0) -> list[dict]:
    """``size`` docs resampled (seeded) from the task's test docs: each doc once, then at random."""
    docs = list(task.test_docs())
    rng = random.Random(seed)
    out = list(docs[:size])
    while len(out) < size:
        out.append(rng.choice(docs))
    rng.shuffle(out)
    return out


def score_task(task, docs: list[dict], outputs: list[Optional[str]],
               skip: tuple[str, ...] = ()) -> tuple[float, dict[str, Any]]:
    """Time process_results over all samples plus every aggregation; returns (seconds, values)."""
    aggregations = task.aggregation()
    started = time.perf_counter()
    per_metric: dict[str, list] = {}
    for doc, output in zip(docs, outputs):
        for metric, value in task.process_results(doc, [output]).items():
            per_metric.setdefault(metric, []).append(value)
    values = {m: aggregations[m](items) for m, items in per_metric.items() if m not in skip}
    return time.perf_counter() - started, values


# --------------------------------------------------------------------------- parts

def part_scoring(ctx: dict[str, Any]) -> dict[str, Any]:
    """Part ``scoring`` (module docstring): per-task seconds over the paper's sizes, the one-off
    warm-up, task build and prompt rendering, the 100k-character outputs and this process's peak RSS."""
    import cpsd_tasks
    from cpsd_tasks.tasks import TASKS

    tm = cpsd_tasks.task_manager(metadata={"bertscore_model": "none", "data_dir": str(ctx["data"])})
    names = [s.harness_name for s in TASKS.values()]
    t0 = time.perf_counter()
    tasks = tm.load(names)["tasks"]
    build = time.perf_counter() - t0
    # Warm-up: first calls import scikit-learn, load jieba's dictionary, compile regexes. A real run
    # pays these once too; they are reported apart from the per-sample cost.
    t0 = time.perf_counter()
    for name in names:
        task = tasks[name]
        doc = list(task.test_docs())[0]
        score_task(task, [doc, doc], [varied_outputs(task, doc, 0), varied_outputs(task, doc, 2)])
    warmup = time.perf_counter() - t0
    rows, total, n_total = [], 0.0, 0
    for spec in TASKS.values():
        task = tasks[spec.harness_name]
        docs = paper_docs(task, spec.paper_size)
        outputs = [varied_outputs(task, d, i) for i, d in enumerate(docs)]
        seconds, values = score_task(task, docs, outputs)
        total += seconds
        n_total += len(docs)
        primary = values.get(spec.primary_metric)
        rows.append({"task": spec.harness_name, "samples": len(docs), "seconds": seconds,
                     "samples_per_s": len(docs) / seconds if seconds else math.inf,
                     "source": ctx["sources"][spec.id],
                     spec.primary_metric: primary if isinstance(primary, (int, float)) else None})
    # Prompts are not parse+metrics, but a run pays for them too: the harness renders each doc's
    # Jinja doc_to_text, compiling the template anew every time (lm_eval.utils.apply_template);
    # cpsd-eval and cpsd_tasks.task_manager() compile ours once (cpsd_tasks.cli.prompts). Both timed.
    from cpsd_tasks.cli import prompts as cpsd_prompts

    all_docs = [(tasks[spec.harness_name], paper_docs(tasks[spec.harness_name], spec.paper_size))
                for spec in TASKS.values()]
    n_prompts = sum(len(docs) for _, docs in all_docs)
    prompt_times = {}
    for mode in ("per_doc", "compiled_once"):
        (cpsd_prompts.uninstall if mode == "per_doc" else cpsd_prompts.install)()
        t0 = time.perf_counter()
        for task, docs in all_docs:
            for doc in docs:
                task.doc_to_text(doc)
        prompt_times[mode] = time.perf_counter() - t0
    cpsd_prompts.install()
    prompts = prompt_times["compiled_once"]
    worst = []
    for kind in ("classification", "ner", "re", "reading", "exam", "generation"):
        spec = next(s for s in TASKS.values() if s.kind == kind)
        task = tasks[spec.harness_name]
        doc = list(task.test_docs())[0]
        for label, text in (("100k prose", "这是一段很长的输出。" * 10_000), ("100k one char", "呃" * 100_000)):
            seconds, _ = score_task(task, [doc], [text])
            worst.append({"task": spec.harness_name, "output": label, "seconds": seconds})
    return {"build_seconds": build, "warmup_seconds": warmup, "prompt_seconds": prompts,
            "prompt_seconds_per_doc_compilation": prompt_times["per_doc"], "prompts": n_prompts, "tasks": rows, "total_seconds": total,
            "samples": n_total, "samples_per_s": n_total / total, "peak_rss_bytes": rss_now_peak(),
            "pathological": worst, "target_seconds": 2.0}


def build_bert(out: Path, texts: list[str], shape: str) -> Path:
    """A random BERT + character BertTokenizer saved to ``out`` (no download)."""
    import torch
    from transformers import BertConfig, BertModel, BertTokenizer

    chars = sorted({ch for t in texts for ch in t if not ch.isspace() and not 0xD800 <= ord(ch) <= 0xDFFF})
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *chars]
    if shape == "base-random":  # bert-base-chinese: 21,128 tokens, 12 layers, hidden 768
        vocab += [f"[unused{i}]" for i in range(max(0, 21128 - len(vocab)))]
        config = BertConfig(vocab_size=len(vocab))
    else:
        config = BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                            intermediate_size=64, max_position_embeddings=512)
    out.mkdir(parents=True, exist_ok=True)
    (out / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    torch.manual_seed(0)
    BertModel(config).eval().save_pretrained(out)
    BertTokenizer(str(out / "vocab.txt"), do_lower_case=False, model_max_length=512).save_pretrained(out)
    return out


def part_bertscore(ctx: dict[str, Any]) -> dict[str, Any]:
    """Part ``bertscore``: seconds and pairs/s of the three generation tasks' BERTScore (350 pairs)
    per model (the real one given, else the random ``--bertscore`` shapes), with the peak RSS."""
    import cpsd_tasks
    from cpsd_tasks.tasks import TASKS

    tg = [s for s in TASKS.values() if s.kind == "generation"]
    models: list[tuple[str, str, int]] = []
    real = ctx["args"].bertscore_model or os.environ.get("CPSD_BERTSCORE_MODEL")
    if real:
        models.append(("real: " + real, real, ctx["args"].bertscore_layers))
    else:
        probe_tm = cpsd_tasks.task_manager(metadata={"bertscore_model": "none", "data_dir": str(ctx["data"])})
        probe = probe_tm.load([s.harness_name for s in tg])["tasks"]
        texts = [t for s in tg for d in probe[s.harness_name].test_docs() for t in (d["input"], d["reference"])]
        texts.append("根据材料分析，答案是理由事实判断相符选项均不符合题意先梳理案情再逐项核对抱歉我无法回答这个问题")
        for shape in ctx["args"].bertscore.split(","):
            if shape in ("tiny", "base-random"):
                path = build_bert(ctx["work"] / f"bert-{shape}", texts, shape)
                models.append((f"{shape} (random weights, local)", str(path), 2 if shape == "tiny" else 8))
    rows = []
    rss_before = rss_now_peak()
    for label, model, layers in models:
        tm = cpsd_tasks.task_manager(metadata={"bertscore_model": model, "bertscore_num_layers": layers,
                                               "data_dir": str(ctx["data"])})
        tasks = tm.load([s.harness_name for s in tg])["tasks"]
        total, n, values = 0.0, 0, {}
        load_seconds = None
        for spec in tg:
            task = tasks[spec.harness_name]
            docs = paper_docs(task, spec.paper_size)
            outputs = [varied_outputs(task, d, i) for i, d in enumerate(docs)]
            items = [task.process_results(d, [o])["bertscore_f1"] for d, o in zip(docs, outputs)]
            agg = task.aggregation()["bertscore_f1"]
            started = time.perf_counter()
            values[spec.harness_name] = agg(items)
            seconds = time.perf_counter() - started
            if load_seconds is None:  # the first call also loads the model
                load_seconds = seconds
            total += seconds
            n += len(items)
        rows.append({"model": label, "layers": layers, "pairs": n, "seconds": total,
                     "pairs_per_s": n / total if total else math.inf, "first_task_seconds_incl_load": load_seconds,
                     "bertscore_f1": values, "peak_rss_bytes": rss_now_peak()})
    return {"rows": rows, "peak_rss_before_bytes": rss_before,
            "note": None if real else "no real BERT model given: random local BERTs (timing only; values meaningless)"}


def run_eval(ctx: dict[str, Any], tasks: str, server, concurrency: int, extra: tuple[str, ...] = (),
             metadata: Optional[dict[str, Any]] = None, log_samples: bool = True) -> dict[str, Any]:
    """One ``cpsd-eval`` run of ``tasks`` against ``server`` (BERTScore off unless ``metadata`` says).

    Returns:
        :func:`run_child`'s dict plus the server's view: ``requests``, ``first_request`` and
        ``after_last_response`` (seconds from the CLI start / to its end), ``request_phase``,
        ``server_busy`` and ``max_in_flight``.

    Raises:
        RuntimeError: the CLI exited non-zero (the end of its stderr in the message).
    """
    out = Path(tempfile.mkdtemp(dir=ctx["work"], prefix="run-"))
    meta = {"data_dir": str(ctx["data"]), "bertscore_model": "none", **(metadata or {})}
    cmd = [sys.executable, "-m", "cpsd_tasks.cli", "--model", "local-chat-completions",
           "--model_args", f"base_url={server.url},model=bench,num_concurrent={concurrency},max_retries=3",
           "--apply_chat_template", "--tasks", tasks, "--output_path", str(out),
           "--metadata", json.dumps(meta), *extra]
    if log_samples:
        cmd.append("--log_samples")
    server.reset_counts()
    res = run_child(cmd, cli_env(ctx["hf_home"]), cwd=ctx["work"])
    if res["rc"] != 0:
        raise RuntimeError(f"cpsd-eval failed ({res['rc']}):\n{res['stderr'][-3000:]}")
    res["requests"] = server.requests
    res["first_request"] = server.first_request_at - res["started"]
    res["request_phase"] = server.last_response_at - server.first_request_at
    res["after_last_response"] = res["ended"] - server.last_response_at
    res["server_busy"] = server.busy
    res["max_in_flight"] = server.max_in_flight
    return res


def part_overhead(ctx: dict[str, Any]) -> dict[str, Any]:
    """Part ``overhead``: one full CLI run on an instant endpoint, wall time split into phases."""
    from fault_server import FaultServer

    with FaultServer() as server:
        res = run_eval(ctx, ctx["tasks_arg"], server, concurrency=ctx["args"].overhead_concurrency)
    return {"tasks_arg": ctx["tasks_arg"], "requests": res["requests"], "num_concurrent": ctx["args"].overhead_concurrency,
            "wall_seconds": res["wall"], "before_first_request_seconds": res["first_request"],
            "request_phase_seconds": res["request_phase"], "after_last_response_seconds": res["after_last_response"],
            "server_busy_seconds": res["server_busy"],
            "overhead_ratio": res["wall"] / res["request_phase"], "peak_rss_bytes": res["maxrss"],
            "target_rss_bytes": GIB}


def part_latency(ctx: dict[str, Any]) -> dict[str, Any]:
    """Part ``latency``: ``cpsd_clf`` on a 50 ms endpoint at concurrency 1, 8, 16 against the bound."""
    from fault_server import FaultServer

    limit = ctx["args"].latency_requests // 4
    rows = []
    with FaultServer(delay=0.05) as server:
        for concurrency in (1, 8, 16):
            res = run_eval(ctx, "cpsd_clf", server, concurrency, extra=("--limit", str(limit)), log_samples=False)
            bound = res["requests"] * 0.05 / concurrency
            rows.append({"num_concurrent": concurrency, "requests": res["requests"], "bound_seconds": bound,
                         "request_phase_seconds": res["request_phase"], "ratio": res["request_phase"] / bound,
                         "max_in_flight": res["max_in_flight"], "cli_wall_seconds": res["wall"],
                         "peak_rss_bytes": res["maxrss"]})
    return {"rows": rows, "delay_seconds": 0.05, "target_ratio_at_16": 1.3}


LOADING_SCRIPT = r"""
import json, os, sys, time
t0 = time.perf_counter()
import lm_eval
from lm_eval.tasks import TaskManager
import cpsd_tasks
t_import = time.perf_counter() - t0
meta = json.loads(sys.argv[1])
out = {"import_seconds": t_import}
for defaults in (False, True):
    t0 = time.perf_counter()
    tm = TaskManager(include_path=str(cpsd_tasks.YAML_DIR), include_defaults=defaults, metadata=meta)
    index = time.perf_counter() - t0
    t0 = time.perf_counter()
    loaded = tm.load(sys.argv[2].split(","))
    build = time.perf_counter() - t0
    out["defaults" if defaults else "plugin_only"] = {"index_seconds": index, "build_seconds": build,
                                                      "tasks": len(loaded["tasks"])}
print(json.dumps(out))
"""


def part_loading(ctx: dict[str, Any]) -> dict[str, Any]:
    """Part ``loading``: import, task-index and build seconds in a fresh interpreter, and its peak RSS.

    Raises:
        RuntimeError: the child interpreter failed (the end of its stderr in the message).
    """
    meta = json.dumps({"data_dir": str(ctx["data"]), "bertscore_model": "none"})
    res = run_child([sys.executable, "-c", LOADING_SCRIPT, meta, ctx["tasks_arg"]], cli_env(ctx["hf_home"]),
                    cwd=ctx["work"])
    if res["rc"] != 0:
        raise RuntimeError(res["stderr"][-3000:])
    data = json.loads(res["stdout"].strip().splitlines()[-1])
    data["peak_rss_bytes"] = res["maxrss"]
    data["tasks_arg"] = ctx["tasks_arg"]
    data["process_wall_seconds"] = res["wall"]
    return data


def startup_run(ctx: dict[str, Any], server, variant: str) -> dict[str, Any]:
    """One ``--limit 1`` run of all twelve tasks against ``server``: ``variant`` ``before`` (the
    harness's CLI with our folder, ``--tasks cpsd``) or ``after`` (``cpsd-eval --tasks 'cpsd_*'``).

    Returns:
        ``first_request`` (seconds from launch), ``wall``, ``cpu`` (user + system of the child),
        ``requests`` and the child's ``maxrss``.

    Raises:
        RuntimeError: the run failed, or did not send the twelve requests.
    """
    from cpsd_tasks import YAML_DIR

    meta = json.dumps({"data_dir": str(ctx["data"]), "bertscore_model": "none"})
    common = ["--model", "local-chat-completions", "--model_args",
              f"base_url={server.url},model=bench,num_concurrent=4,max_retries=3", "--apply_chat_template",
              "--limit", "1", "--metadata", meta, "--output_path", tempfile.mkdtemp(dir=ctx["work"], prefix="startup-")]
    if variant == "before":
        cmd = [sys.executable, "-m", "lm_eval", "run", "--include_path", str(YAML_DIR), "--tasks", "cpsd", *common]
    else:
        cmd = [sys.executable, "-m", "cpsd_tasks.cli", "--tasks", "cpsd_*", *common]
    server.reset_counts()
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    res = run_child(cmd, cli_env(ctx["hf_home"]), cwd=ctx["work"])
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res["rc"] != 0 or server.requests != 12 or server.first_request_at is None:
        raise RuntimeError(f"startup run ({variant}) failed ({res['rc']}, {server.requests} requests):\n"
                           f"{res['stderr'][-3000:]}")
    return {"variant": variant, "first_request": server.first_request_at - res["started"], "wall": res["wall"],
            "cpu": (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime),
            "requests": server.requests, "maxrss": res["maxrss"]}


def part_startup(ctx: dict[str, Any]) -> dict[str, Any]:
    """Part ``startup`` (module docstring): interleaved before/after pairs, medians and ratios."""
    import statistics

    from fault_server import FaultServer

    pairs = max(1, ctx["args"].startup_pairs)
    runs: list[dict[str, Any]] = []
    with FaultServer() as server:
        for i in range(pairs):
            order = ("before", "after") if i % 2 == 0 else ("after", "before")  # alternate who goes first
            for variant in order:
                runs.append(startup_run(ctx, server, variant))
    out: dict[str, Any] = {"pairs": pairs, "runs": runs,
                           "before": "python -m lm_eval run --include_path <cpsd yaml> --tasks cpsd --limit 1",
                           "after": "cpsd-eval --tasks 'cpsd_*' --limit 1"}
    for key in ("first_request", "wall", "cpu"):
        before = statistics.median(r[key] for r in runs if r["variant"] == "before")
        after = statistics.median(r[key] for r in runs if r["variant"] == "after")
        out[key] = {"before_seconds": before, "after_seconds": after, "ratio": after / before}
    out["peak_rss_bytes"] = {v: max((r["maxrss"] or 0) for r in runs if r["variant"] == v) or None
                             for v in ("before", "after")}
    return out


def part_adversarial(ctx: dict[str, Any]) -> dict[str, Any]:
    """Part ``adversarial`` (module docstring): best of 3 per case against its budget."""
    import adversarial

    return {"rows": adversarial.run(repeats=3)}


# --------------------------------------------------------------------------- floor

#: The floor task: one line of template per field, the harness's own generate_until and exact_match.
FLOOR_YAML = """task: cpsd_floor
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: generate_until
doc_to_text: "{{{{prompt}}}}"
doc_to_target: "{{{{target}}}}"
generation_kwargs: {{until: ["<eoa>"], do_sample: false, max_gen_toks: 1024}}
metric_list:
  - {{metric: exact_match, aggregation: mean, higher_is_better: true}}
metadata: {{version: 1.0}}
"""


def build_floor(ctx: dict[str, Any]) -> tuple[Path, int]:
    """Write the floor task (:data:`FLOOR_YAML`) and its data: every prompt of the twelve tasks on
    the stand-in data, rendered once here (the prompt a full run sends) with its gold answer.

    Returns:
        The folder to pass as ``--include_path`` and the number of docs (= requests).
    """
    import cpsd_tasks
    from cpsd_tasks.tasks import TASKS

    folder = Path(tempfile.mkdtemp(dir=ctx["work"], prefix="floor-"))
    tm = cpsd_tasks.task_manager(metadata={"bertscore_model": "none", "data_dir": str(ctx["data"])})
    names = [s.harness_name for s in TASKS.values()]
    tasks = tm.load(names)["tasks"]
    n = 0
    with open(folder / "floor.jsonl", "w", encoding="utf-8") as f:
        for name in names:
            task = tasks[name]
            for doc in task.test_docs():
                f.write(json.dumps({"prompt": task.doc_to_text(doc), "target": str(task.doc_to_target(doc))},
                                   ensure_ascii=False) + "\n")
                n += 1
    (folder / "cpsd_floor.yaml").write_text(FLOOR_YAML.format(data=json.dumps(str(folder / "floor.jsonl"))),
                                            encoding="utf-8")
    # The harness turns a JSON file into an Arrow dataset once and caches it under $HF_HOME; that
    # one-off conversion is done here, unmeasured, as a user who has run the task before has it.
    warm = run_child([sys.executable, "-c", "import sys, datasets; datasets.load_dataset('json', "
                      "data_files={'test': sys.argv[1]})", str(folder / "floor.jsonl")],
                     cli_env(ctx["hf_home"]), cwd=ctx["work"])
    if warm["rc"] != 0:
        raise RuntimeError(f"floor dataset could not be prepared:\n{warm['stderr'][-3000:]}")
    return folder, n


def floor_run(ctx: dict[str, Any], server, variant: str, floor_dir: Path, concurrency: int) -> dict[str, Any]:
    """One run through the real CLI: ``cpsd`` (``cpsd-eval --tasks cpsd``, BERTScore off) or
    ``floor`` (``python -m lm_eval run --include_path <floor> --tasks cpsd_floor``: the harness's
    own CLI, its built-in index included, as a user of any built-in task runs it). Same endpoint,
    model arguments, concurrency and ``--log_samples``.

    Returns:
        ``wall``, ``cpu`` (user + system of the child), ``first_request`` (launch to the first
        request), ``request_phase`` (first request to last answer, at the server),
        ``after_last_response`` (last answer to exit: scoring, aggregation, writing), ``requests``
        and ``maxrss``.

    Raises:
        RuntimeError: the run failed or sent no request.
    """
    out = tempfile.mkdtemp(dir=ctx["work"], prefix=f"{variant}-")
    common = ["--model", "local-chat-completions", "--model_args",
              f"base_url={server.url},model=bench,num_concurrent={concurrency},max_retries=3",
              "--apply_chat_template", "--output_path", out, "--log_samples"]
    if variant == "floor":
        cmd = [sys.executable, "-m", "lm_eval", "run", "--include_path", str(floor_dir), "--tasks", "cpsd_floor",
               *common]
    else:
        meta = json.dumps({"data_dir": str(ctx["data"]), "bertscore_model": "none"})
        cmd = [sys.executable, "-m", "cpsd_tasks.cli", "--tasks", "cpsd", "--metadata", meta, *common]
    server.reset_counts()
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    res = run_child(cmd, cli_env(ctx["hf_home"]), cwd=ctx["work"], probe=True)
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res["rc"] != 0 or not server.requests or server.first_request_at is None:
        raise RuntimeError(f"{variant} run failed ({res['rc']}, {server.requests} requests):\n{res['stderr'][-3000:]}")
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    return {"variant": variant, "wall": res["wall"], "cpu": cpu,
            "first_request": server.first_request_at - res["started"],
            "request_phase": server.last_response_at - server.first_request_at,
            "after_last_response": res["ended"] - server.last_response_at,
            "requests": server.requests, "maxrss": res["maxrss"],
            "scoring": scoring_share(res["probe"], cpu, res["wall"])}


FLOOR_PHASES = ("first_request", "request_phase", "after_last_response", "wall", "cpu")


def median_scoring(figures: list[Optional[dict[str, Any]]]) -> Optional[dict[str, Any]]:
    """The median of each of :func:`scoring_share`'s figures over runs (runs without one left
    out; ``None`` if none has one), with ``runs`` = how many were counted."""
    import statistics

    have = [f for f in figures if f]
    if not have:
        return None
    out: dict[str, Any] = {k: statistics.median(f[k] for f in have) for k in have[0]
                           if k != "tasks" and all(f[k] is not None for f in have)}
    out["tasks"] = {name: {k: statistics.median(f["tasks"][name][k] or 0 for f in have if name in f.get("tasks", {}))
                           for k in ("process_results_cpu", "first_call_cpu", "aggregation_cpu", "calls")}
                    for name in sorted({n for f in have for n in f.get("tasks", {})})}
    out["runs"] = len(have)
    return out


def part_floor(ctx: dict[str, Any]) -> dict[str, Any]:
    """Part ``floor`` (module docstring): interleaved cpsd/floor pairs, medians, ratios, phases."""
    import statistics

    from fault_server import FaultServer

    floor_dir, n_docs = build_floor(ctx)
    pairs = max(1, ctx["args"].floor_pairs)
    concurrency = ctx["args"].overhead_concurrency
    load = [os.getloadavg()[0]]
    runs: list[dict[str, Any]] = []
    with FaultServer() as server:
        for i in range(pairs):
            order = ("floor", "cpsd") if i % 2 == 0 else ("cpsd", "floor")  # alternate who goes first
            for variant in order:
                runs.append(floor_run(ctx, server, variant, floor_dir, concurrency))
                load.append(os.getloadavg()[0])
    out: dict[str, Any] = {"pairs": pairs, "num_concurrent": concurrency, "floor_docs": n_docs, "runs": runs,
                           "load_1min": {"min": min(load), "max": max(load)},
                           "cpsd": "cpsd-eval --tasks cpsd (BERTScore off)",
                           "floor": "python -m lm_eval run --include_path <floor> --tasks cpsd_floor"}
    for variant in ("cpsd", "floor"):
        mine = [r for r in runs if r["variant"] == variant]
        out[variant + "_median"] = {k: statistics.median(r[k] for r in mine) for k in FLOOR_PHASES}
        out[variant + "_median"]["requests"] = mine[0]["requests"]
        out[variant + "_median"]["peak_rss_bytes"] = max((r["maxrss"] or 0) for r in mine) or None
        out[variant + "_median"]["peak_rss_bytes_each"] = [r["maxrss"] for r in mine]
        out[variant + "_scoring"] = median_scoring([r.get("scoring") for r in mine])
    # ratio per pair (runs side by side share the machine's load), then the median
    cpsd_runs = [r for r in runs if r["variant"] == "cpsd"]
    floor_runs = [r for r in runs if r["variant"] == "floor"]
    for key in ("wall", "cpu"):
        out[key + "_ratio"] = statistics.median(c[key] / f[key] for c, f in zip(cpsd_runs, floor_runs))
    med = out["cpsd_median"]
    out["cpsd_after_last_response_share"] = med["after_last_response"] / med["wall"]
    return out


# --------------------------------------------------------------------------- report

def fmt_mib(n: Optional[float]) -> str:
    """Bytes as whole MiB (``"512 MiB"``); ``"—"`` for ``None``."""
    return "—" if n is None else f"{n / 2 ** 20:.0f} MiB"


def scoring_rows(cpsd: Optional[dict[str, Any]], floor: Optional[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """Table rows for the scoring share measured inside the runs (:func:`median_scoring` of the
    cpsd runs and of the floor runs): the share of the run's CPU time (target ≤ 10 % for cpsd),
    its parts, and the share of wall time."""
    if not cpsd:
        return [("  scoring share of the cpsd run", "not measured (no probe figures)", "≤ 10 %", None)]
    rows: list[tuple[Any, ...]] = [
        ("  scoring share of the cpsd run, CPU: process_results + aggregations (in-process) ÷ the run's CPU",
         f"{cpsd['cpu_share']:.1%} ({cpsd['cpu']:.2f} s: process_results {cpsd['process_results_cpu']:.2f} s "
         f"× {cpsd['calls']:.0f} calls, aggregations {cpsd['aggregation_cpu']:.2f} s)", "≤ 10 %",
         cpsd["cpu_share"] <= 0.10),
    ]
    tasks = sorted((cpsd.get("tasks") or {}).items(), key=lambda kv: -kv[1]["process_results_cpu"])
    if tasks:
        rows.append(("  process_results CPU by task, largest first (first call: one-off imports, dictionaries)",
                     ", ".join(f"{name.removeprefix('cpsd_')} {t['process_results_cpu']:.2f} s "
                               f"({t['first_call_cpu']:.2f})" for name, t in tasks[:5])))
    wall = f"{cpsd['wall_share']:.1%} ({cpsd['wall']:.2f} s)"
    if floor:
        wall += f"; the floor's scoring (exact_match): {floor['cpu_share']:.1%} of its CPU ({floor['cpu']:.2f} s)"
    rows.append(("  scoring share of the cpsd run, wall", wall))
    return rows


def table(results: dict[str, Any]) -> str:
    """The printed Markdown table (measure, value, target, ok/MISSED) of the parts in ``results``."""
    rows: list[tuple[str, str, str, str]] = []

    def add(measure: str, value: str, target: str = "", ok: Optional[bool] = None) -> None:
        rows.append((measure, value, target, "" if ok is None else ("ok" if ok else "MISSED")))

    s = results.get("scoring")
    if s:
        add(f"scoring, {s['samples']} samples, 12 tasks, no BERTScore", f"{s['total_seconds']:.2f} s "
            f"({s['samples_per_s']:.0f} samples/s)", "≤ 2 s", s["total_seconds"] <= 2.0)
        for r in s["tasks"]:
            add(f"  {r['task']} ({r['samples']}, {r['source']})", f"{r['seconds']:.3f} s ({r['samples_per_s']:.0f}/s)")
        add("  one-off warm-up (imports, jieba dictionary)", f"{s['warmup_seconds']:.2f} s")
        add("  task build in-process (12 tasks, stand-in data)", f"{s['build_seconds']:.2f} s")
        if "prompt_seconds_per_doc_compilation" in s:
            add(f"  prompts, {s['prompts']} docs: Jinja compiled per doc (harness) / once (cpsd)",
                f"{s['prompt_seconds_per_doc_compilation']:.2f} s / {s['prompt_seconds']:.2f} s")
        else:
            add(f"  prompts: harness doc_to_text (Jinja) for {s['prompts']} docs", f"{s['prompt_seconds']:.2f} s")
        for w in s["pathological"]:
            add(f"  one {w['output']} output, {w['task']}", f"{w['seconds']:.2f} s")
        add("peak RSS, scoring process (no BERTScore)", fmt_mib(s["peak_rss_bytes"]), "≤ 1 GiB",
            s["peak_rss_bytes"] <= GIB)
    b = results.get("bertscore")
    if b:
        for r in b["rows"]:
            add(f"BERTScore, {r['pairs']} pairs, {r['model']}, layer {r['layers']}",
                f"{r['seconds']:.1f} s ({r['pairs_per_s']:.1f} pairs/s)")
            add(f"  peak RSS after it", fmt_mib(r["peak_rss_bytes"]))
    o = results.get("overhead")
    if o:
        add(f"full run ({o['tasks_arg']}), {o['requests']} requests, instant endpoint, c={o['num_concurrent']}",
            f"{o['wall_seconds']:.1f} s wall")
        add("  before first request (imports, task index, build, prompts)", f"{o['before_first_request_seconds']:.1f} s")
        add("  request phase (pure request time)", f"{o['request_phase_seconds']:.1f} s "
            f"(server busy {o['server_busy_seconds']:.1f} s)")
        add("  after last answer (scoring, aggregation, writing logs)", f"{o['after_last_response_seconds']:.1f} s")
        add("  overhead ratio: wall / request phase", f"{o['overhead_ratio']:.1f}×")
        add("  peak RSS of the CLI process (no BERTScore)", fmt_mib(o["peak_rss_bytes"]), "≤ 1 GiB",
            None if o["peak_rss_bytes"] is None else o["peak_rss_bytes"] <= GIB)
    lat = results.get("latency")
    if lat:
        for r in lat["rows"]:
            is16 = r["num_concurrent"] == 16
            add(f"latency 50 ms, c={r['num_concurrent']}, {r['requests']} requests",
                f"{r['request_phase_seconds']:.2f} s vs bound {r['bound_seconds']:.2f} s = {r['ratio']:.2f}×",
                "≤ 1.3×" if is16 else "", (r["ratio"] <= 1.3) if is16 else None)
    ld = results.get("loading")
    if ld:
        add(f"task loading --tasks {ld['tasks_arg']}: import lm_eval + cpsd_tasks", f"{ld['import_seconds']:.2f} s")
        add("  index, plugin only (Python API, cpsd-eval) / with built-ins (lm_eval CLI)",
            f"{ld['plugin_only']['index_seconds']:.2f} s / {ld['defaults']['index_seconds']:.2f} s")
        add(f"  build {ld['plugin_only']['tasks']} tasks (data validation, Arrow)",
            f"{ld['plugin_only']['build_seconds']:.2f} s / {ld['defaults']['build_seconds']:.2f} s")
        add("  peak RSS of the loading process", fmt_mib(ld["peak_rss_bytes"]))
    st = results.get("startup")
    if st:
        fr, wall, cpu = st["first_request"], st["wall"], st["cpu"]
        add(f"start-up of a cpsd_* run, launch → first request, before / after (median, {st['pairs']} pairs)",
            f"{fr['before_seconds']:.1f} s / {fr['after_seconds']:.1f} s = {fr['ratio']:.2f}×")
        add("  whole --limit 1 run, wall / CPU, before → after",
            f"{wall['before_seconds']:.1f} → {wall['after_seconds']:.1f} s ({wall['ratio']:.2f}×) / "
            f"{cpu['before_seconds']:.1f} → {cpu['after_seconds']:.1f} s ({cpu['ratio']:.2f}×)")
        add("  peak RSS before / after", f"{fmt_mib(st['peak_rss_bytes']['before'])} / "
            f"{fmt_mib(st['peak_rss_bytes']['after'])}")
    fl = results.get("floor")
    if fl:
        c, f = fl["cpsd_median"], fl["floor_median"]
        load = fl["load_1min"]
        add(f"full run vs harness floor ({fl['floor_docs']:,} prompts, instant endpoint, c={fl['num_concurrent']}), "
            f"median of {fl['pairs']} interleaved pairs, load {load['min']:.1f}–{load['max']:.1f}: wall cpsd / floor",
            f"{c['wall']:.1f} s / {f['wall']:.1f} s = {fl['wall_ratio']:.2f}×", "≤ 0.75×", fl["wall_ratio"] <= 0.75)
        add("  CPU cpsd / floor", f"{c['cpu']:.1f} s / {f['cpu']:.1f} s = {fl['cpu_ratio']:.2f}×")
        for key, label in (("first_request", "launch → first request (imports, task index, build, prompts)"),
                           ("request_phase", "requests (first request → last answer, at the server)"),
                           ("after_last_response", "last answer → exit (filters, scoring, aggregation, writing)")):
            add(f"  {label}", f"{c[key]:.1f} s ({c[key] / c['wall']:.0%}) / {f[key]:.1f} s ({f[key] / f['wall']:.0%})")
        rss = c["peak_rss_bytes"]
        add(f"  peak RSS cpsd / floor (no BERTScore; highest of {fl['pairs']} runs each)",
            f"{fmt_mib(rss)} / {fmt_mib(f['peak_rss_bytes'])}", "≤ 550 MiB",
            None if rss is None else rss <= 550 * 2 ** 20)
        for row in scoring_rows(fl.get("cpsd_scoring"), fl.get("floor_scoring")):
            add(*row)
    adv = results.get("adversarial")
    if adv:
        for r in adv["rows"]:
            value = f"> {r['seconds']:.0f} s (stopped)" if r.get("stopped") else f"{r['seconds']:.3f} s"
            add(f"adversarial output: {r['case']}", value, f"≤ {r['budget']:g} s", r["ok"])
    w = [max(len(r[i]) for r in rows + [("measure", "value", "target", "status")]) for i in range(4)]
    lines = ["| " + " | ".join(h.ljust(w[i]) for i, h in enumerate(("measure", "value", "target", "status"))) + " |",
             "|" + "|".join("-" * (x + 2) for x in w) + "|"]
    lines += ["| " + " | ".join(c.ljust(w[i]) for i, c in enumerate(r)) + " |" for r in rows]
    return "\n".join(lines)


def main(argv: Optional[list[str]] = None) -> int:
    """Command line (module docstring): runs the chosen parts, prints the table, writes the JSON; returns 0."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--parts", default=",".join(PARTS), help=f"comma-separated subset of {','.join(PARTS)}")
    parser.add_argument("--json", default="bench_results.json", help="where to write the JSON (default ./bench_results.json)")
    parser.add_argument("--data-dir", default=str(ROOT.parent / "shared" / "data"),
                        help="stand-in data folder (demo data for tasks it lacks)")
    parser.add_argument("--bertscore", default="tiny,base-random",
                        help="random BERTs to time when no real model is given: tiny, base-random (comma-separated)")
    parser.add_argument("--bertscore-model", default=None, help="a real local BERT folder (e.g. bert-base-chinese)")
    parser.add_argument("--bertscore-layers", type=int, default=8, help="layer for --bertscore-model (default 8)")
    parser.add_argument("--latency-requests", type=int, default=480, help="requests per latency run (default 480)")
    parser.add_argument("--overhead-concurrency", type=int, default=8, help="num_concurrent of the full run (default 8)")
    parser.add_argument("--startup-pairs", type=int, default=3,
                        help="interleaved before/after pairs of the startup part (default 3, ~1-2 min)")
    parser.add_argument("--floor-pairs", type=int, default=3,
                        help="interleaved cpsd/floor pairs of the floor part (default 3, ~3-4 min)")
    args = parser.parse_args(argv)
    parts = [p for p in args.parts.split(",") if p]
    unknown = set(parts) - set(PARTS)
    if unknown:
        parser.error(f"unknown part(s): {', '.join(sorted(unknown))}")

    import logging

    logging.getLogger("cpsd_tasks").setLevel(logging.CRITICAL)  # "BERTScore switched off" ×12
    logging.getLogger("lm_eval").setLevel(logging.ERROR)
    logging.getLogger("jieba").setLevel(logging.ERROR)

    with tempfile.TemporaryDirectory(prefix="cpsd-bench-") as tmp:
        work = Path(tmp)
        hf_home = work / "hf_home"
        os.environ["HF_HOME"] = str(hf_home)
        data_dir = Path(args.data_dir) if args.data_dir and Path(args.data_dir).is_dir() else None
        data, sources = stand_in_dir(data_dir, work)
        import cpsd_tasks

        tasks_arg, _ = task_selection(cpsd_tasks.task_manager(metadata={"bertscore_model": "none",
                                                                          "data_dir": str(data)}))
        ctx = {"args": args, "work": work, "hf_home": hf_home, "data": data, "sources": sources,
               "tasks_arg": tasks_arg}
        results: dict[str, Any] = {
            "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform(),
                        "loadavg_start": os.getloadavg()},
            "data_dir": str(data_dir) if data_dir else None, "sources": sources,
        }
        funcs: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "scoring": part_scoring, "bertscore": part_bertscore, "overhead": part_overhead,
            "latency": part_latency, "loading": part_loading, "startup": part_startup,
            "floor": part_floor, "adversarial": part_adversarial}
        for part in PARTS:  # fixed order: scoring first, so its RSS is measured before BERTScore
            if part in parts:
                print(f"[bench] {part} …", file=sys.stderr, flush=True)
                started = time.perf_counter()
                results[part] = funcs[part](ctx)
                results[part]["part_seconds"] = time.perf_counter() - started
        results["machine"]["loadavg_end"] = os.getloadavg()
    text = table(results)
    print(text)
    Path(args.json).write_text(json.dumps(results, ensure_ascii=False, indent=2, default=str), encoding="utf-8")
    print(f"\nJSON: {Path(args.json).resolve()}  (load average {results['machine']['loadavg_start'][0]:.1f} → "
          f"{results['machine']['loadavg_end'][0]:.1f} on {os.cpu_count()} cores)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
