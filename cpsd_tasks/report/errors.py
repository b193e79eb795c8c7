"""Per-sample error taxonomy over harness sample logs, and the export of the mistakes (docs/metrics.md#error-classes).

Every sample of a run's sample log (``samples_<task>_<time>.jsonl``) is put in one class —
``correct``, ``format``, ``content``, ``instruction`` or ``refusal`` — by **the task's own judge**,
the function its metrics are computed with (so the analysis and the scores cannot disagree):

* classification: :func:`cpsd_tasks.classification.judge` (``acc`` is 1 exactly when the class is
  ``correct``; a mismatch with the logged ``acc`` is reported, it means the scoring code changed
  since the run);
* NER / RE: :func:`cpsd_tasks.ie.judge` with the run's α and τ;
* case reading / police exam: :func:`cpsd_tasks.qa.judge_reading` / :func:`cpsd_tasks.qa.judge_exam`
  with the run's ``tau_qa``.

The run's α, τ and τ_qa are read from the task's scoring signature in the results JSON
(``configs.<task>.metadata.cpsd_signature``), else from its metadata, else (logs written before
the signature existed) from the per-sample ``alpha``/``tau`` values.

All of them end in :func:`cpsd_tasks.taxonomy.error_class`. Generation tasks have no label or
parse to classify and are skipped; a task whose judge module cannot be imported, or whose sample
log lacks the gold fields the judge needs (not a cpsd log, an older format), is skipped with a
logged warning. Any other exception from a judge is a bug in this package and is raised, with a
note naming the model, task and sample — never turned into a warning. The judged output is the
sample's ``filtered_resps[0]`` — what ``process_results`` saw.

Exports (UTF-8, Chinese written as is, never ``\\u`` escapes): ``mistakes.csv`` (with a UTF-8 BOM
so spreadsheet programs detect the encoding), ``mistakes.jsonl`` and ``error_counts.csv``.

Sample logs are read by :mod:`cpsd_tasks.report.runs` (lone surrogates become U+FFFD there, see
:mod:`cpsd_tasks.report.jsonio`); the exports clean their fields again before writing, so
judgements built by hand cannot break them either.
"""

from __future__ import annotations

import csv
import json
import logging
import re
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, Sequence

from cpsd_tasks.report.jsonio import clean_surrogates, sample_output
from cpsd_tasks.report.tables import Row
from cpsd_tasks.tasks import TASKS, get_task
from cpsd_tasks.taxonomy import ERROR_CLASSES

log = logging.getLogger(__name__)

EXCERPT_CHARS = 160
#: Columns of ``mistakes.csv`` / keys of ``mistakes.jsonl``.
MISTAKE_FIELDS: tuple[str, ...] = ("model", "data", "task", "id", "qtype", "error_class", "gold",
                                   "prediction", "decided", "output", "input")


@dataclass(frozen=True)
class SampleJudgement:
    """One judged sample.

    Attributes:
        model: the row label (model name, ``(demo)`` for demo data). data: the row's data source.
        task: task id. id: the doc's id. qtype: question type for QA tasks, else ``None``.
        error_class: one of :data:`cpsd_tasks.taxonomy.ERROR_CLASSES`.
        gold: the gold answer as text. prediction: what the judge read (label, letters, JSON list
            of items), ``None`` when nothing. output: the raw model output. input: an excerpt of
            the input (whitespace collapsed, at most :data:`EXCERPT_CHARS` characters).
        decided: what decided the reading, from the logged ``reading`` record: ``"rule: declared"``
            (the reading rule that gave the answer) or ``"reason: copied option list"`` (why nothing
            was read); ``None`` when the record names neither (labels, spans, IE, older logs).
    """

    model: str
    data: str
    task: str
    id: str
    qtype: Optional[str]
    error_class: str
    gold: str
    prediction: Optional[str]
    output: Optional[str]
    input: str
    decided: Optional[str] = None


# A judge: (doc, output, run options) -> (error_class, gold text, prediction text or None).
Judge = Callable[[dict[str, Any], Optional[str], dict[str, Any]], tuple[str, str, Optional[str]]]


