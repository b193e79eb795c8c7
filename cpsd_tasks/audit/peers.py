"""The peers' own answer-reading rules, re-expressed for comparison (never used to score a run).

Each function reads one raw output the way one peer benchmark's scorer does, so the audit can set
the plugin's figures beside the peer's on the same items:

* :func:`lawbench_letters`, :func:`lawbench_label` — LawBench (open-compass/LawBench,
  ``evaluation/evaluation_functions/lblj.py`` for 2-8 and ``jdzy.py``/``zxfl.py`` → ``multi_choice_judge``
  for 2-2/2-4): substring matching over the whole output;
* :func:`lawbench_entities`, :func:`lawbench_reference`, :func:`lawbench_ner_score` — LawBench's 2-6
  (``xxcq.py`` → ``utils/comprehension_scores.py``, ``compute_ie_f1``): one value per entity type, found
  after the type's name and a colon anywhere in the output, scored per type by the character F1 of
  CAIL's reading-comprehension scorer (:func:`char_f1`, ``utils/rc_f1.py``, ``CJRCEvaluator.compute_f1``);
* :func:`disc_rule` — DISC-Law-Eval (FudanDISC/DISC-LawLLM, ``eval/src/eval.py``, class
  ``McqRegexEvaluator``): a cascade of regular expressions;
* :func:`lexeval_rule` — LexEval (CSHaitao/LexEval, ``code/evaluation/process.py``,
  ``find_valid_substrings``, used by ``code/evaluation/evaluate.py``).

All are pure, accept ``None`` (a missing output) and never raise.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Iterable, Mapping, Optional

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


# --------------------------------------------------------------------------- LawBench 2-6 (NER)

#: Values LawBench's 2-6 rule does not take for an entity.
LAWBENCH_NO_ENTITY = ("无", "未提及")
_LAWBENCH_VALUE_END = re.compile("[\n ]")


def lawbench_entities(output: Optional[str], types: Iterable[str]) -> dict[str, str]:
    """LawBench's reading of a 2-6 entity-list output (``compute_ie_f1``'s reading of a prediction).

    For each entity type, every place (left to right, not overlapping) where the type's name occurs
    anywhere in the raw output and is directly followed by ``:`` or ``：`` with at least two more
    characters after the colon gives a value: the text after the colon, stripped, up to the first
    line break or ASCII space. A value ``无`` or ``未提及`` is no entity (an earlier value of the type
    stays); otherwise the type's last value wins. So one value per type, and a name inside a longer
    one counts (``作案时间：`` gives 时间; ``受害人人：`` gives nothing).

    Args:
        output: raw model output (``None`` = missing). types: the task's entity types.

    Returns:
        ``{type: value}`` (``{}`` when no type is found: LawBench's abstention).
    """
    text = output or ""
    found: dict[str, str] = {}
    for name in types:
        at = text.find(name)
        while at >= 0:
            end = at + len(name)
            value = lawbench_value_at(text, end)
            if value is not None:
                found[name] = value
            at = text.find(name, end)
    return found


def lawbench_value_at(text: str, end: int) -> Optional[str]:
    """The value :func:`lawbench_entities` takes after a type name ending at ``end`` of ``text``, or
    ``None`` when it takes none there (no colon next, fewer than two characters after it, ``无``/``未提及``)."""
    if end >= len(text) - 2 or text[end] not in ":：":
        return None
    value = _LAWBENCH_VALUE_END.split(text[end + 1:].strip(), maxsplit=1)[0].strip()
    return None if value in LAWBENCH_NO_ENTITY else value


def lawbench_reference(answer: str) -> dict[str, str]:
    """LawBench's reading of a 2-6 reference string (``受害人:严某某、肖某某;被盗物品:查获手机``):
    ``;``-separated ``type:value`` segments, the last value of a type kept; ``{}`` for a blank string."""
    if not answer.strip():
        return {}
    out = {}
    for segment in answer.split(";"):
        parts = segment.split(":")
        out[parts[0]] = parts[1]
    return out


def char_f1(gold: str, pred: str) -> float:
    """The character F1 of CAIL's reading-comprehension scorer (``CJRCEvaluator.compute_f1``).

    Both strings are lower-cased and kept to their letters and digits (``str.isalpha``/``isdigit``:
    Chinese characters count, punctuation and spaces do not); the characters are compared as
    multisets. When either is left empty the score is 1 if both are, else 0.
    """
    gold_chars = [ch for ch in gold.lower() if ch.isdigit() or ch.isalpha()]
    pred_chars = [ch for ch in pred.lower() if ch.isdigit() or ch.isalpha()]
    if not gold_chars or not pred_chars:
        return float(gold_chars == pred_chars)
    same = sum((Counter(gold_chars) & Counter(pred_chars)).values())
    if not same:
        return 0.0
    precision, recall = same / len(pred_chars), same / len(gold_chars)
    return 2 * precision * recall / (precision + recall)


def lawbench_ner_score(found: Mapping[str, str], reference: Mapping[str, str]) -> float:
    """LawBench's 2-6 score of one doc (its model figure is the mean over docs).

    With no reference entity the doc scores 1 when nothing was found, else 0. Otherwise each type
    found that the reference has scores the :func:`char_f1` of the two values (a type the reference
    lacks scores nothing); precision is their sum over the types found, recall over the reference's
    types, and the score is ``2PR / (P + R + 1e-10)`` (the 1e-10 of LawBench's code: 0 when both are 0).

    Args:
        found: :func:`lawbench_entities` of the output. reference: :func:`lawbench_reference` of the answer.
    """
    if not reference:
        return 1.0 if not found else 0.0
    overlap = sum(char_f1(reference[name], value) for name, value in found.items() if name in reference)
    precision = overlap / len(found) if found else 0.0
    recall = overlap / len(reference)
    return 2 * precision * recall / (precision + recall + 1e-10)
