"""Leaderboard, bootstrap, plots and error analysis over REAL lm-eval output folders.

Two harness runs on the demo data are made once per module with the real CLI: the rule baseline
(model ``baseline``) and a loopback "variant" model that answers the baseline's label in five
deterministic styles (bare label, bare label, label in a sentence, refusal, off-task) so every
error class (docs/metrics.md#error-classes) occurs. Other tables are tested with hand-built results files.

Over 400 lines on purpose: the two real harness runs are a module-scoped fixture (two cpsd-eval
launches), made once for every test of the reporting layer that reads them.
"""

from __future__ import annotations

import csv
import json
import logging
import math
import os
import shutil
import subprocess
import sys
import threading
import zlib
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

from cpsd_tasks.reading import READER_VERSION
from cpsd_tasks.report import aggregations, cli, errors, files, fonts, jsonio, plots, render, runs, stats, tables
from cpsd_tasks.baseline import answer
from cpsd_tasks.tasks import get_task

from conftest import ROOT, SHARED_DATA, needs_shared_data, run_cpsd_eval

CLF = ("sentiment", "rumor", "fraud_detection", "incident_classification")


# --------------------------------------------------------------------------- a second "model"

def variant_answer(prompt: str) -> str:
    """The baseline's label, in one of five styles chosen by a CRC of the prompt (deterministic)."""
    label = answer(prompt)
    style = zlib.crc32(prompt.encode("utf-8")) % 5
    return [label, label, f"我认为这条属于{label}。", "抱歉，我无法回答这个问题。", "好的，收到。"][style]