def _judge_classification(doc: dict[str, Any], output: Optional[str], options: dict[str, Any]):
    from cpsd_tasks.classification import judge

    j = judge(output, doc["label"], get_task(doc["task"]))
    return j.error_class, doc["label"], j.fuzzy


def _float(value: Any, default: float) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return default


def _judge_ie(doc: dict[str, Any], output: Optional[str], options: dict[str, Any]):
    from cpsd_tasks import ie

    alpha = _float(options.get("alpha"), ie.DEFAULT_ALPHA)
    tau = _float(options.get("tau"), ie.DEFAULT_TAU)
    j = ie.judge(doc, output, alpha, tau)
    if get_task(doc["task"]).kind == "re":  # items are (relation, head, tail): show them like the gold
        items = [{"head": i[1], "relation": i[0], "tail": i[2]} for i in j.parsed.items if len(i) == 3]
    else:
        items = [{"type": i[0], "text": i[1]} for i in j.parsed.items if len(i) == 2]
    prediction = json.dumps(items, ensure_ascii=False) if j.parsed.valid else None
    return j.error_class, ie.doc_to_target(doc), prediction


def _judge_reading(doc: dict[str, Any], output: Optional[str], options: dict[str, Any]):
    from cpsd_tasks import qa

    tau = _float(options.get("tau_qa"), qa.TAU_QA_DEFAULT)
    j = qa.judge_reading(output, doc["answer"], doc["qtype"], tau)
    return j.error_class, doc["answer"], j.prediction


def _judge_exam(doc: dict[str, Any], output: Optional[str], options: dict[str, Any]):
    from cpsd_tasks import qa

    j = qa.judge_exam(output, doc["answer"], doc["qtype"], doc.get("options"), doc.get("question"))
    return j.error_class, doc["answer"], j.prediction


#: Doc fields each judge needs, by task kind (a sample log without them cannot be judged).
GOLD_FIELDS: dict[str, tuple[str, ...]] = {
    "classification": ("label",),
    "ner": ("entities",),
    "re": ("relations",),
    "reading": ("answer", "qtype"),
    "exam": ("answer", "qtype"),
}

#: Task kind (:attr:`cpsd_tasks.tasks.TaskSpec.kind`) -> judge adapter.
JUDGES: dict[str, Judge] = {
    "classification": _judge_classification,
    "ner": _judge_ie,
    "re": _judge_ie,
    "reading": _judge_reading,
    "exam": _judge_exam,
}

_WS = re.compile(r"\s+")
def excerpt(text: Any, limit: int = EXCERPT_CHARS) -> str:
    """Collapse all whitespace (newlines, U+2028 …) to single spaces and cut to ``limit`` chars (+ …)."""
    flat = _WS.sub(" ", str(text or "")).strip()
    return flat if len(flat) <= limit else flat[:limit] + "…"


def input_text(doc: dict[str, Any]) -> str:
    """The input a doc shows the model: ``text``; ``context`` + ``question``; ``question`` + options;
    or ``input`` (generation)."""
    if "context" in doc:
        return f"{doc.get('context', '')} 问题：{doc.get('question', '')}"
    if "question" in doc:
        opts = doc.get("options") or []
        if isinstance(opts, dict):
            opts = [{"key": k, "text": v} for k, v in sorted(opts.items())]
        shown = " ".join(f"{o.get('key')}. {o.get('text')}" for o in opts if isinstance(o, dict))
        return f"{doc['question']} {shown}".strip()
    return str(doc.get("text", doc.get("input", "")))


def judge_sample(task: str, doc: dict[str, Any], output: Optional[str],
                 options: Optional[dict[str, Any]] = None) -> tuple[str, str, Optional[str]]:
    """Judge one output with the task's own judge.

    Args:
        task: task id. doc: the doc (as in the sample log; needs ``task`` and the gold fields).
        output: raw model output (``None`` = missing). options: run options (α, τ, τ_qa).

    Returns:
        ``(error_class, gold text, prediction text or None)``.

    Raises:
        KeyError: no judge for this task kind (generation). ImportError: the task's module is not
            available. Anything else the task's judge raises (a bug) is passed on.
    """
    spec = get_task(task)
    doc = dict(doc)
    doc.setdefault("task", spec.id)
    return JUDGES[spec.kind](doc, output, options or {})


