"""Graded-set scoring of every corpus: the plugin's and the peers' readings against the graders'.

A graded set (``tests/data/graded_<corpus>.jsonl``) holds, per item, ``set``, ``model``, ``id``,
``answer`` (the graders' reading: sorted letters, a label word, or ``NONE``), ``settled`` and, for
choice items, ``multi`` — never the outputs, which stay in the corpus. The graders' conventions are in
``docs/answer_reading.md`` ("Graders' conventions"). Each reader's readings are counted with
:class:`cpsd_tasks.audit.lawbench.ReadingScore` (accuracy, false credit, missed, wrong, score changed).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Optional, Sequence

from cpsd_tasks.audit.corpora import PEERS_AT, RealCorpus, peers_of
from cpsd_tasks.audit.lawbench import ReadingScore, load_graded

#: The graded set of each corpus, relative to the project root.
GRADED_FILES = {"lawbench": Path("tests") / "data" / "graded_single_choice.jsonl",
                "disc": Path("tests") / "data" / "graded_disc.jsonl",
                "lexeval": Path("tests") / "data" / "graded_lexeval.jsonl",
                "lawbench_tasks": Path("tests") / "data" / "graded_lawbench_tasks.jsonl"}


#: The sets read first by a frozen reader (graded while that reader version was fixed, read once before
#: any of their items was looked at): ``{set: reader version}``. The other sets were used to find kinds.
FIRST_READS = {"heldout19": "1", "heldout20": "1", "heldout21": "1",
               "disc4": "2", "disc5": "2", "disc6": "2", "lexeval4": "2", "lexeval5": "2",
               "argument3": "2", "labels3": "2",
               "disc7": "3", "lexeval6": "3", "argument4": "3", "labels4": "3",
               "disc8": "4", "lexeval7": "4", "argument5": "4", "labels5": "4", "disc9": "4", "lexeval8": "4",
               "argument6": "5", "labels6": "5", "disc10": "6", "lexeval9": "6",
               "disc11": "7", "lexeval10": "7", "argument7": "7", "labels7": "7",
               "argument8": "10", "labels8": "10"}


def split_of(item: dict) -> str:
    """The split a graded item is counted in: ``single``, ``multi`` or ``label``."""
    if item["kind"] == "label":
        return "label"
    return "multi" if item["multi"] else "single"


#: Graded scores: ``{(set or "all", split): {"plugin" or peer name: ReadingScore}}``.
GradedScores = dict[tuple[str, str], dict[str, ReadingScore]]


def score_graded_items(corpus: RealCorpus, graded: Sequence[dict],
                       read: dict[str, dict[str, list]]) -> tuple[GradedScores, list[str]]:
    """Every reader's readings against the graded ones.

    Args:
        corpus: the loaded corpus. graded: graded rows. read: :func:`~cpsd_tasks.audit.corpora.readings`.

    Returns:
        ``({(set or "all", split): {"plugin" or peer name: ReadingScore}}, problems)`` — ``problems``
        names each graded row whose model or item is not in the corpus (counted, never dropped silently).
    """
    out: GradedScores = defaultdict(dict)
    problems = []
    for row in graded:
        item = corpus.items.get(row["id"])
        reading = read.get(row["model"], {}).get(row["id"])
        if item is None or reading is None:
            problems.append(f"{row['set']} {row['model']} {row['id']}: not in the corpus")
            continue
        for name in (row["set"], "all"):
            scores = out[(name, split_of(item))]
            scores.setdefault("plugin", ReadingScore()).add(reading[0], row["answer"], item["gold"], bool(reading[1]))
            for peer, peer_read in zip(peers_of(corpus.name, item), reading[PEERS_AT:]):
                scores.setdefault(peer.name, ReadingScore()).add(
                    peer.letters(peer_read), row["answer"], item["gold"], bool(peer.credited(peer_read, item)))
    return dict(out), problems


def load_graded_of(corpus: str, root: Path) -> Optional[list[dict]]:
    """The graded rows of ``corpus`` under the project ``root``, or ``None`` when its file is absent."""
    path = root / GRADED_FILES[corpus]
    return load_graded(path) if path.is_file() else None
