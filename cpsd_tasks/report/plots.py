"""Figures of the leaderboard (matplotlib, Agg backend; each figure as PNG and SVG).

* ``radar``: the four dimensions per model (docs/metrics.md#groups; paper Figure 3): CLF ``acc``, IE ``f1``,
  QA ``total``, TG ``bertscore_f1``, each the mean over the dimension's tasks the row has. A
  dimension a row lacks is left out of its polygon (a gap, not 0); an axis no row has is labelled
  "no data". Published rows (``--with-paper``) are thin grey lines, marked as private-data figures.
* ``error_types``: share of the error classes (docs/metrics.md#error-classes) per model, one panel per judged task
  (paper §4.2).
* ``strict_vs_fuzzy``: strict ``acc`` against ``acc_fuzzy`` per model and classification task
  (paper Figure 7).
* ``label_distribution``: predicted (fuzzy) labels against the gold labels per classification
  task, as shares (paper Figure 8); unreadable outputs are their own bar.
* ``ie_f1_by_length``: mean per-document ``f1`` per input-length bucket for the IE tasks (paper
  Figure 4); skipped with a note when no IE sample log exists.

Chinese text needs a CJK font; without one, labels fall back to English and Chinese model names
to ``model N`` with a key (:mod:`cpsd_tasks.report.fonts`).

On the radar, a dimension a row scored from only some of its tasks (1 of 4 classification tasks)
is drawn with a hollow marker and named in the legend (``partial: CLF acc 1/4 tasks``).
"""

from __future__ import annotations

import logging
import math
import warnings
from collections import Counter
from pathlib import Path
from typing import Optional, Sequence

import matplotlib

matplotlib.use("Agg")  # no display, ever; must precede pyplot
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from cpsd_tasks.report.errors import SampleJudgement, error_counts, judge_rows  # noqa: E402
from cpsd_tasks.report.fonts import (apply_style, display_names, drawn_names, label_text, safe,  # noqa: E402
                                     text, use_cjk, write_name_key)
from cpsd_tasks.report.runs import DEMO  # noqa: E402
from cpsd_tasks.report.tables import (DIMENSIONS, TASK_TITLES, Row, dimension_coverage,  # noqa: E402
                                      dimension_scores)
from cpsd_tasks.tasks import TASKS  # noqa: E402
from cpsd_tasks.taxonomy import ERROR_CLASSES  # noqa: E402

log = logging.getLogger(__name__)

CLASS_COLORS: dict[str, str] = {"correct": "#2ca02c", "format": "#1f77b4", "content": "#ff7f0e",
                                "instruction": "#9467bd", "refusal": "#d62728"}
#: The classification tasks, in registry order.
CLF_TASKS: tuple[str, ...] = tuple(t for t, s in TASKS.items() if s.kind == "classification")
LENGTH_EDGES: tuple[int, ...] = (0, 100, 200, 400, 800)


def radar_label(name: str, row: Row) -> str:
    """The radar legend entry of a row: its name, plus the dimensions it lacks and the partial
    ones (scored from some of their tasks only)."""
    scores, coverage = dimension_scores(row), dimension_coverage(row)
    n_dims = sum(v is not None for v in scores.values())
    notes = [] if n_dims == len(DIMENSIONS) else [f"{n_dims}/{len(DIMENSIONS)} dimensions"]
    partial = [f"{d} {have}/{total} tasks" for d, (have, total) in coverage.items() if 0 < have < total]
    if partial:
        notes.append("partial: " + ", ".join(partial))
    return name + (f" ({'; '.join(notes)})" if notes else "")


