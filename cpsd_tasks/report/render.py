"""Rendering of the leaderboard: Markdown, CSV and LaTeX tables, their footnotes, signatures and
the ``--compare`` result.

Every renderer takes a :class:`~cpsd_tasks.report.tables.TableSpec` and the rows of
:func:`~cpsd_tasks.report.tables.build_rows` (CIs filled by
:func:`~cpsd_tasks.report.stats.add_cis`) and returns text; nothing here reads files or computes
statistics. A blank cell means "not measured", never 0. A new format (e.g. HTML) is one more
function of the same shape, using :func:`fmt`, :func:`cell_text` and :func:`table_notes`.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any, Optional, Sequence

from cpsd_tasks.report.runs import DEMO, UNKNOWN
from cpsd_tasks.report.stats import DEFAULT_ALPHA, DEFAULT_BOOTSTRAP, DEFAULT_SEED, PairedResult
from cpsd_tasks.report.tables import (DEMO_MARK, PAPER_MARK, PUBLISHED, RESCORED_MARK, UNKNOWN_MARK, Column, Row,
                                      TableSpec, data_order)
from cpsd_tasks.tasks import TASKS

PAPER_NOTE = (f"{PAPER_MARK} published figures of the CPSDBench paper (Tong et al. 2024, arXiv:2402.07234, "
              "Tables 3–8), measured by its authors on the PRIVATE CPSDBench data; scores on any other "
              "data are not comparable with them.")
DEMO_NOTE = (f"{DEMO_MARK} demo = the embedded demo set (our own synthetic examples, NOT CPSDBench): a smoke "
             "test of the pipeline, not a measurement.")
UNKNOWN_NOTE = (f"{UNKNOWN_MARK} unknown data: the run has no sample log (--log_samples) and no data_dir in "
                "its metadata, so the data cannot be told (the embedded demo set unless $CPSD_DATA_DIR was set).")


def fmt(value: Optional[float], digits: int = 4) -> str:
    """A cell value with ``digits`` decimals; ``""`` (blank) when missing — never 0."""
    return "" if value is None else f"{value:.{digits}f}"


def cell_text(row: Row, col: Column, with_ci: bool) -> str:
    """A cell as shown in Markdown and LaTeX: :func:`fmt` of the value, ``ʳ`` when rescored, and
    `` [low, high]`` (3 decimals) when ``with_ci`` and the cell has a CI; ``""`` when missing."""
    value = row.value(col.task, col.metric)
    text = fmt(value)
    if text and (col.task, col.metric) in row.rescored:
        text += RESCORED_MARK
    ci = row.ci.get((col.task, col.metric))
    if with_ci and ci is not None and text:
        text += f" [{ci[0]:.3f}, {ci[1]:.3f}]"
    return text


def table_notes(rows: Sequence[Row], with_ci: bool = False, n_boot: int = DEFAULT_BOOTSTRAP,
                seed: int = DEFAULT_SEED) -> list[str]:
    """Footnotes for the rows present: data marks, partial runs, CI method."""
    notes: list[str] = []
    kinds = {r.data for r in rows}
    if PUBLISHED in kinds:
        notes.append(PAPER_NOTE)
    if DEMO in kinds:
        notes.append(DEMO_NOTE)
    if UNKNOWN in kinds:
        notes.append(UNKNOWN_NOTE)
    folders = sorted(k for k in kinds if k not in (PUBLISHED, DEMO, UNKNOWN))
    if folders:
        notes.append("Data column: the folder the documents were read from (see each run's sample log)."
                     + (" Rows on different data folders are not comparable." if len(folders) > 1 else ""))
    for r in rows:
        if r.run is not None and r.run.limit is not None:
            notes.append(f"{r.label}: partial run (--limit {r.run.limit}).")
    few = [r for r in rows if r.shots]
    if few:
        notes.append("n-shot: " + "; ".join(
            f"{r.label} {r.shots} ({', '.join(f'{t} {tr.n_shot}' for t, tr in r.tasks.items() if tr.n_shot)})"
            for r in few) + ". Rows without an n-shot mark are zero-shot, as the paper's (and the published rows).")
    rescored = sorted({(r.label, how) for r in rows for how in r.rescored.values()})
    for label, how in rescored:
        notes.append(f"{RESCORED_MARK} {label}: rescored after the run by cpsd-rescore from its sample log "
                     f"(the run's own value was missing) with {how}.")
    notes += signature_notes(rows)
    if with_ci:
        notes.append(f"[low, high] = 95 % percentile bootstrap CI over documents from the sample log "
                     f"({n_boot} resamples, seed {seed}).")
    notes.append("Blank cell = not measured (task not run or metric missing), not 0.")
    return notes


def signature_notes(rows: Sequence[Row]) -> list[str]:
    """A note per task whose rows were scored differently: their scoring signatures (prompt, data,
    α, τ, τ_qa, BERTScore model, package versions …) differ. Runs without a signature are left out.
    """
    by_task: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for r in rows:
        for task, tr in r.tasks.items():
            if tr.signature:
                by_task.setdefault(task, []).append((r.label, tr.signature))
    notes: list[str] = []
    for task in (t for t in TASKS if t in by_task):
        sigs = by_task[task]
        keys = sorted({k for _, sig in sigs for k in sig} - {"string"})
        differ = [k for k in keys if len({json.dumps(sig.get(k), sort_keys=True) for _, sig in sigs}) > 1]
        if differ:
            notes.append(f"{task}: rows scored differently ({', '.join(differ)} differ; see signatures.csv "
                         f"or each results file's configs.cpsd_{task}.metadata.cpsd_signature).")
    return notes


def signatures_csv(rows: Sequence[Row]) -> str:
    """CSV of every run task's scoring signature: ``model``, ``data``, ``task``, ``signature``
    (the one-line form); empty (header only) when no run has one."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["model", "data", "task", "signature"])
    for r in rows:
        for task in (t for t in TASKS if t in r.tasks):
            sig = r.tasks[task].signature
            if sig:
                w.writerow([r.name, r.data, task, sig.get("string", json.dumps(sig, ensure_ascii=False))])
    return buf.getvalue()


