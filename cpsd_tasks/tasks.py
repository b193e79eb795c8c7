"""The twelve CPSDBench tasks: one registry that data validation, metrics and the baseline share.

Documented in docs/metrics.md#tasks-groups-and-primary-metrics (tasks, labels, primary metrics) and
docs/data.md#record-format (fields). Every other module looks a
task up here instead of repeating its labels or fields: the metrics of each task are declared from
these labels in :mod:`cpsd_tasks.specs` (and written into the YAMLs by ``scripts/gen_yaml.py``);
the prompts' hand-written label lists are checked against them (``gen_yaml.py --check``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping


@dataclass(frozen=True)
class TaskSpec:
    """What the project knows about one CPSDBench task.

    Attributes:
        id: task id as used in data folders (``sentiment``); the harness task is ``cpsd_<id>``.
        kind: one of ``classification``, ``ner``, ``re``, ``reading``, ``exam``, ``generation``.
        dimension: the paper's dimension: ``clf``, ``ie``, ``qa`` or ``tg`` (docs/metrics.md#groups).
        labels: the closed label set (classification labels, entity types, relation names, or
            question types for the QA tasks); empty for generation.
        primary_metric: the metric the paper reports first (docs/metrics.md#tasks-groups-and-primary-metrics).
        paper_size: number of samples in the paper's private set.
        aliases: extra surface forms mapped to a label by the fuzzy label reader
            (e.g. ``正面`` -> ``积极``). Documented in README ("Answer parsing").
    """

    id: str
    kind: str
    dimension: str
    labels: tuple[str, ...]
    primary_metric: str
    paper_size: int
    aliases: Mapping[str, str] = field(default_factory=dict)

    @property
    def harness_name(self) -> str:
        """The lm-eval task name, ``cpsd_<id>``."""
        return f"cpsd_{self.id}"

    @property
    def surface_forms(self) -> dict[str, str]:
        """Every string the label reader looks for, mapped to its canonical label."""
        forms = {label: label for label in self.labels}
        forms.update(self.aliases)
        return forms


TASKS: dict[str, TaskSpec] = {
    spec.id: spec
    for spec in (
        TaskSpec("sentiment", "classification", "clf", ("积极", "消极", "中性"), "acc", 600,
                 aliases={"正面": "积极", "负面": "消极", "中立": "中性"}),
        TaskSpec("rumor", "classification", "clf", ("谣言", "非谣言"), "acc", 400),
        TaskSpec("fraud_detection", "classification", "clf", ("诈骗", "正常"), "acc", 400),
        TaskSpec("incident_classification", "classification", "clf",
                 ("盗窃", "电信诈骗", "交通事故", "故意伤害"), "acc", 400,
                 aliases={"交通肇事": "交通事故", "电诈": "电信诈骗", "网络诈骗": "电信诈骗"}),
        TaskSpec("drug_ner", "ner", "ie", ("人名", "时间", "地点", "毒品类型", "毒品数量"), "f1", 200),
        TaskSpec("drug_re", "re", "ie", ("贩卖毒品", "贩卖给", "持有", "非法容留"), "f1", 200),
        TaskSpec("fraud_ner", "ner", "ie", ("报案人", "时间", "地点", "金额", "社交账号", "电话号码"),
                 "f1", 200),
        TaskSpec("case_reading", "reading", "qa", ("判断", "精确", "模糊"), "total", 200),
        TaskSpec("police_exam", "exam", "qa", ("判断", "单选", "多选"), "total", 200),
        TaskSpec("case_summary", "generation", "tg", (), "bertscore_f1", 200),
        TaskSpec("case_report", "generation", "tg", (), "bertscore_f1", 100),
        TaskSpec("legal_analysis", "generation", "tg", (), "bertscore_f1", 50),
    )
}

#: Answers a 判断 question of case_reading may have (docs/data.md#record-format).
READING_JUDGE_LABELS: tuple[str, ...] = ("是", "否", "未知")
#: Answers a 判断 question of police_exam may have (docs/data.md#record-format).
EXAM_TF_LABELS: tuple[str, ...] = ("正确", "错误")


def get_task(task_id: str) -> TaskSpec:
    """Return the spec of ``task_id`` (``sentiment`` or ``cpsd_sentiment``).

    Raises:
        KeyError: the id names no CPSDBench task; the message lists the valid ids.
    """
    key = task_id[len("cpsd_"):] if task_id.startswith("cpsd_") else task_id
    try:
        return TASKS[key]
    except KeyError:
        raise KeyError(f"unknown CPSDBench task {task_id!r}; expected one of {', '.join(TASKS)}") from None
