"""The LawBench corpus of the reading audit (``cpsd-audit-reading``, :mod:`cpsd_tasks.audit`).

Reads the LawBench real-output corpus (``../shared/realout/lawbench``: 34 models' answers to
1,000 single-choice questions and 500 summaries, in the tasks' record format) and prints:

1. **The graded set** — for each human-graded item (``tests/data/graded_single_choice.jsonl``:
   model, item id and the letters two graders read, a third settling disagreements; no outputs),
   the plugin's reading (:func:`cpsd_tasks.reading.letters.read_choices`) and LawBench's rule (the set of
   A–D letters present, :func:`cpsd_tasks.reading.letters.lawbench_rule`) against the graded reading:
   reading accuracy, false credit (letters read where the model gave none), missed answers
   (nothing read where the model gave one) and wrong letters; per set (``dev`` was used to build
   the reader, ``heldout1`` to find more kinds after a first measurement, ``heldout2`` was graded
   and scored only after the reader was frozen) and in total.
2. **The 34-model table** — ``acc_single`` on 1-2 and 3-6 (the plugin's ``judge_exam``), the same
   under LawBench's rule (correct when the gold letter is the only letter present), LawBench's
   published figure, and ``rougeL_word`` on 2-7 beside LawBench's ROUGE-L; every plugin figure
   more than 0.05 from the published one is explained by the kind of items that make the gap.
3. **Timing** — the wall time of reading the whole corpus (no BERTScore).
4. With ``--judge URL --judge-model NAME``: the judge model on the graded set — judge vs graders,
   judge vs rules, and the rules then the judge (:mod:`cpsd_tasks.judge.audit`).

Without ``--judge`` nothing here calls a model; the function-level figures equal a run of the real CLI on the same
outputs (tested in ``tests/test_audit.py``).
"""

from __future__ import annotations

import csv
import gzip
import json
import os
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional, Sequence

from cpsd_tasks.reading.letters import lawbench_rule, read_choices

#: Where the corpus and the graded set are looked for by default (relative to the project root).
DEFAULT_CORPUS = Path("..") / "shared" / "realout" / "lawbench"
DEFAULT_GRADED = Path("tests") / "data" / "graded_single_choice.jsonl"
#: LawBench task ids: single choice (JEC-QA knowledge, case analysis) and summaries (CAIL2021).
CHOICE_SETS = ("1-2", "3-6")
SUMMARY_SET = "2-7"
#: A plugin figure this far from LawBench's published one is explained in the table.
EXPLAIN_ABOVE = 0.05


@dataclass
class Corpus:
    """The real-output corpus in memory.

    Attributes:
        questions: single-choice docs by id (``question``, ``options``, ``answer``).
        summaries: summary docs by id (``input``, ``reference``).
        outputs: ``{model: {item id: raw output}}``.
        published: ``{(model, task): LawBench's published score}``.
    """

    questions: dict[str, dict]
    summaries: dict[str, dict]
    outputs: dict[str, dict[str, str]]
    published: dict[tuple[str, str], float] = field(default_factory=dict)


