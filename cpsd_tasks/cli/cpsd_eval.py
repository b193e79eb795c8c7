"""``cpsd-eval``: the ``lm_eval`` command line with the cpsd task folder added.

Every ``lm_eval`` option is accepted unchanged (``cpsd-eval --tasks cpsd_clf --model … ``,
``cpsd-eval ls tasks``, ``cpsd-eval validate --tasks cpsd``). ``--include_path`` is added unless
the user gives one; the harness takes a single folder there, so a user folder replaces ours.
Offline-friendly defaults are set when unset: ``HF_DATASETS_OFFLINE=1`` (our data is local; this
avoids a hub look-up that retries for about 50 s without network).

What ``cpsd-eval`` adds to ``lm_eval run`` (each answered by one line on stderr, exit code 2, no
traceback, before any task is built):

* no arguments: the usage, at once;
* ``--tasks``: names and wildcards starting with ``cpsd`` are resolved by
  :mod:`cpsd_tasks.cli.selection` (``'cpsd_*'`` → ``cpsd``: the twelve tasks once each, never the
  ``cpsd_ll`` variants); an unknown one (``cpsd_sentimnet``) gets a "did you mean";
* when every requested task is ours, lm_eval's ~15k built-in tasks are not indexed
  (:mod:`cpsd_tasks.cli.run`); a run that names a built-in task indexes them as ``lm_eval`` does.
  One line says which of the two happens;
* every requested task's data and the run options are checked first, every problem of every task
  at once (:func:`cpsd_tasks.cli.check.problems_before_run`);
* API backends are checked next (:mod:`cpsd_tasks.cli.preflight`): ``base_url``'s path is the
  backend's and exists on the server, the endpoint accepts a TCP connection and, for the OpenAI
  backends, ``$OPENAI_API_KEY`` is set. ``--no_preflight`` skips it;
* the harness's own API backends (``openai-chat-completions``, ``local-chat-completions``,
  ``local-completions``) run as the guarded cpsd ones, same arguments
  (:data:`cpsd_tasks.backends.api.GUARDED_HARNESS_BACKENDS`; one line says so);
* bad data (:class:`cpsd_tasks.exceptions.DataError`) and an endpoint that fails mid-run
  (:func:`endpoint_failure`: HTTP error after the retries, timeout, not JSON, lost connection) end
  the run with the problem in one line and no traceback (exit 2 / 1);
* ``ls`` and ``validate`` are ours (:mod:`cpsd_tasks.cli.check`): cpsd names only, no harness import;
  ``validate`` takes ``run``'s ``--tasks`` and ``--metadata``.

``cpsd-eval``'s own options, removed before the harness parses the rest: ``--no_preflight``,
``--index_builtins`` (index the built-in tasks anyway: the harness's own ``run`` code path).

It imports :mod:`cpsd_tasks.backends`, which registers the ``cpsd-openai-chat`` and
``cpsd-local-chat`` backends (``--model cpsd-openai-chat``) and keys ``--cache_requests`` on a
digest of each cpsd task's data and prompt, and installs :func:`cpsd_tasks.cli.prompts.install`
(our prompt templates compiled once).
"""

from __future__ import annotations

import logging
import os
import re
import sys
from typing import Any, NoReturn, Optional

from cpsd_tasks import YAML_DIR

PROG = "cpsd-eval"

USAGE = f"""usage: {PROG} --tasks TASKS --model BACKEND --model_args KEY=VALUE,... [lm_eval run options]
       {PROG} ls [tasks|groups|subtasks|tags] | validate --tasks TASKS [--metadata data_dir=DIR]
       {PROG} run -h   (every lm_eval option)

CPSDBench for lm-evaluation-harness: lm_eval's command line with the cpsd tasks added.

  --tasks       cpsd (all twelve) | cpsd_clf, cpsd_ie, cpsd_qa, cpsd_tg | cpsd_<task> | 'cpsd_*'
                cpsd_ll: log-likelihood variants (local models only)
  --model       cpsd-local-chat (any OpenAI-compatible server) | cpsd-openai-chat ($OPENAI_API_KEY)
                | hf | vllm | any lm_eval backend
  --model_args  base_url=http://127.0.0.1:8000/v1/chat/completions,model=NAME,num_concurrent=8
  --apply_chat_template --output_path out --log_samples

cpsd-eval's own options:
  --no_preflight    skip the check that the API endpoint answers and the key is set
  --index_builtins  index lm_eval's ~15k built-in tasks even when every task is a cpsd task

offline example, against the rule baseline (prints its port):
  cpsd-baseline-server --port 8000 &
  {PROG} --tasks cpsd --model cpsd-local-chat \\
    --model_args base_url=http://127.0.0.1:8000/v1/chat/completions,model=baseline \\
    --apply_chat_template --output_path out --log_samples"""

