"""Leaderboard over lm-eval output folders: the paper's Tables 3–8, bootstrap CIs, paired tests.

Everything here reads the files the harness itself writes with ``--output_path OUT --log_samples``
(``OUT/<model>/results_<time>.json`` and ``OUT/<model>/samples_<task>_<time>.jsonl``), so any run,
old or new, can be analysed without calling a model again. Command line (``cpsd-leaderboard`` or
``python scripts/leaderboard.py``)::

    cpsd-leaderboard OUT_A OUT_B --with-paper --ci --compare A B --out report/

Layout (SPEC §2, §4 and ``reference/paper_results.json``):

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

Uncertainty (documented choices):

* **95 % confidence interval of a cell** (``--ci``): nonparametric percentile bootstrap over
  documents. The task's documents are resampled with replacement ``B`` times (default 1000), the
  task's own aggregation is re-applied to the resampled per-sample values of the sample log
  (``mean`` for per-document metrics; the task's ``!function`` aggregation for corpus metrics such
  as ``f1_macro`` or ``f1_micro``), and the 2.5 and 97.5 percentiles of the replicates are the
  interval. Every cell uses a fresh ``numpy.random.default_rng(seed)`` (default seed 1234), so a
  cell's interval does not depend on which other cells were computed.
* **Paired bootstrap test** (``--compare A B``): the documents both runs scored (matched by the
  doc's ``id``) are resampled with replacement, the *same* indices for both runs, and the metric
  difference ``δ* = m(A*) − m(B*)`` is recomputed ``B`` times. The two-sided p-value is the
  shifted-bootstrap estimate ``p = (1 + #{|δ* − δ| ≥ |δ|}) / (B + 1)`` (Efron & Tibshirani 1993,
  §16.4; the test of Koehn 2004 / Berg-Kirkpatrick et al. 2012 is its one-sided form). Identical
  runs give ``δ = 0`` and ``p = 1`` exactly. The better run is named only when ``p < 0.05``.
"""

from __future__ import annotations

import argparse
import csv
import importlib
import io
import json
import logging
import math
import pkgutil
import re
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import numpy as np

from cpsd_tasks.errors import loads_clean
from cpsd_tasks.tasks import TASKS

log = logging.getLogger("cpsd_tasks.leaderboard")

#: The paper's figures, converted to harness metric names (Tables 3–8; published, PRIVATE data).
PAPER_REFERENCE = Path(__file__).resolve().parent / "reference" / "paper_results.json"
#: Paper metric names that differ from the harness names (SPEC §4.3, §4.4).
PAPER_METRIC_NAMES: dict[str, dict[str, str]] = {
    "case_reading": {"judge": "acc_judge", "exact": "acc_exact", "fuzzy": "acc_fuzzy", "total": "total"},
    "police_exam": {"true_false": "acc_tf", "single_choice": "acc_single", "multi_choice": "acc_multi",
                    "total": "total"},
}

DEFAULT_BOOTSTRAP = 1000
DEFAULT_SEED = 1234
DEFAULT_ALPHA = 0.05
CI_LEVEL = 0.95

DEMO = "demo"
UNKNOWN = "unknown"
PUBLISHED = "published"
PAPER_MARK = "†"
DEMO_MARK = "‡"
UNKNOWN_MARK = "§"
RESCORED_MARK = "ʳ"
PAPER_NOTE = (f"{PAPER_MARK} published figures of the CPSDBench paper (Tong et al. 2024, arXiv:2402.07234, "
              "Tables 3–8), measured by its authors on the PRIVATE CPSDBench data; scores on any other "
              "data are not comparable with them.")
DEMO_NOTE = (f"{DEMO_MARK} demo = the embedded demo set (our own synthetic examples, NOT CPSDBench): a smoke "
             "test of the pipeline, not a measurement.")
UNKNOWN_NOTE = (f"{UNKNOWN_MARK} unknown data: the run has no sample log (--log_samples) and no data_dir in "
                "its metadata, so the data cannot be told (the embedded demo set unless $CPSD_DATA_DIR was set).")


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


#: The paper's six tables (SPEC §5; Tables 3–8), in order.
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

#: The radar chart's four dimensions (SPEC §2): name -> (tasks, metric).
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


# --------------------------------------------------------------------------- values

