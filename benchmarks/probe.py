"""The scoring probe a child run can carry, and the scoring share computed from its sums."""

from __future__ import annotations

import statistics
from typing import Any, Optional

#: Prepended to :data:`benchmarks.children.RSS_WRAPPER` by ``run_child(..., probe=True)``: times,
#: inside the run, every ``process_results`` call (``ConfigurableTask.process_results``, which calls
#: a task's own hook) and every task's aggregation step
#: (``lm_eval.evaluator_utils._compute_task_aggregations``: the task's aggregation functions and
#: their stderr), in CPU time of the calling thread (``time.thread_time``, blind to other
#: processes' load) and wall time, and writes the sums to $CPSD_BENCH_PROBE at exit. The functions
#: are wrapped, not replaced: same calls, same values.
SCORING_PROBE = (
    "import atexit as _atexit, json as _json, os as _os, time as _time\n"
    "def _cpsd_probe():\n"
    "    import lm_eval.api.task as task_mod, lm_eval.evaluator_utils as utils_mod\n"
    "    acc = {'process_results': [0.0, 0.0, 0], 'aggregation': [0.0, 0.0, 0]}\n"
    "    tasks = {}\n"
    "    def timed(key, fn):\n"
    "        def wrapper(*args, **kwargs):\n"
    "            cpu, wall = _time.thread_time(), _time.perf_counter()\n"
    "            try:\n"
    "                return fn(*args, **kwargs)\n"
    "            finally:\n"
    "                spent = _time.thread_time() - cpu\n"
    "                slot = acc[key]\n"
    "                slot[0] += spent; slot[1] += _time.perf_counter() - wall; slot[2] += 1\n"
    "                name = str(getattr(args[0], 'task_name', None) if args else None)\n"
    "                per = tasks.setdefault(name, {'process_results_cpu': 0.0, 'calls': 0, 'first_call_cpu': None,\n"
    "                                              'aggregation_cpu': 0.0})\n"
    "                if key == 'aggregation':\n"
    "                    per['aggregation_cpu'] += spent\n"
    "                else:\n"
    "                    per['process_results_cpu'] += spent; per['calls'] += 1\n"
    "                    per['first_call_cpu'] = spent if per['first_call_cpu'] is None else per['first_call_cpu']\n"
    "        return wrapper\n"
    "    task_mod.ConfigurableTask.process_results = timed('process_results', "
    "task_mod.ConfigurableTask.process_results)\n"
    "    utils_mod._compute_task_aggregations = timed('aggregation', utils_mod._compute_task_aggregations)\n"
    "    def dump():\n"
    "        with open(_os.environ['CPSD_BENCH_PROBE'], 'w') as f:\n"
    "            _json.dump({**{k: {'cpu': v[0], 'wall': v[1], 'calls': v[2]} for k, v in acc.items()},\n"
    "                        'tasks': tasks}, f)\n"
    "    _atexit.register(dump)\n"
    "_cpsd_probe()\n"
)

#: The per-task figures of the probe, as :func:`median_scoring` takes their medians.
TASK_FIGURES = ("process_results_cpu", "first_call_cpu", "aggregation_cpu", "calls")


def scoring_share(probe: Optional[dict[str, Any]], cpu: float, wall: float) -> Optional[dict[str, Any]]:
    """A run's scoring figures from :data:`SCORING_PROBE`'s sums and the run's total ``cpu``
    (user + system of the process and its children) and ``wall`` seconds.

    Returns:
        ``process_results_cpu``, ``aggregation_cpu``, ``cpu`` (their sum), ``wall`` (the same two
        in wall time), ``calls`` (``process_results`` calls), ``tasks`` (the probe's per-task sums),
        ``cpu_share`` (``cpu`` ÷ the run's CPU) and ``wall_share``; ``None`` when there is no probe.
    """
    if not probe:
        return None
    pr, agg = probe["process_results"], probe["aggregation"]
    scoring_cpu, scoring_wall = pr["cpu"] + agg["cpu"], pr["wall"] + agg["wall"]
    return {"process_results_cpu": pr["cpu"], "aggregation_cpu": agg["cpu"], "cpu": scoring_cpu,
            "wall": scoring_wall, "calls": pr["calls"], "tasks": probe.get("tasks", {}),
            "cpu_share": scoring_cpu / cpu if cpu > 0 else None,
            "wall_share": scoring_wall / wall if wall > 0 else None}


def median_scoring(figures: list[Optional[dict[str, Any]]]) -> Optional[dict[str, Any]]:
    """The median of each of :func:`scoring_share`'s figures over runs (runs without one left
    out; ``None`` if none has one), with ``runs`` = how many were counted."""
    have = [f for f in figures if f]
    if not have:
        return None
    out: dict[str, Any] = {k: statistics.median(f[k] for f in have) for k in have[0]
                           if k != "tasks" and all(f[k] is not None for f in have)}
    names = sorted({n for f in have for n in f.get("tasks", {})})
    out["tasks"] = {name: {k: statistics.median(f["tasks"][name][k] or 0 for f in have if name in f.get("tasks", {}))
                           for k in TASK_FIGURES}
                    for name in names}
    out["runs"] = len(have)
    return out
