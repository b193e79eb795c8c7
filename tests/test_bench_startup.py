"""benchmarks.startup: interleaved before/after pairs, medians, ratios, table rows (the runs
themselves are stubbed; the real ones take a minute or two)."""

from __future__ import annotations

import pytest

from benchmarks import PARTS, cli, report, startup

MIB = 2 ** 20


def test_startup_pairs_interleaved_and_summarised():
    order = startup.pair_order(3)
    assert order == ["before", "after", "after", "before", "before", "after"]
    fake = {"before": {"first_request": 10.0, "wall": 20.0, "cpu": 18.0, "maxrss": 600 * MIB},
            "after": {"first_request": 2.5, "wall": 8.0, "cpu": 9.0, "maxrss": 500 * MIB}}
    runs, seen = [], []
    for variant in order:  # each variant's runs at -0.1, 0, +0.1 s around its figures: the median is the figure
        seen.append(variant)
        shift = (seen.count(variant) - 2) * 0.1
        runs.append({"variant": variant, "requests": 12,
                     **{k: v + shift if k != "maxrss" else v for k, v in fake[variant].items()}})
    out = startup.summarise(runs, pairs=3)
    assert out["first_request"] == {"before_seconds": 10.0, "after_seconds": 2.5, "ratio": 0.25}
    assert out["wall"]["ratio"] == pytest.approx(0.4) and out["cpu"]["ratio"] == pytest.approx(0.5)
    assert out["peak_rss_bytes"] == {"before": 600 * MIB, "after": 500 * MIB}
    text = report.table({"startup": out})
    assert "launch → first request" in text and "10.0 s / 2.5 s = 0.25×" in text
    assert "20.0 → 8.0 s (0.40×) / 18.0 → 9.0 s (0.50×)" in text
    assert "600 MiB / 500 MiB" in text


def test_startup_is_a_part(capsys):
    assert "startup" in PARTS
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--help"])
    assert exit_.value.code == 0
    assert "--startup-pairs" in capsys.readouterr().out
