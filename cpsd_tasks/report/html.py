"""One self-contained HTML page of a leaderboard: tables, figures, the paired test and a sample browser.

(About 500 lines: the page's data model — one builder per part of the page, each a few dozen lines —
beside the one function that renders them; the markup, CSS and JS live in ``templates/``.)

``cpsd-leaderboard RUNS... --html OUT.html`` (or :func:`build` from Python) writes ONE file that
needs nothing else: CSS, JavaScript, the figures (inline SVG from matplotlib's SVG backend, the
same figures :mod:`cpsd_tasks.report.plots` draws) and the per-sample data are all inside it, and
the page makes no network request when opened — from a ``file://`` URL or as an e-mail attachment.
It is one more renderer of the report layer (reader :mod:`~cpsd_tasks.report.runs` → rows
:mod:`~cpsd_tasks.report.tables` → CIs and paired test :mod:`~cpsd_tasks.report.stats`, notes
:mod:`~cpsd_tasks.report.render`, error classes :mod:`~cpsd_tasks.report.errors`, figures
:mod:`~cpsd_tasks.report.plots`); the layout is the Jinja2 template
``cpsd_tasks/report/templates/leaderboard.html.j2``.

What the page holds:

* an overview: per row the ``cpsd`` overall score — the unweighted mean of the twelve tasks'
  primary metrics (:func:`overall_score`; blank unless all twelve were measured, as the harness's
  ``cpsd`` group gives NaN then) — the mean of the tasks measured, and the four radar dimensions;
* the paper's Tables 3–8 (:data:`~cpsd_tasks.report.tables.TABLES`) for every row, each cell with
  its 95 % bootstrap CI, published rows marked ``†``; every column sortable (a few lines of vanilla
  JavaScript: click a header); every cell of a run row links to the sample browser filtered to
  that model and task (URL fragment ``#browse?model=…&task=…``, :func:`browse_fragment`);
* the figures (radar, error classes, strict vs fuzzy, label distribution, IE F1 by length);
* with a comparison, the paired bootstrap test per task with the CI of the difference;
* the scoring signature of every run's tasks, and a banner when a row is on the embedded demo set;
* the judged figures of ``cpsd-judge`` beside the rule figures, when a run was judged
  (:func:`judged_view`);
* the sample browser: model, task, error class and a text filter; per sample the input excerpt,
  the raw output, what was read from it (the sample log's ``reading`` record) and, when a judge
  read it, the judge's reading (:func:`judge_reading_text`), the gold answer and the per-sample
  score. Its data (:func:`sample_data`) is embedded gzip-compressed and base64 encoded (unpacked by
  the browser's own ``DecompressionStream``), and rows are rendered one page (:data:`PAGE_SIZE`) at
  a time, so a run of 12 tasks × 10 models × 3,150 samples stays usable.

Tables and figures are plain HTML/SVG written here, so they show even where scripts do not run
(an e-mail preview); sorting and the browser need JavaScript.
"""

from __future__ import annotations

import base64
import gzip
import json
import math
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Sequence
from urllib.parse import quote

from cpsd_tasks.report.jsonio import clean_surrogates, sample_output, to_number
from cpsd_tasks.report.render import JUDGED_MARK
from cpsd_tasks.report.runs import DEMO
from cpsd_tasks.report.stats import DEFAULT_ALPHA, DEFAULT_BOOTSTRAP, DEFAULT_SEED, PairedResult, add_cis
from cpsd_tasks.report.tables import (DIMENSIONS, PAPER_MARK, RESCORED_MARK, TABLES, TASK_TITLES, Row, TableSpec,
                                      dimension_scores)
from cpsd_tasks.tasks import TASKS

