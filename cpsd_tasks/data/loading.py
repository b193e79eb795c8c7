"""Find, validate and load a task's JSONL files (docs/data.md#record-format); the checks of each
record kind are :mod:`cpsd_tasks.data.records`.

Resolution order of the data directory (first that is set wins):

1. ``data_dir`` in the task metadata (``--metadata '{"data_dir": "…"}'`` or a model arg);
2. the environment variable ``CPSD_DATA_DIR``;
3. the embedded demo set (``cpsd_tasks/demo``), synthetic and marked as demo.

A directory holds ``<task id>/test.jsonl`` and optionally ``<task id>/fewshot.jsonl``. Every line
of every file is validated before the harness builds a single request; all problems found (up to
:data:`MAX_REPORTED`) are raised together in one :class:`DataError` whose lines read
``<file>:<line>: field '<name>': expected …, got …``.

Accepted on input and documented: a UTF-8 byte-order mark, CRLF line ends, blank lines (they are
not samples), integer ids (turned into strings), and extra fields, also inside entities and
relations (ignored). A lone surrogate (a broken ``\\u`` escape such as ``\\ud800``) in any text is
an error. Every doc handed to
the harness carries two added fields: ``task`` (the task id) and ``data_source`` (``"demo"`` or the
absolute path of the file), so a sample log always says where its doc came from.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Optional, Sequence

from cpsd_tasks.data.records import CONTENT_FIELDS, FIELDS, ITEM_KEYS, RECORD_CHECKS, Problems, content_key
from cpsd_tasks.exceptions import DataError
from cpsd_tasks.tasks import TaskSpec, get_task

DEMO_DIR = Path(__file__).resolve().parent.parent / "demo"
ENV_VAR = "CPSD_DATA_DIR"
MAX_REPORTED = 20
DEMO_SOURCE = "demo"


def resolve_data_dir(data_dir: Optional[str] = None) -> tuple[Path, bool]:
    """Pick the data directory by the documented resolution order.

    Args:
        data_dir: the ``data_dir`` metadata value, if any (relative paths are taken from the
            current directory, like any path a user types).

    Returns:
        ``(absolute directory, is_demo)``.

    Raises:
        DataError: the chosen directory does not exist.
    """
    chosen = data_dir or os.environ.get(ENV_VAR)
    if not chosen:
        return DEMO_DIR, True
    path = Path(chosen).expanduser().resolve()
    if not path.is_dir():
        origin = "metadata data_dir" if data_dir else f"${ENV_VAR}"
        raise DataError(f"{path}: data directory from {origin} does not exist")
    return path, path == DEMO_DIR


# --------------------------------------------------------------------------- reading files

def read_jsonl(path: Path, task_id: str) -> list[dict[str, Any]]:
    """Read and validate one task file (see :func:`read_jsonl_lines` for the details).

    Returns:
        The records in file order (see :func:`read_jsonl_lines`).
    """
    return read_jsonl_lines(path, task_id)[0]


def read_jsonl_lines(path: Path, task_id: str, max_reported: Optional[int] = MAX_REPORTED
                     ) -> tuple[list[dict[str, Any]], list[int]]:
    """Read and validate one task file, keeping each record's line number.

    Args:
        path: a JSONL file in the record format of ``task_id`` (docs/data.md#record-format).
        task_id: task id (``sentiment`` or ``cpsd_sentiment``).
        max_reported: problems written into the message (``None``: all); the error's
            ``problems`` always holds every one.

    Returns:
        ``(records, line numbers)``: the records in file order, each reduced to the schema's fields
        (see :data:`FIELDS`), with ``id`` as a string (``exam`` options stay a ``{letter: text}``
        dict here), and the 1-based line of each record in the file.

    Raises:
        DataError: missing file, not UTF-8, invalid JSON, a line that is not an object, a missing
            or empty field, an unknown label/type, a duplicate id, or no samples at all. The
            message lists up to :data:`MAX_REPORTED` problems as ``file:line: field 'x': …``.
    """
    spec = get_task(task_id)
    path = Path(path)
    if not path.is_file():
        raise DataError(f"{path}: file not found; expected the {spec.id} data "
                        f"as <data_dir>/{spec.id}/{path.name} (record format: docs/data.md)")
    raw = path.read_bytes()
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    probs = Problems(path)
    records: list[dict[str, Any]] = []
    linenos: list[int] = []
    seen: dict[str, int] = {}
    for lineno, line_bytes in enumerate(raw.split(b"\n"), start=1):
        try:
            line = line_bytes.decode("utf-8")
        except UnicodeDecodeError as err:
            probs.add(lineno, "(line)", f"expected UTF-8 text, got byte 0x{line_bytes[err.start]:02x} "
                                        f"at column {err.start + 1} (wrong encoding? convert with iconv)")
            continue
        line = line.strip()
        if not line:
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as err:
            probs.add(lineno, "(line)", f"expected one JSON object per line, got invalid JSON ({err.msg} "
                                        f"at column {err.colno})")
            continue
        if not isinstance(rec, dict):
            probs.add(lineno, "(line)", f"expected a JSON object, got {type(rec).__name__}")
            continue
        rid = rec.get("id")
        if isinstance(rid, int) and not isinstance(rid, bool):
            rid = str(rid)
        if not isinstance(rid, str) or not rid.strip():
            probs.add(lineno, "id", f"expected a non-empty string or integer, got {rec.get('id')!r:.40}")
        elif rid in seen:
            probs.add(lineno, "id", f"duplicate id {rid!r}, first used on line {seen[rid]}")
        else:
            seen[rid] = lineno
        RECORD_CHECKS[spec.kind](rec, spec, lineno, probs)
        kept = {key: rec.get(key) for key in FIELDS[spec.kind]}
        kept["id"] = rid
        for key, item_keys in ITEM_KEYS.items():  # entities/relations: schema keys only
            if isinstance(kept.get(key), list):
                kept[key] = [{k: item.get(k) for k in item_keys} if isinstance(item, dict) else item
                             for item in kept[key]]
        records.append(kept)
        linenos.append(lineno)
    if not records and not probs.items:
        probs.add(1, "(file)", "expected at least one sample, got an empty file")
    if probs.items:
        shown = probs.items[:max_reported]
        more = len(probs.items) - len(shown)
        tail = f"\n… and {more} more problem(s)" if more else ""
        raise DataError(f"invalid {spec.id} data ({len(probs.items)} problem(s)):\n" + "\n".join(shown) + tail,
                        problems=probs.items)
    return records, linenos


def fewshot_leaks(spec: TaskSpec, test: tuple[Path, list[dict[str, Any]], list[int]],
                  fewshot: tuple[Path, list[dict[str, Any]], list[int]]) -> list[str]:
    """Few-shot docs that duplicate a test doc (same id, or same content: :func:`content_key`).

    Args:
        spec: the task. test, fewshot: ``(path, records, line numbers)`` of each file.

    Returns:
        One ``file:line: field 'x': …`` problem per leaking few-shot doc, naming both places.
    """
    test_path, test_recs, test_lines = test
    few_path, few_recs, few_lines = fewshot
    by_id = {r["id"]: line for r, line in zip(test_recs, test_lines)}
    by_content: dict[tuple[str, ...], tuple[int, str]] = {}
    for r, line in zip(test_recs, test_lines):
        by_content.setdefault(content_key(r, spec.kind), (line, r["id"]))
    field = "+".join(CONTENT_FIELDS[spec.kind])
    probs = Problems(few_path)
    for r, line in zip(few_recs, few_lines):
        if r["id"] in by_id:
            probs.add(line, "id", f"expected a few-shot example that is not a test doc, got id {r['id']!r:.40}, "
                                  f"the id of {test_path}:{by_id[r['id']]}")
        elif content_key(r, spec.kind) in by_content:
            t_line, t_id = by_content[content_key(r, spec.kind)]
            probs.add(line, field, f"expected a few-shot example that is not a test doc, got the {field} of "
                                   f"{test_path}:{t_line} (id {t_id!r:.40})")
    return probs.items


def _to_dataset_rows(records: list[dict[str, Any]], spec: TaskSpec, source: str) -> list[dict[str, Any]]:
    """Add ``task``/``data_source`` and give ``options`` one Arrow-friendly shape.

    Arrow would merge differing option dicts into one struct (``{"A": None, …}`` for 判断), so
    options become a list of ``{"key": letter, "text": …}`` sorted by letter.
    """
    rows = []
    for rec in records:
        row = dict(rec)
        if spec.kind == "exam":
            row["options"] = [{"key": k, "text": v} for k, v in sorted(rec["options"].items())]
        row["task"] = spec.id
        row["data_source"] = source
        rows.append(row)
    return rows


def load_task_docs(task_id: str, data_dir: Optional[str] = None, max_reported: Optional[int] = MAX_REPORTED
                   ) -> dict[str, list[dict[str, Any]]]:
    """Load a task's validated docs as plain dicts: ``{"test": [...], "fewshot": [...]}``.

    Args:
        task_id: task id.
        data_dir: optional data directory (else ``$CPSD_DATA_DIR``, else the demo set).
        max_reported: problems per file written into the message (``None``: all); the error's
            ``problems`` holds every one of both files.

    Returns:
        Split name -> list of docs as the harness sees them (see module docstring); ``fewshot`` is
        empty when the directory has no ``fewshot.jsonl``.

    Raises:
        DataError: see :func:`read_jsonl` and :func:`resolve_data_dir` (the problems of both files
            in one error); or a few-shot doc duplicates a test doc, by id or by content (each
            named by both ``file:line`` places, see :func:`fewshot_leaks`).
    """
    spec = get_task(task_id)
    base, is_demo = resolve_data_dir(data_dir)
    read: dict[str, tuple[Path, list[dict[str, Any]], list[int]]] = {}
    errors: list[str] = []
    problems: list[str] = []
    for split, name in (("test", "test.jsonl"), ("fewshot", "fewshot.jsonl")):
        path = base / spec.id / name
        if split == "fewshot" and not path.exists():
            continue
        try:  # every file is checked before anything is raised: one error lists all problems
            read[split] = (path, *read_jsonl_lines(path, spec.id, max_reported))
        except DataError as err:
            errors.append(str(err))
            problems += err.problems
    if errors:
        raise DataError("\n".join(errors), problems=problems)
    if "fewshot" in read:
        leaks = fewshot_leaks(spec, read["test"], read["fewshot"])
        if leaks:
            shown = leaks[:max_reported]
            more = f"\n… and {len(leaks) - len(shown)} more" if len(leaks) > len(shown) else ""
            raise DataError(f"{spec.id}: {len(leaks)} few-shot example(s) duplicate a test doc; each would "
                            f"be shown solved in its own prompt. Remove them from "
                            f"{read['fewshot'][0].name}:\n" + "\n".join(shown) + more,
                            headline="few-shot examples leak test docs", problems=leaks)
    splits: dict[str, list[dict[str, Any]]] = {"fewshot": []}
    for split, (path, records, _) in read.items():
        source = DEMO_SOURCE if is_demo else str(path)
        splits[split] = _to_dataset_rows(records, spec, source)
    return {"test": splits["test"], "fewshot": splits["fewshot"]}


def check_tasks(task_ids: Sequence[str], data_dir: Optional[str] = None) -> tuple[dict[str, int], list[DataError]]:
    """Validate the data of every task in ``task_ids`` at once (nothing is sent anywhere).

    Args:
        task_ids: task ids or harness names (``rumor``, ``cpsd_rumor``), each read once.
        data_dir: as :func:`resolve_data_dir`.

    Returns:
        ``({task id: test docs} of the tasks whose data is valid, [one error per task with bad
        data]``); each error's ``problems`` lists every problem of that task, one line each
        (``<file>:<line>: field '<name>': …``), its ``headline`` what kind they are.

    Raises:
        DataError: the data directory itself does not exist (nothing else can be checked).
    """
    base, _ = resolve_data_dir(data_dir)
    counts: dict[str, int] = {}
    errors: list[DataError] = []
    for task_id in dict.fromkeys(get_task(t).id for t in task_ids):
        try:
            counts[task_id] = len(load_task_docs(task_id, str(base), max_reported=None)["test"])
        except DataError as err:
            errors.append(err)
    return counts, errors
