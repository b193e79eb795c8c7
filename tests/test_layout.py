"""The package root shows the layers: the few modules every layer shares, packages for the rest, a
one-line description on each package, and ``python -m cpsd_tasks --help``."""

from __future__ import annotations

import configparser
import importlib
import subprocess
import sys

import pytest

from conftest import ROOT

PACKAGE = ROOT / "cpsd_tasks"

#: The modules at the package root: the entry points and what every layer shares (nothing else).
ROOT_MODULES = {"__init__", "__main__", "exceptions", "options", "specs", "task_yaml", "tasks", "taxonomy",
                "truncation"}


def test_the_root_holds_only_the_shared_modules():
    found = {path.stem for path in PACKAGE.glob("*.py")}
    assert found == ROOT_MODULES
    assert len(found) <= 10


def test_every_package_says_in_one_line_what_it_is():
    packages = sorted(path.parent for path in PACKAGE.rglob("__init__.py") if "__pycache__" not in path.parts)
    names = {p.relative_to(PACKAGE).as_posix() for p in packages}
    assert {"cli", "backends", "data", "classification", "ie", "qa", "generation", "ll", "reading", "report",
            "audit", "judge", "baseline"} <= names
    for package in packages:
        dotted = ".".join(("cpsd_tasks", *package.relative_to(PACKAGE).parts)).rstrip(".")
        doc = importlib.import_module(dotted).__doc__ or ""
        first = doc.strip().splitlines()[0] if doc.strip() else ""
        assert len(first.split()) >= 4, f"{dotted}: the docstring's first line says what the package is"


def console_scripts() -> list[str]:
    """The console script names of setup.cfg."""
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg", encoding="utf-8")
    lines = cfg["options.entry_points"]["console_scripts"].strip().splitlines()
    return [line.split("=")[0].strip() for line in lines if "=" in line]


def test_module_help_names_every_installed_command(capsys):
    from cpsd_tasks.__main__ import COMMANDS, main

    assert sorted(COMMANDS) == sorted(console_scripts())
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m cpsd_tasks {path,version,--help}\n")
    for name, what in COMMANDS.items():
        assert f"  {name}" in out and what in out
    assert main(["-h"]) == 0 and capsys.readouterr().out == out
    assert main(["nope"]) == 2 and "usage" in capsys.readouterr().err


def test_console_scripts_point_at_existing_functions():
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg", encoding="utf-8")
    for line in cfg["options.entry_points"]["console_scripts"].strip().splitlines():
        target = line.split("=", 1)[1].strip()
        module, func = target.split(":")
        assert callable(getattr(importlib.import_module(module), func)), target


@pytest.mark.e2e
def test_python_m_cpsd_tasks_help_exits_0():
    proc = subprocess.run([sys.executable, "-m", "cpsd_tasks", "--help"], capture_output=True, text=True)
    assert proc.returncode == 0 and "cpsd-eval" in proc.stdout and proc.stderr == ""
