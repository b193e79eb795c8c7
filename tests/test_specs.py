"""One declaration per metric (cpsd_tasks.specs): the committed YAMLs are what scripts/gen_yaml.py
writes from it, the harness reads exactly those lists, every task's process_results emits exactly
its declared metrics, the prompts name tasks.py's labels, and aggregation() finds each function by
name (hand-worked values below)."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import pytest

from cpsd_tasks import YAML_DIR, specs
from cpsd_tasks.data.loading import load_task_docs
from cpsd_tasks.specs import CountItem, MacroItem, TypeItem
from cpsd_tasks.tasks import TASKS

ROOT = Path(__file__).resolve().parent.parent


def _gen_yaml():
    spec = importlib.util.spec_from_file_location("cpsd_gen_yaml", ROOT / "scripts" / "gen_yaml.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen_yaml = _gen_yaml()
ALL_TASKS = [t.harness_name for t in TASKS.values()] + list(specs.LL_VARIANTS)


# --------------------------------------------------------------------------- YAML = specs

def test_committed_yamls_equal_generated():
    assert gen_yaml.stale() == [], "run: python scripts/gen_yaml.py"
    assert gen_yaml.main(["--check"]) == 0


def harness_config(name: str) -> dict:
    """The task's config as the harness merges it (include, then the task's own keys)."""
    from lm_eval.tasks._yaml_loader import load_yaml

    return load_yaml(YAML_DIR / f"{name}.yaml", resolve_func=False)


@pytest.mark.parametrize("name", ALL_TASKS)
def test_harness_reads_the_declared_metric_list(name):
    got = [(m["metric"], Path(str(m["aggregation"])).name, m["higher_is_better"])
           for m in harness_config(name)["metric_list"]]
    assert got == [(m.name, m.aggregation, m.higher_is_better) for m in specs.metrics(name)]


def test_ie_tasks_list_only_their_own_types():
    # the task-level metric_list replaces the template's (lm-eval merges include shallowly)
    per_type = {name: [m["metric"] for m in harness_config(name)["metric_list"]
                       if m["metric"] not in ("f1_exact", "f1_fuzzy", "f1_micro") and m["metric"].startswith("f1_")]
                for name in ("cpsd_drug_ner", "cpsd_fraud_ner", "cpsd_drug_re")}
    assert per_type == {
        "cpsd_drug_ner": ["f1_人名", "f1_时间", "f1_地点", "f1_毒品类型", "f1_毒品数量"],
        "cpsd_fraud_ner": ["f1_报案人", "f1_时间", "f1_地点", "f1_金额", "f1_社交账号", "f1_电话号码"],
        "cpsd_drug_re": ["f1_贩卖毒品", "f1_贩卖给", "f1_持有", "f1_非法容留"],
    }
    from lm_eval.tasks._yaml_loader import load_yaml

    assert "metric_list" not in load_yaml(YAML_DIR / "_ie_template_yaml", resolve_func=False)


def test_render_touches_only_the_block():
    text = ("task: t\ndoc_to_text: |-\n  【约束】只输出标签。\n# note\nmetric_list:\n  - {metric: old}\n"
            "  # old comment\nmetadata:\n  version: 1.0\n")
    acc = [specs.Metric("acc", "mean", True), specs.Metric("f1_x", "cpsd_tasks.ie.agg_f1_type", None)]
    new = gen_yaml.render(text, acc)
    assert new == ("task: t\ndoc_to_text: |-\n  【约束】只输出标签。\n# note\n" + gen_yaml.MARKER + "\nmetric_list:\n"
                   "  - {metric: acc, aggregation: mean, higher_is_better: true}\n"
                   "  - {metric: f1_x, aggregation: !function cpsd_tasks.ie.agg_f1_type, higher_is_better: null}\n"
                   "metadata:\n  version: 1.0\n")
    assert gen_yaml.render(new, acc) == new                      # idempotent
    removed = "task: t\ndoc_to_text: |-\n  【约束】只输出标签。\n# note\nmetadata:\n  version: 1.0\n"
    assert gen_yaml.render(new, None) == removed
    appended = gen_yaml.render("task: t\ndoc_to_text: |-\n  x\n", acc[:1])
    assert appended == ("task: t\ndoc_to_text: |-\n  x\n" + gen_yaml.MARKER + "\nmetric_list:\n"
                        "  - {metric: acc, aggregation: mean, higher_is_better: true}\n")


# --------------------------------------------------------------------------- prompts = tasks.py

def test_prompt_labels_match_tasks_py():
    n, problems = gen_yaml.prompt_label_problems()
    assert problems == []
    # a prompt with a label list: each clf/IE/QA task and each ll variant but cpsd_ll_police_exam_single
    # (its answers are option letters): 4 + 3 + 2 + 4 + 2 = 15 today
    assert n == sum(spec.kind != "generation" for spec in TASKS.values()) + len(specs.LL_VARIANTS) - 1


def test_prompt_label_reader_catches_drift():
    read = gen_yaml.prompt_labels
    assert read("只能从“诈骗”“正常”两个标签中选择") == [("诈骗", "正常")]
    assert read("只能从“诈骗”“正常”“其他”两个标签中") == [("<count 两≠3>",)]
    assert read("只能回答“正确”或“错误”。") == [("正确", "错误")]
    assert read('实体类型只有两种：人名（姓名）、毒品类型（如海洛因、冰毒）。形如{"type": "人名"}') == [
        ("人名", "毒品类型"), ("人名",)]


# --------------------------------------------------------------------------- process_results = specs

@pytest.mark.parametrize("task_id", list(TASKS))
def test_process_results_emits_exactly_the_declared_metrics(task_id):
    import importlib

    family = specs.family_of(task_id)
    module, _, name = family.process_results.rpartition(".")
    process_results = getattr(importlib.import_module(module), name)
    declared = {m.name: m for m in specs.metrics(task_id)}
    for doc in load_task_docs(task_id)["test"][:8]:
        out = process_results(doc, ["不知道"])
        assert list(out) and set(out) == set(declared), (task_id, set(out) ^ set(declared))
        for metric, value in out.items():
            item = declared[metric].item
            if item is not None and value is not None:
                assert len(value) == len(item._fields), (metric, value)
                if family.name != "generation":  # generation builds plain lists of that shape
                    assert isinstance(value, item), (metric, value)


def test_items_log_as_the_same_json_lists():
    assert json.dumps(MacroItem("积极", None, "sentiment"), ensure_ascii=False) == '["积极", null, "sentiment"]'
    assert json.dumps(CountItem(1, 2, 2, 2, 0.5)) == "[1, 2, 2, 2, 0.5]"
    assert json.dumps(TypeItem("判断", 1.0), ensure_ascii=False) == '["判断", 1.0]'
    assert CountItem._make([1, 2, 2, 2, 0.5]).n_gold == 2


# --------------------------------------------------------------------------- aggregation by name

def test_aggregation_of_builtin_mean_is_the_harness_function():
    from lm_eval.api.metrics import mean

    assert specs.aggregation("cpsd_sentiment", "acc") is mean
    assert specs.aggregation("sentiment", "acc") is mean
    assert specs.aggregation("cpsd_ll_rumor", "acc_norm") is mean
    assert specs.aggregation("cpsd_drug_re", "score")([1.0, 0.0, 0.5, 0.5]) == 0.5


def test_aggregation_hand_worked_values():
    # macro F1 over 积极/消极/中性: 积极 tp 1, pred 2, gold 1 -> F1 2/3; 消极, 中性 never predicted -> 0
    f1_macro = specs.aggregation("cpsd_sentiment", "f1_macro")
    logged = [["积极", "积极", "sentiment"], ["消极", "积极", "sentiment"], ["中性", None, "sentiment"]]
    assert f1_macro(logged) == pytest.approx(2 / 9)
    assert f1_macro([MacroItem(*it) for it in logged]) == f1_macro(logged)
    # pooled counts tp_exact 1, tp_fuzzy 2, pred 3, gold 3: F1 exact 1/3, fuzzy 2/3, mix (alpha .5) 1/2
    f1_person = specs.aggregation("drug_ner", "f1_人名")
    assert f1_person([[1, 2, 2, 2, 0.5], [0, 0, 1, 1, 0.5]]) == pytest.approx(0.5)
    assert f1_person([CountItem(1, 2, 2, 2, 0.5), CountItem(0, 0, 1, 1, 0.5)]) == pytest.approx(0.5)
    assert math.isnan(f1_person([[0, 0, 0, 0, 0.5]]))            # type never seen: not measured
    # per-type QA accuracy: only the 判断 items count
    acc_judge = specs.aggregation("cpsd_case_reading", "acc_judge")
    assert acc_judge([["判断", 1.0], None, TypeItem("判断", 0.0), ["精确", 1.0]]) == 0.5
    assert math.isnan(specs.aggregation("police_exam", "acc_multi")([["判断", 1.0]]))


def test_aggregation_names_its_function():
    assert specs.aggregation("cpsd_fraud_ner", "f1_micro").__qualname__ == "agg_f1_pooled"
    assert specs.aggregation("cpsd_police_exam", "multi_partial").__name__ == "agg_multi_partial"
    assert specs.aggregation("cpsd_rumor", "reading").__qualname__ == "agg_reading"
    bert = specs.aggregation("cpsd_case_summary", "bertscore_f1")
    assert bert.__name__ == "agg_bertscore_f1" and bert.__module__.startswith("cpsd_tasks.generation")
    for name in ALL_TASKS:   # every declared aggregation resolves
        for m in specs.metrics(name):
            assert callable(specs.aggregation(name, m.name)), (name, m.name)


@pytest.mark.parametrize("task,metric", [("cpsd_drug_ner", "f1_报案人"), ("cpsd_sentimnet", "acc"),
                                         ("cpsd_ll_nope", "acc"), ("cpsd_case_reading", "acc_tf"),
                                         ("cpsd_drug_ner", "f1,none")])
def test_aggregation_unknown_is_a_key_error(task, metric):
    with pytest.raises(KeyError):
        specs.aggregation(task, metric)


# --------------------------------------------------------------------------- registries agree

def test_ll_variants_are_the_ll_yamls():
    from cpsd_tasks import task_yaml

    found = {}
    for path in YAML_DIR.glob("cpsd_ll_*.yaml"):
        cfg = task_yaml.read(path, include=False)
        found[cfg["task"]] = cfg["dataset_kwargs"]["task_id"]
    assert found == specs.LL_VARIANTS


def test_qa_type_metrics_cover_the_task_types():
    for task_id, by_metric in specs.QA_TYPE_METRICS.items():
        assert set(by_metric.values()) == set(TASKS[task_id].labels)
