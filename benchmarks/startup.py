"""Part ``startup``: the start-up of a ``cpsd_*`` run, before and after, side by side in this session.

*Before* is the harness's own CLI with the plugin's folder (``python -m lm_eval run --include_path
<cpsd yaml> --tasks cpsd``: what ``cpsd-eval`` ran until it stopped indexing the harness's built-in
tasks; ``cpsd_*`` itself failed there); *after* is ``cpsd-eval --tasks 'cpsd_*'``. The context's
``startup_pairs`` interleaved pairs (default 3) run, each with ``--limit 1`` (12 requests), against
an instant loopback endpoint. Start-up = launch to the first request at the endpoint (imports, task
index, task build and data validation, prompts); also the whole run's wall and CPU time. Reported
as medians and after/before ratios.
"""

from __future__ import annotations

import json
import resource
import statistics
import sys
import tempfile
from typing import Any

from benchmarks.children import child_cpu, cli_env, endpoint_args, run_child
from benchmarks.context import Context
from benchmarks.report import Row, fmt_mib

VARIANTS = ("before", "after")
FIGURES = ("first_request", "wall", "cpu")


def pair_order(pairs: int) -> list[str]:
    """The variants in the order they run: ``pairs`` pairs, who goes first alternating."""
    return [v for i in range(pairs) for v in (VARIANTS if i % 2 == 0 else VARIANTS[::-1])]


def startup_run(ctx: Context, server: Any, variant: str) -> dict[str, Any]:
    """One ``--limit 1`` run of all twelve tasks against ``server``: ``variant`` ``before`` (the
    harness's CLI with our folder, ``--tasks cpsd``) or ``after`` (``cpsd-eval --tasks 'cpsd_*'``).

    Returns:
        ``first_request`` (seconds from launch), ``wall``, ``cpu`` (user + system of the child),
        ``requests`` and the child's ``maxrss``.

    Raises:
        RuntimeError: the run failed, or did not send the twelve requests.
    """
    from cpsd_tasks import YAML_DIR

    common = [*endpoint_args(server, 4), "--limit", "1", "--metadata", json.dumps(ctx.metadata()),
              "--output_path", tempfile.mkdtemp(dir=ctx.work, prefix="startup-")]
    if variant == "before":
        cmd = [sys.executable, "-m", "lm_eval", "run", "--include_path", str(YAML_DIR), "--tasks", "cpsd", *common]
    else:
        cmd = [sys.executable, "-m", "cpsd_tasks.cli", "--tasks", "cpsd_*", *common]
    server.reset_counts()
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    res = run_child(cmd, cli_env(ctx.hf_home), cwd=ctx.work)
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res["rc"] != 0 or server.requests != 12 or server.first_request_at is None:
        raise RuntimeError(f"startup run ({variant}) failed ({res['rc']}, {server.requests} requests):\n"
                           f"{res['stderr'][-3000:]}")
    return {"variant": variant, "first_request": server.first_request_at - res["started"], "wall": res["wall"],
            "cpu": child_cpu(cpu0, cpu1), "requests": server.requests, "maxrss": res["maxrss"]}


def summarise(runs: list[dict[str, Any]], pairs: int) -> dict[str, Any]:
    """Medians of each variant's :data:`FIGURES`, their after/before ratios and each variant's peak RSS."""
    out: dict[str, Any] = {"pairs": pairs, "runs": runs,
                           "before": "python -m lm_eval run --include_path <cpsd yaml> --tasks cpsd --limit 1",
                           "after": "cpsd-eval --tasks 'cpsd_*' --limit 1"}
    for key in FIGURES:
        before = statistics.median(r[key] for r in runs if r["variant"] == "before")
        after = statistics.median(r[key] for r in runs if r["variant"] == "after")
        out[key] = {"before_seconds": before, "after_seconds": after, "ratio": after / before}
    out["peak_rss_bytes"] = {v: max((r["maxrss"] or 0) for r in runs if r["variant"] == v) or None
                             for v in VARIANTS}
    return out


def measure(ctx: Context) -> dict[str, Any]:
    """Interleaved before/after pairs, medians and ratios."""
    from benchmarks.fault_server import FaultServer

    pairs = max(1, ctx.startup_pairs)
    with FaultServer() as server:
        runs = [startup_run(ctx, server, variant) for variant in pair_order(pairs)]
    return summarise(runs, pairs)


def rows(st: dict[str, Any]) -> list[Row]:
    """The table's lines of part ``startup``."""
    fr, wall, cpu = st["first_request"], st["wall"], st["cpu"]
    return [
        Row(f"start-up of a cpsd_* run, launch → first request, before / after (median, {st['pairs']} pairs)",
            f"{fr['before_seconds']:.1f} s / {fr['after_seconds']:.1f} s = {fr['ratio']:.2f}×"),
        Row("  whole --limit 1 run, wall / CPU, before → after",
            f"{wall['before_seconds']:.1f} → {wall['after_seconds']:.1f} s ({wall['ratio']:.2f}×) / "
            f"{cpu['before_seconds']:.1f} → {cpu['after_seconds']:.1f} s ({cpu['ratio']:.2f}×)"),
        Row("  peak RSS before / after",
            f"{fmt_mib(st['peak_rss_bytes']['before'])} / {fmt_mib(st['peak_rss_bytes']['after'])}"),
    ]
