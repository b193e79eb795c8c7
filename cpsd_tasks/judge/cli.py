"""``cpsd-judge OUT --base_url URL --model NAME``: read a finished run's answers by meaning.

Reads the sample logs of every run under ``OUT`` (the harness's ``--output_path``, through
:mod:`cpsd_tasks.report.runs`), sends the samples the mode selects to a judge model at any
OpenAI-compatible endpoint (:mod:`cpsd_tasks.judge.client`), reads each reply strictly
(:mod:`cpsd_tasks.judge.reply`) and writes ``judged_<time>.json`` into each run's folder, beside
its ``results_<time>.json``: the judged metrics, the same metrics by the rules, the agreement of
judge and rules, the judge model, the prompts' digest, and the judge's reading of every sample it
was sent. Nothing of the run's own (rule) figures changes; ``cpsd-leaderboard`` shows the judged
figures beside them, marked ``ʲ``. Also run as ``cpsd-leaderboard judge``.

Modes: ``abstained`` (default) sends only the samples the rules read no answer from; ``all``
sends every sample of the judged kinds (to measure agreement). ``--rubric`` also scores the
generation tasks 1–5 per criterion against the reference (a separate set of figures).

Exit status: 0; 1 when the endpoint failed (one line; the replies received stay in the cache and a
second run resumes); 2 for a usage or input error (nothing sent).
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path
from typing import Any, Optional, Sequence

from cpsd_tasks.judge.client import (DEFAULT_CONCURRENCY, DEFAULT_RETRIES, DEFAULT_TIMEOUT, JudgeClient,
                                     JudgeTransportError, ReplyCache)
from cpsd_tasks.judge.items import MODES, Item, agreement, judged_metrics, needs_judge, rubric_metrics, task_items
from cpsd_tasks.judge.prompts import PROMPTS_VERSION, messages, prompt_digest
from cpsd_tasks.judge.reply import read_reply
from cpsd_tasks.tasks import TASKS

CACHE_NAME = "cpsd_judge_cache.db"
#: Characters of a raw reply kept per sample in ``judged_<time>.json``.
REPLY_CHARS = 300


def build_parser(prog: str = "cpsd-judge") -> argparse.ArgumentParser:
    """The argument parser of ``cpsd-judge`` / ``cpsd-leaderboard judge``."""
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0].strip("`"))
    p.add_argument("output_dir", type=Path, help="--output_path of the run (a folder with results_*.json and "
                                                 "samples_*.jsonl, or one holding several model folders)")
    p.add_argument("--base_url", "--base-url", required=True,
                   help="the judge's chat-completions URL, e.g. http://127.0.0.1:8000/v1/chat/completions")
    p.add_argument("--model", required=True, help="the judge model's name at that endpoint")
    p.add_argument("--mode", choices=MODES, default="abstained",
                   help="abstained (default): only samples the rules read no answer from; all: every sample")
    p.add_argument("--rubric", action="store_true", help="also score the generation tasks 1-5 per criterion "
                                                         "against the reference")
    p.add_argument("--tasks", help="comma list of task ids or cpsd_ names (default: every judged task in the run)")
    p.add_argument("--cache", type=Path, help=f"reply cache (SQLite; default OUTPUT_DIR/{CACHE_NAME})")
    p.add_argument("--concurrency", type=int, default=DEFAULT_CONCURRENCY,
                   help=f"requests in flight (default {DEFAULT_CONCURRENCY})")
    p.add_argument("--max_retries", "--max-retries", type=int, default=DEFAULT_RETRIES,
                   help=f"retries per request, with exponential back-off (default {DEFAULT_RETRIES})")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per try (default 120)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def _selected_tasks(spec: Optional[str]) -> Optional[set[str]]:
    if not spec:
        return None
    tasks = {t.strip().removeprefix("cpsd_") for t in spec.split(",") if t.strip()}
    unknown = sorted(t for t in tasks if t not in TASKS)
    if unknown:
        raise ValueError(f"unknown task(s) {', '.join(unknown)}; choose from {', '.join(TASKS)}")
    return tasks


def collect(runs: Sequence[Any], tasks: Optional[set[str]], rubric: bool) -> list[tuple[Any, str, Any, list[Item]]]:
    """``[(run, task, task run, items)]`` for every task with a sample log that the judge reads."""
    out = []
    for run in runs:
        for task, tr in run.tasks.items():
            if tasks is not None and task not in tasks:
                continue
            items = task_items(task, tr.samples(), rubric)
            if items:
                out.append((run, task, tr, items))
    return out


def task_entry(task: str, tr: Any, items: list[Item], mode: str) -> dict[str, Any]:
    """One task's entry of ``judged_<time>.json`` (see docs/judge.md)."""
    judged_m, rules_m = judged_metrics(task, items, mode)
    samples = {}
    for it in items:
        if it.reading is None:
            continue
        samples[str(it.doc_id)] = {"kind": it.kind, "judge": it.reading.answer, "status": it.reading.status,
                                   "why": it.reading.why, "rules": it.rule_answer,
                                   "reply": (it.raw_reply or "")[:REPLY_CHARS]}
    return {"source": str(tr.samples_path.resolve()) if tr.samples_path else None, "n": len(items),
            "sent": sum(needs_judge(it, mode) for it in items),
            "metrics": {**judged_m, **rubric_metrics(items)}, "rule_metrics": rules_m,
            "agreement": agreement(items), "samples": samples}


