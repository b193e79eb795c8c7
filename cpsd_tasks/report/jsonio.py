"""JSON reading shared by every reader of harness output (results, sample logs, rescored files).

Sample logs may hold lone-surrogate escapes (``"\\ud835"``: half of a character a model's
tokenizer split); they are valid JSON but cannot be written as UTF-8. Every reader of ours loads
them with :func:`loads_clean`, which turns a lone surrogate into U+FFFD, so nothing downstream
(CSV/JSONL exports, tables) fails to write them.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, Optional

import numpy as np

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
#: A JSON ``\\uXXXX`` escape of a surrogate code point (paired or not).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def clean_surrogates(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings (keys too, any depth) replaced by U+FFFD."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [clean_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {clean_surrogates(k): clean_surrogates(v) for k, v in value.items()}
    return value


def loads_clean(text: str) -> Any:
    """``json.loads(text)`` with lone surrogates replaced by U+FFFD (see module docstring); the
    cleaning pass runs only when ``text`` has a surrogate escape.

    Raises:
        json.JSONDecodeError: ``text`` is not JSON.
    """
    value = json.loads(text)
    return clean_surrogates(value) if _SURROGATE_ESCAPE.search(text) else value


def read_json(path: Path) -> Any:
    """One JSON file (UTF-8; undecodable bytes become U+FFFD), read with :func:`loads_clean`.

    Raises:
        OSError: the file cannot be read. json.JSONDecodeError: it is not JSON.
    """
    return loads_clean(Path(path).read_text(encoding="utf-8", errors="replace"))


def read_jsonl_lines(path: Path) -> list[dict[str, Any]]:
    """Read a JSONL file, splitting on ``\\n`` only (texts may hold U+2028, which ``splitlines`` splits).

    Lone surrogates (``"\\ud835"`` escapes) and undecodable bytes become U+FFFD
    (:func:`loads_clean`), so nothing downstream fails to write them. Blank lines are skipped.

    Raises:
        OSError: the file cannot be read. json.JSONDecodeError: a line is not JSON.
    """
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    return [loads_clean(line) for line in text.split("\n") if line.strip()]


def to_number(value: Any) -> Optional[float]:
    """A metric value as a float, or ``None`` when it is missing (``None``, ``"N/A"``, NaN, ±inf,
    text, a bool)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float, np.floating, np.integer)):
        value = float(value)
        return None if math.isnan(value) or math.isinf(value) else value
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return None
        return None if math.isnan(number) or math.isinf(number) else number
    return None


def sample_output(sample: dict[str, Any]) -> Optional[str]:
    """The output ``process_results`` saw: ``filtered_resps[0]`` (else ``resps[0][0]``), ``None`` if absent."""
    for key in ("filtered_resps", "resps"):
        value = sample.get(key)
        while isinstance(value, list):
            value = value[0] if value else None
        if value is not None:
            return value if isinstance(value, str) else str(value)
    return None
