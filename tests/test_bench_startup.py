"""scripts/bench.py's start-up part: interleaved before/after pairs, medians, ratios, table rows
(the runs themselves are stubbed; the real ones take a minute or two)."""

from __future__ import annotations

import argparse

import pytest


def test_startup_pairs_interleaved_and_summarised(bench, monkeypatch):
    calls = []
    fake = {"before": {"first_request": 10.0, "wall": 20.0, "cpu": 18.0, "maxrss": 600 * 2 ** 20},
            "after": {"first_request": 2.5, "wall": 8.0, "cpu": 9.0, "maxrss": 500 * 2 ** 20}}

    def startup_run(ctx, server, variant):
        calls.append(variant)
        n = calls.count(variant)
        return {"variant": variant, "requests": 12, **{k: v + (n - 2) * 0.1 if k != "maxrss" else v
                                                       for k, v in fake[variant].items()}}

    monkeypatch.setattr(bench, "startup_run", startup_run)
    out = bench.part_startup({"args": argparse.Namespace(startup_pairs=3)})
    assert calls == ["before", "after", "after", "before", "before", "after"]
    assert out["first_request"] == {"before_seconds": 10.0, "after_seconds": 2.5, "ratio": 0.25}
    assert out["wall"]["ratio"] == pytest.approx(0.4) and out["cpu"]["ratio"] == pytest.approx(0.5)
    text = bench.table({"startup": out})
    assert "launch → first request" in text and "10.0 s / 2.5 s = 0.25×" in text
    assert "600 MiB / 500 MiB" in text


def test_startup_is_a_part(bench, capsys):
    assert "startup" in bench.PARTS
    with pytest.raises(SystemExit):
        bench.main(["--help"])
    assert "--startup-pairs" in capsys.readouterr().out