def save(fig, out_dir: Path, stem: str) -> list[Path]:
    """Save ``fig`` as ``<stem>.png`` (150 dpi) and ``<stem>.svg`` and close it.

    Returns:
        The two paths.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"{stem}.png", out_dir / f"{stem}.svg"]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Glyph .* missing")
        fig.savefig(paths[0], dpi=150, bbox_inches="tight", metadata={"Software": None})
        fig.savefig(paths[1], bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    return paths


def _grid(n: int, cols: int = 2, size: tuple[float, float] = (5.5, 3.8)):
    cols = max(1, min(cols, n))
    nrows = math.ceil(n / cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(size[0] * cols, size[1] * nrows), squeeze=False)
    flat = list(axes.flat)
    for ax in flat[n:]:
        ax.set_visible(False)
    return fig, flat[:n]


def _footer(fig, rows: Sequence[Row]) -> None:
    notes = []
    if any(r.is_paper for r in rows):
        notes.append("† published figures, measured on the PRIVATE CPSDBench data: not comparable with other data")
    if any(r.data == DEMO for r in rows):
        notes.append("(demo) = embedded synthetic demo set, NOT CPSDBench")
    if notes:
        fig.text(0.01, -0.02, "\n".join(notes), fontsize=7, ha="left", va="top", color="#555555")


def _finish(fig, rows: Sequence[Row], out_dir: Path, stem: str) -> list[Path]:
    """Lay out a per-task figure, add the footer for the user's rows, and save it as PNG and SVG."""
    fig.tight_layout()
    _footer(fig, [r for r in rows if r.run is not None])
    return save(fig, out_dir, stem)


def _task_title(task: str) -> str:
    return f"cpsd_{task}" if not use_cjk() else f"{TASK_TITLES.get(task, task)} (cpsd_{task})"


# --------------------------------------------------------------------------- figures

def plot_radar(rows: Sequence[Row], out_dir: Path, stem: str = "radar") -> list[Path]:
    """Radar chart of the four dimensions per row (see module docstring).

    Returns:
        The PNG and SVG paths; ``[]`` (with a note) when no row has any dimension score.
    """
    dims = list(DIMENSIONS)
    scores = [dimension_scores(r) for r in rows]
    if not any(v is not None for s in scores for v in s.values()):
        log.info("radar: no row has a dimension score; skipped")
        return []
    angles = np.linspace(0, 2 * np.pi, len(dims), endpoint=False)
    closed = np.concatenate([angles, angles[:1]])
    fig, ax = plt.subplots(figsize=(7.5, 6.5), subplot_kw={"projection": "polar"})
    names = drawn_names(rows)
    colors = plt.get_cmap("tab10")
    paper_drawn = False
    k = 0
    for row, s, name in zip(rows, scores, names):
        vals = np.array([np.nan if s[d] is None else s[d] for d in dims] + [np.nan], dtype=float)
        vals[-1] = vals[0]
        if np.all(np.isnan(vals)):
            continue
        if row.is_paper:
            ax.plot(closed, vals, color="#9a9a9a", linewidth=0.8, alpha=0.7,
                    label=None if paper_drawn else "published models† (private data)")
            paper_drawn = True
        else:
            color = colors(k % 10)
            k += 1
            ax.plot(closed, vals, color=color, linewidth=2, marker="o", label=radar_label(name, row))
            ax.fill(closed[~np.isnan(vals)], vals[~np.isnan(vals)], color=color, alpha=0.08)
            coverage = dimension_coverage(row)
            part = [i for i, d in enumerate(dims) if 0 < coverage[d][0] < coverage[d][1]]
            if part:  # partial dimensions: hollow markers
                ax.scatter(angles[part], vals[part], s=60, facecolors="white", edgecolors=color, zorder=3)
    missing = [all(s[d] is None for s in scores) for d in dims]
    ax.set_xticks(angles)
    ax.set_xticklabels([d + ("\n(no data)" if m else "") for d, m in zip(dims, missing)])
    ax.set_ylim(0, 1)
    ax.set_title(text("CPSDBench 四个维度", "CPSDBench: four dimensions"), pad=18)
    ax.legend(loc="upper left", bbox_to_anchor=(1.08, 1.0), fontsize=8)
    _footer(fig, rows)
    return save(fig, out_dir, stem)


