"""``--tasks`` resolution of cpsd-eval (cpsd_tasks.cli.selection): wildcards, duplicates, typos."""

from __future__ import annotations

import pytest

from cpsd_tasks.cli.selection import UnknownTask, is_ours, local_index, resolve
from cpsd_tasks.specs import LL_VARIANTS
from cpsd_tasks.tasks import TASKS

TWELVE = sorted(s.harness_name for s in TASKS.values())


@pytest.fixture(scope="module")
def index():
    return local_index()


def leaves(index, names):
    out = [t for n in names for t in index.leaves(n)]
    assert len(out) == len(set(out)), f"a task requested twice: {names}"
    return sorted(out)


@pytest.mark.parametrize("spec", ["cpsd_*", "cpsd*", "cpsd_?*", "cpsd[_]*"])
def test_wildcards_select_the_twelve_as_the_cpsd_group(index, spec):
    sel = resolve([spec], index)
    assert sel.tasks == ["cpsd"] and sel.only_ours
    assert leaves(index, sel.tasks) == TWELVE
    assert sel.notes[0] == f"{spec} → cpsd" and "cpsd_ll" in sel.notes[1]  # says the ll variants were left out


def test_wildcard_partial_is_complete_groups_then_tasks(index):
    sel = resolve(["cpsd_c*"], index)  # group cpsd_clf and the three cpsd_case_* tasks
    # (in the harness's order: qa's tag members, then tg's, each by name)
    assert sel.tasks == ["cpsd_clf", "cpsd_case_reading", "cpsd_case_report", "cpsd_case_summary"]
    sel = resolve(["cpsd_fraud*"], index)
    assert sel.tasks == ["cpsd_fraud_detection", "cpsd_fraud_ner"]
    sel = resolve(["cpsd_l*"], index)  # cpsd_ll* only by a pattern starting with cpsd_ll
    assert sel.tasks == ["cpsd_legal_analysis"]


def test_ll_variants_only_when_asked(index):
    assert resolve(["cpsd_ll*"], index).tasks == ["cpsd_ll"]
    assert resolve(["cpsd_ll_*"], index).tasks == ["cpsd_ll"]
    assert resolve(["cpsd_ll_police*"], index).tasks == ["cpsd_ll_police_exam_single", "cpsd_ll_police_exam_tf"]
    sel = resolve(["cpsd_*", "cpsd_ll"], index)
    assert sel.tasks == ["cpsd", "cpsd_ll"]
    assert len(leaves(index, sel.tasks)) == len(TASKS) + len(LL_VARIANTS)   # 12 + 7


def test_wildcard_with_plain_names_never_duplicates(index):
    for specs in (["cpsd_clf", "cpsd_*"], ["cpsd_*", "cpsd_sentiment"], ["cpsd", "cpsd*"], ["cpsd_*", "cpsd_*"]):
        sel = resolve(specs, index)
        assert sel.tasks == ["cpsd"], specs
    sel = resolve(["cpsd_sentiment", "cpsd_case*"], index)
    assert leaves(index, sel.tasks) == sorted(["cpsd_sentiment", "cpsd_case_reading", "cpsd_case_report",
                                               "cpsd_case_summary"])


def test_plain_names_kept_duplicates_dropped(index):
    assert resolve(["cpsd_rumor"], index).tasks == ["cpsd_rumor"]
    four = ["cpsd_sentiment", "cpsd_rumor", "cpsd_fraud_detection", "cpsd_incident_classification"]
    assert resolve(four, index).tasks == four  # not rewritten as cpsd_clf: no wildcard, no duplicate
    sel = resolve(["cpsd", "cpsd_clf", "cpsd_rumor"], index)
    assert sel.tasks == ["cpsd"] and len(sel.notes) == 2, sel.notes
    assert resolve(["cpsd_case_reading", "cpsd_qa"], index).tasks == ["cpsd_qa"]
    assert resolve(["cpsd_rumor", "cpsd_rumor"], index).tasks == ["cpsd_rumor"]
    assert resolve(["cpsd_ll", "cpsd_ll_rumor"], index).tasks == ["cpsd_ll"]


def test_builtin_and_paths_left_to_the_harness(index):
    sel = resolve(["hellaswag", "cpsd_*", "arc_*"], index)
    assert sel.tasks == ["hellaswag", "cpsd", "arc_*"]
    assert sel.ours == ["cpsd"] and sel.others == ["hellaswag", "arc_*"] and not sel.only_ours
    assert not is_ours("/tmp/cpsd_x.yaml") and not is_ours("cpsd_x.yaml") and not is_ours("*cpsd*")
    assert is_ours("cpsd") and is_ours("cpsd_*")


@pytest.mark.parametrize("spec, suggestion", [
    ("cpsd_sentimnet", "cpsd_sentiment"),
    ("cpsd_rumour", "cpsd_rumor"),
    ("cpsd_case_sumary", "cpsd_case_summary"),
    ("cpsd_cls", "cpsd_clf"),
])
def test_unknown_cpsd_name_did_you_mean(index, spec, suggestion):
    with pytest.raises(UnknownTask) as err:
        resolve(["cpsd_rumor", spec], index)
    msg = str(err.value)
    assert "\n" not in msg and repr(spec) in msg and f"did you mean '{suggestion}'" in msg
    assert "cpsd_clf" in msg  # the groups are listed


def test_wildcard_matching_nothing(index):
    with pytest.raises(UnknownTask, match="matches no cpsd task"):
        resolve(["cpsd_xyz*"], index)


def test_yaml_index_equals_the_harness_index():
    """The index read from our YAMLs (no harness import) is the harness's own index of the folder."""
    import cpsd_tasks
    from cpsd_tasks.cli.selection import Index

    harness = Index.from_task_manager(cpsd_tasks.task_manager())
    ours = local_index()
    assert ours.tasks == harness.tasks and ours.tags == harness.tags
    assert ours.groups == harness.groups
    assert len(ours.tasks) == len(TASKS) + len(LL_VARIANTS) and set(ours.groups) == {"cpsd", "cpsd_clf", "cpsd_ie",
                                                                                     "cpsd_qa", "cpsd_tg"}