def _fmt(value: Any) -> str:
    return "" if value is None else f"{value:.4f}" if isinstance(value, float) else str(value)


def print_summary(entries: dict[str, dict[str, Any]], name: str) -> None:
    """A Markdown table per run: task, metric, rules, judged; then what was sent and the agreement."""
    print(f"\n## {name}\n\n| task | metric | rules | judged ʲ |\n|---|---|---:|---:|")
    for harness_name, e in entries.items():
        for metric, value in e["metrics"].items():
            print(f"| {harness_name} | {metric} | {_fmt(e['rule_metrics'].get(metric))} | {_fmt(value)} |")
    print()
    for harness_name, e in entries.items():
        a = e["agreement"]
        rate = "" if a["rate"] is None else f", agreement with the rules {a['agree']}/{a['n']} = {a['rate']:.4f}"
        print(f"- {harness_name}: {e['sent']} of {e['n']} samples sent to the judge{rate}")


def _work(args: argparse.Namespace) -> list[tuple[Any, str, Any, list[Item]]]:
    """The runs' judged tasks and their items (:func:`collect`).

    Raises:
        FileNotFoundError, ValueError: no results file, an unknown task, no judged sample log.
    """
    from cpsd_tasks.report.runs import load_runs

    work = collect(load_runs([args.output_dir]), _selected_tasks(args.tasks), args.rubric)
    if not work:
        raise ValueError(f"no sample log of a judged task under {args.output_dir} (judged: classification, "
                         "case_reading, police_exam; generation with --rubric; was the run made with --log_samples?)")
    return work


def _ask(client: JudgeClient, sent_items: list[Item], progress: bool, prog: str, cache_path: Path) -> Optional[int]:
    """Get and read every reply (``item.reading``); ``None`` when all came, else the exit status
    after one line on stderr (1: the endpoint failed; 130: interrupted)."""
    def on_reply(index: int, text: str, from_cache: bool) -> None:
        item = sent_items[index]
        item.raw_reply = text
        item.reading = read_reply(text, item.kind, item.allowed)

    try:
        client.replies([(messages(it.kind, it.fields), it.kind) for it in sent_items], on_reply, progress=progress)
        return None
    except (JudgeTransportError, KeyboardInterrupt) as err:
        got = sum(it.reading is not None for it in sent_items)
        what = f"error: {err}" if isinstance(err, JudgeTransportError) else "interrupted"
        print(f"{prog}: {what}; {got} of {len(sent_items)} replies kept in {cache_path} (run again to resume)",
              file=sys.stderr)
        return 1 if isinstance(err, JudgeTransportError) else 130


def write_judged(work: list[tuple[Any, str, Any, list[Item]]], judge: dict[str, Any], mode: str) -> list[Path]:
    """Write ``judged_<time>.json`` into each run folder of ``work`` and print its summary.

    Returns:
        The files written, one per run folder.
    """
    from cpsd_tasks import __version__

    now = datetime.datetime.now()
    stamp = now.strftime("%Y-%m-%dT%H-%M-%S.%f")  # the harness's own stamp form
    by_run: dict[Path, dict[str, Any]] = {}
    for run, task, tr, items in work:
        entry = by_run.setdefault(run.path, {"name": run.name, "tasks": {}})
        entry["tasks"][tr.harness_name] = task_entry(task, tr, items, mode)
    written = []
    for folder, entry in by_run.items():
        out = folder / f"judged_{stamp}.json"
        data = {"kind": "cpsd-judge", "created": now.strftime("%Y-%m-%dT%H:%M:%S"),
                "cpsd_tasks_version": __version__, "judge": judge, "folder": str(folder.resolve()),
                "tasks": entry["tasks"]}
        out.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
        print_summary(entry["tasks"], entry["name"])
        print(f"\nwritten to {out}")
        written.append(out)
    return written


def main(argv: Optional[Sequence[str]] = None, prog: str = "cpsd-judge") -> int:
    """Entry point of ``cpsd-judge``; returns the exit status (see the module docstring)."""
    args = build_parser(prog).parse_args(argv)
    try:
        work = _work(args)
    except (FileNotFoundError, ValueError) as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 2
    digest = prompt_digest(sorted({it.kind for *_, items in work for it in items}))
    cache_path = args.cache or (args.output_dir if args.output_dir.is_dir() else args.output_dir.parent) / CACHE_NAME
    cache = ReplyCache(cache_path)
    client = JudgeClient(args.base_url, args.model, cache, digest, args.concurrency, args.max_retries, args.timeout)
    sent_items = [it for *_, items in work for it in items if needs_judge(it, args.mode)]
    print(f"{prog}: {len(sent_items)} of {sum(len(i) for *_, i in work)} samples to judge ({args.mode} mode"
          f"{', with rubric' if args.rubric else ''}); judge {args.model} at {client.url}; cache {cache_path}",
          file=sys.stderr)
    try:
        failed = _ask(client, sent_items, not args.no_progress, prog, cache_path)
    finally:
        cache.close()
    if failed is not None:
        return failed
    judge = {"model": args.model, "base_url": client.url, "mode": args.mode, "rubric": args.rubric,
             "prompt_digest": digest, "prompts_version": PROMPTS_VERSION, "temperature": 0,
             "sent": client.sent, "from_cache": len(sent_items) - client.sent}
    write_judged(work, judge, args.mode)
    print(f"{prog}: {client.sent} requests sent, {len(sent_items) - client.sent} replies from the cache",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