def plot_error_types(judgements: Sequence[SampleJudgement], rows: Sequence[Row], out_dir: Path,
                     stem: str = "error_types") -> list[Path]:
    """Stacked shares of the error classes (docs/metrics.md#error-classes) per model, one panel per judged task.

    Returns:
        The PNG and SVG paths; ``[]`` when there are no judgements.
    """
    counts = error_counts(judgements)
    if not counts:
        log.info("error_types: no judged samples; skipped")
        return []
    tasks = [t for t in TASKS if any(k[1] == t for k in counts)]
    order = [r.label for r in rows if r.run is not None]
    label_of = display_names(rows)
    fig, axes = _grid(len(tasks), cols=2)
    for ax, task in zip(axes, tasks):
        models = [m for m in order if (m, task) in counts]
        bottom = np.zeros(len(models))
        for cls in ERROR_CLASSES:
            shares = np.array([counts[(m, task)][cls] / max(1, sum(counts[(m, task)].values())) for m in models])
            ax.bar(range(len(models)), shares, bottom=bottom, color=CLASS_COLORS[cls], label=cls, width=0.6)
            bottom += shares
        ax.set_xticks(range(len(models)))
        ax.set_xticklabels([label_of.get(m, m) for m in models], rotation=20, ha="right", fontsize=8)
        ax.set_xlim(-0.75, max(len(models), 2) - 0.25)
        ax.set_ylim(0, 1)
        ax.set_ylabel(text("占比", "share of samples"))
        ax.set_title(_task_title(task), fontsize=10)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=len(ERROR_CLASSES), bbox_to_anchor=(0.5, 1.02))
    fig.suptitle(text("错误类型分布", "Error types per model"), y=1.06)
    return _finish(fig, rows, out_dir, stem)


def plot_strict_vs_fuzzy(rows: Sequence[Row], out_dir: Path, stem: str = "strict_vs_fuzzy") -> list[Path]:
    """Strict ``acc`` vs ``acc_fuzzy`` per model for each classification task (paper Figure 7).

    Returns:
        The PNG and SVG paths; ``[]`` when no run row has both metrics for a classification task.
    """
    run_rows = [r for r in rows if r.run is not None]
    tasks = [t for t in CLF_TASKS if any(r.value(t, "acc") is not None and r.value(t, "acc_fuzzy") is not None
                                   for r in run_rows)]
    if not tasks:
        log.info("strict_vs_fuzzy: no classification results with acc and acc_fuzzy; skipped")
        return []
    label_of = display_names(rows)
    fig, axes = _grid(len(tasks), cols=2)
    for ax, task in zip(axes, tasks):
        present = [r for r in run_rows if r.value(task, "acc") is not None]
        x = np.arange(len(present))
        strict = [r.value(task, "acc") for r in present]
        fuzzy = [np.nan if r.value(task, "acc_fuzzy") is None else r.value(task, "acc_fuzzy") for r in present]
        ax.bar(x - 0.2, strict, width=0.4, label=text("严格", "strict (acc)"), color="#4c72b0")
        ax.bar(x + 0.2, fuzzy, width=0.4, label=text("模糊", "fuzzy (acc_fuzzy)"), color="#dd8452")
        for xi, (s, f) in enumerate(zip(strict, fuzzy)):
            ax.text(xi - 0.2, s + 0.01, f"{s:.2f}", ha="center", fontsize=7)
            if not np.isnan(f):
                ax.text(xi + 0.2, f + 0.01, f"{f:.2f}", ha="center", fontsize=7)
        ax.set_xticks(x)
        ax.set_xticklabels([label_of.get(r.label, r.label) for r in present], rotation=20, ha="right", fontsize=8)
        ax.set_ylim(0, 1.1)
        ax.set_ylabel(text("准确率", "accuracy"))
        ax.set_title(_task_title(task), fontsize=10)
    axes[0].legend(fontsize=8)
    fig.suptitle(text("严格与模糊准确率（论文图7）", "Strict vs fuzzy accuracy (paper Figure 7)"))
    return _finish(fig, rows, out_dir, stem)


