"""Part ``floor``: a full run against the harness floor, side by side in this session.

The part builds the floor task itself (:data:`FLOOR_YAML`: one ``generate_until`` + ``exact_match``
task, one line of template per field) over the same prompts rendered once from the twelve tasks on
the stand-in data, and runs the context's ``floor_pairs`` interleaved pairs (default 3, the order
alternating) of ``cpsd-eval --tasks cpsd`` (BERTScore off) and ``python -m lm_eval run
--include_path <floor> --tasks cpsd_floor`` (the harness's own CLI, built-in index included: what a
user of any built-in task pays) through the real CLIs against one instant loopback endpoint, with
the same model arguments, ``num_concurrent`` (``overhead_concurrency``) and ``--log_samples``.

Reported: per-pair wall and CPU ratios (median; target wall ≤ 0.75×), the phases of both (launch →
first request, requests, last answer → exit), the peak RSS of each run's process (``VmHWM``;
target ≤ 550 MiB without BERTScore), the 1-minute load seen, and the scoring share of the cpsd run
(target ≤ 10 %), measured inside each run by :data:`benchmarks.probe.SCORING_PROBE`: the CPU time
spent in ``process_results`` and the tasks' aggregation step over the run's CPU time (the process
and its children), median over the runs; the same for the floor.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any, Optional

from benchmarks.children import child_cpu, cli_env, endpoint_args, run_child
from benchmarks.context import Context
from benchmarks.probe import median_scoring, scoring_share
from benchmarks.report import MIB, Row, fmt_mib

#: The floor task: one line of template per field, the harness's own generate_until and exact_match.
FLOOR_YAML = """task: cpsd_floor
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: generate_until
doc_to_text: "{{{{prompt}}}}"
doc_to_target: "{{{{target}}}}"
generation_kwargs: {{until: ["<eoa>"], do_sample: false, max_gen_toks: 1024}}
metric_list:
  - {{metric: exact_match, aggregation: mean, higher_is_better: true}}