class _VariantHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet
        pass

    def do_POST(self):  # noqa: N802
        payload = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode("utf-8"))
        prompt = [m for m in payload["messages"] if m.get("role") == "user"][-1]["content"]
        body = json.dumps({"id": "variant", "object": "chat.completion", "created": 0, "model": payload.get("model"),
                           "choices": [{"index": 0, "finish_reason": "stop",
                                        "message": {"role": "assistant", "content": variant_answer(prompt)}}],
                           "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}},
                          ensure_ascii=False).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def variant_url():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _VariantHandler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/v1/chat/completions"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory, baseline_url, variant_url, hf_home):
    """Two real harness output folders on the demo data: ``baseline`` and ``variant``."""
    base = tmp_path_factory.mktemp("lb_runs")
    variant_args = f"base_url={variant_url},model=variant,num_concurrent=4,max_retries=2"
    with ThreadPoolExecutor(2) as pool:  # two subprocesses at once: same CPU, half the wall time
        fa = pool.submit(run_cpsd_eval, "cpsd_clf", baseline_url, base / "out_a", hf_home)
        fb = pool.submit(run_cpsd_eval, "cpsd_clf", variant_url, base / "out_b", hf_home,
                         extra=("--model_args", variant_args))
        a, b = fa.result(), fb.result()
    return {"a": base / "out_a", "b": base / "out_b", "res_a": a["results"], "res_b": b["results"]}


@pytest.fixture(scope="module")
def rows(two_runs):
    return tables.build_rows(runs.load_runs([two_runs["a"], two_runs["b"]]), with_paper=True)


def md_rows(markdown: str) -> dict[str, list[str]]:
    """Markdown table lines -> {"<model> | <data>": [cells]}."""
    out = {}
    for line in markdown.splitlines():
        if line.startswith("| ") and not line.startswith("| Model"):
            cells = [c.strip() for c in line.strip()[1:-1].split(" | ")]
            out[f"{cells[0]} | {cells[1]}"] = cells[2:]
    return out


# --------------------------------------------------------------------------- loading and tables

@pytest.mark.e2e
def test_runs_loaded_with_names_data_and_values(two_runs, rows):
    run_rows = [r for r in rows if r.run is not None]
    assert [(r.name, r.data, r.label) for r in run_rows] == [("baseline", "demo", "baseline (demo)"),
                                                             ("variant", "demo", "variant (demo)")]
    for r, res in zip(run_rows, (two_runs["res_a"], two_runs["res_b"])):
        assert set(r.tasks) == set(CLF)
        for t in CLF:
            assert r.value(t, "acc") == res["results"][f"cpsd_{t}"]["acc,none"]
            assert r.value(t, "f1_macro") == res["results"][f"cpsd_{t}"]["f1_macro,none"]
            assert r.tasks[t].n == len(r.tasks[t].samples())
    assert sum(r.is_paper for r in rows) == 14


@pytest.mark.e2e
def test_markdown_table3_cells(two_runs, rows):
    md = render.to_markdown(tables.TABLES[0], rows, notes=render.table_notes(rows))
    cells = md_rows(md)
    res = two_runs["res_a"]["results"]
    assert cells["baseline | demo‡"] == [f"{res[f'cpsd_{t}']['acc,none']:.4f}" for t in CLF]
    assert cells["GPT-4 | published† (private data)"] == ["0.7533", "0.8975", "0.8600", "1.0000"]
    assert cells["Atom-1B | published† (private data)"] == ["0.0516", "0.0600", "0.4750", "0.0100"]
    assert list(cells)[:2] == ["baseline | demo‡", "variant | demo‡"]  # runs first, paper after
    assert render.PAPER_NOTE in md and render.DEMO_NOTE in md and "PRIVATE" in md
    # The demo runs have no IE task: blank cells, not 0.
    ie = md_rows(render.to_markdown(tables.TABLES[1], rows))
    assert ie["variant | demo‡"] == [""] * 9
    assert ie["GPT-4 | published† (private data)"][:3] == ["0.6721", "0.6352", "0.6295"]


@pytest.mark.e2e
def test_csv_round_trip_with_ci(rows):
    table = tables.TABLES[0]
    some = [r for r in rows if r.run is not None] + [r for r in rows if r.is_paper][:2]
    stats.add_cis(some, [table], n_boot=200, seed=7)
    text = render.to_csv(table, some, with_ci=True)
    back = render.read_csv_table(text)
    assert [b["model"] for b in back] == [r.name for r in some]
    assert list(back[0]) == render.csv_header(table, with_ci=True)
    for r, b in zip(some, back):
        assert b["data"] == r.data
        for c in table.columns:
            assert b[c.key] == r.value(c.task, c.metric)
            ci = r.ci.get((c.task, c.metric))
            assert (b[f"{c.key}.ci_low"], b[f"{c.key}.ci_high"]) == (ci if ci else (None, None))
    assert back[-1]["source"] == "published (private CPSDBench data)"
    assert back[-1][f"{table.columns[0].key}.ci_low"] is None


@pytest.mark.e2e
def test_latex_rendering(rows):
    tex = render.to_latex(tables.TABLES[0], rows, notes=render.table_notes(rows))
    assert r"\toprule" in tex and r"\bottomrule" in tex and tex.count(r"\midrule") == 2  # header + run|paper
    assert r"published$^\dagger$ (private data)" in tex and r"demo$^\ddagger$" in tex
    assert "GPT-4 & published" in tex and "0.7533 & 0.8975 & 0.8600 & 1.0000" in tex
    assert render.latex_escape("a_b & 50% #1 {x}") == r"a\_b \& 50\% \#1 \{x\}"


# --------------------------------------------------------------------------- uncertainty

@pytest.mark.e2e
def test_bootstrap_ci_contains_point_estimate(rows):
    for r in (x for x in rows if x.run is not None):
        for t in CLF:
            tr = r.tasks[t]
            for metric, n_boot in (("acc", 1000), ("f1_macro", 100)):
                _, items = stats.metric_items(tr, metric)
                fn = aggregations.aggregation_for(tr, metric)
                point, lo, hi = stats.bootstrap_ci(items, fn, n_boot, 1234,
                                                   stats.per_sample_scores(tr, metric, items, fn))
                assert point == pytest.approx(r.value(t, metric), abs=1e-12)
                assert lo <= point <= hi, (r.label, t, metric, lo, point, hi)
                if metric == "acc":
                    assert stats.cell_ci(tr, metric, n_boot, 1234) == (lo, hi)  # seeded: same again
    # f1_macro resolves to the task's own aggregation, not a mean.
    tr = rows[0].tasks["rumor"]
    assert aggregations.aggregation_for(tr, "f1_macro").__qualname__ == "agg_f1_macro"
    assert aggregations.aggregation_for(tr, "acc") is aggregations.mean_aggregation


def test_aggregations_come_from_the_specs_by_name():
    from cpsd_tasks import specs

    def task_run(task, metric_list=()):
        return runs.TaskRun(task, f"cpsd_{task}", {}, "none", {}, {"metric_list": list(metric_list)}, None, None)

    assert aggregations.aggregation_for(task_run("drug_ner"), "f1_micro") is specs.aggregation("drug_ner", "f1_micro")
    assert aggregations.aggregation_for(task_run("police_exam"), "acc_multi").__qualname__ == "agg_acc_multi"
    assert aggregations.aggregation_for(task_run("case_reading"), "total") is aggregations.mean_aggregation
    # A metric the specs do not declare (an older run): only the built-in name the run logged counts.
    old = task_run("rumor", [{"metric": "alpha", "aggregation": "mean"},
                             {"metric": "f1_old", "aggregation": "def agg_f1_macro(items):\n    ..."}])
    assert aggregations.aggregation_for(old, "alpha") is aggregations.mean_aggregation
    assert aggregations.aggregation_for(old, "f1_old") is None  # no guessing by function name
    assert aggregations.mean_aggregation([1, "N/A", None, 0.5]) == 0.75


def test_bootstrap_by_hand():
    assert stats.bootstrap_ci([1.0, 1.0, 1.0], n_boot=50) == (1.0, 1.0, 1.0)
    assert stats.bootstrap_ci([], n_boot=50) is None
    point, lo, hi = stats.bootstrap_ci([0.0, 1.0] * 50, per_sample=np.array([0.0, 1.0] * 50), n_boot=2000, seed=1)
    assert point == 0.5 and 0.38 < lo < 0.45 and 0.55 < hi < 0.62  # binomial: 0.5 ± 1.96·0.05
    with pytest.raises(ValueError):
        stats.bootstrap_ci([1.0], n_boot=0)


@pytest.mark.e2e
def test_paired_test_identical_runs_no_difference(two_runs):
    twin = tables.build_rows(runs.load_runs([two_runs["a"], two_runs["a"]]))
    assert [r.name for r in twin] == ["baseline", "baseline (2)"]
    results = stats.compare_rows(twin[0], twin[1], n_boot=300)
    assert [r.task for r in results] == list(CLF)
    for r in results:
        assert r.delta == 0.0 and r.p == 1.0 and r.better == "identical" and r.ci == (0.0, 0.0)
    f1 = stats.compare_rows(twin[0], twin[1], metric="f1_macro", n_boot=100)
    assert all(r.delta == 0.0 and r.p == 1.0 for r in f1)


@pytest.mark.e2e
def test_paired_test_baseline_beats_variant(rows):
    a, b = tables.find_row(rows, "baseline"), tables.find_row(rows, "2")
    assert b.name == "variant"
    results = {r.task: r for r in stats.compare_rows(a, b, n_boot=1000)}
    inc = results["incident_classification"]
    assert inc.n == 40 and inc.a == a.value("incident_classification", "acc")
    assert inc.delta == pytest.approx(inc.a - inc.b) and inc.delta > 0.3
    assert inc.p < 0.01 and inc.better == "baseline (demo)"
    with pytest.raises(KeyError, match="run rows are"):
        tables.find_row(rows, "GPT-4")


def test_paired_bootstrap_by_hand():
    a, b, delta, ci, p = stats.paired_bootstrap([1.0] * 4, [0.0] * 4, n_boot=99)
    assert (a, b, delta, ci) == (1.0, 0.0, 1.0, (1.0, 1.0))
    assert p == pytest.approx(1 / 100)  # no δ* is as far from δ as δ from 0
    with pytest.raises(ValueError):
        stats.paired_bootstrap([1.0], [1.0, 0.0])


# --------------------------------------------------------------------------- error taxonomy

LONG = "很长" * 5000 + "结论：谣言"
HAND_LABELLED = [  # (task, output, gold, class worked out by hand from docs/metrics.md#error-classes)
    ("rumor", "谣言", "谣言", "correct"),
    ("rumor", "  **谣言**  ", "谣言", "correct"),
    ("rumor", "答案：非谣言", "非谣言", "correct"),
    ("rumor", "【谣言】", "谣言", "correct"),
    ("rumor", "<think>先想一想……</think>谣言", "谣言", "correct"),
    ("rumor", "这条微博是谣言，因为内容夸大。", "谣言", "format"),
    ("rumor", "不是谣言", "非谣言", "format"),
    ("rumor", LONG, "谣言", "format"),
    ("rumor", "第一行\u2028第二行：谣言", "谣言", "format"),
    ("sentiment", "正面", "积极", "format"),
    ("rumor", "非谣言", "谣言", "content"),
    ("rumor", "我认为是非谣言。", "谣言", "content"),
    ("sentiment", "中立", "消极", "content"),
    ("rumor", "抱歉，我无法回答这个问题。", "谣言", "refusal"),
    ("rumor", "", "非谣言", "refusal"),
    ("rumor", None, "谣言", "refusal"),
    ("rumor", "<think>还在想", "谣言", "refusal"),
    ("rumor", "今天天气不错。", "谣言", "instruction"),
    ("rumor", "谣言还是非谣言，很难说", "谣言", "instruction"),
]


def hand_judgements():
    out = []
    for task in ("rumor", "sentiment"):
        samples = [{"doc_id": i, "doc": {"id": f"h-{i}", "text": f"输入{i}\u2028第二行", "label": gold, "task": task},
                    "filtered_resps": [output], "resps": [[output]], "filter": "none"}
                   for i, (t, output, gold, _) in enumerate(HAND_LABELLED) if t == task]
        out += errors.judge_task_samples("hand", "demo", task, samples)
    return out


def test_taxonomy_counts_on_hand_labelled_outputs():
    js = hand_judgements()
    expected = Counter((t, cls) for t, _, _, cls in HAND_LABELLED)
    counts = errors.error_counts(js)
    for task in ("rumor", "sentiment"):
        got = counts[("hand", task)]
        assert {c: n for c, n in got.items() if n} == {c: n for (t, c), n in expected.items() if t == task}
    assert Counter(j.error_class for j in js) == Counter(
        {"correct": 5, "format": 5, "content": 3, "refusal": 4, "instruction": 2})
    by_id = {j.id: j for j in js if j.task == "rumor"}
    assert by_id["h-6"].prediction == "非谣言"  # "不是谣言" names the other label
    assert by_id["h-15"].output is None and by_id["h-15"].prediction is None


@pytest.mark.e2e
def test_judge_is_the_task_judge_and_agrees_with_logged_acc(rows):
    from cpsd_tasks.classification import judge

    spec = get_task("rumor")
    for s in rows[1].tasks["rumor"].samples():
        cls, gold, pred = errors.judge_sample("rumor", s["doc"], s["filtered_resps"][0])
        assert cls == judge(s["filtered_resps"][0], gold, spec).error_class
        assert (cls == "correct") == (s["acc"] == 1.0)


@pytest.mark.e2e
def test_variant_run_has_every_error_class(rows):
    js = errors.judge_rows(rows)
    classes = Counter(j.error_class for j in js if j.model == "variant (demo)")
    assert set(classes) == {"correct", "format", "content", "refusal", "instruction"}
    assert not any(j.model == "baseline (demo)" and j.error_class in ("refusal", "instruction") for j in js)


def test_mistakes_export_utf8_readable(tmp_path):
    js = hand_judgements()
    paths = errors.write_mistakes(js, tmp_path)
    assert [p.name for p in paths] == ["mistakes.csv", "mistakes.jsonl", "error_counts.csv"]
    with paths[0].open(encoding="utf-8-sig", newline="") as f:
        recs = list(csv.DictReader(f))
    assert len(recs) == sum(j.error_class != "correct" for j in js) == 14
    assert recs[0]["task"] == "rumor" and recs[0]["error_class"] == "format" and recs[0]["gold"] == "谣言"
    raw = paths[1].read_text(encoding="utf-8")
    assert "\\u" not in raw and "这条微博是谣言" in raw and "\u2028" in raw
    lines = [json.loads(x) for x in raw.split("\n") if x.strip()]
    assert len(lines) == 14 and lines[0]["input"] == "输入5 第二行"  # excerpt collapses U+2028
    assert max(len(x["input"]) for x in lines) <= errors.EXCERPT_CHARS + 1
    counts = list(csv.DictReader(paths[2].open(encoding="utf-8")))
    assert counts[0] == {"model": "hand", "task": "rumor", "correct": "5", "format": "4", "content": "2",
                         "instruction": "2", "refusal": "4", "total": "17"}


def test_bugs_in_our_judges_surface(monkeypatch):
    from cpsd_tasks import classification

    def broken(*args, **kwargs):
        raise TypeError("judge() got an unexpected keyword argument 'spec'")

    monkeypatch.setattr(classification, "judge", broken)  # a bug in our own judge
    sample = {"doc_id": 3, "doc": {"id": "r3", "text": "x", "label": "谣言", "task": "rumor"},
              "filtered_resps": ["谣言"]}
    with pytest.raises(TypeError, match="unexpected keyword") as err:
        errors.judge_task_samples("m", "demo", "rumor", [sample])
    assert "rumor sample 3" in "".join(getattr(err.value, "__notes__", [])) or sys.version_info < (3, 11)


def test_sample_log_without_gold_fields_is_skipped_not_a_crash(caplog):
    caplog.set_level(logging.WARNING, logger="cpsd_tasks.report.errors")
    sample = {"doc_id": 0, "doc": {"id": "r0", "text": "x"}, "filtered_resps": ["谣言"]}
    assert errors.judge_task_samples("m", "demo", "rumor", [sample]) == []
    assert "rumor skipped for m (sample 0 of its log has no doc field 'label'" in caplog.text


def test_generation_and_missing_judges_are_skipped(caplog, monkeypatch):
    caplog.set_level(logging.INFO, logger="cpsd_tasks.report.errors")
    assert errors.judge_task_samples("m", "demo", "case_summary", [{"doc": {"input": "x", "reference": "y"}}]) == []
    assert "case_summary skipped (no per-sample error taxonomy" in caplog.text

    def missing(doc, output, options):
        raise ImportError("No module named 'cpsd_tasks.ie'")

    monkeypatch.setitem(errors.JUDGES, "ner", missing)
    sample = {"doc": {"id": "n1", "text": "x", "entities": [], "task": "drug_ner"}, "filtered_resps": ["[]"]}
    assert errors.judge_task_samples("m", "demo", "drug_ner", [sample]) == []
    assert "drug_ner skipped for m (judge unavailable: ImportError" in caplog.text


def test_qa_and_ie_adapters_use_the_task_judges():
    from cpsd_tasks import qa

    opts = [{"key": "A", "text": "拘留"}, {"key": "B", "text": "逮捕"}, {"key": "C", "text": "取保候审"}]
    exam = {"id": "e1", "task": "police_exam", "qtype": "多选", "answer": "AC", "options": opts,
            "question": "下列哪些是强制措施？"}
    for out in ("AC", "A、C", "答案：A和C，因为……", "B", "抱歉，我无法回答", None, "今天天气不错"):
        cls, gold, pred = errors.judge_sample("police_exam", exam, out)
        j = qa.judge_exam(out, "AC", "多选", opts)
        assert (cls, gold, pred) == (j.error_class, "AC", j.prediction)
    reading = {"id": "r1", "task": "case_reading", "qtype": "模糊", "answer": "北京市朝阳区", "context": "……",
               "question": "案发地点在哪里？"}
    for out in ("北京市朝阳区", "在北京市朝阳区的一家超市里，时间是晚上", "上海", ""):
        cls, _, _ = errors.judge_sample("case_reading", reading, out, {"tau_qa": 0.6})
        assert cls == qa.judge_reading(out, "北京市朝阳区", "模糊", 0.6).error_class
    assert errors.input_text(exam) == "下列哪些是强制措施？ A. 拘留 B. 逮捕 C. 取保候审"
    ie = pytest.importorskip("cpsd_tasks.ie")
    doc = {"id": "n1", "task": "drug_ner", "text": "张三贩卖海洛因。", "entities": [{"type": "人名", "text": "张三"}]}
    for out in ('[{"type": "人名", "text": "张三"}]', "[]", "抱歉", None):
        cls, gold, pred = errors.judge_sample("drug_ner", doc, out, {"alpha": 0.5, "tau": 0.8})
        assert cls == ie.judge(doc, out, 0.5, 0.8).error_class
        assert json.loads(gold) == [{"type": "人名", "text": "张三"}]


def test_qa_per_type_ci_uses_the_task_aggregation(tmp_path):
    recs = []
    for i, (qtype, ok) in enumerate([("判断", 1.0), ("判断", 0.0), ("精确", 1.0), ("模糊", 1.0), ("判断", 1.0)]):
        recs.append({"doc_id": i, "doc": {"id": f"q{i}", "task": "case_reading", "qtype": qtype, "answer": "是",
                                          "context": "c", "question": "q", "data_source": "demo"},
                     "filter": "none", "filtered_resps": ["是"], "total": ok,
                     "acc_judge": [qtype, ok] if qtype == "判断" else None})
    write_results(tmp_path / "qa", {"cpsd_case_reading": {"acc_judge,none": 2 / 3, "total,none": 0.8}}, {"model": "q"},
                  samples={"cpsd_case_reading": recs})
    (row,) = tables.build_rows(runs.load_runs([tmp_path / "qa"]))
    tr = row.tasks["case_reading"]
    fn = aggregations.aggregation_for(tr, "acc_judge")
    assert fn.__module__ == "cpsd_tasks.qa.hooks"
    assert fn(stats.metric_items(tr, "acc_judge")[1]) == pytest.approx(2 / 3)
    lo, hi = stats.cell_ci(tr, "acc_judge", n_boot=300)
    assert 0.0 <= lo <= 2 / 3 <= hi <= 1.0
    # from the task's YAML (no metric_list logged)
    assert aggregations.aggregation_for(tr, "total") is aggregations.mean_aggregation


# --------------------------------------------------------------------------- hand-built results

def write_results(folder: Path, results: dict, model_args, samples: dict | None = None, metadata=None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    ts = "2026-01-01T00-00-00.000001"
    configs = {t: {"metadata": dict(metadata or {})} for t in results}
    (folder / f"results_{ts}.json").write_text(json.dumps(
        {"results": results, "configs": configs, "config": {"model": "hf", "model_args": model_args, "limit": None},
         "n-samples": {t: {"original": 2, "effective": 2} for t in results}}, ensure_ascii=False), encoding="utf-8")
    for task, recs in (samples or {}).items():
        (folder / f"samples_{task}_{ts}.jsonl").write_text(
            "\n".join(json.dumps(r, ensure_ascii=False) for r in recs) + "\n", encoding="utf-8")
    return folder


def test_the_reader_pairs_results_with_their_sample_logs(tmp_path):
    """One folder, two runs (an older cpsd_rumor+cpsd_case_summary run, a newer cpsd_rumor run):
    each results file gets the sample logs of its own time stamp; the newest wins per task."""
    old, new = "2026-01-01T00-00-00.000001", "2026-01-02T00-00-00.000001"
    folder = tmp_path / "out" / "m"
    folder.mkdir(parents=True)
    for ts, tasks, acc in ((old, ("cpsd_rumor", "cpsd_case_summary"), 0.25), (new, ("cpsd_rumor",), 0.75)):
        (folder / f"results_{ts}.json").write_text(json.dumps(
            {"results": {t: {"acc,none": acc, "bleu_char,none": 0.5} for t in tasks},
             "config": {"model": "hf", "model_args": {"pretrained": "m"}}}), encoding="utf-8")
        for t in tasks:
            (folder / f"samples_{t}_{ts}.jsonl").write_text(
                json.dumps({"doc_id": 0, "doc": {"id": f"{ts[:10]}", "text": "x\u2028y"}, "acc": acc},
                           ensure_ascii=False) + "\n\n",
                encoding="utf-8")
    assert files.sample_logs_of(folder / f"results_{old}.json") == {
        "cpsd_rumor": folder / f"samples_cpsd_rumor_{old}.jsonl",
        "cpsd_case_summary": folder / f"samples_cpsd_case_summary_{old}.jsonl"}
    (run,) = runs.load_runs([tmp_path / "out"])
    assert run.tasks["rumor"].metrics["acc"] == 0.75 and run.tasks["case_summary"].metrics["acc"] == 0.25
    assert run.tasks["rumor"].samples_path.name == f"samples_cpsd_rumor_{new}.jsonl"
    assert [s["doc"]["id"] for s in run.tasks["rumor"].samples()] == ["2026-01-02"]
    assert run.tasks["rumor"].samples()[0]["doc"]["text"] == "x\u2028y"  # one record, U+2028 kept
    # Rescoring finds the newest log per task; the results written with a log are its own.
    assert files.find_sample_logs(tmp_path / "out", ("rumor", "case_summary")) == {folder: {
        "rumor": folder / f"samples_cpsd_rumor_{new}.jsonl",
        "case_summary": folder / f"samples_cpsd_case_summary_{old}.jsonl"}}
    assert files.results_of_samples(folder / f"samples_cpsd_case_summary_{old}.jsonl")["results"][
        "cpsd_case_summary"]["acc,none"] == 0.25
    assert files.results_of_samples(tmp_path / "samples_cpsd_x_2026.jsonl") is None
    # The tests' plain view: the last results file, the newest log per task.
    out = runs.read_output(tmp_path / "out")
    assert list(out.results["results"]) == ["cpsd_rumor"]
    assert {t: [s["acc"] for s in recs] for t, recs in out.samples.items()} == {
        "cpsd_rumor": [0.75], "cpsd_case_summary": [0.25]}
    with pytest.raises(FileNotFoundError, match="no results_"):
        runs.read_output(tmp_path / "nothing")


def test_hand_built_ie_qa_tg_rows(tmp_path):
    write_results(tmp_path / "m1", {
        "cpsd_drug_ner": {"precision,none": 0.5, "recall,none": "N/A", "f1,none": float("nan"),
                          "f1_stderr,none": "N/A"},
        "cpsd_case_reading": {"acc_judge,none": 5 / 7, "acc_exact,none": 0.25, "total,none": 0.6},
        "cpsd_case_summary": {"bertscore_f1,none": float("nan"), "bleu_char,none": 0.1},
        "cpsd_ie": {"f1,none": 0.9},  # a group row: ignored
    }, "pretrained=/models/qwen-7b/,dtype=float32", metadata={"data_dir": "/data/cpsd"})
    write_results(tmp_path / "m2", {"cpsd_rumor": {"acc,none": 0.75}}, {"model": "Qwen/Qwen2-7B-Instruct"})
    loaded = runs.load_runs([tmp_path])
    assert [r.name for r in loaded] == ["qwen-7b", "Qwen/Qwen2-7B-Instruct"]
    rows = tables.build_rows(loaded)
    assert [(r.name, r.data) for r in rows] == [("qwen-7b", "/data/cpsd"), ("Qwen/Qwen2-7B-Instruct", "unknown")]
    t4 = md_rows(render.to_markdown(tables.TABLES[1], rows))
    assert t4["qwen-7b | /data/cpsd"] == ["0.5000", "", ""] + [""] * 6
    t5 = md_rows(render.to_markdown(tables.TABLES[2], rows))
    assert t5["qwen-7b | /data/cpsd"] == ["0.7143", "0.2500", "", "0.6000", "", "", "", ""]
    t6 = md_rows(render.to_markdown(tables.TABLES[3], rows))
    assert t6["qwen-7b | /data/cpsd"] == ["", "0.1000", "", "", "", "", ""]
    assert t6["Qwen/Qwen2-7B-Instruct | unknown§"] == [""] * 7
    assert tables.dimension_scores(rows[0]) == {"CLF acc": None, "IE F1": None, "QA total": 0.6,
                                                "TG BERTScore F1": None}
    assert tables.dimension_scores(rows[1])["CLF acc"] == 0.75
    assert render.UNKNOWN_NOTE in "\n".join(render.table_notes(rows))
    # CSV keeps blanks blank.
    back = render.read_csv_table(render.to_csv(tables.TABLES[1], rows))
    assert back[0]["drug_ner.precision"] == 0.5
    assert back[0]["drug_ner.recall"] is None and back[0]["drug_ner.f1"] is None


def test_signatures_kept_compared_and_used_by_the_error_analysis(tmp_path):
    sig = {"cpsd_tasks": "0.1.0", "task": "drug_ner", "prompt": "sha256:aa", "data": "sha256:bb", "alpha": 0.5,
           "tau": 0.8, "string": "cpsd:0.1.0|task:drug_ner|prompt:sha256.aa|data:sha256.bb|alpha:0.5|tau:0.8"}
    doc = {"id": "n1", "task": "drug_ner", "text": "张三在朝阳区某小区贩卖海洛因。",
           "entities": [{"type": "地点", "text": "北京市朝阳区某小区"}]}
    sample = {"doc_id": 0, "doc": doc, "filtered_resps": ['[{"type": "地点", "text": "北京朝阳区某小区"}]'],
              "filter": "none", "tau": 0.5}  # a per-sample value (old logs) must not beat the signature
    for name, tau in (("a", 0.9), ("b", 0.8)):
        write_results(tmp_path / name, {"cpsd_drug_ner": {"f1,none": 0.5}}, {"model": name},
                      samples={"cpsd_drug_ner": [sample]}, metadata={"cpsd_signature": dict(sig, tau=tau)})
    rows = tables.build_rows(runs.load_runs([tmp_path / "a", tmp_path / "b"]))
    assert rows[1].tasks["drug_ner"].signature["tau"] == 0.8
    notes = render.table_notes(rows)
    assert any(n.startswith("drug_ner: rows scored differently (tau differ;") for n in notes), notes
    csv_rows = list(csv.DictReader(render.signatures_csv(rows).splitlines()))
    assert [r["model"] for r in csv_rows] == ["a", "b"] and csv_rows[0]["signature"] == sig["string"]
    # The judge uses the tau the run scored with: the two places are 8/9 = 0.89 similar.
    classes = {j.model: j.error_class for j in errors.judge_rows(rows)}
    assert classes == {"a": "content", "b": "format"}


@pytest.mark.e2e
def test_demo_and_real_rows_are_never_merged(two_runs, tmp_path):
    copy = tmp_path / "out_a"
    shutil.copytree(two_runs["a"], copy)
    path = next(copy.rglob("samples_cpsd_rumor_*.jsonl"))
    recs = jsonio.read_jsonl_lines(path)
    for r in recs:
        r["doc"]["data_source"] = "/srv/cpsd/rumor/test.jsonl"
        r["doc"]["id"] = r["doc"]["id"].replace("demo-", "real-")
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in recs) + "\n", encoding="utf-8")
    rows = tables.build_rows(runs.load_runs([copy], names=["mine"]))
    assert [(r.name, r.data, sorted(r.tasks)) for r in rows] == [
        ("mine [cpsd]", "/srv/cpsd", ["rumor"]),
        ("mine", "demo", ["fraud_detection", "incident_classification", "sentiment"])]
    cells = md_rows(render.to_markdown(tables.TABLES[0], rows))
    assert cells["mine [cpsd] | /srv/cpsd"][0] == "" and cells["mine [cpsd] | /srv/cpsd"][1] != ""
    assert cells["mine | demo‡"][1] == ""


