#!/usr/bin/env python
"""Digest of every reading the plugin's readers make of the real-output corpora.

``python scripts/reading_snapshot.py OUT.jsonl [--corpora lawbench lexeval …] [--workers N]``

Reads every output of ``../shared/realout`` (lawbench, lawbench_tasks, lexeval, disc) through the
plugin's own reading functions and writes one JSON line per (corpus, task, item, model): what was
read. Two digests of the same corpora are equal exactly when no reading changed; compare them with
``diff`` or ``--compare OTHER.jsonl`` (lines matched by corpus, task, item, model and reader: prints
per corpus the readings compared and changed, and those only one digest holds, with every line that
differs; a reading only the new digest makes — a reader the older code did not have — is reported,
not counted as a change). A refactoring of the readers must leave the digest unchanged; a change
that alters readings is counted from the diff (CHANGELOG.md, ``READER_VERSION``).

What is read, per output:

* every corpus: the turns (:func:`own_turn`, :func:`first_turn`, :func:`written_turn`, as short
  SHA-1 digests) and the refusal checks (:func:`is_refusal`, :func:`is_clear_refusal`);
* single/multiple choice (lawbench 1-2/3-6, lawbench_tasks 2-8, lexeval, disc; an item with several correct
  letters is read as 多选, with ``multi=True``, by a reader that takes it): the letters and
  turn of :func:`read_choices` (and the rule or reason that decided, when the reader records one —
  that field is left out with ``--letters-only``, to compare with a reader that records none);
* labels (lawbench_tasks 2-2, 2-3, 2-4, 3-3): :func:`read_label` and :func:`strict_label` over the
  task's label words; the 判断 readers (:func:`read_judgement`, both label sets) on the same outputs;
* spans (lawbench_tasks 2-5): :func:`judge_reading` 精确 and 模糊 (prediction digest, verdicts);
* entity lists (lawbench_tasks 2-6): :func:`parse_output` for ``fraud_ner`` (items, validity), and, in a
  line of its own (``"types": "lawbench"``), with LawBench's ten entity types
  (:func:`cpsd_tasks.audit.ner.inventory`, where the installed code has it);
* summaries (lawbench 2-7): :func:`written_turn` (digest) — what ``rougeL_word`` scores.

Nothing here calls a model. The corpora are never copied: only digests are written.
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import multiprocessing
import os
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REALOUT = (ROOT.parent / "shared" / "realout").resolve()
CORPORA = ("lawbench", "lawbench_tasks", "lexeval", "disc")


def _readers():
    """The plugin's reading functions, by name."""
    try:
        from cpsd_tasks.reading.ie_parse import parse_output
    except ImportError:                      # the IE reader before it joined the reading package
        from cpsd_tasks.ie.parse import parse_output
    from cpsd_tasks.qa.score import judge_reading
    from cpsd_tasks.tasks import EXAM_TF_LABELS, READING_JUDGE_LABELS
    try:
        from cpsd_tasks.reading.letters import lawbench_rule, read_choices
        from cpsd_tasks.reading.judgements import read_judgement
        from cpsd_tasks.reading.labels import read_label, strict_label
        from cpsd_tasks.reading.refusals import is_clear_refusal, is_refusal
        from cpsd_tasks.reading.turns import first_turn, own_turn, written_turn
        from cpsd_tasks.reading.lexicon import (EXAM_TF_ALIASES, EXAM_TF_SHORT, READING_JUDGE_ALIASES,
                                                READING_JUDGE_SHORT)
    except ImportError:                      # the readers before the reading package
        from cpsd_tasks.choices import lawbench_rule, read_choices
        from cpsd_tasks.qa.read import (EXAM_TF_ALIASES, EXAM_TF_SHORT, READING_JUDGE_ALIASES, READING_JUDGE_SHORT,
                                        read_judgement)
        from cpsd_tasks.reader import first_turn, is_clear_refusal, is_refusal, own_turn, written_turn
        from cpsd_tasks.text import read_label, strict_label
    try:
        from cpsd_tasks.audit.ner import inventory as lawbench_types
    except ImportError:                      # the IE reader before it took an explicit type inventory
        lawbench_types = None
    return dict(read_choices=read_choices, lawbench_rule=lawbench_rule, read_label=read_label,
                strict_label=strict_label, read_judgement=read_judgement, judge_reading=judge_reading,
                parse_output=parse_output, lawbench_types=lawbench_types, own_turn=own_turn, first_turn=first_turn,
                written_turn=written_turn, is_refusal=is_refusal, is_clear_refusal=is_clear_refusal,
                judge_sets=((READING_JUDGE_LABELS, READING_JUDGE_ALIASES, READING_JUDGE_SHORT),
                            (EXAM_TF_LABELS, EXAM_TF_ALIASES, EXAM_TF_SHORT)))


