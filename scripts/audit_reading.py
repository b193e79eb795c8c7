#!/usr/bin/env python
"""Audit the answer reader on the real-output corpora: ``python scripts/audit_reading.py [--corpora …] [--out DIR]``.

A thin shim over :func:`cpsd_tasks.audit.main` (installed as ``cpsd-audit-reading``); run it from
the project root so that ``../shared/realout/<corpus>`` and ``tests/data`` are found.
"""

import sys

from cpsd_tasks.audit import main

if __name__ == "__main__":
    sys.exit(main())