def test_small_helpers():
    assert [jsonio.to_number(v) for v in (0.5, "0.25", "N/A", None, float("nan"), True, [1])] == \
        [0.5, 0.25, None, None, None, None, None]
    assert runs.model_name({"config": {"model_args": "pretrained=./ckpt/llama,dtype=bf16"}}, "x") == "llama"
    assert runs.model_name({"config": {"model_args": {}}, "model_name": "m"}, "x") == "m"
    assert runs.model_name({}, "folder") == "folder"
    assert [t.number for t in tables.select_tables("clf,tg")] == [3, 6, 7, 8]
    assert [t.number for t in tables.select_tables("5,table4_ie")] == [4, 5]
    with pytest.raises(ValueError, match="unknown table"):
        tables.select_tables("9")
    assert render.fmt(None) == "" and render.fmt(0.0) == "0.0000"


@needs_shared_data
def test_shipped_paper_reference_matches_source():
    src = json.loads((SHARED_DATA.parent / "reference" / "paper_results.json").read_text(encoding="utf-8"))
    assert tables.convert_paper_reference(src) == tables.paper_reference()
    ref = tables.paper_reference()
    assert len(ref["models"]) == 14 and "PRIVATE" in ref["note"]
    # the source note names the paper's tables and the project's own docs, not the unshipped specification
    assert ref["source"].startswith(src["source"].split(" Figures")[0]) and "docs/metrics.md" in ref["source"]
    for model in ref["models"].values():  # Total = (70 judge + 70 exact + 60 fuzzy) / 200 (docs/metrics.md)
        cr = model["case_reading"]
        assert abs(cr["total"] - (70 * cr["acc_judge"] + 70 * cr["acc_exact"] + 60 * cr["acc_fuzzy"]) / 200) < 0.003


