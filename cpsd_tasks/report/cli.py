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
from dataclasses import dataclass
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


@dataclass
class Report:
    """What one ``cpsd-leaderboard`` call computed, before anything is printed or written.

    Attributes:
        tables: the table specs asked for (``--tables``). formats: the file formats (``--format``).
        rows: the leaderboard rows (runs, and the paper's with ``--with-paper``).
        comparison: ``(row A, row B, results)`` of ``--compare``, else ``None``.
        notes: the notes under the tables. md: the Markdown tables. judged_md: the judged figures
            (Markdown, ``""`` when no run was judged). cmp_md: the ``--compare`` result (Markdown or ``""``).
    """

    tables: list
    formats: set[str]
    rows: list
    comparison: Optional[tuple]
    notes: list
    md: str
    judged_md: str
    cmp_md: str


def subcommand(argv: Sequence[str]) -> Optional[int]:
    """Run ``cpsd-leaderboard rescore …`` or ``cpsd-leaderboard judge …`` and return its exit code;
    ``None`` when ``argv`` is neither."""
    if argv and argv[0] == RESCORE_COMMAND:
        from cpsd_tasks.report import rescore

        return rescore.main(argv[1:], prog=f"cpsd-leaderboard {RESCORE_COMMAND}")
    if argv and argv[0] == JUDGE_COMMAND:
        from cpsd_tasks.judge import cli as judge_cli

        return judge_cli.main(argv[1:], prog=f"cpsd-leaderboard {JUDGE_COMMAND}")
    return None


def output_formats(spec: str) -> set[str]:
    """The ``--format`` list as a set (``md``, ``markdown``, ``csv``, ``latex``, ``tex``).

    Raises:
        ValueError: an unknown format.
    """
    formats = {f.strip().lower() for f in spec.split(",") if f.strip()}
    bad = formats - {"md", "markdown", "csv", "latex", "tex"}
    if bad:
        raise ValueError(f"unknown format(s) {', '.join(sorted(bad))}; use md, csv, latex")
    return formats


def leaderboard_rows(args: argparse.Namespace) -> list:
    """The rows of the runs named on the command line (and the paper's with ``--with-paper``); a
    rescored file that matches none of them is said on stderr.

    Raises:
        FileNotFoundError, ValueError: a run that cannot be read, or no cpsd task in any.
    """
    runs = load_runs(args.runs, args.name)
    for path, targets in unmatched_rescored(args.runs, runs):
        print(f"cpsd-leaderboard: {path} rescored {', '.join(targets) or 'no run'}, which is not among the "
              f"runs read here; its figures are not used", file=sys.stderr)
    if not any(run.tasks for run in runs):
        raise ValueError("no CPSDBench task (cpsd_*) in " + ", ".join(str(p) for p in args.runs))
    return build_rows(runs, with_paper=args.with_paper)


def read_inputs(args: argparse.Namespace) -> tuple[list, set[str], list, Optional[tuple]]:
    """Check the options and read the runs: ``(tables, formats, rows, comparison)``, with CIs
    (``--ci``) and the paired test (``--compare``) computed.

    Raises:
        FileNotFoundError, ValueError, KeyError: bad options or runs (:func:`main` prints them).
    """
    tables = select_tables(args.tables)
    formats = output_formats(args.format)
    rows = leaderboard_rows(args)
    if args.ci:
        add_cis(rows, tables, args.bootstrap, args.seed)
    comparison = None
    if args.compare:
        row_a, row_b = (find_row(rows, k) for k in args.compare)
        results = compare_rows(row_a, row_b, args.metric, args.bootstrap, args.seed)
        comparison = (row_a, row_b, results)
    return tables, formats, rows, comparison


def build_report(args: argparse.Namespace, tables: list, formats: set[str], rows: list,
                 comparison: Optional[tuple]) -> Report:
    """The texts that are printed or written, from :func:`read_inputs`'s results."""
    notes = table_notes(rows, args.ci, args.bootstrap, args.seed)
    md = "\n".join(to_markdown(t, rows, args.ci, notes) for t in tables)
    judged_md = judged_markdown(rows)
    if judged_md:
        md += "\n" + judged_md
    cmp_md = compare_markdown(*comparison, args.bootstrap, args.seed) if comparison else ""
    return Report(tables, formats, rows, comparison, notes, md, judged_md, cmp_md)


def write_html(args: argparse.Namespace, report: Report) -> None:
    """``--html OUT.html``: the one-page report (CIs computed for it when ``--ci`` was not given)."""
    from cpsd_tasks.report import html

    if not args.ci:
        add_cis(report.rows, report.tables, args.bootstrap, args.seed)
    path = html.write_page(args.html, report.rows, report.tables, report.comparison, args.bootstrap, args.seed)
    print(f"cpsd-leaderboard: wrote the HTML page {path}", file=sys.stderr)


