"""Turns: where the model's own answer ends (end markers, role markers, new questions).

* **end-of-turn markers** — ``<eoa>``, ``<eos>``, ``<end>``, ``<|im_end|>``, ``</s>``,
  ``<|endoftext|>``, ``<|eot_id|>``, ``<|end|>``, ``<end_of_turn>`` and bracketed or unclosed forms
  (``[eoa]``, ``【eoa】``, ``<eoa``): :data:`END_MARKER`. They are never content: a marker ends the
  model's turn, and what follows it is another turn (:func:`turns`);
* **invented follow-up turns** — role markers (``<human>``, ``<|Human|>`` in any case, ``<bot>``, ``### Human``,
  ``Human:`` (also inline, after a space), ``User:``, ``<|im_start|>``, ``[INST]``) always start another
  turn; question markers (``问题：``, ``问：``, ``题目：``, ``请回答问题``, ``Question:``) start one only after an
  answer was read (:data:`ROLE_MARKER`, :data:`QUESTION_MARKER`);
* **echoed instructions** — :data:`INSTRUCTION_ECHO`, marked by :func:`mark_echoes`;
* **the model's own turn** — :func:`own_turn`, :func:`first_turn`, :func:`written_turn`.

Source: the project's audit of 34 real LLMs' outputs (README "Answer reading").
"""

from __future__ import annotations

import re
import unicodedata
from typing import Callable, Optional

from cpsd_tasks.reading.prepare import EDGE_CHARS, ZERO_WIDTH, answer_text, strip_think

# --------------------------------------------------------------------------- turn boundaries

#: End-of-turn / end-of-answer markers: ``<eoa>``, ``</s>``, ``<|im_end|>``, ``[eoa]``, an unclosed
#: ``<eoa`` … (case-insensitive). Matched after NFKC, so full-width brackets are ASCII here.
END_MARKER = re.compile(
    r"</s>|</?\|?(?:eoa|eos|eod|eol|end|eot)\|?>|<\|(?:im_end|endoftext|eot_id|end_of_text|end|eot)\|?>"
    r"|<end_of_turn>|\[(?:eoa|eos|end)\]|【(?:eoa|eos|end)】|<(?:eoa|eos)(?![A-Za-z>])",
    re.IGNORECASE,
)
#: Markers of another speaker's turn: text after them was not the model's answer.
ROLE_MARKER = re.compile(
    r"<\|im_start\|>[ \t]*(?:assistant|user|system)?|<\|?(?i:human|user|bot|assistant|system|moss)\|?>|\[INST\]|\[/INST\]"
    r"|(?:^|\n)[ \t]*(?:#{2,4}[ \t]*)?(?:Human|User|USER|HUMAN|Assistant|Instruction|用户|人类)[ \t]*[:：]"
    r"|(?:^|\n)[ \t]*#{2,4}[ \t]*(?:Human|User|Instruction|Input|Response|Question)\b"
    r"|(?<=[ \t])(?:Human|HUMAN|User|USER)[ \t]*:(?=[ \t]*\S)",      # inline: "正确答案：B Human: 下一题…"
)
_OTHER_ROLE = re.compile(r"human|user|用户|人类|\[INST\]|system|Instruction|Input|Question", re.IGNORECASE)
#: Markers of a new question or of the prompt's instructions echoed back: a new exchange starts
#: there unless they are the output's first words (a model restating the question before answering).
QUESTION_MARKER = re.compile(
    r"(?:^|\n)[ \t]*(?:问题|题目|例题|案件|案例|新问题|下一题|下一个问题|我的问题|请问|问|Question|Q)[ \t]*\d*[ \t]*[:：]"
    r"|[【\[](?:题目|问题|新问题|例题)[】\]]|【(?:角色|任务|输入|约束)】"
    r"|请回答问题|请回答下列问题|请回答以下问题|请判断以下陈述|〖指令〗|解决这个问题[:：]"
    r"|请从以下选项中|请从下列选项中|请阅读(?:以下|下列|下面)(?:文本|材料|文字|案例)?并回答",
)
#: An echo of a prompt's answer-format instruction (LawBench's "请你运用法律知识…从A,B,C,D中选出…
#: 例如[正确答案]A<eoa>。请你严格按照这个格式回答。", "请你根据给定的一个诉方观点，从A,B,C,D,E五个…",
#: any short lead of one clause before "从A,"): its example answer is no answer, and the
#: echo marks where a copy of the prompt starts. :func:`mark_echoes` replaces it with "〖指令〗".
INSTRUCTION_ECHO = re.compile(
    r"请你?(?:[^\n。!！?？]{0,30}?[,，]?)?(?:从|选择)\s*A\s*[,，、][^\n]{0,160}?请你?严格按照这个格式回答[。.]?"
)