# --------------------------------------------------------------------------- plots

def check_files(paths, stems):
    names = sorted(p.name for p in paths)
    assert names == sorted(f"{s}.{ext}" for s in stems for ext in ("png", "svg"))
    for p in paths:
        assert p.stat().st_size > 1000, p
        head = p.read_bytes()[:8]
        assert head.startswith(b"\x89PNG") if p.suffix == ".png" else b"<?xml" in head


@pytest.mark.e2e
@pytest.mark.parametrize("font", ["auto", "none"])
def test_plots_written_with_and_without_cjk_font(rows, tmp_path, monkeypatch, font):
    if font == "none":
        monkeypatch.setenv(fonts.FONT_ENV, "none")
    else:
        monkeypatch.delenv(fonts.FONT_ENV, raising=False)
    fonts.reset_font_cache()
    try:
        if font == "none":
            assert not fonts.use_cjk() and fonts.label_text("非谣言") == "non-rumor"
            assert fonts.safe("文心一言", "model 3") == "model 3" and fonts.safe("Qwen (通义)") == "Qwen"
        paths = plots.make_all(rows, tmp_path / "fig")
    finally:
        fonts.reset_font_cache()
    check_files(paths, ["radar", "error_types", "strict_vs_fuzzy", "label_distribution"])
    assert not (tmp_path / "fig" / "ie_f1_by_length.png").exists()  # no IE samples: skipped cleanly