def to_markdown(table: TableSpec, rows: Sequence[Row], with_ci: bool = False,
                notes: Optional[Sequence[str]] = None) -> str:
    """Render one table as GitHub Markdown (title line, table, footnotes)."""
    head = ["Model", "Data", *(c.header for c in table.columns)]
    lines = [f"### {table.title}", "", "| " + " | ".join(head) + " |",
             "|" + "|".join(["---", "---"] + ["---:"] * len(table.columns)) + "|"]
    for r in rows:
        cells = [r.name.replace("|", "\\|"), r.data_label.replace("|", "\\|"),
                 *(cell_text(r, c, with_ci) for c in table.columns)]
        lines.append("| " + " | ".join(cells) + " |")
    if notes:
        lines.append("")
        lines.extend(notes)
    return "\n".join(lines) + "\n"


def csv_header(table: TableSpec, with_ci: bool = False) -> list[str]:
    """CSV header: ``model``, ``data``, ``source`` and one ``<task>.<metric>`` column per cell
    (plus ``.ci_low``/``.ci_high`` when ``with_ci``)."""
    head = ["model", "data", "source"]
    for c in table.columns:
        head.append(c.key)
        if with_ci:
            head += [f"{c.key}.ci_low", f"{c.key}.ci_high"]
    return head


