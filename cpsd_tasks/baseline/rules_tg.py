"""Rule baseline for the three generation tasks: LEAD, the first sentences of the input.

LEAD ("take the opening of the source") is the classic extractive lower bound of summarisation.
For each task the rule cuts the 【输入】 text into sentences and copies them, in order, until the
copy holds at least :data:`LEAD_CHARS` characters of that task (always at least one sentence;
the whole input if it is shorter). The budgets are the median reference lengths of the stand-in
data (case_summary 121, case_report 152, legal_analysis 260 characters), rounded.

Sentences end at 。！？!? (with any closing quotes ”’」』 kept) or at a line break; a piece cut at a
line break (the 人名：…/时间：… lines of a case_report input) gets a 。 so the copy reads as prose.
Nothing is paraphrased or generated: for case_report this is a copy of the element list, and for
legal_analysis a copy of the case facts, so it shows what plain copying scores on each metric.
"""

from __future__ import annotations

import re
from typing import Callable

#: Character budget per task: the copy stops after the sentence that reaches it.
LEAD_CHARS: dict[str, int] = {"case_summary": 120, "case_report": 150, "legal_analysis": 260}

_SENTENCE = re.compile(r"[^。！？!?\n]+(?:[。！？!?]+[”’」』\"']*)?")
_END = ("。", "！", "？", "!", "?", "”", "’", "」", "』", "\"", "'")


def sentences(text: str) -> list[str]:
    """Cut ``text`` into sentences (see module docstring); empty pieces are dropped.

    Example: ``"甲。乙！\\n丙"`` -> ``["甲。", "乙！", "丙"]``.
    """
    return [s.strip() for s in _SENTENCE.findall(text or "") if s.strip()]


def lead(text: str, budget: int) -> str:
    """The first sentences of ``text`` until at least ``budget`` characters (LEAD).

    Args:
        text: the input text.
        budget: minimum length in characters of the copy (the sentence reaching it is kept whole).

    Returns:
        The copied sentences joined without separators, each ending in sentence punctuation;
        ``""`` when ``text`` has no sentence.
    """
    out: list[str] = []
    length = 0
    for sentence in sentences(text):
        if not sentence.endswith(_END):
            sentence += "。"
        out.append(sentence)
        length += len(sentence)
        if length >= budget:
            break
    return "".join(out)


def _rule(task_id: str) -> Callable[[dict[str, str]], str]:
    return lambda sections: lead(sections.get("输入", ""), LEAD_CHARS[task_id])


RULES = {task_id: _rule(task_id) for task_id in LEAD_CHARS}