def test_ie_f1_by_length_from_hand_built_samples(tmp_path):
    def rec(i, n_chars, f1):
        return {"doc_id": i, "doc": {"id": f"x-{i}", "text": "字" * n_chars, "entities": [], "task": "drug_ner",
                                     "data_source": "/d/drug_ner/test.jsonl"},
                "filter": "none", "filtered_resps": ["[]"], "f1": f1, "precision": f1, "recall": f1}
    write_results(tmp_path / "ie",
                  {"cpsd_drug_ner": {"f1,none": 0.625, "precision,none": 0.625, "recall,none": 0.625}},
                  {"model": "ie-model"},
                  samples={"cpsd_drug_ner": [rec(0, 50, 1.0), rec(1, 99, 0.5), rec(2, 150, 0.0), rec(3, 900, 1.0)]})
    rows = tables.build_rows(runs.load_runs([tmp_path / "ie"]))
    data = plots.ie_f1_by_length(rows)
    pts = data["drug_ner"]["ie-model"]
    assert [n for _, n in pts] == [2, 1, 0, 0, 1]
    assert pts[0][0] == 0.75 and pts[1][0] == 0.0 and math.isnan(pts[2][0]) and pts[4][0] == 1.0
    assert plots.bucket_labels() == ["0–99", "100–199", "200–399", "400–799", "800+"]
    fonts.apply_style()
    check_files(plots.plot_ie_f1_by_length(rows, tmp_path / "fig"), ["ie_f1_by_length"])
    radar = plots.plot_radar(rows, tmp_path / "fig")  # only the IE dimension: no crash
    check_files(radar, ["radar"])


# --------------------------------------------------------------------------- lone surrogates (issue 12, case 6)

SUR = "@@SUR@@"  # replaced by the six characters \ud835 in the file (valid JSON, a lone surrogate)


def surrogate_run(folder: Path) -> Path:
    """A hand-made harness output folder whose sample logs hold lone-surrogate escapes."""
    folder.mkdir(parents=True, exist_ok=True)
    ts = "2026-01-01T00-00-00.000001"
    samples = {
        "cpsd_rumor": [{"doc_id": 0, "doc": {"id": "s0", "task": "rumor", "text": f"帖子{SUR}内容", "label": "谣言"},
                        "filtered_resps": [f"我觉得{SUR}是谣言吧"], "resps": [[f"我觉得{SUR}是谣言吧"]],
                        "filter": "none", "acc": 0.0},
                       {"doc_id": 1, "doc": {"id": "s1", "task": "rumor", "text": "第二条", "label": "非谣言"},
                        "filtered_resps": [f"𝐀{SUR}"], "resps": [[f"𝐀{SUR}"]], "filter": "none", "acc": 0.0}],
        "cpsd_drug_ner": [{"doc_id": 0, "doc": {"id": "n0", "task": "drug_ner", "text": "张某贩卖海洛因。",
                                                "entities": [{"type": "人名", "text": "张某"}]},
                           "filtered_resps": [f'[{{"type": "人名", "text": "张{SUR}某"}}]'], "filter": "none"}],
        "cpsd_case_summary": [{"doc_id": 0, "doc": {"id": "g0", "task": "case_summary", "input": f"案情{SUR}",
                                                    "reference": "张某贩卖毒品被抓获。"},
                               "filtered_resps": [f"张某{SUR}贩卖毒品。"], "filter": "none"}],
    }
    results = {"cpsd_rumor": {"acc,none": 0.0}, "cpsd_drug_ner": {"f1,none": 0.0},
               "cpsd_case_summary": {"bleu_char,none": 0.1}}
    (folder / f"results_{ts}.json").write_text(json.dumps(
        {"results": results, "configs": {t: {"metadata": {}} for t in results},
         "config": {"model": "local-chat-completions", "model_args": f"model=m{SUR}x", "limit": None},
         "n-samples": {t: {"original": 2, "effective": 2} for t in results}},
        ensure_ascii=False).replace(SUR, "\\ud835"),
        encoding="utf-8")
    for task, recs in samples.items():
        lines = [json.dumps(r, ensure_ascii=False).replace(SUR, "\\ud835") for r in recs]
        lines.append(json.dumps({**recs[0], "doc_id": 9}, ensure_ascii=True).replace(SUR, "\\udc00"))
        (folder / f"samples_{task}_{ts}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


@pytest.mark.e2e
def test_leaderboard_and_mistakes_export_survive_lone_surrogates(tmp_path):
    run = surrogate_run(tmp_path / "runs" / "m")
    assert "\\ud835" in (run / "samples_cpsd_rumor_2026-01-01T00-00-00.000001.jsonl").read_text(encoding="utf-8")
    out = tmp_path / "report"
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "leaderboard.py"), str(tmp_path / "runs"),
                           "--out", str(out), "--no-plots"], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONIOENCODING="utf-8"), timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "UnicodeEncodeError" not in proc.stderr
    mistakes = [json.loads(x) for x in (out / "errors" / "mistakes.jsonl").read_text(encoding="utf-8").splitlines()]
    assert any(m["output"] == "我觉得\ufffd是谣言吧" for m in mistakes)
    assert any(m["input"] == "帖子\ufffd内容" for m in mistakes)
    assert any(m["task"] == "drug_ner" for m in mistakes)
    assert "\ufffd" in (out / "errors" / "mistakes.csv").read_text(encoding="utf-8-sig")
    # The writer cleans too, whatever its judgements came from.
    j = errors.SampleJudgement("m\ud835", "demo", "rumor", "x", None, "content", "谣言", None, "a\udc00b", "\ud835")
    paths = errors.write_mistakes([j], tmp_path / "direct")
    assert json.loads(paths[1].read_text(encoding="utf-8"))["output"] == "a\ufffdb"


