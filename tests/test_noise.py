"""Harness noise removed from cpsd runs (cpsd_tasks/cli/quiet.py), and a run outside a git checkout."""

from __future__ import annotations

import logging

import pytest

from cpsd_tasks.cli import quiet

from conftest import run_cpsd_eval


def test_metadata_note_dropped_for_cpsd_tasks_only():
    f = quiet.MetadataNoteFilter()

    def rec(msg):
        return logging.LogRecord("lm_eval.api.task", logging.WARNING, __file__, 1, msg, None, None)

    note = f"{quiet.METADATA_NOTE} in console (as json string) or to the TaskManager."
    assert not f.filter(rec(f"cpsd_rumor: {note}"))
    assert f.filter(rec(f"ruler_niah: {note}"))
    assert f.filter(rec("cpsd_rumor: something else"))


@pytest.mark.e2e
def test_run_outside_a_checkout_has_no_git_fatal_and_no_metadata_notes(tmp_path, baseline_url, hf_home):
    run = run_cpsd_eval("cpsd_clf", baseline_url, tmp_path / "out", hf_home, extra=("--limit", "1"),
                        cwd=tmp_path)
    err = run["stderr"]
    assert "fatal: not a git repository" not in err
    assert quiet.METADATA_NOTE not in err and "max_seq_lengths" not in err
    assert "cpsd_rumor: using the embedded DEMO data" in err  # our own line stays
    assert run["results"].get("git_hash") is None
