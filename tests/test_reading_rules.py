"""The option-letter reader as a visible rule pipeline (issue 24), pinned rule by rule.

* the reading cases, as data: ``tests/data/reading_cases/<rule>.jsonl``, one file per rule of
  :data:`~cpsd_tasks.reading.letters.RULES` and turn rule of :data:`~cpsd_tasks.reading.letters.TURN_RULES`
  (``no_answer.jsonl``: outputs read as no answer, with the reason), each line ``output``, ``options``,
  ``question``, the expected ``answer`` (sorted letters or ``null``), the ``rule`` that must decide and
  the ``source`` the case came from; one parametrised test reads them all and asserts answer and rule;
* every rule has a docstring with one example, read as stated by that rule;
* the module docstring lists the rules in the order of ``RULES`` (it is generated from it), and
  docs/answer_reading.md names them in that order;
* the package: McCabe ≤ 15 for every function (ruff, ``[tool.ruff]`` of pyproject.toml), no private
  name imported across a module boundary, nothing reading-related left at the package root.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cpsd_tasks.reading import letters, read_choices
from cpsd_tasks.reading import option_lines
from cpsd_tasks.reading.letters import RULES, TURN_RULES
from cpsd_tasks.reading.option_lines import OUTPUT_RULES

from conftest import ROOT

CASES = ROOT / "tests" / "data" / "reading_cases"
FIELDS = {"output", "options", "question", "answer", "rule", "source"}
#: Every name a case file may have: a rule, a turn rule, or the outputs read as no answer.
CASE_FILES = {rule.__name__ for rule in (*OUTPUT_RULES, *RULES)} | set(TURN_RULES) | {"no_answer"}
MIN_CASES = 5
#: Output rules that only ever decide that nothing was read: their case files pin the reason.
NO_ANSWER_RULES = {"numbered_letters"}
READING = ROOT / "cpsd_tasks" / "reading"


def load_cases() -> list:
    """Every case of every case file, as ``pytest.param(case, id="<file>:<line>")``."""
    params = []
    for path in sorted(CASES.glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                params.append(pytest.param(json.loads(line), path.stem, id=f"{path.stem}:{number}"))
    return params


@pytest.mark.parametrize("case, file", load_cases())
def test_reading_case(case, file):
    assert set(case) - {"reason", "multi"} == FIELDS, f"{file}: fields {sorted(case)}"
    read = read_choices(case["output"], case["options"], case["question"], multi=case.get("multi", False))
    assert read.letters == case["answer"]
    assert read.rule == case["rule"]
    if case["rule"] is None:  # no answer: the reason is pinned (no_answer.jsonl, or a rule that only refuses)
        assert read.reason == case["reason"] and (file == "no_answer" or file in NO_ANSWER_RULES)
    else:
        assert case["rule"] == file, "a case sits in the file of the rule that decides it"


def test_every_rule_has_its_case_file_with_enough_cases():
    files = {path.stem: path for path in CASES.glob("*.jsonl")}
    assert set(files) == CASE_FILES
    for name, path in files.items():
        count = sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
        assert count >= MIN_CASES, f"{name}: {count} cases, at least {MIN_CASES} wanted"


def test_rule_names_are_unique_and_every_rule_says_what_it_reads():
    names = [rule.__name__ for rule in RULES]
    assert len(set(names)) == len(names) and not set(names) & set(TURN_RULES)
    for rule in RULES:
        assert rule.__doc__ and "Example:" in rule.__doc__, rule.__name__


EXAMPLE = re.compile(r'Example: ``"(?P<output>(?:[^"\\]|\\.)*)"`` → (?P<answer>[A-D]+)')
#: The options and question every rule's docstring example is read against.
EXAMPLE_OPTIONS = {"A": "盗窃罪", "B": "诈骗罪", "C": "抢劫罪", "D": "侵占罪"}
EXAMPLE_QUESTION = "甲的行为构成何罪？"


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.__name__)
def test_each_rule_example_is_read_by_that_rule(rule):
    example = EXAMPLE.search(rule.__doc__)
    assert example, f"{rule.__name__}: no example of the form Example: ``\"<output>\"`` → <letters>"
    output = example.group("output").encode("utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8")
    read = read_choices(output, EXAMPLE_OPTIONS, EXAMPLE_QUESTION)
    assert (read.letters, read.rule) == (example.group("answer"), rule.__name__)


def test_the_output_rules_examples_and_order():
    import doctest

    assert doctest.testmod(option_lines).failed == 0
    listed = re.findall(r"^\* \*\*[^*]+\*\* \((?:part of )?:func:`(\w+)`", option_lines.__doc__, re.MULTILINE)
    listed = list(dict.fromkeys(listed))
    assert listed == [rule.__name__ for rule in OUTPUT_RULES]
    names = [rule.__name__ for rule in (*OUTPUT_RULES, *RULES)]
    assert len(set(names)) == len(names)


def test_the_module_docstring_lists_the_rules_in_their_order():
    listed = re.findall(r"^\s+\d+\. ``(\w+)`` — ", letters.__doc__, re.MULTILINE)
    assert listed == [rule.__name__ for rule in RULES]
    # the example: verdicts run before the leading letter, as the code does
    assert read_choices("B. 我认为如此\nA项正确", "ABCD").rule == "verdicts"


def test_the_docs_name_the_rules_in_their_order():
    # (the module docstring is the generated list; the docs page adds what each rule decided on the real
    # outputs, so a new rule may be missing there until the figures are made again, but never out of order)
    doc = (ROOT / "docs" / "answer_reading.md").read_text(encoding="utf-8")
    named = re.findall(r"^\d+\. `(\w+)`", doc, re.MULTILINE)
    order = [rule.__name__ for rule in RULES]
    unknown = set(named) - set(order)
    assert named and not unknown, f"docs/answer_reading.md names rules not in RULES: {unknown}"
    assert named == [name for name in order if name in named], "docs/answer_reading.md lists the rules out of order"


def test_word_lists_are_spelled_once_and_alternations_read_the_same_in_any_order():
    from cpsd_tasks.reading import lexicon
    from cpsd_tasks.reading.patterns import alternatives, one_of

    for name in dir(lexicon):
        if name.endswith("_HEADS") and name != "ANSWER_HEADS":
            assert set(getattr(lexicon, name)) <= set(lexicon.ANSWER_HEADS), name
    # every word before its prefixes, whatever the order given: 答案 before 答, 判断结果 before 判断
    assert alternatives(("答", "判断", "答案", "判断结果")) == "判断结果|判断|答案|答"
    assert re.match(one_of(("答", "答案")), "答案：B").group(0) == "答案"
    assert alternatives(lexicon.SUPPOSITIONS, lexicon.DOUBTS, without=("若",)) == "如果|假如|假设|可能|也许|或许"
    with pytest.raises(ValueError):
        alternatives(("若",), without=("若",))


@pytest.mark.e2e                              # (starts ruff, a process)
def test_every_function_of_the_readers_has_mccabe_at_most_15():
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--select", "C901", "--output-format", "concise",
                           str(READING)], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _imports(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("cpsd_tasks"):
            yield node.module, [alias.name for alias in node.names]


def test_no_private_name_crosses_a_module_boundary():
    for path in [*(ROOT / "cpsd_tasks").rglob("*.py"), *(ROOT / "tests").glob("*.py"),
                 *(ROOT / "scripts").glob("*.py"), *(ROOT / "benchmarks").glob("*.py")]:
        for module, names in _imports(path):
            if module.startswith("cpsd_tasks.reading"):
                private = [n for n in names if n.startswith("_")]
                assert not private, f"{path.relative_to(ROOT)} imports {names} from {module}"


def test_nothing_reading_related_stays_at_the_package_root():
    for old in ("reader", "text", "choices", "choice_text"):
        assert not (ROOT / "cpsd_tasks" / f"{old}.py").exists(), old
    assert not (ROOT / "cpsd_tasks" / "qa" / "read.py").exists()