def test_rescore_survives_lone_surrogates(tmp_path, capsys):
    import importlib.util

    surrogate_run(tmp_path / "runs" / "m")
    spec = importlib.util.spec_from_file_location("cpsd_rescore_sur", ROOT / "scripts" / "rescore.py")
    rescore = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rescore)
    out_json = tmp_path / "rescored.json"
    assert rescore.main([str(tmp_path / "runs"), "--bertscore-model", "none", "--tasks", "case_summary",
                         "--out", str(out_json)]) == 0
    report = json.loads(out_json.read_text(encoding="utf-8"))
    row = report["runs"]["m"]["results"]["cpsd_case_summary"]
    assert row["n"] == 2 and 0.0 < row["bleu_char"] < 1.0
    assert "UnicodeEncodeError" not in capsys.readouterr().err
    assert jsonio.loads_clean('{"a": "x\\ud835y", "b": ["\\udc00"], "c": "\\ud835\\udc00"}') == {
        "a": "x\ufffdy", "b": ["\ufffd"], "c": "𝐀"}  # a proper pair stays one character


# --------------------------------------------------------------------------- command line

@pytest.mark.e2e
def test_cli_one_command(two_runs, tmp_path):
    out = tmp_path / "report"
    env = dict(os.environ, CPSD_PLOT_FONT="none")
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "leaderboard.py"), str(two_runs["a"]),
                           str(two_runs["b"]), "--with-paper", "--ci", "--bootstrap", "200",
                           "--compare", "baseline", "variant", "--out", str(out)],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "### Table 3" in proc.stdout and "### Table 8" in proc.stdout
    assert "| GPT-4 | published† (private data) | 0.7533 |" in proc.stdout
    assert "### Paired bootstrap test: baseline (demo) (A) vs variant (demo) (B)" in proc.stdout
    names = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    expected = {f"{t.id}.csv" for t in tables.TABLES} | {"leaderboard.md", "leaderboard.tex",
                                                     "compare_baseline_demo_vs_variant_demo.md",
                                                     "compare_baseline_demo_vs_variant_demo.csv",
                                                     "errors/mistakes.csv", "errors/mistakes.jsonl",
                                                     "errors/error_counts.csv", "signatures.csv"}
    expected |= {f"figures/{s}.{e}" for s in ("radar", "error_types", "strict_vs_fuzzy", "label_distribution")
                 for e in ("png", "svg")}
    assert names == expected
    assert all((out / n).stat().st_size > 0 for n in names)
    assert "![radar](figures/radar.png)" in (out / "leaderboard.md").read_text(encoding="utf-8")
    back = render.read_csv_table((out / "table3_clf.csv").read_text(encoding="utf-8"))
    assert back[0]["model"] == "baseline"
    assert back[0]["rumor.acc.ci_low"] <= back[0]["rumor.acc"] <= back[0]["rumor.acc.ci_high"]
    cmp = list(csv.DictReader((out / "compare_baseline_demo_vs_variant_demo.csv").open(encoding="utf-8")))
    assert [c["task"] for c in cmp] == list(CLF)
    sigs = list(csv.DictReader((out / "signatures.csv").open(encoding="utf-8")))
    assert [(s["model"], s["task"]) for s in sigs] == [(m, t) for m in ("baseline", "variant") for t in CLF]
    assert all(s["signature"].startswith(f"cpsd:0.1.0|reader:{READER_VERSION}|metrics:1|task:{s['task']}"
                                         "|prompt:sha256.") for s in sigs)
    assert "scored differently" not in proc.stdout  # same prompts, data and options


@pytest.mark.e2e
def test_cli_errors_are_clean(tmp_path):
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "leaderboard.py"), str(tmp_path / "nope")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "no such file or folder" in proc.stderr and "Traceback" not in proc.stderr


if __name__ == "__main__":
    # Serve the variant model by hand (for trying the leaderboard on real data):
    #   python tests/test_leaderboard.py [PORT]
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    server = ThreadingHTTPServer(("127.0.0.1", port), _VariantHandler)
    print(f"variant model listening on http://127.0.0.1:{server.server_port}/v1/chat/completions", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


def test_error_analysis_reads_the_logged_reading(monkeypatch):
    """A sample log with `reading` records is not parsed again: the error class and the prediction
    are the ones the run logged (a judge that would say otherwise is never called)."""
    from cpsd_tasks import classification, qa

    def never(*args, **kwargs):
        raise AssertionError("judged again although the reading was logged")

    monkeypatch.setattr(classification, "judge", never)
    monkeypatch.setattr(qa, "judge_exam", never)
    clf = {"doc_id": 0, "doc": {"id": "r0", "text": "x", "label": "谣言", "task": "rumor"},
           "filtered_resps": ["结论：谣言"], "reading": {"answer": "谣言", "class": "format", "refused": False}}
    exam = {"doc_id": 1, "doc": {"id": "e1", "task": "police_exam", "qtype": "单选", "answer": "B",
                                 "question": "q", "options": [{"key": "A", "text": "x"}, {"key": "B", "text": "y"}]},
            "filtered_resps": ["[正确答案]A<eoa>"], "reading": {"answer": "A", "class": "content", "refused": False}}
    [j] = errors.judge_task_samples("m", "demo", "rumor", [clf])
    assert (j.error_class, j.gold, j.prediction) == ("format", "谣言", "谣言")
    [j] = errors.judge_task_samples("m", "demo", "police_exam", [exam])
    assert (j.error_class, j.gold, j.prediction) == ("content", "B", "A")
    ner = {"doc_id": 2,
           "doc": {"id": "n1", "task": "drug_ner", "text": "t", "entities": [{"type": "人名", "text": "张三"}]},
           "filtered_resps": ["x"], "reading": {"answer": [["人名", "张三"]], "class": "correct", "refused": False}}
    [j] = errors.judge_task_samples("m", "demo", "drug_ner", [ner])
    assert j.prediction == '[{"type": "人名", "text": "张三"}]' and j.error_class == "correct"


# --------------------------------------------------------------------------- rescored results

def _rescored_run(tmp_path: Path) -> tuple[Path, Path]:
    """A hand-made run OUT/m whose case_summary BERTScore is NaN, and cpsd-rescore's output in OUT."""
    out = tmp_path / "out"
    sample = {"doc_id": 0, "doc": {"id": "g0", "task": "case_summary", "input": "案情", "reference": "张某贩卖毒品。"},
              "filtered_resps": ["张某贩卖毒品。"], "filter": "none"}
    folder = write_results(out / "m",
                           {"cpsd_case_summary": {"bertscore_f1,none": float("nan"), "score,none": float("nan"),
                                                            "bleu_char,none": 0.1}},
                           {"model": "通义千问"}, samples={"cpsd_case_summary": [sample]})
    samples_file = next(folder.glob("samples_cpsd_case_summary_*.jsonl"))
    rescored = out / "rescored_2026-01-02T00-00-00.json"
    rescored.write_text(json.dumps({"created": "2026-01-02T00:00:00", "runs": {"m": {"results": {"cpsd_case_summary": {
        "source": str(samples_file), "bertscore_f1": 0.8123, "score": 0.8123, "bleu_char": 0.5,
        "bertscore_config": "/models/bert-base-chinese, layer 8, bert-score 0.3.13", "n": 1}}, "groups": {}}}},
        ensure_ascii=False), encoding="utf-8")
    return out, rescored


def test_rescored_figures_fill_the_runs_nan_and_are_marked(tmp_path):
    out, rescored = _rescored_run(tmp_path)
    (run,) = runs.load_runs([out])
    tr = run.tasks["case_summary"]
    assert tr.metrics["bertscore_f1"] == 0.8123 and tr.metrics["score"] == 0.8123
    assert tr.metrics["bleu_char"] == 0.1  # the run's own value is kept
    assert set(tr.rescored) == {"bertscore_f1", "score"} and run.rescored_files == [rescored.resolve()]
    rows = tables.build_rows([run])
    t6 = md_rows(render.to_markdown(tables.TABLES[3], rows))
    assert t6["通义千问 | unknown§"][:2] == ["0.8123ʳ", "0.1000"]
    notes = "\n".join(render.table_notes(rows))
    assert "rescored after the run by cpsd-rescore" in notes and "/models/bert-base-chinese, layer 8" in notes
    assert tables.dimension_scores(rows[0])["TG BERTScore F1"] == pytest.approx(0.8123)
    assert "$^r$" in render.to_latex(tables.TABLES[3], rows)
    # The model folder alone finds the rescoring one level up too; a newer run's log is not matched.
    assert runs.load_runs([out / "m"])[0].tasks["case_summary"].metrics["bertscore_f1"] == 0.8123
    data = json.loads(rescored.read_text(encoding="utf-8"))
    data["runs"]["m"]["results"]["cpsd_case_summary"]["source"] = "samples_cpsd_case_summary_OTHER.jsonl"
    rescored.write_text(json.dumps(data), encoding="utf-8")
    assert runs.load_runs([out])[0].tasks["case_summary"].metrics["bertscore_f1"] is None


def test_rescored_json_passed_as_a_run(tmp_path, capsys):
    out, rescored = _rescored_run(tmp_path)
    assert cli.main([str(rescored), "--tables", "6"]) == 0
    assert "| 通义千问 | unknown§ | 0.8123ʳ |" in capsys.readouterr().out
    # Moved away from its run: a clear error, exit 2, never empty tables.
    moved = tmp_path / rescored.name
    moved.write_text(rescored.read_text(encoding="utf-8").replace(str(out), str(tmp_path / "gone")), encoding="utf-8")
    assert cli.main([str(moved)]) == 2
    err = capsys.readouterr().err
    assert "is a cpsd-rescore output" in err and "Pass the run's --output_path folder" in err
    other = tmp_path / "other.json"
    other.write_text('{"a": 1}', encoding="utf-8")
    assert cli.main([str(other)]) == 2
    assert "not a results file" in capsys.readouterr().err
    empty = tmp_path / "empty"
    write_results(empty, {"arc_easy": {"acc,none": 0.5}}, {"model": "x"})
    assert cli.main([str(empty)]) == 2
    assert "no CPSDBench task" in capsys.readouterr().err


def test_rescore_is_installed_and_the_script_is_a_shim(capsys):
    import importlib.util

    from cpsd_tasks.report import rescore

    spec = importlib.util.spec_from_file_location("cpsd_rescore_shim", ROOT / "scripts" / "rescore.py")
    shim = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(shim)
    assert shim.main is rescore.main and shim.find_runs is rescore.find_runs
    setup = (ROOT / "setup.cfg").read_text(encoding="utf-8")
    assert "cpsd-rescore = cpsd_tasks.report.rescore:main" in setup
    assert "cpsd-leaderboard = cpsd_tasks.report.cli:main" in setup
    # cpsd-leaderboard rescore ... is the same command.
    with pytest.raises(SystemExit) as done:
        cli.main(["rescore", "--help"])
    assert done.value.code == 0
    assert "usage: cpsd-leaderboard rescore" in capsys.readouterr().out
    assert cli.main(["rescore", str(ROOT / "no_such_folder")]) == 2
    assert "does not exist" in capsys.readouterr().err


def _imports_of(path: Path, package: str, lazy: bool = True) -> set[str]:
    """The ``package`` modules ``path`` imports: ``import a.b``, ``from a import b`` (b a module or a
    name). ``lazy``: also those inside functions (run when called); without it only the imports run
    at import time (module level, ``if``/``try`` and ``TYPE_CHECKING`` blocks, class bodies)."""
    import ast

    found: set[str] = set()
    todo: list[ast.AST] = [ast.parse(path.read_text(encoding="utf-8"))]
    while todo:
        node = todo.pop()
        if not lazy and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        todo.extend(ast.iter_child_nodes(node))
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names}
    return {m for m in found if m == package or m.startswith(package + ".")}


