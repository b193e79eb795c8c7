"""An API run of cpsd-eval leaves torch out of its process (cpsd_tasks.cli.run.torch_left_out): the
torch seed is applied when torch is imported, the environment description comes from a child
process, and both read as the harness's own. Each check runs in a fresh interpreter: whether torch
is imported is the point, and this test process may have imported it already."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.e2e  # every test starts a fresh interpreter


def python(code: str, *args: str, cwd: Path | None = None, env: dict | None = None) -> list:
    """Run ``code`` in a fresh interpreter; its last stdout line is JSON, returned decoded."""
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], capture_output=True, text=True,
                          timeout=600, cwd=cwd, env=env)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_api_backend_resolves_without_importing_local_backends():
    got = python("""
        import json, sys
        import cpsd_tasks.backends
        from cpsd_tasks.cli.run import api_backend
        names = ["local-chat-completions", "local-completions", "openai-chat-completions", "cpsd-local-chat",
                 "cpsd-openai-chat", "hf", "vllm", "cpsd-hf", "no-such-backend", None]
        out = {str(n): api_backend(n) for n in names}
        out["imported"] = sorted(m for m in ("torch", "transformers", "lm_eval.models.huggingface",
                                             "cpsd_tasks.backends.hf") if m in sys.modules)
        print(json.dumps(out))
    """)
    assert got.pop("imported") == []
    assert got == {"local-chat-completions": True, "local-completions": True, "openai-chat-completions": True,
                   "cpsd-local-chat": True, "cpsd-openai-chat": True, "hf": False, "vllm": False,
                   "cpsd-hf": False, "no-such-backend": False, "None": False}


def test_seed_applied_at_import_is_the_harness_seed():
    """Seeding torch the moment it is imported gives the state torch.manual_seed gives."""
    got = python("""
        import json, sys
        from cpsd_tasks.cli.run import SeedTorchOnImport
        hook = SeedTorchOnImport(1234)
        hook.install()
        assert "torch" not in sys.modules
        import torch
        deferred = torch.rand(4).tolist()
        torch.manual_seed(1234)
        direct = torch.rand(4).tolist()
        print(json.dumps({"same": deferred == direct, "hook_left": hook in sys.meta_path,
                          "loader_patched": "exec_module" in vars(torch.__spec__.loader),
                          "initial_seed": torch.initial_seed()}))
    """)
    assert got == {"same": True, "hook_left": False, "loader_patched": False, "initial_seed": 1234}


GUARD = """
    import json, sys
    import cpsd_tasks.backends
    import lm_eval.evaluator as ev
    from cpsd_tasks.cli.run import torch_left_out
    original = (ev.set_torch_seed, ev.add_env_info)
