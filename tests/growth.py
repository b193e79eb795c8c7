"""Linear-time checks that do not depend on the machine's load (issue 12, case 10).

A test never asserts a wall-clock budget: on a busy 2-core machine any budget fails sooner or
later. It compares growth instead, in one run: the time of ``fn(make(n))`` against the time of
``fn(make(factor · n))``. Linear code gives a ratio near ``factor`` (4), quadratic code
``factor²`` (16); the bound (8) sits between them with room for noise. Each side is timed in CPU
time of the calling thread (``time.thread_time``: waiting for a core is not counted), as the
minimum over alternating single calls with the garbage collector off, so neither other processes
nor a collection inflate one side alone. Absolute budgets (the seconds a
100,000-character output may take) live in ``benchmarks/adversarial.py`` (``python -m benchmarks``).
"""

from __future__ import annotations

import gc
import time
from typing import Any, Callable

FACTOR = 4
BOUND = 8.0


def _seconds(fn: Callable[[Any], Any], arg: Any, loops: int) -> float:
    """CPU seconds of this thread for ``loops`` calls, with the garbage collector off (as
    ``timeit`` does: a collection's cost depends on every live object in the process, not on the
    input). CPU time, not wall time: time spent waiting for a core while other processes run is
    not counted, so a loaded machine slows neither side."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        started = time.thread_time()
        for _ in range(loops):
            fn(arg)
        return time.thread_time() - started
    finally:
        if enabled:
            gc.enable()


#: Pairs taken before a clear ratio stops the sampling (more are taken while it is not clear).
MIN_PAIRS = 3


def growth_ratio(fn: Callable[[Any], Any], make: Callable[[int], Any], n: int, factor: int = FACTOR,
                 max_seconds: float = 3.0, max_pairs: int = 200) -> float:
    """``time(fn(make(factor·n))) / time(fn(make(n)))``, each the minimum over single calls.

    Calls alternate small, large, small, … so cache and frequency changes hit both sides; the
    minimum of several single calls is the cost without such noise. Sampling stops at the first
    of: the ratio is clear (linear: ``0.5 ≤ ratio < 0.75·BOUND``; quadratic: ``> 1.5·BOUND``)
    after ``MIN_PAIRS`` pairs, or after 2 pairs once ``max_seconds`` of CPU are spent (a slow
    case costs a few calls); ``max_seconds`` spent after ``MIN_PAIRS`` pairs, clear or not;
    ``max_pairs`` pairs. A ratio between the two clear ranges keeps sampling until then, so only
    a clear answer is taken early; the bound the caller asserts is unchanged.

    Args:
        fn: the function under test (called with one argument). make: builds an input of size n.
        n: the smaller size. factor: growth of the input. max_seconds: CPU seconds after which
        sampling stops. max_pairs: most pairs taken.

    Returns:
        The ratio of the minimum times (about ``factor`` for linear code, ``factor²`` for quadratic).
    """
    small, large = make(n), make(factor * n)
    fn(small)  # warm-up: imports, compiled regexes, dictionaries (the large side shares them)
    best_small = best_large = float("inf")
    spent = 0.0
    for pairs in range(1, max_pairs + 1):
        t_small, t_large = _seconds(fn, small, 1), _seconds(fn, large, 1)
        best_small, best_large = min(best_small, t_small), min(best_large, t_large)
        spent += t_small + t_large
        ratio = best_large / max(best_small, 1e-9)
        # Clear either way (below 0.5 the small side was interrupted: not clear).
        clear = 0.5 <= ratio < BOUND * 0.75 or ratio > BOUND * 1.5
        if pairs >= MIN_PAIRS and (clear or spent > max_seconds):
            break
        if pairs >= 2 and spent > max_seconds and clear:
            break  # slow calls: a few are enough once the answer is clear
    return ratio


def assert_linear(fn: Callable[[Any], Any], make: Callable[[int], Any], n: int, factor: int = FACTOR,
                  bound: float = BOUND, what: str = "") -> float:
    """Assert that ``fn`` grows at most about linearly in its input from ``n`` to ``factor·n``.

    Raises:
        AssertionError: the ratio is ``bound`` or more (quadratic growth gives ``factor²``).
    """
    ratio = growth_ratio(fn, make, n, factor)
    assert ratio < bound, (f"{what or getattr(fn, '__name__', 'fn')}: ×{factor} input took ×{ratio:.1f} time "
                           f"(linear ≈ {factor}, quadratic ≈ {factor ** 2}; bound {bound})")
    return ratio