#: cpsd-eval's own flags (no value), removed from argv before the harness parses it.
OWN_FLAGS = ("--no_preflight", "--index_builtins")
SUBCOMMANDS = ("run", "ls", "validate")


def fail(message: str, code: int = 2) -> NoReturn:
    """Print ``cpsd-eval: <message>`` on stderr (one line) and exit with ``code``."""
    print(f"{PROG}: {message}", file=sys.stderr, flush=True)
    sys.exit(code)


def say(message: str) -> None:
    """One progress line on stderr."""
    print(f"{PROG}: {message}", file=sys.stderr, flush=True)


def split_own_flags(argv: list[str]) -> tuple[list[str], set[str]]:
    """``argv`` without :data:`OWN_FLAGS`, and the set of those given."""
    given = {a for a in argv if a in OWN_FLAGS}
    return [a for a in argv if a not in OWN_FLAGS], given


def has_include_path(argv: list[str]) -> bool:
    """The user gave ``--include_path``."""
    return any(a == "--include_path" or a.startswith("--include_path=") for a in argv)


def requested(args: Any) -> tuple[list[str], str, dict]:
    """``(task specs, model, model_args)`` of a parsed ``run``: the command line over ``--config``'s
    YAML, as ``EvaluatorConfig.from_cli`` merges them (model default ``hf``)."""
    from_yaml: dict = {}
    if getattr(args, "config", None):
        from lm_eval.config.evaluate_config import EvaluatorConfig

        from_yaml = EvaluatorConfig.load_yaml_config(args.config)
    tasks: Any = getattr(args, "tasks", None) or from_yaml.get("tasks") or []
    if isinstance(tasks, str):
        tasks = tasks.split(",")
    specs = [t for task in tasks for t in str(task).split(",") if t.strip()]
    model = getattr(args, "model", None) or from_yaml.get("model") or "hf"
    model_args: Any = getattr(args, "model_args", None) or from_yaml.get("model_args") or {}
    if isinstance(model_args, str):
        from lm_eval.utils import simple_parse_args_string

        model_args = simple_parse_args_string(model_args)
    return specs, str(model), dict(model_args)


def connection_failure(err: BaseException) -> Optional[str]:
    """If ``err`` (or an exception in its chain) is a lost/refused connection, a one-line account."""
    kinds: list[type] = [ConnectionError]
    try:
        import requests

        kinds.append(requests.exceptions.ConnectionError)
    except ImportError:  # pragma: no cover - the harness needs requests for API models
        pass
    try:
        import aiohttp

        kinds.append(aiohttp.ClientConnectionError)
    except ImportError:  # pragma: no cover
        pass
    seen = set()
    current: Optional[BaseException] = err
    found = None
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, tuple(kinds)):
            found = current
        current = current.__cause__ or current.__context__
    if found is None:
        return None
    text = " ".join(str(found).split())
    return f"{type(found).__name__}: {text[:300]}" if text else type(found).__name__


def unknown_builtin(message: str) -> str:
    """One line for the harness's ``Tasks not found: a, b``, with cpsd names close to them."""
    from cpsd_tasks.cli.selection import local_index, suggest

    missing = [m.strip() for m in message.split(":", 1)[-1].split(",") if m.strip()]
    names = local_index().names
    close = [c for m in missing for c in suggest(m, names)]
    hint = f"did you mean {' or '.join(repr(c) for c in dict.fromkeys(close))}? " if close else ""
    return (f"unknown task(s) {', '.join(repr(m) for m in missing)}: neither a cpsd task nor one of "
            f"lm_eval's; {hint}list them with: {PROG} ls tasks")


def check_data(args: Any, sel: Any, model_args: dict) -> None:
    """Every requested cpsd task's data and the run options, checked before anything else
    (:func:`cpsd_tasks.cli.check.problems_before_run`): every problem of every task at once, exit 2."""
    from cpsd_tasks.cli import check, selection

    if not sel.ours:
        return
    index = selection.local_index()
    leaves = list(dict.fromkeys(t for name in sel.ours for t in index.leaves(name)))
    metadata = {**model_args, **(getattr(args, "metadata", None) or {})}  # as the harness merges them
    failure = check.problems_before_run(leaves, index, metadata)
    if failure is not None:
        fail(failure)


class _ServerMessages(logging.Handler):
    """Keeps the last error text an endpoint sent, from the harness's WARNING "API request failed"
    lines, so that the one line of a failed run can quote the server."""

    PATTERN = re.compile(r"(?:Response text|error message): (?P<text>.*?)\.? Retrying", re.S)

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.last: Optional[str] = None

    def emit(self, record: logging.LogRecord) -> None:
        try:
            match = self.PATTERN.search(record.getMessage())
        except Exception:  # noqa: BLE001 - a log record we cannot read is not ours to fix
            return
        if match:
            self.last = " ".join(match.group("text").split())[:240]