def to_csv(table: TableSpec, rows: Sequence[Row], with_ci: bool = False) -> str:
    """Render one table as CSV text (full float precision; blank = missing). ``source`` is
    ``published (private CPSDBench data)`` for paper rows and the run folder otherwise."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(csv_header(table, with_ci))
    for r in rows:
        source = "published (private CPSDBench data)" if r.is_paper else str(r.run.path if r.run else "")
        out = [r.name, r.data, source]
        for c in table.columns:
            v = r.value(c.task, c.metric)
            out.append("" if v is None else repr(float(v)))
            if with_ci:
                ci = r.ci.get((c.task, c.metric))
                out += ["", ""] if ci is None else [repr(ci[0]), repr(ci[1])]
        writer.writerow(out)
    return buf.getvalue()


def read_csv_table(text: str) -> list[dict[str, Optional[float] | str]]:
    """Parse :func:`to_csv` output back: numbers as floats, blank cells as ``None``."""
    out = []
    for rec in csv.DictReader(io.StringIO(text)):
        out.append({k: (v if k in ("model", "data", "source") else (float(v) if v != "" else None))
                    for k, v in rec.items()})
    return out


_LATEX_ESCAPES = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  PAPER_MARK: r"$^\dagger$", RESCORED_MARK: r"$^r$", DEMO_MARK: r"$^\ddagger$", UNKNOWN_MARK: r"\S{}",
                  "–": "--", "—": "---"}


def latex_escape(text: str) -> str:
    """Escape LaTeX special characters (and map †/‡/§ to math marks)."""
    return "".join(_LATEX_ESCAPES.get(ch, ch) for ch in text)


def to_latex(table: TableSpec, rows: Sequence[Row], with_ci: bool = False,
             notes: Optional[Sequence[str]] = None) -> str:
    """Render one table as a LaTeX ``table`` (booktabs); a ``\\midrule`` separates data kinds."""
    spec = "ll" + "r" * len(table.columns)
    lines = [r"\begin{table}[ht]", r"\centering", r"\small",
             rf"\caption{{{latex_escape(table.title)}}}", rf"\label{{tab:cpsd-{table.id}}}",
             rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
             " & ".join(["Model", "Data", *(latex_escape(c.header) for c in table.columns)]) + r" \\",
             r"\midrule"]
    previous = None
    for r in rows:
        kind = data_order(r.data)
        if previous is not None and kind != previous:
            lines.append(r"\midrule")
        previous = kind
        cells = [latex_escape(r.name), latex_escape(r.data_label),
                 *(latex_escape(cell_text(r, c, with_ci)) for c in table.columns)]
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    for note in notes or ():
        lines.append(r"\par\footnotesize " + latex_escape(note))
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def compare_markdown(row_a: Row, row_b: Row, results: Sequence[PairedResult], n_boot: int, seed: int) -> str:
    """Markdown table of a ``--compare`` result with the method in a footnote."""
    lines = [f"### Paired bootstrap test: {row_a.label} (A) vs {row_b.label} (B)", "",
             "| Task | Metric | n | A | B | Δ (A−B) | 95% CI of Δ | p | Better | Note |",
             "|---|---|---:|---:|---:|---:|---|---:|---|---|"]
    for r in results:
        ci = "" if r.ci is None else f"[{r.ci[0]:.4f}, {r.ci[1]:.4f}]"
        p = "" if r.p is None else f"{r.p:.4f}"
        if r.p is not None and r.p <= 1 / (n_boot + 1) + 1e-12:
            p = f"≤ {p}"  # no replicate as extreme: the bootstrap's smallest attainable p
        lines.append(f"| {r.task} | {r.metric} | {r.n} | {fmt(r.a)} | {fmt(r.b)} | {fmt(r.delta)} | {ci} | {p} | "
                     f"{r.better} | {r.note} |")
    details: dict[str, list[str]] = {}
    for r in results:
        if r.detail:
            details.setdefault(r.detail, []).append(r.task)
    if details:  # a reason shared by several rows (a missing BERTScore model), said once
        lines += [""] + [f"{', '.join(tasks)}: {detail}" for detail, tasks in details.items()]
    lines += ["", f"Documents matched by id and resampled with replacement, the same indices for A and B; "
                  f"{n_boot} resamples, seed {seed}; p = (1 + #{{|δ*−δ| ≥ |δ|}}) / (B + 1), two-sided; "
                  f"'Better' only when p < {DEFAULT_ALPHA}. Identical runs give Δ = 0 and p = 1."]
    if PUBLISHED in (row_a.data, row_b.data) or row_a.data != row_b.data:
        lines.append("Warning: the two rows were measured on different data.")
    return "\n".join(lines) + "\n"


def compare_csv(results: Sequence[PairedResult]) -> str:
    """CSV of a ``--compare`` result (one row per task)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["task", "metric", "n", "a", "b", "delta", "ci_low", "ci_high", "p", "better", "note"])
    for r in results:
        w.writerow([r.task, r.metric, r.n, "" if r.a is None else r.a, "" if r.b is None else r.b,
                    "" if r.delta is None else r.delta, "" if r.ci is None else r.ci[0],
                    "" if r.ci is None else r.ci[1], "" if r.p is None else r.p, r.better, r.note])
    return buf.getvalue()




# --------------------------------------------------------------------------- judged figures (cpsd-judge)

JUDGED_MARK = "ʲ"
#: Counts kept in ``judged_*.json`` but not shown as figures (the ``Sent`` column says how many were judged).
JUDGED_COUNTS = ("rubric_scored", "rubric_unscored")
JUDGED_TITLE = f"Judged figures{JUDGED_MARK} — answers read by meaning after the run (cpsd-judge)"


