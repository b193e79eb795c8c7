"""Command line of the bench (``python -m benchmarks``): measures the chosen parts in one session,
prints the table (or the Markdown block of docs/performance.md) and writes the JSON."""

from __future__ import annotations

import argparse
import datetime
import importlib
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

import benchmarks
from benchmarks import PARTS
from benchmarks.context import Context
from benchmarks.report import markdown, replace_block, table

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA_DIR = ROOT.parent / "shared" / "data"
#: The options that change what is measured (the others only choose what is printed or written),
#: as recorded in the JSON's ``command`` when they differ from their defaults.
MEASURING = ("parts", "data_dir", "bertscore", "bertscore_model", "bertscore_layers", "latency_requests",
             "overhead_concurrency", "startup_pairs", "floor_pairs")


def part_summaries() -> str:
    """One line per part: its name and the first line of its module's docstring (for ``--help``)."""
    lines = []
    for part in PARTS:
        doc = importlib.import_module(f"benchmarks.{part}").__doc__ or ""
        summary = doc.split("\n\n")[0].replace("\n", " ").replace("``", "").split(": ", 1)[-1]
        lines.append(f"  {part:<12} {summary}")
    return "parts (measured in this order):\n" + "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m benchmarks``."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks",
                                     description=(benchmarks.__doc__ or "").split("\n\n")[0],
                                     epilog=part_summaries(), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parts", default=",".join(PARTS), help=f"comma-separated subset of {','.join(PARTS)}")
    parser.add_argument("--json", default="bench_results.json",
                        help="where to write the JSON (default ./bench_results.json)")
    parser.add_argument("--data-dir", default=str(DEFAULT_DATA_DIR),
                        help="stand-in data folder (demo data for tasks it lacks)")
    parser.add_argument("--bertscore", default="tiny,base-random",
                        help="random BERTs to time when no real model is given: tiny, base-random (comma-separated)")
    parser.add_argument("--bertscore-model", default=None,
                        help="a real local BERT folder (e.g. bert-base-chinese; default $CPSD_BERTSCORE_MODEL)")
    parser.add_argument("--bertscore-layers", type=int, default=8, help="layer for --bertscore-model (default 8)")
    parser.add_argument("--latency-requests", type=int, default=480, help="requests per latency run (default 480)")
    parser.add_argument("--overhead-concurrency", type=int, default=8,
                        help="num_concurrent of the full runs (default 8)")
    parser.add_argument("--startup-pairs", type=int, default=3,
                        help="interleaved before/after pairs of the startup part (default 3, ~1-2 min)")
    parser.add_argument("--floor-pairs", type=int, default=3,
                        help="interleaved cpsd/floor pairs of the floor part (default 3, ~3-4 min)")
    parser.add_argument("--markdown", action="store_true",
                        help="print the block of figures docs/performance.md shows instead of the table")
    parser.add_argument("--into", type=Path, metavar="FILE",
                        help="also write that block into FILE, replacing its figures block printed by this command")
    parser.add_argument("--from-json", type=Path, metavar="JSON",
                        help="measure nothing: print the figures of a saved run (its --json file)")
    return parser


def command_line(args: argparse.Namespace, parser: argparse.ArgumentParser) -> str:
    """``python -m benchmarks`` with the :data:`MEASURING` options that differ from their defaults."""
    words = ["python -m benchmarks"]
    for dest in MEASURING:
        value = getattr(args, dest)
        if value != parser.get_default(dest):
            words.append(f"--{dest.replace('_', '-')} {value}")
    return " ".join(words)