def to_number(value: Any) -> Optional[float]:
    """A metric value as a float, or ``None`` when it is missing (``None``, ``"N/A"``, NaN, text)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float, np.floating, np.integer)):
        value = float(value)
        return None if math.isnan(value) or math.isinf(value) else value
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return None
        return None if math.isnan(number) or math.isinf(number) else number
    return None


def read_jsonl_lines(path: Path) -> list[dict[str, Any]]:
    """Read a JSONL file, splitting on ``\\n`` only (texts may hold U+2028, which ``splitlines`` splits).

    Lone surrogates (``"\\ud835"`` escapes) and undecodable bytes become U+FFFD
    (:func:`cpsd_tasks.errors.loads_clean`), so nothing downstream fails to write them.
    """
    text = path.read_text(encoding="utf-8", errors="replace")
    return [loads_clean(line) for line in text.split("\n") if line.strip()]


# --------------------------------------------------------------------------- loading runs

_RESULTS_RE = re.compile(r"^results_(?P<ts>.+)\.json$")
_RESCORED_GLOB = "rescored_*.json"
_SAMPLES_RE = re.compile(r"^samples_(?P<task>.+)_(?P<ts>[^_]+)\.jsonl$")


@dataclass
class TaskRun:
    """One task of one run, as the harness wrote it.

    Attributes:
        task: task id (``sentiment``); ``harness_name`` is ``cpsd_<task>``.
        metrics: ``{metric: value}`` from the results JSON for the chosen filter; ``None`` = missing.
        filter: the filter pipeline the values come from (``none`` when present).
        higher_is_better: ``{metric: bool}`` from the results JSON.
        config: the task's config as logged in the results JSON (``metric_list``, ``metadata`` …).
        n: documents scored (``n-samples.effective``), or ``None``.
        samples_path: the sample log, or ``None`` without ``--log_samples``.
        data: ``demo``, ``unknown`` or the data folder the docs came from (``/data/cpsd``).
        n_shot: the run's ``--num_fewshot`` for this task (``n-shot`` of the results), or ``None``.
        rescored: ``{metric: "how"}`` for the values filled in from a ``rescored_*.json`` of
            ``cpsd-rescore`` (the run's own value was missing), ``how`` naming the BERT model.
    """

    task: str
    harness_name: str
    metrics: dict[str, Optional[float]]
    filter: str
    higher_is_better: dict[str, bool]
    config: dict[str, Any]
    n: Optional[int]
    samples_path: Optional[Path]
    data: str = UNKNOWN
    rescored: dict[str, str] = field(default_factory=dict)
    n_shot: Optional[int] = None
    _samples: Optional[list[dict[str, Any]]] = field(default=None, repr=False)

    @property
    def signature(self) -> dict[str, Any]:
        """The task's scoring signature (``configs.<task>.metadata.cpsd_signature``, see
        :mod:`cpsd_tasks.options`); ``{}`` for runs made before signatures existed."""
        sig = (self.config.get("metadata") or {}).get("cpsd_signature")
        return sig if isinstance(sig, dict) else {}

    def samples(self) -> list[dict[str, Any]]:
        """The sample-log records of this task's filter (empty without a sample log), cached."""
        if self._samples is None:
            rows: list[dict[str, Any]] = []
            if self.samples_path is not None:
                rows = [r for r in read_jsonl_lines(self.samples_path)
                        if r.get("filter", self.filter) == self.filter]
            self._samples = rows
        return self._samples


@dataclass
class Run:
    """One model's harness output folder.

    Attributes:
        name: display name (from ``model_args`` ``model=``/``pretrained=``, or ``--name``).
        path: the folder holding ``results_*.json``.
        model: the harness backend (``local-chat-completions``, ``hf`` …).
        model_args: the backend arguments as logged (dict or the original string).
        tasks: ``{task id: TaskRun}``; later result files override earlier ones for the same task.
        limit: the run's ``--limit`` (``None`` for a full run).
        results_files: the result files read, oldest first.
        rescored_files: the ``cpsd-rescore`` outputs whose figures were used.
    """

    name: str
    path: Path
    model: str
    model_args: Any
    tasks: dict[str, TaskRun]
    limit: Any = None
    results_files: list[Path] = field(default_factory=list)
    rescored_files: list[Path] = field(default_factory=list)


def parse_model_args(model_args: Any) -> dict[str, Any]:
    """``model_args`` as a dict: the harness logs a dict, older versions the CLI string ``k=v,k=v``."""
    if isinstance(model_args, dict):
        return model_args
    out: dict[str, Any] = {}
    if isinstance(model_args, str):
        for part in model_args.split(","):
            if "=" in part:
                key, value = part.split("=", 1)
                out[key.strip()] = value.strip()
    return out


def model_name(results: dict[str, Any], fallback: str) -> str:
    """A run's model name: ``model_args`` ``model=``, ``pretrained=``, ``model_name=`` or ``engine=``.

    A local path (absolute, ``./`` or ``~``) is shortened to its last component; hub ids such as
    ``Qwen/Qwen2-7B-Instruct`` are kept. Falls back to the results' ``model_name`` then ``fallback``.
    """
    args = parse_model_args((results.get("config") or {}).get("model_args"))
    for key in ("model", "pretrained", "model_name", "engine", "path"):
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            value = value.strip()
            if value.startswith(("/", "./", "../", "~")) or re.match(r"^[A-Za-z]:[\\/]", value):
                value = Path(value.rstrip("/\\")).name or value
            return value
    name = results.get("model_name")
    return name if isinstance(name, str) and name.strip() else fallback


def _task_id(harness_name: str) -> Optional[str]:
    if not harness_name.startswith("cpsd_"):
        return None
    key = harness_name[len("cpsd_"):]
    return key if key in TASKS else None


def data_of_samples(samples: Sequence[dict[str, Any]]) -> Optional[str]:
    """Where a task's docs came from, read from its sample log (SPEC §1 demo marking).

    Returns:
        ``demo`` when every doc has ``data_source == "demo"`` (or, without ``data_source``, an id
        starting ``demo-``); the data folder (parent of ``<task>/test.jsonl``) when every doc came
        from one file; ``mixed: a, b`` otherwise; ``None`` for no samples.
    """
    sources: set[str] = set()
    for s in samples:
        doc = s.get("doc") or {}
        src = doc.get("data_source")
        if src == DEMO or (src is None and str(doc.get("id", "")).startswith("demo-")):
            sources.add(DEMO)
        elif isinstance(src, str) and src:
            path = Path(src)
            sources.add(str(path.parent.parent) if path.name.endswith(".jsonl") else str(path))
        else:
            sources.add(UNKNOWN)
    if not sources:
        return None
    return sources.pop() if len(sources) == 1 else "mixed: " + ", ".join(sorted(sources))


def _pick_filter(row: dict[str, Any]) -> str:
    filters = [k.split(",", 1)[1] for k in row if "," in k and "_stderr," not in k]
    if not filters or "none" in filters:
        return "none"
    return filters[0]