#: The page template (Jinja2), shipped as package data.
TEMPLATE_DIR = Path(__file__).resolve().parent / "templates"
TEMPLATE = "leaderboard.html.j2"
#: Sample-browser rows rendered at a time (the rest on demand, page by page).
PAGE_SIZE = 50
#: Characters of an input shown in the browser (whitespace collapsed), of a raw output and of a
#: gold answer kept in the page; a longer text is cut and says how long it was.
INPUT_CHARS = 300
OUTPUT_CHARS = 3000
GOLD_CHARS = 2000
#: Per-sample score of a task whose primary metric is no per-sample number (BERTScore items are
#: scored over the corpus): this metric is shown instead, and the page says so.
FALLBACK_SAMPLE_METRIC = "rougeL_char"
#: Error class of a generation sample that has an output (generation has no right/wrong class).
GENERATED = "generated"
#: CSS font stack: Latin fonts first, then fonts that carry simplified-Chinese glyphs (the same
#: families the figures look for, :data:`cpsd_tasks.report.fonts.CJK_FAMILIES`), then generic.
FONT_STACK = ('"Segoe UI", "Helvetica Neue", Arial, "Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", '
              '"Source Han Sans CN", "PingFang SC", "Hiragino Sans GB", "Microsoft YaHei", "WenQuanYi Micro Hei", '
              '"WenQuanYi Zen Hei", SimHei, "Droid Sans Fallback", sans-serif')
#: Figures drawn, in page order: (file stem of :func:`cpsd_tasks.report.plots.make_all`, title).
FIGURES: tuple[tuple[str, str], ...] = (
    ("radar", "The four dimensions (paper Figure 3)"),
    ("error_types", "Error classes per model and task"),
    ("strict_vs_fuzzy", "Strict vs fuzzy classification accuracy (paper Figure 7)"),
    ("label_distribution", "Predicted vs gold label distribution (paper Figure 8)"),
    ("ie_f1_by_length", "IE F1 by input length (paper Figure 4)"),
)
_N = len(TASKS)
_N_WORD = {12: "twelve", 13: "thirteen", 14: "fourteen"}.get(_N, str(_N))
AVERAGING_RULE = (
    f"cpsd score = the unweighted mean of the {_N_WORD} tasks' primary metrics (classification acc, IE F1, "
    f"QA total, generation BERTScore F1), every task weighted 1/{_N} whatever its size — the harness's "
    f"group 'cpsd' (aggregation mean, weight_by_size false). It is left blank unless all {_N_WORD} were "
    "measured (the harness reports NaN then); 'mean of measured' is the same mean over the tasks a row has, "
    "with their count. A dimension (CLF, IE, QA, TG) is the unweighted mean of its tasks' metrics, as the "
    "paper's radar chart scores it. A table cell is the run's own aggregate as the harness wrote it "
    "(document-averaged for IE P/R/F1).")


# --------------------------------------------------------------------------- overall score

def overall_score(row: Row) -> tuple[Optional[float], Optional[float], int]:
    """The ``cpsd`` overall score of a row (the averaging rule: :data:`AVERAGING_RULE`).

    Returns:
        ``(score, mean of measured, k)``: ``score`` is the unweighted mean of the twelve tasks'
        primary metrics (:attr:`cpsd_tasks.tasks.TaskSpec.primary_metric`) in [0, 1], ``None``
        unless all twelve are present; ``mean of measured`` the mean over the ``k`` tasks present
        (``None`` when ``k == 0``).
    """
    values = [v for v in (row.value(t, spec.primary_metric) for t, spec in TASKS.items()) if v is not None]
    measured = math.fsum(values) / len(values) if values else None
    return (measured if len(values) == len(TASKS) else None), measured, len(values)


# --------------------------------------------------------------------------- table views

def browse_fragment(model: str, task: Optional[str] = None) -> str:
    """The URL fragment that opens the sample browser filtered to ``model`` (a row label) and
    ``task`` (a task id; ``None`` = all tasks), e.g. ``#browse?model=baseline%20%28demo%29&task=rumor``."""
    frag = "#browse?model=" + quote(model, safe="")
    return frag + ("&task=" + quote(task, safe="") if task else "")


def _num(value: Optional[float], digits: int = 4) -> str:
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


@dataclass(frozen=True)
class Cell:
    """One table cell as the template draws it: ``text`` (4 decimals, ``ʳ`` when rescored, blank when
    missing), ``ci`` (``[low, high]`` at 3 decimals or ``""``), ``sort`` (the number, ``None`` when
    missing) and ``href`` (the browser fragment, ``""`` for published rows)."""

    text: str
    ci: str
    sort: Optional[float]
    href: str
    title: str = ""


