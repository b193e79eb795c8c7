"""Our Jinja prompts compiled once (cpsd_tasks.cli.prompts): the text is byte-identical to the
harness's per-doc compilation on every task's docs, and each template is compiled once."""

from __future__ import annotations

import pytest

import cpsd_tasks
from cpsd_tasks.cli import prompts
from cpsd_tasks.data.loading import DEMO_DIR
from cpsd_tasks.specs import LL_VARIANTS
from cpsd_tasks.tasks import TASKS

from conftest import SHARED_DATA, needs_shared_data


@pytest.fixture(autouse=True)
def _restore_harness():
    prompts.uninstall()
    yield
    prompts.uninstall()


def all_task_names() -> list[str]:
    tm = cpsd_tasks.task_manager()
    prompts.uninstall()
    return [t for t in tm.all_subtasks if t.startswith("cpsd_")]


def compare(data_dir, monkeypatch) -> int:
    import lm_eval.utils as harness_utils

    names = all_task_names()
    assert len(names) == len(TASKS) + len(LL_VARIANTS)  # 12 generate_until + 7 cpsd_ll today
    prompts.uninstall()
    # the harness's own function: task_manager() installs the cache, so remove it after building
    tm_before = cpsd_tasks.task_manager(metadata={"data_dir": str(data_dir), "bertscore_model": "none"})
    prompts.uninstall()
    tasks = tm_before.load(names)["tasks"]
    before = {n: [t.doc_to_text(d) for d in t.test_docs()] for n, t in tasks.items()}
    compiled = []
    real_from_string = harness_utils.env.from_string
    monkeypatch.setattr(harness_utils.env, "from_string",
                        lambda source, *a, **k: compiled.append(source) or real_from_string(source, *a, **k))
    prompts.install()
    after = {n: [t.doc_to_text(d) for d in t.test_docs()] for n, t in tasks.items()}
    assert after == before  # str == str: byte-identical text, doc by doc
    n_docs = sum(len(v) for v in after.values())
    assert n_docs >= len(names)
    # each of our templates compiled once at most, however many docs were rendered
    assert len(compiled) == len(set(compiled)) <= len(names)
    assert set(compiled) <= prompts.our_templates()
    return n_docs


def test_templates_found_for_every_task():
    templates = prompts.our_templates()
    assert len(templates) == len(TASKS) + len(LL_VARIANTS)            # 12 + 7 today
    assert all("【任务】" in t for t in templates)


def test_prompts_identical_on_demo_data(monkeypatch):
    assert compare(DEMO_DIR, monkeypatch) > len(TASKS) + len(LL_VARIANTS)


@pytest.mark.e2e
@needs_shared_data
def test_prompts_identical_on_stand_in_data(monkeypatch, tmp_path):
    # the stand-in folder lacks some tasks: symlink those from the demo set
    for task_dir in DEMO_DIR.iterdir():
        if task_dir.is_dir():
            src = SHARED_DATA / task_dir.name if (SHARED_DATA / task_dir.name / "test.jsonl").is_file() else task_dir
            (tmp_path / task_dir.name).mkdir()
            (tmp_path / task_dir.name / "test.jsonl").symlink_to(src / "test.jsonl")
    assert compare(tmp_path, monkeypatch) > 500


def test_other_templates_use_the_harness_function(monkeypatch):
    import lm_eval.utils as harness_utils

    prompts.install()
    prompts.install()  # idempotent: one wrapper
    assert not getattr(harness_utils.apply_template.__wrapped__, "_cpsd_compiled_once", False)
    compiled = []
    real = harness_utils.env.from_string
    monkeypatch.setattr(harness_utils.env, "from_string", lambda s, *a, **k: compiled.append(s) or real(s, *a, **k))
    for _ in range(3):
        assert harness_utils.apply_template("Q: {{q}}\n", {"q": "x"}) == "Q: x\n"
    assert compiled == ["Q: {{q}}\n"] * 3  # not ours: compiled per call, as the harness does
    prompts.uninstall()
    assert not getattr(harness_utils.apply_template, "_cpsd_compiled_once", False)


def test_strict_undefined_kept():
    import jinja2
    import lm_eval.utils as harness_utils

    prompts.install()
    template = next(t for t in prompts.our_templates() if "{{text}}" in t)
    with pytest.raises(jinja2.UndefinedError):
        harness_utils.apply_template(template, {"no_text": 1})
