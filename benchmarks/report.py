"""The bench's table: each part's rows (``rows`` of its module), formatted as Markdown."""

from __future__ import annotations

import importlib
from typing import Any, NamedTuple, Optional

from benchmarks import PARTS

GIB = 1024 ** 3
MIB = 2 ** 20
HEADER = ("measure", "value", "target", "status")


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
