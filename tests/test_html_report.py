"""The self-contained HTML leaderboard page (``cpsd-leaderboard RUNS... --html OUT.html``).

Unit tests check the data the page embeds against hand-worked values from hand-built harness
output folders (read through the real reader). The e2e tests build the page with the real CLI from
two real harness runs on the demo data (the rule baseline and the restyled "variant" of
tests/test_leaderboard.py), open it in headless Chromium (Debian package ``chromium``; .ci/run
installs it), take a screenshot and assert on the DOM after the page's scripts ran: both runs and
the published rows in the tables, a cell's link (URL fragment) filtering the sample browser to that
model and task, the Chinese text, and no network request in Chromium's net log.

Also here: :func:`synthetic_runs`, which multiplies a real harness output folder into many models
at the paper's task sizes — the large input used to measure the page's size and first paint.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Optional

import pytest

from cpsd_tasks.report import html, runs, stats, tables
from cpsd_tasks.report.errors import excerpt, input_text
from cpsd_tasks.tasks import TASKS

from conftest import ROOT
import test_leaderboard

# the two real harness runs of test_leaderboard (fixtures), used here too
two_runs, variant_url = test_leaderboard.two_runs, test_leaderboard.variant_url

STAMP = "2026-01-01T00-00-00.000000"


# --------------------------------------------------------------------------- hand-built runs

def _reading(answer, cls, refused=False, strict=None, truncated=False):
    return {"answer": answer, "class": cls, "refused": refused, "strict": strict, "truncated": truncated}


RUMOR_DOCS = [
    {"id": "r1", "text": "网传某地自来水被投毒，警方辟谣。", "label": "谣言"},
    {"id": "r2", "text": "公安局发布春节出行安全提示。", "label": "非谣言"},
    {"id": "r3", "text": "有人称高铁站发生爆炸，系编造。", "label": "谣言"},
    {"id": "r4", "text": "派出所延长户籍窗口办公时间。", "label": "非谣言"},
]
#: m1's outputs: one of each kind (correct, format, refusal, instruction + truncated, an HTML tag).
M1 = [("谣言", 1.0, _reading("谣言", "correct", strict="谣言")),
      ("我认为这条属于非谣言。", 0.0, _reading("非谣言", "format")),
      ("抱歉，我无法回答这个问题。", 0.0, _reading(None, "refusal", refused=True)),
      ("<script>alert(1)</script>", 0.0, _reading(None, "instruction", truncated=True))]
#: m2 answers every doc with its label.
M2 = [(d["label"], 1.0, _reading(d["label"], "correct", strict=d["label"])) for d in RUMOR_DOCS]


def write_run(folder: Path, model: str, outputs, signature: Optional[dict] = None) -> Path:
    """A harness output folder with one task (rumor) on ``RUMOR_DOCS``: results JSON + sample log."""
    folder.mkdir(parents=True, exist_ok=True)
    acc = sum(a for _, a, _ in outputs) / len(outputs)
    meta = {"cpsd_signature": signature} if signature else {}
    results = {"results": {"cpsd_rumor": {"alias": "cpsd_rumor", "acc,none": acc, "acc_stderr,none": "N/A"}},
               "configs": {"cpsd_rumor": {"metric_list": [{"metric": "acc", "aggregation": "mean"}],
                                          "metadata": meta}},
               "n-samples": {"cpsd_rumor": {"effective": len(outputs)}},
               "config": {"model": "local-chat-completions", "model_args": f"model={model}"}}
    (folder / f"results_{STAMP}.json").write_text(json.dumps(results, ensure_ascii=False), encoding="utf-8")
    with (folder / f"samples_cpsd_rumor_{STAMP}.jsonl").open("w", encoding="utf-8") as f:
        for i, (doc, (out, a, reading)) in enumerate(zip(RUMOR_DOCS, outputs)):
            rec = {"doc_id": i, "doc": {**doc, "task": "rumor", "data_source": "demo"}, "target": doc["label"],
                   "resps": [[out]], "filtered_resps": [out], "filter": "none", "acc": a,
                   "truncated_rate": float(reading["truncated"]), "reading": reading}
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return folder


@pytest.fixture()
def hand_rows(tmp_path):
    sig = {"cpsd_tasks": "0.1.0", "task": "rumor", "prompt": "sha256:aa", "data": "sha256:bb", "n_test": 4,
           "string": "cpsd:0.1.0|task:rumor|prompt:sha256.aa|data:sha256.bb|n_test:4"}
    write_run(tmp_path / "out" / "m1", "m1", M1, sig)
    write_run(tmp_path / "out" / "m2", "m2", M2)
    return tables.build_rows(runs.load_runs([tmp_path / "out" / "m1", tmp_path / "out" / "m2"]), with_paper=True)


# --------------------------------------------------------------------------- unit tests: embedded data

def test_overall_score_is_the_unweighted_mean_of_the_twelve_primary_metrics(hand_rows):
    gpt4 = next(r for r in hand_rows if r.name == "GPT-4")
    # The paper's GPT-4 primary metrics (acc ×4, F1 ×3, total ×2, BERTScore F1 ×3), summed by hand:
    # 0.7533+0.8975+0.86+1.0+0.6295+0.2809+0.7147+0.685+0.475+0.7545+0.7539+0.689 = 8.4933.
    score, measured, k = html.overall_score(gpt4)
    assert k == 12 and measured == pytest.approx(8.4933 / 12, abs=1e-12)
    assert score == (measured if len(TASKS) == 12 else None)   # a task added later: no cpsd score for it
    m1 = hand_rows[0]
    assert (m1.label, html.overall_score(m1)) == ("m1 (demo)", (None, 0.25, 1))  # 1 of 12 tasks: no cpsd score
    view = html.overview_view(hand_rows)
    assert view["headers"] == ["cpsd score", "Tasks", "Mean of measured", "CLF acc", "IE F1", "QA total",
                               "TG BERTScore F1"]
    cells = view["rows"][0]["cells"]
    assert [c.text for c in cells] == ["", f"1/{len(TASKS)}", "0.2500", "0.2500", "", "", ""]
    assert cells[0].href == "#browse?model=m1%20%28demo%29"
    gpt4_cells = next(r for r in view["rows"] if r["name"] == "GPT-4")["cells"]
    # (0.7078 = 8.4933/12; blank once the registry holds a task the paper did not publish)
    assert gpt4_cells[0].text == ("0.7078" if len(TASKS) == 12 else "")
    assert gpt4_cells[0].href == ""  # published rows link nowhere
    assert f"1/{len(TASKS)}" in html.AVERAGING_RULE
    assert f"unweighted mean of the {html._N_WORD} tasks'" in html.AVERAGING_RULE
    assert len(TASKS) != 12 or html._N_WORD == "twelve"


def test_table_cells_links_and_cis(hand_rows):
    hand_rows[0].ci[("rumor", "acc")] = (0.0, 0.75)
    view = html.table_view(tables.TABLES[0], hand_rows)
    assert view["headers"] == ["Sentiment", "Rumor", "Fraud detection", "Incident classification"]
    m1, m2 = view["rows"][0], view["rows"][1]
    assert (m1["label"], m1["data"], m1["demo"], m1["published"]) == ("m1 (demo)", "demo‡", True, False)
    assert [(c.text, c.ci, c.sort, c.href) for c in m1["cells"]] == [
        ("", "", None, ""), ("0.2500", "[0.000, 0.750]", 0.25, "#browse?model=m1%20%28demo%29&task=rumor"),
        ("", "", None, ""), ("", "", None, "")]
    assert m2["cells"][1].text == "1.0000" and m2["cells"][1].ci == ""
    published = [r for r in view["rows"] if r["published"]]
    assert len(published) == 14 and all(r["mark"] == "†" and all(c.href == "" for c in r["cells"]) for r in published)
    gpt4 = next(r for r in published if r["name"] == "GPT-4")
    assert [c.text for c in gpt4["cells"]] == ["0.7533", "0.8975", "0.8600", "1.0000"]
    assert gpt4["data"] == "published† (private data)"


def test_sample_data_holds_what_was_read_gold_class_and_score(hand_rows):
    data = html.sample_data(hand_rows)
    assert data["models"] == ["m1 (demo)", "m2 (demo)"] and data["tasks"] == ["rumor"]
    assert data["classes"] == ["correct", "format", "refusal", "instruction"]
    assert data["metrics"] == {"rumor": "acc"}
    # Documents are stored once for both models (same data, same ids).
    assert data["docs"] == [[0, d["id"], None, d["text"], d["label"]] for d in RUMOR_DOCS]
    facts = 'refused: {} · strict: {} · truncated: {}'
    # the last element: the judge's reading (cpsd-judge), None for a run never judged
    assert data["samples"][:4] == [
        [0, 0, 0, 0, 1.0, "谣言", "谣言", facts.format("false", '"谣言"', "false"), None],
        [0, 1, 1, 0, 0.0, "我认为这条属于非谣言。", "非谣言", facts.format("false", "null", "false"), None],
        [0, 2, 2, 0, 0.0, "抱歉，我无法回答这个问题。", None, facts.format("true", "null", "false"), None],
        [0, 3, 3, 1, 0.0, "<script>alert(1)</script>", None, facts.format("false", "null", "true"), None]]
    assert [s[:5] for s in data["samples"][4:]] == [[1, i, 0, 0, 1.0] for i in range(4)]


def test_long_texts_are_cut_and_say_so():
    assert html._cut("甲" * 5, 5) == "甲" * 5
    assert html._cut("甲" * 7, 5) == "甲" * 5 + "… [cut at 5 of 7 characters]"
    assert html._cut(None, 5) == ""
    assert html.sample_metric("case_summary") == "rougeL_char" and html.sample_metric("drug_re") == "f1"
    assert html.sample_metric("police_exam") == "total"


def test_pack_and_script_json():
    obj = {"t": "中文 </script><!-- x", "n": [1, None, 0.5]}
    packed = html.pack(obj)
    assert re.fullmatch(r"[A-Za-z0-9+/=]+", packed) and html.unpack(packed) == obj
    assert html.pack(obj) == packed  # gzip mtime 0: the same page for the same input
    text = html.script_json(obj)
    assert "<" not in text and json.loads(text) == obj
    with pytest.raises(ValueError):
        html.pack({"x": float("nan")})  # NaN is not JSON; the page never carries it


def test_browse_fragment():
    assert html.browse_fragment("baseline (demo)", "rumor") == "#browse?model=baseline%20%28demo%29&task=rumor"
    assert html.browse_fragment("通义千问/Qwen&1") == "#browse?model=%E9%80%9A%E4%B9%89%E5%8D%83%E9%97%AE%2FQwen%261"


def test_inline_svg_prefixes_ids_and_drops_the_prologue():
    svg = ('<?xml version="1.0" encoding="utf-8" standalone="no"?>\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN"\n'
           '  "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n<!-- Created with matplotlib -->\n'
           '<svg xmlns="http://www.w3.org/2000/svg" width="10pt" height="5pt" viewBox="0 0 10 5">'
           '<metadata><rdf:RDF>x</rdf:RDF></metadata><defs><path id="g1" d="M0 0"/>'
           '<clipPath id="c1"><rect/></clipPath></defs><use xlink:href="#g1"/><g clip-path="url(#c1)"/>'
           '<a href="#elsewhere"/></svg>')
    assert html.inline_svg(svg, "f2-") == (
        '<svg role="img" xmlns="http://www.w3.org/2000/svg" width="10pt" height="5pt" viewBox="0 0 10 5">'
        '<defs><path id="f2-g1" d="M0 0"/><clipPath id="f2-c1"><rect/></clipPath></defs>'
        '<use xlink:href="#f2-g1"/><g clip-path="url(#f2-c1)"/><a href="#elsewhere"/></svg>')


def test_compare_and_signature_views(hand_rows):
    a, b = hand_rows[0], hand_rows[1]
    res = [stats.PairedResult("rumor", "acc", 4, 0.25, 1.0, -0.75, (-1.0, -0.5), 0.001, "m2 (demo)"),
           stats.PairedResult("sentiment", "acc", 0, None, None, None, None, None, "not tested",
                              "no shared documents")]
    view = html.compare_view(a, b, res, n_boot=999, seed=7)
    assert (view["a"], view["b"]) == ("m1 (demo)", "m2 (demo)")
    first, second = view["items"]
    assert (first["delta"], first["ci"], first["p"], first["better"]) == ("-0.7500", "[-1.0000, -0.5000]", "≤ 0.0010",
                                                                          "m2 (demo)")
    assert first["href_b"] == "#browse?model=m2%20%28demo%29&task=rumor"
    assert (second["a"], second["delta"], second["ci"], second["p"], second["note"]) == ("", "", "", "",
                                                                                         "no shared documents")
    assert "999 resamples, seed 7" in view["method"] and "Warning" not in view["method"]
    sigs = html.signature_view(hand_rows)
    assert sigs == [{"label": "m1 (demo)", "data": "demo‡", "keys": ["cpsd_tasks", "prompt", "data", "n_test"],
                     "tasks": [{"task": "rumor", "values": ["0.1.0", "sha256:aa", "sha256:bb", "4"],
                                "string": "cpsd:0.1.0|task:rumor|prompt:sha256.aa|data:sha256.bb|n_test:4"}]}]


class _Tags(HTMLParser):
    """Every start tag of a page as ``(tag, attrs, text inside up to the next tag)``, and every ``id``."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[list[Any]] = []
        self.ids: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append([tag, attrs, ""])
        if "id" in attrs:
            self.ids.append(attrs["id"])

    handle_startendtag = handle_starttag

    def handle_data(self, data):
        if self.tags:
            self.tags[-1][2] += data


