"""Text generation tasks (docs/metrics.md#text-generation): BLEU/ROUGE values checked by hand, the rouge-chinese
equivalence, BERTScore with a tiny random local BERT, the LEAD baseline, re-scoring, and the
real CLI on the embedded demo data."""

from __future__ import annotations

import json
import logging
import math
import tracemalloc
from pathlib import Path

import pytest
import yaml

from cpsd_tasks import generation as g
from cpsd_tasks.baseline import answer, identify
from cpsd_tasks.baseline.rules_tg import LEAD_CHARS, lead, sentences
from cpsd_tasks.options import RunConfig, configure, reset_run_configs
from cpsd_tasks.report import rescore

from conftest import ROOT, run_cpsd_eval

TASKS = ("case_summary", "case_report", "legal_analysis")
DEMO = ROOT / "cpsd_tasks" / "demo"
YAML_DIR = ROOT / "cpsd_tasks" / "yaml"
ALL_TEXT = ("bleu_char", "bleu_word", "rouge1_char", "rougeL_char", "rouge1_word", "rougeL_word")
# rouge-chinese's F is 2PR/(P+R+1e-8): identical texts give 1 - 5e-9, not exactly 1.
ROUGE_ONE = pytest.approx(1.0, abs=1e-8)


def demo_docs(task: str) -> list[dict]:
    lines = (DEMO / task / "test.jsonl").read_text(encoding="utf-8").splitlines()
    return [dict(json.loads(line), task=task) for line in lines if line.strip()]


# --------------------------------------------------------------------------- fixtures

@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory) -> Path:
    """A randomly initialised 2-layer BERT with a Chinese character vocabulary (no download)."""
    import torch
    from transformers import BertConfig, BertModel, BertTokenizer

    out = tmp_path_factory.mktemp("tiny_bert")
    texts = [d[k] for t in TASKS for d in demo_docs(t) for k in ("input", "reference")]
    texts.append("今天天气很好我们去公园散步甲乙丙丁戊己猫坐在垫子上地")
    chars = sorted({c for t in texts for c in t if not c.isspace()})
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *chars]
    (out / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    BertTokenizer(str(out / "vocab.txt"), model_max_length=512).save_pretrained(out)
    torch.manual_seed(0)
    BertModel(BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2,
                         num_attention_heads=2, intermediate_size=64,
                         max_position_embeddings=512)).save_pretrained(out)
    return out


def test_model_folder_problems_are_found_before_a_run(tiny_bert, tmp_path):
    """Each way a BERTScore folder can be unusable, in one line; the tiny BERT passes (2 layers)."""
    from cpsd_tasks.generation.bertscore import is_model_folder, model_folder_problem

    assert model_folder_problem(str(tiny_bert), 2) is None
    assert model_folder_problem(str(tiny_bert), 3) == f"layer 3 asked for, but the model in '{tiny_bert}' has 2 layers"
    missing = tmp_path / "nope"
    assert model_folder_problem(str(missing), 8) == f"folder '{missing}' does not exist"
    folder = tmp_path / "bert"
    folder.mkdir()
    assert model_folder_problem(str(folder), 8) == f"folder '{folder}' has no config.json"
    (folder / "config.json").write_text((tiny_bert / "config.json").read_text(encoding="utf-8"), encoding="utf-8")
    no_weights = f"folder '{folder}' has no weights (model.safetensors or pytorch_model.bin)"
    assert model_folder_problem(str(folder), 8) == no_weights
    (folder / "model.safetensors").write_bytes(b"")
    assert model_folder_problem(str(folder), 8) == f"folder '{folder}' has no tokenizer (tokenizer.json or vocab.txt)"
    (folder / "vocab.txt").write_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n", encoding="utf-8")
    assert model_folder_problem(str(folder), 2) is None  # config and tokenizer load: the weights are not read
    (folder / "config.json").write_text("{not json", encoding="utf-8")
    problem = model_folder_problem(str(folder), 2)
    assert problem.startswith(f"folder '{folder}' cannot be loaded (") and "\n" not in problem
    assert is_model_folder(str(folder)) and is_model_folder("/models/x") and is_model_folder("./x")
    assert not is_model_folder("bert-base-chinese") and not is_model_folder("hfl/chinese-roberta-wwm-ext")


