"""Which model outputs were cut by the length limit (``finish_reason: "length"``).

The harness hands ``process_results`` the output text only; whether the backend stopped because
it ran out of tokens is lost on the way. The cpsd backends (:mod:`cpsd_tasks.backends`) record
it here, in this process, as each answer arrives, and every task family's ``process_results``
asks :func:`was_truncated` for its ``truncated_rate`` (and does not count a truncated output as a
refusal).

Two bounded registries (oldest entries dropped past :data:`MAX_ENTRIES`):

* **by document and output** — a SHA-256 of the doc (canonical JSON) and the exact output text.
  Exact even when two documents got the same text (typically ``""``: a reasoning model that spent
  its whole budget thinking, beside a content-filtered answer). The backends also store these
  keys in the ``--use_cache`` database, so a resumed run knows which cached answers were cut.
* **by output text alone** — for callers without the doc: an output counts as truncated when that
  exact text was seen cut and never seen complete in this process.

This module imports nothing heavy (no ``lm_eval``): scoring code may import it freely. ``cpsd-hf``
(:mod:`cpsd_tasks.backends.hf`) marks outputs that used the whole token budget. Outputs of
backends that report neither (``hf``, ``vllm``, the harness's own API classes) are never marked,
so their ``truncated_rate`` is 0.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from typing import Any, Iterable, Mapping, Optional

#: Entries kept per registry (a full 12-task run has about 3,000 outputs).
MAX_ENTRIES = 200_000

_LOCK = threading.Lock()
_BY_DOC: "OrderedDict[str, bool]" = OrderedDict()
#: exact output text -> [times seen truncated (document known), truncated (document unknown), complete]
_BY_TEXT: "OrderedDict[str, list[int]]" = OrderedDict()


def doc_digest(doc: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of a document's canonical JSON (sorted keys; any lone surrogate kept)."""
    text = json.dumps(doc, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def output_key(doc_key: str, output: Optional[str]) -> str:
    """Registry key of one output of one document (``doc_key`` from :func:`doc_digest`)."""
    text = "" if output is None else output
    h = hashlib.sha256(doc_key.encode("ascii"))
    h.update(b"\0")
    h.update(text.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def _bound(registry: "OrderedDict[str, Any]") -> None:
    while len(registry) > MAX_ENTRIES:
        registry.popitem(last=False)


def mark_key(key: str) -> None:
    """Record an :func:`output_key` as truncated (used when loading a ``--use_cache`` database)."""
    with _LOCK:
        _BY_DOC[key] = True
        _BY_DOC.move_to_end(key)
        _bound(_BY_DOC)


def record(output: Optional[str], truncated: bool, doc_keys: Iterable[str] = ()) -> list[str]:
    """Record one output as it arrives from the backend.

    Args:
        output: the text the harness will hand to ``process_results`` (``None`` = ``""``).
        truncated: the backend said the output hit the length limit.
        doc_keys: :func:`doc_digest` of the document(s) whose prompt produced it.

    Returns:
        The :func:`output_key` values marked truncated (empty when not truncated).
    """
    text = "" if output is None else output
    doc_keys = list(doc_keys)
    keys = [output_key(d, text) for d in doc_keys] if truncated else []
    with _LOCK:
        counts = _BY_TEXT.get(text)
        if counts is None:
            counts = _BY_TEXT[text] = [0, 0, 0]
        else:
            _BY_TEXT.move_to_end(text)
        counts[2 if not truncated else 0 if doc_keys else 1] += 1
        _bound(_BY_TEXT)
        for key in keys:
            _BY_DOC[key] = True
            _BY_DOC.move_to_end(key)
        _bound(_BY_DOC)
    return keys


def was_truncated(output: Optional[str], doc: Optional[Mapping[str, Any]] = None) -> bool:
    """Did the backend stop this output at the length limit?

    Args:
        output: the model output as ``process_results`` got it (``None`` counts as ``""``).
        doc: the document it answers. With it the answer is exact; without it, an output counts
            when this exact text was seen truncated and never seen complete in this process.

    Returns:
        ``True`` only for outputs a cpsd backend saw end with ``finish_reason == "length"`` in
        this process (or that a resumed run found so marked in its ``--use_cache`` database).
    """
    text = "" if output is None else output
    with _LOCK:
        if doc is not None and output_key(doc_digest(doc), text) in _BY_DOC:
            return True
        counts = _BY_TEXT.get(text)
        if counts is None or counts[2]:
            return False
        return bool(counts[1] if doc is not None else counts[0] + counts[1])


def clear() -> None:
    """Forget everything (tests; a long-lived process evaluating several models)."""
    with _LOCK:
        _BY_DOC.clear()
        _BY_TEXT.clear()