def _row_head(row: Row) -> dict[str, Any]:
    return {"name": row.name, "label": row.label, "data": row.data_label, "published": row.is_paper,
            "demo": row.data == DEMO, "mark": PAPER_MARK if row.is_paper else ""}


def table_view(table: TableSpec, rows: Sequence[Row]) -> dict[str, Any]:
    """One of Tables 3–8 as plain values for the template.

    Returns:
        ``{"id", "title", "headers": [str], "rows": [{"name", "label", "data", "published", "demo",
        "mark", "cells": [Cell]}]}`` in row order; a cell of a run row whose task has a sample log
        links to the browser at that model and the column's task.
    """
    out_rows = []
    for r in rows:
        cells = []
        for c in table.columns:
            v = r.value(c.task, c.metric)
            text = _num(v)
            if text and (c.task, c.metric) in r.rescored:
                text += RESCORED_MARK
            ci = r.ci.get((c.task, c.metric))
            logged = r.run is not None and c.task in r.tasks and r.tasks[c.task].samples_path is not None
            href = browse_fragment(r.label, c.task) if logged else ""
            title = f"{r.label} · cpsd_{c.task} · {c.metric}" + (": open its samples" if href else "")
            cells.append(Cell(text, f"[{ci[0]:.3f}, {ci[1]:.3f}]" if ci and text else "", v, href, title))
        out_rows.append({**_row_head(r), "cells": cells})
    return {"id": table.id, "title": table.title, "headers": [c.header for c in table.columns], "rows": out_rows}


def overview_view(rows: Sequence[Row]) -> dict[str, Any]:
    """The overview table: ``cpsd`` score, tasks measured, mean of measured and the four dimensions.

    Returns:
        ``{"headers": [str], "rows": [{... as table_view ..., "cells": [Cell]}]}``; the cells of a run
        row with a sample log link to the browser at that model (all tasks).
    """
    headers = ["cpsd score", "Tasks", "Mean of measured", *DIMENSIONS]
    out_rows = []
    for r in rows:
        score, measured, k = overall_score(r)
        href = browse_fragment(r.label) if any(tr.samples_path for tr in r.tasks.values()) else ""
        dims = dimension_scores(r)
        cells = [Cell(_num(score), "", score, href, "all twelve tasks" if score is not None else
                      f"blank: {k} of {len(TASKS)} tasks measured"),
                 Cell(f"{k}/{len(TASKS)}", "", float(k), href),
                 Cell(_num(measured), "", measured, href),
                 *(Cell(_num(dims[d]), "", dims[d], href) for d in DIMENSIONS)]
        out_rows.append({**_row_head(r), "cells": cells})
    return {"id": "overview-table", "title": "Overview — cpsd score and the four dimensions", "headers": headers,
            "rows": out_rows}


def compare_view(row_a: Row, row_b: Row, results: Sequence[PairedResult], n_boot: int, seed: int) -> dict[str, Any]:
    """The ``--compare`` result for the template: A and B labels, one dict per task (numbers as
    text; ``ci`` = 95 % CI of Δ = A − B), and the method note."""
    items = []
    for r in results:
        p = "" if r.p is None else f"{r.p:.4f}"
        if r.p is not None and r.p <= 1 / (n_boot + 1) + 1e-12:
            p = f"≤ {p}"
        items.append({"task": r.task, "metric": r.metric, "n": r.n, "a": _num(r.a), "b": _num(r.b),
                      "delta": _num(r.delta), "delta_v": r.delta,
                      "ci": "" if r.ci is None else f"[{r.ci[0]:.4f}, {r.ci[1]:.4f}]", "p": p, "p_v": r.p,
                      "better": r.better, "note": r.note,
                      "href_a": browse_fragment(row_a.label, r.task), "href_b": browse_fragment(row_b.label, r.task)})
    method = (f"Paired bootstrap over the documents both runs scored (matched by doc id), the same resampled "
              f"indices for A and B; {n_boot} resamples, seed {seed}; 95 % percentile CI of Δ = A − B; "
              f"p = (1 + #{{|δ* − δ| ≥ |δ|}}) / (B + 1), two-sided; 'Better' only when p < {DEFAULT_ALPHA}.")
    if row_a.data != row_b.data:
        method += " Warning: the two rows were measured on different data."
    return {"a": row_a.label, "b": row_b.label, "items": items, "method": method}