def logged_reading(sample: dict[str, Any], kind: str, doc: dict[str, Any]) -> Optional[tuple[str, str, Optional[str]]]:
    """What the run itself read from a sample, from its logged ``reading`` record.

    Args:
        sample: one sample-log record. kind: the task kind. doc: the sample's doc.

    Returns:
        ``(error_class, gold text, prediction text or None)`` as :func:`judge_sample` gives them,
        or ``None`` when the sample log has no ``reading`` record (written before it existed):
        then the sample is judged again.
    """
    record = sample.get("reading")
    if not isinstance(record, dict) or not isinstance(record.get("class"), str):
        return None
    answer = record.get("answer")
    if kind == "classification":
        return record["class"], str(doc["label"]), answer
    if kind in ("reading", "exam"):
        return record["class"], str(doc["answer"]), answer
    if kind in ("ner", "re"):
        from cpsd_tasks import ie

        if answer is None:
            return record["class"], ie.doc_to_target(doc), None
        if kind == "re":
            items = [{"head": i[1], "relation": i[0], "tail": i[2]} for i in answer if len(i) == 3]
        else:
            items = [{"type": i[0], "text": i[1]} for i in answer if len(i) == 2]
        return record["class"], ie.doc_to_target(doc), json.dumps(items, ensure_ascii=False)
    return None


def decided_by(sample: dict[str, Any]) -> Optional[str]:
    """What decided a sample's reading, from its logged ``reading`` record: ``"rule: <name>"`` or
    ``"reason: <why nothing was read>"``, else ``None``."""
    record = sample.get("reading")
    if not isinstance(record, dict):
        return None
    for key in ("rule", "reason"):
        if isinstance(record.get(key), str):
            return f"{key}: {record[key]}"
    return None


def judge_task_samples(model: str, data: str, task: str, samples: Sequence[dict[str, Any]],
                       options: Optional[dict[str, Any]] = None) -> list[SampleJudgement]:
    """Judge every sample of one task's sample log.

    Args:
        model, data: the row label and data source written into each judgement.
        task: task id. samples: sample-log records. options: the run's task metadata.

    Returns:
        One :class:`SampleJudgement` per sample — from the sample's logged ``reading`` record
        (:func:`logged_reading`: what the run read, no parsing again), else from the task's judge
        (older logs); ``[]`` (with a logged note) when the task has
        no judge, its module cannot be imported, or a sample's doc lacks a gold field.

    Raises:
        Exception: whatever the task's judge raises on a well-formed sample (a bug in this
            package), with a note naming model, task and sample.
    """
    spec = get_task(task)
    if spec.kind not in JUDGES:
        log.info("error analysis: %s skipped (no per-sample error taxonomy for %s tasks)", task, spec.kind)
        return []
    base = dict(options or {})
    sig = base.get("cpsd_signature")
    if isinstance(sig, dict):  # the values the run actually scored with
        base.update({k: sig[k] for k in ("alpha", "tau", "tau_qa") if sig.get(k) is not None})
    out: list[SampleJudgement] = []
    mismatches = 0
    for s in samples:
        doc = s.get("doc") or {}
        missing = [f for f in GOLD_FIELDS[spec.kind] if not isinstance(doc, dict) or doc.get(f) is None]
        if missing:
            log.warning("error analysis: %s skipped for %s (sample %s of its log has no doc field %s: "
                        "not a cpsd sample log, or an older format)", task, model, s.get("doc_id"),
                        ", ".join(repr(f) for f in missing))
            return []
        output = sample_output(s)
        opts = dict(base)
        for key in ("alpha", "tau"):  # sample logs written before the signature logged them per sample
            if key in s and not isinstance(sig, dict):
                opts[key] = s[key]
        logged = logged_reading(s, spec.kind, doc)
        try:
            cls, gold, pred = logged if logged is not None else judge_sample(task, doc, output, opts)
        except ImportError as err:
            log.warning("error analysis: %s skipped for %s (judge unavailable: %s: %s)",
                        task, model, type(err).__name__, err)
            return []
        except Exception as err:  # a bug in our judge: surface it, with where it happened
            if hasattr(err, "add_note"):  # Python ≥ 3.11
                err.add_note(f"cpsd_tasks.report.errors: raised by the {spec.kind} judge on {model}/{task} sample "
                             f"{s.get('doc_id')} (doc id {doc.get('id')!r}); this is a bug in cpsd_tasks")
            raise
        if spec.kind == "classification" and "acc" in s and (cls == "correct") != (s["acc"] == 1.0):
            mismatches += 1
        out.append(SampleJudgement(model, data, task, str(doc.get("id", s.get("doc_id"))), doc.get("qtype"),
                                   cls, str(gold), pred, output, excerpt(input_text(doc)), decided_by(s)))
    if mismatches:
        log.warning("error analysis: %s/%s: %d samples judged differently from the logged acc — the "
                    "scoring code changed since this run", model, task, mismatches)
    return out


