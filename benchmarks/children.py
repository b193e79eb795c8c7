"""Child processes of the bench: a module or code run with its own peak RSS (and, on request, the
scoring probe), the environment of a child CLI run, and one ``cpsd-eval`` run against an endpoint."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

from benchmarks.context import Context
from benchmarks.probe import SCORING_PROBE

#: Runs a module or a script and writes its own peak RSS (VmHWM) to $CPSD_BENCH_RSS at exit. A
#: child's ru_maxrss is no use here: Linux carries the parent's high-water mark over fork+exec.
RSS_WRAPPER = (
    "import atexit, os, runpy, sys\n"
    "def _rss():\n"
    "    with open('/proc/self/status') as f, open(os.environ['CPSD_BENCH_RSS'], 'w') as out:\n"
    "        out.write(next(l for l in f if l.startswith('VmHWM:')).split()[1])\n"
    "atexit.register(_rss)\n"
    "target = sys.argv[1]; sys.argv = sys.argv[1:]\n"
    "runpy.run_module(target[2:], run_name='__main__', alter_sys=True) if target.startswith('-m') "
    "else exec(compile(target, '<bench>', 'exec'), {'__name__': '__main__'})\n"
)


def vm_hwm(status: str) -> int:
    """Peak RSS in bytes from the text of a ``/proc/<pid>/status`` (its ``VmHWM:`` line, in kB);
    without that line (not Linux) this process's ``ru_maxrss``."""
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # not Linux: best effort


def rss_now_peak() -> int:
    """Peak RSS of this process so far, in bytes (``VmHWM`` of /proc/self/status)."""
    return vm_hwm(Path("/proc/self/status").read_text())


def run_child(cmd: list[str], env: dict[str, str], cwd: Path, timeout: float = 1800,
              probe: bool = False) -> dict[str, Any]:
    """Run ``[python, "-m", module, *args]`` or ``[python, "-c", code, *args]``.

    With ``probe``, the child times its scoring hooks (:data:`benchmarks.probe.SCORING_PROBE`).

    Returns:
        ``rc``, ``wall`` seconds, ``started``/``ended`` (monotonic), ``maxrss`` (the child's own
        peak RSS in bytes, or ``None`` if it could not be read), ``stdout``, ``stderr`` and
        ``probe`` (the probe's sums, ``None`` without ``probe`` or if the child wrote none).
    """
    assert cmd[1] in ("-m", "-c"), cmd
    target = "-m" + cmd[2] if cmd[1] == "-m" else cmd[2]
    rss_file = Path(tempfile.mkstemp(prefix="rss-", dir=cwd)[1])
    probe_file = Path(tempfile.mkstemp(prefix="probe-", dir=cwd)[1])
    env = dict(env, CPSD_BENCH_RSS=str(rss_file), CPSD_BENCH_PROBE=str(probe_file))
    wrapper = SCORING_PROBE + RSS_WRAPPER if probe else RSS_WRAPPER
    with tempfile.TemporaryFile("w+", encoding="utf-8") as out, tempfile.TemporaryFile("w+", encoding="utf-8") as err:
        started = time.monotonic()
        proc = subprocess.Popen([cmd[0], "-c", wrapper, target, *cmd[3:]], stdout=out, stderr=err, env=env,
                                cwd=cwd, text=True)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        ended = time.monotonic()
        out.seek(0)
        err.seek(0)
        text = rss_file.read_text().strip()
        probed = probe_file.read_text().strip()
        return {"rc": proc.returncode, "wall": ended - started, "started": started, "ended": ended,
                "maxrss": int(text) * 1024 if text else None, "stdout": out.read(), "stderr": err.read(),
                "probe": json.loads(probed) if probed else None}


def cli_env(hf_home: Path) -> dict[str, str]:
    """Environment of a child CLI run: this one, offline, ``HF_HOME=hf_home``, no ``$CPSD_DATA_DIR``."""
    env = dict(os.environ, HF_HOME=str(hf_home), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1",
               TOKENIZERS_PARALLELISM="false")
    env.pop("CPSD_DATA_DIR", None)
    return env


def child_cpu(before: resource.struct_rusage, after: resource.struct_rusage) -> float:
    """User + system CPU seconds of the children that ended between two ``RUSAGE_CHILDREN`` readings."""
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def endpoint_args(server: Any, concurrency: int) -> list[str]:
    """The model arguments every bench run gives the harness: ``local-chat-completions`` against
    ``server`` (a :class:`benchmarks.fault_server.FaultServer`), chat template on."""
    return ["--model", "local-chat-completions", "--model_args",
            f"base_url={server.url},model=bench,num_concurrent={concurrency},max_retries=3",
            "--apply_chat_template"]


def run_eval(ctx: Context, tasks: str, server: Any, concurrency: int, extra: tuple[str, ...] = (),
             metadata: Optional[dict[str, Any]] = None, log_samples: bool = True) -> dict[str, Any]:
    """One ``cpsd-eval`` run of ``tasks`` against ``server`` (BERTScore off unless ``metadata`` says).

    Returns:
        :func:`run_child`'s dict plus the server's view: ``requests``, ``first_request`` and
        ``after_last_response`` (seconds from the CLI start / to its end), ``request_phase``,
        ``server_busy`` and ``max_in_flight``.

    Raises:
        RuntimeError: the CLI exited non-zero (the end of its stderr in the message).
    """
    out = Path(tempfile.mkdtemp(dir=ctx.work, prefix="run-"))
    cmd = [sys.executable, "-m", "cpsd_tasks.cli", *endpoint_args(server, concurrency),
           "--tasks", tasks, "--output_path", str(out), "--metadata", json.dumps(ctx.metadata(**(metadata or {}))),
           *extra]
    if log_samples:
        cmd.append("--log_samples")
    server.reset_counts()
    res = run_child(cmd, cli_env(ctx.hf_home), cwd=ctx.work)
    if res["rc"] != 0:
        raise RuntimeError(f"cpsd-eval failed ({res['rc']}):\n{res['stderr'][-3000:]}")
    res["requests"] = server.requests
    res["first_request"] = server.first_request_at - res["started"]
    res["request_phase"] = server.last_response_at - server.first_request_at
    res["after_last_response"] = res["ended"] - server.last_response_at
    res["server_busy"] = server.busy
    res["max_in_flight"] = server.max_in_flight
    return res