def signature_view(rows: Sequence[Row]) -> list[dict[str, Any]]:
    """The scoring signature of each run row's tasks (``configs.<task>.metadata.cpsd_signature``).

    Returns:
        ``[{"label", "data", "keys": [field], "tasks": [{"task", "values": [str per key], "string"}]}]``
        for the run rows that have signatures; the keys are the union of the fields present
        (``cpsd_tasks`` version, prompt and data digests, ``alpha``, ``tau``, ``tau_qa``, the
        BERTScore settings …) except ``task`` and ``string``.
    """
    out = []
    for r in rows:
        if r.run is None:
            continue
        sigs = [(t, r.tasks[t].signature) for t in TASKS if t in r.tasks and r.tasks[t].signature]
        if not sigs:
            continue
        keys = list(dict.fromkeys(k for _, s in sigs for k in s if k not in ("task", "string")))
        out.append({"label": r.label, "data": r.data_label, "keys": keys,
                    "tasks": [{"task": t, "values": ["" if s.get(k) is None else str(s.get(k)) for k in keys],
                               "string": str(s.get("string", ""))} for t, s in sigs]})
    return out


# --------------------------------------------------------------------------- sample data

def _cut(text: Any, limit: int) -> str:
    text = "" if text is None else str(text)
    return text if len(text) <= limit else text[:limit] + f"… [cut at {limit} of {len(text)} characters]"


def sample_metric(task: str) -> str:
    """The metric shown as a sample's score: the task's primary metric, or
    :data:`FALLBACK_SAMPLE_METRIC` for the generation tasks (BERTScore is a corpus item per sample)."""
    spec = TASKS[task]
    return FALLBACK_SAMPLE_METRIC if spec.kind == "generation" else spec.primary_metric


#: Facts of a ``reading`` record shown first, as plain words: what decided the reading.
DECIDING_FACTS = ("rule", "reason")


def _reading_facts(record: Any) -> str:
    """The facts of a sample's ``reading`` record, one line: the rule that decided or the reason nothing
    was read first (``rule: declared``), then the others as JSON values (``refused: false · …``)."""
    if not isinstance(record, dict):
        return ""
    first = [f"{k}: {record[k]}" for k in DECIDING_FACTS if isinstance(record.get(k), str)]
    return " · ".join(first + [f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in record.items()
                               if k not in ("answer", "class", *DECIDING_FACTS)])


def _read_text(answer: Any) -> Optional[str]:
    if answer is None:
        return None
    return answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)


#: How the browser words a judge's reply that gave no answer.
JUDGE_STATUS_TEXT = {"no_answer": "no valid answer", "invalid": "invalid reply"}


def judge_reading_text(judged: dict[str, Any], doc_id: Any) -> Optional[str]:
    """The judge's reading of one sample for the browser, from a task's ``cpsd-judge`` entry
    (:attr:`cpsd_tasks.report.runs.TaskRun.judged`): ``"judgeʲ <model> (<mode>): <answer>"``,
    the answer being the label, letters, 等价/不等价, rubric scores, ``no valid answer`` or
    ``invalid reply (<why>)``; ``None`` when the sample was not sent to a judge."""
    entry = ((judged or {}).get("samples") or {}).get(str(doc_id))
    if not isinstance(entry, dict):
        return None
    judge = judged.get("judge") or {}
    status = entry.get("status")
    if status == "answer":
        answer = entry.get("judge")
        text = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)
    else:
        text = JUDGE_STATUS_TEXT.get(str(status), str(status))
        if entry.get("why"):
            text += f" ({entry['why']})"
    return f"judge{JUDGED_MARK} {judge.get('model', '?')} ({judge.get('mode', '?')}): {text}"


