"""The one reader of task YAMLs (cpsd_tasks.task_yaml): what it reads equals the harness's own
``load_yaml`` on every shipped file, and ``include`` merges as the harness merges."""

from __future__ import annotations

from pathlib import Path

import pytest

from cpsd_tasks import YAML_DIR, task_yaml


def _as_harness_reads(value, base_dir: Path):
    """Our reading with each ``!function x`` written as the harness's ``load_yaml(resolve_func=False)``
    writes it (``<folder of the file>/x``)."""
    if isinstance(value, dict):
        return {k: _as_harness_reads(v, base_dir) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_harness_reads(v, base_dir) for v in value]
    path = task_yaml.function_path(value)
    return str(base_dir / path) if path is not None else value


def test_every_shipped_yaml_reads_as_the_harness_reads_it():
    from lm_eval.tasks._yaml_loader import load_yaml

    paths = sorted([*YAML_DIR.glob("*.yaml"), *YAML_DIR.glob("*_yaml")])
    assert len(paths) == 29  # 19 tasks (12 + 7 cpsd_ll), 5 groups, 5 templates
    for path in paths:
        ours = task_yaml.read(path)
        assert _as_harness_reads(ours, path.parent) == load_yaml(path, resolve_func=False), path.name


def test_function_values_are_kept_as_tagged_strings():
    cfg = task_yaml.read(YAML_DIR / "_clf_template_yaml")
    assert cfg["process_results"] == "!function cpsd_tasks.classification.process_results"
    assert task_yaml.function_path(cfg["process_results"]) == "cpsd_tasks.classification.process_results"
    assert task_yaml.function_path("cpsd_tasks.classification.process_results") is None  # plain text
    assert task_yaml.function_path(None) is None
    # doc_to_text is text, read byte for byte
    rumor = task_yaml.read(YAML_DIR / "cpsd_rumor.yaml", include=False)
    assert rumor["include"] == "_clf_template_yaml" and "process_results" not in rumor
    assert rumor["doc_to_text"].startswith("【角色】")


def test_include_merges_as_the_harness_does(tmp_path):
    from lm_eval.tasks._yaml_loader import load_yaml

    (tmp_path / "a_yaml").write_text("x: a\ny: a\ntask_list: [t1]\nz: !function m.fa\n", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b_yaml").write_text("y: b\nw: b\n", encoding="utf-8")
    (tmp_path / "task.yaml").write_text(f"include: [a_yaml, {tmp_path / 'sub' / 'b_yaml'}]\nw: own\n",
                                        encoding="utf-8")
    merged = task_yaml.read(tmp_path / "task.yaml")
    # later includes over earlier ones, the file's own keys over both, task_list not inherited
    assert merged == {"x": "a", "y": "b", "z": "!function m.fa", "w": "own"}
    assert _as_harness_reads(merged, tmp_path) == load_yaml(tmp_path / "task.yaml", resolve_func=False)
    alone = task_yaml.read(tmp_path / "task.yaml", include=False)
    assert alone == {"include": ["a_yaml", str(tmp_path / "sub" / "b_yaml")], "w": "own"}


def test_an_include_cycle_is_an_error_and_a_missing_file_raises(tmp_path):
    (tmp_path / "a.yaml").write_text("include: b.yaml\nx: 1\n", encoding="utf-8")
    (tmp_path / "b.yaml").write_text("include: a.yaml\ny: 2\n", encoding="utf-8")
    with pytest.raises(ValueError, match="include cycle"):
        task_yaml.read(tmp_path / "a.yaml")
    with pytest.raises(FileNotFoundError):
        task_yaml.read(tmp_path / "missing.yaml")
