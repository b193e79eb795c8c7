"""Answer reading: what a model answered, read from its raw output as a careful human reader would.

One package holds every reader, in layers (each imports only the ones above it):

* :mod:`~cpsd_tasks.reading.lexicon` — the word lists the readers share, each spelled once, and
  :mod:`~cpsd_tasks.reading.patterns`, the builders that make patterns of them;
* :mod:`~cpsd_tasks.reading.prepare` — ``<think>`` blocks, NFKC, Traditional folding, bracketed
  declarations, markup, edges;
* :mod:`~cpsd_tasks.reading.turns` — end markers, role markers, new questions: the model's own turn;
* :mod:`~cpsd_tasks.reading.normalize` — the normalised answer every comparison uses;
* :mod:`~cpsd_tasks.reading.refusals` — refusals (broad and clear);
* the readers: :mod:`~cpsd_tasks.reading.labels` (closed labels), :mod:`~cpsd_tasks.reading.judgements`
  (判断), :mod:`~cpsd_tasks.reading.spans` (names of a span answer) and the option-letter reader
  :mod:`~cpsd_tasks.reading.letters`, an ordered tuple of named rules (:data:`RULES`) over
  :mod:`~cpsd_tasks.reading.question` (the question as the rules compare it),
  :mod:`~cpsd_tasks.reading.declarations` (rule ``declared``), :mod:`~cpsd_tasks.reading.verdicts`
  (rule ``verdicts``) and :mod:`~cpsd_tasks.reading.option_text` (rule ``option_text``).

:data:`READER_VERSION` names the readings: every change that alters a reading of the real-output
audit bumps it and adds a line to ``CHANGELOG.md`` (``tests/test_reader_version.py`` fails when the
pinned readings change and the version does not). All readers are pure, accept ``None`` (a missing
answer) and never raise on model output.
"""

from __future__ import annotations

from cpsd_tasks.reading.judgements import read_judgement
from cpsd_tasks.reading.labels import read_label, strict_label, unread_label_reason
from cpsd_tasks.reading.letters import (
    ChoiceReading,
    extract_choices,
    lawbench_rule,
    letters_of,
    read_choices,
)
from cpsd_tasks.reading.normalize import drop_questions, normalize, unwrap
from cpsd_tasks.reading.prepare import answer_text, fold_traditional, strip_think
from cpsd_tasks.reading.refusals import is_clear_refusal, is_refusal
from cpsd_tasks.reading.spans import name_set
from cpsd_tasks.reading.turns import first_turn, own_turn, turns, written_turn

#: Version of the readers: bumped by every change that alters any reading of the real-output audit
#: (``scripts/reading_snapshot.py`` counts them), with a ``CHANGELOG.md`` line ("readings changed: N of
#: M") and the affected tasks' ``metadata.version``. Part of each task's scoring signature.
READER_VERSION = "11"

__all__ = [
    "READER_VERSION", "ChoiceReading", "answer_text", "drop_questions", "extract_choices", "first_turn", "fold_traditional",
    "is_clear_refusal", "is_refusal", "lawbench_rule", "letters_of", "name_set", "normalize", "own_turn",
    "read_choices", "read_judgement", "read_label", "strict_label", "unread_label_reason", "strip_think", "turns", "unwrap",
    "written_turn",
]
