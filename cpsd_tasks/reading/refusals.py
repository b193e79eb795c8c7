"""Refusals: :func:`is_refusal` (broad: any refusal phrase; used when no answer was read) and
:func:`is_clear_refusal` (strict: the output *opens* with a refusal; used where an answer may
legitimately contain words such as 敏感). Both count ``不便回答`` and ``无法提供相关信息``
(docs/metrics.md#classification refusal_rate, §4.6 refusal class)."""

from __future__ import annotations

import re
from typing import Optional

from cpsd_tasks.reading.normalize import normalize, unwrap

# Refusals anywhere in an answer: a safety refusal or an inability statement (docs/metrics.md#classification
# refusal_rate, §4.6 refusal). Consulted only when no answer could be read.
_REFUSAL = re.compile(
    r"(抱歉|对不起|很遗憾|作为一个?(?:人工智能|AI|语言模型|大模型)|我(?:无法|不能|没有办法|不便|不方便|不可以)"
    r"|无法(?:回答|提供|协助|完成|处理)|不能(?:回答|提供|协助)|不便(?:回答|作答|回复|透露|提供|评论)"
    r"|敏感|违反.{0,6}(?:政策|规定|法律)"
    r"|I(?:'m| am) sorry|I (?:cannot|can't|can not|won't)|as an AI|unable to (?:help|assist|comply))",
    re.IGNORECASE,
)

# A clear refusal: an apology or an "as an AI" disclaimer followed, in the same sentence, by an
# inability ("抱歉，我无法判断…", "作为AI，我不能…"), or an output that opens with 我无法回答/无法作答/
# 不便回答/无法提供相关信息…. Words such as 敏感, 违反…规定, 无法提供身份证明 inside an answer are no refusal.
_CLEAR_REFUSAL = re.compile(
    r"^(?:(?:很|非常|十分)?抱歉|对不起[,，]?\s?我|作为(?:一个|一名)?\s?(?:人工智能|AI|语言模型|大模型|大语言模型|AI助手))"
    r"[^。.!！?？\n]{0,40}?(?:无法|不能|不便|没有办法|没办法|不可以|不予)"
    r"|^我?(?:无法|不能|不便|拒绝)(?:回答|作答|回复|协助|帮助|提供帮助)"
    r"|^我?(?:不便|不方便)(?:透露|提供|评论|回应)"
    r"|^(?:我)?(?:无法|不能)提供(?:相关|有关|此类|这类|该类|任何)(?:的)?(?:信息|内容|回答|帮助)"
    r"|^(?:I(?:'m| am) sorry|Sorry|As an AI)\b[^.!?\n]{0,60}?(?:cannot|can't|can not|unable|won't|not able)"
    r"|^I (?:cannot|can't|can not|won't|am unable|'m unable)",
    re.IGNORECASE,
)


def is_refusal(text: Optional[str]) -> bool:
    """Say whether an output is a refusal: empty/missing, or a refusal phrase.

    Definition: docs/metrics.md#refusals-invalid-and-truncated-outputs.

    Args:
        text: raw model output (``None`` = missing, e.g. a content-filter block with null content).

    Returns:
        ``True`` for ``None``, an empty answer after ``<think>`` removal and end-marker cutting,
        or a text that contains a refusal phrase ("抱歉，我无法…", "作为一个AI…", "不便回答",
        "无法提供相关信息", "I'm sorry, I cannot…"). Callers consult it only when no answer could
        be read (so invalid ≥ refusal).
    """
    answer = normalize(text)
    return not answer or bool(_REFUSAL.search(answer))


def is_clear_refusal(output: Optional[str]) -> bool:
    """Say whether an output is empty or a clear refusal (strict rule, docs/metrics.md#error-classes ``refusal``).

    Stricter than :func:`is_refusal` (which fires on words such as 敏感, 违反…规定 anywhere): the
    normalised output must *start* with an apology or an "as an AI" disclaimer followed by an
    inability in the same sentence ("抱歉，我无法判断…", "I'm sorry, I cannot…"), or with
    我无法回答/无法作答/不便回答/不便透露/无法提供相关信息….

    Args:
        output: raw model output (``None`` = missing).

    Returns:
        ``True`` for a missing/empty answer or a clear refusal.
    """
    answer = normalize(unwrap(output))
    return not answer or bool(_CLEAR_REFUSAL.search(answer))

