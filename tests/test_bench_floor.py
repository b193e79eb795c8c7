"""benchmarks.floor: the floor task it builds, interleaved cpsd/floor pairs, medians, ratios and
table rows (no CLI run here: the figures of stubbed runs go through the part's own summary; the
real runs take a few minutes)."""

from __future__ import annotations

import json

import pytest
import yaml

from benchmarks import PARTS, cli, floor, probe, report

MIB = 2 ** 20


def test_floor_yaml_is_one_generate_until_exact_match_task(tmp_path):
    text = floor.FLOOR_YAML.format(data=json.dumps(str(tmp_path / "floor.jsonl")))
    conf = yaml.safe_load(text)
    assert conf["task"] == "cpsd_floor" and conf["output_type"] == "generate_until"
    assert conf["doc_to_text"] == "{{prompt}}" and conf["doc_to_target"] == "{{target}}"
    assert [m["metric"] for m in conf["metric_list"]] == ["exact_match"]
    assert conf["dataset_kwargs"]["data_files"]["test"] == str(tmp_path / "floor.jsonl")


def test_floor_data_holds_every_prompt_once(tmp_path):
    """write_floor_task writes each task's rendered prompt for each doc, with its gold answer (demo data)."""
    import cpsd_tasks
    from cpsd_tasks.data.loading import DEMO_DIR
    from cpsd_tasks.tasks import TASKS

    tm = cpsd_tasks.task_manager(metadata={"bertscore_model": "none", "data_dir": str(DEMO_DIR)})
    names = [s.harness_name for s in TASKS.values()]
    loaded = tm.load(names)["tasks"]
    tasks = {name: loaded[name] for name in names}
    n = floor.write_floor_task(tmp_path, tasks)
    rows = [json.loads(line) for line in (tmp_path / "floor.jsonl").read_text(encoding="utf-8").splitlines()]
    expected = [(task.doc_to_text(doc), str(task.doc_to_target(doc))) for task in tasks.values()
                for doc in task.test_docs()]
    assert n == len(rows) == len(expected) == sum(len(list(t.test_docs())) for t in tasks.values())
    assert [(r["prompt"], r["target"]) for r in rows] == expected
    conf = yaml.safe_load((tmp_path / "cpsd_floor.yaml").read_text(encoding="utf-8"))
    assert conf["dataset_kwargs"]["data_files"]["test"] == str(tmp_path / "floor.jsonl")


def test_floor_pairs_alternate_who_goes_first():
    assert floor.pair_order(3) == ["floor", "cpsd", "cpsd", "floor", "floor", "cpsd"]
    assert floor.pair_order(1) == ["floor", "cpsd"]


def test_floor_pairs_summarised():
    fake = {"floor": {"first_request": 20.0, "request_phase": 2.0, "after_last_response": 8.0, "wall": 30.0,
                      "cpu": 25.0, "maxrss": 520 * MIB},
            "cpsd": {"first_request": 5.0, "request_phase": 2.0, "after_last_response": 8.0, "wall": 15.0,
                     "cpu": 12.5, "maxrss": 540 * MIB}}
    sums = {"process_results": {"cpu": 1.0, "wall": 1.5, "calls": 2933},
            "aggregation": {"cpu": 0.25, "wall": 0.25, "calls": 12}}
    runs = [{"variant": v, "requests": 2933, **fake[v], "scoring": probe.scoring_share(sums, fake[v]["cpu"],
                                                                                       fake[v]["wall"])}
            for v in floor.pair_order(3)]
    out = floor.summarise(runs, load=[1.5, 2.0, 0.5], n_docs=2933, pairs=3, concurrency=8)
    assert out["wall_ratio"] == pytest.approx(0.5) and out["cpu_ratio"] == pytest.approx(0.5)  # 15/30, 12.5/25
    assert out["load_1min"] == {"min": 0.5, "max": 2.0}
    assert out["cpsd_median"]["peak_rss_bytes"] == 540 * MIB and out["floor_median"]["requests"] == 2933
    assert out["cpsd_after_last_response_share"] == pytest.approx(8.0 / 15.0)
    text = report.table({"floor": out, "scoring": {"samples": 3150, "total_seconds": 1.0, "samples_per_s": 3150,
                                                   "tasks": [], "pathological": [], "build_seconds": 0,
                                                   "warmup_seconds": 0, "prompt_seconds": 0,
                                                   "prompt_seconds_per_doc_compilation": 0, "prompts": 3150,
                                                   "peak_rss_bytes": 0}})
    assert "15.0 s / 30.0 s = 0.50×" in text
    assert "540 MiB / 520 MiB" in text
    assert "load 0.5–2.0" in text
    assert "10.0% (1.25 s: process_results 1.00 s × 2933 calls, aggregations 0.25 s)" in text  # 1.25 / 12.5
    assert out["floor_scoring"]["cpu_share"] == pytest.approx(0.05)  # 1.25 / 25
    assert text.index("scoring, 3150 samples") < text.index("full run vs harness floor")  # PARTS order


def test_floor_is_a_part(capsys):
    assert "floor" in PARTS
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--help"])
    assert exit_.value.code == 0
    assert "--floor-pairs" in capsys.readouterr().out