def parse(text: str) -> _Tags:
    p = _Tags()
    p.feed(text)
    return p


def test_rendered_page_is_self_contained_and_escapes_outputs(hand_rows):
    page = html.render_page(hand_rows, figures=True, n_boot=50)
    tags = parse(page)
    # Nothing is loaded from anywhere: no src/href to another document, and a CSP that forbids it.
    assert not [a for _, attrs, _ in tags.tags for k, a in attrs.items() if k in ("src", "href")
                and a and not a.startswith("#")]
    csp = next(a["content"] for t, a, _ in tags.tags
               if t == "meta" and a.get("http-equiv") == "Content-Security-Policy")
    assert csp.startswith("default-src 'none'")
    # The model output "<script>alert(1)</script>" is only inside the packed data, never markup.
    assert "alert(1)" not in page
    blob = next(text for t, a, text in tags.tags if t == "script" and a.get("id") == "cpsd-samples")
    assert html.unpack(blob) == html.sample_data(hand_rows)
    # The figures are inline SVG; the ids of all figures together are unique.
    assert page.count("<svg ") >= 2 and len(tags.ids) == len(set(tags.ids))
    assert 'id="demo-banner"' in page and "m1 (demo)" in page
    # Table 3: the m1 row's rumor cell links to the browser and sorts by its number.
    td = next(a for t, a, _ in tags.tags if t == "td" and a.get("title", "").startswith("m1 (demo) · cpsd_rumor"))
    assert td["data-v"] == "0.25"
    assert '<a href="#browse?model=m1%20%28demo%29&amp;task=rumor">0.2500</a>' in page
    assert "WenQuanYi Micro Hei" in page and "Noto Sans CJK SC" in page  # CJK fonts named in the CSS


