"""Part ``latency``: concurrency against a slow endpoint.

The endpoint sleeps 50 ms per request; ``cpsd_clf`` runs on the stand-in data with ``--limit``
(the context's ``latency_requests``, 480 by default, over its four tasks) at ``num_concurrent``
1, 8 and 16. Each request phase is set against the bound ``requests × 0.05 s / concurrency``
(target ≤ 1.3× at 16).
"""

from __future__ import annotations

from typing import Any

from benchmarks.children import run_eval
from benchmarks.context import Context
from benchmarks.report import Row

DELAY_SECONDS = 0.05
CONCURRENCY = (1, 8, 16)
TARGET_RATIO_AT_16 = 1.3


def measure(ctx: Context) -> dict[str, Any]:
    """``cpsd_clf`` on a 50 ms endpoint at concurrency 1, 8, 16 against the bound."""
    from benchmarks.fault_server import FaultServer

    limit = ctx.latency_requests // 4
    out = []
    with FaultServer(delay=DELAY_SECONDS) as server:
        for concurrency in CONCURRENCY:
            res = run_eval(ctx, "cpsd_clf", server, concurrency, extra=("--limit", str(limit)), log_samples=False)
            bound = res["requests"] * DELAY_SECONDS / concurrency
            out.append({"num_concurrent": concurrency, "requests": res["requests"], "bound_seconds": bound,
                        "request_phase_seconds": res["request_phase"], "ratio": res["request_phase"] / bound,
                        "max_in_flight": res["max_in_flight"], "cli_wall_seconds": res["wall"],
                        "peak_rss_bytes": res["maxrss"]})
    return {"rows": out, "delay_seconds": DELAY_SECONDS, "target_ratio_at_16": TARGET_RATIO_AT_16}


def rows(lat: dict[str, Any]) -> list[Row]:
    """The table's lines of part ``latency``."""
    out = []
    for r in lat["rows"]:
        is16 = r["num_concurrent"] == 16
        out.append(Row(f"latency 50 ms, c={r['num_concurrent']}, {r['requests']} requests",
                       f"{r['request_phase_seconds']:.2f} s vs bound {r['bound_seconds']:.2f} s = {r['ratio']:.2f}×",
                       "≤ 1.3×" if is16 else "", (r["ratio"] <= TARGET_RATIO_AT_16) if is16 else None))
    return out
