"""Shared test fixtures: offline environment, a loopback baseline server, and an lm_eval runner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Optional

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

ROOT = Path(__file__).resolve().parent.parent


#: Real public stand-in data (docs/data.md#public-stand-in-data); present in CI, maybe not on a user's machine.
SHARED_DATA = (ROOT.parent / "shared" / "data").resolve()
needs_shared_data = pytest.mark.skipif(
    not SHARED_DATA.is_dir(),
    reason=f"stand-in data folder {SHARED_DATA} not present (it lives beside the checkout in CI)",
)


@pytest.fixture(scope="session")
def baseline_server():
    """The rule baseline server on a free loopback port, for the whole test session."""
    from cpsd_tasks.baseline.server import make_server

    server = make_server(port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def baseline_url(baseline_server) -> str:
    """``base_url`` of the baseline server's chat-completions endpoint."""
    return f"http://127.0.0.1:{baseline_server.server_port}/v1/chat/completions"


@pytest.fixture(scope="session")
def hf_home(tmp_path_factory) -> Path:
    """A private HF_HOME so the datasets cache never touches the user's."""
    return tmp_path_factory.mktemp("hf_home")


def run_cpsd_eval(tasks: str, base_url: str, out_dir: Path, hf_home: Path,
                  data_dir: Optional[Path] = None, extra: tuple[str, ...] = (),
                  cwd: Optional[Path] = None, timeout: int = 900) -> dict[str, Any]:
    """Run the real ``cpsd-eval`` CLI (a subprocess) against ``base_url``.

    Returns:
        ``{"results": <results JSON>, "samples": {task: [sample, ...]}, "stdout": str, "stderr": str}``.

    Raises:
        AssertionError: the CLI exited non-zero (its stderr tail is in the message).
    """
    cmd = [sys.executable, "-m", "cpsd_tasks.cli", "--model", "local-chat-completions",
           "--model_args", f"base_url={base_url},model=baseline,num_concurrent=4,max_retries=2",
           "--apply_chat_template", "--tasks", tasks, "--output_path", str(out_dir),
           "--log_samples", *extra]
    if data_dir is not None:
        cmd += ["--metadata", json.dumps({"data_dir": str(data_dir)})]
    env = dict(os.environ, HF_HOME=str(hf_home), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    env.pop("CPSD_DATA_DIR", None)
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd or out_dir.parent, env=env,
                          timeout=timeout)
    assert proc.returncode == 0, f"cpsd-eval failed ({proc.returncode}):\n{proc.stderr[-4000:]}"
    assert any(out_dir.rglob("results_*.json")), f"no results file under {out_dir}"
    from cpsd_tasks.report.runs import read_output  # the package's own reader of harness output

    output = read_output(out_dir)
    return {"results": output.results, "samples": output.samples, "stdout": proc.stdout, "stderr": proc.stderr}
