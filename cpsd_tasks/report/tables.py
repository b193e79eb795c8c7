"""Table specs and rows: the paper's Tables 3–8, the radar dimensions, and one row per run and data.

Layout (docs/metrics.md, docs/leaderboard.md and ``reference/paper_results.json``):

* Table 3 classification ``acc``; Table 4 IE ``precision``/``recall``/``f1`` per task; Table 5 QA
  per-type accuracy and ``total``; Tables 6–8 one generation task each (``bertscore_f1``, BLEU and
  ROUGE, char and word level).
* A cell with no value (task not run, metric missing, ``"N/A"`` or NaN in the results) is blank,
  never 0.
* Rows say where their numbers come from (the ``Data`` column): the data folder of the run, the
  embedded ``demo`` set (synthetic, not CPSDBench), ``unknown`` (no sample log and no ``data_dir``),
  or ``published`` (the paper's own figures on the PRIVATE CPSDBench data, added by
  ``--with-paper``). A run whose tasks came from different data gets one row per data source, so
  numbers from different data are never merged into one row.

Public building blocks (for new output formats, e.g. HTML): :data:`TABLES`, :func:`select_tables`,
:func:`build_rows`, :class:`Row` (``value``, ``data_label``, ``label``, ``ci``, ``rescored``),
:func:`find_row`, :func:`dimension_scores`; rendering is in :mod:`cpsd_tasks.report.render`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np

from cpsd_tasks.report.jsonio import to_number
from cpsd_tasks.report.runs import DEMO, UNKNOWN, Run, TaskRun

#: The paper's figures, converted to harness metric names (Tables 3–8; published, PRIVATE data).
PAPER_REFERENCE = Path(__file__).resolve().parent.parent / "reference" / "paper_results.json"
#: Paper metric names that differ from the harness names (docs/metrics.md#question-answering).
PAPER_METRIC_NAMES: dict[str, dict[str, str]] = {
    "case_reading": {"judge": "acc_judge", "exact": "acc_exact", "fuzzy": "acc_fuzzy", "total": "total"},
    "police_exam": {"true_false": "acc_tf", "single_choice": "acc_single", "multi_choice": "acc_multi",
                    "total": "total"},
}

#: Data source of the paper's rows (``--with-paper``).
PUBLISHED = "published"
PAPER_MARK = "†"
DEMO_MARK = "‡"
UNKNOWN_MARK = "§"
RESCORED_MARK = "ʳ"


# --------------------------------------------------------------------------- table layout

@dataclass(frozen=True)
class Column:
    """One table column: ``task`` id (``sentiment``), harness ``metric`` name, display ``header``."""

    task: str
    metric: str
    header: str

    @property
    def key(self) -> str:
        """Machine key used in CSV headers: ``<task>.<metric>``."""
        return f"{self.task}.{self.metric}"


@dataclass(frozen=True)
class TableSpec:
    """One of the paper's tables: ``id`` (file stem), ``number``, ``title`` and its columns."""

    id: str
    number: int
    title: str
    columns: tuple[Column, ...]


TASK_TITLES: dict[str, str] = {
    "sentiment": "Sentiment", "rumor": "Rumor", "fraud_detection": "Fraud detection",
    "incident_classification": "Incident classification", "drug_ner": "Drug NER", "fraud_ner": "Fraud NER",
    "drug_re": "Drug RE", "case_reading": "Case reading", "police_exam": "Police exam",
    "case_summary": "Case summary", "case_report": "Case report", "legal_analysis": "Legal analysis",
}
TG_METRICS: tuple[tuple[str, str], ...] = (
    ("bertscore_f1", "BERTScore F1"), ("bleu_char", "BLEU char"), ("bleu_word", "BLEU word"),
    ("rouge1_char", "ROUGE-1 char"), ("rougeL_char", "ROUGE-L char"), ("rouge1_word", "ROUGE-1 word"),
    ("rougeL_word", "ROUGE-L word"),
)


def _tg_table(task: str, number: int) -> TableSpec:
    return TableSpec(f"table{number}_{task}", number, f"Table {number} — Text generation: {TASK_TITLES[task]}",
                     tuple(Column(task, m, h) for m, h in TG_METRICS))


#: The paper's six tables (Tables 3–8; docs/leaderboard.md), in order.
TABLES: tuple[TableSpec, ...] = (
    TableSpec("table3_clf", 3, "Table 3 — Classification accuracy (strict acc)",
              tuple(Column(t, "acc", TASK_TITLES[t])
                    for t in ("sentiment", "rumor", "fraud_detection", "incident_classification"))),
    TableSpec("table4_ie", 4, "Table 4 — Information extraction (document-averaged P / R / F1, hybrid metric)",
              tuple(Column(t, m, f"{TASK_TITLES[t]} {h}")
                    for t in ("drug_ner", "fraud_ner", "drug_re")
                    for m, h in (("precision", "P"), ("recall", "R"), ("f1", "F1")))),
    TableSpec("table5_qa", 5, "Table 5 — Question answering: accuracy per question type and total",
              (Column("case_reading", "acc_judge", "Reading judge"),
               Column("case_reading", "acc_exact", "Reading exact"),
               Column("case_reading", "acc_fuzzy", "Reading fuzzy"),
               Column("case_reading", "total", "Reading total"),
               Column("police_exam", "acc_tf", "Exam T/F"),
               Column("police_exam", "acc_single", "Exam single"),
               Column("police_exam", "acc_multi", "Exam multi"),
               Column("police_exam", "total", "Exam total"))),
    _tg_table("case_summary", 6),
    _tg_table("case_report", 7),
    _tg_table("legal_analysis", 8),
)