def plot_label_distribution(judgements: Sequence[SampleJudgement], rows: Sequence[Row], out_dir: Path,
                            stem: str = "label_distribution") -> list[Path]:
    """Predicted-label shares against gold-label shares per classification task (paper Figure 8).

    Gold shares are drawn once per data source (hatched bars); unreadable outputs count under
    "no label".

    Returns:
        The PNG and SVG paths; ``[]`` when there are no classification judgements.
    """
    by_task: dict[str, list] = {}
    for j in judgements:
        if j.task in CLF_TASKS:
            by_task.setdefault(j.task, []).append(j)
    tasks = [t for t in CLF_TASKS if t in by_task]
    if not tasks:
        log.info("label_distribution: no classification samples; skipped")
        return []
    none = text("无标签", "no label")
    label_of = display_names(rows)
    data_of = {r.label: r.data for r in rows}
    fig, axes = _grid(len(tasks), cols=2, size=(6.0, 3.8))
    for ax, task in zip(axes, tasks):
        cats = list(TASKS[task].labels) + [None]
        js = by_task[task]
        models = list(dict.fromkeys(j.model for j in js))
        golds: dict[str, Counter] = {}
        for j in js:
            if j.model == next(m for m in models if data_of.get(m) == data_of.get(j.model)):
                golds.setdefault(data_of.get(j.model, ""), Counter())[j.gold] += 1
        series = [(f"gold [{'demo' if d == 'demo' else Path(d).name or d}]" if len(golds) > 1 else "gold", c, True)
                  for d, c in golds.items()]
        for m in models:
            series.append((label_of.get(m, m), Counter(j.prediction for j in js if j.model == m), False))
        width = 0.8 / len(series)
        x = np.arange(len(cats))
        colors = plt.get_cmap("tab10")
        k = 0
        for i, (name, counter, is_gold) in enumerate(series):
            total = max(1, sum(counter.values()))
            shares = [counter.get(c, 0) / total for c in cats]
            if is_gold:
                ax.bar(x - 0.4 + width * (i + 0.5), shares, width=width, label=safe(name, "gold"), color="white",
                       edgecolor="black", hatch="//")
            else:
                ax.bar(x - 0.4 + width * (i + 0.5), shares, width=width, label=name, color=colors(k % 10))
                k += 1
        ax.set_xticks(x)
        ax.set_xticklabels([none if c is None else label_text(c) for c in cats], fontsize=8)
        ax.set_ylim(0, 1)
        ax.set_ylabel(text("占比", "share"))
        ax.set_title(_task_title(task), fontsize=10)
        ax.legend(fontsize=7)
    fig.suptitle(text("预测标签与真实标签分布（论文图8）", "Predicted vs gold label distribution (paper Figure 8)"))
    return _finish(fig, rows, out_dir, stem)


def length_bucket(n: int, edges: Sequence[int] = LENGTH_EDGES) -> int:
    """Index of the bucket of an input of ``n`` characters (``edges`` are lower bounds)."""
    return max(i for i, e in enumerate(edges) if n >= e)


def bucket_labels(edges: Sequence[int] = LENGTH_EDGES) -> list[str]:
    """Display labels of the length buckets: ``0–99``, …, ``800+``."""
    return [f"{a}–{b - 1}" for a, b in zip(edges, edges[1:])] + [f"{edges[-1]}+"]


