"""``ruff check`` is clean (pyproject.toml ``[tool.ruff]``: lines of at most 119 characters,
pyflakes, McCabe complexity at most 15) over the package, scripts/ and tests/, and the
configuration is what it says."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import ROOT


def ruff_config() -> dict:
    """The ``[tool.ruff]`` table of pyproject.toml."""
    tomllib = pytest.importorskip("tomllib")
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["ruff"]


def test_the_lint_configuration_holds_the_project_rules():
    config = ruff_config()
    assert config["line-length"] == 119
    assert set(config["lint"]["select"]) == {"E501", "F", "C901"}
    assert config["lint"]["mccabe"]["max-complexity"] == 15
    # Every exemption is named here, so a new one is a decision, not an accident.
    assert config["lint"]["per-file-ignores"] == {
        "cpsd_tasks/reading/**": ["E501"],
        "tests/test_audit_corpora.py": ["E501"],
    }
    assert "exclude" not in config and "extend-exclude" not in config


@pytest.mark.e2e                              # (starts ruff, a process)
def test_ruff_check_is_clean():
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--output-format", "concise"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip() == "All checks passed!"
