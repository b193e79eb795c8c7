"""The docs ship their definitions: README stays short, every cited docs anchor and relative link exists,
every block of figures names the command that prints it, and no reference to the unshipped specification
comes back (docs/development.md, "Keeping the docs true")."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README_MAX_LINES = 300

#: Markdown pages of the project (the package's own README included).
PAGES = sorted({ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / "ARCHITECTURE.md",
                *(ROOT / "docs").rglob("*.md"), *(ROOT / "cpsd_tasks").rglob("*.md")})
#: Text files that may cite a docs page: code, YAML, shipped data notes, tests, scripts.
SOURCES = sorted(p for pattern in ("*.py", "*.yaml", "*_yaml", "*.json", "*.html", "*.js", "*.css", "*.sh")
                 for base in ("cpsd_tasks", "tests", "scripts") for p in (ROOT / base).rglob(pattern)
                 if p.is_file() and "data" not in p.relative_to(ROOT).parts[1:2])

_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped (letters, digits, ``_``, ``-``
    and spaces kept, CJK included), each space a hyphen."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every heading anchor of a Markdown page (code fences skipped; a repeated heading gets ``-1``, ``-2``)."""
    seen: dict[str, int] = {}
    out: set[str] = set()
    fenced = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        match = None if fenced else _HEADING.match(line)
        if match:
            base = slug(match.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            out.add(base if n == 0 else f"{base}-{n}")
    return out


def test_slug_follows_github():
    assert slug("Refusals, invalid and truncated outputs") == "refusals-invalid-and-truncated-outputs"
    assert slug("Rule baseline (`cpsd_tasks/baseline/rules_ie.py`)") == "rule-baseline-cpsd_tasksbaselinerules_iepy"
    assert (slug("Log-likelihood variants (tag `cpsd_ll`) — an addition")
            == "log-likelihood-variants-tag-cpsd_ll--an-addition")
    assert slug("Graders' conventions") == "graders-conventions"


def test_readme_is_short():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; reference text belongs in docs/"


def test_readme_first_screen_names_the_two_commands():
    first_screen = "\n".join((ROOT / "README.md").read_text(encoding="utf-8").splitlines()[:40])
    assert "bash scripts/demo.sh" in first_screen and "bash scripts/test.sh" in first_screen
    assert (ROOT / "scripts" / "demo.sh").is_file() and (ROOT / "scripts" / "test.sh").is_file()


_SPEC = re.compile(r"\bSPEC(?:\.md)?\b")


def test_no_reference_to_the_unshipped_specification():
    hits = [f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
            for path in [*PAGES, *SOURCES] if path != Path(__file__).resolve()
            for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
            if _SPEC.search(line)]
    assert not hits, "cite docs/metrics.md or docs/data.md instead:\n" + "\n".join(hits)


# A page path and anchor cited in code or text: docs/metrics.md#information-extraction.
_CITED = re.compile(r"\b(docs/[\w/.-]+\.md)#([\w-]+)")
# A Markdown link: [text](target) with a relative target, optionally with #anchor.
_LINK = re.compile(r"\]\((?!https?:|mailto:)([^)\s]*?)(?:#([^)\s]+))?\)")


def _cited_anchors() -> list[tuple[str, Path, str]]:
    found = []
    for path in [*PAGES, *SOURCES]:
        text = path.read_text(encoding="utf-8", errors="replace")
        for page, anchor in _CITED.findall(text):
            found.append((str(path.relative_to(ROOT)), ROOT / page, anchor))
        if path.suffix == ".md":
            for target, anchor in _LINK.findall(text):
                page = (path.parent / target).resolve() if target else path
                if anchor and page.suffix == ".md":
                    found.append((str(path.relative_to(ROOT)), page, anchor))
    return found


def test_every_cited_anchor_is_a_heading():
    cited = _cited_anchors()
    assert any(page.name == "metrics.md" for _, page, _ in cited), "nothing cites docs/metrics.md"
    missing = sorted({f"{where}: {page.relative_to(ROOT)}#{anchor}" for where, page, anchor in cited
                      if not page.is_file() or anchor not in anchors(page)})
    assert not missing, "cited anchors with no heading:\n" + "\n".join(missing)


def test_every_relative_link_resolves():
    missing = []
    for path in PAGES:
        for target, _ in _LINK.findall(path.read_text(encoding="utf-8")):
            if target and not (path.parent / target).exists():
                missing.append(f"{path.relative_to(ROOT)}: {target}")
    assert not missing, "links to nothing:\n" + "\n".join(missing)


_BEGIN = re.compile(r"<!-- figures: begin — printed by `([^`]+)`")


def test_figure_blocks_name_their_command_and_close():
    blocks = 0
    for path in PAGES:
        text = path.read_text(encoding="utf-8")
        opened = text.count("<!-- figures: begin")
        where = path.relative_to(ROOT)
        assert opened == len(_BEGIN.findall(text)), f"{where}: a figures block names no command that prints it"
        assert opened == text.count("<!-- figures: end -->"), f"{where}: a figures block is not closed"
        for block in re.findall(r"<!-- figures: begin(.*?)<!-- figures: end -->", text, re.DOTALL):
            assert "<!-- figures: begin" not in block, f"{where}: figures blocks are nested"
        blocks += opened
    assert blocks >= 5, "the audit and bench figures are kept in named blocks"
