"""Data layer: find, validate and load a task's JSONL files (SPEC.md §3).

(About 500 lines: the per-kind validators are most of it, one short function per SPEC §3 record
kind, kept beside the loader that runs them so that one file answers "what is valid data".)

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
import logging
import os
import re
import unicodedata
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from cpsd_tasks.exceptions import DataError
from cpsd_tasks.tasks import EXAM_TF_LABELS, READING_JUDGE_LABELS, TaskSpec, get_task
from cpsd_tasks.reading.prepare import LONE_SURROGATE

log = logging.getLogger("cpsd_tasks")

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


# --------------------------------------------------------------------------- field checks

class _Problems:
    """Collects problems for one file; each is ``file:line: field 'x': message``."""

    def __init__(self, path: Path):
        self.path = path
        self.items: list[str] = []

    def add(self, line: int, field: str, message: str) -> None:
        self.items.append(f"{self.path}:{line}: field '{field}': {message}")


def _string_problem(value: Any) -> Optional[str]:
    """What is wrong with a value that should be a non-empty string, or ``None``."""
    if not isinstance(value, str):
        return f"expected a non-empty string, got {type(value).__name__} {value!r:.40}"
    if not value.strip():
        return "expected a non-empty string, got an empty one"
    bad = LONE_SURROGATE.search(value)
    if bad:
        return (f"expected valid Unicode text, got a lone surrogate \\u{ord(bad.group()):04x} at "
                f"character {bad.start() + 1} (a broken \\u escape)")
    return None


def _text(rec: dict, key: str, line: int, probs: _Problems) -> bool:
    if key not in rec:
        probs.add(line, key, "missing; expected a non-empty string")
        return False
    problem = _string_problem(rec[key])
    if problem:
        probs.add(line, key, problem)
    return problem is None


def _one_of(rec: dict, key: str, allowed: tuple[str, ...], line: int, probs: _Problems) -> bool:
    if not _text(rec, key, line, probs):
        return False
    if rec[key] not in allowed:
        probs.add(line, key, f"expected one of {'/'.join(allowed)}, got {rec[key]!r:.40}")
        return False
    return True


def _check_classification(rec: dict, spec: TaskSpec, line: int, probs: _Problems) -> None:
    _text(rec, "text", line, probs)
    _one_of(rec, "label", spec.labels, line, probs)


def _check_list_of_objects(rec: dict, key: str, keys: tuple[str, ...], typed: str,
                           allowed: tuple[str, ...], line: int, probs: _Problems) -> None:
    value = rec.get(key)
    if not isinstance(value, list):
        probs.add(line, key, f"expected a list of {{{', '.join(keys)}}} objects, got "
                             f"{'nothing' if key not in rec else type(value).__name__}")
        return
    for i, item in enumerate(value):
        where = f"{key}[{i}]"
        if not isinstance(item, dict):
            probs.add(line, where, f"expected an object, got {type(item).__name__}")
            continue
        for k in keys:
            problem = _string_problem(item.get(k))
            if problem:
                probs.add(line, f"{where}.{k}", problem)
        if isinstance(item.get(typed), str) and item[typed] not in allowed:
            probs.add(line, f"{where}.{typed}", f"expected one of {'/'.join(allowed)}, got {item[typed]!r:.40}")


def _check_ner(rec: dict, spec: TaskSpec, line: int, probs: _Problems) -> None:
    _text(rec, "text", line, probs)
    _check_list_of_objects(rec, "entities", ("type", "text"), "type", spec.labels, line, probs)


def _check_re(rec: dict, spec: TaskSpec, line: int, probs: _Problems) -> None:
    _text(rec, "text", line, probs)
    _check_list_of_objects(rec, "relations", ("head", "relation", "tail"), "relation", spec.labels,
                           line, probs)


def _check_reading(rec: dict, spec: TaskSpec, line: int, probs: _Problems) -> None:
    _text(rec, "context", line, probs)
    _text(rec, "question", line, probs)
    if _one_of(rec, "qtype", spec.labels, line, probs) and rec["qtype"] == "判断":
        _one_of(rec, "answer", READING_JUDGE_LABELS, line, probs)
    else:
        _text(rec, "answer", line, probs)


_LETTERS = re.compile(r"^[A-Z]+$")


def _check_exam(rec: dict, spec: TaskSpec, line: int, probs: _Problems) -> None:
    _text(rec, "question", line, probs)
    options = rec.get("options")
    if not isinstance(options, dict):
        probs.add(line, "options", "expected an object of letter -> text ({} for 判断), got "
                                   f"{'nothing' if 'options' not in rec else type(options).__name__}")
        options = None
    else:
        for key, value in options.items():
            if not (len(key) == 1 and _LETTERS.match(key)):
                probs.add(line, "options", f"expected single capital letters as keys, got {key!r}")
            problem = _string_problem(value)
            if problem:
                probs.add(line, f"options.{key}", problem)
    if not _one_of(rec, "qtype", spec.labels, line, probs):
        _text(rec, "answer", line, probs)
        return
    qtype = rec["qtype"]
    if qtype == "判断":
        _one_of(rec, "answer", EXAM_TF_LABELS, line, probs)
        return
    if options is not None and len(options) < 2:
        probs.add(line, "options", f"expected at least two options for a {qtype} question")
    if not _text(rec, "answer", line, probs):
        return
    answer = rec["answer"]
    if not _LETTERS.match(answer):
        probs.add(line, "answer", f"expected option letters, got {answer!r:.40}")
    elif qtype == "单选" and len(answer) != 1:
        probs.add(line, "answer", f"expected one letter for 单选, got {answer!r}")
    elif qtype == "多选" and (answer != "".join(sorted(set(answer))) or len(answer) < 2):
        probs.add(line, "answer", f"expected two or more sorted, distinct letters for 多选 (e.g. 'ACD'), "
                                  f"got {answer!r}")
    elif options is not None and any(letter not in options for letter in answer):
        probs.add(line, "answer", f"expected letters among the options {''.join(sorted(options))}, "
                                  f"got {answer!r}")


def _check_generation(rec: dict, spec: TaskSpec, line: int, probs: _Problems) -> None:
    _text(rec, "input", line, probs)
    _text(rec, "reference", line, probs)


_CHECKS: dict[str, Callable[[dict, TaskSpec, int, _Problems], None]] = {
    "classification": _check_classification,
    "ner": _check_ner,
    "re": _check_re,
    "reading": _check_reading,
    "exam": _check_exam,
    "generation": _check_generation,
}

#: Fields kept for each task kind, in this order (extra fields in the file are ignored).
FIELDS: dict[str, tuple[str, ...]] = {
    "classification": ("id", "text", "label"),
    "ner": ("id", "text", "entities"),
    "re": ("id", "text", "relations"),
    "reading": ("id", "context", "question", "answer", "qtype"),
    "exam": ("id", "question", "options", "answer", "qtype"),
    "generation": ("id", "input", "reference"),
}


#: Keys kept inside list items (extra keys such as offsets are ignored, like extra fields).
_ITEM_KEYS: dict[str, tuple[str, ...]] = {"entities": ("type", "text"), "relations": ("head", "relation", "tail")}

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
        path: a JSONL file in the SPEC §3 schema of ``task_id``.
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
                        f"as <data_dir>/{spec.id}/{path.name} (SPEC §3)")
    raw = path.read_bytes()
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    probs = _Problems(path)
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
        _CHECKS[spec.kind](rec, spec, lineno, probs)
        kept = {key: rec.get(key) for key in FIELDS[spec.kind]}
        kept["id"] = rid
        for key, item_keys in _ITEM_KEYS.items():  # entities/relations: schema keys only
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


#: The fields that make a doc's content, per task kind: a few-shot doc with the same content as a
#: test doc would show that test doc solved in its own prompt.
CONTENT_FIELDS: dict[str, tuple[str, ...]] = {
    "classification": ("text",),
    "ner": ("text",),
    "re": ("text",),
    "reading": ("context", "question"),
    "exam": ("question", "options"),
    "generation": ("input",),
}

_ALL_SPACE = re.compile(r"\s+")


def content_key(rec: dict[str, Any], kind: str) -> tuple[str, ...]:
    """A doc's content for duplicate detection: its :data:`CONTENT_FIELDS`, NFKC-folded, with all
    whitespace removed (a copy that differs only in spacing or full-width forms is the same doc)."""
    def flat(value: Any) -> str:
        if isinstance(value, dict):  # exam options: letter order does not matter
            value = json.dumps(value, ensure_ascii=False, sort_keys=True)
        return _ALL_SPACE.sub("", unicodedata.normalize("NFKC", str(value or "")))

    return tuple(flat(rec.get(f)) for f in CONTENT_FIELDS[kind])


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
    probs = _Problems(few_path)
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


def harness_dataset(**kwargs: Any):
    """``custom_dataset`` hook for lm-eval: build a task's ``DatasetDict`` (``test``, ``fewshot``).

    The harness calls this with the task metadata (YAML ``metadata``, model args, ``--metadata``,
    ``config_source``) and the YAML ``dataset_kwargs``, which must hold ``task_id``. Run options
    (α, τ, BERTScore model …) are recorded with :func:`cpsd_tasks.options.set_task_options` and
    checked (:func:`cpsd_tasks.options.check_options`); the task's scoring signature is written
    into the metadata's ``cpsd_signature`` slot (see :mod:`cpsd_tasks.options`), from where the
    harness copies it into the results JSON (``configs.<task>.metadata.cpsd_signature``).

    Returns:
        ``datasets.DatasetDict`` with ``test`` and ``fewshot`` splits.

    Raises:
        DataError: bad or missing data, or (:class:`cpsd_tasks.options.OptionError`) a bad run
            option — before any request is sent.
        KeyError: ``task_id`` is missing from ``dataset_kwargs`` or unknown.
    """
    import datasets

    from cpsd_tasks.options import (SIGNATURE_KEY, check_options, prompt_template, record_signature,
                                    set_task_options, signature)

    if "task_id" not in kwargs:
        raise KeyError("cpsd task YAML must set dataset_kwargs: {task_id: <task id>}")
    spec = get_task(kwargs["task_id"])
    from cpsd_tasks.cli.unguarded import warn_once

    warn_once(kwargs)  # the harness's own API backend, unguarded (plain lm_eval): said once per run
    set_task_options(spec.id, kwargs)
    resolved = check_options(spec.id)
    base, is_demo = resolve_data_dir(kwargs.get("data_dir"))
    docs = load_task_docs(spec.id, str(base))
    sig = signature(spec.id, docs, resolved, prompt_template(spec.id, kwargs.get("config_source")))
    record_signature(spec.id, sig, kwargs.get(SIGNATURE_KEY))
    log.info("cpsd_%s: scoring signature %s", spec.id, sig["string"])
    if spec.kind == "generation":
        from cpsd_tasks.generation.tokens import warm_up

        warm_up([doc["reference"] for doc in docs["test"]])   # (jieba + references, while requests are in flight)
    if is_demo:
        log.warning("cpsd_%s: using the embedded DEMO data (%d samples, synthetic, NOT CPSDBench). "
                    "Set --metadata '{\"data_dir\": …}' or $%s for real data.", spec.id,
                    len(docs["test"]), ENV_VAR)
    else:
        log.warning("cpsd_%s: data from %s (%d samples)", spec.id, base / spec.id, len(docs["test"]))
    out = {}
    for split, rows in docs.items():
        if rows:
            out[split] = datasets.Dataset.from_list(rows)
        else:
            out[split] = datasets.Dataset.from_list(docs["test"][:1]).select([])
    return datasets.DatasetDict(out)


def _fewshot_sampler_class():
    from lm_eval.api.samplers import ContextSampler

    class FewshotSampler(ContextSampler):
        """The harness's default sampler, with a clear error when no ``fewshot.jsonl`` exists."""

        def sample(self, n, eval_doc=None, df=None, **kwargs):
            if n and not (df or self.df):
                raise DataError(f"--num_fewshot {n} needs few-shot examples: put them in "
                                "<data_dir>/<task id>/fewshot.jsonl (same schema as test.jsonl)",
                                headline="missing few-shot examples")
            return super().sample(n, eval_doc=eval_doc, df=df, **kwargs)

    return FewshotSampler


def __getattr__(name: str):
    # Built lazily so that importing cpsd_tasks.data does not import lm_eval.
    if name == "FewshotSampler":
        return _fewshot_sampler_class()
    raise AttributeError(name)
