"""Log-likelihood (``multiple_choice``) variants of the closed-answer tasks, tag ``cpsd_ll``: their hooks.

An addition to the paper's protocol for local models (:mod:`~cpsd_tasks.ll.hooks` says what each
variant covers). The names below are reached as ``cpsd_tasks.ll.<name>`` (YAML ``!function``).
"""

from __future__ import annotations

from cpsd_tasks.ll.hooks import choices, gold_index, judge_docs, single_choice_docs

__all__ = ["choices", "gold_index", "judge_docs", "single_choice_docs"]
