"""``cpsd-hf``: the harness's ``hf`` backend plus truncation flags from the token count.

``hf`` reports no finish reason. This subclass looks at each generated row: an output is
**truncated** when the model produced the whole ``max_gen_toks`` budget with no EOS/pad token and
no stop string in it (so generation was cut by the limit, not ended by the model). The flag goes
to :mod:`cpsd_tasks.truncation` (read by every task's ``truncated_rate``) and into the
``--use_cache`` database, like the API backends' ``finish_reason: "length"``.

Registered lazily by :mod:`cpsd_tasks.backends` (``--model cpsd-hf`` in ``cpsd-eval``), so torch
and transformers are imported only when it is used. Every ``hf`` model arg works unchanged.
Encoder-decoder models (``backend=seq2seq``) are never marked.

**Answer budgets fit the model.** ``hf`` refuses a task whose ``max_gen_toks`` is not below the
model's ``max_length`` (``requested max tokens to generate (2048) must be less than model's maximum
sequence length (1024)``). ``cpsd-hf`` caps such a budget, per task, to ``max_length`` minus the
task's longest prompt (at least a quarter of ``max_length``; a longer prompt is then cut from the
left by the harness, as it warns), logs one WARNING per task and records the caps in the results
(``config.model_info``/``cpsd_backend.max_gen_toks_capped``). Budgets that already fit are untouched.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from typing import Any

from lm_eval.models.huggingface import HFLM

from cpsd_tasks import truncation
from cpsd_tasks.backends.api import CACHE_MARK_PREFIX

log = logging.getLogger("cpsd_tasks.backends.hf")


def fit_budget(budget: int, max_length: int, longest_prompt: int) -> int:
    """The answer budget used for a task: ``budget`` when it is below ``max_length`` (the harness
    then cuts a too-long prompt from the left), else ``max_length`` minus the longest prompt, at
    least ``max_length // 4`` and at least 1."""
    if budget < max_length:
        return budget
    return max(max_length - longest_prompt, max_length // 4, 1)


class _TruncationHook:
    """Wraps the harness's cache hook: HFLM calls ``add_partial`` once per output, in row order."""

    def __init__(self, lm: "CpsdHFLM", inner: Any):
        self.lm, self.inner = lm, inner
        self.dbdict = getattr(inner, "dbdict", None)

    def add_partial(self, attr: str, req: Any, res: Any) -> None:
        if attr == "generate_until":
            self.lm._cpsd_output(req[0], res)
        self.inner.add_partial(attr, req, res)


class CpsdHFLM(HFLM):
    """``hf`` with ``truncated_rate`` support (module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._cpsd_lock = threading.Lock()
        self._cpsd_doc_keys: dict[str, set[str]] = {}
        self._cpsd_pending: deque[bool] = deque()
        self._cpsd_truncated = 0
        self._cpsd_capped: dict[str, dict[str, int]] = {}
        self.cache_hook = _TruncationHook(self, self.cache_hook)

    def set_cache_hook(self, cache_hook: Any) -> None:
        dbdict = getattr(cache_hook, "dbdict", None)
        if dbdict is not None:
            for key in dbdict.keys():
                if isinstance(key, str) and key.startswith(CACHE_MARK_PREFIX):
                    truncation.mark_key(key[len(CACHE_MARK_PREFIX):])
        super().set_cache_hook(_TruncationHook(self, cache_hook))

    def generate_until(self, requests: list, disable_tqdm: bool = False) -> list[str]:
        with self._cpsd_lock:
            for req in requests:
                self._cpsd_doc_keys.setdefault(str(req.args[0]), set()).add(truncation.doc_digest(req.doc))
            self._cpsd_pending.clear()
        if self.backend == "causal":
            self._cpsd_fit_budgets(requests)
        return super().generate_until(requests, disable_tqdm=disable_tqdm)

    def _cpsd_fit_budgets(self, requests: list) -> None:
        """Cap every ``max_gen_toks`` that does not fit the context (module docstring)."""
        groups: dict[tuple[str, int], list] = {}
        for req in requests:
            gen_kwargs = req.args[1] if len(req.args) > 1 else {}
            if not isinstance(gen_kwargs, dict):
                continue
            raw = next((gen_kwargs[k] for k in ("max_gen_toks", "max_new_tokens", "max_tokens",
                                                 "max_completion_tokens") if k in gen_kwargs), self.max_gen_toks)
            budget = int(raw)
            if budget >= self.max_length:
                groups.setdefault((str(req.task_name), budget), []).append(req)
        for (task, budget), reqs in groups.items():
            longest = max(len(self.tok_encode(r.args[0])) for r in reqs)
            cap = fit_budget(budget, self.max_length, longest)
            for req in reqs:
                kwargs = {k: v for k, v in req.args[1].items()
                          if k not in ("max_new_tokens", "max_tokens", "max_completion_tokens")}
                kwargs["max_gen_toks"] = cap
                req.arguments = (req.args[0], kwargs, *req.args[2:])
            self._cpsd_capped[task] = {"requested": budget, "used": cap, "max_length": self.max_length,
                                       "longest_prompt": longest}
            log.warning("cpsd-hf: %s: max_gen_toks %d does not fit the model's context (max_length %d); "
                        "answers capped at %d tokens (longest prompt %d tokens%s). Choose yourself with "
                        "--gen_kwargs max_gen_toks=N (N < %d) or --model_args max_length=...", task, budget,
                        self.max_length, cap, longest,
                        "; longer prompts are cut from the left" if longest + cap > self.max_length else "",
                        self.max_length)

    def _model_generate(self, context: Any, max_length: int, stop: list[str], **generation_kwargs: Any) -> Any:
        out = super()._model_generate(context, max_length, stop, **generation_kwargs)
        if self.backend != "causal":
            return out
        ctx_len = int(context.shape[1])
        budget = int(max_length) - ctx_len
        ends = {self.eot_token_id, self.tokenizer.pad_token_id, self.tokenizer.eos_token_id}
        eos_cfg = getattr(getattr(self.model, "generation_config", None), "eos_token_id", None)
        ends.update(eos_cfg if isinstance(eos_cfg, (list, tuple)) else [eos_cfg])
        ends.discard(None)
        for row in out.tolist():
            gen = row[ctx_len:]
            cut = len(gen) >= budget > 0 and not any(t in ends for t in gen)
            if cut and stop:
                text = self.tok_decode(gen, skip_special_tokens=False)
                cut = not any(s and s in text for s in stop)
            self._cpsd_pending.append(cut)
        return out

    def _cpsd_output(self, context: Any, output: Any) -> None:
        with self._cpsd_lock:
            cut = self._cpsd_pending.popleft() if self._cpsd_pending else False
            doc_keys = sorted(self._cpsd_doc_keys.get(str(context), ()))
            if cut:
                self._cpsd_truncated += 1
        keys = truncation.record(output, cut, doc_keys)
        dbdict = getattr(self.cache_hook, "dbdict", None)
        if keys and dbdict is not None:
            for key in keys:
                dbdict[CACHE_MARK_PREFIX + key] = True

    def get_model_info(self) -> dict:
        info = super().get_model_info()
        info["cpsd_backend"] = {"backend": "cpsd-hf", "answers_truncated": self._cpsd_truncated,
                                "truncation_rule": "max_gen_toks tokens generated, no EOS/pad, no stop string",
                                "max_gen_toks_capped": dict(self._cpsd_capped)}
        return info