def mark_echoes(text: str) -> str:
    """Replace each echoed answer-format instruction (:data:`INSTRUCTION_ECHO`) by a line
    ``〖指令〗``, a :data:`QUESTION_MARKER`: the example answer inside it disappears with it."""
    return INSTRUCTION_ECHO.sub("\n〖指令〗\n", text)


def turns(text: str) -> list[str]:
    """Split an (already NFKC-folded) output into turns at end markers and role markers.

    Args:
        text: the output after :func:`answer_text`.

    Returns:
        The pieces in order, markers removed; a role marker at the very start (the model naming
        its own role, ``<bot>: A``) is dropped without starting a turn. Never empty: ``[""]``
        for an empty text.
    """
    pieces: list[str] = []
    for piece in END_MARKER.split(text):
        start = 0
        for match in ROLE_MARKER.finditer(piece):
            head = piece[start:match.start()]
            other = bool(_OTHER_ROLE.search(match.group(0)))
            if not pieces and start == 0 and not _CONTENT.search(head) and not other:
                start = match.end()          # the model naming its own role before answering
                continue
            pieces.append(head)
            if other:
                return pieces or [""]        # a human/user turn: nothing after it is the model's answer
            start = match.end()
        pieces.append(piece[start:])
    return pieces or [""]


def own_turn(text: Optional[str]) -> str:
    """The model's own answer turn: :func:`answer_text`, then the first turn with content.

    Args:
        text: raw model output or ``None``.

    Returns:
        The first piece of :func:`turns` that holds anything but whitespace and punctuation
        (``"谣言"`` for ``"谣言<eoa>\\n<human>: 下一题"``), joined with the next one when it ends with an
        open answer head (:data:`OPEN_HEAD`: ``"答案：<eoa>谣言<eop>"`` → ``"答案：谣言"``); ``""`` when there is none.
    """
    pieces = turns(answer_text(text))
    for index, piece in enumerate(pieces):
        if piece.strip(EDGE_CHARS):
            if OPEN_HEAD.search(piece):          # "答案：<eoa>诉讼主体<eop>": the marker is no content
                filled = _first(pieces[index + 1:], lambda later: bool(later.strip(EDGE_CHARS)))
                return piece + filled
            return piece
    return ""


#: An answer head with a colon left open at the end of a turn (``答案：``, ``回答：\n``): the end marker after it
#: is not content, so the next piece fills the slot (:func:`own_turn`; ``答案：<eoa>诉讼主体<eop>``). Not a
#: bracketed tag: ``[正确答案]<eoa>`` is the asked format (the answer between the tag and the marker) left empty.
OPEN_HEAD = re.compile(r"(?:正确答案|答案|回答|回复|答|结论|类别|咨询类别|争议焦点|Answer|answer)[ \t*_]*[:：][ \t*_]*\s*$")


def _first(pieces: list[str], keep: Callable[[str], bool]) -> str:
    """The first of ``pieces`` that ``keep`` accepts, else ``""``."""
    return next((piece for piece in pieces if keep(piece)), "")


def first_turn(text: Optional[str]) -> str:
    """:func:`answer_text`, then the first piece of :func:`turns` that is not blank (punctuation
    counts: ``[]`` is an IE answer); ``""`` when there is none."""
    return _first(turns(answer_text(text)), lambda piece: bool(piece.strip()))


def written_turn(text: Optional[str]) -> str:
    """The model's own turn as written, for generation metrics: :func:`strip_think`, then the first
    piece of :func:`turns` that holds more than whitespace and punctuation, whitespace-stripped;
    no NFKC (BERTScore reads the text as written). ``""`` when there is none: an output that is
    only punctuation (``。``, ``……``) has nothing to score.

    Args:
        text: raw model output or ``None``.

    Returns:
        The text to score (``"摘要。"`` for ``"摘要。<eoa>\\n<human>: 再写一条"``), or ``""``.
    """
    return _first(turns(ZERO_WIDTH.sub("", strip_think(text))), _has_text).strip()


def _has_text(piece: str) -> bool:
    """Whether a piece holds anything but whitespace and punctuation (emoji or stray control
    characters are text: garbage to score, not an empty answer)."""
    return any(not (ch.isspace() or ch in EDGE_CHARS or unicodedata.category(ch).startswith("P"))
               for ch in unicodedata.normalize("NFKC", piece))


_CONTENT = re.compile(r"[0-9A-Za-z\u3400-\u9fff]")

