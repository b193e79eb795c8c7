"""Markdown tables of the disc, lexeval and lawbench_tasks audit (model table, gaps by kind, graded figures)."""

from __future__ import annotations

from typing import Optional

from cpsd_tasks.audit.corpora import NOT_READ, RealCorpus
from cpsd_tasks.audit.lawbench import EXPLAIN_ABOVE, ReadingScore

#: What each corpus's groups are called in its table.
GROUP_TITLES = {"single": "单选", "multi": "多选", "2-2": "2-2 label", "2-4": "2-4 label", "2-8": "2-8 A–E",
                "2-5": "2-5 精确", "2-6": "2-6 NER"}


def _fmt(value: Optional[float]) -> str:
    return "—" if value is None else f"{value:.3f}"


def _peer_names(rows: list[dict]) -> list[str]:
    names: list[str] = []
    for row in rows:
        for key in row:
            if key not in ("model", "group", "n", "plugin", "published", "kinds", "gold_lines", "ner") \
                    and key not in names:
                names.append(key)
    return names


def render_models(corpus: RealCorpus, rows: list[dict]) -> str:
    """The per-model table: one line per model and group, the plugin beside each peer rule and the
    published figure; then every gap over :data:`EXPLAIN_ABOVE`, explained by the kinds of item."""
    peers = _peer_names(rows)
    published = any(row["published"] is not None for row in rows)     # lexeval publishes no per-model table
    lines = [f"## {corpus.name}: plugin vs peer, {len({r['model'] for r in rows})} models", "",
             "| model | items | kind | plugin | " + " | ".join(f"{p} rule" for p in peers)
             + (" | published |" if published else " |"),
             "|---|---:|---|---:|" + "---:|" * (len(peers) + published)]
    notes = []
    for row in sorted(rows, key=lambda r: (r["model"].lower(), r["group"])):
        figures = " | ".join(_fmt(row.get(p)) for p in peers + (["published"] if published else []))
        lines.append(f"| {row['model']} | {row['n']} | {GROUP_TITLES.get(row['group'], row['group'])} | "
                     f"{_fmt(row['plugin'])} | {figures} |")
        note = _explain(row, peers)
        if note:
            notes.append(note)
    lines += ["", f"Plugin figures more than {EXPLAIN_ABOVE} from the {peers[0] if peers else 'peer'} rule"
              + (" or the published figure" if published else "")
              + ", by kind (items where the plugin's verdict and that rule differ):", ""]
    lines += notes or ["- none"]
    lines += _gold_lines(rows)
    if "2-5" in {r["group"] for r in rows}:
        lines += ["", "2-5: the plugin's 精确 accuracy beside LawBench's published character F1 (different "
                  "measures; not explained per model)."]
    if "2-6" in {r["group"] for r in rows}:
        from cpsd_tasks.audit.ner import summary

        lines += ["", summary([r for r in rows if r["group"] == "2-6"])]
    if corpus.name in NOT_READ:
        lines += ["", NOT_READ[corpus.name] + "."]
    return "\n".join(lines)


def _explain(row: dict, peers: list[str]) -> str:
    if row["group"] == "2-5" or not peers:
        return ""
    if row["group"] == "2-6":
        from cpsd_tasks.audit.ner import explain

        gaps = [abs(row["plugin"] - row["LawBench"])] + ([] if row["published"] is None
                                                        else [abs(row["plugin"] - row["published"])])
        return explain(row) if max(gaps) > EXPLAIN_ABOVE else ""
    peer, published = row.get(peers[0]), row["published"]
    gaps = [abs(row["plugin"] - peer)] if peer is not None else []
    if published is not None:
        gaps.append(abs(row["plugin"] - published))
    if not gaps or max(gaps) <= EXPLAIN_ABOVE:
        return ""
    parts = [f"{count} {kind}" for kind, count in row["kinds"].most_common()]
    title = GROUP_TITLES.get(row["group"], row["group"])
    figures = f"plugin {row['plugin']:.3f}, {peers[0]} {_fmt(peer)}" + (
        "" if published is None else f", published {published:.3f}")
    return f"- {row['model']} {title}: {figures} — " + ("; ".join(parts) or "no item differs from the rule")


def render_graded(corpus: RealCorpus, scores: dict[tuple[str, str], dict[str, ReadingScore]],
                  problems: list[str]) -> str:
    """The graded-set table: per set and split (then all sets), each reader's figures."""
    lines = [f"### {corpus.name}: reading against the graded set", "",
             "| set | split | items | reader | accuracy | false credit | missed | wrong | score changed |",
             "|---|---|---:|---|---:|---:|---:|---:|---:|"]
    keys = sorted(k for k in scores if k[0] != "all") + sorted(k for k in scores if k[0] == "all")
    for name, split in keys:
        for reader, s in scores[(name, split)].items():
            lines.append(f"| {name} | {split} | {s.n} | {reader} | {s.accuracy:.4f} | {s.false_credit} | "
                         f"{s.missed} | {s.wrong_letters} | {s.credit_differs} ({s.credit_differs / s.n:.1%}) |")
    lines += ["", "*score changed*: items whose credit under the reader differs from the credit of the graded "
              "reading (count and share of the items)."]
    if problems:
        lines += ["", f"{len(problems)} graded rows not in the corpus: " + "; ".join(problems[:5])]
    return "\n".join(lines)


