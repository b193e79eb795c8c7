"""The one reader of harness output folders (``--output_path OUT --log_samples``).

The harness writes, per model, ``OUT/<model>/results_<time>.json`` (metrics, task configs,
``n-samples``, ``n-shot``, ``higher_is_better``) and ``OUT/<model>/samples_<task>_<time>.jsonl``
(one record per document and filter: the doc, the model's responses and the per-sample metric
values). ``cpsd-rescore`` adds ``rescored_<time>.json`` beside them, ``cpsd-judge``
``judged_<time>.json`` (attached to the tasks, apart from their metrics). Everything in
:mod:`cpsd_tasks.report` — the leaderboard, rescoring, the error analysis, the figures — and the
tests read these files through this module:

* :func:`load_runs` / :func:`load_run`: folders (or results files, or a rescored JSON) as
  :class:`Run` objects with one :class:`TaskRun` per cpsd task (metrics of one filter, config,
  sample log, data source, rescored values filled in);
* :func:`read_output`: a whole output folder as plain JSON (tests);
* with :mod:`cpsd_tasks.report.files` (which files belong together: ``find_sample_logs``,
  ``results_of_samples`` for rescoring, the rescored JSONs) and :mod:`cpsd_tasks.report.jsonio`
  (:func:`~cpsd_tasks.report.jsonio.loads_clean`, :func:`~cpsd_tasks.report.jsonio.sample_output`)
  this is the reader layer; nothing else in the package opens a harness file.

Every JSON is read with :func:`cpsd_tasks.report.jsonio.loads_clean` (lone surrogates become
U+FFFD). A cell with no value (``"N/A"``, NaN, missing) is ``None``, never 0.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, Optional, Sequence

from cpsd_tasks.report.files import (SAMPLES_RE, find_rescored, find_result_files, is_rescored_file,
                                     rescored_entries, rescored_targets, rescored_under, sample_logs_of)
from cpsd_tasks.report.files import find_judged, is_judged_file
from cpsd_tasks.report.jsonio import read_json, read_jsonl_lines, to_number
from cpsd_tasks.tasks import TASKS

log = logging.getLogger(__name__)

#: Data source of docs from the embedded demo set (``cpsd_tasks/demo``; synthetic, not CPSDBench).
DEMO = "demo"
#: Data source of a run with no sample log and no ``data_dir`` in its metadata.
UNKNOWN = "unknown"


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
        judged: the task's entry of the newest ``judged_*.json`` of ``cpsd-judge`` for this
            sample log (``metrics``, ``rule_metrics``, ``agreement``, ``samples``, and ``judge``:
            model, mode, prompt digest), ``{}`` when the task was not judged. Kept apart from
            ``metrics``: a judged figure never replaces a rule figure.
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
    judged: dict[str, Any] = field(default_factory=dict)
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
        judged_files: the ``cpsd-judge`` outputs read (:func:`apply_judged`).
    """

    name: str
    path: Path
    model: str
    model_args: Any
    tasks: dict[str, TaskRun]
    limit: Any = None
    results_files: list[Path] = field(default_factory=list)
    rescored_files: list[Path] = field(default_factory=list)
    judged_files: list[Path] = field(default_factory=list)


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
    """Where a task's docs came from, read from its sample log (docs/data.md#the-embedded-demo-set demo marking).

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
        results = read_json(f)
        tasks.update(_task_runs(results, sample_logs_of(f)))
        last = results
    config = last.get("config") or {}
    run = Run(name=name or model_name(last, folder.name), path=folder, model=str(config.get("model", "")),
              model_args=config.get("model_args"), tasks=tasks, limit=config.get("limit"),
              results_files=sorted(files, key=lambda p: p.name))
    apply_rescored(run, [*find_rescored(folder), *rescored])
    apply_judged(run, find_judged(folder))
    return run



def apply_rescored(run: Run, paths: Sequence[Path]) -> None:
    """Fill a run's missing values (NaN BERTScore, ``score`` of the generation tasks …) from
    ``cpsd-rescore`` outputs, newest last so it wins. Only values the run itself lacks are filled,
    and only from the rescoring of the same sample log the run wrote (matched by file name)."""
    missing = {task: {m for m, v in tr.metrics.items() if v is None} for task, tr in run.tasks.items()}
    for path in sorted({Path(p).resolve() for p in paths}, key=lambda p: p.name):
        for harness_name, row in rescored_entries(path, run.path).items():
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


def apply_judged(run: Run, paths: Sequence[Path]) -> None:
    """Attach ``cpsd-judge`` outputs to a run's tasks (:attr:`TaskRun.judged`), newest last so it
    wins; only the judging of the sample log the run wrote (matched by file name) is attached. An
    unreadable file is skipped with a warning; nothing of the run's own metrics changes."""
    for path in sorted(paths, key=lambda p: Path(p).name):
        try:
            data = read_json(path)
        except (OSError, ValueError) as err:
            log.warning("%s: not read (%s)", path, err)
            continue
        if not is_judged_file(data):
            continue
        used = False
        for harness_name, entry in data["tasks"].items():
            task = _task_id(harness_name)
            tr = run.tasks.get(task) if task else None
            if tr is None or not isinstance(entry, dict):
                continue
            source = Path(str(entry.get("source") or "")).name
            if tr.samples_path is not None and source and source != tr.samples_path.name:
                continue  # the judging of another run (older sample log) in the same folder
            tr.judged = {**entry, "judge": data.get("judge") or {}, "file": str(path)}
            used = True
        if used and path not in run.judged_files:
            run.judged_files.append(Path(path))


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
            data = read_json(p)
            if is_rescored_file(data):
                runs += _runs_of_rescored(p, data)
                continue
            if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
                raise ValueError(f"{p}: not a results file of lm-eval (no 'results'); pass the run's "
                                 "--output_path folder or its results_<time>.json")
        under = rescored_under(p)  # cpsd-rescore DIR wrote them anywhere under DIR
        for folder, files in find_result_files(p).items():
            runs.append(load_run(folder, files, rescored=under))
    for run, name in zip(runs, names or ()):
        run.name = name
    seen: dict[str, int] = {}
    for run in runs:
        seen[run.name] = seen.get(run.name, 0) + 1
        if seen[run.name] > 1:
            run.name = f"{run.name} ({seen[run.name]})"
    return runs