# --------------------------------------------------------------------------- a large synthetic input

def synthetic_runs(source: Path, out: Path, models: int, sizes: Optional[dict[str, int]] = None,
                   seed: int = 0) -> list[Path]:
    """``models`` harness output folders made from the real run folder ``source``: each task's
    sample log repeated to ``sizes[task]`` documents (default the paper's sizes: 3,150 per model),
    ids suffixed ``#k``; model ``m`` replaces a share ``m / (2 * models)`` of the outputs by a
    refusal (reading class ``refusal``, numeric metrics 0), so the models differ. So that the
    texts are as varied as real ones (a page of copies would compress unrealistically well), every
    copy of a document has its input's characters shuffled, and every generation output longer
    than 20 characters is shuffled per model. Results JSON: the source's, with each numeric
    per-sample metric recomputed as the mean of the new log.

    Returns:
        The folders written (``out/model_00`` …).
    """
    (results_file,) = sorted(Path(source).rglob("results_*.json"))[-1:]
    source = results_file.parent
    stamp = results_file.stem[len("results_"):]
    results = json.loads(results_file.read_text(encoding="utf-8").replace("NaN", "null"))
    sizes = sizes or {t: spec.paper_size for t, spec in TASKS.items()}
    logs = {t: [json.loads(line) for line in (Path(source) / f"samples_cpsd_{t}_{stamp}.jsonl").read_text(
        encoding="utf-8").splitlines()] for t in TASKS if (Path(source) / f"samples_cpsd_{t}_{stamp}.jsonl").exists()}
    written = []
    for m in range(models):
        rng = random.Random(seed * 1000 + m)
        folder = Path(out) / f"model_{m:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        res = json.loads(json.dumps(results))
        res["config"]["model_args"] = f"model=model_{m:02d}"
        for task, log in logs.items():
            n = sizes.get(task, len(log))
            new = []
            for i in range(n):
                rec = json.loads(json.dumps(log[i % len(log)]))
                rec["doc_id"] = i
                rec["doc"]["id"] = f"{rec['doc'].get('id')}#{i // len(log)}"
                if i >= len(log):
                    doc_rng = random.Random(f"{task}{i}")  # the same shuffle for every model: one doc
                    for key in ("text", "context", "input"):
                        if isinstance(rec["doc"].get(key), str):
                            chars = list(rec["doc"][key])
                            doc_rng.shuffle(chars)
                            rec["doc"][key] = "".join(chars)
                out_text = rec["filtered_resps"][0] if rec.get("filtered_resps") else None
                if TASKS[task].kind == "generation" and isinstance(out_text, str) and len(out_text) > 20:
                    chars = list(out_text)
                    rng.shuffle(chars)
                    rec["resps"], rec["filtered_resps"] = [["".join(chars)]], ["".join(chars)]
                if rng.random() < m / (2 * models):
                    refusal = "抱歉，我无法回答这个问题。"
                    rec["resps"], rec["filtered_resps"] = [[refusal]], [refusal]
                    rec["reading"] = {"answer": None, "class": "refusal", "refused": True, "truncated": False}
                    for k, v in list(rec.items()):
                        if isinstance(v, float) and not k.endswith("_rate"):
                            rec[k] = 0.0
                new.append(rec)
            with (folder / f"samples_cpsd_{task}_{stamp}.jsonl").open("w", encoding="utf-8") as f:
                f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in new)
            row = res["results"][f"cpsd_{task}"]
            for key in list(row):
                metric = key.split(",")[0]
                vals = [r[metric] for r in new if isinstance(r.get(metric), float)]
                if "," in key and not metric.endswith("_stderr") and len(vals) == n:
                    row[key] = math.fsum(vals) / n
            res["n-samples"][f"cpsd_{task}"] = {"original": n, "effective": n}
        (folder / f"results_{stamp}.json").write_text(json.dumps(res, ensure_ascii=False), encoding="utf-8")
        written.append(folder)
    return written