def _task_runs(results: dict[str, Any], samples_files: dict[str, Path]) -> dict[str, TaskRun]:
    out: dict[str, TaskRun] = {}
    for harness_name, row in (results.get("results") or {}).items():
        task = _task_id(harness_name)
        if task is None or not isinstance(row, dict):
            continue
        flt = _pick_filter(row)
        metrics: dict[str, Optional[float]] = {}
        for key, value in row.items():
            if "," not in key:
                continue
            metric, key_filter = key.split(",", 1)
            if key_filter != flt or metric.endswith("_stderr"):
                continue
            metrics[metric] = to_number(value)
        config = (results.get("configs") or {}).get(harness_name) or {}
        n_info = (results.get("n-samples") or {}).get(harness_name) or {}
        shots = (results.get("n-shot") or {}).get(harness_name)
        tr = TaskRun(task=task, harness_name=harness_name, metrics=metrics, filter=flt,
                     n_shot=int(shots) if isinstance(shots, (int, float)) and not isinstance(shots, bool) else None,
                     higher_is_better=dict((results.get("higher_is_better") or {}).get(harness_name) or {}),
                     config=config, n=n_info.get("effective"), samples_path=samples_files.get(harness_name))
        data = data_of_samples(tr.samples()) if tr.samples_path else None
        if data is None:
            data_dir = (config.get("metadata") or {}).get("data_dir")
            data = str(data_dir) if data_dir else UNKNOWN
        tr.data = data
        out[task] = tr
    return out


