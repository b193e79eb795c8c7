"""The judge's prompts, one per kind, in Chinese, and their digest.

Kinds (:data:`KINDS`):

* ``label`` — a classification output: which of the task's labels the answer gives;
* ``judgement`` — a 判断 question (正确/错误 of the exam, 是/否/未知 of case reading);
* ``choice`` — a 单选/多选 question: the option letters the answer chose (one or more; for a
  单选 question that was answered with several letters, all of them, as the rules read them);
* ``equivalence`` — a 精确/模糊 span of case reading: does the answer mean the gold answer?
* ``rubric`` — a generation output against its reference: 1–5 on three criteria
  (:data:`RUBRIC_CRITERIA`), only with ``cpsd-judge --rubric``.

The first four are *extraction*: the judge reads what the answer says, as xFinder
(arXiv:2405.11874) does — given the question, the output and the answer range, it names the
answer or says there is none (``无有效答案``; xFinder's ``[No valid answer]`` is read too). The
judge is told not to solve the question itself. Every prompt asks for one line of JSON
(:data:`REPLY_FORMATS`), read strictly by :mod:`cpsd_tasks.judge.reply`.

Long texts are cut (:data:`MAX_OUTPUT_CHARS`, :data:`MAX_CONTEXT_CHARS`) with a visible mark, so
a request stays within a small judge model's context. :func:`prompt_digest` hashes everything
that shapes a request (the system message, the templates, the reply formats, the limits and
:data:`PROMPTS_VERSION`); it is part of the cache key and written into ``judged_<time>.json``.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Mapping, Sequence

#: Bumped whenever a template or a limit changes (the digest changes with it anyway).
PROMPTS_VERSION = "1"
KINDS = ("label", "judgement", "choice", "equivalence", "rubric")
#: What the judge writes when the answer gives no valid answer (xFinder's form is read as well).
NO_ANSWER = "无有效答案"
#: Rubric criteria: JSON key the judge writes → metric suffix in ``judged_<time>.json``.
RUBRIC_CRITERIA: dict[str, str] = {"准确性": "accuracy", "完整性": "completeness", "规范性": "conformity"}
RUBRIC_SCALE = (1, 5)
MAX_OUTPUT_CHARS = 4000
MAX_CONTEXT_CHARS = 3000
CUT_MARK = "……（以下截断，共{n}字）"

SYSTEM = "你是一名严谨、客观的评测助手。严格按要求的格式作答，只输出一行 JSON，不输出任何其他内容。"

_EXTRACT_RULES = (
    "【要求】\n"
    "1. 只根据【模型的回答】的意思，判断它最终给出的答案；不要自己解题，也不要判断答案对错。\n"
    "2. 回答可以用任何说法给出答案（例如转述选项内容、说“第二个说法成立”），只要意思明确即可。\n"
    "3. 如果回答没有给出答案、拒绝回答、在几个答案之间摇摆不定或前后矛盾，或给出的答案不在{range}中，"
    "答案为“" + NO_ANSWER + "”。\n"
    "4. 只输出一行 JSON：{format}\n"
)

TEMPLATES: dict[str, str] = {
    "label": (
        "下面是一项{task_title}任务的输入和一个模型的回答。\n"
        "【任务输入】\n{input}\n"
        "【可选标签】{labels}\n"
        "【模型的回答】\n{output}\n"
        + _EXTRACT_RULES.format(range="【可选标签】", format='{{"answer": "<一个可选标签，或' + NO_ANSWER + '>"}}')
    ),
    "judgement": (
        "下面是一道判断题和一个模型的回答。\n"
        "{context_block}"
        "【题目】\n{question}\n"
        "【可选答案】{labels}\n"
        "【模型的回答】\n{output}\n"
        + _EXTRACT_RULES.format(range="【可选答案】", format='{{"answer": "<一个可选答案，或' + NO_ANSWER + '>"}}')
    ),
    "choice": (
        "下面是一道{qtype}题和一个模型的回答。\n"
        "【题目】\n{question}\n"
        "【选项】\n{options}\n"
        "【模型的回答】\n{output}\n"
        + _EXTRACT_RULES.format(
            range="【选项】",
            format='{{"answer": "<所选选项的字母，如 B 或 ACD；或' + NO_ANSWER + '>"}}'
                   "\n5. 写出回答所选的全部选项字母；即使是单选题，回答选了几个选项就照实写几个。")
    ),
    "equivalence": (
        "下面是一道案情阅读题、它的标准答案和一个模型的回答。\n"
        "【案情】\n{context}\n"
        "【问题】{question}\n"
        "【标准答案】{gold}\n"
        "【模型的回答】\n{output}\n"
        "【要求】\n"
        "1. 判断模型回答给出的答案与标准答案的意思是否一致；只比较意思，不比较字面。\n"
        "2. {span_rule}\n"
        "3. 回答多出与问题无关的解释不影响判断；回答的答案指向别的对象、缺少或多出答案要点，为“不等价”。\n"
        "4. 如果回答没有给出答案或拒绝回答，输出“" + NO_ANSWER + "”。\n"
        '5. 只输出一行 JSON：{{"answer": "等价"}} 或 {{"answer": "不等价"}} 或 {{"answer": "' + NO_ANSWER + '"}}\n'
    ),
    "rubric": (
        "下面是一项{task_title}任务的原文、参考答案和一个模型的回答。请对照参考答案，为模型的回答打分。\n"
        "【原文】\n{input}\n"
        "【参考答案】\n{reference}\n"
        "【模型的回答】\n{output}\n"
        "【评分标准】每一项打 1–5 的整数分：1 很差，2 较差，3 一般，4 较好，5 很好。\n"
        "准确性：人物、时间、地点、情节、数字和法律依据是否与原文和参考答案一致，有无编造；\n"
        "完整性：参考答案的要点是否都已覆盖；\n"
        "规范性：是否符合该类公安文书的格式和用语，条理是否清楚。\n"
        "回答为空或拒绝回答时，各项均为 1 分。\n"
        '只输出一行 JSON：{{"准确性": <1-5>, "完整性": <1-5>, "规范性": <1-5>}}\n'
    ),
}

#: The reply each kind asks for (documented in docs/judge.md).
REPLY_FORMATS: dict[str, str] = {
    "label": '{"answer": "<label>"} or {"answer": "无有效答案"}',
    "judgement": '{"answer": "<label>"} or {"answer": "无有效答案"}',
    "choice": '{"answer": "<letters, e.g. B or ACD>"} or {"answer": "无有效答案"}',
    "equivalence": '{"answer": "等价" | "不等价" | "无有效答案"}',
    "rubric": '{"准确性": 1-5, "完整性": 1-5, "规范性": 1-5}',
}

SPAN_RULES = {
    "精确": ("本题问的是人名：回答须给出与标准答案相同的全部人物（允许称谓、顺序、标点不同），"
             "多一个或少一个人均为“不等价”。"),
    "模糊": "本题问的是地点、时间、方式等：说法不同但指同一地点、时间或方式即为“等价”。",
}


def cut(text: Any, limit: int) -> str:
    """``text`` as a string of at most ``limit`` characters plus :data:`CUT_MARK` (naming the full
    length) when longer; ``None`` becomes ``""``."""
    text = "" if text is None else str(text)
    return text if len(text) <= limit else text[:limit] + CUT_MARK.format(n=len(text))


def _options_block(options: Mapping[str, str]) -> str:
    return "\n".join(f"{letter}. {text}" for letter, text in sorted(options.items()))


def user_message(kind: str, fields: Mapping[str, Any]) -> str:
    """The user message of one judge request.

    Args:
        kind: one of :data:`KINDS`.
        fields: ``output`` (the model's raw output) and, by kind: ``label`` — ``task_title``,
            ``input``, ``labels`` (sequence); ``judgement`` — ``question``, ``labels``, optional
            ``context``; ``choice`` — ``qtype`` (单选/多选), ``question``, ``options``
            (``{letter: text}``); ``equivalence`` — ``context``, ``question``, ``gold``, ``qtype``
            (精确/模糊); ``rubric`` — ``task_title``, ``input``, ``reference``.

    Returns:
        The message text (Chinese). Outputs are cut at :data:`MAX_OUTPUT_CHARS`, inputs and
        contexts at :data:`MAX_CONTEXT_CHARS`.

    Raises:
        KeyError: an unknown kind or a missing field.
    """
    template = TEMPLATES[kind]
    output = cut(fields.get("output"), MAX_OUTPUT_CHARS) or "（空）"
    values: dict[str, Any] = {"output": output}
    if kind == "label":
        values.update(task_title=fields["task_title"], input=cut(fields["input"], MAX_CONTEXT_CHARS),
                      labels="、".join(fields["labels"]))
    elif kind == "judgement":
        context = fields.get("context")
        values.update(question=fields["question"], labels="、".join(fields["labels"]),
                      context_block=f"【案情】\n{cut(context, MAX_CONTEXT_CHARS)}\n" if context else "")
    elif kind == "choice":
        values.update(qtype=fields["qtype"], question=fields["question"], options=_options_block(fields["options"]))
    elif kind == "equivalence":
        values.update(context=cut(fields["context"], MAX_CONTEXT_CHARS), question=fields["question"],
                      gold=fields["gold"], span_rule=SPAN_RULES[fields["qtype"]])
    elif kind == "rubric":
        values.update(task_title=fields["task_title"], input=cut(fields["input"], MAX_CONTEXT_CHARS),
                      reference=cut(fields["reference"], MAX_OUTPUT_CHARS))
    return template.format(**values)


def messages(kind: str, fields: Mapping[str, Any]) -> list[dict[str, str]]:
    """The chat messages of one request: :data:`SYSTEM` and :func:`user_message`."""
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user_message(kind, fields)}]


def prompt_digest(kinds: Sequence[str] = KINDS) -> str:
    """SHA-256 (first 16 hex digits) of everything that shapes a request of ``kinds``: the system
    message, their templates and reply formats, the span rules, the limits and the version.
    Changing any of them changes the digest, so cached replies to old prompts are not reused."""
    material = {"version": PROMPTS_VERSION, "system": SYSTEM, "no_answer": NO_ANSWER,
                "templates": {k: TEMPLATES[k] for k in sorted(kinds)},
                "formats": {k: REPLY_FORMATS[k] for k in sorted(kinds)}, "span_rules": SPAN_RULES,
                "limits": [MAX_OUTPUT_CHARS, MAX_CONTEXT_CHARS, CUT_MARK], "rubric": RUBRIC_CRITERIA}
    raw = json.dumps(material, ensure_ascii=False, sort_keys=True).encode("utf-8")
    return hashlib.sha256(raw).hexdigest()[:16]
