"""Part ``adversarial``: absolute time budgets for adversarial model outputs at full size.

The tests prove that reading these outputs takes linear time by comparing growth (time at n
against 4n, tests/growth.py), which a busy machine cannot break. The seconds a user actually
waits are measured here instead, on the full-size inputs the tests were once timed on
(100,000-character IE outputs, long letter lists, unclosed ``<think>`` tags, a 5,000-character
text pair)::

    python -m benchmarks --parts adversarial  # as a part of the bench (best of 3)
    python -m benchmarks.adversarial          # alone: prints a table; exit 1 when a budget is missed

Each case is timed as the best of ``--repeats`` runs (default 3) after one warm-up call of a small
input (imports, compiled patterns, jieba's dictionary), in a forked child process that is stopped
after ten times its budget (reported as ``> N s``), so a quadratic regression cannot hang the bench.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable, Optional

from benchmarks.context import Context
from benchmarks.report import Row


@dataclass(frozen=True)
class Case:
    """One adversarial input: ``fn(make())`` must take at most ``budget`` seconds."""

    name: str
    fn: Callable[[Any], Any]
    make: Callable[[], Any]
    budget: float


def _cut(pattern: str, n: int) -> str:
    return (pattern * (n // len(pattern) + 1))[:n]


def _ner_json(k: int) -> str:
    return json.dumps([{"type": "人名", "text": f"张某{i}"} for i in range(k)], ensure_ascii=False)


def long_pair(n: int = 5000) -> tuple[str, str]:
    """Two different ``n``-character texts made of the embedded demo set's generation sentences
    (inputs and references), shuffled with a fixed seed: real Chinese prose for the 5,000-character
    text-metric budget here and for the growth test in tests/test_generation.py.

    Returns:
        ``(text_a, text_b)``, each exactly ``n`` characters.
    """
    import random

    from cpsd_tasks.baseline.rules_tg import sentences
    from cpsd_tasks.data.loading import DEMO_DIR, load_task_docs

    pool = [s for t in ("case_summary", "case_report", "legal_analysis")
            for d in load_task_docs(t, str(DEMO_DIR))["test"] for s in sentences(d["input"] + d["reference"])]
    rng = random.Random(0)
    out = []
    for _ in range(2):
        rng.shuffle(pool)
        text = ""
        while len(text) < n:
            text += "".join(pool)
        out.append(text[:n])
    return out[0], out[1]


def cases() -> list[Case]:
    """The budgets (moved from tests/test_ie.py, test_qa.py, test_text.py, test_generation.py)."""
    from cpsd_tasks import generation
    from cpsd_tasks.qa import judge_exam
    from cpsd_tasks.reading import extract_choices
    from cpsd_tasks.reading.ie_parse import parse_output
    from cpsd_tasks.reading import normalize, strip_think

    def ner(task: str) -> Callable[[str], Any]:
        return lambda text: parse_output(text, task)

    n = 100_000
    unclosed = '[{"type": "人名", "text": "张'
    out = [
        Case("IE: unclosed strings (json_repair), 100k", ner("drug_ner"), lambda: _cut(unclosed, n), 1.0),
        Case("IE: unclosed strings, RE, 100k", ner("drug_re"), lambda: _cut(unclosed, n), 1.0),
        Case("IE: list of quotes, 100k", ner("drug_ner"), lambda: '["' * (n // 2), 1.0),
        Case("IE: 类型:值 line with 100k spaces", ner("drug_ner"), lambda: "人名:a" + " " * n + "b", 1.0),
        Case("IE: RE line with 100k spaces", ner("drug_re"), lambda: "贩卖给:汪某" + " " * n + ",张某", 1.0),
        Case("IE: 100k spaces, no colon", ner("drug_ner"), lambda: " " * n + "汪某", 1.0),
        Case("IE: unclosed fence, 100k", ner("drug_ner"), lambda: "```" + "a" * n, 1.0),
        Case("IE: 答案 prefix runs, 100k", ner("drug_ner"), lambda: "人名:" + "答案" * (n // 2), 1.0),
        Case("IE: 100k JSON key", ner("drug_ner"),
             lambda: json.dumps({"答案" * (n // 2): "汪某"}, ensure_ascii=False), 1.0),
        Case("IE: 5,000 broken fences", ner("drug_ner"), lambda: '```json\n[{"a":\n```\n' * 5000, 1.0),
        Case("IE: 600 entities, valid JSON (17k)", ner("drug_ner"), lambda: _ner_json(600), 2.5),
        Case("IE: 10k unbalanced brackets", ner("drug_ner"), lambda: "[{" * 5000 + "汪某", 2.5),
        Case("IE: prose then truncated JSON (28k)", ner("drug_ner"),
             lambda: "这是一段很长的说明文字。" * 900 + _ner_json(600)[:-1] + ',{"type"', 2.5),
        Case("<think> ×15,000 unclosed: strip_think + normalize", lambda t: (strip_think(t), normalize(t + "x")),
             lambda: "<think>" * 15000, 1.0),
        Case("text_scores, 5,000-character pair", lambda pair: generation.text_scores(*pair), long_pair, 2.0),
    ]
    abcd = {k: k for k in "ABCD"}
    for label, output in (("A B C D ×12,500", "A B C D " * 12500 + "x"),
                          ("A选项B选项 ×20,000", "A选项B选项" * 20000 + "x"),
                          ("选项A 选项B ×10,000", "选项A 选项B " * 10000 + "x"),
                          ("A 、 ×25,000", "A 、 " * 25000 + "x"),
                          ("(A) (B) ×12,500", "(A) (B) " * 12500 + "x"),
                          ("答案是 A、×50,000", "答案是" + "A、" * 50000 + "x"),
                          ("A ×100,000", "A" * 100_000)):
        out.append(Case(f"QA: extract_choices + judge_exam, {label}",
                        lambda t: (extract_choices(t, abcd), judge_exam(t, "A", "多选", abcd)),
                        lambda o=output: o, 1.0))
    return out


def _time_case(case: Case, repeats: int, conn) -> None:
    """Child process: best of ``repeats`` runs of ``case``, sent through ``conn``."""
    arg = case.make()
    case.fn(arg if not isinstance(arg, str) else arg[:100])  # warm-up
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        case.fn(arg)
        best = min(best, time.perf_counter() - started)
        conn.send(best)  # the best so far: the parent keeps it if a later run is stopped
    conn.close()


def time_cases(repeats: int = 3, only: Optional[str] = None) -> list[dict[str, Any]]:
    """Time every case (best of ``repeats``), each in a forked child stopped after 10 × its budget.

    Returns:
        ``[{"case", "seconds", "budget", "ok", "stopped"}]`` in :func:`cases` order; ``seconds`` is
        the time limit when the first run was stopped (``stopped`` True).
    """
    import logging
    import multiprocessing

    logging.getLogger("jieba").setLevel(logging.ERROR)
    mp = multiprocessing.get_context("fork")  # the child inherits the cases (closures do not pickle)
    timed = []
    for case in cases():
        if only and only not in case.name:
            continue
        limit = 10 * case.budget
        parent, child = mp.Pipe(duplex=False)
        proc = mp.Process(target=_time_case, args=(case, repeats, child), daemon=True)
        proc.start()
        child.close()
        best: Optional[float] = None
        deadline = time.monotonic() + limit + 30  # + building the input and the warm-up
        while proc.is_alive() and time.monotonic() < deadline:
            if parent.poll(0.1):
                try:
                    best = parent.recv()
                except EOFError:
                    break
                deadline = min(deadline, time.monotonic() + limit)
        while parent.poll():
            try:
                best = parent.recv()
            except EOFError:
                break
        stopped = proc.is_alive()
        if stopped:
            proc.terminate()
        proc.join()
        seconds = limit if best is None else best
        timed.append({"case": case.name, "seconds": seconds, "budget": case.budget,
                     "ok": best is not None and best <= case.budget, "stopped": best is None})
    return timed


def measure(ctx: Optional[Context] = None) -> dict[str, Any]:
    """The part's figures: every case, best of 3, against its budget (the context is not needed)."""
    return {"rows": time_cases(repeats=3)}