"""


def test_guard_defers_seed_and_gives_the_harness_env_info(tmp_path):
    got = python(GUARD + """
    with torch_left_out("local-chat-completions") as hook:
        patched = (ev.set_torch_seed, ev.add_env_info) != original
        ev.set_torch_seed(1234)
        ours = {}
        ev.add_env_info(ours)
        torch_during = "torch" in sys.modules
    restored = (ev.set_torch_seed, ev.add_env_info) == original
    harness = {}
    original[1](harness)          # the harness's own (imports torch here)
    import torch
    print(json.dumps({"patched": patched, "torch_during": torch_during, "restored": restored,
                      "hook_left": any(type(f).__name__ == "SeedTorchOnImport" for f in sys.meta_path),
                      "same_env_info": ours == harness, "same_key_order": list(ours) == list(harness),
                      "pretty": ours["pretty_env_info"][:16]}))
    """, cwd=tmp_path)
    assert got == {"patched": True, "torch_during": False, "restored": True, "hook_left": False,
                   "same_env_info": True, "same_key_order": True, "pretty": "PyTorch version:"}


def test_guard_seeds_at_once_when_torch_is_there():
    """torch imported before the guard, or inside it before the harness seeds: seeded at once."""
    got = python(GUARD + """
    import torch
    with torch_left_out("local-chat-completions") as hook:
        untouched = (ev.set_torch_seed, ev.add_env_info) == original and hook is None
    with torch_left_out("hf") as hook_hf:
        untouched_hf = hook_hf is None
    print(json.dumps({"untouched": untouched, "untouched_hf": untouched_hf}))
    """)
    assert got == {"untouched": True, "untouched_hf": True}
    got = python(GUARD + """
    with torch_left_out("cpsd-local-chat"):
        import torch
        ev.set_torch_seed(77)
        seeded = torch.initial_seed()
        ours = {}
        ev.add_env_info(ours)     # torch is loaded now: the harness's own call
    harness = {}
    original[1](harness)
    print(json.dumps({"seeded": seeded, "same_env_info": ours == harness,
                      "hook_left": any(type(f).__name__ == "SeedTorchOnImport" for f in sys.meta_path)}))
    """)
    assert got == {"seeded": 77, "same_env_info": True, "hook_left": False}


def test_guard_for_a_local_backend_changes_nothing():
    got = python(GUARD + """
    with torch_left_out("hf") as hook:
        untouched = (ev.set_torch_seed, ev.add_env_info) == original and hook is None
    print(json.dumps({"untouched": untouched, "torch": "torch" in sys.modules}))
    """)
    assert got == {"untouched": True, "torch": False}  # deciding imported nothing either


#: Runs the CLI; at exit writes which heavy modules the process had loaded to $PROBE_OUT.
#: With $NO_GUARD, the guard is switched off (the harness's own seeding and env info).
CLI_PROBE = """
import atexit, contextlib, json, os, sys
def _dump():
    with open(os.environ["PROBE_OUT"], "w") as f:
        json.dump(sorted(m for m in ("torch", "transformers") if m in sys.modules), f)
atexit.register(_dump)
if os.environ.get("NO_GUARD"):
    import cpsd_tasks.cli.run
    cpsd_tasks.cli.run.torch_left_out = lambda model: contextlib.nullcontext()
from cpsd_tasks.cli.cpsd_eval import main
main(sys.argv[1:])
"""


@pytest.mark.e2e
def test_api_run_without_torch_records_the_same(tmp_path, hf_home, baseline_url):
    """A real cpsd-eval run against the baseline server: torch and transformers never imported,
    and the results JSON's seeds, environment description and metrics are those of the same run
    with the guard off (the harness importing torch to seed it and describe it)."""
    results = {}
    for variant in ("guard", "no_guard"):
        out = tmp_path / variant
        env = dict(os.environ, HF_HOME=str(hf_home), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1",
                   PROBE_OUT=str(tmp_path / f"{variant}.json"))
        env.pop("CPSD_DATA_DIR", None)
        if variant == "no_guard":
            env["NO_GUARD"] = "1"
        proc = subprocess.run([sys.executable, "-c", CLI_PROBE, "--model", "local-chat-completions",
                               "--model_args", f"base_url={baseline_url},model=baseline,num_concurrent=2",
                               "--apply_chat_template", "--tasks", "cpsd_rumor", "--limit", "3",
                               "--output_path", str(out)], capture_output=True, text=True, env=env, cwd=tmp_path,
                              timeout=600)
        assert proc.returncode == 0, proc.stderr[-4000:]
        assert "Setting torch manual seed to 1234" in proc.stderr
        loaded = json.loads((tmp_path / f"{variant}.json").read_text())
        results[variant] = (loaded, json.loads(next(out.rglob("results_*.json")).read_text(encoding="utf-8")))
    (loaded_on, on), (loaded_off, off) = results["guard"], results["no_guard"]
    assert loaded_on == [] and loaded_off == ["torch", "transformers"]
    for key in ("pretty_env_info", "transformers_version", "lm_eval_version", "upper_git_hash", "results"):
        assert on[key] == off[key], key
    assert on["pretty_env_info"].startswith("PyTorch version:")
    seeds = ("random_seed", "numpy_seed", "torch_seed", "fewshot_seed")
    assert [on["config"][k] for k in seeds] == [off["config"][k] for k in seeds] == [0, 1234, 1234, 1234]
    assert list(on) == list(off)
