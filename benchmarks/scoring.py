"""Part ``scoring``: parsing + metrics of all twelve tasks at the paper's sizes, without BERTScore.

Each task's ``process_results`` and the aggregations named in its YAML (loaded through the
harness's TaskManager) run over 3,150 samples (:attr:`cpsd_tasks.tasks.TaskSpec.paper_size`). Docs
are resampled (seeded) from the stand-in data (demo data for a task it lacks) and model outputs
are varied (:func:`benchmarks.samples.varied_outputs`). Target: ≤ 2 s in all. Also timed: the
one-off warm-up, the task build, prompt rendering (Jinja compiled per doc, as the harness does,
against once, as ``cpsd-eval`` does) and one pathological 100,000-character output per task kind;
and this process's peak RSS (target ≤ 1 GiB).
"""

from __future__ import annotations

import math
import time
from typing import Any

from benchmarks.children import rss_now_peak
from benchmarks.context import Context
from benchmarks.report import GIB, Row, fmt_mib
from benchmarks.samples import paper_docs, score_task, varied_outputs

TARGET_SECONDS = 2.0
KINDS = ("classification", "ner", "re", "reading", "exam", "generation")


def per_task(ctx: Context, tasks: dict[str, Any]) -> list[dict[str, Any]]:
    """Seconds and samples/s of each task at its paper size, with its primary metric's value."""
    from cpsd_tasks.tasks import TASKS

    rows = []
    for spec in TASKS.values():
        task = tasks[spec.harness_name]
        docs = paper_docs(task, spec.paper_size)
        outputs = [varied_outputs(task, d, i) for i, d in enumerate(docs)]
        seconds, values = score_task(task, docs, outputs)
        primary = values.get(spec.primary_metric)
        rows.append({"task": spec.harness_name, "samples": len(docs), "seconds": seconds,
                     "samples_per_s": len(docs) / seconds if seconds else math.inf,
                     "source": ctx.sources[spec.id],
                     spec.primary_metric: primary if isinstance(primary, (int, float)) else None})
    return rows


def prompt_seconds(tasks: dict[str, Any]) -> tuple[int, dict[str, float]]:
    """Seconds to render every paper-size doc's prompt with the harness's Jinja compiled per doc
    (``per_doc``: ``lm_eval.utils.apply_template``) and once (``compiled_once``: cpsd_tasks.cli.prompts).

    A run pays for prompts too, though they are not parse + metrics. Returns the number of docs too.
    """
    from cpsd_tasks.cli import prompts as cpsd_prompts
    from cpsd_tasks.tasks import TASKS

    all_docs = [(tasks[spec.harness_name], paper_docs(tasks[spec.harness_name], spec.paper_size))
                for spec in TASKS.values()]
    times = {}
    for mode in ("per_doc", "compiled_once"):
        (cpsd_prompts.uninstall if mode == "per_doc" else cpsd_prompts.install)()
        t0 = time.perf_counter()
        for task, docs in all_docs:
            for doc in docs:
                task.doc_to_text(doc)
        times[mode] = time.perf_counter() - t0
    cpsd_prompts.install()
    return sum(len(docs) for _, docs in all_docs), times


def pathological(tasks: dict[str, Any]) -> list[dict[str, Any]]:
    """Seconds to score one 100,000-character output (prose; one character repeated) per task kind."""
    from cpsd_tasks.tasks import TASKS

    worst = []
    for kind in KINDS:
        spec = next(s for s in TASKS.values() if s.kind == kind)
        task = tasks[spec.harness_name]
        doc = list(task.test_docs())[0]
        for label, text in (("100k prose", "这是一段很长的输出。" * 10_000), ("100k one char", "呃" * 100_000)):
            seconds, _ = score_task(task, [doc], [text])
            worst.append({"task": spec.harness_name, "output": label, "seconds": seconds})
    return worst


def measure(ctx: Context) -> dict[str, Any]:
    """Per-task seconds over the paper's sizes, the one-off warm-up, task build and prompt
    rendering, the 100k-character outputs and this process's peak RSS."""
    import cpsd_tasks
    from cpsd_tasks.tasks import TASKS

    tm = cpsd_tasks.task_manager(metadata=ctx.metadata())
    names = [s.harness_name for s in TASKS.values()]
    t0 = time.perf_counter()
    tasks = tm.load(names)["tasks"]
    build = time.perf_counter() - t0
    # Warm-up: first calls import modules, load jieba's dictionary, compile regexes. A real run
    # pays these once too; they are reported apart from the per-sample cost.
    t0 = time.perf_counter()
    for name in names:
        task = tasks[name]
        doc = list(task.test_docs())[0]
        score_task(task, [doc, doc], [varied_outputs(task, doc, 0), varied_outputs(task, doc, 2)])
    warmup = time.perf_counter() - t0
    rows = per_task(ctx, tasks)
    total, n_total = sum(r["seconds"] for r in rows), sum(r["samples"] for r in rows)
    n_prompts, prompts = prompt_seconds(tasks)
    worst = pathological(tasks)
    return {"build_seconds": build, "warmup_seconds": warmup, "prompt_seconds": prompts["compiled_once"],
            "prompt_seconds_per_doc_compilation": prompts["per_doc"], "prompts": n_prompts, "tasks": rows,
            "total_seconds": total, "samples": n_total, "samples_per_s": n_total / total,
            "peak_rss_bytes": rss_now_peak(), "pathological": worst, "target_seconds": TARGET_SECONDS}


def rows(s: dict[str, Any]) -> list[Row]:
    """The table's lines of part ``scoring``."""
    out = [Row(f"scoring, {s['samples']} samples, 12 tasks, no BERTScore",
               f"{s['total_seconds']:.2f} s ({s['samples_per_s']:.0f} samples/s)", "≤ 2 s",
               s["total_seconds"] <= TARGET_SECONDS)]
    out += [Row(f"  {r['task']} ({r['samples']}, {r['source']})", f"{r['seconds']:.3f} s ({r['samples_per_s']:.0f}/s)")
            for r in s["tasks"]]
    out.append(Row("  one-off warm-up (imports, jieba dictionary)", f"{s['warmup_seconds']:.2f} s"))
    out.append(Row("  task build in-process (12 tasks, stand-in data)", f"{s['build_seconds']:.2f} s"))
    if "prompt_seconds_per_doc_compilation" in s:
        out.append(Row(f"  prompts, {s['prompts']} docs: Jinja compiled per doc (harness) / once (cpsd)",
                       f"{s['prompt_seconds_per_doc_compilation']:.2f} s / {s['prompt_seconds']:.2f} s"))
    else:
        out.append(Row(f"  prompts: harness doc_to_text (Jinja) for {s['prompts']} docs",
                       f"{s['prompt_seconds']:.2f} s"))
    out += [Row(f"  one {w['output']} output, {w['task']}", f"{w['seconds']:.2f} s") for w in s["pathological"]]
    out.append(Row("peak RSS, scoring process (no BERTScore)", fmt_mib(s["peak_rss_bytes"]), "≤ 1 GiB",
                   s["peak_rss_bytes"] <= GIB))
    return out
