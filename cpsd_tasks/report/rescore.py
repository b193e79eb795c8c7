"""Re-score the generation tasks of a finished run from its sample log, without the model.

A run made with ``--log_samples`` (or ``--predict_only``, which implies it) keeps every output
and its doc in ``samples_cpsd_<task>_<time>.jsonl``. This script recomputes, from those files
alone, the metrics of ``cpsd_case_summary``, ``cpsd_case_report`` and ``cpsd_legal_analysis``
exactly as the harness does (same ``process_results`` and aggregations, docs/metrics.md#text-generation) — typically
on a machine that has the BERT model the first run lacked::

    cpsd-eval --model … --tasks cpsd_tg --output_path out --predict_only
    cpsd-leaderboard rescore out --bertscore-model /models/bert-base-chinese --num-layers 8
    cpsd-leaderboard out          # the rescored figures fill the run's missing BERTScore

Every folder under OUTPUT_DIR that holds such sample files (lm-eval writes one per model) is a
run; for each task the newest file of that folder is used. The script prints a table per run
(with the value the run itself reported, when there is one) and writes all figures to
``OUTPUT_DIR/rescored_<time>.json`` (or ``--out``); a missing BERTScore is ``null`` there, with
the reason in ``bertscore_config``. Exit status: 0 (also when BERTScore was switched off on
purpose with ``--bertscore-model none``), 1 when BERTScore is missing for some task for any other
reason, 2 when no sample file was found.

``cpsd-leaderboard DIR`` reads every ``rescored_*.json`` under ``DIR`` (at any depth), in a run's
folder or the folder above it (or one passed as a run) that rescored one of its runs: its figures
replace the run's missing (NaN) values, marked as rescored with the BERT model used. Run as
``cpsd-leaderboard rescore`` or ``cpsd-rescore`` (the same command); ``scripts/rescore.py`` is a
thin shim. The sample logs are found and read by the reader
(:mod:`cpsd_tasks.report.files`, :mod:`cpsd_tasks.report.jsonio`).
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Sequence

from cpsd_tasks import generation
from cpsd_tasks.exceptions import DataError
from cpsd_tasks.options import RunConfig
from cpsd_tasks.report.files import find_sample_logs, results_of_samples
from cpsd_tasks.report.jsonio import read_jsonl_lines, sample_output
from cpsd_tasks.tasks import TASKS as REGISTRY
from cpsd_tasks.taxonomy import agg_reading

#: The generation tasks (``case_summary``, ``case_report``, ``legal_analysis``), in registry order.
TASKS = tuple(t for t, spec in REGISTRY.items() if spec.kind == "generation")
NUMERIC = ("bertscore_f1", *generation.TEXT_METRICS, "score", "empty_rate")
AGGREGATIONS = {
    "bertscore_f1": generation.agg_bertscore_f1,
    "score": generation.agg_score,
    "bertscore_config": generation.agg_bertscore_config,
    "reading": agg_reading,
}


#: Set to "1" by :func:`offline_hub` when it found ``HF_HUB_OFFLINE`` unset (report commands).
HUB_OFFLINE_BY_US = "CPSD_REPORT_SET_HUB_OFFLINE"


def offline_hub() -> None:
    """Report commands load only models already on this machine: ``HF_HUB_OFFLINE=1`` unless set.

    Without it, a BERTScore model missing from the local cache is looked up on the Hugging Face hub,
    which retries for about 45 s on a machine without access before failing. ``HF_HUB_OFFLINE=0``
    lets a report command download. Must run before ``huggingface_hub`` is imported (it reads the
    variable once).
    """
    import os

    if "HF_HUB_OFFLINE" not in os.environ:
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ[HUB_OFFLINE_BY_US] = "1"


def hub_note() -> str:
    """`` (the hub was offline: …)`` when :func:`offline_hub` set it, else ``""``."""
    import os

    if os.environ.get(HUB_OFFLINE_BY_US) == "1":
        return " (the Hugging Face hub was offline: report commands set HF_HUB_OFFLINE=1 when it is unset; " \
               "give a local folder, or HF_HUB_OFFLINE=0 to download)"
    return ""


def find_runs(output: Path, tasks: tuple[str, ...]) -> dict[Path, dict[str, Path]]:
    """Map each folder holding generation sample logs to ``{task id: newest samples file}``
    (:func:`cpsd_tasks.report.files.find_sample_logs`)."""
    return find_sample_logs(output, tasks)


def run_values(samples_file: Path, name: str) -> dict[str, Any]:
    """Metrics the run itself reported for task or group ``name`` (``cpsd_case_report``,
    ``cpsd_tg``) in the ``results_<time>.json`` written with ``samples_file``; ``{}`` if none."""
    data = results_of_samples(samples_file) or {}
    row = data.get("results", {}).get(name) or data.get("groups", {}).get(name) or {}
    return {key.split(",")[0]: value for key, value in row.items() if key.endswith(",none")}


def rescore_file(path: Path, task: str, config: Optional[RunConfig] = None) -> dict[str, Any]:
    """Recompute every metric of one sample log (filter ``none``), BERTScore with ``config``'s
    options (default: the task's defaults and the environment).

    Returns:
        ``{metric: value}``: floats (NaN for a missing BERTScore), ``bertscore_config`` a string,
        plus ``n`` (samples scored).
    """
    per_metric: dict[str, list] = defaultdict(list)
    # Lone surrogates ("\\ud835" escapes) and undecodable bytes become U+FFFD (jsonio.loads_clean).
    for sample in read_jsonl_lines(path):
        if sample.get("filter", "none") != "none":
            continue
        doc = dict(sample["doc"])
        doc.setdefault("task", task)
        for metric, value in generation.process_results(doc, [sample_output(sample)]).items():
            per_metric[metric].append(value)
    config = config or RunConfig(task)
    out: dict[str, Any] = {}
    for metric, values in per_metric.items():
        aggregate = AGGREGATIONS.get(metric)
        if metric in ("bertscore_f1", "score"):
            aggregate = functools.partial(aggregate, config=config)
        out[metric] = aggregate(values) if aggregate else sum(values) / len(values)
    out["n"] = len(per_metric.get("score", []))
    return out


def _switched_off(config: RunConfig) -> bool:
    """True when the task's BERTScore is off on purpose (``--bertscore-model none`` or
    ``$CPSD_BERTSCORE_MODEL=none``); False too when its options cannot be read (a real error)."""
    try:
        return generation.bertscore_settings(config).disabled
    except ValueError:
        return False


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return "missing" if math.isnan(value) else f"{value:.4f}"
    return "" if value is None else str(value)


def _json_value(value: Any) -> Any:
    return None if isinstance(value, float) and math.isnan(value) else value


def build_parser(prog: str = "cpsd-rescore") -> argparse.ArgumentParser:
    """The argument parser of rescoring (``cpsd-rescore`` / ``cpsd-leaderboard rescore``)."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    parser.add_argument("output_dir", type=Path, help="--output_path of the run (or one samples file)")
    parser.add_argument("--bertscore-model", help="hub name or local directory (default: "
                        "$CPSD_BERTSCORE_MODEL, else bert-base-chinese); 'none' skips BERTScore")
    parser.add_argument("--num-layers", type=int, help="BERT layer (needed for a directory whose "
                        "path does not name a known model; bert-base-chinese uses 8)")
    parser.add_argument("--batch-size", type=int, help="BERTScore batch size (default 32)")
    parser.add_argument("--tasks", default=",".join(TASKS),
                        help="comma-separated task ids or cpsd_ names (default: all three)")
    parser.add_argument("--out", type=Path, help="JSON file to write (default: "
                        "OUTPUT_DIR/rescored_<time>.json)")
    return parser