def judged_items(rows: Sequence[Row]) -> list[dict[str, Any]]:
    """One dict per (run row, judged task, metric) of the ``judged_*.json`` attached to the rows'
    tasks (:attr:`cpsd_tasks.report.runs.TaskRun.judged`), in row and task order.

    Returns:
        ``[{"model", "label", "data" (the Data column's text), "data_source", "task", "metric", "rules"
        (the same metric by the rules, recomputed from the sample log; ``None`` for rubric scores), "judged",
        "sent", "n", "agreement" (share or ``None``), "agree", "compared", "judge", "mode", "prompt_digest"}]``.
    """
    out: list[dict[str, Any]] = []
    for r in rows:
        for task in (t for t in TASKS if t in r.tasks and r.tasks[t].judged):
            j = r.tasks[task].judged
            judge = j.get("judge") or {}
            agree = j.get("agreement") or {}
            for metric, value in (j.get("metrics") or {}).items():
                if metric in JUDGED_COUNTS:
                    continue
                out.append({"model": r.name, "label": r.label, "data": r.data_label, "data_source": r.data,
                            "task": task, "metric": metric,
                            "rules": (j.get("rule_metrics") or {}).get(metric), "judged": value,
                            "sent": j.get("sent"), "n": j.get("n"), "agreement": agree.get("rate"),
                            "agree": agree.get("agree"), "compared": agree.get("n"),
                            "judge": judge.get("model", ""), "mode": judge.get("mode", ""),
                            "prompt_digest": judge.get("prompt_digest", "")})
    return out


def judged_notes(rows: Sequence[Row]) -> list[str]:
    """The footnote naming each judge (model, mode, prompt digest) of the judged figures."""
    judges = sorted({(i["label"], i["judge"], i["mode"], i["prompt_digest"]) for i in judged_items(rows)})
    notes = [f"{JUDGED_MARK} {label}: judged after the run by cpsd-judge with judge {judge} ({mode} mode, prompts "
             f"{digest}) from the sample log; the rule figures are the run's own and unchanged."
             for label, judge, mode, digest in judges]
    if judges:
        notes.append("abstained mode: the judge read only the samples the rules read no answer from, the rules "
                     "decide the others; all mode: the judge read every sample. Agreement = samples where judge and "
                     "rules read the same answer, of those the judge was sent. Rubric scores are 1–5 (docs/judge.md).")
    return notes


def judged_markdown(rows: Sequence[Row]) -> str:
    """The judged figures as a Markdown table beside the rule figures, with their notes; ``""``
    when no row was judged."""
    items = judged_items(rows)
    if not items:
        return ""
    lines = [f"### {JUDGED_TITLE}", "",
             f"| Model | Data | Task | Metric | Rules | Judged{JUDGED_MARK} | Sent | Agreement | Judge |",
             "|---|---|---|---|---:|---:|---:|---:|---|"]
    for i in items:
        agree = "" if i["agreement"] is None else f"{i['agreement']:.4f} ({i['agree']}/{i['compared']})"
        judged = fmt(i["judged"])
        model, data = (i[k].replace("|", "\\|") for k in ("model", "data"))
        lines.append(f"| {model} | {data} | {i['task']} | "
                     f"{i['metric']} | {fmt(i['rules'])} | {judged + JUDGED_MARK if judged else ''} | "
                     f"{i['sent']}/{i['n']} | {agree} | {i['judge']} ({i['mode']}) |")
    return "\n".join([*lines, "", *judged_notes(rows)]) + "\n"


def judged_csv(rows: Sequence[Row]) -> str:
    """The judged figures as CSV (full precision; blank = none): ``model, data, task, metric,
    rules, judged, sent, n, agreement, judge, mode, prompt_digest``; header only when none."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    keys = ["model", "data", "task", "metric", "rules", "judged", "sent", "n", "agreement", "judge", "mode",
            "prompt_digest"]
    w.writerow(keys)
    for i in judged_items(rows):
        row = {**i, "data": i["data_source"]}
        w.writerow(["" if row[k] is None else repr(float(row[k])) if k in ("rules", "judged", "agreement") else row[k]
                    for k in keys])
    return buf.getvalue()
