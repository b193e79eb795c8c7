"""The reader's version follows its readings (issue 24): a change that alters a reading of the real-output
audit must bump :data:`cpsd_tasks.reading.READER_VERSION` and add a ``CHANGELOG.md`` line.

:data:`PINNED` holds, for one reader version, the digest of the readings of a fixed sample of the audit's
corpus (``../shared/realout/lawbench``: every model's answers to every single-choice item, 34,000
outputs; the other corpora are counted by ``scripts/reading_snapshot.py``). When the readings
change and the version does not, :func:`test_pinned_readings_follow_the_version` fails; when the
version changes, ``PINNED`` is updated with it (the new digest is in the failure message).
Skips, with that reason, when the corpus is absent.
"""

from __future__ import annotations

import re

import pytest

from cpsd_tasks import audit
from cpsd_tasks.options import digest
from cpsd_tasks.reading import READER_VERSION
from cpsd_tasks.reading.letters import read_choices
from cpsd_tasks.specs import METRICS_VERSION

from conftest import ROOT

CORPUS = (ROOT.parent / "shared" / "realout" / "lawbench").resolve()
CHANGELOG = ROOT / "CHANGELOG.md"

#: The reader version and the digest of its readings of the sample (:func:`sample_digest`).
PINNED = {"reader": "11", "readings": 34000, "digest": "sha256:da32bfd442a5bb6a"}


def sample_digest(corpus: audit.Corpus) -> tuple[int, str]:
    """``(number of readings, digest)`` of every model's reading of every single-choice item: one
    ``model, id, letters, turn`` line per reading, in sorted order."""
    lines = []
    for model in sorted(corpus.outputs):
        for item in sorted(corpus.questions):
            doc = corpus.questions[item]
            read = read_choices(corpus.outputs[model].get(item), doc["options"], doc["question"])
            lines.append(f"{model}\t{item}\t{read.letters}\t{read.turn}")
    return len(lines), digest(lines)


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"real-output corpus {CORPUS} not present")
def test_pinned_readings_follow_the_version():
    count, found = sample_digest(audit.load_corpus(CORPUS))
    if READER_VERSION != PINNED["reader"]:
        pytest.fail(f"READER_VERSION is {READER_VERSION}, PINNED names {PINNED['reader']}: pin the new version "
                    f"with its readings: PINNED = {{'reader': {READER_VERSION!r}, 'readings': {count}, "
                    f"'digest': {found!r}}}")
    assert (count, found) == (PINNED["readings"], PINNED["digest"]), (
        f"the readings of the pinned sample changed ({found}) while READER_VERSION stayed {READER_VERSION}: "
        "count the changed readings (scripts/reading_snapshot.py), bump READER_VERSION, add a CHANGELOG.md "
        "line and the affected tasks' metadata.version, then pin the new digest")


def test_changelog_names_the_current_versions():
    text = CHANGELOG.read_text(encoding="utf-8")
    heads = re.findall(r"^## reader (\S+), metrics (\S+)", text, re.MULTILINE)
    assert heads, "CHANGELOG.md has no '## reader N, metrics M' entry"
    assert heads[0] == (READER_VERSION, METRICS_VERSION), \
        "the newest CHANGELOG.md entry must name the current versions"
    newest = text.split("\n## ")[1]
    assert re.search(r"(?i)readings changed:\s+[\d,]+\s+of\s+[\d,]+", newest), "the entry must count the readings"