def requested_tasks(parser: argparse.ArgumentParser, spec: str) -> tuple[str, ...]:
    """The task ids of ``--tasks`` (``cpsd_`` prefix optional); an unknown one ends the command
    with a usage error."""
    tasks = tuple(t.strip().removeprefix("cpsd_") for t in spec.split(",") if t.strip())
    unknown = [t for t in tasks if t not in TASKS]
    if unknown:
        parser.error(f"unknown generation task(s) {', '.join(unknown)}; choose from {', '.join(TASKS)}")
    return tasks


def run_configs(args: argparse.Namespace, tasks: Sequence[str]) -> dict[str, RunConfig]:
    """Each task's :class:`~cpsd_tasks.options.RunConfig` from ``--bertscore-model``,
    ``--num-layers`` and ``--batch-size`` (checked as a run's options are).

    Raises:
        cpsd_tasks.options.OptionError: a value a run would refuse (e.g. ``--num-layers 0``).
    """
    options: dict[str, Any] = {}
    if args.bertscore_model:
        options["bertscore_model"] = args.bertscore_model
    if args.num_layers is not None:
        options["bertscore_num_layers"] = args.num_layers
    if args.batch_size is not None:
        options["bertscore_batch_size"] = args.batch_size
    return {task: RunConfig.from_metadata(task, options) for task in tasks}


