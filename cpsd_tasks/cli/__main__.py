"""``python -m cpsd_tasks.cli …`` is ``cpsd-eval …`` (e.g. under ``accelerate launch -m cpsd_tasks.cli``)."""

from cpsd_tasks.cli.cpsd_eval import main

main()