SERVER_MESSAGES = _ServerMessages()


def watch_server_messages() -> None:
    """Attach :data:`SERVER_MESSAGES` to the harness's API logger (once)."""
    logger = logging.getLogger("lm_eval.models.api_models")
    if SERVER_MESSAGES not in logger.handlers:
        logger.addHandler(SERVER_MESSAGES)


def _in_api_code(err: BaseException) -> bool:
    tb = err.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.replace("\\", "/").endswith("lm_eval/models/api_models.py"):
            return True
        tb = tb.tb_next
    return False


def _http_status(err: BaseException) -> Optional[tuple[int, str]]:
    status = getattr(err, "status", None)  # aiohttp.ClientResponseError
    if isinstance(status, int) and type(err).__name__ == "ClientResponseError":
        return status, str(getattr(err, "message", "") or "")
    response = getattr(err, "response", None)  # requests.HTTPError
    if response is not None and isinstance(getattr(response, "status_code", None), int):
        return response.status_code, str(getattr(response, "reason", "") or "")
    return None


def endpoint_failure(err: BaseException, server_text: Optional[str] = None) -> Optional[str]:
    """One line for an endpoint that failed mid-run (the error or one in its chain), or ``None``.

    Covered: a lost/refused connection (:func:`connection_failure`), an HTTP error status after the
    retries (with the server's own text when the harness logged it), a timeout, and an answer that
    is not JSON (raised inside the harness's API code).
    """
    lost = connection_failure(err)
    if lost is not None:
        return (f"the endpoint did not answer ({lost}); the run stopped. Check that the server is up, "
                f"then rerun the same command (with --use_cache DIR, answers already received are kept)")
    seen = set()
    current: Optional[BaseException] = err
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        status = _http_status(current)
        said = f": {server_text}" if server_text else ""
        rerun = "then rerun the same command (with --use_cache DIR, answers already received are kept)"
        if status is not None:
            code, reason = status
            hint = {404: "base_url's path is probably wrong (it is used as given, e.g. "
                         "http://HOST:PORT/v1/chat/completions); fix it",
                    405: "base_url's path is probably wrong (it is used as given, e.g. "
                         "http://HOST:PORT/v1/chat/completions); fix it",
                    401: "check the API key ($OPENAI_API_KEY)", 403: "check the API key ($OPENAI_API_KEY)",
                    429: "the rate limit was hit on every attempt: lower num_concurrent or raise max_retries",
                    }.get(code, "check the server and --model_args")
            if code == 400 and server_text and "stop" in server_text:
                hint = "the server rejects the stop strings: add send_stop=false to --model_args"
            return (f"the endpoint answered HTTP {code} {reason}{said} (after the retries in max_retries); "
                    f"the run stopped. {hint[0].upper()}{hint[1:]}, {rerun}")
        if isinstance(current, TimeoutError) and _in_api_code(err):
            return (f"the endpoint did not answer within the timeout (timeout= in --model_args, seconds) on "
                    f"every attempt; the run stopped. Check the server or raise timeout, {rerun}")
        if isinstance(current, ValueError) and "JSON" in type(current).__name__ + str(current) and _in_api_code(err):
            return (f"the endpoint answered with something that is not JSON ({type(current).__name__}: "
                    f"{' '.join(str(current).split())[:160]}){said}; the run stopped. Check base_url and the "
                    f"server, {rerun}")
        current = current.__cause__ or current.__context__
    return None


