"""Part ``loading``: task loading in a fresh interpreter.

Times importing lm_eval (and cpsd_tasks), indexing tasks with and without the harness's ~15k
built-in tasks (which ``lm_eval``'s CLI always indexes) and building every ``--tasks cpsd`` task on
the stand-in data; and the peak RSS of that process.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from benchmarks.children import cli_env, run_child
from benchmarks.context import Context
from benchmarks.report import Row, fmt_mib

#: The child's code: argv[1] the task metadata (JSON), argv[2] the ``--tasks`` value; prints its figures as JSON.
LOADING_SCRIPT = r"""
import json, os, sys, time
t0 = time.perf_counter()
import lm_eval
from lm_eval.tasks import TaskManager
import cpsd_tasks
t_import = time.perf_counter() - t0
meta = json.loads(sys.argv[1])
out = {"import_seconds": t_import}
for defaults in (False, True):
    t0 = time.perf_counter()
    tm = TaskManager(include_path=str(cpsd_tasks.YAML_DIR), include_defaults=defaults, metadata=meta)
    index = time.perf_counter() - t0
    t0 = time.perf_counter()
    loaded = tm.load(sys.argv[2].split(","))
    build = time.perf_counter() - t0
    out["defaults" if defaults else "plugin_only"] = {"index_seconds": index, "build_seconds": build,
                                                      "tasks": len(loaded["tasks"])}
print(json.dumps(out))
"""


def measure(ctx: Context) -> dict[str, Any]:
    """Import, task-index and build seconds in a fresh interpreter, and its peak RSS.

    Raises:
        RuntimeError: the child interpreter failed (the end of its stderr in the message).
    """
    res = run_child([sys.executable, "-c", LOADING_SCRIPT, json.dumps(ctx.metadata()), ctx.tasks_arg],
                    cli_env(ctx.hf_home), cwd=ctx.work)
    if res["rc"] != 0:
        raise RuntimeError(res["stderr"][-3000:])
    data = json.loads(res["stdout"].strip().splitlines()[-1])
    data["peak_rss_bytes"] = res["maxrss"]
    data["tasks_arg"] = ctx.tasks_arg
    data["process_wall_seconds"] = res["wall"]
    return data


def rows(ld: dict[str, Any]) -> list[Row]:
    """The table's lines of part ``loading``."""
    plugin, defaults = ld["plugin_only"], ld["defaults"]
    return [
        Row(f"task loading --tasks {ld['tasks_arg']}: import lm_eval + cpsd_tasks", f"{ld['import_seconds']:.2f} s"),
        Row("  index, plugin only (Python API, cpsd-eval) / with built-ins (lm_eval CLI)",
            f"{plugin['index_seconds']:.2f} s / {defaults['index_seconds']:.2f} s"),
        Row(f"  build {plugin['tasks']} tasks (data validation, Arrow)",
            f"{plugin['build_seconds']:.2f} s / {defaults['build_seconds']:.2f} s"),
        Row("  peak RSS of the loading process", fmt_mib(ld["peak_rss_bytes"])),
    ]