def _jsonl(path: Path) -> list[dict]:
    """:func:`cpsd_tasks.audit.lawbench.jsonl_records` (a ``.gz`` file or a plain one)."""
    from cpsd_tasks.audit.lawbench import jsonl_records

    return jsonl_records(path)


def _digest(text) -> str:
    if text is None:
        return "None"
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def _stem(text: str) -> str:
    """A lexeval input up to its first option line (:func:`cpsd_tasks.audit.corpora.lexeval_stem`)."""
    from cpsd_tasks.audit.corpora import lexeval_stem

    return lexeval_stem(text)


def _items(corpus: str) -> dict[str, dict]:
    """``{item id: {"task", "kind", …what the readers need}}`` of one corpus."""
    root = REALOUT / corpus / "data"
    items: dict[str, dict] = {}
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        task_json = folder / "task.json"
        meta = json.loads(task_json.read_text(encoding="utf-8")) if task_json.is_file() else {}
        for doc in _jsonl(folder / "test.jsonl"):
            item = {"task": folder.name}
            if corpus == "lawbench":
                if folder.name == "police_exam":
                    item.update(kind="choice", options=doc["options"], question=doc["question"], lawbench=True)
                else:
                    item.update(kind="summary")
            elif corpus == "lawbench_tasks":
                task = folder.name
                if task == "2-8":
                    item.update(kind="choice", options=doc["options"], question=doc.get("stem") or doc["question"])
                elif task in ("2-2", "2-3", "2-4", "3-3"):
                    item.update(kind="label", labels=doc.get("labels") or meta.get("labels"), text=doc.get("question"))
                elif task == "2-5":
                    item.update(kind="span")
                elif task == "2-6":
                    item.update(kind="ner", labels=doc.get("labels") or meta.get("labels"))
                else:
                    item.update(kind="turns")
            elif corpus == "lexeval":
                if doc.get("options"):
                    item.update(kind="choice", options=doc["options"], question=_stem(doc["input"]),
                                multi=bool(doc.get("multi")))
                else:
                    item.update(kind="turns")
            else:
                item.update(kind="choice", options=doc["options"], question=doc["question"],
                            multi=bool(doc.get("multi")))
            items[doc["id"]] = item
    return items


_STATE: dict = {}


def _takes_multi(read_choices) -> bool:
    """Whether the reader takes ``multi`` (reader 2 on; reader 1 read every question as one answer)."""
    import inspect
    return "multi" in inspect.signature(read_choices).parameters


def _choice(r, output, item, record, letters_only):
    if item.get("multi") and _takes_multi(r["read_choices"]):
        reading = r["read_choices"](output, item["options"], item["question"], multi=True)   # read as 多选
    else:
        reading = r["read_choices"](output, item["options"], item["question"])
    record["letters"], record["turn"] = reading.letters, reading.turn
    if not letters_only:
        for name in ("rule", "reason"):
            if getattr(reading, name, None) is not None:
                record[name] = getattr(reading, name)
    if item.get("lawbench"):
        record["lawbench_rule"] = r["lawbench_rule"](output)


def _read(output, item, r, letters_only: bool) -> dict:
    record = {"own": _digest(r["own_turn"](output)), "first": _digest(r["first_turn"](output)),
              "written": _digest(r["written_turn"](output)), "refusal": r["is_refusal"](output),
              "clear_refusal": r["is_clear_refusal"](output)}
    kind = item["kind"]
    if kind == "choice":
        _choice(r, output, item, record, letters_only)
    elif kind == "label":
        labels = item["labels"] or []
        takes_source = "source" in inspect.signature(r["read_label"]).parameters   # (reader 3 and later)
        record["label"] = (r["read_label"](output, labels, source=item.get("text")) if takes_source
                           else r["read_label"](output, labels))
        record["strict"] = r["strict_label"](output, labels)
        record["judgements"] = [list(r["read_judgement"](output, *judge)) for judge in r["judge_sets"]]
    elif kind == "span":
        for qtype in ("精确", "模糊"):
            j = r["judge_reading"](output, "", qtype)
            record[qtype] = [_digest(j.prediction), j.parsed, j.refusal, j.error_class]
    elif kind == "ner":
        record["ner"] = _ner(r["parse_output"](output, "fraud_ner"))
    return record


def _ner(parsed) -> list:
    """An IE reading as digested: ``[valid, digest of the items]``."""
    return [parsed.valid, _digest(json.dumps([list(i) for i in parsed.items], ensure_ascii=False))]


def _lawbench_ner(output, item, r):
    """The 2-6 reading with LawBench's ten types (its own digest line), or ``None`` when the installed
    reader takes no explicit inventory."""
    if item["kind"] != "ner" or r["lawbench_types"] is None:
        return None
    return _ner(r["parse_output"](output, r["lawbench_types"](tuple(item["labels"]))))