def judged_view(rows: Sequence[Row]) -> dict[str, Any]:
    """The judged figures for the page (:func:`cpsd_tasks.report.render.judged_items`, numbers as
    text) and their notes; ``{"items": [], "notes": []}`` when no row was judged."""
    from cpsd_tasks.report.render import judged_items, judged_notes

    items = []
    for i in judged_items(rows):
        agree = "" if i["agreement"] is None else f"{i['agreement']:.4f} ({i['agree']}/{i['compared']})"
        items.append({**i, "rules_text": _num(i["rules"]), "judged_text": _num(i["judged"]), "agree_text": agree,
                      "href": browse_fragment(i["label"], i["task"])})
    return {"items": items, "notes": judged_notes(rows) if items else []}


def sample_data(rows: Sequence[Row], judgements: Optional[Sequence[Any]] = None) -> dict[str, Any]:
    """The sample browser's data: every sample of every run row, column-compact.

    Class, gold and what was read come from :func:`cpsd_tasks.report.errors.judge_task_samples`
    (the run's logged ``reading`` record; older logs are judged again), so the browser and the
    error analysis agree; ``judgements`` of :func:`cpsd_tasks.report.errors.judge_rows` for these
    rows are used when given (not judged twice). A generation sample has class ``generated`` (or
    ``refusal`` when empty), its reference as gold and ``reading.answer`` (its length) as what was
    read. The score is the sample's value of :func:`sample_metric`, rounded to 4 decimals.

    Returns:
        ``{"models": [row label], "tasks": [task id], "classes": [class], "metrics": {task: metric},
        "docs": [[task index, doc id, qtype or None, input excerpt, gold]],
        "samples": [[model index, doc index, class index, truncated 0/1, score or None, raw output,
        read text or None, reading facts, the judge's reading or None (:func:`judge_reading_text`)]]}``
        — documents are shared by the rows on the same data,
        so inputs and gold answers are stored once; texts are cut at :data:`INPUT_CHARS`,
        :data:`OUTPUT_CHARS` and :data:`GOLD_CHARS`.
    """
    from cpsd_tasks.report import errors

    if judgements is None:
        judgements = errors.judge_rows(rows)
    judged_by: dict[tuple[str, str], list[Any]] = {}
    for j in judgements:
        judged_by.setdefault((j.model, j.task), []).append(j)
    models: list[str] = []
    tasks: list[str] = [t for t in TASKS if any(t in r.tasks for r in rows if r.run is not None)]
    classes: list[str] = []
    docs: list[list[Any]] = []
    doc_index: dict[tuple[str, str, str], int] = {}
    samples: list[list[Any]] = []

    def class_index(cls: str) -> int:
        if cls not in classes:
            classes.append(cls)
        return classes.index(cls)

    for row in rows:
        if row.run is None:
            continue
        mi = len(models)
        models.append(row.label)
        for task in (t for t in tasks if t in row.tasks):
            tr = row.tasks[task]
            logged = tr.samples()
            if not logged:
                continue
            kind = TASKS[task].kind
            judged = judged_by.get((row.label, task), [])
            metric = sample_metric(task)
            for i, s in enumerate(logged):
                doc = s.get("doc") or {}
                record = s.get("reading") if isinstance(s.get("reading"), dict) else {}
                j = judged[i] if len(judged) == len(logged) else None
                if j is not None:
                    cls, gold, read = j.error_class, j.gold, j.prediction
                elif kind == "generation":
                    cls = "refusal" if record.get("class") == "refusal" else GENERATED
                    gold, read = doc.get("reference", s.get("target", "")), _read_text(record.get("answer"))
                else:
                    cls = str(record.get("class") or "not judged")
                    gold, read = s.get("target", ""), _read_text(record.get("answer"))
                key = (row.data, task, str(doc.get("id", s.get("doc_id"))))
                if key not in doc_index:
                    doc_index[key] = len(docs)
                    docs.append([tasks.index(task), key[2], doc.get("qtype"),
                                 errors.excerpt(errors.input_text(doc), INPUT_CHARS), _cut(gold, GOLD_CHARS)])
                truncated = bool(record.get("truncated")) or to_number(s.get("truncated_rate")) == 1.0
                score = to_number(s.get(metric))
                samples.append([mi, doc_index[key], class_index(cls), int(truncated),
                                None if score is None else round(score, 4),
                                _cut(sample_output(s), OUTPUT_CHARS),
                                None if read is None else _cut(read, OUTPUT_CHARS), _reading_facts(record),
                                judge_reading_text(tr.judged, s.get("doc_id"))])
    return clean_surrogates({"models": models, "tasks": tasks, "classes": classes,
                             "metrics": {t: sample_metric(t) for t in tasks}, "docs": docs, "samples": samples})