def write_table_files(out: Path, args: argparse.Namespace, report: Report) -> list[Path]:
    """``tableN_*.csv``, ``leaderboard.tex``, ``judged.csv``, ``signatures.csv`` and the
    ``compare_*`` files, as the formats and the runs call for; returns the paths written."""
    written: list[Path] = []
    rows, tables, formats = report.rows, report.tables, report.formats
    if formats & {"csv"}:
        for t in tables:
            path = out / f"{t.id}.csv"
            path.write_text(to_csv(t, rows, args.ci), encoding="utf-8")
            written.append(path)
    if formats & {"latex", "tex"}:
        path = out / "leaderboard.tex"
        path.write_text("% Requires \\usepackage{booktabs}.\n"
                        + "\n".join(to_latex(t, rows, args.ci, report.notes) for t in tables), encoding="utf-8")
        written.append(path)
    if report.judged_md and formats & {"csv"}:
        path = out / "judged.csv"
        path.write_text(judged_csv(rows), encoding="utf-8")
        written.append(path)
    if any(tr.signature for r in rows for tr in r.tasks.values()):
        path = out / "signatures.csv"
        path.write_text(signatures_csv(rows), encoding="utf-8")
        written.append(path)
    if report.comparison:
        stem = f"compare_{_safe(report.comparison[0].label)}_vs_{_safe(report.comparison[1].label)}"
        (out / f"{stem}.md").write_text(report.cmp_md, encoding="utf-8")
        (out / f"{stem}.csv").write_text(compare_csv(report.comparison[2]), encoding="utf-8")
        written += [out / f"{stem}.md", out / f"{stem}.csv"]
    return written


def write_figures_and_errors(out: Path, args: argparse.Namespace, rows: list) -> tuple[list[Path], list[Path]]:
    """``figures/*`` (unless ``--no-plots``) and ``errors/*`` (unless ``--no-errors``).

    Returns:
        ``(figures, every path written)``.
    """
    figures: list[Path] = []
    written: list[Path] = []
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
    return figures, written


def leaderboard_markdown(report: Report, figures: Sequence[Path]) -> str:
    """The text of ``leaderboard.md``: the tables, the ``--compare`` result, the figures (and the key
    to the model names drawn in them when no CJK font was found)."""
    parts = ["# CPSDBench leaderboard", "", report.md]
    if report.cmp_md:
        parts.append(report.cmp_md)
    pngs = [f for f in figures if f.suffix == ".png"]
    if pngs:
        parts.append("## Figures\n\n" + "\n".join(f"![{f.stem}](figures/{f.name})" for f in pngs) + "\n")
        from cpsd_tasks.report.fonts import name_key

        key = name_key(report.rows)
        if key:
            parts.append("No CJK font was found for the figures; their model names stand for:\n\n"
                         + "\n".join(f"- {a} = {b}" for a, b in key) + "\n")
    return "\n".join(parts)


def write_files(out: Path, args: argparse.Namespace, report: Report) -> list[Path]:
    """Everything ``--out DIR`` holds (see :func:`main`); returns the paths written, in order."""
    out.mkdir(parents=True, exist_ok=True)
    written = write_table_files(out, args, report)
    figures, more = write_figures_and_errors(out, args, report.rows)
    written += more
    if report.formats & {"md", "markdown"}:
        path = out / "leaderboard.md"
        path.write_text(leaderboard_markdown(report, figures), encoding="utf-8")
        written.append(path)
    return written


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of ``cpsd-leaderboard`` / ``python scripts/leaderboard.py``.

    ``cpsd-leaderboard rescore …`` runs :func:`cpsd_tasks.report.rescore.main` with the rest of the
    arguments. Otherwise it prints the Markdown tables (and the ``--compare`` result); with ``--out DIR`` also
    writes ``leaderboard.md``, ``leaderboard.tex``, ``tableN_*.csv``, ``compare_*.{md,csv}``,
    ``figures/*.{png,svg}``, ``errors/{mistakes.csv,mistakes.jsonl,error_counts.csv}`` and
    ``signatures.csv`` (each task's scoring signature, when the runs have one).

    Returns:
        0 on success, 2 on a usage or input error (message on stderr).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    from cpsd_tasks.report.rescore import offline_hub

    offline_hub()  # BERTScore models for CIs and --compare: local ones only, never a 45 s hub wait
    code = subcommand(argv)
    if code is not None:
        return code
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        inputs = read_inputs(args)
    except (FileNotFoundError, ValueError, KeyError) as err:
        print(f"cpsd-leaderboard: error: {err.args[0] if isinstance(err, KeyError) else err}", file=sys.stderr)
        return 2
    report = build_report(args, *inputs)
    if not args.quiet:
        print(report.md)
        if report.cmp_md:
            print(report.cmp_md)
    if args.html is not None:
        write_html(args, report)
    if args.out is None:
        return 0
    written = write_files(args.out, args, report)
    print(f"cpsd-leaderboard: wrote {len(written)} files to {args.out}", file=sys.stderr)
    for path in written:
        print(f"  {path}", file=sys.stderr)
    return 0

if __name__ == "__main__":
    sys.exit(main())