def rows(adv: dict[str, Any]) -> list[Row]:
    """The table's lines of part ``adversarial``."""
    out = []
    for r in adv["rows"]:
        value = f"> {r['seconds']:.0f} s (stopped)" if r.get("stopped") else f"{r['seconds']:.3f} s"
        out.append(Row(f"adversarial output: {r['case']}", value, f"≤ {r['budget']:g} s", r["ok"]))
    return out


def main(argv: Optional[list[str]] = None) -> int:
    """Print the table; exit status 1 when a budget is missed."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.adversarial", description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs per case, best counts (default 3)")
    parser.add_argument("-k", dest="only", help="only cases whose name contains this text")
    args = parser.parse_args(argv)
    timed = time_cases(args.repeats, args.only)
    width = max(len(r["case"]) for r in timed)
    print(f"| {'case'.ljust(width)} | seconds | budget | status |")
    print(f"|{'-' * (width + 2)}|---------|--------|--------|")
    for r in timed:
        seconds = f"> {r['seconds']:.0f}" if r["stopped"] else f"{r['seconds']:.3f}"
        print(f"| {r['case'].ljust(width)} | {seconds:>7} | {r['budget']:6.1f} | "
              f"{'ok' if r['ok'] else 'MISSED':6} |")
    return 0 if all(r["ok"] for r in timed) else 1


if __name__ == "__main__":
    sys.exit(main())
