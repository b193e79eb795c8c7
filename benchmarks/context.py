"""What every part reads: the session's folders and the options chosen on the command line."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Optional


@dataclass(frozen=True)
class Context:
    """One bench session, built once by :func:`benchmarks.cli.main` (a test builds a small one).

    Attributes:
        work: the session's scratch folder (removed at the end); children run in it.
        data: a data folder holding every task (:func:`benchmarks.samples.stand_in_dir`).
        hf_home: ``$HF_HOME`` of every child run (a private datasets cache).
        sources: ``{task id: "stand-in" | "demo"}``: where each task's data came from.
        tasks_arg: the ``--tasks`` value that selects all twelve tasks (``cpsd`` normally).
        bertscore_shapes: random BERTs part ``bertscore`` builds when no real model is named
            (``tiny``, ``base-random``).
        bertscore_model: a real local BERT folder (``--bertscore-model`` or
            ``$CPSD_BERTSCORE_MODEL``), ``None`` for the random ones.
        bertscore_layers: the layer bert-score reads from ``bertscore_model``.
        latency_requests: requests of each run of part ``latency``.
        overhead_concurrency: ``num_concurrent`` of the full runs (parts ``overhead``, ``floor``).
        startup_pairs: interleaved before/after pairs of part ``startup``.
        floor_pairs: interleaved cpsd/floor pairs of part ``floor``.
    """

    work: Path
    data: Path
    hf_home: Path
    sources: Mapping[str, str] = field(default_factory=dict)
    tasks_arg: str = "cpsd"
    bertscore_shapes: tuple[str, ...] = ("tiny", "base-random")
    bertscore_model: Optional[str] = None
    bertscore_layers: int = 8
    latency_requests: int = 480
    overhead_concurrency: int = 8
    startup_pairs: int = 3
    floor_pairs: int = 3

    def metadata(self, **extra: Any) -> dict[str, Any]:
        """The task metadata of a bench run: this session's data folder, BERTScore off, then ``extra``."""
        return {"data_dir": str(self.data), "bertscore_model": "none", **extra}