def import_graph(package_dir: Path = ROOT / "cpsd_tasks", lazy: bool = True) -> dict[str, set[str]]:
    """``{module: cpsd_tasks modules it imports}`` for every module of the package (a name that is
    not a module, e.g. ``from cpsd_tasks.report.runs import Run``, counts as its module; ``lazy``
    as in :func:`_imports_of`)."""
    modules = {}
    for path in package_dir.rglob("*.py"):
        parts = path.relative_to(package_dir.parent).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph = {}
    for name, path in modules.items():
        deps = set()
        for dep in _imports_of(path, "cpsd_tasks", lazy):
            while dep not in modules and "." in dep:
                dep = dep.rsplit(".", 1)[0]
            if dep in modules and dep != name and not name.startswith(dep + "."):  # a package's own __init__
                deps.add(dep)
        graph[name] = deps
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of ``graph`` as ``[a, b, …, a]``, or ``[]`` when there is none (DFS)."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        stack.append(node)
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == 1:
                return stack[stack.index(dep):] + [dep]
            if dep not in state:
                cycle = visit(dep)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return []


def test_reporting_imports_go_one_way():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]  # the check itself works
    assert find_cycle(import_graph(lazy=False)) == []  # nothing in cpsd_tasks imports in a circle at import time
    graph = import_graph()
    report = {m: d for m, d in graph.items() if m.startswith("cpsd_tasks.report.")}
    # The report layer has no circle even counting imports inside functions.
    assert find_cycle({m: d & set(report) for m, d in report.items()}) == []
    assert set(report) >= {f"cpsd_tasks.report.{m}" for m in ("runs", "tables", "aggregations", "stats", "render",
                                                               "errors", "plots", "rescore", "cli")}
    # Nothing in the package imports the CLI module (only the console script and scripts/leaderboard.py run it).
    assert {m for m, d in graph.items() if "cpsd_tasks.report.cli" in d} == set()
    for module in ("errors", "plots", "fonts"):
        assert "cpsd_tasks.report.cli" not in report[f"cpsd_tasks.report.{module}"]
    # The reader depends on nothing of the report layer above it.
    assert report["cpsd_tasks.report.runs"] <= {"cpsd_tasks.report.files", "cpsd_tasks.report.jsonio",
                                                "cpsd_tasks.tasks", "cpsd_tasks.report"}


# --------------------------------------------------------------------------- figures: names and partial dimensions

def test_chinese_names_get_a_key_without_cjk_font_and_partial_dimensions_are_marked(tmp_path, monkeypatch, caplog):
    write_results(tmp_path / "a", {"cpsd_rumor": {"acc,none": 0.75}, "cpsd_drug_ner": {"f1,none": 0.5},
                                   "cpsd_fraud_ner": {"f1,none": 0.3}, "cpsd_drug_re": {"f1,none": 0.2}},
                  {"model": "通义千问"})
    write_results(tmp_path / "b",
                  {c: {"acc,none": 0.5} for c in ("cpsd_sentiment", "cpsd_rumor", "cpsd_fraud_detection",
                                                                  "cpsd_incident_classification")},
                  {"model": "Qwen (文心)"})
    write_results(tmp_path / "c", {"cpsd_rumor": {"acc,none": 0.5}}, {"model": "gpt-4o"})
    rows = tables.build_rows(runs.load_runs([tmp_path / "a", tmp_path / "b", tmp_path / "c"]))
    assert tables.dimension_coverage(rows[0])["CLF acc"] == (1, 4)
    assert tables.dimension_coverage(rows[1])["CLF acc"] == (4, 4)
    assert plots.radar_label("x", rows[0]) == "x (2/4 dimensions; partial: CLF acc 1/4 tasks)"
    assert plots.radar_label("y", rows[1]) == "y (1/4 dimensions)"
    monkeypatch.setenv(fonts.FONT_ENV, "none")
    fonts.reset_font_cache()
    try:
        assert fonts.name_key(rows) == [("model 1", "通义千问"), ("model 2 (Qwen)", "Qwen (文心)")]
        with caplog.at_level(logging.WARNING, logger="cpsd_tasks.report.fonts"):
            paths = plots.make_all(rows, tmp_path / "fig", judgements=[])
        assert "model 1 = 通义千问; model 2 (Qwen) = Qwen (文心)" in caplog.text
        key = tmp_path / "fig" / "model_names.csv"
        assert key in paths
        assert key.read_text(encoding="utf-8-sig").splitlines() == [
            "figure name,model", '"model 1","通义千问"', '"model 2 (Qwen)","Qwen (文心)"']
        assert cli.main([str(tmp_path / "a"), str(tmp_path / "b"), "--quiet", "--no-errors",
                        "--out", str(tmp_path / "rep")]) == 0
        assert "- model 1 = 通义千问" in (tmp_path / "rep" / "leaderboard.md").read_text(encoding="utf-8")
    finally:
        fonts.reset_font_cache()
    fonts.apply_style()
    svg = next(p for p in paths if p.name == "radar.svg").read_text(encoding="utf-8")
    assert "partial: CLF acc 1/4 tasks" in svg and "gpt-4o" in svg