def find_result_files(path: Path) -> dict[Path, list[Path]]:
    """Group the ``results_*.json`` files under ``path`` by folder (one folder = one model run).

    Args:
        path: a harness ``--output_path`` folder, a model sub-folder, or one results file.

    Returns:
        ``{folder: [results files, oldest first]}``.

    Raises:
        FileNotFoundError: ``path`` does not exist or holds no results file.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file or folder")
    files = [path] if path.is_file() else sorted(path.rglob("results_*.json"))
    if not files:
        raise FileNotFoundError(f"{path}: no results_*.json (run lm_eval with --output_path)")
    groups: dict[Path, list[Path]] = {}
    for f in files:
        groups.setdefault(f.parent, []).append(f)
    return {k: sorted(v, key=lambda p: p.name) for k, v in sorted(groups.items())}


def load_run(folder: Path, results_files: Optional[Sequence[Path]] = None, name: Optional[str] = None,
             rescored: Sequence[Path] = ()) -> Run:
    """Load one model's run from its folder (results JSONs and their sample logs).

    Several result files in one folder (e.g. ``cpsd_clf`` and ``cpsd_ie`` run separately) are
    merged; for a task in two files the newer file wins. A sample log belongs to the results file
    with the same timestamp.

    Args:
        folder: the folder with ``results_<time>.json`` and ``samples_<task>_<time>.jsonl``.
        results_files: the result files to read (default: all in ``folder``).
        name: display name overriding the one in the results' config.

    Returns:
        A :class:`Run`.

    Raises:
        FileNotFoundError: no results file. json.JSONDecodeError: a corrupt results file.
    """
    folder = Path(folder)
    files = list(results_files) if results_files else sorted(folder.glob("results_*.json"))
    if not files:
        raise FileNotFoundError(f"{folder}: no results_*.json")
    tasks: dict[str, TaskRun] = {}
    last: dict[str, Any] = {}
    for f in sorted(files, key=lambda p: p.name):
        results = loads_clean(f.read_text(encoding="utf-8", errors="replace"))
        m = _RESULTS_RE.match(f.name)
        ts = m.group("ts") if m else None
        samples_files: dict[str, Path] = {}
        for s in f.parent.glob("samples_*.jsonl"):
            sm = _SAMPLES_RE.match(s.name)
            if sm and (ts is None or sm.group("ts") == ts):
                samples_files[sm.group("task")] = s
        tasks.update(_task_runs(results, samples_files))
        last = results
    config = last.get("config") or {}
    run = Run(name=name or model_name(last, folder.name), path=folder, model=str(config.get("model", "")),
              model_args=config.get("model_args"), tasks=tasks, limit=config.get("limit"),
              results_files=sorted(files, key=lambda p: p.name))
    apply_rescored(run, [*find_rescored(folder), *rescored])
    return run


def is_rescored_file(data: Any) -> bool:
    """True for the JSON written by ``cpsd-rescore`` (``{"runs": {...}}``, no ``results``)."""
    return isinstance(data, dict) and isinstance(data.get("runs"), dict) and "results" not in data


def find_rescored(folder: Path) -> list[Path]:
    """The ``rescored_<time>.json`` files of ``cpsd-rescore`` for a run folder: in the folder itself
    and in the folder above it (``cpsd-rescore OUT`` writes into ``OUT``, the run is ``OUT/<model>``),
    oldest first."""
    found = {p.resolve() for d in (folder, folder.parent) for p in Path(d).glob(_RESCORED_GLOB)}
    return sorted(found, key=lambda p: p.name)


def _rescored_entries(path: Path, folder: Path) -> dict[str, dict[str, Any]]:
    """``{harness task name: rescored row}`` of the entries of ``path`` that rescored ``folder``."""
    try:
        data = loads_clean(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError) as err:
        log.warning("%s: not read (%s)", path, err)
        return {}
    if not is_rescored_file(data):
        return {}
    target = folder.resolve()
    out: dict[str, dict[str, Any]] = {}
    for name, entry in data["runs"].items():
        if not isinstance(entry, dict):
            continue
        places = {(path.parent / name).resolve()}
        if entry.get("folder"):
            places.add(Path(entry["folder"]).resolve())
        if target in places:
            out.update({k: v for k, v in (entry.get("results") or {}).items() if isinstance(v, dict)})
    return out


def apply_rescored(run: Run, paths: Sequence[Path]) -> None:
    """Fill a run's missing values (NaN BERTScore, ``score`` of the generation tasks …) from
    ``cpsd-rescore`` outputs, newest last so it wins. Only values the run itself lacks are filled,
    and only from the rescoring of the same sample log the run wrote (matched by file name)."""
    missing = {task: {m for m, v in tr.metrics.items() if v is None} for task, tr in run.tasks.items()}
    for path in sorted({Path(p).resolve() for p in paths}, key=lambda p: p.name):
        for harness_name, row in _rescored_entries(path, run.path).items():
            task = _task_id(harness_name)
            tr = run.tasks.get(task) if task else None
            if tr is None:
                continue
            source = Path(str(row.get("source", ""))).name
            if tr.samples_path is not None and source and source != tr.samples_path.name:
                continue  # the rescoring of another run (older sample log) in the same folder
            how = f"{row.get('bertscore_config') or 'BERTScore model not recorded'}; {path.name}"
            used = False
            for metric, value in row.items():
                number = to_number(value) if not isinstance(value, bool) else None
                if metric in ("n", "seconds") or number is None:
                    continue
                if metric in missing[task] or metric not in tr.metrics:
                    missing[task].add(metric)
                    tr.metrics[metric] = number
                    tr.rescored[metric] = how
                    used = True
            if used and path not in run.rescored_files:
                run.rescored_files.append(path)


def _runs_of_rescored(path: Path, data: dict[str, Any]) -> list[Run]:
    """The runs a ``cpsd-rescore`` output names, loaded with its figures applied."""
    runs: list[Run] = []
    for name, entry in data["runs"].items():
        folder = Path(entry["folder"]) if isinstance(entry, dict) and entry.get("folder") else path.parent / name
        if not folder.is_dir() or not any(folder.glob("results_*.json")):
            raise FileNotFoundError(
                f"{path} is a cpsd-rescore output; the run it rescored ({folder}) has no results_*.json "
                "here. Pass the run's --output_path folder instead (its rescored_*.json is read with it)")
        runs.append(load_run(folder, rescored=[path]))
    if not runs:
        raise ValueError(f"{path}: a cpsd-rescore output that names no run")
    return runs


def load_runs(paths: Sequence[Path | str], names: Optional[Sequence[str]] = None) -> list[Run]:
    """Load every run under ``paths``; a folder holding several model sub-folders gives several runs.

    Args:
        paths: harness output folders (or results files), in the order rows should appear.
        names: display names for the runs in order (``--name``); may be shorter than the runs.

    Returns:
        The runs; duplicate names get `` (2)``, `` (3)`` … appended so they stay distinguishable.

    Raises:
        FileNotFoundError: a path holds no results file.
    """
    runs: list[Run] = []
    for p in paths:
        p = Path(p)
        if p.is_file() and p.suffix == ".json":
            data = loads_clean(p.read_text(encoding="utf-8", errors="replace"))
            if is_rescored_file(data):
                runs += _runs_of_rescored(p, data)
                continue
            if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
                raise ValueError(f"{p}: not a results file of lm-eval (no 'results'); pass the run's "
                                 "--output_path folder or its results_<time>.json")
        for folder, files in find_result_files(p).items():
            runs.append(load_run(folder, files))
    for run, name in zip(runs, names or ()):
        run.name = name
    seen: dict[str, int] = {}
    for run in runs:
        seen[run.name] = seen.get(run.name, 0) + 1
        if seen[run.name] > 1:
            run.name = f"{run.name} ({seen[run.name]})"
    return runs


# --------------------------------------------------------------------------- paper reference

def convert_paper_reference(source: dict[str, Any]) -> dict[str, Any]:
    """Convert the project's transcription of the paper (``shared/reference/paper_results.json``).

    Metric names become the harness names (:data:`PAPER_METRIC_NAMES`); the source note, task
    sizes and type counts are kept; a ``note`` marks the figures as published on private data.

    Returns:
        The dict shipped as ``cpsd_tasks/reference/paper_results.json``.
    """
    return {
        "source": source["source"],
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


def _data_order(data: str) -> int:
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
    rows.sort(key=lambda r: _data_order(r.data))  # stable: keeps run order within a data kind
    if with_paper:
        for model, tasks in paper_reference()["models"].items():
            values = {(t, m): to_number(v) for t, ms in tasks.items() for m, v in ms.items()}
            rows.append(Row(model, PUBLISHED, values))
    return rows


def dimension_scores(row: Row) -> dict[str, Optional[float]]:
    """The radar chart's four dimension scores of a row (SPEC §2): mean over the tasks present.

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


# --------------------------------------------------------------------------- aggregations

class _Fn(str):
    """A ``!function`` reference kept as its dotted path."""


@lru_cache(maxsize=1)
def _yaml_loader():
    """A ``yaml.SafeLoader`` subclass reading ``!function a.b`` as :class:`_Fn` (built lazily so
    importing this module stays cheap)."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!function", lambda ld, node: _Fn(ld.construct_scalar(node)))
    return Loader


def _yaml_metric_aggregations(harness_name: str) -> dict[str, str]:
    """``{metric: aggregation}`` of a task's current YAML (following ``include``); ``!function`` as _Fn."""
    import yaml

    from cpsd_tasks import YAML_DIR

    def load(path: Path, depth: int = 0) -> dict[str, Any]:
        if depth > 5 or not path.is_file():
            return {}
        cfg = yaml.load(path.read_text(encoding="utf-8"), Loader=_yaml_loader()) or {}
        base: dict[str, Any] = {}
        for inc in ([cfg["include"]] if isinstance(cfg.get("include"), str) else cfg.get("include") or []):
            base.update(load(path.parent / inc, depth + 1))
        base.update(cfg)
        return base

    cfg = load(YAML_DIR / f"{harness_name}.yaml")
    return {m["metric"]: m.get("aggregation") for m in cfg.get("metric_list") or []
            if isinstance(m, dict) and "metric" in m}


