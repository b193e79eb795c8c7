"""Linear-time checks that do not depend on the machine's load (issue 12, case 10).

A test never asserts a wall-clock budget: on a busy 2-core machine any budget fails sooner or
later. It compares growth instead, in one run: the time of ``fn(make(n))`` against the time of
``fn(make(factor · n))``. Linear code gives a ratio near ``factor`` (4), quadratic code
``factor²`` (16); the bound (8) sits between them with room for noise. Each side is timed as the
minimum of a few alternating repeats, so a scheduler stall inflates neither side alone, and a fast
call is looped until one measurement takes a measurable time. Absolute budgets (the seconds a
100,000-character output may take) live in ``scripts/bench.py``.
"""

from __future__ import annotations

import time
from typing import Any, Callable

FACTOR = 4
BOUND = 8.0


def _seconds(fn: Callable[[Any], Any], arg: Any, loops: int) -> float:
    started = time.perf_counter()
    for _ in range(loops):
        fn(arg)
    return time.perf_counter() - started


def growth_ratio(fn: Callable[[Any], Any], make: Callable[[int], Any], n: int, factor: int = FACTOR,
                 repeats: int = 5, min_seconds: float = 0.01) -> float:
    """``time(fn(make(factor·n))) / time(fn(make(n)))``, each the minimum of ``repeats`` runs.

    Args:
        fn: the function under test (called with one argument). make: builds an input of size n.
        n: the smaller size. factor: growth of the input. repeats: alternating measurements per
            size. min_seconds: a call of the small input is looped until it takes this long.

    Returns:
        The ratio of the minimum times (both sides looped the same number of times).
    """
    small, large = make(n), make(factor * n)
    fn(small)  # warm-up: imports, compiled regexes, dictionaries (the large side shares them)
    loops = 1
    while _seconds(fn, small, loops) < min_seconds and loops < 4096:
        loops *= 2
    best_small = best_large = float("inf")
    for i in range(repeats):
        best_small = min(best_small, _seconds(fn, small, loops))
        best_large = min(best_large, _seconds(fn, large, loops))
        ratio = best_large / max(best_small, 1e-9)
        if i >= 1 and not BOUND * 0.75 <= ratio <= BOUND * 1.5:  # clear either way: a slow (quadratic)
            break                                                  # case fails without 5 slow repeats
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
