"""Which harness output files belong together: results files, their sample logs, rescored JSONs.

File names as the harness and ``cpsd-rescore`` write them (the time is an ISO stamp that sorts
lexically)::

    OUT/<model>/results_<time>.json
    OUT/<model>/samples_<harness task>_<time>.jsonl     (same <time> as its results file)
    OUT/rescored_<time>.json                            (cpsd-rescore OUT; anywhere under OUT)
    OUT/<model>/judged_<time>.json                      (cpsd-judge OUT: one per run folder)

Only file finding and the reading of rescored JSONs live here; :mod:`cpsd_tasks.report.runs`
turns the files into runs.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any, Optional, Sequence

from cpsd_tasks.report.jsonio import read_json

log = logging.getLogger(__name__)

RESULTS_RE = re.compile(r"^results_(?P<ts>.+)\.json$")
SAMPLES_RE = re.compile(r"^samples_(?P<task>.+)_(?P<ts>[^_]+)\.jsonl$")
RESCORED_GLOB = "rescored_*.json"
JUDGED_GLOB = "judged_*.json"


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


def is_rescored_file(data: Any) -> bool:
    """True for the JSON written by ``cpsd-rescore`` (``{"runs": {...}}``, no ``results``)."""
    return isinstance(data, dict) and isinstance(data.get("runs"), dict) and "results" not in data


def find_rescored(folder: Path) -> list[Path]:
    """The ``rescored_<time>.json`` files of ``cpsd-rescore`` for a run folder: in the folder itself
    and in the folder above it (``cpsd-rescore OUT`` writes into ``OUT``, the run is ``OUT/<model>``),
    oldest first."""
    found = {p.resolve() for d in (folder, folder.parent) for p in Path(d).glob(RESCORED_GLOB)}
    return sorted(found, key=lambda p: p.name)


def rescored_under(path: Path) -> list[Path]:
    """Every ``rescored_<time>.json`` under the folder ``path``, at any depth (``cpsd-rescore DIR``
    writes into ``DIR``, the harness puts runs one or two levels below it), oldest first; ``[]``
    for a file."""
    path = Path(path)
    if not path.is_dir():
        return []
    return sorted({p.resolve() for p in path.rglob(RESCORED_GLOB)}, key=lambda p: p.name)


def rescored_targets(path: Path) -> list[Path]:
    """The run folders a ``cpsd-rescore`` output names (its ``folder`` fields, else
    ``<its folder>/<run name>``); ``[]`` when it is not one."""
    try:
        data = read_json(path)
    except (OSError, ValueError):
        return []
    if not is_rescored_file(data):
        return []
    out = []
    for name, entry in data["runs"].items():
        if isinstance(entry, dict):
            out.append(Path(entry["folder"]) if entry.get("folder") else Path(path).parent / name)
    return out


def rescored_entries(path: Path, folder: Path) -> dict[str, dict[str, Any]]:
    """``{harness task name: rescored row}`` of the entries of ``path`` that rescored ``folder``."""
    try:
        data = read_json(path)
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


def find_sample_logs(path: Path, tasks: Sequence[str]) -> dict[Path, dict[str, Path]]:
    """Map each folder under ``path`` holding sample logs of ``tasks`` to ``{task id: newest log}``.

    Args:
        path: a harness ``--output_path`` folder (searched recursively) or one sample log.
        tasks: task ids (``case_summary``); a log of any other task is ignored.

    Returns:
        ``{folder: {task: samples_cpsd_<task>_<time>.jsonl}}``, the newest log per task (the ISO
        time in the name sorts lexically); folders without such a log are left out.
    """
    path = Path(path)
    runs: dict[Path, dict[str, Path]] = {}
    files = [path] if path.is_file() else sorted(path.rglob("samples_cpsd_*.jsonl"))
    for file in files:
        stem = file.name[len("samples_cpsd_"):]
        for task in tasks:
            if stem.startswith(task + "_"):
                best = runs.setdefault(file.parent, {}).get(task)
                if best is None or file.name > best.name:
                    runs[file.parent][task] = file
    return {folder: found for folder, found in runs.items() if found}


def results_of_samples(samples_file: Path) -> Optional[dict[str, Any]]:
    """The ``results_<time>.json`` the harness wrote together with ``samples_file`` (same time
    stamp, same folder), read; ``None`` when there is none."""
    stamp = Path(samples_file).stem.rsplit("_", 1)[-1]
    results = Path(samples_file).parent / f"results_{stamp}.json"
    return read_json(results) if results.is_file() else None



def sample_logs_of(results_file: Path) -> dict[str, Path]:
    """``{harness task name: sample log}`` written together with ``results_file`` (same folder,
    same time stamp; every sample log of the folder when the name has no stamp)."""
    m = RESULTS_RE.match(results_file.name)
    ts = m.group("ts") if m else None
    out: dict[str, Path] = {}
    for s in results_file.parent.glob("samples_*.jsonl"):
        sm = SAMPLES_RE.match(s.name)
        if sm and (ts is None or sm.group("ts") == ts):
            out[sm.group("task")] = s
    return out


def is_judged_file(data: Any) -> bool:
    """True for the JSON written by ``cpsd-judge`` (``"kind": "cpsd-judge"``)."""
    return isinstance(data, dict) and data.get("kind") == "cpsd-judge" and isinstance(data.get("tasks"), dict)


def find_judged(folder: Path) -> list[Path]:
    """The ``judged_<time>.json`` files of ``cpsd-judge`` in a run folder, oldest first."""
    return sorted(Path(folder).glob(JUDGED_GLOB), key=lambda p: p.name)