@pytest.fixture(autouse=True)
def clean_state(monkeypatch):
    """Every test starts with no scorer, no cached results and no BERTScore env settings."""
    for var in (g.ENV_MODEL, g.ENV_NUM_LAYERS, g.ENV_BATCH_SIZE):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    g.reset_bertscore_state()
    reset_run_configs()
    yield
    g.reset_bertscore_state()
    reset_run_configs()


@pytest.fixture
def counting_scorer(monkeypatch):
    """Count real BERTScorer constructions and ``score`` calls (with their batch sizes)."""
    import bert_score

    calls = {"init": 0, "score": [], "cands": []}
    init, score = bert_score.BERTScorer.__init__, bert_score.BERTScorer.score

    def counted_init(self, *args, **kwargs):
        calls["init"] += 1
        init(self, *args, **kwargs)

    def counted_score(self, cands, refs, *args, **kwargs):
        calls["score"].append(len(cands))
        calls["cands"].extend(cands)
        return score(self, cands, refs, *args, **kwargs)

    monkeypatch.setattr(bert_score.BERTScorer, "__init__", counted_init)
    monkeypatch.setattr(bert_score.BERTScorer, "score", counted_score)
    return calls


# --------------------------------------------------------------------------- BLEU / ROUGE by hand

def test_identical_texts_score_one_on_every_text_metric():
    text = "2023年4月2日，民警在新华路网吧门口将贩毒嫌疑人张某抓获，当场查获甲基苯丙胺0.5克。"
    scores = g.text_scores(text, text)
    assert scores["bleu_char"] == 1.0 and scores["bleu_word"] == 1.0  # sacrebleu gives 100.00000000000004
    for name in ("rouge1_char", "rougeL_char", "rouge1_word", "rougeL_word"):
        assert scores[name] == ROUGE_ONE, name


def test_disjoint_texts_score_zero():
    assert g.text_scores("甲乙丙丁", "戊己庚辛") == {name: 0.0 for name in ALL_TEXT}


def test_small_pair_worked_out_by_hand():
    # hyp 猫坐在垫子上 (6 chars), ref 猫坐在地上 (5 chars).
    s = g.text_scores("猫坐在垫子上", "猫坐在地上")
    # char ROUGE-1: distinct chars 6 vs 5, shared {猫坐在上} = 4: P=4/6, R=4/5, F=8/11.
    assert s["rouge1_char"] == pytest.approx(8 / 11, abs=1e-7)
    # char ROUGE-L: LCS 猫坐在上 = 4, the same P and R.
    assert s["rougeL_char"] == pytest.approx(8 / 11, abs=1e-7)
    # char BLEU: p1=4/6, p2=2/5, p3=1/4, p4=0/3 -> exp smoothing 1/(2*3); BP=1 (6 > 5).
    assert s["bleu_char"] == pytest.approx((4 / 6 * 2 / 5 * 1 / 4 * 1 / 6) ** 0.25, abs=1e-12)
    assert s["bleu_char"] == pytest.approx(0.32467, abs=1e-5)
    # jieba: 猫/坐在/垫子/上 vs 猫/坐在/地上: shared {猫, 坐在}: P=2/4, R=2/3, F=4/7; LCS also 2.
    assert s["rouge1_word"] == pytest.approx(4 / 7, abs=1e-7)
    assert s["rougeL_word"] == pytest.approx(4 / 7, abs=1e-7)
    # word BLEU: p1=2/4, p2=1/3, p3=0/2 -> 1/(2*2), p4=0/1 -> 1/(4*1); BP=1 (4 > 3).
    assert s["bleu_word"] == pytest.approx((1 / 2 * 1 / 3 * 1 / 4 * 1 / 4) ** 0.25, abs=1e-12)


