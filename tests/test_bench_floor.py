"""scripts/bench.py's floor part: the floor task it builds, interleaved cpsd/floor pairs, medians,
ratios and table rows (the CLI runs are stubbed here; the real ones take a few minutes)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
import yaml


def test_floor_yaml_is_one_generate_until_exact_match_task(bench, tmp_path):
    text = bench.FLOOR_YAML.format(data=json.dumps(str(tmp_path / "floor.jsonl")))
    conf = yaml.safe_load(text)
    assert conf["task"] == "cpsd_floor" and conf["output_type"] == "generate_until"
    assert conf["doc_to_text"] == "{{prompt}}" and conf["doc_to_target"] == "{{target}}"
    assert [m["metric"] for m in conf["metric_list"]] == ["exact_match"]
    assert conf["dataset_kwargs"]["data_files"]["test"] == str(tmp_path / "floor.jsonl")


def test_floor_data_holds_every_prompt_once(bench, tmp_path, monkeypatch):
    """build_floor writes each task's rendered prompt for each doc (demo data here)."""
    import cpsd_tasks
    from cpsd_tasks.data.loading import DEMO_DIR
    from cpsd_tasks.tasks import TASKS

    monkeypatch.setattr(bench, "run_child", lambda *a, **k: {"rc": 0})  # no dataset warm-up here
    data, _ = bench.stand_in_dir(None, tmp_path)
    folder, n = bench.build_floor({"work": tmp_path, "data": data, "hf_home": tmp_path / "hf"})
    rows = [json.loads(line) for line in (folder / "floor.jsonl").read_text(encoding="utf-8").splitlines()]
    tm = cpsd_tasks.task_manager(metadata={"bertscore_model": "none", "data_dir": str(DEMO_DIR)})
    names = [s.harness_name for s in TASKS.values()]
    tasks = tm.load(names)["tasks"]
    expected = [tasks[name].doc_to_text(doc) for name in names for doc in tasks[name].test_docs()]
    assert n == len(rows) == len(expected)
    assert [r["prompt"] for r in rows] == expected
    assert (folder / "cpsd_floor.yaml").is_file()


def test_floor_pairs_interleaved_and_summarised(bench, monkeypatch):
    calls = []
    fake = {"floor": {"first_request": 20.0, "request_phase": 2.0, "after_last_response": 8.0, "wall": 30.0,
                      "cpu": 25.0, "maxrss": 520 * 2 ** 20},
            "cpsd": {"first_request": 5.0, "request_phase": 2.0, "after_last_response": 8.0, "wall": 15.0,
                     "cpu": 12.5, "maxrss": 540 * 2 ** 20}}

    def floor_run(ctx, server, variant, floor_dir, concurrency):
        calls.append(variant)
        run = {"variant": variant, "requests": 2933, **fake[variant]}
        probe = {"process_results": {"cpu": 1.0, "wall": 1.5, "calls": 2933},
                 "aggregation": {"cpu": 0.25, "wall": 0.25, "calls": 12}}
        return {**run, "scoring": bench.scoring_share(probe, run["cpu"], run["wall"])}

    monkeypatch.setattr(bench, "floor_run", floor_run)
    monkeypatch.setattr(bench, "build_floor", lambda ctx: (Path("/nonexistent"), 2933))
    out = bench.part_floor({"args": argparse.Namespace(floor_pairs=3, overhead_concurrency=8)})
    assert calls == ["floor", "cpsd", "cpsd", "floor", "floor", "cpsd"]
    assert out["wall_ratio"] == pytest.approx(0.5) and out["cpu_ratio"] == pytest.approx(0.5)
    text = bench.table({"floor": out, "scoring": {"samples": 3150, "total_seconds": 1.0, "samples_per_s": 3150,
                                                  "tasks": [], "pathological": [], "build_seconds": 0,
                                                  "warmup_seconds": 0, "prompt_seconds": 0,
                                                  "prompt_seconds_per_doc_compilation": 0, "prompts": 3150,
                                                  "peak_rss_bytes": 0}})
    assert "15.0 s / 30.0 s = 0.50×" in text
    assert "540 MiB / 520 MiB" in text
    assert "scoring share" in text
    assert "10.0% (1.25 s: process_results 1.00 s × 2933 calls, aggregations 0.25 s)" in text  # 1.25 / 12.5
    assert out["floor_scoring"]["cpu_share"] == pytest.approx(0.05)  # 1.25 / 25


def test_floor_is_a_part(bench, capsys):
    assert "floor" in bench.PARTS
    with pytest.raises(SystemExit):
        bench.main(["--help"])
    assert "--floor-pairs" in capsys.readouterr().out
