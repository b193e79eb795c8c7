"""A scripted judge on loopback: a :class:`~capture_server.CaptureServer` that answers judge
prompts (:mod:`cpsd_tasks.judge.prompts`) by a fixed script, so tests know every reply.

The script reads the prompt's sections (【模型的回答】, 【可选标签】/【可选答案】, 【选项】,
【标准答案】):

* a reply in :data:`SCRIPT` (keyed by a phrase of the model's output) wins — the tests' answers
  given only by meaning;
* otherwise extraction prompts get the one label or letter set the output consists of (after
  trimming punctuation), else ``无有效答案``; equivalence prompts get 等价 when the output
  contains the gold answer, else 不等价; rubric prompts get 4/3/5.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Optional

from capture_server import CaptureServer, Reply

#: Output phrase → the judge's reply content (checked before the default rule).
SCRIPT: dict[str, str] = {}


def section(prompt: str, name: str) -> Optional[str]:
    """The text of section 【name】 of a judge prompt (up to the next 【…】 header), or ``None``."""
    m = re.search(rf"【{name}】(.*?)(?=\n【|\Z)", prompt, re.S)
    return m.group(1).strip() if m else None


def default_answer(prompt: str) -> dict[str, Any]:
    """The script's reply object for one prompt (see the module docstring)."""
    output = section(prompt, "模型的回答") or ""
    if "【评分标准】" in prompt:
        return {"准确性": 4, "完整性": 3, "规范性": 5}
    if "【标准答案】" in prompt:
        gold = section(prompt, "标准答案") or ""
        return {"answer": "等价" if gold and gold in output else "不等价"}
    bare = output.strip(" 。.！!：:\n")
    labels = section(prompt, "可选标签") or section(prompt, "可选答案")
    if labels is not None:
        return {"answer": bare if bare in labels.split("、") else "无有效答案"}
    letters = re.findall(r"^([A-Z])\. ", section(prompt, "选项") or "", re.M)
    ok = bare and all(ch in letters for ch in bare)
    return {"answer": bare if ok else "无有效答案"}


def scripted_reply(script: Optional[dict[str, str]] = None) -> Callable[[dict[str, Any], str], Reply]:
    """A ``CaptureServer`` reply function: ``script`` entries first, then :func:`default_answer`."""
    table = SCRIPT if script is None else script

    def reply(payload: dict[str, Any], prompt: str) -> Reply:
        output = section(prompt, "模型的回答") or ""
        for phrase, content in table.items():
            if phrase in output:
                return Reply(content)
        return Reply(json.dumps(default_answer(prompt), ensure_ascii=False))

    return reply


def judge_server(script: Optional[dict[str, str]] = None) -> CaptureServer:
    """A started scripted judge (``.url``, ``.payloads``, ``.stop()``)."""
    return CaptureServer(scripted_reply(script))
