"""``python -m cpsd_tasks``: the task folder for ``lm_eval --include_path``, the version, and what
the installed commands do (``--help``)."""

from __future__ import annotations

import sys

from cpsd_tasks import YAML_DIR, __version__

USAGE = "usage: python -m cpsd_tasks {path,version,--help}"

#: Every console script of the package (setup.cfg ``console_scripts``) and what it does.
COMMANDS = {
    "cpsd-eval": "run the tasks: lm_eval's command line with the cpsd tasks added (cpsd-eval -h)",
    "cpsd-baseline-server": "the rule baseline behind an OpenAI-compatible chat-completions endpoint",
    "cpsd-leaderboard": "the paper's tables, figures, error analysis and an HTML page from run folders",
    "cpsd-rescore": "re-score the generation tasks of a finished run from its sample log, no model",
    "cpsd-judge": "optional: read a finished run's answers by meaning with a judge model",
    "cpsd-audit-reading": "audit the answer reader on real LLM outputs",
}


def help_text() -> str:
    """What ``python -m cpsd_tasks --help`` prints: the subcommands and the installed commands."""
    width = max(map(len, COMMANDS))
    commands = "\n".join(f"  {name:<{width}}  {what}" for name, what in COMMANDS.items())
    return (f"{USAGE}\n\n"
            "CPSDBench (Chinese public-security LLM benchmark, arXiv:2402.07234) as lm-evaluation-harness tasks.\n\n"
            "  path       print the folder of the cpsd task YAMLs (for lm_eval --include_path)\n"
            "  version    print the cpsd_tasks version\n"
            "  --help     print this text\n\n"
            f"commands installed with the package (each takes -h):\n{commands}")


def main(argv: list[str] | None = None) -> int:
    """Run the tiny CLI; returns the process exit code (2 and the usage for anything unknown)."""
    args = sys.argv[1:] if argv is None else argv
    if args == ["path"]:
        print(YAML_DIR)
        return 0
    if args == ["version"]:
        print(__version__)
        return 0
    if args in (["--help"], ["-h"], ["help"]):
        print(help_text())
        return 0
    print(f"{USAGE}\n(python -m cpsd_tasks --help says what each does)", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