def _model_lines(job: tuple[str, str]) -> list[str]:
    corpus, model_path = job
    r = _STATE.setdefault("readers", _readers())
    items = _STATE["items"][corpus]
    letters_only = _STATE["letters_only"]
    model = Path(model_path).name[: -len(".jsonl.gz")]
    lines = []
    for row in _jsonl(Path(model_path)):
        item = items.get(row["id"])
        if item is None:
            continue
        record = {"c": corpus, "t": item["task"], "i": row["id"], "m": model,
                  **_read(row["output"], item, r, letters_only)}
        lines.append(json.dumps(record, ensure_ascii=False, sort_keys=True))
        lawbench = _lawbench_ner(row["output"], item, r)
        if lawbench is not None:
            lines.append(json.dumps({"c": corpus, "t": item["task"], "i": row["id"], "m": model, "types": "lawbench",
                                     "ner": lawbench}, ensure_ascii=False, sort_keys=True))
    return lines


def snapshot(out: Path, corpora=CORPORA, workers: int = 0, letters_only: bool = False) -> Counter:
    """Write the digest of ``corpora`` to ``out``; returns the number of readings per corpus."""
    _STATE["items"] = {corpus: _items(corpus) for corpus in corpora}
    _STATE["letters_only"] = letters_only
    jobs = [(corpus, str(path)) for corpus in corpora
            for path in sorted((REALOUT / corpus / "predictions").glob("*.jsonl.gz"))]
    jobs.sort(key=lambda job: -os.path.getsize(job[1]))      # the largest files first
    workers = workers or os.cpu_count() or 1
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        parts = pool.map(_model_lines, jobs, chunksize=1)
    lines = sorted(line for part in parts for line in part)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return Counter(json.loads(line)["c"] for line in lines)


def _keyed(path: Path) -> dict[tuple, str]:
    """The lines of a digest by reading: ``(corpus, task, item, model, reader)`` (``reader``: the line's
    ``types``, ``None`` for the plugin's own)."""
    out = {}
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            out[(record["c"], record["t"], record["i"], record["m"], record.get("types"))] = line.rstrip("\n")
    return out


def compare(a: Path, b: Path, show: int = 30) -> int:
    """Print, per corpus, the readings both digests make and how many of them changed, and the readings
    only one of them makes (with the first ``show`` lines that differ); returns the number changed or
    missing from the new digest ``b`` (readings only ``b`` makes are reported, not counted)."""
    left, right = _keyed(a), _keyed(b)
    counts: Counter = Counter()
    changed: Counter = Counter()
    for key in sorted(left.keys() & right.keys(), key=repr):  # types: None and names side by side
        counts[key[0]] += 1
        if left[key] != right[key]:
            changed[key[0]] += 1
            if sum(changed.values()) <= show:
                print("-", left[key], "\n+", right[key])
    gone = Counter(key[0] for key in left.keys() - right.keys())
    new = Counter((key[0], key[4]) for key in right.keys() - left.keys())
    for corpus in sorted({key[0] for key in left.keys() | right.keys()}):
        extra = "".join(f", {n} only in the new digest (types: {reader or 'the plugin task'})"
                        for (name, reader), n in sorted(new.items(), key=str) if name == corpus)
        print(f"{corpus}: {counts[corpus]} readings compared, {changed[corpus]} changed"
              + (f", {gone[corpus]} missing from the new digest" if gone[corpus] else "") + extra)
    return sum(changed.values()) + sum(gone.values())


def count_rules(path: Path) -> tuple[int, Counter]:
    """``(choice readings, Counter of the rule that decided or "no answer: <reason>")`` of a digest written
    with the rule field (not ``--letters-only``)."""
    counts: Counter = Counter()
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            if "letters" in record:
                counts[record.get("rule") or f"no answer: {record.get('reason')}"] += 1
    return sum(counts.values()), counts


def main(argv=None) -> int:
    """Entry point: write a digest, optionally compare it with another one (exit 1 when a reading
    changed or is missing from the new one)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--corpora", nargs="*", default=list(CORPORA), choices=CORPORA)
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--letters-only", action="store_true", help="leave out the rule/reason fields")
    parser.add_argument("--compare", type=Path, help="a digest to compare the new one with")
    parser.add_argument("--count-rules", action="store_true",
                        help="only count, in the existing digest OUT, the choice readings by the rule that decided")
    args = parser.parse_args(argv)
    if args.count_rules:
        total, counts = count_rules(args.out)
        print(f"{total} choice readings")
        for name, count in counts.most_common():
            print(f"{count:>8}  {name}")
        return 0
    if not REALOUT.is_dir():
        print(f"reading_snapshot: real-output corpora not found at {REALOUT}", file=sys.stderr)
        return 2
    counts = snapshot(args.out, args.corpora, args.workers, args.letters_only)
    print(", ".join(f"{corpus}: {n}" for corpus, n in sorted(counts.items())), f"→ {args.out}")
    if args.compare:
        return 1 if compare(args.compare, args.out) else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