def _import_dotted(path: str) -> Optional[Callable]:
    module, _, attr = path.rpartition(".")
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError, ValueError):
        return None


def _find_by_name(name: str) -> Optional[Callable]:
    import cpsd_tasks

    for info in pkgutil.iter_modules(cpsd_tasks.__path__):
        if info.ispkg:
            continue
        try:
            module = importlib.import_module(f"cpsd_tasks.{info.name}")
        except Exception:  # noqa: BLE001 - a half-written sibling module must not stop the leaderboard
            continue
        fn = getattr(module, name, None)
        if callable(fn):
            return fn
    return None


def mean_aggregation(items: Sequence[Any]) -> float:
    """The harness's ``mean``: arithmetic mean of the numbers (``nan`` for none)."""
    vals = [float(v) for v in items if to_number(v) is not None]
    return float(np.mean(vals)) if vals else float("nan")


@lru_cache(maxsize=None)
def _aggregation_cached(harness_name: str, metric: str, logged: Optional[str]) -> Optional[Callable]:
    if logged is not None and "\n" not in logged and not logged.lstrip().startswith("def "):
        if logged == "mean":
            return mean_aggregation
        try:
            from lm_eval.api.registry import get_aggregation

            return get_aggregation(logged)
        except Exception:  # noqa: BLE001
            return None
    current = _yaml_metric_aggregations(harness_name).get(metric)
    if isinstance(current, _Fn):
        fn = _import_dotted(str(current))
        if fn is not None:
            return fn
    elif current == "mean" and logged is None:
        return mean_aggregation
    if logged:
        m = re.search(r"def\s+(\w+)\s*\(", logged)
        if m:
            return _find_by_name(m.group(1))
    return None


def aggregation_for(tr: TaskRun, metric: str) -> Optional[Callable[[Sequence[Any]], float]]:
    """The aggregation the harness used for ``metric`` of this task.

    Order: the run's logged ``metric_list`` (a built-in name such as ``mean``); else the task's
    current YAML ``!function`` (e.g. ``cpsd_tasks.classification.agg_f1_macro``); else a function
    of the logged source's name found in a ``cpsd_tasks`` module.

    Returns:
        A callable ``items -> float``, or ``None`` when it cannot be resolved (no CI then).
    """
    logged = None
    for entry in tr.config.get("metric_list") or []:
        if isinstance(entry, dict) and entry.get("metric") == metric:
            agg = entry.get("aggregation")
            logged = agg if isinstance(agg, str) else None
    return _aggregation_cached(tr.harness_name, metric, logged)


def _sample_key(sample: dict[str, Any]) -> str:
    doc = sample.get("doc") or {}
    return str(doc.get("id", f"doc_id:{sample.get('doc_id')}"))


def metric_items(tr: TaskRun, metric: str) -> tuple[list[str], list[Any]]:
    """The per-sample values of ``metric`` in the task's sample log, with each doc's id.

    Returns:
        ``(doc ids, per-sample values)`` in log order; empty lists when there is no sample log or
        the samples lack the metric.
    """
    ids, items = [], []
    for s in tr.samples():
        if metric in s:
            ids.append(_sample_key(s))
            items.append(s[metric])
    return ids, items


def _is_bertscore(fn: Callable) -> bool:
    return getattr(fn, "__module__", "") == "cpsd_tasks.generation" and \
        getattr(fn, "__name__", "") in ("agg_bertscore_f1", "agg_score")


def per_sample_scores(tr: TaskRun, metric: str, items: Sequence[Any],
                      fn: Callable) -> Optional[np.ndarray]:
    """Per-sample numbers whose mean equals the aggregation, when the metric decomposes so.

    Numbers aggregated by ``mean`` are used as they are. BERTScore items ``[ref, cand, task]``
    are scored once with the task's own scorer (``cpsd_tasks.generation.bertscore_f1s``, using the
    run's BERTScore options from its metadata), so a bootstrap never re-runs the model.

    Returns:
        A float array, or ``None`` when the metric is a corpus metric (resample-and-aggregate).
    """
    if fn is mean_aggregation or getattr(fn, "__name__", "") == "mean":
        vals = [to_number(v) for v in items]
        if all(v is not None for v in vals):
            return np.asarray(vals, dtype=float)
        return None
    if _is_bertscore(fn):
        from cpsd_tasks import generation
        from cpsd_tasks.options import set_task_options

        set_task_options(tr.task, dict(tr.config.get("metadata") or {}))
        return np.asarray(generation.bertscore_f1s(items), dtype=float)
    return None


def _percentiles(stats: np.ndarray, level: float = CI_LEVEL) -> Optional[tuple[float, float]]:
    stats = stats[~np.isnan(stats)]
    if stats.size == 0:
        return None
    lo, hi = np.percentile(stats, [100 * (1 - level) / 2, 100 * (1 + level) / 2])
    return float(lo), float(hi)


