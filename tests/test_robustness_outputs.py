"""Robustness: odd model outputs for every task never crash; each gets a score or counts as invalid.

Each task is built by the harness's own TaskManager from its YAML, and scored through the
``process_results`` and the aggregation functions named there (so this file does not depend on
any task module's internals). Docs are real docs of the embedded demo data. BERTScore is switched
off (``bertscore_model=none``) except in the tiny-BERT test at the end. Model output is never
evaluated as code (the ``code`` case would create a file if it were).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest

import cpsd_tasks
from cpsd_tasks.tasks import TASKS

NAMES = [spec.harness_name for spec in TASKS.values()]
KIND = {spec.harness_name: spec.kind for spec in TASKS.values()}
PWNED = Path(os.environ.get("TMPDIR", "/tmp")) / "cpsd_robustness_pwned"

#: Outputs with nothing to score: every task must count them (invalid_rate / empty_rate = 1, score 0).
NOTHING = {
    "empty": "",
    "none": None,
    "whitespace": " \n\t\u3000\r\n ",
    "think_unclosed": "<think>让我想想，答案可能是积极，也可能是A",
    "think_only": "<think>分析……</think>",
    "think_upper_only": "<THINK>分析</THINK>\n",
    "lone_close_only": "前面的推理</think>   ",
}
#: Outputs that name no answer: invalid for labels, JSON and letters; prose for generation.
GARBAGE = {
    "emoji": "😀👍🚓✅🔥",
    "lone_surrogate": "\ud800",
    "nul_bytes": "\x00\x00\x00",
    "long_noise_100k": "呃" * 100_000,
    "html_no_answer": "<html><body><div class='x'><script>alert(1)</script></div></body></html>",
    "code": "{'type': __import__('os').system('touch " + str(PWNED) + "')}",
}
#: Refusals: counted as refusals where the task has refusal_rate.
REFUSALS = {
    "refusal_zh": "抱歉，我无法回答这个问题。",
    "refusal_en": "I'm sorry, but I can't help with that request.",
    "refusal_filter": "作为一个人工智能语言模型，我不能提供涉及敏感案件的信息。",
}
#: Anything else: must score in range (some may legitimately parse an answer).
OTHER = {
    "long_prose_100k": "这是一段很长的输出。" * 10_000,
    "broken_json": '[{"type": "人名", "text": "张三"}, {"type": "地点", "text": "北京',
    "nested_fences": '```json\n```json\n[{"type": "人名", "text": "张三"}]\n```\n```',
    "traditional": "謠言 詐騙 積極 錯誤 是 人名：張三 答案：Ａ",
    "emoji_mixed": "答案是 👉 A ✅ 😀",
    "surrogates_mixed": "答案\udfff：A\ud800 谣言",
    "think_nested": "<think>外层<think>内层</think>还在想</think>答案：B",
    "html_answer": "<p><b>答案</b>：<i>A</i></p>",
    "prompt_echo": ("【任务】判断下面这条网络文本所表达的情感倾向。"
                    "【约束】只能从“积极”“消极”“中性”三个标签中选择一个作答"),
    "json_everything": '{"answer": "A", "label": "积极", "entities": [], "relations": []}',
}
#: The gold answer dressed up: must be fully correct for label, JSON and letter tasks.
PERFECT = {
    "think_then_gold": "<think>嗯……这题不难。</think>\n{gold}",
    "fence_gold": "```\n{gold}\n```",
    "lone_close_then_gold": "先想一想</think>{gold}",
}
ALL = {**NOTHING, **GARBAGE, **REFUSALS, **OTHER, **{k: None for k in PERFECT}}

#: Metrics that may be NaN: BERTScore when off, QA per-type accuracies of types absent from the input,
#: IE per-type F1 (``f1_<type>``) of types absent from gold and predictions.
MAY_BE_NAN = {"bertscore_f1", "score@generation", "acc_judge", "acc_exact", "acc_fuzzy", "acc_tf", "acc_single",
              "acc_multi", "multi_partial"}


@pytest.fixture(scope="module")
def tasks():
    """All twelve tasks built by the harness from their YAMLs (demo data, BERTScore off)."""
    tm = cpsd_tasks.task_manager(metadata={"bertscore_model": "none"})
    built = tm.load(NAMES)["tasks"]
    assert sorted(built) == sorted(NAMES), "every task of docs/metrics.md must build from its YAML"
    return built


def demo_docs(task) -> list[dict]:
    """The first demo doc, plus for QA tasks the first doc of each question type."""
    docs = list(task.test_docs())
    chosen = [docs[0]]
    if KIND[task.config.task] in ("reading", "exam"):
        for qtype in ("判断", "精确", "模糊", "单选", "多选"):
            first = next((d for d in docs if d["qtype"] == qtype), None)
            if first is not None and first is not docs[0]:
                chosen.append(first)
    return chosen


def output_for(case: str, task, doc) -> str | None:
    if case in PERFECT:
        return PERFECT[case].format(gold=task.doc_to_target(doc))
    return ALL[case]


def score(task, doc, output) -> dict:
    """process_results, then each metric's own aggregation over this one sample."""
    per_sample = task.process_results(doc, [output])
    aggregations = task.aggregation()
    assert "score" in per_sample
    assert set(per_sample) <= set(aggregations), set(per_sample) - set(aggregations)
    return {metric: aggregations[metric]([value]) for metric, value in per_sample.items()}