# --------------------------------------------------------------------------- e2e: the page in headless Chromium

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium is not installed (Debian package 'chromium'; .ci/run installs it)")


def chromium(url: str, *args: str, timeout: int = 180) -> subprocess.CompletedProcess:
    """Run headless Chromium on ``url`` with a fresh profile, no background services, every host
    name unresolvable, and ``--virtual-time-budget`` so the page's scripts finish before a dump."""
    with tempfile.TemporaryDirectory(prefix="cpsd_chromium_") as profile:
        cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync",
               "--disable-background-networking", "--disable-component-update", "--disable-default-apps",
               "--disable-extensions", "--hide-scrollbars", f"--user-data-dir={profile}",
               "--host-resolver-rules=MAP * ~NOTFOUND", "--virtual-time-budget=10000", *args, url]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"chromium failed ({proc.returncode}): {proc.stderr[-2000:]}"
    return proc


def dom(url: str) -> str:
    """The page's DOM after its scripts ran (``--dump-dom``)."""
    return chromium(url, "--dump-dom").stdout


def page_requests(net_log: Path) -> list[str]:
    """The http/https/ws/wss URLs that a page loaded from ``file://`` asked for, from a Chromium net
    log: the ``URL_REQUEST_START_JOB`` events whose network isolation key is the file:// site
    (Chromium's own background requests have another key and are not the page's)."""
    log = json.loads(net_log.read_text(encoding="utf-8"))
    names = {v: k for k, v in log["constants"]["logEventTypes"].items()}
    urls = []
    for event in log["events"]:
        params = event.get("params") or {}
        if names.get(event["type"]) == "URL_REQUEST_START_JOB" and \
                str(params.get("network_isolation_key", "")).startswith("file://"):
            urls.append(params.get("url", ""))
    return [u for u in urls if re.match(r"(?i)(https?|wss?)://", u)]