def jsonl_records(path: Path) -> list[dict]:
    """Every record of a JSON-lines file, gzip-compressed when its name ends in ``.gz`` (the realout
    corpora's layout); blank lines skipped.

    Raises:
        FileNotFoundError: no such file. json.JSONDecodeError: a line that is not JSON.
    """
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def load_corpus(root: Path, models: Optional[Iterable[str]] = None) -> Corpus:
    """Load the corpus folder (layout of its README).

    Args:
        root: the ``lawbench`` folder.
        models: restrict to these model names (file stems); all when ``None``.

    Returns:
        A :class:`Corpus`.

    Raises:
        FileNotFoundError: the folder or one of its files is missing (the message names it).
    """
    if not root.is_dir():
        raise FileNotFoundError(f"real-output corpus not found at {root} (see its README)")
    questions = {d["id"]: d for d in jsonl_records(root / "data" / "police_exam" / "test.jsonl")}
    summaries = {d["id"]: d for d in jsonl_records(root / "data" / "case_summary" / "test.jsonl")}
    wanted = set(models) if models else None
    outputs: dict[str, dict[str, str]] = {}
    for path in sorted((root / "predictions").glob("*.jsonl.gz")):
        model = path.name[: -len(".jsonl.gz")]
        if wanted is None or model in wanted:
            outputs[model] = {row["id"]: row["output"] for row in jsonl_records(path)}
    published: dict[tuple[str, str], float] = {}
    table = root / "lawbench_published.csv"
    if table.is_file():
        with table.open(encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                published[(row["model"], row["task"])] = float(row["lawbench_score"])
    return Corpus(questions, summaries, outputs, published)


def plugin_reading(corpus: Corpus, model: str, item: str) -> Optional[str]:
    """The letters the plugin reads from one model's answer to one question (``None``: none)."""
    doc = corpus.questions[item]
    return read_choices(corpus.outputs[model].get(item), doc["options"], doc["question"]).letters


# --------------------------------------------------------------------------- graded set

@dataclass
class ReadingScore:
    """How one reader's per-item readings compare with the graded ones.

    Attributes:
        n: graded items; right: readings equal to the graded letters (``NONE`` = nothing read);
        false_credit: letters read where the graders found no answer; missed: nothing read where
        they found one; wrong_letters: a different letter set read where they found one;
        credit_differs: items whose score (read = the gold letter) differs from the score of the
        graded reading — the reading errors that change acc_single (an answer of several letters,
        or none, scores 0 either way).
    """

    n: int = 0
    right: int = 0
    false_credit: int = 0
    missed: int = 0
    wrong_letters: int = 0
    credit_differs: int = 0

    def add(self, read: Optional[str], graded: str, gold: Optional[str] = None,
            credited: Optional[bool] = None) -> None:
        """Count one item: ``read`` letters or ``None``; ``graded`` letters or ``"NONE"``;
        ``gold`` the item's correct letter, if known (for :attr:`credit_differs`); ``credited`` the
        reader's own verdict where it is not ``read == gold`` (LexEval's exact-string rule)."""
        read = read or "NONE"
        self.n += 1
        if credited is None:
            credited = read == gold
        if gold is not None and credited != (graded == gold):
            self.credit_differs += 1
        if read == graded:
            self.right += 1
        elif graded == "NONE":
            self.false_credit += 1
        elif read == "NONE":
            self.missed += 1
        else:
            self.wrong_letters += 1

    @property
    def accuracy(self) -> float:
        """Share of items read as graded, in [0, 1] (``nan`` for none)."""
        return self.right / self.n if self.n else float("nan")


def load_graded(path: Path) -> list[dict]:
    """The graded items (``set``, ``model``, ``id``, ``answer``), in file order."""
    return jsonl_records(path)


def score_graded(corpus: Corpus, graded: Sequence[dict]) -> dict[str, dict[str, ReadingScore]]:
    """Compare both readers with the graded set.

    Returns:
        ``{set name or "all": {"plugin": ReadingScore, "lawbench": ReadingScore}}``; items whose
        model is not in the corpus are skipped.
    """
    out: dict[str, dict[str, ReadingScore]] = defaultdict(lambda: {"plugin": ReadingScore(),
                                                                   "lawbench": ReadingScore()})
    for row in graded:
        if row["model"] not in corpus.outputs:
            continue
        plugin = plugin_reading(corpus, row["model"], row["id"])
        rule = lawbench_rule(corpus.outputs[row["model"]].get(row["id"]))
        gold = corpus.questions[row["id"]]["answer"]
        for name in (row["set"], "all"):
            out[name]["plugin"].add(plugin, row["answer"], gold)
            out[name]["lawbench"].add(rule, row["answer"], gold)
    return dict(out)


# --------------------------------------------------------------------------- model table

#: Why a plugin verdict differs from LawBench's rule on one item (the kinds named in the table).
KINDS = {
    "other_letters": "answer read; other option letters also in the text (LawBench: wrong)",
    "lone_letter": "LawBench credits a lone gold letter; plugin reads no answer there",
    "other_answer": "plugin and LawBench read different answers",
}


def _kind(plugin_ok: bool, rule_letters: Optional[str], plugin_letters: Optional[str]) -> str:
    if plugin_ok:
        return "other_letters"
    if plugin_letters is None:
        return "lone_letter"
    return "other_answer"


_WORKER_CORPUS: Optional[Corpus] = None
#: jieba words of the summaries' texts (references and hypotheses), kept for the process's life:
#: each worker reads one model per task, and the 500 references recur in every one.
_WORDS: dict[str, list[str]] = {}


def _rows_of(models: list[str]) -> list[dict]:
    assert _WORKER_CORPUS is not None
    corpus = _WORKER_CORPUS
    return model_rows(Corpus(corpus.questions, corpus.summaries, {m: corpus.outputs[m] for m in models},
                             corpus.published), workers=1)


def model_rows(corpus: Corpus, workers: Optional[int] = None) -> list[dict]:
    """One row per model: acc_single per choice set for the plugin and LawBench's rule, the
    published figures, the disagreement kinds, and ``rougeL_word`` on 2-7.

    Args:
        corpus: the corpus. workers: processes to spread the models over (default: one per CPU;
            forked, so the corpus is shared, not copied); 1 reads in this process.

    Returns:
        Rows with keys ``model``, ``<set>_plugin``, ``<set>_rule``, ``<set>_published``,
        ``<set>_kinds`` (Counter of :data:`KINDS`) for 1-2 and 3-6, and ``2-7_plugin``,
        ``2-7_published`` (``None`` when the model has no 2-7 outputs).
    """
    workers = workers or os.cpu_count() or 1
    if workers > 1 and len(corpus.outputs) > 1:
        import multiprocessing

        global _WORKER_CORPUS
        _WORKER_CORPUS = corpus
        if corpus.summaries:                 # jieba's dictionary loaded once, before the fork, not per worker
            from cpsd_tasks.generation import jieba_tokenizer

            jieba_tokenizer().initialize()
        # one model per task, the longest outputs first: no worker is left with a long one at the end
        models = sorted(corpus.outputs, key=lambda model: -sum(map(len, filter(None, corpus.outputs[model].values()))))
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            parts = pool.map(_rows_of, [[model] for model in models], chunksize=1)
        _WORKER_CORPUS = None
        order = {model: n for n, model in enumerate(corpus.outputs)}
        return sorted((row for part in parts for row in part), key=lambda row: order[row["model"]])
    rows = []
    references = _WORDS                      # kept for the process: every model shares the references
    for model, outputs in corpus.outputs.items():
        row: dict = {"model": model}
        for subset in CHOICE_SETS:
            ids = [i for i in corpus.questions if i.startswith(subset + "_")]
            right = rule_right = 0
            kinds: Counter = Counter()
            for item in ids:
                doc = corpus.questions[item]
                letters = read_choices(outputs.get(item), doc["options"], doc["question"]).letters
                rule = lawbench_rule(outputs.get(item))
                ok, rule_ok = letters == doc["answer"], rule == doc["answer"]
                right += ok
                rule_right += rule_ok
                if ok != rule_ok:
                    kinds[_kind(ok, rule, letters)] += 1
            row[f"{subset}_plugin"] = right / len(ids)
            row[f"{subset}_rule"] = rule_right / len(ids)
            row[f"{subset}_published"] = corpus.published.get((model, subset))
            row[f"{subset}_kinds"] = kinds
        ids = [i for i in corpus.summaries if i in outputs]
        if ids:
            scores = [rouge_l_word(_summary(outputs[i]), corpus.summaries[i]["reference"], references)
                      for i in ids]
            row[f"{SUMMARY_SET}_plugin"] = sum(scores) / len(corpus.summaries)
        else:
            row[f"{SUMMARY_SET}_plugin"] = None
        row[f"{SUMMARY_SET}_published"] = corpus.published.get((model, SUMMARY_SET))
        rows.append(row)
    return rows


def rouge_l_word(hypothesis: str, reference: str, cache: Optional[dict[str, list[str]]] = None) -> float:
    """``rougeL_word`` of one pair (docs/metrics.md#text-generation), as :func:`cpsd_tasks.generation.text_scores`
    computes
    it (jieba words, rouge-chinese ROUGE-L F), without the other five metrics. Raises nothing.

    Args:
        hypothesis, reference: the two texts (cleaned here as the metric cleans them).
        cache: optional ``{text: jieba words}`` kept by the caller: the same 500 references recur
            for every model, and 31 % of the 16,500 hypotheses repeat another one word for word.

    Returns:
        ROUGE-L F over jieba words, in [0, 1]; 0.0 when either side is empty after cleaning.
    """
    from cpsd_tasks.generation import clean, rouge_f, word_tokens

    hyp, ref = clean(hypothesis), clean(reference)
    if not hyp or not ref:
        return 0.0
    if cache is None:
        return rouge_f(word_tokens(hyp), word_tokens(ref))[1]
    for text in (hyp, ref):
        if text not in cache:
            cache[text] = word_tokens(text)
    return rouge_f(cache[hyp], cache[ref])[1]


def _summary(output: Optional[str]) -> str:
    from cpsd_tasks.reading.turns import written_turn

    return written_turn(output)


def _fmt(value: Optional[float]) -> str:
    return "—" if value is None else f"{value:.3f}"


def _explain(row: dict, subset: str) -> str:
    plugin, published = row[f"{subset}_plugin"], row[f"{subset}_published"]
    if published is None or abs(plugin - published) <= EXPLAIN_ABOVE:
        return ""
    kinds = row[f"{subset}_kinds"]
    parts = [f"{count} {KINDS[kind]}" for kind, count in kinds.most_common()]
    return f"{subset}: " + "; ".join(parts)


def render(graded: dict[str, dict[str, ReadingScore]], rows: list[dict], seconds: float) -> str:
    """The audit report as Markdown (graded-set table, model table, timing)."""
    lines = ["## Reading against the human-graded set", "",
             "| set | items | reader | accuracy | false credit | missed | wrong letters | score changed |",
             "|---|---:|---|---:|---:|---:|---:|---:|"]
    for name in [*sorted(n for n in graded if n != "all"), "all"] if graded else []:
        for reader in ("plugin", "lawbench"):
            s = graded[name][reader]
            lines.append(f"| {name} | {s.n} | {reader} | {s.accuracy:.4f} | {s.false_credit} | "
                         f"{s.missed} | {s.wrong_letters} | {s.credit_differs} |")
    if graded:
        lines += ["", "*score changed*: items whose acc_single credit (the read letters equal the gold "
                  "letter) differs from the credit of the graded reading."]
    lines += ["", f"## acc_single and rougeL_word, {len(rows)} model{'s' if len(rows) != 1 else ''}", "",
              "| model | 1-2 plugin | 1-2 LawBench rule | 1-2 published | 3-6 plugin | 3-6 LawBench rule | "
              "3-6 published | 2-7 rougeL_word | 2-7 published |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    notes = []
    for row in sorted(rows, key=lambda r: r["model"].lower()):
        lines.append(
            f"| {row['model']} | {_fmt(row['1-2_plugin'])} | {_fmt(row['1-2_rule'])} | "
            f"{_fmt(row['1-2_published'])} | {_fmt(row['3-6_plugin'])} | {_fmt(row['3-6_rule'])} | "
            f"{_fmt(row['3-6_published'])} | {_fmt(row['2-7_plugin'])} | {_fmt(row['2-7_published'])} |")
        for subset in CHOICE_SETS:
            why = _explain(row, subset)
            if why:
                notes.append(f"- {row['model']} {why}")
        plugin, published = row["2-7_plugin"], row["2-7_published"]
        if plugin is not None and published is not None and abs(plugin - published) > EXPLAIN_ABOVE:
            notes.append(f"- {row['model']} 2-7: {plugin:.3f} vs {published:.3f} — the plugin scores the "
                         "model's own turn (text after the first end marker or invented turn is cut), "
                         "NFKC-folded, jieba words; LawBench scores the whole output")
    lines += ["", f"Differences of more than {EXPLAIN_ABOVE} from the published figure, by kind "
              "(items where the plugin's verdict and LawBench's rule differ):", ""]
    lines += notes or ["- none"]
    lines += ["", f"Corpus read in {seconds:.1f} s (no BERTScore)."]
    return "\n".join(lines)
