"""``cpsd-audit-reading``: score real LLM outputs with the plugin's readers and audit the reading.

Four real-output corpora (``../shared/realout/<name>``, a README in each) are read through the
plugin's own task hooks, as installed, beside each peer benchmark's own rule:

* ``lawbench`` (:mod:`~cpsd_tasks.audit.lawbench`): 1-2/3-6 single choice, 2-7 summaries, 34 models;
* ``disc``, ``lexeval``, ``lawbench_tasks`` (:mod:`~cpsd_tasks.audit.corpora`): single and
  multi-answer choice, 2-2/2-4 labels, 2-8 A–E, 2-5 spans.

For each corpus it prints one table (per model: the plugin's figure beside the peer's rule and the
published figure, every gap over 0.05 explained by the kinds of item that make it) and the graded-set
figures (:mod:`~cpsd_tasks.audit.graded`), then the time taken. Readings are cached per reader and
corpus file (:mod:`~cpsd_tasks.audit.cache`). Nothing here calls a model, except ``--judge``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Optional, Sequence

from cpsd_tasks.audit.lawbench import (  # noqa: F401  (the LawBench audit's public names)
    CHOICE_SETS,
    DEFAULT_CORPUS,
    DEFAULT_GRADED,
    EXPLAIN_ABOVE,
    KINDS,
    SUMMARY_SET,
    Corpus,
    ReadingScore,
    _summary,
    load_corpus,
    load_graded,
    model_rows,
    plugin_reading,
    render,
    rouge_l_word,
    score_graded,
)

#: Where the four corpus folders are looked for by default (relative to the project root).
DEFAULT_REALOUT = Path("..") / "shared" / "realout"
CORPORA = ("lawbench", "disc", "lexeval", "lawbench_tasks")


def _parser() -> argparse.ArgumentParser:
    from cpsd_tasks.audit.cache import DEFAULT_CACHE

    parser = argparse.ArgumentParser(prog="cpsd-audit-reading", description=__doc__.split("\n\n")[0])
    parser.add_argument("--realout", type=Path, default=DEFAULT_REALOUT,
                        help="the folder holding the corpus folders (default ../shared/realout)")
    parser.add_argument("--corpora", nargs="+", choices=CORPORA,
                        help="the corpora to audit (default: every one present; only lawbench with --corpus)")
    parser.add_argument("--corpus", type=Path, help="the lawbench folder (default <realout>/lawbench)")
    parser.add_argument("--graded", type=Path, default=DEFAULT_GRADED, help="graded single-choice set of lawbench")
    parser.add_argument("--models", nargs="*", help="only these models (file stems)")
    parser.add_argument("--out", type=Path, help="also write the report (Markdown) and lawbench rows (JSON) here")
    parser.add_argument("--into", type=Path, nargs="+", metavar="FILE",
                        help="also write the graded figures into each FILE's figures block (docs/answer_reading.md: "
                             "the tables; README.md: one headline line)")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE,
                        help=f"the reading cache folder (default ./{DEFAULT_CACHE})")
    parser.add_argument("--no-cache", action="store_true", help="read everything again, write no cache")
    parser.add_argument("--judge", metavar="URL", help="also score a judge model at this OpenAI-compatible "
                        "chat-completions URL on the graded set (judge vs graders, judge vs rules; docs/judge.md)")
    parser.add_argument("--judge-model", metavar="NAME", help="the judge model's name at --judge")
    parser.add_argument("--judge-cache", type=Path, default=Path("cpsd_judge_cache.db"),
                        help="the judge's reply cache (SQLite; default ./cpsd_judge_cache.db)")
    parser.add_argument("--judge-concurrency", type=int, default=8, help="judge requests in flight (default 8)")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of ``cpsd-audit-reading`` (and ``scripts/audit_reading.py``).

    Returns:
        Exit code: 0; 2 when an explicitly named lawbench folder, or every corpus, is missing, or the
        ``--into`` file has no figures block (one line on stderr); 1 when the judge's endpoint failed.
    """
    parser = _parser()
    args = parser.parse_args(argv)
    if bool(args.judge) != bool(args.judge_model):
        parser.error("--judge and --judge-model go together")
    folder = None if args.no_cache else args.cache
    wanted = args.corpora or (["lawbench"] if args.corpus else list(CORPORA))
    started = time.perf_counter()
    sections, timings = [], []
    for name in wanted:
        root = args.corpus if (name == "lawbench" and args.corpus) else args.realout / name
        if not root.is_dir():
            if name == "lawbench" and args.corpus:
                print(f"cpsd-audit-reading: real-output corpus not found at {root} (see its README)", file=sys.stderr)
                return 2
            print(f"cpsd-audit-reading: {name} skipped: corpus folder {root} not found", file=sys.stderr)
            continue
        start, hits = time.perf_counter(), ""
        if name == "lawbench":
            section = _lawbench_section(args, root, folder)
            if section is None:
                return 1
        else:
            section, hits = _real_section(name, root, folder, args.models)
        sections.append(section)
        timings.append(f"{name} {time.perf_counter() - start:.1f} s" + ("" if name == "lawbench" else f" ({hits})"))
    if not sections:
        print("cpsd-audit-reading: no corpus found (see --realout)", file=sys.stderr)
        return 2
    from cpsd_tasks.reading import READER_VERSION

    report = "\n\n".join(sections) + (f"\n\nAudit of {len(sections)} corpora in {time.perf_counter() - started:.1f} s "
                                      f"(reader version {READER_VERSION}; {', '.join(timings)}; no BERTScore).")
    print(report)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "audit.md").write_text(report + "\n", encoding="utf-8")
    if args.into:
        from cpsd_tasks.audit.graded import FIRST_READS
        from cpsd_tasks.audit.tables import docs_block, headline, write_block

        command = " ".join(str(path) for path in args.into)
        try:
            for path in args.into:
                write_block(path, headline(report, command) if path.name == "README.md"
                            else docs_block(report, FIRST_READS, command))
        except (OSError, ValueError) as err:
            print(f"cpsd-audit-reading: {err}", file=sys.stderr)
            return 2
    return 0


