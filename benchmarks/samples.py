"""The bench's data and model outputs: a data folder with every task, the ``--tasks`` value for all
twelve, docs resampled to the paper's sizes, eight kinds of model output, and timed scoring."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any, Optional

GROUPS = ("cpsd_clf", "cpsd_ie", "cpsd_qa", "cpsd_tg")


def stand_in_dir(data_dir: Optional[Path], workdir: Path) -> tuple[Path, dict[str, str]]:
    """A data folder with every task: the stand-in file where there is one, else the demo file.

    Files are symlinked (nothing is copied). Returns the folder and ``{task: "stand-in"|"demo"}``.
    """
    from cpsd_tasks.data.loading import DEMO_DIR
    from cpsd_tasks.tasks import TASKS

    folder = workdir / "data"
    source = {}
    for task in TASKS:
        (folder / task).mkdir(parents=True, exist_ok=True)
        real = data_dir / task / "test.jsonl" if data_dir else None
        if real is not None and real.is_file():
            target, source[task] = real, "stand-in"
        else:
            target, source[task] = DEMO_DIR / task / "test.jsonl", "demo"
        link = folder / task / "test.jsonl"
        if not link.exists():
            link.symlink_to(target)
    return folder, source


def task_selection(tm: Any) -> tuple[str, list[str]]:
    """``--tasks`` value for all twelve tasks: ``cpsd`` if the group holds them all, else the groups."""
    from cpsd_tasks.tasks import TASKS

    names = sorted(t.harness_name for t in TASKS.values())
    try:
        if sorted(tm.load(["cpsd"])["tasks"]) == names:
            return "cpsd", names
    except Exception:  # noqa: BLE001 - a group still being written: fall back
        pass
    groups = [g for g in GROUPS if g in tm.all_groups]
    covered = set()
    for g in groups:
        covered |= set(tm.load([g])["tasks"])
    if sorted(covered) == names:
        return ",".join(groups), names
    return ",".join(names), names


def varied_outputs(task: Any, doc: dict, i: int) -> str:
    """One of eight kinds of model output for ``doc`` (cycled by ``i``): the gold answer, the rule
    baseline's answer, prose around the answer, a ``<think>`` block, a Markdown fence, a refusal,
    an empty answer and a half answer."""
    from cpsd_tasks.baseline import UnknownPrompt, answer

    gold = str(task.doc_to_target(doc))
    kind = i % 8
    if kind == 0:
        return gold
    if kind == 1:
        try:
            return answer(task.doc_to_text(doc))
        except UnknownPrompt:
            return gold
    if kind == 2:
        return f"根据材料分析，答案是：{gold}。理由：材料中的事实与这一判断相符，其他选项均不符合题意。"
    if kind == 3:
        return "<think>" + "先梳理案情，再逐项核对。" * 20 + "</think>\n" + gold
    if kind == 4:
        return f"```json\n{gold}\n```"
    if kind == 5:
        return "抱歉，我无法回答这个问题。"
    if kind == 6:
        return ""
    return gold[: max(1, len(gold) // 2)]


def paper_docs(task: Any, size: int, seed: int = 0) -> list[dict]:
    """``size`` docs resampled (seeded) from the task's test docs: each doc once, then at random."""
    docs = list(task.test_docs())
    rng = random.Random(seed)
    out = list(docs[:size])
    while len(out) < size:
        out.append(rng.choice(docs))
    rng.shuffle(out)
    return out


def score_task(task: Any, docs: list[dict], outputs: list[Optional[str]],
               skip: tuple[str, ...] = ()) -> tuple[float, dict[str, Any]]:
    """Time process_results over all samples plus every aggregation; returns (seconds, values)."""
    aggregations = task.aggregation()
    started = time.perf_counter()
    per_metric: dict[str, list] = {}
    for doc, output in zip(docs, outputs):
        for metric, value in task.process_results(doc, [output]).items():
            per_metric.setdefault(metric, []).append(value)
    values = {m: aggregations[m](items) for m, items in per_metric.items() if m not in skip}
    return time.perf_counter() - started, values