def pack(obj: Any) -> str:
    """``obj`` as JSON (UTF-8, not ASCII-escaped), gzip-compressed (mtime 0: the same bytes every
    time) and base64-encoded — how the page carries the sample data. Inverse: :func:`unpack`."""
    raw = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
    return base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode("ascii")


def unpack(text: str) -> Any:
    """Inverse of :func:`pack`."""
    return json.loads(gzip.decompress(base64.b64decode(text)).decode("utf-8"))


def script_json(obj: Any) -> str:
    """JSON safe inside ``<script type="application/json">``: ``<`` written as ``\\u003c`` so no
    ``</script>`` or ``<!--`` in the data can end or change the script element."""
    return json.dumps(obj, ensure_ascii=False, allow_nan=False).replace("<", "\\u003c")


# --------------------------------------------------------------------------- figures

_ID = re.compile(r'\bid="([^"]+)"')


def inline_svg(svg: str, prefix: str) -> str:
    """A matplotlib SVG file made fit to sit inline in a page beside others: the XML declaration,
    DOCTYPE, comments and RDF ``<metadata>`` removed, every ``id`` (and its ``#ref``/``url(#ref)`` uses) prefixed with
    ``prefix`` so glyph and clip-path ids of two figures never collide (its size and ``viewBox``
    stay; the page's CSS scales it down to the page width)."""
    svg = re.sub(r"<\?xml[^>]*\?>|<!DOCTYPE[^>]*>|<!--.*?-->|<metadata>.*?</metadata>", "", svg, flags=re.S).strip()
    ids = set(_ID.findall(svg))
    svg = _ID.sub(lambda m: f'id="{prefix}{m.group(1)}"', svg)
    svg = re.sub(r'((?:xlink:)?href="#|url\(#)([^")]+)',
                 lambda m: m.group(1) + (prefix + m.group(2) if m.group(2) in ids else m.group(2)), svg)
    return svg.replace("<svg ", '<svg role="img" ', 1)


def figure_views(rows: Sequence[Row], judgements: Optional[Sequence[Any]] = None) -> list[dict[str, str]]:
    """The figures of :func:`cpsd_tasks.report.plots.make_all`, drawn into a temporary folder with
    matplotlib's SVG backend and inlined (:func:`inline_svg`).

    Returns:
        ``[{"id", "title", "svg"}]`` for the figures the rows have data for, in :data:`FIGURES` order.
    """
    from cpsd_tasks.report import plots

    out = []
    with tempfile.TemporaryDirectory(prefix="cpsd_html_") as tmp:
        written = {p.stem: p for p in plots.make_all(rows, Path(tmp), judgements) if p.suffix == ".svg"}
        for i, (stem, title) in enumerate(FIGURES):
            if stem in written:
                out.append({"id": stem, "title": title,
                            "svg": inline_svg(written[stem].read_text(encoding="utf-8"), f"f{i}-")})
    return out


# --------------------------------------------------------------------------- the page

def page_context(rows: Sequence[Row], tables: Sequence[TableSpec] = TABLES,
                 comparison: Optional[tuple[Row, Row, Sequence[PairedResult]]] = None,
                 n_boot: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED, figures: bool = True,
                 title: str = "CPSDBench leaderboard") -> dict[str, Any]:
    """Everything the template draws, as plain values (see :func:`render_page`)."""
    from cpsd_tasks.report import errors
    from cpsd_tasks.report.fonts import name_key
    from cpsd_tasks.report.render import table_notes

    judgements = errors.judge_rows(rows)
    demo_rows = [r.label for r in rows if r.data == DEMO]
    data = sample_data(rows, judgements)
    return {
        "title": title,
        "font_stack": FONT_STACK,
        "demo_rows": demo_rows,
        "overview": overview_view(rows),
        "tables": [table_view(t, rows) for t in tables],
        "notes": table_notes(rows, True, n_boot, seed),
        "averaging_rule": AVERAGING_RULE,
        "has_published": any(r.is_paper for r in rows),
        "figures": figure_views(rows, judgements) if figures else [],
        "name_key": name_key(rows) if figures else [],
        "compare": compare_view(*comparison, n_boot, seed) if comparison else None,
        "signatures": signature_view(rows),
        "judged": judged_view(rows),
        "judged_mark": JUDGED_MARK,
        "run_files": [{"label": r.label, "path": str(r.run.path), "model": r.run.model,
                       "results": [p.name for p in r.run.results_files]} for r in rows if r.run is not None],
        "task_titles": {t: f"{TASK_TITLES.get(t, t)} (cpsd_{t})" for t in TASKS},
        "page_size": PAGE_SIZE,
        "n_samples": len(data["samples"]),
        "samples_packed": pack(data),
        "meta_json": script_json({"taskTitles": {t: TASK_TITLES.get(t, t) for t in TASKS},
                                  "pageSize": PAGE_SIZE, "generated": GENERATED}),
    }


