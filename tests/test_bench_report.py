"""The bench's context and table (benchmarks.context, benchmarks.report): hand-built figures, no
measurement, no process."""

from __future__ import annotations

import dataclasses

import pytest

from benchmarks import PARTS, report
from benchmarks.context import Context

LATENCY = {"rows": [{"num_concurrent": 8, "requests": 480, "bound_seconds": 3.0, "request_phase_seconds": 3.3,
                     "ratio": 1.1},
                    {"num_concurrent": 16, "requests": 480, "bound_seconds": 1.5, "request_phase_seconds": 1.56,
                     "ratio": 1.04}]}


def test_context_is_frozen_and_gives_the_run_metadata(tmp_path):
    ctx = Context(work=tmp_path, data=tmp_path / "data", hf_home=tmp_path / "hf")
    with pytest.raises(dataclasses.FrozenInstanceError):
        ctx.floor_pairs = 5  # type: ignore[misc]
    assert ctx.metadata() == {"data_dir": str(tmp_path / "data"), "bertscore_model": "none"}
    assert ctx.metadata(bertscore_model="/m", bertscore_num_layers=2) == {
        "data_dir": str(tmp_path / "data"), "bertscore_model": "/m", "bertscore_num_layers": 2}
    assert (ctx.tasks_arg, ctx.floor_pairs, ctx.bertscore_shapes) == ("cpsd", 3, ("tiny", "base-random"))


def test_latency_rows_judge_only_concurrency_16():
    rows = report.part_rows({"latency": LATENCY})
    assert rows == [report.Row("latency 50 ms, c=8, 480 requests", "3.30 s vs bound 3.00 s = 1.10×", "", None),
                    report.Row("latency 50 ms, c=16, 480 requests", "1.56 s vs bound 1.50 s = 1.04×", "≤ 1.3×", True)]
    over = {"rows": [dict(LATENCY["rows"][1], request_phase_seconds=1.98, ratio=1.32)]}
    assert [r.status for r in report.part_rows({"latency": over})] == ["MISSED"]


def test_adversarial_rows_show_a_stopped_case_as_missed():
    adv = {"rows": [{"case": "QA: A ×100,000", "seconds": 0.0123, "budget": 1.0, "ok": True, "stopped": False},
                    {"case": "IE: 100k JSON key", "seconds": 10.0, "budget": 1.0, "ok": False, "stopped": True}]}
    assert [(r.value, r.target, r.status) for r in report.part_rows({"adversarial": adv})] == [
        ("0.012 s", "≤ 1 s", "ok"), ("> 10 s (stopped)", "≤ 1 s", "MISSED")]


def test_table_is_padded_markdown_in_parts_order():
    overhead = {"tasks_arg": "cpsd", "requests": 2933, "num_concurrent": 8, "wall_seconds": 17.04,
                "before_first_request_seconds": 10.2, "request_phase_seconds": 1.0, "after_last_response_seconds": 5.8,
                "server_busy_seconds": 0.9, "overhead_ratio": 17.04, "peak_rss_bytes": 636 * 2 ** 20}
    lines = report.table({"latency": LATENCY, "overhead": overhead}).splitlines()
    assert lines[0].startswith("| measure ") and lines[0].endswith(" | status |")
    assert len({len(line) for line in lines}) == 1  # every column padded to one width
    measures = [line.split("|")[1].strip() for line in lines[2:]]
    assert measures[0] == "full run (cpsd), 2933 requests, instant endpoint, c=8"  # overhead before latency
    assert measures[-1] == "latency 50 ms, c=16, 480 requests"
    assert "| 636 MiB " in lines[7] and lines[7].rstrip(" |").endswith("ok")
    assert PARTS.index("overhead") < PARTS.index("latency")