metadata: {{version: 1.0}}
"""

VARIANTS = ("floor", "cpsd")
FLOOR_PHASES = ("first_request", "request_phase", "after_last_response", "wall", "cpu")
TARGET_WALL_RATIO = 0.75
TARGET_RSS_BYTES = 550 * MIB
TARGET_SCORING_SHARE = 0.10


def pair_order(pairs: int) -> list[str]:
    """The variants in the order they run: ``pairs`` pairs, the floor first in even pairs."""
    return [v for i in range(pairs) for v in (VARIANTS if i % 2 == 0 else VARIANTS[::-1])]


def write_floor_task(folder: Path, tasks: dict[str, Any]) -> int:
    """Write the floor task (:data:`FLOOR_YAML`) and its data into ``folder``: every test doc's
    prompt of ``tasks`` (``{harness name: task}``, in order), rendered once here (the prompt a full
    run sends), with its gold answer. Returns the number of docs (= requests of a floor run)."""
    n = 0
    with open(folder / "floor.jsonl", "w", encoding="utf-8") as f:
        for task in tasks.values():
            for doc in task.test_docs():
                f.write(json.dumps({"prompt": task.doc_to_text(doc), "target": str(task.doc_to_target(doc))},
                                   ensure_ascii=False) + "\n")
                n += 1
    (folder / "cpsd_floor.yaml").write_text(FLOOR_YAML.format(data=json.dumps(str(folder / "floor.jsonl"))),
                                            encoding="utf-8")
    return n


def build_floor(ctx: Context) -> tuple[Path, int]:
    """The floor task of the twelve tasks on the context's data (:func:`write_floor_task`), its
    dataset converted once, unmeasured.

    Returns:
        The folder to pass as ``--include_path`` and the number of docs (= requests).

    Raises:
        RuntimeError: the dataset could not be prepared.
    """
    import cpsd_tasks
    from cpsd_tasks.tasks import TASKS

    folder = Path(tempfile.mkdtemp(dir=ctx.work, prefix="floor-"))
    names = [s.harness_name for s in TASKS.values()]
    loaded = cpsd_tasks.task_manager(metadata=ctx.metadata()).load(names)["tasks"]
    n = write_floor_task(folder, {name: loaded[name] for name in names})
    # The harness turns a JSON file into an Arrow dataset once and caches it under $HF_HOME; that
    # one-off conversion is done here, unmeasured, as a user who has run the task before has it.
    warm = run_child([sys.executable, "-c", "import sys, datasets; datasets.load_dataset('json', "
                      "data_files={'test': sys.argv[1]})", str(folder / "floor.jsonl")],
                     cli_env(ctx.hf_home), cwd=ctx.work)
    if warm["rc"] != 0:
        raise RuntimeError(f"floor dataset could not be prepared:\n{warm['stderr'][-3000:]}")
    return folder, n


def floor_run(ctx: Context, server: Any, variant: str, floor_dir: Path) -> dict[str, Any]:
    """One run through the real CLI: ``cpsd`` (``cpsd-eval --tasks cpsd``, BERTScore off) or
    ``floor`` (``python -m lm_eval run --include_path <floor> --tasks cpsd_floor``: the harness's
    own CLI, its built-in index included, as a user of any built-in task runs it). Same endpoint,
    model arguments, concurrency and ``--log_samples``.

    Returns:
        ``wall``, ``cpu`` (user + system of the child), ``first_request`` (launch to the first
        request), ``request_phase`` (first request to last answer, at the server),
        ``after_last_response`` (last answer to exit: scoring, aggregation, writing), ``requests``,
        ``maxrss`` and ``scoring`` (:func:`benchmarks.probe.scoring_share`).

    Raises:
        RuntimeError: the run failed or sent no request.
    """
    out = tempfile.mkdtemp(dir=ctx.work, prefix=f"{variant}-")
    common = [*endpoint_args(server, ctx.overhead_concurrency), "--output_path", out, "--log_samples"]
    if variant == "floor":
        cmd = [sys.executable, "-m", "lm_eval", "run", "--include_path", str(floor_dir), "--tasks", "cpsd_floor",
               *common]
    else:
        cmd = [sys.executable, "-m", "cpsd_tasks.cli", "--tasks", "cpsd", "--metadata", json.dumps(ctx.metadata()),
               *common]
    server.reset_counts()
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    res = run_child(cmd, cli_env(ctx.hf_home), cwd=ctx.work, probe=True)
    cpu = child_cpu(cpu0, resource.getrusage(resource.RUSAGE_CHILDREN))
    if res["rc"] != 0 or not server.requests or server.first_request_at is None:
        raise RuntimeError(f"{variant} run failed ({res['rc']}, {server.requests} requests):\n{res['stderr'][-3000:]}")
    return {"variant": variant, "wall": res["wall"], "cpu": cpu,
            "first_request": server.first_request_at - res["started"],
            "request_phase": server.last_response_at - server.first_request_at,
            "after_last_response": res["ended"] - server.last_response_at,
            "requests": server.requests, "maxrss": res["maxrss"],
            "scoring": scoring_share(res["probe"], cpu, res["wall"])}


def variant_median(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The median of each of :data:`FLOOR_PHASES` over one variant's runs, its requests and peak RSS."""
    out: dict[str, Any] = {k: statistics.median(r[k] for r in runs) for k in FLOOR_PHASES}
    out["requests"] = runs[0]["requests"]
    out["peak_rss_bytes"] = max((r["maxrss"] or 0) for r in runs) or None
    out["peak_rss_bytes_each"] = [r["maxrss"] for r in runs]
    return out


def summarise(runs: list[dict[str, Any]], load: list[float], n_docs: int, pairs: int,
              concurrency: int) -> dict[str, Any]:
    """The part's figures from its ``runs`` (:func:`floor_run`'s, in :func:`pair_order`) and the
    1-minute ``load`` averages read around them: medians per variant, ratios per pair (runs side
    by side share the machine's load), then their median."""
    out: dict[str, Any] = {"pairs": pairs, "num_concurrent": concurrency, "floor_docs": n_docs, "runs": runs,
                           "load_1min": {"min": min(load), "max": max(load)},
                           "cpsd": "cpsd-eval --tasks cpsd (BERTScore off)",
                           "floor": "python -m lm_eval run --include_path <floor> --tasks cpsd_floor"}
    by_variant = {v: [r for r in runs if r["variant"] == v] for v in ("cpsd", "floor")}
    for variant, mine in by_variant.items():
        out[variant + "_median"] = variant_median(mine)
        out[variant + "_scoring"] = median_scoring([r.get("scoring") for r in mine])
    pairs_of_runs = list(zip(by_variant["cpsd"], by_variant["floor"]))
    for key in ("wall", "cpu"):
        out[key + "_ratio"] = statistics.median(c[key] / f[key] for c, f in pairs_of_runs)
    med = out["cpsd_median"]
    out["cpsd_after_last_response_share"] = med["after_last_response"] / med["wall"]
    return out


