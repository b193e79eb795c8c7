#!/usr/bin/env bash
# Create ./.venv (if missing) and install cpsd_tasks with everything it needs, offline-safe.
# torch is pinned to 2.13.0 first: pip takes the CPU wheel from this machine's local wheel store
# instead of a multi-GB CUDA build.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q "torch==2.13.0"
.venv/bin/python -m pip install -q -e ".[test]"
