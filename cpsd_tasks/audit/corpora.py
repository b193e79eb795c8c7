"""The disc, lexeval and lawbench_tasks corpora of the reading audit: loaders, readings, model tables.

Each corpus folder (``../shared/realout/<name>``, layout in its README) holds ``data/<task>/test.jsonl``
(the items and gold answers) and ``predictions/<model>.jsonl.gz`` (raw outputs). Every output is read
through the plugin's own task hooks, as imported at run time:

* choice items (disc, lexeval, lawbench_tasks 2-8): :func:`cpsd_tasks.qa.score.judge_exam` with
  qtype 多选 for items with several gold letters and 单选 otherwise, the item's real options (A–E
  where there are five) and its question;
* one-label items (lawbench_tasks 2-2, 2-4): :func:`cpsd_tasks.reading.read_label` over the task's label words;
* spans (lawbench_tasks 2-5): :func:`cpsd_tasks.qa.score.judge_reading` with qtype 精确;
* entity lists (lawbench_tasks 2-6): the IE reader with LawBench's ten entity types and the plugin's
  IE metric (:mod:`cpsd_tasks.audit.ner`);

and beside them the peer's own rule (:mod:`cpsd_tasks.audit.peers`).
"""

from __future__ import annotations

import csv
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from cpsd_tasks.audit import cache, peers
from cpsd_tasks.audit.lawbench import jsonl_records

CORPORA = ("lawbench", "disc", "lexeval", "lawbench_tasks")
#: lawbench_tasks tasks read, by kind.
LABEL_TASKS = ("2-2", "2-4")
CHOICE_TASKS = ("2-8",)
SPAN_TASKS = ("2-5",)
NER_TASKS = ("2-6",)
#: Why a task of a corpus is not read (printed under its table).
NOT_READ = {"lawbench_tasks": "2-3, 3-1, 3-3 not read: label sets have no plugin reader"}


@dataclass(frozen=True)
class Peer:
    """One peer rule as the audit applies it.

    Attributes:
        name: as printed. read: ``(output, item) -> reading`` (JSON-serialisable or ``None``).
        credited: ``(reading, item) -> bool``, the peer's own verdict. letters: ``reading -> str``, the
            reading in the graded set's form (sorted letters, a label word, or ``"NONE"``).
    """

    name: str
    read: Callable
    credited: Callable
    letters: Callable = lambda reading: reading or "NONE"


def _sorted_letters(reading: Optional[str]) -> str:
    return "".join(sorted(set(reading))) if reading else "NONE"


DISC = Peer("DISC", lambda out, item: peers.disc_rule(out), lambda r, item: r == item["gold"])
LEXEVAL_EXACT = Peer("LexEval exact", lambda out, item: peers.lexeval_rule(out),
                     lambda r, item: r is not None and r == item["answer"], _sorted_letters)
LEXEVAL_SET = Peer("LexEval set", lambda out, item: peers.lexeval_rule(out),
                   lambda r, item: _sorted_letters(r) == item["gold"], _sorted_letters)
LAWBENCH_LETTERS = Peer("LawBench", lambda out, item: peers.lawbench_letters(out, item["options"]),
                        lambda r, item: r == item["gold"])
LAWBENCH_LABEL = Peer("LawBench", lambda out, item: peers.lawbench_label(out, item["labels"]),
                      lambda r, item: r == item["gold"])
#: The peers of each corpus; the first is the one gaps are explained against.
PEERS = {"disc": (DISC,), "lexeval": (LEXEVAL_EXACT, LEXEVAL_SET), "lawbench_tasks": (LAWBENCH_LETTERS,)}
LABEL_PEERS = (LAWBENCH_LABEL,)


def peers_of(corpus: str, item: dict) -> tuple[Peer, ...]:
    """The peer rules that give ``item`` of ``corpus`` a verdict (none for spans and entity lists,
    whose LawBench reading :mod:`cpsd_tasks.audit.ner` scores)."""
    if item["kind"] == "label":
        return LABEL_PEERS
    if item["kind"] in ("span", "ner"):
        return ()
    return PEERS[corpus]