@pytest.fixture(scope="module")
def page(two_runs, tmp_path_factory):  # noqa: F811 - the imported fixture
    """The page of the two real runs, written by the real CLI (a subprocess), with the paper rows and
    the paired test."""
    out = tmp_path_factory.mktemp("html") / "leaderboard.html"
    proc = subprocess.run([sys.executable, "-m", "cpsd_tasks.report.cli", str(two_runs["a"]), str(two_runs["b"]),
                           "--with-paper", "--compare", "baseline", "variant", "--bootstrap", "200", "--quiet",
                           "--html", str(out)], capture_output=True, text=True, timeout=600, cwd=ROOT,
                          env=dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert f"wrote the HTML page {out}" in proc.stderr
    return out


def _samples(folder: Path, task: str) -> list[dict]:
    (path,) = sorted(folder.rglob(f"samples_cpsd_{task}_*.jsonl"))[-1:]
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _sample_rows(tags: _Tags) -> list[dict]:
    return [a for t, a, _ in tags.tags if t == "tr" and "data-cls" in a]


@pytest.mark.e2e
@needs_chromium
def test_page_in_chromium_tables_published_rows_cjk_and_screenshot(page, two_runs, tmp_path):
    shot = tmp_path / "page.png"
    chromium(page.as_uri(), f"--screenshot={shot}", "--window-size=1280,1600")
    from PIL import Image

    with Image.open(shot) as im:
        assert im.size == (1280, 1600)
        assert len(im.convert("L").getcolors(maxcolors=256)) > 20  # drawn, not a blank page
    text = dom(page.as_uri())
    tags = parse(text)
    root = next(a for t, a, _ in tags.tags if t == "html")
    total = sum(len(_samples(two_runs[k], t)) for k in ("a", "b") for t in ("sentiment", "rumor", "fraud_detection",
                                                                           "incident_classification"))
    assert root["data-samples-loaded"] == str(total) == root["data-browse-matches"]
    # Table 3 shows both runs, then the 14 published rows, marked.
    t3 = text[text.index('id="table3_clf"'):text.index('id="table4_ie"')]
    t3_rows = [a for t, a, _ in parse(t3).tags if t == "tr" and "data-model" in a]
    assert [a["data-model"] for a in t3_rows[:2]] == ["baseline (demo)", "variant (demo)"]
    assert len(t3_rows) == 16 and all("published" in a["class"] for a in t3_rows[2:])
    assert t3.count("published†</span>") == 14 and "GPT-4" in t3
    for key, label in (("res_a", "baseline"), ("res_b", "variant")):  # the cells are the harness's numbers
        acc = two_runs[key]["results"]["cpsd_rumor"]["acc,none"]
        href = html.browse_fragment(f"{label} (demo)", "rumor").replace("&", "&amp;")
        assert f'<a href="{href}">{acc:.4f}</a>' in t3
    # The browser draws one page of rows (lazy), and the Chinese text is in the DOM.
    rows = _sample_rows(tags)
    assert len(rows) == html.PAGE_SIZE < total
    first = _samples(two_runs["a"], "sentiment")[0]
    assert excerpt(input_text(first["doc"]), html.INPUT_CHARS) in text and first["doc"]["text"][:10] in text
    assert "id=\"demo-banner\"" in text and "积极" in text
    assert 'id="compare-table"' in text and text.count("<tr><td data-v=\"") >= 4
    for fig in ("radar", "error_types", "strict_vs_fuzzy", "label_distribution"):  # inline SVG figures
        start = text.index(f'id="fig-{fig}"')
        assert text.index("<svg", start) < text.index("</figure>", start)


@pytest.mark.e2e
@needs_chromium
def test_clicking_a_header_sorts_the_column(page, tmp_path):
    """A small script added to a copy of the page clicks Table 3's "Rumor" header once (descending)
    and writes the row order into the DOM; blank cells go last."""
    clicked = tmp_path / "clicked.html"
    script = ("<script>var th=[].find.call(document.querySelectorAll('#table3_clf thead th'),"
              "function(h){return h.textContent.trim()==='Rumor';});th.querySelector('button').click();"
              "document.body.dataset.order=JSON.stringify([].map.call(document.querySelectorAll("
              "'#table3_clf tbody tr'),function(r){return [r.dataset.model,r.children[3].dataset.v];}));</script>")
    clicked.write_text(page.read_text(encoding="utf-8").replace("</body>", script + "</body>"), encoding="utf-8")
    tags = parse(dom(clicked.as_uri())).tags
    order = json.loads(next(a for t, a, _ in tags if t == "body")["data-order"])
    values = [float(v) for _, v in order]
    assert len(order) == 16 and values == sorted(values, reverse=True)
    assert values != [float(a["data-v"]) for t, a, _ in parse(page.read_text(encoding="utf-8")).tags
                      if t == "td" and "cpsd_rumor · acc" in a.get("title", "")][:16]  # the page's own order differs
    assert [a.get("aria-sort") for t, a, _ in tags if t == "th" and a.get("aria-sort")] == ["descending"]


@pytest.mark.e2e
@needs_chromium
def test_a_cells_link_filters_the_browser_to_its_model_and_task(page, two_runs):
    tags = parse(dom(page.as_uri()))
    href = next(a["href"] for t, a, _ in tags.tags
                if t == "a" and a.get("href", "").startswith("#browse?model=variant")
                and a["href"].endswith("task=rumor"))
    assert href == "#browse?model=variant%20%28demo%29&task=rumor"
    opened = parse(dom(page.as_uri() + href))
    rows = _sample_rows(opened)
    logged = _samples(two_runs["b"], "rumor")
    assert len(rows) == len(logged) > 0
    assert {(r["data-model"], r["data-task"]) for r in rows} == {("variant (demo)", "rumor")}
    assert [r["data-id"] for r in rows] == [s["doc"]["id"] for s in logged]
    assert [r["data-cls"] for r in rows] == [s["reading"]["class"] for s in logged]
    # A class in the fragment narrows further: the refusals of the variant's rumor samples.
    refusals = [s["doc"]["id"] for s in logged if s["reading"]["class"] == "refusal"]
    assert refusals
    narrowed = _sample_rows(parse(dom(page.as_uri() + href + "&class=refusal")))
    assert [r["data-id"] for r in narrowed] == refusals


@pytest.mark.e2e
@needs_chromium
def test_the_page_makes_no_network_request(page, tmp_path):
    net = tmp_path / "net.json"
    chromium(page.as_uri() + "#browse?task=rumor", f"--log-net-log={net}", "--dump-dom")
    assert page_requests(net) == []
    # The check itself sees a request when a page makes one (nothing leaves: no host resolves).
    control = tmp_path / "control.html"
    control.write_text('<!DOCTYPE html><img src="http://cpsd-no-such-host.invalid/x.png">', encoding="utf-8")
    chromium(control.as_uri(), f"--log-net-log={tmp_path / 'net2.json'}", "--dump-dom")
    assert page_requests(tmp_path / "net2.json") == ["http://cpsd-no-such-host.invalid/x.png"]


@pytest.mark.e2e
def test_synthetic_runs_give_one_doc_list_for_all_models(two_runs, tmp_path):
    folders = synthetic_runs(two_runs["a"], tmp_path / "big", models=3,
                             sizes={"sentiment": 45, "rumor": 20, "fraud_detection": 20,
                                    "incident_classification": 20})
    rows = tables.build_rows(runs.load_runs(folders))
    data = html.sample_data(rows)
    assert data["models"] == ["model_00 (demo)", "model_01 (demo)", "model_02 (demo)"]
    assert len(data["docs"]) == 45 + 20 + 20 + 20 and len(data["samples"]) == 3 * 105
    refusals = [sum(s[0] == m and data["classes"][s[2]] == "refusal" for s in data["samples"]) for m in range(3)]
    assert refusals[2] > refusals[0]  # model 0 keeps every output; model 2 loses about a third


def test_build_from_python_with_the_paired_test(tmp_path):
    write_run(tmp_path / "out" / "m1", "m1", M1)
    write_run(tmp_path / "out" / "m2", "m2", M2)
    path = html.build([tmp_path / "out"], tmp_path / "page" / "lb.html", compare=("m1", "m2"), n_boot=50,
                      figures=False)
    page = path.read_text(encoding="utf-8")
    tags = parse(page)
    compare = page[page.index('id="compare-table"'):page.index('id="browse"')]
    # rumor: m1 acc 1/4 = 0.25, m2 4/4 = 1.0, so Δ = A − B = −0.75 over the 4 shared documents.
    cells = [text.strip() for t, a, text in parse(compare).tags if t in ("td", "a")]
    assert cells[:8] == ["rumor", "acc", "4", "", "0.2500", "", "1.0000", "-0.7500"]
    assert "Paired bootstrap test: m1 (demo) (A) vs m2 (demo) (B)" in page and "50 resamples" in page
    assert html.unpack(next(x for t, a, x in tags.tags if t == "script" and a.get("id") == "cpsd-samples"))[
        "models"] == ["m1 (demo)", "m2 (demo)"]
    with pytest.raises(KeyError, match="no run rows match 'm3'"):
        html.build([tmp_path / "out"], tmp_path / "x.html", compare=("m1", "m3"), figures=False, n_boot=10)


def test_a_run_without_sample_log_has_no_links_to_an_empty_browser(tmp_path):
    write_run(tmp_path / "m1", "m1", M1)
    for f in tmp_path.glob("m1/samples_*"):
        f.unlink()
    rows = tables.build_rows(runs.load_runs([tmp_path / "m1"]))
    assert [c.text for c in html.table_view(tables.TABLES[0], rows)["rows"][0]["cells"]] == ["", "0.2500", "", ""]
    assert [c.href for c in html.table_view(tables.TABLES[0], rows)["rows"][0]["cells"]] == [""] * 4
    assert {c.href for c in html.overview_view(rows)["rows"][0]["cells"]} == {""}
    assert html.sample_data(rows)["samples"] == []