def judge_rows(rows: Iterable[Row]) -> list[SampleJudgement]:
    """Judge every task with a sample log in the run rows (paper rows have none), tasks in the
    registry's order (the paper's), whatever order the harness wrote them in."""
    out: list[SampleJudgement] = []
    order = {task: number for number, task in enumerate(TASKS)}
    for row in rows:
        if row.run is None:
            continue
        for task, tr in sorted(row.tasks.items(), key=lambda item: order.get(item[0], len(order))):
            samples = tr.samples()
            if not samples:
                continue
            out += judge_task_samples(row.label, row.data, task, samples, tr.config.get("metadata") or {})
    return out


def error_counts(judgements: Iterable[SampleJudgement]) -> dict[tuple[str, str], Counter]:
    """Count classes per ``(model, task)``.

    Returns:
        ``{(model, task): Counter({class: n})}``; every class of :data:`ERROR_CLASSES` is a key.
    """
    out: dict[tuple[str, str], Counter] = {}
    for j in judgements:
        out.setdefault((j.model, j.task), Counter({c: 0 for c in ERROR_CLASSES}))[j.error_class] += 1
    return out


def write_mistakes(judgements: Iterable[SampleJudgement], out_dir: Path) -> list[Path]:
    """Write the non-correct samples to ``mistakes.csv`` (UTF-8 with BOM) and ``mistakes.jsonl``
    (UTF-8, ``ensure_ascii=False``), and the class counts to ``error_counts.csv``.

    Returns:
        The three paths written.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    judgements = [SampleJudgement(**clean_surrogates(asdict(j))) for j in judgements]
    wrong = [j for j in judgements if j.error_class != "correct"]
    csv_path, jsonl_path, counts_path = (out_dir / "mistakes.csv", out_dir / "mistakes.jsonl",
                                         out_dir / "error_counts.csv")
    with csv_path.open("w", encoding="utf-8-sig", newline="") as f:
        w = csv.DictWriter(f, fieldnames=MISTAKE_FIELDS)
        w.writeheader()
        for j in wrong:
            w.writerow({k: ("" if v is None else v) for k, v in asdict(j).items()})
    with jsonl_path.open("w", encoding="utf-8", newline="\n") as f:
        for j in wrong:
            f.write(json.dumps({k: asdict(j)[k] for k in MISTAKE_FIELDS}, ensure_ascii=False) + "\n")
    with counts_path.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["model", "task", *ERROR_CLASSES, "total"])
        for (model, task), counter in error_counts(judgements).items():
            w.writerow([model, task, *(counter[c] for c in ERROR_CLASSES), sum(counter.values())])
    return [csv_path, jsonl_path, counts_path]


def export_all(rows: Iterable[Row], out_dir: Path) -> list[Path]:
    """Judge the rows' sample logs and write the exports of :func:`write_mistakes`.

    Returns:
        The paths written (none when no row has a sample log of a judged task).
    """
    judgements = judge_rows(rows)
    if not judgements:
        log.info("error analysis: no sample logs of judged tasks; nothing exported")
        return []
    return write_mistakes(judgements, out_dir)
