"""The fast loop (``pytest -m "not e2e"``) holds unit tests only: the ``e2e`` mark (pyproject.toml)
is on every test that starts a process or builds a model, and this file checks it.

Each selected test not marked ``e2e`` is read as code, not text: the names its function uses, and
those of every function under ``tests/`` it reaches by name (helpers such as ``run_cpsd_eval``,
``python`` or ``build_tiny_bert``) and of its fixtures (``two_runs`` …), followed transitively.
A process is started by a name in :data:`PROCESS` (``subprocess``, ``Popen``, ``multiprocessing``,
``run_child`` of benchmarks.children); a model is built by ``save_pretrained``, which only a
session-scoped fixture may do (the cached tiny BERT of test_generation.py). Comments and docstrings
are not code, so "a subprocess" in a docstring never counts.

What it cannot see: a process started by code outside ``tests/`` that the test reaches only through
an attribute (``module.function``) whose name is not listed, or by ``os.system`` (``system`` is too
common a name to list). Tests marked ``e2e`` for a whole-data pass are not its business. Run alone,
the check covers only this file; in the fast loop or the full suite it covers every selected test.
"""

from __future__ import annotations

import inspect
import types
from pathlib import Path
from typing import Callable, Iterator

import pytest

TESTS = Path(__file__).resolve().parent
#: Names whose use starts a process (module, class, function or method names as the code spells them).
PROCESS = frozenset({"subprocess", "Popen", "multiprocessing", "run_child"})
#: Names whose use builds (writes) a model.
MODEL = frozenset({"save_pretrained"})


def _names(code: types.CodeType) -> Iterator[str]:
    """Global and attribute names used by ``code`` and by the code nested in it (lambdas, inner
    functions, comprehensions)."""
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names(const)


def _own_functions(fn: Callable) -> Iterator[types.FunctionType]:
    """``fn`` and every function defined under tests/ that it reaches through global names."""
    seen: set = set()
    todo = [fn]
    while todo:
        f = inspect.unwrap(todo.pop())
        if not isinstance(f, types.FunctionType) or f in seen:
            continue
        seen.add(f)
        source = inspect.getsourcefile(f)
        if source is None or TESTS not in Path(source).resolve().parents:
            continue
        yield f
        todo.extend(f.__globals__[name] for name in _names(f.__code__)
                    if isinstance(f.__globals__.get(name), types.FunctionType))


def reasons(fn: Callable, may_build_model: bool = False) -> set[str]:
    """Why ``fn`` is not unit-test code: ``"<function> starts a process"`` or ``"<function>
    builds a model"``, one entry per function under tests/ that does it; empty if neither."""
    found = set()
    for f in _own_functions(fn):
        names = set(_names(f.__code__))
        if names & PROCESS:
            found.add(f"{f.__qualname__} starts a process ({', '.join(sorted(names & PROCESS))})")
        if names & MODEL and not may_build_model:
            found.add(f"{f.__qualname__} builds a model")
    return found


def item_reasons(item: pytest.Item) -> set[str]:
    """:func:`reasons` for a collected test: its function and all the fixtures it uses."""
    found = reasons(item.function)
    for defs in item._fixtureinfo.name2fixturedefs.values():  # noqa: SLF001 - pytest's own record
        for fixture in defs:
            found |= reasons(fixture.func, may_build_model=fixture.scope == "session")
    return found


def test_no_unit_test_starts_a_process_or_builds_a_model(request):
    offenders = {}
    for item in request.session.items:
        # This file's self-tests name the samples below without calling them: not read.
        if isinstance(item, pytest.Function) and not item.get_closest_marker("e2e") \
                and item.module.__name__ != __name__:
            found = item_reasons(item)
            if found:
                offenders[item.nodeid.split("[")[0]] = sorted(found)
    assert offenders == {}, "mark these @pytest.mark.e2e (or make them unit tests): " + repr(offenders)


# --------------------------------------------------------------------------- the check itself can fail

def _starts_a_child():
    import subprocess

    return subprocess.run(["true"], check=False)


def _calls_a_helper_that_starts_a_child():
    return [_starts_a_child() for _ in range(1)]  # inside a comprehension, through a helper


def _builds(model, out):
    model.save_pretrained(out)


def _pure():
    """Docstrings and comments may say subprocess.run or save_pretrained: they are not code."""
    return sum(range(3))  # subprocess.Popen here is a comment


def test_the_check_follows_helpers_and_ignores_prose():
    assert reasons(_starts_a_child) == {"_starts_a_child starts a process (subprocess)"}
    assert reasons(_calls_a_helper_that_starts_a_child) == {"_starts_a_child starts a process (subprocess)"}
    assert reasons(lambda: _calls_a_helper_that_starts_a_child()) == {
        "_starts_a_child starts a process (subprocess)"}
    assert reasons(_builds) == {"_builds builds a model"}
    assert reasons(_builds, may_build_model=True) == set()
    assert reasons(_pure) == set()
    assert reasons(len) == set()  # not Python code under tests/: not read


def test_the_check_knows_the_project_s_process_starters():
    from conftest import run_cpsd_eval

    assert reasons(run_cpsd_eval) == {"run_cpsd_eval starts a process (subprocess)"}
