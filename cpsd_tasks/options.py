"""Per-run task options (α, τ, BERTScore model …) taken from the harness metadata.

The harness passes a task's metadata (YAML ``metadata``, model args and ``--metadata``) only to
the ``custom_dataset`` hook, not to ``process_results``; :func:`cpsd_tasks.data.harness_dataset`
therefore records it here and metric code reads it back with :func:`get_option`. Options are
per task id and per process, which is how the harness runs a task.
"""

from __future__ import annotations

from typing import Any

_OPTIONS: dict[str, dict[str, Any]] = {}


def set_task_options(task_id: str, metadata: dict[str, Any]) -> None:
    """Record the metadata the harness gave ``task_id``'s dataset hook (a shallow copy)."""
    _OPTIONS[task_id] = dict(metadata)


def get_option(task_id: str, name: str, default: Any, cast: type = str) -> Any:
    """Return option ``name`` of ``task_id`` cast with ``cast``, or ``default`` when unset.

    Raises:
        ValueError: the value is set but cannot be cast (e.g. ``alpha=abc``); the message names it.
    """
    value = _OPTIONS.get(task_id, {}).get(name)
    if value is None or value == "":
        return default
    try:
        return cast(value)
    except (TypeError, ValueError):
        raise ValueError(f"cpsd_{task_id}: option {name}={value!r} is not a valid {cast.__name__}") from None
