"""The peers' own answer-reading rules, re-expressed for comparison (never used to score a run).

Each function reads one raw output the way one peer benchmark's scorer does, so the audit can set
the plugin's figures beside the peer's on the same items:

* :func:`lawbench_letters`, :func:`lawbench_label` — LawBench (open-compass/LawBench,
  ``evaluation/evaluation_functions/lblj.py`` for 2-8 and ``jdzy.py``/``zxfl.py`` → ``multi_choice_judge``
  for 2-2/2-4): substring matching over the whole output;
* :func:`disc_rule` — DISC-Law-Eval (FudanDISC/DISC-LawLLM, ``eval/src/eval.py``, class
  ``McqRegexEvaluator``): a cascade of regular expressions;
* :func:`lexeval_rule` — LexEval (CSHaitao/LexEval, ``code/evaluation/process.py``,
  ``find_valid_substrings``, used by ``code/evaluation/evaluate.py``).

All are pure, accept ``None`` (a missing output) and never raise.
"""

from __future__ import annotations

import re
from typing import Iterable, Optional

from cpsd_tasks.reading.letters import lawbench_rule

# DISC-Law-Eval: the first list of patterns, tried in order on a reply of 10 characters or more.
_DISC_FIRST = tuple(re.compile(p) for p in (
    r"答案应?该?[为是]([ABCD,，、\s]+)", r"答案是([ABCD,，、\s]+)", r"选项应?该?[是为]([ABCD,，\s、]+)",
    r"答案([ABCD,，、\s]+)", r"答案应该?选\s?([ABCD,，、\s]+)", r"选择([ABCD,，、\s]+)",
    r"故?选[:：]?([ABCD,，、\s]+)", r"选择答案([ABCD,，\s、]+)", r"^\s*选([ABCD,，、\s]+)[,，项．\.]",
    r"([ABCD,，、\s]+)</s>", r"^([ABCD,，、\s]+)。"))
# … failing those, every "X." / "X．" label is joined …
_DISC_LABELS = re.compile(r"([ABCD][\.．])\s?")
# … failing that, the second list (all matches of the first pattern that matches are joined).
_DISC_SECOND = tuple(re.compile(p) for p in (
    r"([ABCD,，、\s]+)都?是正确的", r"选项([ABCD,，\s、]+)正确", r"([ABCD,，、\s]+)选项正确",
    r"([ABCD,，、\s]+)\s?都?[是为]正确答案", r"([ABCD,，、\s]+)\s?都?[是为]正确选项",
    r"([ABCD,，、\s]+)\s?选?项?都?属于[^错不]"))


def _disc_answer(response: str) -> str:
    """The answer string DISC's cascade extracts from a reply of 10 characters or more."""
    for pattern in _DISC_FIRST:
        match = pattern.search(response)
        if match:
            return match.group(1).strip()
    labels = _DISC_LABELS.findall(response)
    if labels:
        return "".join(labels)
    for pattern in _DISC_SECOND:
        found = pattern.findall(response)
        if found:
            return "".join(found)
    return response


def disc_rule(output: Optional[str]) -> Optional[str]:
    """DISC-Law-Eval's reading of a choice reply (``McqRegexEvaluator``).

    A reply shorter than 10 characters is taken whole; otherwise the first pattern of the first list
    that matches gives the answer, then the joined ``X.`` labels, then the second list, then the whole
    reply. The item is right when the set of A–D letters of that answer equals the gold set.

    Args:
        output: raw model reply (``None`` = missing).

    Returns:
        The sorted distinct letters A–D of the extracted answer (``"ACD"``), or ``None`` when there are none.
    """
    response = output or ""
    answer = response if len(response) < 10 else _disc_answer(response)
    return "".join(sorted(set(answer) & set("ABCD"))) or None


_LEX_CUT = re.compile(r"解析|分析")
_LEX_DROP = re.compile(r"[、.,;，和]")
_LEX_RUN = re.compile(r"[A-E]{1,5}")


def lexeval_rule(output: Optional[str]) -> Optional[str]:
    """LexEval's reading of a choice reply (``find_valid_substrings``).

    The output is cut at the first ``解析`` or ``分析``; ``、 . , ; ， 和`` are deleted; every run of 1–5
    letters A–E without a repeated letter is kept; the runs are joined and de-duplicated in order of
    first appearance. LexEval's accuracy compares this string with the gold STRING exactly (``BA`` is
    not ``AB``); its F1 compares letter sets.

    Args:
        output: raw model reply (``None`` = missing).

    Returns:
        The letters in order of first appearance (``"BA"``), or ``None`` when none is kept.
    """
    text = output or ""
    cut = _LEX_CUT.search(text)
    if cut:
        text = text[:cut.start()]
    text = _LEX_DROP.sub("", text)
    kept = "".join(run for run in _LEX_RUN.findall(text) if len(set(run)) == len(run))
    return "".join(dict.fromkeys(kept)) or None


def lawbench_letters(output: Optional[str], valid: Iterable[str] = "ABCDE") -> Optional[str]:
    """LawBench's reading of a choice output (2-8 ``lblj.py``; 1-2/3-6 likewise): every option letter
    occurring anywhere; right when only the gold letter occurs. Returns the sorted letters or ``None``
    (:func:`cpsd_tasks.reading.letters.lawbench_rule`)."""
    return lawbench_rule(output, valid)


def lawbench_label(output: Optional[str], labels: Iterable[str]) -> Optional[str]:
    """LawBench's reading of a one-label output (``multi_choice_judge`` of 2-2/2-4): the label words
    occurring anywhere in the output as substrings.

    Args:
        output: raw model output (``None`` = missing).
        labels: the task's label words.

    Returns:
        The one label word occurring (LawBench: right when it is the gold label); several occurring are
        joined with ``|`` in label order (LawBench: wrong); ``None`` when none occurs (LawBench: abstention).
    """
    text = output or ""
    found = [label for label in labels if label in text]
    return "|".join(found) or None
