"""Harness noise that says nothing about a cpsd run, removed (installed by ``cpsd-eval`` and
:func:`cpsd_tasks.task_manager`):

* lm-eval 0.4.13 logs, for every task with a ``custom_dataset`` (all of ours), a WARNING that
  "Custom kwargs can be passed to ``--metadata``" with an unrelated ``max_seq_lengths`` example —
  12 per full run. Our tasks print their own line instead (which data they read and how to point
  them at yours with ``--metadata '{"data_dir": …}'``), so the harness's note is dropped for
  ``cpsd_*`` tasks only; other tasks keep it.
* Outside a git checkout the harness's ``get_git_commit_hash`` lets ``git describe`` print
  ``fatal: not a git repository`` on stderr. The same lookup runs with git's stderr captured; the
  results' ``git_hash`` is what the harness would record (``null`` outside a checkout).
"""

from __future__ import annotations

import logging
import os
import subprocess

METADATA_NOTE = "Custom kwargs can be passed to `--metadata`"
_installed = False


class MetadataNoteFilter(logging.Filter):
    """Drops the harness's ``--metadata`` note for ``cpsd_*`` tasks."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - never lose a record because of us
            return True
        return not (message.startswith("cpsd_") and METADATA_NOTE in message)


def quiet_git_commit_hash():
    """The harness's ``get_git_commit_hash`` without git's ``fatal: …`` line on stderr."""
    try:
        proc = subprocess.run(["git", "describe", "--always"], capture_output=True, timeout=30)  # noqa: S607
        if proc.returncode == 0:
            return proc.stdout.strip().decode()
    except (OSError, subprocess.SubprocessError):
        pass
    from lm_eval.loggers.utils import get_commit_from_path

    return get_commit_from_path(os.getcwd())


def install() -> None:
    """Install both (idempotent)."""
    global _installed
    if _installed:
        return
    logging.getLogger("lm_eval.api.task").addFilter(MetadataNoteFilter())
    import lm_eval.evaluator

    lm_eval.evaluator.get_git_commit_hash = quiet_git_commit_hash
    _installed = True