def context(args: argparse.Namespace, work: Path, data_dir: Optional[Path]) -> Context:
    """The session's :class:`~benchmarks.context.Context`: the data folder, ``--tasks`` value and options."""
    import cpsd_tasks
    from benchmarks.samples import stand_in_dir, task_selection

    data, sources = stand_in_dir(data_dir, work)
    tasks_arg, _ = task_selection(cpsd_tasks.task_manager(metadata={"bertscore_model": "none",
                                                                      "data_dir": str(data)}))
    return Context(work=work, data=data, hf_home=work / "hf_home", sources=sources, tasks_arg=tasks_arg,
                   bertscore_shapes=tuple(s for s in args.bertscore.split(",") if s),
                   bertscore_model=args.bertscore_model or os.environ.get("CPSD_BERTSCORE_MODEL") or None,
                   bertscore_layers=args.bertscore_layers, latency_requests=args.latency_requests,
                   overhead_concurrency=args.overhead_concurrency, startup_pairs=args.startup_pairs,
                   floor_pairs=args.floor_pairs)


def machine() -> dict[str, Any]:
    """Where the figures are measured: versions, cores, platform, the day and the load at the start."""
    from importlib.metadata import version

    import cpsd_tasks

    return {"python": platform.python_version(), "lm_eval": version("lm_eval"), "cpsd_tasks": cpsd_tasks.__version__,
            "cpus": os.cpu_count(), "platform": platform.platform(), "date": datetime.date.today().isoformat(),
            "loadavg_start": os.getloadavg()}


def measure(args: argparse.Namespace, parts: list[str], command: str) -> dict[str, Any]:
    """Run the chosen ``parts`` (in :data:`~benchmarks.PARTS` order) in one session; their figures."""
    import logging

    logging.getLogger("cpsd_tasks").setLevel(logging.CRITICAL)  # "BERTScore switched off" ×12
    logging.getLogger("lm_eval").setLevel(logging.ERROR)
    logging.getLogger("jieba").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory(prefix="cpsd-bench-") as tmp:
        work = Path(tmp)
        os.environ["HF_HOME"] = str(work / "hf_home")
        data_dir = Path(args.data_dir) if args.data_dir and Path(args.data_dir).is_dir() else None
        ctx = context(args, work, data_dir)
        results: dict[str, Any] = {"command": command, "machine": machine(),
                                   "data_dir": str(data_dir) if data_dir else None, "sources": dict(ctx.sources)}
        for part in PARTS:  # fixed order: scoring first, so its RSS is measured before BERTScore
            if part in parts:
                print(f"[bench] {part} …", file=sys.stderr, flush=True)
                started = time.perf_counter()
                results[part] = importlib.import_module(f"benchmarks.{part}").measure(ctx)
                results[part]["part_seconds"] = time.perf_counter() - started
        results["machine"]["loadavg_end"] = os.getloadavg()
    return results


def main(argv: Optional[list[str]] = None) -> int:
    """Command line (:mod:`benchmarks`): runs the chosen parts, prints the table, writes the JSON; returns 0."""
    for key, value in (("HF_HUB_OFFLINE", "1"), ("HF_DATASETS_OFFLINE", "1"), ("TOKENIZERS_PARALLELISM", "false")):
        os.environ.setdefault(key, value)
    parser = build_parser()
    args = parser.parse_args(argv)
    parts = [p for p in args.parts.split(",") if p]
    unknown = set(parts) - set(PARTS)
    if unknown:
        parser.error(f"unknown part(s): {', '.join(sorted(unknown))}")
    if args.from_json:
        results = json.loads(args.from_json.read_text(encoding="utf-8"))
    else:
        results = measure(args, parts, command_line(args, parser))
    if args.into:
        args.into.write_text(replace_block(args.into.read_text(encoding="utf-8"), markdown(results)), encoding="utf-8")
    print(markdown(results) if args.markdown or args.into else table(results))
    if args.into:
        print(f"\nwritten into {args.into}")
    if not args.from_json:
        Path(args.json).write_text(json.dumps(results, ensure_ascii=False, indent=2, default=str), encoding="utf-8")
        machine_ = results["machine"]
        print(f"\nJSON: {Path(args.json).resolve()}  (load average {machine_['loadavg_start'][0]:.1f} → "
              f"{machine_['loadavg_end'][0]:.1f} on {os.cpu_count()} cores)")
    return 0