def run(parser: Any, args: Any, own: set[str], user_include: bool) -> None:
    """The ``run`` subcommand: resolve tasks, pre-flight, then our run or the harness's."""
    from cpsd_tasks.cli import preflight, selection

    specs, model, model_args = requested(args)
    if not specs:
        fail(f"no --tasks given (e.g. --tasks cpsd, or 'cpsd_*'); usage: {PROG} -h")
    if user_include:
        sel = None
    else:
        try:
            sel = selection.resolve(specs, selection.local_index())
        except selection.UnknownTask as err:
            fail(str(err))
        if sel.tasks != specs:
            args.tasks = sel.tasks
        check_data(args, sel, model_args)
    if "--no_preflight" not in own:
        try:
            preflight.check(model, model_args)
        except preflight.PreflightError as err:
            fail(str(err))
    fast = sel is not None and sel.only_ours and "--index_builtins" not in own
    running = f"running {', '.join(sel.tasks if sel is not None else specs)}"
    if sel is not None and sel.notes:
        running += f" ({'; '.join(sel.notes)})"
    if fast:
        say(f"{running}; only the cpsd task folder is indexed, not lm_eval's ~15k built-in tasks")
    elif sel is None:
        say(f"{running}; --include_path given: lm_eval indexes it and its ~15k built-in tasks "
            f"(seconds to minutes)")
    else:
        why = ("--index_builtins given" if "--index_builtins" in own
               else f"{', '.join(sel.others)} {'is' if len(sel.others) == 1 else 'are'} not cpsd")
        say(f"{running}; {why}: lm_eval indexes its ~15k built-in tasks too (seconds to minutes)")

    from cpsd_tasks.backends import api as backends  # (registers the cpsd-* backends)
    from cpsd_tasks.cli import prompts, quiet

    guarded = backends.guard_harness_backend(model)
    if guarded is not None:
        args.model = guarded
        say(f"--model {model} runs as {guarded}: the same arguments, with cpsd's guards (reasoning "
            f"models by an exact name rule, not lm-eval's 'the name contains 5'; answers without choices "
            f"scored as refusals; lone surrogates repaired; truncation counted); config.cpsd_backend "
            f"records what was sent")
    watch_server_messages()

    prompts.install()
    quiet.install()  # see cpsd_tasks/cli/quiet.py
    if fast:
        from cpsd_tasks.cli.run import execute

        execute(args, sel.tasks)
        return
    try:
        parser.execute(args)
    except ValueError as err:
        if str(err).startswith("Tasks not found:"):
            fail(unknown_builtin(str(err)))
        raise


def close_process_group() -> bool:
    """Tear down torch.distributed's process group if this process (one rank of a launch) made one.

    Guards a harness gap: under ``accelerate launch`` / ``torchrun``, lm-eval's evaluator returns
    on ranks > 0 right after gathering the per-sample values and nobody calls
    ``destroy_process_group``. Such a rank exits with gloo's worker threads alive, which
    intermittently ends in ``terminate called without an active exception`` (SIGABRT); the launcher
    then SIGTERMs rank 0 while it is still aggregating, and the whole run is lost with no results
    file. Destroying the group is local to each rank (no collective), so rank 0 is not held up.

    torch is not imported here: a process that never loaded ``torch.distributed`` has no group.

    Returns:
        True when a process group was destroyed, False when there was none.
    """
    dist = sys.modules.get("torch.distributed")
    if dist is None or not dist.is_available() or not dist.is_initialized():
        return False
    rank = dist.get_rank()
    dist.destroy_process_group()
    say(f"rank {rank}: closed the torch.distributed process group")
    return True


def _close_progress_bars() -> None:
    """Close the harness's open tqdm bars (so none redraws after our last line) and end their line."""
    try:
        from tqdm import tqdm

        for bar in list(getattr(tqdm, "_instances", [])):
            bar.close()
    except Exception:  # noqa: BLE001 - cosmetic only
        pass
    print(file=sys.stderr, flush=True)


def main(argv: Optional[list[str]] = None) -> None:
    """Entry point of the ``cpsd-eval`` console script (``argv`` defaults to ``sys.argv[1:]``)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        print(USAGE, file=sys.stderr)
        sys.exit(2)
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    argv, own = split_own_flags(argv)
    if any(a in ("-h", "--help") for a in argv):
        print(USAGE + "\n\nlm_eval's options follow.\n", flush=True)
    user_include = has_include_path(argv)
    if argv[0] in ("ls", "validate") and not user_include and not any(a in ("-h", "--help") for a in argv[1:2]):
        from cpsd_tasks.cli import check

        sys.exit(check.ls_main(argv[1:]) if argv[0] == "ls" else check.validate_main(argv[1:]))
    if not user_include:
        if not argv or argv[0].startswith("-") or argv[0] in SUBCOMMANDS:
            argv = [*argv, "--include_path", str(YAML_DIR)]
    sys.argv = ["lm-eval", *argv]

    from lm_eval._cli import HarnessCLI
    from lm_eval.utils import setup_logging

    from cpsd_tasks.exceptions import DataError

    setup_logging()
    parser = HarnessCLI()
    args = parser.parse_args()
    try:
        if getattr(args, "command", None) == "run":
            run(parser, args, own, user_include)
        else:
            import cpsd_tasks.backends  # noqa: F401

            parser.execute(args)
    except DataError as err:  # bad data: the message is the whole story, no traceback needed
        fail(f"{getattr(err, 'headline', 'bad data')}, nothing was sent to the model.\n{err}")
    except Exception as err:  # noqa: BLE001 - only a failed endpoint is answered here; the rest re-raised
        failure = endpoint_failure(err, SERVER_MESSAGES.last)
        if failure is None:
            raise
        _close_progress_bars()
        logging.getLogger("asyncio").setLevel(logging.CRITICAL)  # the other requests' "never retrieved"
        fail(failure, code=1)
    finally:
        close_process_group()


if __name__ == "__main__":
    main()