def _mean_replicates(values: np.ndarray, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """``n_boot`` bootstrap means of ``values`` (resampled with replacement), drawn in chunks of 500."""
    n = len(values)
    return np.concatenate([values[rng.integers(0, n, (min(500, n_boot - done), n))].mean(axis=1)
                           for done in range(0, n_boot, 500)])


def _replicates(n: int, n_boot: int, rng: np.random.Generator,
                stat: Callable[[np.ndarray], float]) -> np.ndarray:
    return np.array([stat(rng.integers(0, n, n)) for _ in range(n_boot)], dtype=float)


def bootstrap_ci(items: Sequence[Any], aggregate: Callable[[Sequence[Any]], float] = mean_aggregation,
                 n_boot: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED,
                 per_sample: Optional[np.ndarray] = None,
                 level: float = CI_LEVEL) -> Optional[tuple[float, float, float]]:
    """Percentile bootstrap CI of a task metric, resampling documents (see module docstring).

    Args:
        items: per-sample values from the sample log (numbers or corpus-metric items).
        aggregate: the task's aggregation, applied to each resample.
        n_boot: number of resamples (≥ 1). seed: ``numpy.random.default_rng`` seed.
        per_sample: optional per-sample numbers whose mean is the metric (fast vectorised path).
        level: confidence level in (0, 1).

    Returns:
        ``(point estimate, low, high)`` — the point estimate is the aggregation of all items — or
        ``None`` for no items or when every replicate is NaN.

    Raises:
        ValueError: ``n_boot < 1`` or ``level`` outside (0, 1).
    """
    if n_boot < 1 or not 0 < level < 1:
        raise ValueError(f"need n_boot >= 1 and 0 < level < 1, got {n_boot}, {level}")
    n = len(items) if per_sample is None else len(per_sample)
    if n == 0:
        return None
    rng = np.random.default_rng(seed)
    if per_sample is not None:
        point = float(np.mean(per_sample))
        stats = _mean_replicates(per_sample, n_boot, rng)
    else:
        items = list(items)
        point = float(aggregate(items))
        stats = _replicates(n, n_boot, rng, lambda idx: float(aggregate([items[i] for i in idx])))
    ci = _percentiles(stats, level)
    return None if ci is None else (point, ci[0], ci[1])


def cell_ci(tr: TaskRun, metric: str, n_boot: int = DEFAULT_BOOTSTRAP,
            seed: int = DEFAULT_SEED) -> Optional[tuple[float, float]]:
    """95 % bootstrap CI of one table cell from the task's sample log.

    Returns:
        ``(low, high)``, or ``None`` when the run has no sample log, the samples lack the metric,
        the aggregation cannot be resolved or cannot be recomputed (e.g. BERTScore model missing;
        logged as a warning).
    """
    _, items = metric_items(tr, metric)
    if not items:
        return None
    fn = aggregation_for(tr, metric)
    if fn is None:
        log.warning("%s %s: aggregation of %s not found; no CI", tr.harness_name, tr.data, metric)
        return None
    try:
        per_sample = per_sample_scores(tr, metric, items, fn)
        result = bootstrap_ci(items, fn, n_boot, seed, per_sample)
    except Exception as err:  # noqa: BLE001 - a metric that cannot be recomputed gets no CI, not a crash
        log.warning("%s %s: no CI (%s: %s)", tr.harness_name, metric, type(err).__name__, err)
        return None
    return None if result is None else (result[1], result[2])


def add_cis(rows: Sequence[Row], tables: Sequence[TableSpec], n_boot: int = DEFAULT_BOOTSTRAP,
            seed: int = DEFAULT_SEED) -> None:
    """Fill ``row.ci`` for every non-empty cell of ``tables`` in the run rows (paper rows have none)."""
    for row in rows:
        if row.run is None:
            continue
        for table in tables:
            for col in table.columns:
                tr = row.tasks.get(col.task)
                if tr is not None and row.value(col.task, col.metric) is not None:
                    ci = cell_ci(tr, col.metric, n_boot, seed)
                    if ci is not None:
                        row.ci[(col.task, col.metric)] = ci


# --------------------------------------------------------------------------- paired test

@dataclass(frozen=True)
class PairedResult:
    """Paired bootstrap test of one task's metric between runs A and B.

    Attributes:
        task, metric: what was compared. n: documents both runs scored.
        a, b: the metric of A and of B on those documents. delta: ``a - b``.
        ci: 95 % percentile interval of the bootstrap ``δ*`` (``None`` when not computable).
        p: two-sided p-value in (0, 1] (see module docstring); ``None`` when not computable.
        better: ``"A"`` name, ``"B"`` name, ``"no significant difference"`` or ``"identical"``.
        note: why a test could not be run, or a remark (e.g. documents not shared).
    """

    task: str
    metric: str
    n: int
    a: Optional[float]
    b: Optional[float]
    delta: Optional[float]
    ci: Optional[tuple[float, float]]
    p: Optional[float]
    better: str
    note: str = ""


def paired_bootstrap(items_a: Sequence[Any], items_b: Sequence[Any],
                     aggregate: Callable[[Sequence[Any]], float] = mean_aggregation,
                     n_boot: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED,
                     per_sample_a: Optional[np.ndarray] = None, per_sample_b: Optional[np.ndarray] = None,
                     ) -> tuple[float, float, float, Optional[tuple[float, float]], float]:
    """Paired bootstrap over aligned documents (item ``i`` of A and of B are the same document).

    Args:
        items_a, items_b: aligned per-sample values (same length). aggregate: the task's
        aggregation. n_boot, seed: resamples and RNG seed. per_sample_a/_b: optional per-sample
        numbers whose mean is the metric (vectorised path; both or neither).

    Returns:
        ``(a, b, delta, ci_of_delta, p)`` with ``p = (1 + #{|δ*−δ| ≥ |δ|}) / (n_boot + 1)``;
        identical inputs give ``delta = 0`` and ``p = 1``.

    Raises:
        ValueError: lengths differ, no items, or ``n_boot < 1``.
    """
    n = len(items_a) if per_sample_a is None else len(per_sample_a)
    n_b = len(items_b) if per_sample_b is None else len(per_sample_b)
    if n != n_b or n == 0 or n_boot < 1:
        raise ValueError(f"paired bootstrap needs two equal, non-empty samples and n_boot >= 1 "
                         f"(got {n}, {n_b}, {n_boot})")
    rng = np.random.default_rng(seed)
    if per_sample_a is not None and per_sample_b is not None:
        a, b = float(per_sample_a.mean()), float(per_sample_b.mean())
        deltas = _mean_replicates(per_sample_a - per_sample_b, n_boot, rng)
    else:
        la, lb = list(items_a), list(items_b)
        a, b = float(aggregate(la)), float(aggregate(lb))
        deltas = _replicates(n, n_boot, rng, lambda idx: float(aggregate([la[i] for i in idx]))
                             - float(aggregate([lb[i] for i in idx])))
    delta = a - b
    valid = deltas[~np.isnan(deltas)]
    if valid.size == 0 or math.isnan(delta):
        return a, b, delta, None, float("nan")
    # Tolerance: float noise must not turn identical runs into a "difference".
    extreme = np.abs(valid - delta) >= abs(delta) - 1e-12
    p = (1 + int(extreme.sum())) / (valid.size + 1)
    return a, b, delta, _percentiles(valid), float(p)


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


def compare_rows(row_a: Row, row_b: Row, metric: Optional[str] = None, n_boot: int = DEFAULT_BOOTSTRAP,
                 seed: int = DEFAULT_SEED, alpha: float = DEFAULT_ALPHA) -> list[PairedResult]:
    """Paired bootstrap test per task shared by two run rows.

    Args:
        row_a, row_b: run rows. metric: metric to compare (default: each task's primary metric,
        SPEC §2). n_boot, seed: bootstrap settings. alpha: significance level for ``better``.

    Returns:
        One :class:`PairedResult` per task both rows have, in registry order. Documents are matched
        by ``doc.id``; only shared documents are compared (the note says how many were dropped).
    """
    out: list[PairedResult] = []
    for task in TASKS:
        ta, tb = row_a.tasks.get(task), row_b.tasks.get(task)
        if ta is None or tb is None:
            continue
        m = metric or TASKS[task].primary_metric
        ids_a, items_a = metric_items(ta, m)
        ids_b, items_b = metric_items(tb, m)
        if not items_a or not items_b:
            out.append(PairedResult(task, m, 0, ta.metrics.get(m), tb.metrics.get(m), None, None, None,
                                    "not tested", "no per-sample values (sample log missing or metric absent)"))
            continue
        map_a, map_b = dict(zip(ids_a, items_a)), dict(zip(ids_b, items_b))
        shared = [k for k in ids_a if k in map_b]
        note = ""
        if len(shared) < max(len(map_a), len(map_b)):
            note = f"{len(shared)} shared documents of {len(map_a)} / {len(map_b)}"
        if ta.data != tb.data:
            note = (note + "; " if note else "") + "different data sources"
        if not shared:
            out.append(PairedResult(task, m, 0, None, None, None, None, None, "not tested", "no shared documents"))
            continue
        fn = aggregation_for(ta, m) or mean_aggregation
        xa, xb = [map_a[k] for k in shared], [map_b[k] for k in shared]
        try:
            psa = per_sample_scores(ta, m, xa, fn)
            psb = per_sample_scores(tb, m, xb, fn) if psa is not None else None
            a, b, delta, ci, p = paired_bootstrap(xa, xb, fn, n_boot, seed, psa if psb is not None else None, psb)
        except Exception as err:  # noqa: BLE001
            out.append(PairedResult(task, m, len(shared), ta.metrics.get(m), tb.metrics.get(m), None, None, None,
                                    "not tested", f"{type(err).__name__}: {err}"))
            continue
        higher = ta.higher_is_better.get(m, True)
        if math.isnan(p):
            better = "not tested"
        elif delta == 0 or abs(delta) < 1e-12:
            better = "identical" if p >= 1.0 else "no significant difference"
        elif p < alpha:
            better = row_a.label if (delta > 0) == higher else row_b.label
        else:
            better = "no significant difference"
        out.append(PairedResult(task, m, len(shared), a, b, delta, ci, None if math.isnan(p) else p, better, note))
    return out


# --------------------------------------------------------------------------- rendering

def fmt(value: Optional[float], digits: int = 4) -> str:
    """A cell value with ``digits`` decimals; ``""`` (blank) when missing — never 0."""
    return "" if value is None else f"{value:.{digits}f}"


def _cell(row: Row, col: Column, with_ci: bool) -> str:
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
                 *(_cell(r, c, with_ci) for c in table.columns)]
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
        kind = _data_order(r.data)
        if previous is not None and kind != previous:
            lines.append(r"\midrule")
        previous = kind
        cells = [latex_escape(r.name), latex_escape(r.data_label),
                 *(latex_escape(_cell(r, c, with_ci)) for c in table.columns)]
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


