"""``cpsd-eval ls`` and ``cpsd-eval validate``, and the data check before a run — without the harness.

* ``cpsd-eval ls [tasks|groups|subtasks|tags]`` lists the cpsd groups, tasks and tags only, read
  from our task YAMLs (:func:`cpsd_tasks.cli.selection.local_index`, no harness import; lm_eval's own
  ``ls`` indexes its ~15k built-in tasks first and prints all of them);
* ``cpsd-eval validate --tasks TASKS [--metadata …]`` takes what ``run`` takes (names, wildcards,
  ``--metadata data_dir=…`` in the ``k=v`` or the JSON form, ``$CPSD_DATA_DIR``) and checks every
  requested task's data and the run options (:meth:`cpsd_tasks.options.RunConfig.from_metadata`: ranges,
  a BERTScore model folder) without any endpoint. Every problem of every task is printed at
  once, one line each (``<file>:<line>: field '<name>': …``); exit 2 when there is one, else 0;
* :func:`problems_before_run`: the same check, made by ``cpsd-eval run`` before any task is built.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Mapping, Optional, Sequence

from cpsd_tasks.exceptions import DataError

PROG = "cpsd-eval"
LS_WHAT = ("tasks", "groups", "subtasks", "tags")


# --------------------------------------------------------------------------- ls

def listing(index: Any, what: str = "tasks") -> str:
    """The ``ls`` text of our task folder.

    Args:
        index: a :class:`cpsd_tasks.cli.selection.Index` (read with ``from_yaml_dir``).
        what: ``tasks`` (groups, tasks and tags), ``groups``, ``subtasks`` or ``tags``.

    Returns:
        Lines of ``name  what it holds``; groups first (each reports the unweighted mean of its
        members), then the twelve tasks with the data folder they read, the ``cpsd_ll`` variants,
        then the tags.
    """
    width = max(len(n) for n in index.names) + 2
    lines: list[str] = []
    if what in ("tasks", "groups"):
        lines.append("cpsd groups (score: the unweighted mean of their tasks):")
        for group, children in index.groups.items():
            subgroups = [c for c in children if c in index.groups]
            members = (f"{', '.join(subgroups)} ({len(index.leaves(group))} tasks)" if subgroups
                       else ", ".join(index.leaves(group)))
            lines.append(f"  {group:<{width}}{members}")
    if what in ("tasks", "subtasks"):
        generate = [t for t in index.order() if index.tasks[t] == "generate_until"]
        ll = [t for t in index.order() if index.tasks[t] != "generate_until"]
        lines.append("cpsd tasks (generate_until; data: <data_dir>/<folder>/test.jsonl):")
        lines += [f"  {t:<{width}}folder {index.data_ids.get(t, '?')}" for t in generate]
        lines.append("cpsd_ll variants (loglikelihood, local models only; by name or the tag cpsd_ll):")
        lines += [f"  {t:<{width}}folder {index.data_ids.get(t, '?')}" for t in ll]
    if what in ("tasks", "tags"):
        lines.append("cpsd tags (run the groups: a tag has no group score):")
        lines += [f"  {t:<{width}}{', '.join(m)}" for t, m in sorted(index.tags.items())]
    return "\n".join(lines)


def ls_main(argv: Sequence[str]) -> int:
    """``cpsd-eval ls [tasks|groups|subtasks|tags]``: prints :func:`listing`; returns 0 (2 on a usage error)."""
    from cpsd_tasks.cli.selection import local_index

    parser = argparse.ArgumentParser(prog=f"{PROG} ls", description="List the cpsd groups, tasks and tags "
                                     "(lm_eval ls lists the harness's built-in tasks).")
    parser.add_argument("what", nargs="?", default="tasks", choices=LS_WHAT)
    args = parser.parse_args(list(argv))
    print(listing(local_index(), args.what))
    return 0


# --------------------------------------------------------------------------- validate

def parse_metadata(values: Optional[Sequence[str]]) -> dict[str, Any]:
    """``--metadata`` values as the harness reads them: one JSON object, or ``key=value`` words
    (values kept as strings; numbers are read by the option checks).

    Raises:
        ValueError: a word without ``=``, or JSON that is not an object.
    """
    out: dict[str, Any] = {}
    for value in values or ():
        text = value.strip()
        if text.startswith("{"):
            data = json.loads(text)
            if not isinstance(data, dict):
                raise ValueError(f"--metadata {value!r}: expected a JSON object")
            out.update(data)
            continue
        for word in text.split(","):
            if "=" not in word:
                raise ValueError(f"--metadata: expected key=value, got {word!r}")
            key, val = word.split("=", 1)
            out[key.strip()] = val.strip()
    return out


def _data_ids(leaves: Sequence[str], index: Any) -> list[str]:
    return list(dict.fromkeys(index.data_ids.get(t, t) for t in leaves))


def problems_before_run(leaves: Sequence[str], index: Any, metadata: Mapping[str, Any]) -> Optional[str]:
    """Check every requested task's data and the run options; the failure text, or ``None``.

    Args:
        leaves: the harness task names requested (``cpsd_rumor``, ``cpsd_ll_rumor``).
        index: our task folder (:class:`cpsd_tasks.cli.selection.Index`).
        metadata: the task metadata the harness will pass (``model_args`` merged under
            ``--metadata``): ``data_dir`` and the cpsd run options.

    Returns:
        ``None`` when all is well; else ``<headline>, nothing was sent to the model. <the problem>``
        (one line), or for bad data a first line ``…, nothing was sent to the model. N problem(s)
        in k of n task(s), one per line:`` followed by one line per problem.
    """
    from cpsd_tasks.data.loading import check_tasks
    from cpsd_tasks.options import RunConfig

    ids = _data_ids(leaves, index)
    data_dir = metadata.get("data_dir")
    try:
        _, errors = check_tasks(ids, str(data_dir) if data_dir else None)
    except DataError as err:
        return f"{err.headline}, nothing was sent to the model. {err}"
    if not errors:
        for task_id in ids:  # run options reach every task alike: the first bad one is enough
            try:
                RunConfig.from_metadata(task_id, metadata).check_model_folder()
            except DataError as err:
                return f"{err.headline}, nothing was sent to the model. {err}"
        return None
    headlines = {err.headline for err in errors}
    headline = headlines.pop() if len(headlines) == 1 else "bad data"
    problems = [p for err in errors for p in err.problems]
    return (f"{headline}, nothing was sent to the model. {len(problems)} problem(s) in {len(errors)} of "
            f"{len(ids)} task(s), one per line:\n" + "\n".join(problems))


def validate_main(argv: Sequence[str]) -> int:
    """``cpsd-eval validate --tasks TASKS [--metadata …]``: see the module doc; returns the exit code."""
    from cpsd_tasks.cli import selection
    from cpsd_tasks.data.loading import ENV_VAR, resolve_data_dir

    parser = argparse.ArgumentParser(prog=f"{PROG} validate", description="Check the data and run options of "
                                     "cpsd tasks, without any endpoint.")
    parser.add_argument("--tasks", "-t", required=True, help="as for run: cpsd, cpsd_clf, 'cpsd_*', cpsd_rumor, …")
    parser.add_argument("--metadata", nargs="+", help="as for run: data_dir=DIR (k=v words or a JSON object)")
    args = parser.parse_args(list(argv))
    index = selection.local_index()
    specs = [s.strip() for s in args.tasks.split(",") if s.strip()]
    try:
        metadata = parse_metadata(args.metadata)
        sel = selection.resolve(specs, index)
    except (ValueError, selection.UnknownTask) as err:
        print(f"{PROG}: {err}", file=sys.stderr)
        return 2
    if sel.others:
        print(f"{PROG}: validate checks cpsd tasks only; {', '.join(sel.others)} "
              f"{'is' if len(sel.others) == 1 else 'are'} not cpsd (use lm_eval validate for those)", file=sys.stderr)
        return 2
    leaves = list(dict.fromkeys(t for name in sel.ours for t in index.leaves(name)))
    failure = problems_before_run(leaves, index, metadata)
    if failure is not None:
        print(f"{PROG}: {failure.replace(', nothing was sent to the model.', ':', 1)}", file=sys.stderr)
        return 2
    base, demo = resolve_data_dir(metadata.get("data_dir"))
    where = (f"the embedded DEMO data (set --metadata data_dir=DIR or ${ENV_VAR})" if demo and
             not (metadata.get("data_dir") or os.environ.get(ENV_VAR)) else str(base))
    print(f"{PROG}: {len(leaves)} task(s) valid ({', '.join(sel.tasks)}), data from {where}; run options valid")
    return 0