@dataclass
class RunRescore:
    """The rescoring of one run folder.

    Attributes:
        results: ``{cpsd_<task>: {"source", metric: value}}``. group: ``cpsd_tg``'s means (all three
            tasks present), else empty. missing: BERTScore absent for a task where it was not
            switched off. switched_off: BERTScore switched off for some task on purpose.
    """

    results: dict[str, dict[str, Any]]
    group: dict[str, Any]
    missing: bool = False
    switched_off: bool = False


def rescore_run(files: dict[str, Path], configs: Optional[dict[str, RunConfig]] = None) -> RunRescore:
    """Rescore one run's generation sample logs (``{task: samples file}``) with ``configs``
    (``{task: RunConfig}``, default each task's defaults), printing each metric beside the run's
    own value as a Markdown table row."""
    done = RunRescore(results={}, group={})
    for task, path in sorted(files.items(), key=lambda kv: TASKS.index(kv[0])):
        config = (configs or {}).get(task) or RunConfig(task)
        values = rescore_file(path, task, config)
        before = run_values(path, f"cpsd_{task}")
        done.results[f"cpsd_{task}"] = {"source": str(path.resolve()), **values}
        if generation.is_missing(values.get("bertscore_f1")):
            if _switched_off(config):
                done.switched_off = True
            else:
                done.missing = True
        for metric in (*NUMERIC, "bertscore_config"):
            if metric in values:
                print(f"| cpsd_{task} | {metric} | {_fmt(values[metric])} | {_fmt(before.get(metric))} |")
    if len(done.results) == len(TASKS):
        stamps = {p.stem.rsplit("_", 1)[-1] for p in files.values()}
        before = run_values(next(iter(files.values())), "cpsd_tg") if len(stamps) == 1 else {}
        for metric in NUMERIC:  # the group's unweighted mean; NaN stays NaN
            done.group[metric] = sum(r[metric] for r in done.results.values()) / len(done.results)
            print(f"| cpsd_tg | {metric} | {_fmt(done.group[metric])} | {_fmt(before.get(metric))} |")
    return done


def main(argv: Optional[Sequence[str]] = None, prog: str = "cpsd-rescore") -> int:
    """Command line entry point; returns the exit status (see module docstring)."""
    offline_hub()
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    tasks = requested_tasks(parser, args.tasks)
    try:
        configs = run_configs(args, tasks)
    except DataError as err:
        print(f"rescore: {err}", file=sys.stderr)
        return 2

    if not args.output_dir.exists():
        print(f"rescore: {args.output_dir} does not exist", file=sys.stderr)
        return 2
    runs = find_runs(args.output_dir, tasks)
    if not runs:
        print(f"rescore: no samples_cpsd_<task>_*.jsonl for {', '.join(tasks)} under "
              f"{args.output_dir} (was the run made with --log_samples or --predict_only?)",
              file=sys.stderr)
        return 2

    report: dict[str, Any] = {"created": time.strftime("%Y-%m-%dT%H:%M:%S"),
                              "bert_score_version": generation.bert_score_version(), "runs": {}}
    missing = False  # BERTScore absent for a task whose BERTScore was not switched off on purpose
    switched_off = False
    started = time.perf_counter()
    for folder, files in sorted(runs.items()):
        name = str(folder.relative_to(args.output_dir)) if args.output_dir.is_dir() else str(folder)
        print(f"\n## {name}\n\n| task | metric | rescored | in run |\n|---|---|---:|---:|")
        done = rescore_run(files, configs)
        missing, switched_off = missing or done.missing, switched_off or done.switched_off
        report["runs"][name] = {
            "folder": str(folder.resolve()),
            "results": {task: {k: _json_value(v) for k, v in row.items()} for task, row in done.results.items()},
            "groups": {"cpsd_tg": {k: _json_value(v) for k, v in done.group.items()}} if done.group else {},
        }
    elapsed = time.perf_counter() - started
    report["seconds"] = round(elapsed, 2)
    out = args.out or (args.output_dir if args.output_dir.is_dir() else args.output_dir.parent) / \
        f"rescored_{time.strftime('%Y-%m-%dT%H-%M-%S')}.json"
    out.write_text(json.dumps(report, ensure_ascii=False, indent=2), encoding="utf-8")
    print(f"\nscored in {elapsed:.1f} s; written to {out}")
    if missing:
        print("rescore: BERTScore is MISSING for some task (see the error above); the other "
              f"metrics are complete{hub_note()}", file=sys.stderr)
        return 1
    if switched_off:
        print("rescore: BERTScore was switched off (bertscore_model=none); the other metrics are "
              "complete", file=sys.stderr)
    return 0

if __name__ == "__main__":
    sys.exit(main())
