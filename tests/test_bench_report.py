"""The bench's context, table and Markdown block (benchmarks.context, benchmarks.report,
benchmarks.cli): hand-built figures, no measurement, no process."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from benchmarks import PARTS, cli, report
from benchmarks.context import Context

ROOT = Path(__file__).resolve().parent.parent

LATENCY = {"rows": [{"num_concurrent": 8, "requests": 480, "bound_seconds": 3.0, "request_phase_seconds": 3.3,
                     "ratio": 1.1},
                    {"num_concurrent": 16, "requests": 480, "bound_seconds": 1.5, "request_phase_seconds": 1.56,
                     "ratio": 1.04}]}
RESULTS = {"command": "python -m benchmarks --parts latency",
           "machine": {"python": "3.11.2", "lm_eval": "0.4.13", "cpsd_tasks": "0.1.0", "cpus": 2, "date": "2025-01-02",
                       "loadavg_start": [1.3, 1.0, 0.9], "loadavg_end": [2.0, 1.5, 1.0]},
           "data_dir": "/data", "sources": {"fraud_ner": "demo", "rumor": "stand-in"}, "latency": LATENCY}


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


def test_markdown_block_names_its_command_machine_and_data():
    block = report.markdown(RESULTS).splitlines()
    assert block[0] == report.BEGIN and block[-1] == report.END
    assert block[2] == ("Measured by `python -m benchmarks --markdown --parts latency` on 2025-01-02: 2 cores, "
                        "load average 1.3 → 2.0, Python 3.11.2, lm-eval 0.4.13, cpsd_tasks 0.1.0; stand-in data "
                        "(demo data for fraud_ner); every endpoint a loopback server.")
    assert block[4:-2] == report.table(RESULTS).splitlines()
    timed = dict(RESULTS, latency=dict(LATENCY, part_seconds=56.4))
    assert report.provenance(timed).startswith("Measured by `python -m benchmarks --markdown --parts latency` on "
                                               "2025-01-02 in 56 s: 2 cores")
    timed["adversarial"] = {"rows": [], "part_seconds": 63.6}  # 120 s in all
    assert " on 2025-01-02 in 2 min: " in report.provenance(timed)


def test_replace_block_needs_exactly_one_bench_block():
    other = "<!-- figures: begin — printed by `cpsd-audit-reading --into x.md`; regenerate them -->\nX\n" + report.END
    text = f"intro\n{other}\n{report.BEGIN_PREFIX} --parts floor`; stale -->\nold figures\n{report.END}\nafter\n"
    assert report.replace_block(text, "NEW") == f"intro\n{other}\nNEW\nafter\n"  # the audit's block is kept
    assert report.BEGIN.startswith(report.BEGIN_PREFIX)
    with pytest.raises(ValueError):
        report.replace_block("no block here", "NEW")
    with pytest.raises(ValueError):
        report.replace_block(text + text, "NEW")
    with pytest.raises(ValueError):
        report.replace_block(f"{report.BEGIN}\nnever closed\n", "NEW")


def test_command_line_names_only_the_measuring_options_changed():
    parser = cli.build_parser()
    printing_only = parser.parse_args(["--markdown", "--json", "/tmp/x.json"])
    assert cli.command_line(printing_only, parser) == "python -m benchmarks"
    args = parser.parse_args(["--parts", "floor", "--floor-pairs", "5", "--into", "doc.md"])
    assert cli.command_line(args, parser) == "python -m benchmarks --parts floor --floor-pairs 5"


def test_from_json_renders_a_saved_run_into_a_file(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    saved = tmp_path / "run.json"
    saved.write_text(json.dumps(RESULTS), encoding="utf-8")
    doc = tmp_path / "doc.md"
    doc.write_text(f"# Doc\n\n{report.BEGIN}\nold\n{report.END}\n\nprose\n", encoding="utf-8")
    assert cli.main(["--from-json", str(saved), "--into", str(doc)]) == 0
    assert doc.read_text(encoding="utf-8") == f"# Doc\n\n{report.markdown(RESULTS)}\n\nprose\n"
    assert report.markdown(RESULTS) in capsys.readouterr().out
    assert not (tmp_path / "bench_results.json").exists()  # a saved run is not written again


#: The first measure of each part's rows, in PARTS order.
FIRST_MEASURE = ("scoring, ", "BERTScore, ", "full run (", "latency 50 ms", "task loading ", "start-up of ",
                 "full run vs harness floor", "adversarial output: ")


def test_performance_doc_figures_are_the_bench_s_block():
    """docs/performance.md shows one block printed by ``python -m benchmarks --markdown`` with every part."""
    text = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    assert text.count(report.BEGIN_PREFIX) == 1 and text.count(report.BEGIN) == 1
    block = text.split(report.BEGIN)[1].split(report.END)[0].strip().splitlines()
    assert block[0].startswith("Measured by `python -m benchmarks --markdown")
    assert [c.strip() for c in block[2].split("|")[1:-1]] == list(report.HEADER)
    assert all(line.startswith("|") and line.endswith("|") for line in block[2:])
    measures = [line.split("|")[1].strip() for line in block[4:]]
    firsts = [next(i for i, m in enumerate(measures) if m.startswith(f)) for f in FIRST_MEASURE]
    assert firsts == sorted(firsts) and len(FIRST_MEASURE) == len(PARTS)


def test_benchmarks_is_a_development_package_outside_the_wheel():
    """setup.cfg's package list leaves benchmarks/ out, and nothing in cpsd_tasks imports it."""
    import configparser
    import fnmatch

    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg", encoding="utf-8")
    include = [p.strip() for p in cfg["options.packages.find"]["include"].split(",")]
    assert include == ["cpsd_tasks", "cpsd_tasks.*"]
    assert not any(fnmatch.fnmatch(name, pattern)
                   for name in ("benchmarks", "benchmarks.floor") for pattern in include)
    importers = [str(p.relative_to(ROOT)) for p in (ROOT / "cpsd_tasks").rglob("*.py")
                 if "import benchmarks" in (text := p.read_text(encoding="utf-8")) or "from benchmarks" in text]
    assert importers == []


def test_every_cpsd_tasks_import_inside_the_benchmarks_resolves():
    """The parts import the package lazily, inside functions; a module move must not break them
    (``from cpsd_tasks import prompts`` survived the move to ``cpsd_tasks.cli`` once)."""
    import ast
    import importlib

    root = Path(__file__).resolve().parents[1] / "benchmarks"
    broken = []
    for path in sorted(root.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("cpsd_tasks"):
                module = importlib.import_module(node.module)
                for alias in node.names:
                    if not hasattr(module, alias.name):
                        try:
                            importlib.import_module(f"{node.module}.{alias.name}")
                        except ImportError:
                            broken.append(f"{path.name}:{node.lineno}: from {node.module} import {alias.name}")
    assert not broken, "\n".join(broken)
