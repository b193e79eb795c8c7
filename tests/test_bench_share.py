"""The bench's in-run figures (benchmarks.probe, benchmarks.children): the scoring probe a child
run carries (process_results and aggregation timed inside the run), the scoring share and peak RSS
computed from its sums, their medians over runs and their table rows. Hand-worked inputs; no time
is asserted."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest

from benchmarks import children, report
from benchmarks.floor import scoring_rows
from benchmarks.probe import median_scoring, scoring_share

MIB = 2 ** 20


def probe(pr_cpu: float, agg_cpu: float, calls: int, pr_wall: float = 0.0, agg_wall: float = 0.0,
          tasks: dict | None = None) -> dict:
    return {"process_results": {"cpu": pr_cpu, "wall": pr_wall, "calls": calls},
            "aggregation": {"cpu": agg_cpu, "wall": agg_wall, "calls": 12}, "tasks": tasks or {}}


def test_scoring_share_by_hand():
    # 1.5 s in process_results + 0.5 s aggregating = 2 s of a run's 16 s CPU = 12.5 %;
    # 3 s + 1 s = 4 s of its 20 s wall = 20 %
    got = scoring_share(probe(1.5, 0.5, 2933, pr_wall=3.0, agg_wall=1.0), cpu=16.0, wall=20.0)
    assert got["cpu"] == 2.0 and got["wall"] == 4.0 and got["calls"] == 2933
    assert got["cpu_share"] == 0.125 and got["wall_share"] == 0.2
    assert got["process_results_cpu"] == 1.5 and got["aggregation_cpu"] == 0.5


def test_scoring_share_without_probe_or_time():
    assert scoring_share(None, 10.0, 10.0) is None
    got = scoring_share(probe(1.0, 0.0, 1), cpu=0.0, wall=0.0)
    assert got["cpu_share"] is None and got["wall_share"] is None


def test_median_scoring_over_runs():
    runs = [scoring_share(probe(c, 0.1, 2933, tasks={"cpsd_rumor": {
        "process_results_cpu": c, "calls": 20, "first_call_cpu": 0.01, "aggregation_cpu": 0.0}}), cpu=10.0, wall=20.0)
        for c in (0.9, 1.9, 0.4)]
    med = median_scoring([*runs, None])  # a run without figures is left out
    assert med["runs"] == 3
    assert med["cpu"] == pytest.approx(1.0) and med["cpu_share"] == pytest.approx(0.10)
    assert med["tasks"]["cpsd_rumor"]["process_results_cpu"] == pytest.approx(0.9)
    assert median_scoring([None, None]) is None


def test_scoring_rows_target_and_floor():
    cpsd = median_scoring([scoring_share(probe(0.75, 0.25, 2933, pr_wall=1.5, agg_wall=0.5,
                                                           tasks={"cpsd_case_summary": {
                                                               "process_results_cpu": 0.5, "calls": 100,
                                                               "first_call_cpu": 0.2, "aggregation_cpu": 0.1}}),
                                                     cpu=12.5, wall=25.0)])
    floor = median_scoring([scoring_share(probe(2.0, 0.0, 2933), cpu=25.0, wall=50.0)])
    rows = scoring_rows(cpsd, floor)
    assert rows[0][1].startswith("8.0% (1.00 s: process_results 0.75 s × 2933 calls, aggregations 0.25 s)")
    assert rows[0][2:] == ("≤ 10 %", True)
    assert rows[1][1] == "case_summary 0.50 s (0.20)"
    assert rows[2][1] == "8.0% (2.00 s); the floor's scoring (exact_match): 8.0% of its CPU (2.00 s)"
    over = median_scoring([scoring_share(probe(3.0, 0.0, 2933), cpu=12.0, wall=24.0)])
    assert scoring_rows(over, None)[0][3] is False  # 25 % > 10 %
    assert scoring_rows(None, None)[0][3] is None  # not measured: no verdict


def test_floor_table_shows_share_and_rss():
    c = {"first_request": 5.0, "request_phase": 2.0, "after_last_response": 8.0, "wall": 15.0, "cpu": 12.0,
         "peak_rss_bytes": 400 * MIB}
    f = dict(c, wall=30.0, cpu=24.0, peak_rss_bytes=486 * MIB)
    share = median_scoring([scoring_share(probe(0.9, 0.3, 2933), cpu=12.0, wall=15.0)])
    fl = {"floor_docs": 2933, "num_concurrent": 8, "pairs": 3, "load_1min": {"min": 1.0, "max": 2.0},
          "cpsd_median": c, "floor_median": f, "wall_ratio": 0.5, "cpu_ratio": 0.5, "cpsd_scoring": share,
          "floor_scoring": None}
    text = report.table({"floor": fl})
    assert "400 MiB / 486 MiB" in text and "| ok " in text.split("400 MiB / 486 MiB")[1].split("\n")[0]
    assert "10.0% (1.20 s: process_results 0.90 s × 2933 calls, aggregations 0.30 s)" in text
    over = dict(fl, cpsd_median=dict(c, peak_rss_bytes=560 * MIB))
    line = next(line for line in report.table({"floor": over}).splitlines() if "560 MiB" in line)
    assert "MISSED" in line


def test_vm_hwm_reads_status_text():
    status = "Name:\tpython\nVmPeak:\t 900000 kB\nVmHWM:\t  401234 kB\nVmRSS:\t 300000 kB\n"
    assert children.vm_hwm(status) == 401234 * 1024


PROBED_CHILD = """
import lm_eval.api.task as task_mod, lm_eval.evaluator_utils as utils_mod

class Fake:
    task_name = "cpsd_fake"
    class config:
        @staticmethod
        def process_results(doc, results):
            return {"acc": float(doc == results[0])}

fake = Fake()
for i in range(5):
    assert task_mod.ConfigurableTask.process_results(fake, "a", ["a" if i % 2 else "b"]) == {"acc": float(i % 2)}
utils_mod._compute_task_aggregations(fake, {}, 0)
"""


@pytest.mark.e2e
def test_probe_in_a_child_counts_calls_and_keeps_values(tmp_path):
    """run_child(probe=True): the wrapped hooks return what the originals return, and the sums
    come back per hook and per task."""
    res = children.run_child([sys.executable, "-c", textwrap.dedent(PROBED_CHILD)], dict(__import__("os").environ),
                          cwd=tmp_path, probe=True)
    assert res["rc"] == 0, res["stderr"][-2000:]
    got = res["probe"]
    assert got["process_results"]["calls"] == 5 and got["aggregation"]["calls"] == 1
    assert got["tasks"]["cpsd_fake"]["calls"] == 5 and got["tasks"]["cpsd_fake"]["first_call_cpu"] >= 0
    assert res["maxrss"] and res["maxrss"] > 0
    plain = children.run_child([sys.executable, "-c", "print(1)"], dict(__import__("os").environ), cwd=tmp_path)
    assert plain["probe"] is None and plain["stdout"].strip() == "1"
    json.dumps(got)  # JSON-ready as written
