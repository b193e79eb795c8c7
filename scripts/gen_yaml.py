#!/usr/bin/env python
"""Thin wrapper: ``python scripts/gen_yaml.py [--check]`` = ``python -m cpsd_tasks.cli.gen_yaml``.

See :mod:`cpsd_tasks.cli.gen_yaml` (writes every task YAML's ``metric_list`` from
:mod:`cpsd_tasks.specs` and checks the prompts' label lists against :mod:`cpsd_tasks.tasks`).
"""

import sys
from pathlib import Path

try:
    from cpsd_tasks.cli.gen_yaml import main
except ImportError:  # run from a checkout without installing the package
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from cpsd_tasks.cli.gen_yaml import main

if __name__ == "__main__":
    sys.exit(main())
