"""Rule baseline: deterministic, transparent answers for every cpsd task (no model at all).

The baseline reads the prompt our YAMLs build, tells the task by its 【任务】 line (taken from the
task YAMLs, so prompts and baseline cannot drift apart), cuts the prompt into its four parts
(角色/任务/输入/约束) and hands them to the task's rule. Rules live in ``rules_*.py`` modules, each
exporting ``RULES: dict[task_id, Callable[[dict[str, str]], str]]``; they are found automatically.
See README "The rule baseline" for what each rule does: it is a lower bound, not a model.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from functools import lru_cache
from typing import Callable

from cpsd_tasks import YAML_DIR, task_yaml

Rule = Callable[[dict[str, str]], str]
SECTIONS = ("角色", "任务", "输入", "约束")
_SECTION = re.compile(r"【(角色|任务|输入|约束)】")


class UnknownPrompt(ValueError):
    """The prompt is not one our task YAMLs build."""


@lru_cache(maxsize=1)
def task_lines() -> dict[str, str]:
    """Map each task YAML's 【任务】 line (template-free text) to its task id.

    Returns:
        ``{task line: task id}`` for every ``cpsd_*.yaml`` whose ``doc_to_text`` is a string.
    """
    lines: dict[str, str] = {}
    for path in sorted(YAML_DIR.glob("cpsd_*.yaml")):
        cfg = task_yaml.read(path, include=False) or {}
        template = cfg.get("doc_to_text")
        task_id = (cfg.get("dataset_kwargs") or {}).get("task_id")
        if not isinstance(template, str) or not task_id:
            continue
        sections = split_sections(template)
        if sections.get("任务"):
            lines[sections["任务"]] = task_id
    return lines


def split_sections(prompt: str) -> dict[str, str]:
    """Cut a four-part prompt into ``{"角色": …, "任务": …, "输入": …, "约束": …}`` (stripped).

    Sections that are absent are missing from the result; text before the first header is dropped.
    """
    parts = _SECTION.split(prompt)
    out: dict[str, str] = {}
    for name, body in zip(parts[1::2], parts[2::2]):
        out.setdefault(name, body.strip())
    return out


@lru_cache(maxsize=1)
def rules() -> dict[str, Rule]:
    """Collect ``RULES`` from every ``cpsd_tasks.baseline.rules_*`` module."""
    found: dict[str, Rule] = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("rules_"):
            module = importlib.import_module(f"{__name__}.{info.name}")
            found.update(getattr(module, "RULES", {}))
    return found


def identify(prompt: str) -> tuple[str, dict[str, str]]:
    """Return ``(task id, sections)`` of a prompt built by one of our YAMLs.

    Raises:
        UnknownPrompt: no 【任务】 line of a known task is in the prompt.
    """
    sections = split_sections(prompt)
    task_id = task_lines().get(sections.get("任务", ""))
    if task_id is None:
        raise UnknownPrompt("the rule baseline only answers cpsd prompts (no known 【任务】 line found)")
    return task_id, sections


def fallback_rule(task_id: str) -> Rule:
    """The constant answer of a task that has no rule in a ``rules_*`` module yet (a task added to
    ``tasks.py`` and ``yaml/`` only): by its kind, the first label (classification), ``[]``
    (ner, re), ``未知`` (reading), ``A`` (exam), or the input's first sentence (generation).
    A floor to check that the task runs end to end, not a baseline to report.

    Raises:
        KeyError: ``task_id`` is not in the task registry.
    """
    from cpsd_tasks.tasks import get_task

    spec = get_task(task_id)
    if spec.kind == "classification":
        return lambda sections: spec.labels[0]
    if spec.kind == "generation":
        return lambda sections: re.split(r"(?<=[。！？!?])", sections.get("输入", ""), maxsplit=1)[0]
    constant = {"ner": "[]", "re": "[]", "reading": "未知", "exam": "A"}[spec.kind]
    return lambda sections: constant


def answer(prompt: str) -> str:
    """The rule baseline's answer to one cpsd prompt (a task without a rule gets
    :func:`fallback_rule`'s constant answer).

    Raises:
        UnknownPrompt: the prompt is not a cpsd prompt.
    """
    task_id, sections = identify(prompt)
    rule = rules().get(task_id) or fallback_rule(task_id)
    return rule(sections)
