"""Benchmark of the plugin's own cost: ``python -m benchmarks`` prints a table and writes JSON.

Run from the checkout's root (the package is a development tool beside ``cpsd_tasks/``, not part of
the installed wheel)::

    python -m benchmarks                          # every part, ~5-10 min on 2 cores
    python -m benchmarks --parts startup          # start-up of a cpsd_* run, before/after, ~1-2 min
    python -m benchmarks --parts scoring,floor    # full run against the harness floor, ~4 min
    python -m benchmarks --bertscore tiny         # a tiny random BERT only (fast)
    python -m benchmarks --markdown               # the figures of docs/performance.md, as Markdown
    python -m benchmarks --from-json bench_results.json --markdown   # render a saved run again

One module per part (:data:`PARTS`, measured in that order); each has ``measure(ctx) -> dict`` (the
part's figures, JSON-ready) and ``rows(figures) -> list[Row]`` (its lines of the table). What a part
reads is a :class:`benchmarks.context.Context`. Speed and memory are judged as ratios against a
reference measured in the same session (the harness floor, the start-up before the plugin's own
index, the request-phase bound) or against the plugin's own targets; the test suite never asserts
wall-clock time and proves linear time by growth ratios (``tests/growth.py``).

Every CLI run goes to 127.0.0.1 only; nothing is downloaded. The machine's load from other
processes changes the figures: the JSON records ``os.getloadavg()`` at the start and the end.
"""

from __future__ import annotations

#: The parts, in the order they are measured (scoring first, so its peak RSS is this process's
#: before BERTScore loads a model) and shown.
PARTS = ("scoring", "bertscore", "overhead", "latency", "loading", "startup", "floor", "adversarial")
