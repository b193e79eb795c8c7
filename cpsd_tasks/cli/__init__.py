"""``cpsd-eval``: the harness's command line with the cpsd tasks (selection, checks, the cpsd-only run).

Modules: :mod:`~cpsd_tasks.cli.cpsd_eval` (the entry point), :mod:`~cpsd_tasks.cli.selection`
(what ``--tasks`` means), :mod:`~cpsd_tasks.cli.check` (``ls``, ``validate``, the data check before
a run), :mod:`~cpsd_tasks.cli.preflight` (the endpoint check), :mod:`~cpsd_tasks.cli.run` (the
harness's ``run`` without its built-in task index), :mod:`~cpsd_tasks.cli.prompts` (templates
compiled once), :mod:`~cpsd_tasks.cli.quiet` (harness noise removed) and
:mod:`~cpsd_tasks.cli.unguarded` (the warning under plain ``lm_eval``). Importing this package
imports none of them; ``python -m cpsd_tasks.cli`` is ``cpsd-eval``.
"""