#: The radar chart's four dimensions (docs/metrics.md#groups): name -> (tasks, metric).
DIMENSIONS: dict[str, tuple[tuple[str, ...], str]] = {
    "CLF acc": (("sentiment", "rumor", "fraud_detection", "incident_classification"), "acc"),
    "IE F1": (("drug_ner", "fraud_ner", "drug_re"), "f1"),
    "QA total": (("case_reading", "police_exam"), "total"),
    "TG BERTScore F1": (("case_summary", "case_report", "legal_analysis"), "bertscore_f1"),
}


def select_tables(names: Optional[str]) -> list[TableSpec]:
    """Pick tables by a comma list of numbers (``3,5``), ids (``table4_ie``) or groups (``clf,ie,qa,tg``).

    Args:
        names: the ``--tables`` value; ``None``/``"all"`` selects all six.

    Returns:
        The chosen :class:`TableSpec` in paper order.

    Raises:
        ValueError: a name matches no table.
    """
    if not names or names == "all":
        return list(TABLES)
    groups = {"clf": {3}, "ie": {4}, "qa": {5}, "tg": {6, 7, 8}}
    wanted: set[int] = set()
    for name in (n.strip() for n in names.split(",") if n.strip()):
        if name in groups:
            wanted |= groups[name]
        elif name.isdigit() and any(t.number == int(name) for t in TABLES):
            wanted.add(int(name))
        elif any(t.id == name for t in TABLES):
            wanted.add(next(t.number for t in TABLES if t.id == name))
        else:
            raise ValueError(f"unknown table {name!r}; use 3-8, clf, ie, qa, tg or one of "
                             f"{', '.join(t.id for t in TABLES)}")
    return [t for t in TABLES if t.number in wanted]



# --------------------------------------------------------------------------- paper reference

def convert_paper_reference(source: dict[str, Any]) -> dict[str, Any]:
    """Convert the project's transcription of the paper (``shared/reference/paper_results.json``).

    Metric names become the harness names (:data:`PAPER_METRIC_NAMES`, defined in docs/metrics.md); the
    task sizes and type counts are kept; ``source`` names the paper and its tables, and a ``note``
    marks the figures as published on private data.

    Returns:
        The dict shipped as ``cpsd_tasks/reference/paper_results.json``.
    """
    return {
        "source": ("CPSDBench paper (arXiv:2402.07234), Tables 3-8. Figures transcribed as published; "
                   "metric meanings in docs/metrics.md."),
        "converted_from": ("shared/reference/paper_results.json (the project's transcription of the "
                           "paper's Tables 3-8)"),
        "note": ("PUBLISHED figures: measured by the CPSDBench authors on their PRIVATE data, which is not "
                 "public. Scores on any other data (the embedded demo set, the public stand-in data, your "
                 "own copy) are NOT comparable with these rows."),
        "metric_names": PAPER_METRIC_NAMES,
        "task_sizes": source["task_sizes"],
        "type_counts": source["type_counts"],
        "models": {model: {task: {PAPER_METRIC_NAMES.get(task, {}).get(k, k): v for k, v in metrics.items()}
                           for task, metrics in tasks.items()}
                   for model, tasks in source["models"].items()},
    }