# --------------------------------------------------------------------------- command line

def _safe(text: str) -> str:
    return re.sub(r"[^\w.-]+", "_", text).strip("_") or "run"


def build_parser() -> argparse.ArgumentParser:
    """The ``cpsd-leaderboard`` argument parser."""
    p = argparse.ArgumentParser(
        prog="cpsd-leaderboard",
        description="The CPSDBench paper's Tables 3-8, bootstrap CIs, paired tests, the radar chart and the "
                    "error analysis, from lm-eval output folders (--output_path OUT --log_samples).",
    )
    p.add_argument("runs", nargs="+", type=Path,
                   help="harness output folders (one per model; a folder with several model sub-folders "
                        "gives several runs) or results_*.json files")
    p.add_argument("--name", action="append", default=[],
                   help="display name for the runs, in order (repeat once per run); default: model_args "
                        "model=/pretrained=")
    p.add_argument("--with-paper", action="store_true",
                   help="add the paper's 14 published rows (figures on the PRIVATE CPSDBench data, marked †)")
    p.add_argument("--tables", default="all", help="tables to show: all (default), or a comma list of 3-8, "
                                                   "clf, ie, qa, tg")
    p.add_argument("--format", default="md,csv,latex",
                   help="file formats written with --out: comma list of md, csv, latex (default all)")
    p.add_argument("--out", type=Path, help="write tables, figures and the error analysis into this folder")
    p.add_argument("--ci", action="store_true", help="add 95%% bootstrap confidence intervals to the cells")
    p.add_argument("--bootstrap", type=int, default=DEFAULT_BOOTSTRAP,
                   help=f"bootstrap resamples (default {DEFAULT_BOOTSTRAP})")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"bootstrap seed (default {DEFAULT_SEED})")
    p.add_argument("--compare", nargs=2, metavar=("A", "B"),
                   help="paired bootstrap test per task between two runs (names or 1-based run numbers)")
    p.add_argument("--metric", help="metric for --compare (default: each task's primary metric)")
    p.add_argument("--no-plots", action="store_true", help="with --out: skip the figures")
    p.add_argument("--no-errors", action="store_true", help="with --out: skip the error analysis export")
    p.add_argument("--quiet", action="store_true", help="do not print the tables")
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of ``cpsd-leaderboard`` / ``python scripts/leaderboard.py``.

    Prints the Markdown tables (and the ``--compare`` result); with ``--out DIR`` also writes
    ``leaderboard.md``, ``leaderboard.tex``, ``tableN_*.csv``, ``compare_*.{md,csv}``,
    ``figures/*.{png,svg}``, ``errors/{mistakes.csv,mistakes.jsonl,error_counts.csv}`` and
    ``signatures.csv`` (each task's scoring signature, when the runs have one).

    Returns:
        0 on success, 2 on a usage or input error (message on stderr).
    """
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        tables = select_tables(args.tables)
        formats = {f.strip().lower() for f in args.format.split(",") if f.strip()}
        bad = formats - {"md", "markdown", "csv", "latex", "tex"}
        if bad:
            raise ValueError(f"unknown format(s) {', '.join(sorted(bad))}; use md, csv, latex")
        runs = load_runs(args.runs, args.name)
        if not any(run.tasks for run in runs):
            raise ValueError("no CPSDBench task (cpsd_*) in " + ", ".join(str(p) for p in args.runs))
        rows = build_rows(runs, with_paper=args.with_paper)
        if args.ci:
            add_cis(rows, tables, args.bootstrap, args.seed)
        comparison = None
        if args.compare:
            row_a, row_b = (find_row(rows, k) for k in args.compare)
            results = compare_rows(row_a, row_b, args.metric, args.bootstrap, args.seed)
            comparison = (row_a, row_b, results)
    except (FileNotFoundError, ValueError, KeyError) as err:
        print(f"cpsd-leaderboard: error: {err.args[0] if isinstance(err, KeyError) else err}", file=sys.stderr)
        return 2

    notes = table_notes(rows, args.ci, args.bootstrap, args.seed)
    md = "\n".join(to_markdown(t, rows, args.ci, notes) for t in tables)
    cmp_md = compare_markdown(*comparison, args.bootstrap, args.seed) if comparison else ""
    if not args.quiet:
        print(md)
        if cmp_md:
            print(cmp_md)
    if args.out is None:
        return 0

    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    if formats & {"csv"}:
        for t in tables:
            path = out / f"{t.id}.csv"
            path.write_text(to_csv(t, rows, args.ci), encoding="utf-8")
            written.append(path)
    if formats & {"latex", "tex"}:
        path = out / "leaderboard.tex"
        path.write_text("% Requires \\usepackage{booktabs}.\n"
                        + "\n".join(to_latex(t, rows, args.ci, notes) for t in tables), encoding="utf-8")
        written.append(path)
    if any(tr.signature for r in rows for tr in r.tasks.values()):
        path = out / "signatures.csv"
        path.write_text(signatures_csv(rows), encoding="utf-8")
        written.append(path)
    if comparison:
        stem = f"compare_{_safe(comparison[0].label)}_vs_{_safe(comparison[1].label)}"
        (out / f"{stem}.md").write_text(cmp_md, encoding="utf-8")
        (out / f"{stem}.csv").write_text(compare_csv(comparison[2]), encoding="utf-8")
        written += [out / f"{stem}.md", out / f"{stem}.csv"]
    figures: list[Path] = []
    judgements = []
    if not (args.no_plots and args.no_errors):
        from cpsd_tasks import errors

        judgements = errors.judge_rows(rows)
    if not args.no_plots:
        from cpsd_tasks import plots

        figures = plots.make_all(rows, out / "figures", judgements)
        written += figures
    if not args.no_errors and judgements:
        written += errors.write_mistakes(judgements, out / "errors")
    if formats & {"md", "markdown"}:
        path = out / "leaderboard.md"
        parts = ["# CPSDBench leaderboard", "", md]
        if cmp_md:
            parts.append(cmp_md)
        pngs = [f for f in figures if f.suffix == ".png"]
        if pngs:
            parts.append("## Figures\n\n" + "\n".join(f"![{f.stem}](figures/{f.name})" for f in pngs) + "\n")
            key = plots.name_key(rows)
            if key:
                parts.append("No CJK font was found for the figures; their model names stand for:\n\n"
                             + "\n".join(f"- {a} = {b}" for a, b in key) + "\n")
        path.write_text("\n".join(parts), encoding="utf-8")
        written.append(path)
    print(f"cpsd-leaderboard: wrote {len(written)} files to {out}", file=sys.stderr)
    for path in written:
        print(f"  {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