def lexeval_stem(text: str) -> str:
    """A lexeval input up to its first option line (the question its options follow)."""
    for marker in ("\nA:", "\nA：", "\nA.", "\nA．", "\nA、"):
        at = text.find(marker)
        if at >= 0:
            return text[:at]
    return text


def _item(corpus: str, task: str, doc: dict) -> Optional[dict]:
    """What the readers need of one doc (``kind``, ``group``, ``gold`` …), or ``None`` when not read."""
    if corpus in ("disc", "lexeval"):
        # 7 lexeval docs (6_1, 6_3) carry no gold_letters: their gold strings ("bd", "B D") give them
        letters = doc.get("gold_letters") or set(doc["answer"].upper()) & set(doc["options"])
        gold = "".join(sorted(letters))
        multi = bool(doc.get("multi", len(gold) > 1))
        question = doc["question"] if corpus == "disc" else lexeval_stem(doc["input"])
        return {"kind": "choice", "group": "multi" if multi else "single", "multi": multi, "gold": gold,
                "answer": doc["answer"], "options": doc["options"], "question": question}
    if task in CHOICE_TASKS:
        return {"kind": "choice", "group": task, "multi": False, "gold": doc["gold"], "answer": doc["gold"],
                "options": doc["options"], "question": doc.get("stem") or doc["question"]}
    if task in LABEL_TASKS:
        return {"kind": "label", "group": task, "gold": doc["gold"], "labels": doc["labels"],
                "scored": doc["gold"] in doc["labels"], "text": doc.get("question", "")}
    if task in SPAN_TASKS:
        return {"kind": "span", "group": task, "gold": doc["gold"]}
    if task in NER_TASKS:
        from cpsd_tasks.audit.ner import gold_entities

        return {"kind": "ner", "group": task, "gold": doc["gold"], "labels": doc["labels"],
                "entities": gold_entities(doc["gold"]), "reference": peers.lawbench_reference(doc["answer"])}
    return None


@dataclass
class RealCorpus:
    """One corpus folder in memory.

    Attributes:
        name: ``disc``, ``lexeval`` or ``lawbench_tasks``. root: the folder.
        items: ``{item id: item}`` (see :func:`_item`). predictions: ``{model: prediction file}``.
        data_digest: digest of the data files read. published: ``{(model, group): figure}``.
    """

    name: str
    root: Path
    items: dict[str, dict]
    predictions: dict[str, Path]
    data_digest: str
    published: dict[tuple[str, str], float] = field(default_factory=dict)


def load_real_corpus(name: str, root: Path) -> RealCorpus:
    """Load a corpus folder (its README's layout).

    Raises:
        FileNotFoundError: the folder or its ``data``/``predictions`` is missing (the message names it).
        KeyError: a doc lacks a field the readers need.
    """
    if not (root / "data").is_dir() or not (root / "predictions").is_dir():
        raise FileNotFoundError(f"{name}: corpus folder {root} (with data/ and predictions/) not found")
    items: dict[str, dict] = {}
    digests = []
    for data in sorted((root / "data").glob("*/test.jsonl")):
        task = data.parent.name
        if name == "lawbench_tasks" and task not in (*LABEL_TASKS, *CHOICE_TASKS, *SPAN_TASKS, *NER_TASKS):
            continue
        digests.append(cache.file_digest(data))
        for doc in jsonl_records(data):
            item = _item(name, task, doc)
            if item is not None:
                item["task"] = task
                items[doc["id"]] = item
    predictions = {p.name[: -len(".jsonl.gz")]: p for p in sorted((root / "predictions").glob("*.jsonl.gz"))}
    return RealCorpus(name, root, items, predictions, cache.cache_key(*digests), _published(name, root))