def ie_f1_by_length(rows: Sequence[Row], edges: Sequence[int] = LENGTH_EDGES
                    ) -> dict[str, dict[str, list[tuple[float, int]]]]:
    """Mean per-document ``f1`` by input-length bucket, per IE task and run row.

    Returns:
        ``{task: {row label: [(mean f1 or nan, n docs) per bucket]}}`` for IE tasks whose sample
        log holds per-document ``f1`` numbers; ``{}`` when there are none.
    """
    out: dict[str, dict[str, list[tuple[float, int]]]] = {}
    for row in rows:
        if row.run is None:
            continue
        for task, tr in row.tasks.items():
            if TASKS[task].kind not in ("ner", "re"):
                continue
            sums = [[0.0, 0] for _ in edges]
            for s in tr.samples():
                f1 = s.get("f1")
                if isinstance(f1, bool) or not isinstance(f1, (int, float)) or math.isnan(f1):
                    continue
                b = length_bucket(len(str((s.get("doc") or {}).get("text", ""))), edges)
                sums[b][0] += float(f1)
                sums[b][1] += 1
            if any(n for _, n in sums):
                out.setdefault(task, {})[row.label] = [(t / n if n else float("nan"), n) for t, n in sums]
    return out


def plot_ie_f1_by_length(rows: Sequence[Row], out_dir: Path, stem: str = "ie_f1_by_length") -> list[Path]:
    """Mean document F1 per input-length bucket, one panel per IE task (paper Figure 4).

    Returns:
        The PNG and SVG paths; ``[]`` (with a note) when no IE sample log exists.
    """
    data = ie_f1_by_length(rows)
    if not data:
        log.info("ie_f1_by_length: no IE sample logs with per-document f1; skipped")
        return []
    label_of = display_names(rows)
    tasks = [t for t in TASKS if t in data]
    fig, axes = _grid(len(tasks), cols=min(3, len(tasks)), size=(5.0, 3.8))
    labels = bucket_labels()
    for ax, task in zip(axes, tasks):
        for model, points in data[task].items():
            ys = [p[0] for p in points]
            ax.plot(range(len(points)), ys, marker="o", label=label_of.get(model, model))
            for xi, (y, n) in enumerate(points):
                if n:
                    ax.annotate(f"n={n}", (xi, y), textcoords="offset points", xytext=(0, 5), fontsize=6,
                                ha="center")
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, fontsize=8)
        ax.set_xlim(-0.4, len(labels) - 0.6)
        ax.set_xlabel(text("输入长度（字符）", "input length (characters)"))
        ax.set_ylabel(text("文档平均 F1", "mean document F1"))
        ax.set_ylim(0, 1.05)
        ax.set_title(_task_title(task), fontsize=10)
        ax.legend(fontsize=7)
    fig.suptitle(text("不同输入长度的 F1（论文图4）", "IE F1 by input length (paper Figure 4)"))
    return _finish(fig, rows, out_dir, stem)


def make_all(rows: Sequence[Row], out_dir: Path,
             judgements: Optional[Sequence[SampleJudgement]] = None) -> list[Path]:
    """Draw every figure that the rows have data for into ``out_dir``.

    Args:
        rows: leaderboard rows (:func:`cpsd_tasks.report.tables.build_rows`).
        out_dir: target folder (created).
        judgements: per-sample judgements (:func:`cpsd_tasks.report.errors.judge_rows`); computed when
            ``None``.

    Returns:
        The files written (PNG and SVG per figure). A figure that fails is logged and skipped.
    """
    apply_style()
    if judgements is None:
        judgements = judge_rows(rows)
    out_dir = Path(out_dir)
    written: list[Path] = []
    jobs = [
        ("radar", lambda: plot_radar(rows, out_dir)),
        ("error_types", lambda: plot_error_types(judgements, rows, out_dir)),
        ("strict_vs_fuzzy", lambda: plot_strict_vs_fuzzy(rows, out_dir)),
        ("label_distribution", lambda: plot_label_distribution(judgements, rows, out_dir)),
        ("ie_f1_by_length", lambda: plot_ie_f1_by_length(rows, out_dir)),
    ]
    for name, job in jobs:
        try:
            written += job()
        except Exception as err:  # noqa: BLE001 - one bad figure must not lose the others
            log.warning("figure %s failed: %s: %s", name, type(err).__name__, err)
            plt.close("all")
    if written:
        written += write_name_key(rows, out_dir)
    return written