def render_page(rows: Sequence[Row], tables: Sequence[TableSpec] = TABLES,
                comparison: Optional[tuple[Row, Row, Sequence[PairedResult]]] = None,
                n_boot: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED, figures: bool = True,
                title: str = "CPSDBench leaderboard") -> str:
    """The page as one HTML string.

    Args:
        rows: :func:`cpsd_tasks.report.tables.build_rows` rows; run rows without CIs get them here
            (:func:`cpsd_tasks.report.stats.add_cis` with ``n_boot`` and ``seed``).
        tables: the tables to show (default Tables 3–8).
        comparison: ``(row A, row B, compare_rows(A, B))`` for the paired-test section, or ``None``.
        figures: draw the figures (matplotlib; a few seconds).

    Returns:
        The HTML text (UTF-8 when written).
    """
    import jinja2

    if not any(r.ci for r in rows if r.run is not None):
        add_cis(rows, tables, n_boot, seed)
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATE_DIR)),
                             autoescape=jinja2.select_autoescape(default=True, default_for_string=True),
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    return env.get_template(TEMPLATE).render(**page_context(rows, tables, comparison, n_boot, seed, figures, title))


def write_page(path: Path, rows: Sequence[Row], tables: Sequence[TableSpec] = TABLES,
               comparison: Optional[tuple[Row, Row, Sequence[PairedResult]]] = None,
               n_boot: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED, figures: bool = True) -> Path:
    """Write :func:`render_page` to ``path`` (folders created) and return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_page(rows, tables, comparison, n_boot, seed, figures), encoding="utf-8")
    return path


def build(runs: Sequence[Path | str], path: Path | str, names: Sequence[str] = (), with_paper: bool = False,
          compare: Optional[tuple[str, str]] = None, metric: Optional[str] = None, tables: str = "all",
          n_boot: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED, figures: bool = True) -> Path:
    """``cpsd-leaderboard RUNS... --html PATH`` from Python.

    Args:
        runs: harness output folders or results files (:func:`cpsd_tasks.report.runs.load_runs`).
        path: the HTML file to write. names: display names for the runs, in order.
        with_paper: add the paper's 14 published rows. compare: two run names (or 1-based run
        numbers) for the paired test. metric: its metric (default each task's primary metric).
        tables: ``--tables`` selection. n_boot, seed: bootstrap settings. figures: draw figures.

    Returns:
        The path written.

    Raises:
        FileNotFoundError: a path holds no results file. KeyError: a ``compare`` name matches no
        run row (or several). ValueError: an unknown table name.
    """
    from cpsd_tasks.report.runs import load_runs
    from cpsd_tasks.report.stats import compare_rows
    from cpsd_tasks.report.tables import build_rows, find_row, select_tables

    specs = select_tables(tables)
    rows = build_rows(load_runs([Path(p) for p in runs], list(names)), with_paper=with_paper)
    add_cis(rows, specs, n_boot, seed)
    comparison = None
    if compare:
        row_a, row_b = (find_row(rows, k) for k in compare)
        comparison = (row_a, row_b, compare_rows(row_a, row_b, metric, n_boot, seed))
    return write_page(Path(path), rows, specs, comparison, n_boot, seed, figures)