def test_rouge1_counts_distinct_unigrams_like_rouge_chinese():
    # rouge-chinese's default (exclusive=True) compares n-gram *sets*: 甲甲乙 and 甲乙乙 share
    # both distinct characters -> F = 1 (a multiset ROUGE such as rouge_score would give 2/3).
    assert g.text_scores("甲甲乙", "甲乙乙")["rouge1_char"] == ROUGE_ONE
    # ROUGE-L still sees order and repetition: LCS 甲乙 = 2 of 3 -> 2/3.
    assert g.text_scores("甲甲乙", "甲乙乙")["rougeL_char"] == pytest.approx(2 / 3, abs=1e-7)


def test_full_width_forms_are_folded_before_matching():
    assert g.text_scores("罚款５００元，ＡＢＣ", "罚款500元,ABC")["bleu_char"] == 1.0


@pytest.mark.parametrize("output", [None, "", "   \n\t", "<think>还没想完", "<think>a</think>   "])
def test_empty_hypothesis_scores_zero_without_error(output):
    ref = demo_docs("case_summary")[0]["reference"]
    assert g.text_scores(output, ref) == {name: 0.0 for name in ALL_TEXT}
    per_sample = g.process_results(demo_docs("case_summary")[0], [output])
    assert per_sample["empty_rate"] == 1.0
    assert per_sample["bertscore_f1"][1] == ""


def test_punctuation_only_hypothesis_scores_without_error():
    # rouge-chinese would count 。 as a token: one shared character of 1 vs 5 distinct ones.
    s = g.text_scores("。", "今天好。")
    assert s["rouge1_char"] == pytest.approx(2 * (1 * 0.25) / 1.25, abs=1e-7)
    assert g.text_scores("！？……", "今天好")["rouge1_char"] == 0.0


def test_think_block_is_not_scored():
    ref = demo_docs("case_report")[0]["reference"]
    plain = g.text_scores(ref[:60], ref)
    assert g.text_scores("<think>" + "我先想一想毒品的种类。" * 50 + "</think>\n" + ref[:60], ref) == plain
    assert g.text_scores("一些推理</think>" + ref[:60], ref) == plain  # lone closing tag
    item = g.process_results(demo_docs("case_report")[0], ["<think>草稿</think>" + ref[:60]])
    assert item["bertscore_f1"][1] == ref[:60]


def _long_pair(n: int = 5000) -> tuple[str, str]:
    """Two different n-character texts of shuffled demo sentences (``benchmarks.adversarial``'s, which
    times the same pair against its budget)."""
    from benchmarks.adversarial import long_pair

    return long_pair(n)


@pytest.mark.slow
def test_five_thousand_character_pair_is_linear_and_small():
    from growth import assert_linear

    hyp, ref = _long_pair()
    scores = g.text_scores(hyp, ref)
    assert all(0.0 < scores[m] < 1.0 for m in ALL_TEXT)
    # rouge-chinese's own LCS table is quadratic in time and memory (36 s, 4 GB here); ours grows
    # about linearly at these sizes: rapidfuzz's bit-parallel LCS is n·m/64 word operations, small
    # next to the rest. The absolute budget for this pair is in benchmarks/adversarial.py.
    assert_linear(lambda pair: g.text_scores(*pair), _long_pair, 1250, what="text_scores")
    tracemalloc.start()
    g.text_scores(hyp, ref)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 500 * 2**20, f"peak {peak / 2**20:.0f} MB"


def test_ten_thousand_character_output_scores():
    ref = demo_docs("legal_analysis")[0]["reference"]
    scores = g.text_scores(("无关的内容，" * 2000)[:10000], ref)
    assert all(0.0 <= v < 0.2 for v in scores.values())


