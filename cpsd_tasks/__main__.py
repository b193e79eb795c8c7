"""``python -m cpsd_tasks path`` prints the task folder for ``lm_eval --include_path``."""

from __future__ import annotations

import sys

from cpsd_tasks import YAML_DIR, __version__

USAGE = """usage: python -m cpsd_tasks {path,version}
  path     print the folder of the cpsd task YAMLs (for lm_eval --include_path)
  version  print the cpsd_tasks version"""


def main(argv: list[str] | None = None) -> int:
    """Run the tiny CLI; returns the process exit code."""
    args = sys.argv[1:] if argv is None else argv
    if args == ["path"]:
        print(YAML_DIR)
        return 0
    if args == ["version"]:
        print(__version__)
        return 0
    print(USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
