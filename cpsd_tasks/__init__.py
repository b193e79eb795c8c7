"""cpsd_tasks: CPSDBench (Chinese public-security LLM benchmark) for lm-evaluation-harness.

Python users get a harness ``TaskManager`` that knows the ``cpsd_*`` tasks with
:func:`task_manager`; command-line users run ``cpsd-eval`` (``lm_eval`` plus our task folder) or
``lm_eval --include_path "$(python -m cpsd_tasks path)"``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__version__ = "0.1.0"

#: Folder of the harness task YAMLs (pass it to ``--include_path``).
YAML_DIR: Path = Path(__file__).resolve().parent / "yaml"


def task_manager(include_defaults: bool = False, **kwargs: Any):
    """Return an ``lm_eval.tasks.TaskManager`` that knows every ``cpsd_*`` task and group.

    Args:
        include_defaults: also index the harness's ~15k built-in tasks (4–5 s); off by default.
        **kwargs: passed on to ``TaskManager`` (e.g. ``metadata={"data_dir": "…"}``).

    Returns:
        A ``TaskManager`` for ``lm_eval.simple_evaluate(..., task_manager=tm)``. Also installs
        :func:`cpsd_tasks.cli.prompts.install` (our prompt templates compiled once, same text).
    """
    from lm_eval.tasks import TaskManager

    from cpsd_tasks.cli import prompts, quiet

    prompts.install()  # our Jinja prompts compiled once, not once per doc (same text)
    quiet.install()  # no harness --metadata note per cpsd task, no git 'fatal:' line
    return TaskManager(include_path=str(YAML_DIR), include_defaults=include_defaults, **kwargs)