def measure(ctx: Context) -> dict[str, Any]:
    """Interleaved cpsd/floor pairs, medians, ratios, phases."""
    from benchmarks.fault_server import FaultServer

    floor_dir, n_docs = build_floor(ctx)
    pairs = max(1, ctx.floor_pairs)
    load = [os.getloadavg()[0]]
    runs: list[dict[str, Any]] = []
    with FaultServer() as server:
        for variant in pair_order(pairs):
            runs.append(floor_run(ctx, server, variant, floor_dir))
            load.append(os.getloadavg()[0])
    return summarise(runs, load, n_docs, pairs, ctx.overhead_concurrency)


def scoring_rows(cpsd: Optional[dict[str, Any]], floor: Optional[dict[str, Any]]) -> list[Row]:
    """Table rows for the scoring share measured inside the runs (:func:`~benchmarks.probe.median_scoring`
    of the cpsd runs and of the floor runs): the share of the run's CPU time (target ≤ 10 % for
    cpsd), its parts, and the share of wall time."""
    if not cpsd:
        return [Row("  scoring share of the cpsd run", "not measured (no probe figures)", "≤ 10 %", None)]
    out = [Row("  scoring share of the cpsd run, CPU: process_results + aggregations (in-process) ÷ the run's CPU",
               f"{cpsd['cpu_share']:.1%} ({cpsd['cpu']:.2f} s: process_results {cpsd['process_results_cpu']:.2f} s "
               f"× {cpsd['calls']:.0f} calls, aggregations {cpsd['aggregation_cpu']:.2f} s)", "≤ 10 %",
               cpsd["cpu_share"] <= TARGET_SCORING_SHARE)]
    tasks = sorted((cpsd.get("tasks") or {}).items(), key=lambda kv: -kv[1]["process_results_cpu"])
    if tasks:
        out.append(Row("  process_results CPU by task, largest first (first call: one-off imports, dictionaries)",
                       ", ".join(f"{name.removeprefix('cpsd_')} {t['process_results_cpu']:.2f} s "
                                 f"({t['first_call_cpu']:.2f})" for name, t in tasks[:5])))
    wall = f"{cpsd['wall_share']:.1%} ({cpsd['wall']:.2f} s)"
    if floor:
        wall += f"; the floor's scoring (exact_match): {floor['cpu_share']:.1%} of its CPU ({floor['cpu']:.2f} s)"
    out.append(Row("  scoring share of the cpsd run, wall", wall))
    return out


def rows(fl: dict[str, Any]) -> list[Row]:
    """The table's lines of part ``floor``."""
    c, f, load = fl["cpsd_median"], fl["floor_median"], fl["load_1min"]
    docs, concurrency = fl["floor_docs"], fl["num_concurrent"]
    out = [Row(f"full run vs harness floor ({docs:,} prompts, instant endpoint, c={concurrency}), "
               f"median of {fl['pairs']} interleaved pairs, load {load['min']:.1f}–{load['max']:.1f}: "
               "wall cpsd / floor",
               f"{c['wall']:.1f} s / {f['wall']:.1f} s = {fl['wall_ratio']:.2f}×", "≤ 0.75×",
               fl["wall_ratio"] <= TARGET_WALL_RATIO),
           Row("  CPU cpsd / floor", f"{c['cpu']:.1f} s / {f['cpu']:.1f} s = {fl['cpu_ratio']:.2f}×")]
    for key, label in (("first_request", "launch → first request (imports, task index, build, prompts)"),
                       ("request_phase", "requests (first request → last answer, at the server)"),
                       ("after_last_response", "last answer → exit (filters, scoring, aggregation, writing)")):
        out.append(Row(f"  {label}",
                       f"{c[key]:.1f} s ({c[key] / c['wall']:.0%}) / {f[key]:.1f} s ({f[key] / f['wall']:.0%})"))
    rss = c["peak_rss_bytes"]
    out.append(Row(f"  peak RSS cpsd / floor (no BERTScore; highest of {fl['pairs']} runs each)",
                   f"{fmt_mib(rss)} / {fmt_mib(f['peak_rss_bytes'])}", "≤ 550 MiB",
                   None if rss is None else rss <= TARGET_RSS_BYTES))
    return out + scoring_rows(fl.get("cpsd_scoring"), fl.get("floor_scoring"))
