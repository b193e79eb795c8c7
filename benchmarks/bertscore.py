"""Part ``bertscore``: BERTScore F1 of the three generation tasks at paper size (350 pairs).

With a real local model if the context names one (``--bertscore-model`` or
``$CPSD_BERTSCORE_MODEL``), else with *random* local BERTs built on the spot (no download): ``tiny``
(2 layers, hidden 32) and ``base-random`` (bert-base-chinese's shape: 12 layers of which bert-score
uses 8, hidden 768; the compute of the real model, meaningless values). Reported apart from part
``scoring``: seconds, pairs/s and the peak RSS after each model.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

from benchmarks.children import rss_now_peak
from benchmarks.context import Context
from benchmarks.report import Row, fmt_mib
from benchmarks.samples import paper_docs, varied_outputs

#: Characters of the varied outputs (benchmarks.samples.varied_outputs) the random BERTs' vocabulary needs.
OUTPUT_CHARS = "根据材料分析，答案是理由事实判断相符选项均不符合题意先梳理案情再逐项核对抱歉我无法回答这个问题"


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


def models(ctx: Context, names: list[str]) -> list[tuple[str, str, int]]:
    """``(label, model path, layer)`` of each model to time: the real one named in ``ctx``, else
    the random shapes, built in ``ctx.work`` over the characters of the tasks ``names``."""
    import cpsd_tasks

    if ctx.bertscore_model:
        return [("real: " + ctx.bertscore_model, ctx.bertscore_model, ctx.bertscore_layers)]
    probe = cpsd_tasks.task_manager(metadata=ctx.metadata()).load(names)["tasks"]
    texts = [t for name in names for d in probe[name].test_docs() for t in (d["input"], d["reference"])]
    texts.append(OUTPUT_CHARS)
    out = []
    for shape in ctx.bertscore_shapes:
        if shape in ("tiny", "base-random"):
            path = build_bert(ctx.work / f"bert-{shape}", texts, shape)
            out.append((f"{shape} (random weights, local)", str(path), 2 if shape == "tiny" else 8))
    return out


def time_model(ctx: Context, label: str, model: str, layers: int) -> dict[str, Any]:
    """Seconds of the generation tasks' BERTScore aggregation with one model (the first call loads it)."""
    import cpsd_tasks
    from cpsd_tasks.tasks import TASKS

    tg = [s for s in TASKS.values() if s.kind == "generation"]
    tm = cpsd_tasks.task_manager(metadata=ctx.metadata(bertscore_model=model, bertscore_num_layers=layers))
    tasks = tm.load([s.harness_name for s in tg])["tasks"]
    total, n, values, load_seconds = 0.0, 0, {}, None
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
    return {"model": label, "layers": layers, "pairs": n, "seconds": total,
            "pairs_per_s": n / total if total else math.inf, "first_task_seconds_incl_load": load_seconds,
            "bertscore_f1": values, "peak_rss_bytes": rss_now_peak()}


def measure(ctx: Context) -> dict[str, Any]:
    """Seconds and pairs/s per model (the real one given, else the random shapes), with the peak RSS."""
    from cpsd_tasks.tasks import TASKS

    names = [s.harness_name for s in TASKS.values() if s.kind == "generation"]
    chosen = models(ctx, names)
    rss_before = rss_now_peak()
    return {"rows": [time_model(ctx, *m) for m in chosen], "peak_rss_before_bytes": rss_before,
            "note": None if ctx.bertscore_model else
            "no real BERT model given: random local BERTs (timing only; values meaningless)"}


def rows(b: dict[str, Any]) -> list[Row]:
    """The table's lines of part ``bertscore``."""
    out = []
    for r in b["rows"]:
        out.append(Row(f"BERTScore, {r['pairs']} pairs, {r['model']}, layer {r['layers']}",
                       f"{r['seconds']:.1f} s ({r['pairs_per_s']:.1f} pairs/s)"))
        out.append(Row("  peak RSS after it", fmt_mib(r["peak_rss_bytes"])))
    return out
