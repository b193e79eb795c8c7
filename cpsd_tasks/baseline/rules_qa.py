"""Rule baseline for the two QA tasks: fixed answers and first-match extraction, no understanding.

The question type is read from the prompt's 【约束】 section, whose wording our YAMLs fix per type.

``case_reading``
    * 判断 → always ``未知``.
    * 精确 → the first anonymised person name in the case text: first a name right after a role word
      (被告人/被害人/犯罪嫌疑人/证人/报案人…), else the first ``X某…`` name (王某, 郑某某, 黄某甲,
      刘1某) not followed by a place suffix (某市, 某号…); ``未知`` when there is none.
    * 模糊 → by the question word: a time question gets the first date/time in the text
      (``2021年8月3日凌晨2时许``), a place question the first ``在…`` phrase ending in a place word
      (``在广州市白云区一出租屋内`` → ``广州市白云区一出租屋内``); anything else (and a failed
      match) gets the clause of the case text that shares the most distinct characters with the
      question.

``police_exam``
    * 判断 → always ``正确``; 单选 → the first option, ``A``; 多选 → the first two, ``AB`` (a question
      whose rendered options do not start at A gets its first listed letters instead).

Lower bounds, not models: a model that cannot beat them reads nothing.
"""

from __future__ import annotations

import re

from cpsd_tasks.tasks import EXAM_TF_LABELS

_ROLE = r"(?:原审被告人|被告人|被害人|犯罪嫌疑人|嫌疑人|被上诉人|上诉人|证人|报案人|报警人|同案人|被告|店主)"
_PLACE_AFTER = "市县区镇乡村路街巷号室楼栋单元公司厂店处地省州园场网平台单位医院学校银行"
_NOT_SURNAME = "在于至到的从向等和与及一其该本此某个"
_NAME = rf"(?![{_NOT_SURNAME}])[\u4e00-\u9fff]{{1,2}}?\d?某(?:某|[甲乙丙丁戊己庚辛]|\d)*(?![{_PLACE_AFTER}])"
_ROLE_NAME = re.compile(rf"{_ROLE}({_NAME})")
_ANY_NAME = re.compile(rf"(?<![{_NOT_SURNAME}])[\u4e00-\u9fff]\d?某(?:某|[甲乙丙丁戊己庚辛]|\d)*"
                       rf"(?![{_PLACE_AFTER}])")

_TIME_Q = re.compile(r"何时|什么时间|什么时候|哪天|哪一天|几点|哪年|哪一年|几月|日期|时间")
_PLACE_Q = re.compile(r"哪里|何处|在哪|什么地方|哪个地方|何地|地点|哪儿|什么位置|哪个位置")
_TIME = re.compile(r"\d{4}年(?:\d{1,2}月)?(?:\d{1,2}日)?"
                   r"(?:[凌晨上午中午下午傍晚晚上深夜当]{0,2}\d{1,2}时(?:\d{1,2}分)?许?)?"
                   r"|\d{1,2}月\d{1,2}日(?:[凌晨上午中午下午傍晚晚上深夜]{0,2}\d{1,2}时(?:\d{1,2}分)?许?)?")
_PLACE = re.compile(r"在([^，。；、,;]{2,20}"
                    r"(?:内|处|家中|门口|附近|路段|市|县|区|镇|村|路|街|号|室|店|小区|宾馆|酒店))")
_CLAUSE = re.compile(r"[，。；,;！？!?\n]")


def first_person_name(text: str) -> str:
    """The first anonymised person name in ``text`` (role-word names first), else ``"未知"``."""
    match = _ROLE_NAME.search(text) or _ANY_NAME.search(text)
    if match is None:
        return "未知"
    return match.group(1) if match.re is _ROLE_NAME else match.group(0)


def _context_and_question(sections: dict[str, str]) -> tuple[str, str]:
    body = sections.get("输入", "")
    context, _, question = body.rpartition("问题：")
    return context.replace("案情材料：", "", 1).strip(), question.strip()


def best_clause(context: str, question: str) -> str:
    """The clause of ``context`` sharing most distinct characters with ``question`` (first on ties)."""
    clauses = [c.strip() for c in _CLAUSE.split(context) if c.strip()]
    if not clauses:
        return "未知"
    wanted = set(question)
    return max(clauses, key=lambda c: len(set(c) & wanted))


def fuzzy_span(context: str, question: str) -> str:
    """The 模糊 rule: first time/place by question word, else :func:`best_clause`."""
    if _TIME_Q.search(question) and (m := _TIME.search(context)):
        return m.group(0)
    if _PLACE_Q.search(question) and (m := _PLACE.search(context)):
        return m.group(1)
    return best_clause(context, question)


def case_reading(sections: dict[str, str]) -> str:
    """Rule answer to one case_reading prompt (see module docstring)."""
    rules = sections.get("约束", "")
    context, question = _context_and_question(sections)
    if "判断题" in rules:
        return "未知"
    if "人名" in rules:
        return first_person_name(context)
    return fuzzy_span(context, question)


_OPTION_LINE = re.compile(r"^([A-Z])\. ", re.MULTILINE)


def police_exam(sections: dict[str, str]) -> str:
    """Rule answer to one police_exam prompt: 正确; the first option (A); the first two (AB).

    The options are the ``X. text`` lines our prompt renders; a question whose option A is missing
    (it happens in real banks) gets its first listed letter(s) instead. Without option lines the
    answer is ``A`` / ``AB``.
    """
    rules = sections.get("约束", "")
    letters = _OPTION_LINE.findall(sections.get("输入", "")) or ["A", "B"]
    if "多项选择" in rules:
        return "".join(letters[:2])
    if "单项选择" in rules:
        return letters[0]
    return EXAM_TF_LABELS[0]


RULES = {"case_reading": case_reading, "police_exam": police_exam}