def _published(name: str, root: Path) -> dict[tuple[str, str], float]:
    """The peer's published figures per (model, group): disc's accuracy.json (item-weighted over the
    tasks of a group), LawBench's results.csv; lexeval publishes none per model."""
    out: dict[tuple[str, str], float] = {}
    if name == "disc" and (root / "disc_published.csv").is_file():
        sums: Counter = Counter()
        counts: Counter = Counter()
        with (root / "disc_published.csv").open(encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                key = (row["model"], "multi" if row["task"].startswith("mcq_mult") else "single")
                sums[key] += float(row["accuracy_json_pct"]) / 100 * int(row["n_items"])
                counts[key] += int(row["n_items"])
        out = {key: sums[key] / counts[key] for key in counts}
    elif name == "lawbench_tasks" and (root / "lawbench_published.csv").is_file():
        with (root / "lawbench_published.csv").open(encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                out[(row["model"], row["task"])] = float(row["lawbench_score"])
    return out


# --------------------------------------------------------------------------- reading

#: Where the peers' readings start in a record of :func:`read_item`.
PEERS_AT = 4
#: One option line as the 4-shot examples of disc write it (``A.丁某构成盗窃罪``; also ``A:``, ``A、``, ``(A)``).
_OPTION_LINE = re.compile(r"\(?([A-E])\)?\s*[.．:：、]?\s*(.*)")


def is_gold_lines(output: Optional[str], item: dict) -> bool:
    """The reply is exactly the gold options' lines: one line per gold letter, each the letter with its
    label mark and the option's own text (spaces at the ends of lines ignored), nothing else."""
    lines = [line.strip() for line in (output or "").strip().splitlines() if line.strip()]
    if len(lines) != len(item["gold"]) or not lines:
        return False
    letters = set()
    for line in lines:
        match = _OPTION_LINE.fullmatch(line)
        if not match or match.group(1) not in item["options"] or \
                match.group(2).strip() != str(item["options"][match.group(1)]).strip():
            return False
        letters.add(match.group(1))
    return "".join(sorted(letters)) == item["gold"]


def read_item(corpus: str, item: dict, output: Optional[str]) -> list:
    """One output read by the plugin and the peers:
    ``[plugin reading, plugin credited, why, gold lines, *peer readings]`` (peers from :data:`PEERS_AT`).

    ``plugin reading`` is sorted letters, a label word or the normalised span (``None``: nothing read);
    ``why`` is the plugin's reason for no answer or the rule that decided (letters), the reason for no
    label (labels: :func:`cpsd_tasks.reading.unread_label_reason`), else ``None``;
    ``gold lines``: a choice reply that is exactly the gold options' lines (:func:`is_gold_lines`).
    Entity lists (2-6) have their own record (:func:`cpsd_tasks.audit.ner.read_ner`).
    Never raises on model output.
    """
    from cpsd_tasks.qa.score import judge_exam, judge_reading
    from cpsd_tasks.reading import read_label, unread_label_reason

    if item["kind"] == "ner":
        from cpsd_tasks.audit.ner import read_ner

        return read_ner(item, output)
    if item["kind"] == "choice":
        judged = judge_exam(output, item["gold"], "多选" if item["multi"] else "单选", item["options"],
                            item["question"])
        head = [judged.prediction, judged.correct, judged.reason or judged.rule, is_gold_lines(output, item)]
    elif item["kind"] == "label":
        label = read_label(output, item["labels"], source=item.get("text"))
        why = None if label is not None else unread_label_reason(output, item["labels"], source=item.get("text"))
        head = [label, label == item["gold"], why, False]
    else:
        judged = judge_reading(output, item["gold"], "精确")
        head = [judged.prediction, judged.correct, None, False]
    return head + [peer.read(output, item) for peer in peers_of(corpus, item)]


_WORKER: dict = {}


def read_model(job: tuple[str, str]) -> dict[str, list]:
    """``{item id: read_item(...)}`` of one prediction file (``job`` = (corpus name, file path)), for
    each item the file has a line for (lexeval: 4 models answered fewer items, README "Coverage";
    the tables give each model's item count); lines of items the corpus does not read are left out."""
    name, path = job
    items = _WORKER[name].items
    outputs = {row["id"]: row["output"] for row in jsonl_records(Path(path))}
    return {item_id: read_item(name, item, outputs[item_id]) for item_id, item in items.items() if item_id in outputs}


def readings(corpus: RealCorpus, folder: Optional[Path], workers: Optional[int] = None,
             models: Optional[list[str]] = None) -> tuple[dict[str, dict[str, list]], int]:
    """Every model's readings of ``corpus``, from the cache where the readers and files are unchanged.

    Args:
        corpus: the loaded corpus. folder: the cache folder (``None``: no cache).
        workers: processes (default one per CPU; forked). models: only these (all when ``None``).

    Returns:
        ``({model: {item id: reading}}, number of models read from the cache)``.
    """
    chosen = [m for m in corpus.predictions if models is None or m in models]
    parts = {m: (corpus.data_digest, cache.file_digest(corpus.predictions[m])) for m in chosen}
    out: dict[str, dict[str, list]] = {}
    for model in chosen:
        hit = cache.load(folder, f"{corpus.name}.{model}", parts[model])
        if hit is not None:
            out[model] = hit
    missing = [m for m in chosen if m not in out]
    hits = len(out)
    if missing:
        _WORKER[corpus.name] = corpus
        jobs = [(corpus.name, str(corpus.predictions[m])) for m in missing]
        workers = min(workers or os.cpu_count() or 1, len(jobs))
        if workers > 1:
            import multiprocessing

            with multiprocessing.get_context("fork").Pool(workers) as pool:
                parts_read = pool.map(read_model, jobs, chunksize=1)
        else:
            parts_read = [read_model(job) for job in jobs]
        for model, value in zip(missing, parts_read):
            cache.store(folder, f"{corpus.name}.{model}", parts[model], value)
            out[model] = value
    return {m: out[m] for m in chosen}, hits


# --------------------------------------------------------------------------- model tables

def kind_of_gap(plugin_ok: bool, plugin_read: Optional[str], why: Optional[str], peer_read) -> str:
    """The kind of one item where the plugin's verdict and the peer's differ (a line of the
    explanation): who credits it, and what the other one read."""
    if plugin_ok:
        return "plugin credits; the peer reads nothing" if peer_read is None else \
            "plugin credits; the peer reads other letters or labels"
    if plugin_read is None:
        return f"the peer credits; plugin reads no answer ({why or 'nothing readable'})"
    return "the peer credits; plugin reads another answer"


def model_table(corpus: RealCorpus, read: dict[str, dict[str, list]]) -> list[dict]:
    """Per model and group (single/multi, or the task): items, the plugin's accuracy, each peer's, the
    published figure, the kinds of the items where the plugin's verdict and the first peer's differ, and
    the replies that are exactly the gold options' lines with how many the plugin credits.

    Returns:
        Rows ``{"model", "group", "n", "plugin", "<peer name>": accuracy…, "published", "kinds": Counter,
        "gold_lines": [replies, credited by the plugin]}``;
        2-2 counts only items whose gold is one of the label words (as LawBench's scorer does);
        2-6's rows (F1, not accuracy) are :func:`cpsd_tasks.audit.ner.ner_rows`, after the others.
    """
    from cpsd_tasks.audit.ner import ner_rows

    rows = []
    for model, readings_of in read.items():
        groups: dict[str, dict] = {}
        for item_id, reading in readings_of.items():
            item = corpus.items[item_id]
            if item["kind"] == "ner" or item["kind"] == "label" and not item["scored"]:
                continue
            row = groups.setdefault(item["group"], {"model": model, "group": item["group"], "n": 0, "plugin": 0,
                                                    "kinds": Counter(), "gold_lines": [0, 0]})
            row["n"] += 1
            row["plugin"] += bool(reading[1])
            if reading[3]:
                row["gold_lines"][0] += 1
                row["gold_lines"][1] += bool(reading[1])
            verdicts = []
            for peer, peer_read in zip(peers_of(corpus.name, item), reading[PEERS_AT:]):
                ok = bool(peer.credited(peer_read, item))
                row[peer.name] = row.get(peer.name, 0) + ok
                verdicts.append((ok, peer_read))
            if verdicts and verdicts[0][0] != bool(reading[1]):
                row["kinds"][kind_of_gap(bool(reading[1]), reading[0], reading[2], verdicts[0][1])] += 1
        for group in sorted(groups):
            row = groups[group]
            for key in [k for k in row if k not in ("model", "group", "n", "kinds", "gold_lines")]:
                row[key] = row[key] / row["n"]
            row["published"] = corpus.published.get((model, group))
            rows.append(row)
    return rows + ner_rows(corpus.items, read, corpus.published)