def unmatched_rescored(paths: Sequence[Path | str], runs: Sequence[Run]) -> list[tuple[Path, list[str]]]:
    """The ``rescored_*.json`` files under ``paths`` (any depth) or beside a run's folder that
    rescored none of ``runs``, each with the run folders it names (for a one-line note).

    A file is matched when one of its entries names a loaded run's folder (as
    :func:`cpsd_tasks.report.files.rescored_entries` matches them).
    """
    found = {f for p in paths for f in rescored_under(Path(p))}
    found |= {f for run in runs for f in find_rescored(run.path)}
    out: list[tuple[Path, list[str]]] = []
    for path in sorted(found, key=lambda p: (p.name, str(p))):
        if any(rescored_entries(path, run.path) for run in runs):
            continue
        out.append((path, [str(t) for t in rescored_targets(path)]))
    return out


# --------------------------------------------------------------------------- a folder as plain JSON

class HarnessOutput(NamedTuple):
    """A whole output folder as plain JSON (see :func:`read_output`).

    Attributes:
        results: the last ``results_*.json`` in path order (newest for one model folder).
        samples: ``{harness task name (cpsd_rumor): [sample records]}``, the newest log per task.
    """

    results: dict[str, Any]
    samples: dict[str, list[dict[str, Any]]]


def read_output(path: Path) -> HarnessOutput:
    """Read a harness ``--output_path`` folder (recursively) as plain JSON, without interpretation.

    Raises:
        FileNotFoundError: no ``results_*.json`` under ``path``.
    """
    path = Path(path)
    results_files = sorted(path.rglob("results_*.json"))
    if not results_files:
        raise FileNotFoundError(f"{path}: no results_*.json (run lm_eval with --output_path)")
    samples: dict[str, list[dict[str, Any]]] = {}
    for file in sorted(path.rglob("samples_*.jsonl"), key=lambda p: (p.name.rsplit("_", 1)[-1], str(p))):
        m = SAMPLES_RE.match(file.name)
        samples[m.group("task") if m else file.stem] = read_jsonl_lines(file)
    return HarnessOutput(read_json(results_files[-1]), samples)