@lru_cache(maxsize=1)
def paper_reference() -> dict[str, Any]:
    """The shipped paper figures (see :func:`convert_paper_reference`)."""
    return json.loads(PAPER_REFERENCE.read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- rows

@dataclass
class Row:
    """One table row: a run on one data source, or a published paper model.

    Attributes:
        name: model name. data: ``demo``/``unknown``/``published``/data folder.
        values: ``{(task, metric): value or None}`` for every metric known.
        run: the run (``None`` for paper rows). tasks: the run's tasks in this row.
        ci: ``{(task, metric): (low, high)}`` filled by :func:`add_cis`.
    """

    name: str
    data: str
    values: dict[tuple[str, str], Optional[float]]
    run: Optional[Run] = None
    tasks: dict[str, TaskRun] = field(default_factory=dict)
    ci: dict[tuple[str, str], tuple[float, float]] = field(default_factory=dict)
    rescored: dict[tuple[str, str], str] = field(default_factory=dict)

    @property
    def is_paper(self) -> bool:
        """True for the published rows."""
        return self.data == PUBLISHED

    @property
    def shots(self) -> str:
        """``""`` for a zero-shot row (as the paper's), else ``2-shot`` or ``0–2-shot`` (mixed)."""
        counts = sorted({tr.n_shot for tr in self.tasks.values() if tr.n_shot is not None})
        if not counts or counts == [0]:
            return ""
        return f"{counts[0]}-shot" if len(counts) == 1 else f"{counts[0]}–{counts[-1]}-shot"

    @property
    def data_label(self) -> str:
        """The ``Data`` column text (with its footnote mark, and the n-shot when not zero-shot)."""
        if self.data == PUBLISHED:
            return f"published{PAPER_MARK} (private data)"
        shots = f", {self.shots}" if self.shots else ""
        if self.data == DEMO:
            return f"demo{DEMO_MARK}{shots}"
        if self.data == UNKNOWN:
            return f"unknown{UNKNOWN_MARK}{shots}"
        return self.data + shots

    @property
    def label(self) -> str:
        """Short unique label for plots and comparisons: ``name``, ``name (demo)`` or ``name†``."""
        if self.data == PUBLISHED:
            return f"{self.name}{PAPER_MARK}"
        if self.data == DEMO:
            return f"{self.name} (demo)"
        return self.name

    def value(self, task: str, metric: str) -> Optional[float]:
        """The cell value, ``None`` when missing."""
        return self.values.get((task, metric))


def data_order(data: str) -> int:
    """Display rank of a data source: user data folders 1, demo 2, unknown or mixed 3, published 4."""
    return {DEMO: 2, UNKNOWN: 3, PUBLISHED: 4}.get(data, 1 if not data.startswith("mixed") else 3)


def build_rows(runs: Sequence[Run], with_paper: bool = False) -> list[Row]:
    """One row per (run, data source), then the paper's 14 rows when ``with_paper``.

    Rows on user data come first (in run order), then demo rows, then rows of unknown data, then
    the published rows — so numbers from different data are never silently side by side in one row.

    Returns:
        The rows, in display order.
    """
    rows: list[Row] = []
    for run in runs:
        by_data: dict[str, dict[str, TaskRun]] = {}
        for task, tr in run.tasks.items():
            by_data.setdefault(tr.data, {})[task] = tr
        for data, tasks in by_data.items():
            values = {(t, m): v for t, tr in tasks.items() for m, v in tr.metrics.items()}
            rescored = {(t, m): how for t, tr in tasks.items() for m, how in tr.rescored.items()}
            rows.append(Row(run.name, data, values, run, tasks, rescored=rescored))
    if len({r.name for r in rows}) < len(rows):  # a run split over data sources: say which is which
        for r in rows:
            if sum(o.name == r.name for o in rows) > 1 and r.data not in (DEMO,):
                r.name = f"{r.name} [{Path(r.data).name or r.data}]"
    rows.sort(key=lambda r: data_order(r.data))  # stable: keeps run order within a data kind
    if with_paper:
        for model, tasks in paper_reference()["models"].items():
            values = {(t, m): to_number(v) for t, ms in tasks.items() for m, v in ms.items()}
            rows.append(Row(model, PUBLISHED, values))
    return rows


def dimension_scores(row: Row) -> dict[str, Optional[float]]:
    """The radar chart's four dimension scores of a row (docs/metrics.md#groups): mean over the tasks present.

    Returns:
        ``{dimension: mean in [0, 1] or None}``; ``None`` when the row has none of its tasks.
    """
    out: dict[str, Optional[float]] = {}
    for dim, (tasks, metric) in DIMENSIONS.items():
        vals = [v for v in (row.value(t, metric) for t in tasks) if v is not None]
        out[dim] = float(np.mean(vals)) if vals else None
    return out


def dimension_coverage(row: Row) -> dict[str, tuple[int, int]]:
    """``{dimension: (tasks with a value, tasks of the dimension)}``: a dimension score from fewer
    tasks than the dimension has (a run that did 1 of 4 classification tasks) is partial."""
    return {dim: (sum(row.value(t, metric) is not None for t in tasks), len(tasks))
            for dim, (tasks, metric) in DIMENSIONS.items()}


def find_row(rows: Sequence[Row], key: str) -> Row:
    """The run row named ``key`` (its name or label, or a 1-based index among run rows).

    Raises:
        KeyError: no or several rows match; the message lists the run rows.
    """
    run_rows = [r for r in rows if r.run is not None]
    if key.isdigit() and 1 <= int(key) <= len(run_rows):
        return run_rows[int(key) - 1]
    hits = [r for r in run_rows if key in (r.name, r.label)]
    if len(hits) != 1:
        names = ", ".join(f"{i}: {r.label} [{r.data}]" for i, r in enumerate(run_rows, 1))
        raise KeyError(f"{'no' if not hits else 'several'} run rows match {key!r}; run rows are {names}")
    return hits[0]