def test_rouge_values_identical_to_rouge_chinese_on_a_test_set():
    """The fast path changes no value: every pair, both tokenisations, compared with ==."""
    from rouge_chinese import Rouge

    rouge = Rouge()
    pairs = []
    for task in TASKS:
        docs = demo_docs(task)
        for i, doc in enumerate(docs):
            pairs.append((lead(doc["input"], LEAD_CHARS[task]), doc["reference"]))  # the baseline
            pairs.append((docs[(i + 1) % len(docs)]["reference"], doc["reference"]))  # wrong ref
            pairs.append((doc["reference"][: len(doc["reference"]) // 2], doc["reference"]))
    pairs.append(("今天天气很好！你说呢？“是的。”好……", "今天天气不好。"))
    compared = 0
    for hyp, ref in pairs:
        for tokens in (g.char_tokens, g.word_tokens):
            h, r = tokens(g.clean(hyp)), tokens(g.clean(ref))
            expected = rouge.get_scores(" ".join(h), " ".join(r))[0]
            assert g.rouge_f(h, r) == (expected["rouge-1"]["f"], expected["rouge-l"]["f"])
            compared += 1
    assert compared == 2 * len(pairs) == 110


_JIEBA_PROBE = r"""
import json, logging, sys
import jieba
jieba.setLogLevel(logging.ERROR)
from cpsd_tasks import generation as g
hyp = "犯罪嫌疑人张某于2023年5月在北京市朝阳区某小区贩卖毒品，被公安机关当场抓获。"
ref = "2023年5月，张某在朝阳区一小区内向他人贩卖毒品时被民警抓获。"
def global_bleu():  # what the old code computed: jieba's global tokenizer
    return g.sentence_bleu(" ".join(w for w in jieba.cut(hyp) if w.strip()),
                           " ".join(w for w in jieba.cut(ref) if w.strip()), "none")
before = (g.text_scores(hyp, ref)["bleu_word"], global_bleu(), g.word_tokens(hyp))
for word in ("张某于", "朝阳区某", "小区内", "时被"):
    jieba.add_word(word, freq=10**7)  # someone else's user dictionary, same process
after = (g.text_scores(hyp, ref)["bleu_word"], global_bleu(), g.word_tokens(hyp))
print(json.dumps([before, after], ensure_ascii=False))
"""


@pytest.mark.e2e
def test_bleu_word_ignores_jieba_add_word_elsewhere_in_the_process():
    import subprocess
    import sys

    # A child process: jieba.add_word changes jieba's global state, which must not leak into other tests.
    proc = subprocess.run([sys.executable, "-c", _JIEBA_PROBE], capture_output=True, text=True, check=True,
                          cwd=ROOT)
    (bleu0, global0, tokens0), (bleu1, global1, tokens1) = json.loads(proc.stdout)
    assert bleu0 == global0  # before: our tokenizer segments exactly as jieba's default one
    assert global1 != global0  # the old way (global jieba.cut) changes with add_word ...
    assert (bleu1, tokens1) == (bleu0, tokens0)  # ... ours does not
    assert "张某于" not in tokens1


def test_bleu_is_sacrebleu_sentence_bleu():
    import sacrebleu

    hyp, ref = demo_docs("case_summary")[1]["reference"][:80], demo_docs("case_summary")[1]["reference"]
    s = g.text_scores(hyp, ref)
    assert s["bleu_char"] == sacrebleu.sentence_bleu(hyp, [ref], tokenize="zh").score / 100
    words = " ".join(g.word_tokens(hyp)), " ".join(g.word_tokens(ref))
    assert s["bleu_word"] == sacrebleu.sentence_bleu(words[0], [words[1]], tokenize="none").score / 100


# --------------------------------------------------------------------------- BERTScore

def _items(task: str, outputs: list) -> list[dict]:
    docs = demo_docs(task)
    return [g.process_results(doc, [out]) for doc, out in zip(docs, outputs)]


def test_bertscore_tiny_model_loaded_once_and_scored_in_one_call(tiny_bert, counting_scorer, caplog):
    caplog.set_level(logging.WARNING)
    for task in TASKS:
        configure(task, {"bertscore_model": str(tiny_bert), "bertscore_num_layers": 2})
    docs = demo_docs("case_summary")
    outputs = [docs[0]["reference"], "", "<think>未闭合", docs[3]["input"],
               "今天" * 400, lead(docs[5]["input"], 120)]
    per_sample = _items("case_summary", outputs)
    items = [p["bertscore_f1"] for p in per_sample]
    f1s = g.bertscore_f1s(items)
    assert len(f1s) == 6 and all(0.0 <= f <= 1.0 for f in f1s), f1s
    assert f1s[0] == pytest.approx(1.0, abs=1e-5)  # identical text
    assert f1s[1] == 0.0 and f1s[2] == 0.0  # empty outputs: 0 without the model
    assert 0.0 < f1s[3] < 1.0 and 0.0 < f1s[5] < 1.0
    mean = g.agg_bertscore_f1(items)
    assert mean == pytest.approx(sum(f1s) / 6)
    assert g.agg_score([p["score"] for p in per_sample]) == mean
    config = g.agg_bertscore_config([p["bertscore_config"] for p in per_sample])
    version = g.bert_score_version()
    assert config == f"{tiny_bert}, layer 2, bert-score {version}, 1 of 8 texts cut to 510 tokens"
    # One model, one batched call with the 4 non-empty candidates; the 800-char one cut to 510.
    assert counting_scorer["init"] == 1 and counting_scorer["score"] == [4]
    assert max(len(c) for c in counting_scorer["cands"]) == 510
    # A second task reuses the same scorer: still one construction, one more call.
    references = [d["reference"] for d in demo_docs("legal_analysis")]
    g.agg_bertscore_f1([p["bertscore_f1"] for p in _items("legal_analysis", references)])
    assert counting_scorer["init"] == 1 and counting_scorer["score"] == [4, 6]
    assert g.bert_scorer().stats == {"loads": 1, "score_calls": 2}
    assert "BERTScore model" in caplog.text and "layer 2" in caplog.text


def test_truncation_is_explicit(tiny_bert):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(tiny_bert), use_fast=False)
    assert g.truncate_to_tokens(tok, "今天" * 300, 510) == ("今天" * 255, True)
    assert g.truncate_to_tokens(tok, "今天天气很好", 510) == ("今天天气很好", False)


def test_missing_model_is_reported_missing_not_zero(caplog):
    caplog.set_level(logging.WARNING)
    # A folder that is gone by scoring time (a run's build refuses a missing one: test_options).
    config = RunConfig("case_report", bertscore_model="/nonexistent/bert-dir")
    items = [p["bertscore_f1"] for p in _items("case_report", [d["reference"] for d in demo_docs("case_report")])]
    value = g.agg_bertscore_f1(items, config)
    assert math.isnan(value) and g.is_missing(value)
    assert math.isnan(g.agg_score(items, config))
    assert g.agg_bertscore_config(["case_report"]) == "MISSING: no such directory '/nonexistent/bert-dir'"
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 1  # logged once per task even though two metrics need it
    assert "MISSING (reported as NaN, not 0)" in errors[0].getMessage()
    assert "/nonexistent/bert-dir" in errors[0].getMessage()


def test_no_hub_access_is_reported_missing(caplog):
    # HF_HUB_OFFLINE=1 and no cached bert-base-chinese: the load fails fast (2 s, no retries).
    from huggingface_hub import try_to_load_from_cache

    if isinstance(try_to_load_from_cache("bert-base-chinese", "config.json"), str):
        pytest.skip("bert-base-chinese is in the local hub cache: nothing is missing here")
    caplog.set_level(logging.ERROR)
    items = [["参考文本", "候选文本", "legal_analysis"]]
    assert math.isnan(g.agg_bertscore_f1(items))
    message = caplog.records[-1].getMessage()
    assert "could not load BERTScore model 'bert-base-chinese' (default)" in message
    assert "bertscore_model=<dir>" in message and "cpsd-rescore" in message
    assert g.describe_bertscore("legal_analysis").startswith("MISSING: cannot load 'bert-base-chinese'")
    g.agg_bertscore_f1([["参考", "另一个候选", "legal_analysis"]])
    assert g.bert_scorer().stats["loads"] == 0 and len(g.bert_scorer().failed) == 1  # the failed load is not retried


def test_bertscore_switched_off_and_all_empty_outputs():
    configure("case_summary", {"bertscore_model": "none"})
    assert math.isnan(g.agg_bertscore_f1([["参考", "候选", "case_summary"]]))
    assert g.describe_bertscore("case_summary") == "MISSING: switched off (none)"
    # Nothing to score: the value is known without any model (0), and no model is loaded.
    gone = RunConfig("case_report", bertscore_model="/nonexistent")
    assert g.agg_bertscore_f1([["参考", "", "case_report"], ["参考", " ", "case_report"]], gone) == 0.0
    assert g.describe_bertscore("case_report").startswith("model not loaded: every output was empty")


def test_settings_precedence_and_layers(monkeypatch):
    s = g.bertscore_settings("case_summary")
    assert (s.model, s.num_layers, s.origin) == ("bert-base-chinese", 8, "default")
    configure("case_summary", {"bertscore_num_layers": 6})  # a task id reads the configuration it was built with
    assert g.bertscore_settings("case_summary").num_layers == 6
    reset_run_configs()
    monkeypatch.setenv(g.ENV_MODEL, "/models/models--bert-base-chinese/snapshots/abc123")
    s = g.bertscore_settings("case_summary")
    assert (s.num_layers, s.origin) == (8, "$CPSD_BERTSCORE_MODEL")
    given = RunConfig.from_metadata("case_summary", {"bertscore_model": "bert-base-chinese",
                                                     "bertscore_num_layers": "6"})
    assert (given.bertscore_model, given.bertscore_num_layers) == ("bert-base-chinese", 6)  # cast once
    s = g.bertscore_settings(RunConfig("case_summary", bertscore_model="/models/my-bert", bertscore_num_layers=6))
    assert (s.model, s.num_layers, s.origin) == ("/models/my-bert", 6, "--metadata bertscore_model")
    assert g.bertscore_settings(RunConfig("case_summary", bertscore_model="/models/my-bert")).num_layers is None
    monkeypatch.setenv(g.ENV_NUM_LAYERS, "eight")
    with pytest.raises(ValueError, match="CPSD_BERTSCORE_NUM_LAYERS='eight'"):
        g.bertscore_settings(RunConfig("case_summary"))


# --------------------------------------------------------------------------- baseline and YAML

def test_lead_takes_first_sentences_up_to_the_budget():
    assert sentences("甲说：“好。”乙！\n丙") == ["甲说：“好。”", "乙！", "丙"]
    assert lead("第一句。第二句！第三句？", 4) == "第一句。"
    assert lead("第一句。第二句！第三句？", 5) == "第一句。第二句！"
    assert lead("人名：张某\n时间：昨天", 100) == "人名：张某。时间：昨天。"
    assert lead("", 100) == ""


def _render(task: str, doc: dict) -> str:
    import jinja2

    cfg = yaml.load((YAML_DIR / f"cpsd_{task}.yaml").read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    return jinja2.Template(cfg["doc_to_text"]).render(**doc)


@pytest.mark.parametrize("task", TASKS)
def test_prompts_and_baseline_answers(task):
    doc = demo_docs(task)[0]
    prompt = _render(task, doc)
    assert identify(prompt)[0] == task
    for part in ("【角色】", "【任务】", "【输入】", "【约束】"):
        assert part in prompt
    assert answer(prompt) == lead(doc["input"], LEAD_CHARS[task])


@pytest.mark.parametrize("task", TASKS)
def test_generation_kwargs_do_not_cut_chinese_text(task):
    cfg = yaml.load((YAML_DIR / f"cpsd_{task}.yaml").read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    kwargs = cfg["generation_kwargs"]
    assert kwargs["until"] == ["<|im_end|>", "<|endoftext|>", "</s>", "<|eot_id|>"]
    # Sized as 2 x (longest stand-in reference) x 1.5 tokens per character (README).
    assert int(kwargs["max_gen_toks"]) == {"case_summary": 1280, "case_report": 1536, "legal_analysis": 2048}[task]
    longest = max(len(d["reference"]) for d in demo_docs(task))
    assert int(kwargs["max_gen_toks"]) >= 3 * longest


# --------------------------------------------------------------------------- real CLI + rescoring

def _row(results: dict, task: str) -> dict:
    return {k.split(",")[0]: v for k, v in results["results"][f"cpsd_{task}"].items() if k.endswith(",none")}


@pytest.mark.e2e
def test_cli_with_tiny_bert_then_rescore(tmp_path, baseline_url, hf_home, tiny_bert):
    metadata = ("--metadata", f"bertscore_model={tiny_bert}", "bertscore_num_layers=2")
    run = run_cpsd_eval("cpsd_tg", baseline_url, tmp_path / "out", hf_home, extra=metadata)
    res = run["results"]
    rows = {t: _row(res, t) for t in TASKS}
    for task, row in rows.items():
        assert 0.0 < row["bertscore_f1"] <= 1.0 and row["score"] == row["bertscore_f1"]
        assert all(0.0 < row[m] < 1.0 for m in ALL_TEXT), row
        assert row["empty_rate"] == 0.0
        assert row["bertscore_config"].startswith(f"{tiny_bert}, layer 2, bert-score ")
        assert len(run["samples"][f"cpsd_{task}"]) == 6
    group = {k.split(",")[0]: v for k, v in res["groups"]["cpsd_tg"].items() if k.endswith(",none")}
    assert group["score"] == pytest.approx(sum(r["score"] for r in rows.values()) / 3)
    assert "loaded in" in run["stderr"]
    # The baseline really is LEAD: the logged output of the first summary.
    first = run["samples"]["cpsd_case_summary"][0]
    assert first["filtered_resps"][0] == lead(first["doc"]["input"], LEAD_CHARS["case_summary"])

    # Re-scoring the sample log (no model call) reproduces every figure of the run.
    g.reset_bertscore_state()
    out_json = tmp_path / "rescored.json"
    status = rescore.main([str(tmp_path / "out"), "--bertscore-model", str(tiny_bert),
                          "--num-layers", "2", "--out", str(out_json)])
    assert status == 0
    rescored = json.loads(out_json.read_text(encoding="utf-8"))
    (run_name, data), = rescored["runs"].items()
    for task in TASKS:
        for metric in ("bertscore_f1", *ALL_TEXT, "score", "empty_rate", "bertscore_config"):
            expected = rows[task][metric]
            got = data["results"][f"cpsd_{task}"][metric]
            assert got == (pytest.approx(expected, abs=1e-6) if isinstance(expected, float) else expected)
    assert data["groups"]["cpsd_tg"]["score"] == pytest.approx(group["score"], abs=1e-6)


@pytest.mark.e2e
def test_cli_predict_only_then_rescore(tmp_path, baseline_url, hf_home, tiny_bert):
    run_cpsd_eval("cpsd_case_report", baseline_url, tmp_path / "out", hf_home,
                  extra=("--predict_only", "--limit", "3"))
    g.reset_bertscore_state()
    out_json = tmp_path / "rescored.json"
    status = rescore.main([str(tmp_path / "out"), "--bertscore-model", str(tiny_bert),
                          "--num-layers", "2", "--out", str(out_json)])
    assert status == 0
    (_, data), = json.loads(out_json.read_text(encoding="utf-8"))["runs"].items()
    row = data["results"]["cpsd_case_report"]
    assert row["n"] == 3 and 0.0 < row["bertscore_f1"] <= 1.0
    # Same values as scoring the three LEAD outputs directly.
    docs = demo_docs("case_report")[:3]
    direct = [g.text_scores(lead(d["input"], LEAD_CHARS["case_report"]), d["reference"]) for d in docs]
    assert row["rougeL_char"] == pytest.approx(sum(s["rougeL_char"] for s in direct) / 3, abs=1e-12)


def test_rescore_exit_status_bertscore_switched_off_vs_missing(tmp_path, capsys):
    # A hand-made sample log (no CLI run): one case_summary sample, output = the reference.
    doc = demo_docs("case_summary")[0]
    run_dir = tmp_path / "out" / "model"
    run_dir.mkdir(parents=True)
    sample = {"doc_id": 0, "doc": doc, "filter": "none", "resps": [[doc["reference"]]],
              "filtered_resps": [doc["reference"]]}
    (run_dir / "samples_cpsd_case_summary_2024-01-01T00-00-00.jsonl").write_text(
        json.dumps(sample, ensure_ascii=False) + "\n", encoding="utf-8")
    # Switched off on purpose: not an error.
    out_json = tmp_path / "off.json"
    assert rescore.main([str(tmp_path / "out"), "--bertscore-model", "none", "--tasks", "case_summary",
                         "--out", str(out_json)]) == 0
    err = capsys.readouterr().err
    assert "BERTScore was switched off" in err and "see the error above" not in err
    row = json.loads(out_json.read_text(encoding="utf-8"))["runs"]["model"]["results"]["cpsd_case_summary"]
    assert row["bertscore_f1"] is None and row["bertscore_config"] == "MISSING: switched off (none)"
    assert row["n"] == 1 and row["rougeL_char"] == pytest.approx(1.0, abs=1e-7)
    # A model that cannot be loaded: still exit status 1 with the pointer to the error.
    g.reset_bertscore_state()
    assert rescore.main([str(tmp_path / "out"), "--bertscore-model", str(tmp_path / "no_such_bert"),
                         "--tasks", "case_summary", "--out", str(tmp_path / "missing.json")]) == 1
    err = capsys.readouterr().err
    assert "BERTScore is MISSING" in err and "switched off" not in err


@pytest.mark.e2e
def test_cli_without_bert_model_reports_missing(tmp_path, baseline_url, hf_home):
    """The default model (bert-base-chinese) not in the hub cache, the hub offline: the run goes
    through and reports BERTScore as missing, never 0 (a model *folder* that cannot be used stops the
    run before any request instead: tests/test_harness_guards.py)."""
    from huggingface_hub import try_to_load_from_cache

    if isinstance(try_to_load_from_cache("bert-base-chinese", "config.json"), str):
        pytest.skip("bert-base-chinese is in the local hub cache: nothing is missing here")
    run = run_cpsd_eval("cpsd_tg", baseline_url, tmp_path / "out", hf_home, extra=("--limit", "2"))
    res = run["results"]
    for task in TASKS:
        row = _row(res, task)
        assert math.isnan(row["bertscore_f1"]) and math.isnan(row["score"])
        assert row["bertscore_config"].startswith("MISSING: cannot load 'bert-base-chinese'")
        assert 0.0 < row["rougeL_char"] < 1.0  # the other metrics are unaffected
    group = res["groups"]["cpsd_tg"]
    assert math.isnan(group["score,none"]) and 0.0 < group["bleu_char,none"] < 1.0
    assert run["stderr"].count("MISSING (reported as NaN, not 0)") == 3
    assert "NaN" in run["stdout"] or "nan" in run["stdout"]
