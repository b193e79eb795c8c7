"""``cpsd-eval``: the ``lm_eval`` command line with the cpsd task folder added.

Every ``lm_eval`` option is accepted unchanged (``cpsd-eval --tasks cpsd_clf --model … ``,
``cpsd-eval ls tasks``, ``cpsd-eval validate --tasks cpsd``). ``--include_path`` is added unless
the user gives one; the harness takes a single folder there, so a user folder replaces ours.
Bad data (:class:`cpsd_tasks.data.DataError`) ends the run with exit code 2 and the problem list,
without a traceback. Offline-friendly defaults are set when unset: ``HF_DATASETS_OFFLINE=1`` (our data is local; this
avoids a hub look-up that retries for about 50 s without network).

It imports :mod:`cpsd_tasks.backends` first, which registers the ``cpsd-openai-chat`` and
``cpsd-local-chat`` backends (``--model cpsd-openai-chat``) and keys ``--cache_requests`` on a
digest of each cpsd task's data and prompt.
"""

from __future__ import annotations

import os
import sys

from cpsd_tasks import YAML_DIR


def main() -> None:
    """Entry point of the ``cpsd-eval`` console script."""
    argv = sys.argv[1:]
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    if not any(a == "--include_path" or a.startswith("--include_path=") for a in argv):
        if not argv or argv[0].startswith("-") or argv[0] in ("run", "ls", "validate"):
            argv = [*argv, "--include_path", str(YAML_DIR)]
    sys.argv = ["lm-eval", *argv]
    from lm_eval.__main__ import cli_evaluate

    import cpsd_tasks.backends  # noqa: F401  (registers cpsd-openai-chat / cpsd-local-chat)

    from cpsd_tasks.data import DataError

    try:
        cli_evaluate()
    except DataError as err:  # bad data: the message is the whole story, no traceback needed
        print(f"cpsd-eval: {getattr(err, 'headline', 'bad data')}, nothing was sent to the model.\n{err}",
              file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