def check_ranges(name: str, values: dict) -> None:
    for metric, value in values.items():
        if metric == "bertscore_config":
            assert isinstance(value, str) and value, value
            continue
        assert isinstance(value, (int, float)) and not isinstance(value, bool), (metric, value)
        key = f"{metric}@generation" if (metric == "score" and KIND[name] == "generation") else metric
        if math.isnan(value):
            assert key in MAY_BE_NAN or (KIND[name] in ("ner", "re") and metric.startswith("f1_")
                                         and metric not in ("f1_micro", "f1_exact", "f1_fuzzy")), (name, metric)
        else:
            assert 0.0 <= value <= 1.0, (name, metric, value)


def invalid_key(name: str) -> str:
    return "empty_rate" if KIND[name] == "generation" else "invalid_rate"


@pytest.mark.parametrize("case", list(ALL))
@pytest.mark.parametrize("name", NAMES)
def test_odd_output_scores_or_counts_invalid(tasks, name, case):
    task = tasks[name]
    for doc in demo_docs(task):
        output = output_for(case, task, doc)
        values = score(task, doc, output)
        check_ranges(name, values)
        kind = KIND[name]
        if case in NOTHING:
            assert values[invalid_key(name)] == 1.0 and values["score"] == 0.0, values
            if "refusal_rate" in values:
                assert values["refusal_rate"] == 1.0
            if kind == "generation":
                assert all(values[m] == 0.0 for m in ("bleu_char", "bleu_word", "rouge1_char", "rougeL_char",
                                                      "rouge1_word", "rougeL_word", "bertscore_f1"))
        elif case in GARBAGE:
            if kind == "generation":
                assert values["empty_rate"] == 0.0 and values["bleu_char"] == 0.0
            elif kind == "reading" and doc["qtype"] != "判断":
                assert values["score"] == 0.0, values  # any text is a span answer: wrong, not invalid
            else:
                assert values["invalid_rate"] == 1.0 and values["score"] == 0.0, values
        elif case in REFUSALS:
            if "refusal_rate" in values:
                assert values["refusal_rate"] == 1.0 and values["invalid_rate"] == 1.0
            if kind in ("ner", "re"):
                assert values["invalid_rate"] == 1.0 and values["score"] == 0.0
            if kind == "generation":
                assert values["empty_rate"] == 0.0  # a refusal is text: it is scored, low
        elif case in PERFECT:
            if kind == "generation":
                if case != "fence_gold":  # the fence characters stay in the prose
                    assert values["bleu_char"] == pytest.approx(1.0) and values["rougeL_char"] == pytest.approx(1.0)
            else:
                assert values["score"] == 1.0 and values["invalid_rate"] == 0.0, (doc["id"], output, values)
    assert not PWNED.exists(), "model output was executed"


@pytest.mark.parametrize("name", NAMES)
def test_corpus_of_every_odd_output_aggregates(tasks, name):
    """All odd outputs over the demo docs at once: every corpus metric is a number in range."""
    task = tasks[name]
    docs = list(task.test_docs())
    cases = list(ALL)
    per_metric: dict[str, list] = {}
    nothing = 0
    for i, doc in enumerate(docs * (1 + len(cases) // len(docs))):
        case = cases[i % len(cases)]
        nothing += case in NOTHING
        for metric, value in task.process_results(doc, [output_for(case, task, doc)]).items():
            per_metric.setdefault(metric, []).append(value)
    aggregations = task.aggregation()
    values = {metric: aggregations[metric](items) for metric, items in per_metric.items()}
    check_ranges(name, values)
    n = len(per_metric["score"])
    assert values[invalid_key(name)] >= nothing / n - 1e-9


# --------------------------------------------------------------------------- BERTScore on odd outputs

def build_tiny_bert(out: Path) -> Path:
    """A 2-layer random BERT with a character vocabulary (deterministic, ~1 MB, no download)."""
    import torch
    from transformers import BertConfig, BertModel, BertTokenizer

    chars = sorted({ch for text in (*ALL.values(), "答案是谣言积极消极中性") if text for ch in text
                    if not ch.isspace() and not 0xD800 <= ord(ch) <= 0xDFFF})
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *chars]
    out.mkdir(parents=True, exist_ok=True)
    (out / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    torch.manual_seed(0)
    BertModel(BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                         intermediate_size=64, max_position_embeddings=512)).save_pretrained(out)
    BertTokenizer(str(out / "vocab.txt"), do_lower_case=False, model_max_length=512).save_pretrained(out)
    return out


@pytest.mark.e2e
def test_bertscore_scores_odd_outputs_with_a_local_model(tmp_path):
    """Emoji, NUL, HTML, 100k characters … through a real (tiny, random) BERTScore: a number, not NaN."""
    model = build_tiny_bert(tmp_path / "tiny_bert")
    tm = cpsd_tasks.task_manager(metadata={"bertscore_model": str(model), "bertscore_num_layers": 2})
    task = tm.load(["cpsd_case_report"])["tasks"]["cpsd_case_report"]
    doc = list(task.test_docs())[0]
    cases = list(ALL)
    items = {}
    for case in cases:
        for metric, value in task.process_results(doc, [output_for(case, task, doc)]).items():
            items.setdefault(metric, []).append(value)
    aggregations = task.aggregation()
    f1 = aggregations["bertscore_f1"](items["bertscore_f1"])
    assert isinstance(f1, float) and not math.isnan(f1) and 0.0 < f1 <= 1.0
    assert aggregations["score"](items["score"]) == f1
    config = aggregations["bertscore_config"](items["bertscore_config"])
    assert str(model) in config and "layer 2" in config