def _gold_lines(rows: list[dict]) -> list[str]:
    """The line on replies that are exactly the gold options' lines, per kind (when there are any)."""
    parts = []
    for group in sorted({r["group"] for r in rows}):
        replies = sum(r["gold_lines"][0] for r in rows if r["group"] == group)
        credited = sum(r["gold_lines"][1] for r in rows if r["group"] == group)
        if replies:
            parts.append(f"{GROUP_TITLES.get(group, group)} {credited} of {replies} ({credited / replies:.1%})")
    if not parts:
        return []
    return ["", "Replies that are exactly the gold options' lines (one line per gold letter, the letter and the "
            "option's own text), credited by the plugin: " + "; ".join(parts) + "."]


#: The marker that opens the block ``cpsd-audit-reading --into FILE`` writes (closed by :data:`BLOCK_END`).
BLOCK_BEGIN = "<!-- figures: begin — printed by `cpsd-audit-reading --into"
BLOCK_END = "<!-- figures: end -->"


def _table_rows(report: str, keep) -> list[str]:
    """The graded tables of ``report`` cut to the rows whose set ``keep`` accepts: each table's title
    (a ``#`` line above it), header and kept rows."""
    out: list[str] = []
    title = ""
    for line in report.splitlines():
        if line.startswith("#"):
            title = line.lstrip("# ")
        elif line.startswith("| set |") or line.startswith("|---"):
            if line.startswith("| set |") and "graded" in title.lower():
                out += ["", f"{title}:", "", line]
            elif out and out[-1].startswith("| set |"):
                out.append(line)
        elif line.startswith("| ") and out and "graded" in title.lower() and keep(line.split("|")[1].strip()):
            out.append(line)
    return out


def docs_block(report: str, first_reads: dict[str, str], command: str) -> str:
    """The figures block of docs/answer_reading.md, cut from a ``cpsd-audit-reading`` report: every
    corpus's graded rows for all sets, the sets read first by a frozen reader (and which), the lines on
    replies that are exactly the gold options' lines, and the run's timing line."""
    lines = [f"{BLOCK_BEGIN} {command}`; regenerate them, never edit by hand -->",
             "Graded figures of all sets together, per corpus (the reader as installed):"]
    lines += _table_rows(report, lambda name: name == "all")
    lines += ["", "Sets read first by a frozen reader (" + ", ".join(f"{name}: reader {version}" for name, version
                                                                     in first_reads.items()) + "), as read now:"]
    lines += _table_rows(report, lambda name: name in first_reads)
    lines += [""] + [line for line in report.splitlines() if line.startswith("Replies that are exactly")]
    lines += [""] + [line for line in report.splitlines() if line.startswith("Audit of ")]
    return "\n".join(lines + [BLOCK_END])


def write_block(path, block: str) -> None:
    """Replace the block between :data:`BLOCK_BEGIN` … :data:`BLOCK_END` in the file at ``path`` by ``block``.

    Raises:
        ValueError: the file holds no such block (one line naming the file).
    """
    from pathlib import Path

    text = Path(path).read_text(encoding="utf-8")
    start = text.find(BLOCK_BEGIN)
    end = text.find(BLOCK_END, start)
    if start < 0 or end < 0:
        raise ValueError(f"{path}: no '{BLOCK_BEGIN} …' … '{BLOCK_END}' block to fill")
    Path(path).write_text(text[:start] + block + text[end + len(BLOCK_END):], encoding="utf-8")


_HEADLINE_NAMES = {("disc", "multi"): "DISC-Law-Eval several answers", ("disc", "single"): "DISC-Law-Eval one answer",
                   ("lexeval", "multi"): "LexEval several answers", ("lexeval", "single"): "LexEval one answer",
                   ("lawbench_tasks", "single"): "LawBench 2-8 (A–E)",
                   ("lawbench_tasks", "label"): "LawBench 2-2/2-4 labels"}


def headline(report: str, command: str) -> str:
    """The README's figures block: per corpus, the plugin's agreement with the graders on all graded
    sets and the items whose score the reading changes (from a ``cpsd-audit-reading`` report)."""
    parts, corpus = [], "lawbench"
    for line in report.splitlines():
        if line.startswith("### "):
            corpus = line[4:].split(":")[0]
        cells = [c.strip() for c in line.split("|")[1:-1]]
        if len(cells) == 8 and cells[0] == "all" and cells[2] == "plugin":        # lawbench's table
            parts.append(f"LawBench single choice {float(cells[3]):.1%} of {int(cells[1]):,} "
                         f"(score changed on {cells[7]})")
        elif len(cells) == 9 and cells[0] == "all" and cells[3] == "plugin":
            name = _HEADLINE_NAMES.get((corpus, cells[1]), f"{corpus} {cells[1]}")
            parts.append(f"{name} {float(cells[4]):.1%} of {int(cells[2]):,} "
                         f"(score changed on {cells[8].split(' ')[0]})")
    return (f"{BLOCK_BEGIN} {command}`; regenerate them, never edit by hand -->\n"
            "Agreement with two human graders (a third settling), on every human-graded set of real LLM answers: "
            + "; ".join(parts) + ".\n" + BLOCK_END)
