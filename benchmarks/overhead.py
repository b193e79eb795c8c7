"""Part ``overhead``: one full run of every task through the real ``cpsd-eval`` CLI.

The run goes to a loopback endpoint that answers at once (the rule baseline), on the stand-in
data, BERTScore off. Its wall time is split into phases (before the first request, the request
phase measured at the server, after the last answer) and set against the request phase; the peak
RSS of the CLI process has a target of ≤ 1 GiB.
"""

from __future__ import annotations

from typing import Any

from benchmarks.children import run_eval
from benchmarks.context import Context
from benchmarks.report import GIB, Row, fmt_mib


def measure(ctx: Context) -> dict[str, Any]:
    """One full CLI run on an instant endpoint, wall time split into phases."""
    from benchmarks.fault_server import FaultServer

    with FaultServer() as server:
        res = run_eval(ctx, ctx.tasks_arg, server, concurrency=ctx.overhead_concurrency)
    return {"tasks_arg": ctx.tasks_arg, "requests": res["requests"], "num_concurrent": ctx.overhead_concurrency,
            "wall_seconds": res["wall"], "before_first_request_seconds": res["first_request"],
            "request_phase_seconds": res["request_phase"], "after_last_response_seconds": res["after_last_response"],
            "server_busy_seconds": res["server_busy"],
            "overhead_ratio": res["wall"] / res["request_phase"], "peak_rss_bytes": res["maxrss"],
            "target_rss_bytes": GIB}


def rows(o: dict[str, Any]) -> list[Row]:
    """The table's lines of part ``overhead``."""
    return [
        Row(f"full run ({o['tasks_arg']}), {o['requests']} requests, instant endpoint, c={o['num_concurrent']}",
            f"{o['wall_seconds']:.1f} s wall"),
        Row("  before first request (imports, task index, build, prompts)",
            f"{o['before_first_request_seconds']:.1f} s"),
        Row("  request phase (pure request time)",
            f"{o['request_phase_seconds']:.1f} s (server busy {o['server_busy_seconds']:.1f} s)"),
        Row("  after last answer (scoring, aggregation, writing logs)", f"{o['after_last_response_seconds']:.1f} s"),
        Row("  overhead ratio: wall / request phase", f"{o['overhead_ratio']:.1f}×"),
        Row("  peak RSS of the CLI process (no BERTScore)", fmt_mib(o["peak_rss_bytes"]), "≤ 1 GiB",
            None if o["peak_rss_bytes"] is None else o["peak_rss_bytes"] <= GIB),
    ]
