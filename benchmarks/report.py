"""The bench's table: each part's rows (``rows`` of its module), formatted as Markdown; and the
block of figures docs/performance.md shows (:func:`markdown`)."""

from __future__ import annotations

import importlib
from typing import Any, NamedTuple, Optional

from benchmarks import PARTS

GIB = 1024 ** 3
MIB = 2 ** 20
HEADER = ("measure", "value", "target", "status")
#: The lines around the bench's figures block in a Markdown page (the project's figures-block markers,
#: naming the command that prints the block; :func:`replace_block`).
BEGIN = "<!-- figures: begin — printed by `python -m benchmarks --markdown`; regenerate them, never edit by hand -->"
END = "<!-- figures: end -->"
#: How the bench's block opens, whatever the rest of its opening line says.
BEGIN_PREFIX = "<!-- figures: begin — printed by `python -m benchmarks"


class Row(NamedTuple):
    """One line of the table: what was measured, its value, the target (if any) and whether it was met."""

    measure: str
    value: str
    target: str = ""
    ok: Optional[bool] = None

    @property
    def status(self) -> str:
        """``ok``, ``MISSED`` or empty (no target)."""
        return "" if self.ok is None else ("ok" if self.ok else "MISSED")


def fmt_mib(n: Optional[float]) -> str:
    """Bytes as whole MiB (``"512 MiB"``); ``"—"`` for ``None``."""
    return "—" if n is None else f"{n / MIB:.0f} MiB"


def part_rows(results: dict[str, Any]) -> list[Row]:
    """The rows of every part present in ``results``, in :data:`~benchmarks.PARTS` order."""
    rows: list[Row] = []
    for part in PARTS:
        if results.get(part):
            rows += importlib.import_module(f"benchmarks.{part}").rows(results[part])
    return rows


def table(results: dict[str, Any]) -> str:
    """The printed Markdown table (measure, value, target, ok/MISSED) of the parts in ``results``."""
    cells = [HEADER] + [(r.measure, r.value, r.target, r.status) for r in part_rows(results)]
    width = [max(len(c[i]) for c in cells) for i in range(4)]
    lines = ["| " + " | ".join(h.ljust(width[i]) for i, h in enumerate(HEADER)) + " |",
             "|" + "|".join("-" * (w + 2) for w in width) + "|"]
    lines += ["| " + " | ".join(c.ljust(width[i]) for i, c in enumerate(cell)) + " |" for cell in cells[1:]]
    return "\n".join(lines)


def provenance(results: dict[str, Any]) -> str:
    """One sentence saying which command measured ``results``, where and under what load."""
    machine = results.get("machine", {})
    start, end = (machine.get(k, [float("nan")])[0] for k in ("loadavg_start", "loadavg_end"))
    sources = results.get("sources") or {}
    demo = sorted(t for t, s in sources.items() if s == "demo")
    data = ("stand-in data" + (f" (demo data for {', '.join(demo)})" if demo else "")) if results.get("data_dir") \
        else "demo data"
    command = (results.get("command") or "python -m benchmarks").replace("python -m benchmarks",
                                                                        "python -m benchmarks --markdown", 1)
    versions = ", ".join(f"{name} {machine[key]}" for name, key in
                         (("Python", "python"), ("lm-eval", "lm_eval"), ("cpsd_tasks", "cpsd_tasks"))
                         if machine.get(key))
    when = f" on {machine['date']}" if machine.get("date") else ""
    seconds = sum(results[p].get("part_seconds", 0.0) for p in PARTS if results.get(p))
    took = (f" in {seconds / 60:.0f} min" if seconds >= 90 else f" in {seconds:.0f} s") if seconds else ""
    return (f"Measured by `{command}`{when}{took}: {machine.get('cpus', '?')} cores, load average {start:.1f} → "
            f"{end:.1f}, {versions}; {data}; every endpoint a loopback server.")


def markdown(results: dict[str, Any]) -> str:
    """The generated block of docs/performance.md: :data:`BEGIN`, :func:`provenance`, the table, :data:`END`."""
    return "\n".join([BEGIN, "", provenance(results), "", table(results), "", END])


def replace_block(text: str, block: str) -> str:
    """``text`` with its one bench figures block (from a line opening with :data:`BEGIN_PREFIX` to the
    next :data:`END`) replaced by ``block``; other commands' figures blocks are left as they are.

    Raises:
        ValueError: ``text`` holds no such block, more than one, or one that is not closed.
    """
    if text.count(BEGIN_PREFIX) != 1:
        raise ValueError(f"expected exactly one figures block opening with {BEGIN_PREFIX}")
    start = text.index(BEGIN_PREFIX)
    end = text.find(END, start)
    if end < 0:
        raise ValueError(f"the figures block opening with {BEGIN_PREFIX} is not closed by {END}")
    return text[:start] + block + text[end + len(END):]