WQY = Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")


@pytest.mark.skipif(not WQY.exists(), reason="fonts-wqy-microhei is not installed (.ci/run installs it with apt-get)")
def test_the_ci_cjk_font_is_found(tmp_path, monkeypatch):
    monkeypatch.delenv(fonts.FONT_ENV, raising=False)
    fonts.reset_font_cache()
    try:
        assert fonts.cjk_font() == "WenQuanYi Micro Hei"
        write_results(tmp_path / "a", {"cpsd_rumor": {"acc,none": 0.75}}, {"model": "通义千问"})
        rows = tables.build_rows(runs.load_runs([tmp_path / "a"]))
        assert fonts.name_key(rows) == [] and fonts.drawn_names(rows) == ["通义千问"]
    finally:
        fonts.reset_font_cache()


def test_n_shot_shown_when_not_zero_shot(tmp_path):
    write_results(tmp_path / "z", {"cpsd_rumor": {"acc,none": 0.5}}, {"model": "zero"})
    folder = write_results(tmp_path / "f", {"cpsd_rumor": {"acc,none": 0.75}}, {"model": "few"})
    res = next(folder.glob("results_*.json"))
    data = json.loads(res.read_text(encoding="utf-8"))
    data["n-shot"] = {"cpsd_rumor": 2}
    res.write_text(json.dumps(data), encoding="utf-8")
    rows = tables.build_rows(runs.load_runs([tmp_path / "z", tmp_path / "f"]))
    t3 = md_rows(render.to_markdown(tables.TABLES[0], rows))
    assert "zero | unknown§" in t3 and "few | unknown§, 2-shot" in t3
    notes = "\n".join(render.table_notes(rows))
    assert "n-shot: few 2-shot (rumor 2)" in notes and "zero-shot, as the paper's" in notes


# --------------------------------------------------------------------------- rescored at any depth, once per run

def test_rescored_file_two_levels_above_the_run_is_found(tmp_path, capsys):
    """cpsd-rescore runs + cpsd-leaderboard runs/: the harness writes runs/<name>/<model>/…, the
    rescoring lands in runs/; the leaderboard shows the rescored figure."""
    out, rescored = _rescored_run(tmp_path / "inner")
    top = tmp_path / "runs"
    (top / "qwen").mkdir(parents=True)
    shutil.move(str(out / "m"), str(top / "qwen" / "m"))
    data = json.loads(rescored.read_text(encoding="utf-8"))
    entry = data["runs"].pop("m")
    entry["folder"] = str((top / "qwen" / "m").resolve())
    source = entry["results"]["cpsd_case_summary"]["source"]
    entry["results"]["cpsd_case_summary"]["source"] = source.replace(str(out / "m"), str(top / "qwen" / "m"))
    data["runs"]["qwen/m"] = entry
    (top / rescored.name).write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    rescored.unlink()
    (run,) = runs.load_runs([top])
    assert run.tasks["case_summary"].metrics["bertscore_f1"] == 0.8123
    assert run.rescored_files == [(top / rescored.name).resolve()]
    assert runs.unmatched_rescored([top], [run]) == []
    assert cli.main([str(top), "--tables", "6"]) == 0
    captured = capsys.readouterr()
    assert "| 通义千问 | unknown§ | 0.8123ʳ |" in captured.out and "rescored" not in captured.err


def test_rescored_file_matching_no_run_is_said_in_one_line(tmp_path, capsys):
    out, rescored = _rescored_run(tmp_path)
    data = json.loads(rescored.read_text(encoding="utf-8"))
    data["runs"] = {"other": {"folder": str(tmp_path / "elsewhere" / "other"), "results": {}}}
    stray = out / "deep" / "rescored_2026-01-03T00-00-00.json"
    stray.parent.mkdir()
    stray.write_text(json.dumps(data), encoding="utf-8")
    assert cli.main([str(out), "--tables", "6"]) == 0
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("cpsd-leaderboard: ")]
    assert err == [f"cpsd-leaderboard: {stray.resolve()} rescored {tmp_path / 'elsewhere' / 'other'}, which is not "
                   f"among the runs read here; its figures are not used"]


def test_report_commands_set_the_hub_offline_unless_told(monkeypatch, tmp_path):
    from cpsd_tasks.report import rescore

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv(rescore.HUB_OFFLINE_BY_US, raising=False)
    assert cli.main([str(tmp_path / "nothing")]) == 2
    assert os.environ["HF_HUB_OFFLINE"] == "1" and "HF_HUB_OFFLINE=0 to download" in rescore.hub_note()
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.delenv(rescore.HUB_OFFLINE_BY_US)
    assert rescore.main([str(tmp_path / "nothing")]) == 2
    assert os.environ["HF_HUB_OFFLINE"] == "0" and rescore.hub_note() == ""


def test_a_missing_bertscore_is_explained_once_not_in_every_cell():
    from cpsd_tasks.generation.settings import BertScoreUnavailable

    err = BertScoreUnavailable("could not load BERTScore model 'bert-base-chinese' (default): OSError: " + "x" * 250,
                               "cannot load 'bert-base-chinese' (OSError; see log)")
    short, full = stats.why_not_recomputed(None, err)
    assert short == "BERTScore unavailable (see below)" and full.endswith("x" * 250)
    results = [stats.PairedResult(t, "bertscore_f1", 3, None, None, None, None, None, "not tested", short, full)
               for t in ("case_summary", "case_report", "legal_analysis")]
    row_a, row_b = tables.Row(name="A", data="demo", values={}), tables.Row(name="B", data="demo", values={})
    md = render.compare_markdown(row_a, row_b, results, 100, 0)
    assert md.count("x" * 250) == 1
    assert md.count("| not tested | BERTScore unavailable (see below) |") == 3
    assert f"case_summary, case_report, legal_analysis: {full}" in md
    assert stats.why_not_recomputed(None, ValueError("bad")) == ("ValueError: bad", "ValueError: bad")


def test_compare_with_an_unloadable_bertscore_model_says_why_once(tmp_path, caplog):
    """Two hand-made runs of two generation tasks whose BERTScore model folder is gone: each row
    gets the short note, the reason comes once, and the scorer's per-task ERROR (meant for runs)
    is not repeated by the report."""
    from cpsd_tasks.generation import reset_bertscore_state

    reset_bertscore_state()
    loaded = []
    for name in ("a", "b"):
        samples = {f"cpsd_{t}": [{"doc_id": i,
                                  "doc": {"id": f"{t}{i}", "task": t, "input": "案情", "reference": "张某。"},
                                  "filter": "none", "filtered_resps": ["张某。"],
                                  "bertscore_f1": ["张某。", "张某。", t]} for i in range(2)]
                   for t in ("case_summary", "case_report")}
        folder = write_results(tmp_path / name, {t: {"bertscore_f1,none": float("nan")} for t in samples},
                               {"model": name}, samples=samples, metadata={"bertscore_model": str(tmp_path / "gone")})
        loaded += runs.load_runs([folder])
    row_a, row_b = tables.build_rows(loaded)
    caplog.set_level(logging.WARNING)
    results = stats.compare_rows(row_a, row_b, "bertscore_f1", n_boot=10)
    assert [(r.task, r.better, r.note) for r in results] == [
        ("case_summary", "not tested", "BERTScore unavailable (see below)"),
        ("case_report", "not tested", "BERTScore unavailable (see below)")]
    assert results[0].detail == results[1].detail and f"{tmp_path / 'gone'}" in results[0].detail
    assert not [r for r in caplog.records if r.name == "cpsd_tasks.generation"]
    md = render.compare_markdown(row_a, row_b, results, 10, 0)
    assert md.count(results[0].detail) == 1
