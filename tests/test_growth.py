"""The growth check of tests/growth.py tells linear from quadratic code (so a pass means something)."""

import pytest

from growth import BOUND, assert_linear, growth_ratio


def linear(text: str) -> int:
    return sum(1 for ch in text if ch == "a")


def quadratic(text: str) -> int:
    return sum(1 for i in range(len(text)) for j in range(0, len(text), 8) if text[i] == text[j])


@pytest.mark.slow
def test_linear_code_passes():
    assert assert_linear(linear, lambda n: "ab" * n, 20_000) < BOUND


@pytest.mark.slow
def test_quadratic_code_fails():
    assert growth_ratio(quadratic, lambda n: "ab" * n, 200) > BOUND
    with pytest.raises(AssertionError, match="quadratic"):
        assert_linear(quadratic, lambda n: "ab" * n, 200, what="quadratic")
