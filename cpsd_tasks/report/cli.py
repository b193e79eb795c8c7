"""``cpsd-leaderboard``: the paper's Tables 3–8, bootstrap CIs, paired tests, figures and the error
analysis from lm-eval output folders — and, as ``cpsd-leaderboard rescore``, rescoring.

Everything here reads the files the harness itself writes with ``--output_path OUT --log_samples``
(``OUT/<model>/results_<time>.json`` and ``OUT/<model>/samples_<task>_<time>.jsonl``), so any run,
old or new, can be analysed without calling a model again::

    cpsd-leaderboard OUT_A OUT_B --with-paper --ci --compare A B --out report/
    cpsd-leaderboard rescore OUT --bertscore-model /models/bert-base-chinese --num-layers 8
    cpsd-leaderboard judge OUT --base_url URL --model JUDGE      # same as cpsd-judge

(``cpsd-rescore`` and ``python scripts/rescore.py`` are the same as ``cpsd-leaderboard rescore``;
``python scripts/leaderboard.py`` the same as ``cpsd-leaderboard``.) A run folder literally named
``rescore`` is passed as ``./rescore``.

This module only wires the layers of :mod:`cpsd_tasks.report` together (reader → tables → stats →
render, errors, plots); nothing imports it. A new output (e.g. ``--html``) adds an option to
:func:`build_parser` and a renderer beside :mod:`cpsd_tasks.report.render`.
"""

from __future__ import annotations

import argparse
import logging
import re
import sys
from pathlib import Path
from typing import Optional, Sequence

from cpsd_tasks.report.render import compare_csv, compare_markdown, signatures_csv, table_notes, to_csv, to_latex, \
    to_markdown
from cpsd_tasks.report.render import judged_csv, judged_markdown
from cpsd_tasks.report.runs import load_runs, unmatched_rescored
from cpsd_tasks.report.stats import DEFAULT_BOOTSTRAP, DEFAULT_SEED, add_cis, compare_rows
from cpsd_tasks.report.tables import build_rows, find_row, select_tables

#: First argument that turns ``cpsd-leaderboard`` into the rescoring command.
RESCORE_COMMAND = "rescore"
#: First argument that turns ``cpsd-leaderboard`` into ``cpsd-judge`` (:mod:`cpsd_tasks.judge.cli`).
JUDGE_COMMAND = "judge"


def _safe(text: str) -> str:
    """``text`` as a file-name part: runs of anything but word characters, ``.`` and ``-`` become ``_``."""
    return re.sub(r"[^\w.-]+", "_", text).strip("_") or "run"


def build_parser() -> argparse.ArgumentParser:
    """The ``cpsd-leaderboard`` argument parser (the tables command; ``rescore`` is dispatched by
    :func:`main` before it). Public so that new options (e.g. ``--html``) can be added in one place."""
    p = argparse.ArgumentParser(
        prog="cpsd-leaderboard",
        description="The CPSDBench paper's Tables 3-8, bootstrap CIs, paired tests, the radar chart and the "
                    "error analysis, from lm-eval output folders (--output_path OUT --log_samples).",
        epilog=f"Rescoring: cpsd-leaderboard {RESCORE_COMMAND} OUT --bertscore-model DIR (same as cpsd-rescore; "
               f"see cpsd-leaderboard {RESCORE_COMMAND} --help). Reading by meaning: cpsd-leaderboard "
               f"{JUDGE_COMMAND} OUT --base_url URL --model JUDGE (same as cpsd-judge).",
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
    p.add_argument("--html", type=Path, metavar="OUT.html",
                   help="also write one self-contained HTML page: tables with 95%% CIs, figures, the --compare "
                        "test and a sample browser (cpsd_tasks.report.html)")
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of ``cpsd-leaderboard`` / ``python scripts/leaderboard.py``.

    ``cpsd-leaderboard rescore …`` runs :func:`cpsd_tasks.report.rescore.main` with the rest of the
    arguments. Otherwise it prints the Markdown tables (and the ``--compare`` result); with ``--out DIR`` also writes
    ``leaderboard.md``, ``leaderboard.tex``, ``tableN_*.csv``, ``compare_*.{md,csv}``,
    ``figures/*.{png,svg}``, ``errors/{mistakes.csv,mistakes.jsonl,error_counts.csv}`` and
    ``signatures.csv`` (each task's scoring signature, when the runs have one).

    Returns:
        0 on success, 2 on a usage or input error (message on stderr).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    from cpsd_tasks.report.rescore import offline_hub

    offline_hub()  # BERTScore models for CIs and --compare: local ones only, never a 45 s hub wait
    if argv and argv[0] == RESCORE_COMMAND:
        from cpsd_tasks.report import rescore

        return rescore.main(argv[1:], prog=f"cpsd-leaderboard {RESCORE_COMMAND}")
    if argv and argv[0] == JUDGE_COMMAND:
        from cpsd_tasks.judge import cli as judge_cli

        return judge_cli.main(argv[1:], prog=f"cpsd-leaderboard {JUDGE_COMMAND}")
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        tables = select_tables(args.tables)
        formats = {f.strip().lower() for f in args.format.split(",") if f.strip()}
        bad = formats - {"md", "markdown", "csv", "latex", "tex"}
        if bad:
            raise ValueError(f"unknown format(s) {', '.join(sorted(bad))}; use md, csv, latex")
        runs = load_runs(args.runs, args.name)
        for path, targets in unmatched_rescored(args.runs, runs):
            print(f"cpsd-leaderboard: {path} rescored {', '.join(targets) or 'no run'}, which is not among the "
                  f"runs read here; its figures are not used", file=sys.stderr)
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
    judged_md = judged_markdown(rows)
    if judged_md:
        md += "\n" + judged_md
    cmp_md = compare_markdown(*comparison, args.bootstrap, args.seed) if comparison else ""
    if not args.quiet:
        print(md)
        if cmp_md:
            print(cmp_md)
    if args.html is not None:
        from cpsd_tasks.report import html

        if not args.ci:
            add_cis(rows, tables, args.bootstrap, args.seed)
        path = html.write_page(args.html, rows, tables, comparison, args.bootstrap, args.seed)
        print(f"cpsd-leaderboard: wrote the HTML page {path}", file=sys.stderr)
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
    if judged_md and formats & {"csv"}:
        path = out / "judged.csv"
        path.write_text(judged_csv(rows), encoding="utf-8")
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
        from cpsd_tasks.report import errors

        judgements = errors.judge_rows(rows)
    if not args.no_plots:
        from cpsd_tasks.report import plots

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
            from cpsd_tasks.report.fonts import name_key

            key = name_key(rows)
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
