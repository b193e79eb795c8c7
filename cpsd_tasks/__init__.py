"""cpsd_tasks: CPSDBench (Chinese public-security LLM benchmark) for lm-evaluation-harness.

Python users get a harness ``TaskManager`` that knows the ``cpsd_*`` tasks with
:func:`task_manager`; command-line users run ``cpsd-eval`` (``lm_eval`` plus our task folder) or
``lm_eval --include_path "$(python -m cpsd_tasks path)"``; ``python -m cpsd_tasks --help`` lists
the installed commands.

The layers, top first (imports go down; ARCHITECTURE.md)::

    cli/             cpsd-eval: task selection, data and endpoint checks, the cpsd-only harness run
    backends/        the guarded API backends and cpsd-hf (importing the package registers them)
    yaml/            the task and group YAMLs (data, prompt, metric_list)
    classification/  ie/  qa/  generation/  ll/     the task families: scorers and harness hooks
    data/            finding, validating and loading the JSONL data; the custom_dataset hook
    reading/         what a model answered, read from its raw output
    report/          cpsd-leaderboard, cpsd-rescore: tables, figures, error analysis from run folders
    judge/  audit/  baseline/                       optional judge, reader audit, rule baseline

and the modules every layer shares: :mod:`~cpsd_tasks.tasks` (the task registry),
:mod:`~cpsd_tasks.specs` (every metric declared once), :mod:`~cpsd_tasks.options` (run options and
the scoring signature), :mod:`~cpsd_tasks.taxonomy` (error classes), :mod:`~cpsd_tasks.truncation`
(which answers were cut), :mod:`~cpsd_tasks.task_yaml` (the one YAML reader),
:mod:`~cpsd_tasks.exceptions`.
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