def _graded_path(relative: Path) -> Path:
    """A graded file relative to the working directory, else to the checkout holding this package."""
    if relative.is_absolute() or relative.is_file():
        return relative
    return Path(__file__).resolve().parents[2] / relative


def _real_section(name: str, root: Path, folder: Optional[Path], models) -> tuple[str, str]:
    """The disc/lexeval/lawbench_tasks part of the report, and how many models came from the cache."""
    from cpsd_tasks.audit.corpora import load_real_corpus, model_table, readings
    from cpsd_tasks.audit.graded import GRADED_FILES, score_graded_items
    from cpsd_tasks.audit.tables import render_graded, render_models

    corpus = load_real_corpus(name, root)
    read, hits = readings(corpus, folder, models=models)
    text = render_models(corpus, model_table(corpus, read))
    graded_file = _graded_path(GRADED_FILES[name])
    if graded_file.is_file():
        scores, problems = score_graded_items(corpus, load_graded(graded_file), read)
        text += "\n\n" + render_graded(corpus, scores, problems)
    else:
        text += f"\n\n(graded set not found at {graded_file}: graded figures skipped)"
    return text, f"{hits} of {len(read)} models' readings from the cache"


def _lawbench_section(args: argparse.Namespace, root: Path, folder: Optional[Path]) -> Optional[str]:
    """The lawbench part (:func:`~cpsd_tasks.audit.lawbench.render`, with ``--judge`` its judge report)."""
    corpus = load_corpus(root, args.models)
    start = time.perf_counter()
    rows = _cached_rows(corpus, root, folder)
    seconds = time.perf_counter() - start
    graded_file = _graded_path(args.graded)
    graded = score_graded(corpus, load_graded(graded_file)) if graded_file.is_file() else {}
    if not graded:
        print(f"(graded set not found at {args.graded}: graded figures skipped)", file=sys.stderr)
    report = "# lawbench\n\n" + render(graded, rows, seconds)
    if args.out:
        import json

        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "audit_rows.json").write_text(json.dumps(rows, ensure_ascii=False, indent=1), encoding="utf-8")
    if args.judge:
        judged = _judge_report(args, corpus)
        if judged is None:
            return None
        report += "\n\n" + judged
    return report


def _cached_rows(corpus: Corpus, root: Path, folder: Optional[Path]) -> list[dict]:
    """:func:`model_rows` of the lawbench corpus, each model's row from the cache when unchanged."""
    from cpsd_tasks.audit import cache

    data = [cache.file_digest(p) for p in sorted((root / "data").glob("*/test.jsonl"))]
    published = root / "lawbench_published.csv"
    if published.is_file():
        data.append(cache.file_digest(published))
    parts = {m: (*data, cache.file_digest(root / "predictions" / f"{m}.jsonl.gz")) for m in corpus.outputs}
    found = {m: cache.load(folder, f"lawbench.{m}", parts[m]) for m in corpus.outputs}
    missing = [m for m, row in found.items() if row is None]
    if missing:
        fresh = model_rows(Corpus(corpus.questions, corpus.summaries, {m: corpus.outputs[m] for m in missing},
                                  corpus.published))
        for row in fresh:
            row = {k: (dict(v) if isinstance(v, Counter) else v) for k, v in row.items()}
            cache.store(folder, f"lawbench.{row['model']}", parts[row["model"]], row)
            found[row["model"]] = row
    rows = [dict(found[m]) for m in corpus.outputs]
    for row in rows:
        for subset in CHOICE_SETS:
            row[f"{subset}_kinds"] = Counter(row[f"{subset}_kinds"])
    return rows


def _judge_report(args: argparse.Namespace, corpus: Corpus) -> Optional[str]:
    """The ``--judge`` part of the report (:mod:`cpsd_tasks.judge.audit`), or ``None`` after one
    line on stderr when the judge's endpoint failed (the replies received stay cached)."""
    from cpsd_tasks.judge.audit import judge_graded, render_judge
    from cpsd_tasks.judge.client import JudgeClient, JudgeTransportError, ReplyCache
    from cpsd_tasks.judge.prompts import prompt_digest

    if not args.graded.is_file():
        print(f"cpsd-audit-reading: --judge needs the graded set ({args.graded} not found)", file=sys.stderr)
        return None
    digest = prompt_digest(["choice"])
    cache = ReplyCache(args.judge_cache)
    client = JudgeClient(args.judge, args.judge_model, cache, digest, concurrency=args.judge_concurrency)
    try:
        scores, agreement = judge_graded(corpus, load_graded(args.graded), client)
    except JudgeTransportError as err:
        print(f"cpsd-audit-reading: error: {err}; the replies received are kept in {args.judge_cache}",
              file=sys.stderr)
        return None
    finally:
        cache.close()
    print(f"cpsd-audit-reading: judge {args.judge_model}: {client.sent} requests sent, the rest from the cache "
          f"{args.judge_cache}", file=sys.stderr)
    return render_judge(scores, agreement, args.judge_model, digest)


