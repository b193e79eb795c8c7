"""Chat backends for the harness that send what the task asks for, and say so when they cannot.

(Over 400 lines: each fix below is a small override of the harness's TemplateAPI, and they are
kept together because both backends share them; the list below is the table of contents.)

Registered with lm-eval's ``register_model`` when this module is imported (``cpsd-eval`` does;
from Python, ``import cpsd_tasks.backends`` (this package) before ``lm_eval.simple_evaluate``):

* ``cpsd-openai-chat`` — the OpenAI chat-completions API (``max_completion_tokens``,
  ``$OPENAI_API_KEY`` required), any provider or gateway via ``base_url``;
* ``cpsd-local-chat`` — any OpenAI-compatible server (vLLM, SGLang, llama.cpp, the rule
  baseline; ``max_tokens``, key optional);
* ``cpsd-local-completions`` — a completions endpoint (``prompt`` instead of ``messages``), the
  fixes below that apply to it.

``cpsd-eval`` runs the harness's own names with these classes (:data:`GUARDED_HARNESS_BACKENDS`:
``openai-chat-completions`` → ``cpsd-openai-chat``, ``local-chat-completions`` →
``cpsd-local-chat``, ``local-completions`` → ``cpsd-local-completions``; same arguments), so the
command a user types is guarded too; ``config.cpsd_backend.requested_as`` keeps the name typed.

What they fix in lm-eval 0.4.13's ``openai-chat-completions`` / ``local-chat-completions``:

* **Reasoning models by an exact rule** (:func:`is_reasoning_model`), not "the name contains 5":
  ``gpt-3.5-turbo``, ``qwen2.5-72b-instruct``, ``glm-4.5`` get the task's greedy decoding. A
  reasoning model (OpenAI o-series, GPT-5 family) accepts neither ``temperature`` nor ``stop``:
  neither is sent, and a WARNING says the decoding differs from the task's. Override the rule
  with ``reasoning=true|false`` in ``--model_args``.
* **What was sent is recorded**: ``config.cpsd_backend`` of the results JSON lists, per set of
  task generation kwargs, the tasks, what the task asked for, what was sent, and every
  difference; each difference is also a WARNING line when first seen and again at the end.
* **Filtered answers are answers**: an HTTP 200 with ``"choices": []``, no ``choices`` at all or
  ``"message": null`` is a filtered answer (the harness's null placeholder, ``""``), which our
  metrics score as a refusal — never a crash, never a dropped sample.
* **Stop strings**: ``send_stop=false`` sends no ``stop`` (for servers that reject it); a task
  with more stop strings than ``max_stop`` (default 4, OpenAI's limit) is warned about and sends
  the first ``max_stop``. The harness's EOS is added only when ``eos_string`` is given.
* **Lone surrogates** in answers become U+FFFD before the harness sees them, so the sample log
  (and the ``--use_cache`` database) keeps every sample.
* **Truncation**: each answer's ``finish_reason == "length"`` is recorded in
  :mod:`cpsd_tasks.truncation` (and in the ``--use_cache`` database), read by every task's
  ``truncated_rate``.

``cpsd-hf`` (:mod:`cpsd_tasks.backends.hf`, registered lazily here) is ``hf`` plus truncation
flags from the token count.

Importing this module also puts a digest of each cpsd task's docs and prompt into the key of the
harness's request cache (``--cache_requests``), so changed data never reuses stale prompts
(:func:`install_request_cache_digest`).
"""

from __future__ import annotations

import contextvars
import copy
import hashlib
import json
import logging
import re
import threading
from typing import Any, Optional

from lm_eval.api.registry import register_model
from lm_eval.models.api_models import LMEVAL_MODEL_NONE_ANSWER_PLACEHOLDER, JsonChatStr
from lm_eval.models.openai_completions import LocalChatCompletion, LocalCompletionsAPI, OpenAIChatCompletion
from lm_eval.models.utils import handle_stop_sequences, postprocess_generated_text

from cpsd_tasks import truncation

log = logging.getLogger("cpsd_tasks.backends")

#: Prefix of the truncation marks stored in a ``--use_cache`` database.
CACHE_MARK_PREFIX = "cpsd-truncated:"
#: ``finish_reason`` values meaning "cut by the token limit" (OpenAI/vLLM; some gateways).
TRUNCATED_FINISH_REASONS = ("length", "max_tokens")
#: OpenAI's limit on ``stop`` strings.
DEFAULT_MAX_STOP = 4

_SURROGATE = re.compile("[\ud800-\udfff]")

# OpenAI reasoning models (no temperature, no stop): the o-series and the GPT-5 family.
# Matched against the name lower-cased, after any "vendor/" path and an "ft:" prefix.
_REASONING_RULES = (
    re.compile(r"o[1-9](?:-[a-z0-9.-]+)?"),            # o1, o1-mini, o3-pro, o4-mini-2025-04-16
    re.compile(r"gpt-5(?:\.[0-9]+)?(?:-[a-z0-9.-]+)?"),  # gpt-5, gpt-5-mini, gpt-5.1-2025-11-13
)
_NOT_REASONING = re.compile(r"gpt-5(?:\.[0-9]+)?-chat(?:-.*)?")  # gpt-5-chat-latest: a chat model
#: The rule in words (recorded in the results).
REASONING_RULE = ("name (lower-case, after any 'vendor/' and 'ft:' prefix, up to a ':' suffix) is "
                  "o<digit>[-...] or gpt-5[.N][-...], except gpt-5[.N]-chat[-...]")


def is_reasoning_model(name: Optional[str]) -> bool:
    """Exact rule: is ``name`` an OpenAI reasoning model (which accepts no temperature/stop)?

    True for ``o1``, ``o1-mini``, ``o3``, ``o3-mini-2025-01-31``, ``o4-mini``, ``gpt-5``,
    ``gpt-5-mini``, ``gpt-5-nano``, ``gpt-5.1``, ``openai/o3``, ``ft:o4-mini:org::id``; false for
    ``gpt-3.5-turbo``, ``gpt-4o-2024-05-13``, ``qwen2.5-72b-instruct``, ``glm-4.5``,
    ``gpt-4.5-preview``, ``gpt-5-chat-latest``, ``deepseek-r1``, ``""``, ``None``.
    """
    if not name:
        return False
    base = str(name).strip().lower().rsplit("/", 1)[-1]
    if base.startswith("ft:"):
        base = base[3:]
    base = base.split(":", 1)[0]
    if _NOT_REASONING.fullmatch(base):
        return False
    return any(rule.fullmatch(base) for rule in _REASONING_RULES)


def sanitize(text: Optional[str]) -> Optional[str]:
    """Replace lone surrogates (not encodable as UTF-8) with U+FFFD; ``None`` stays ``None``."""
    if text is None or not _SURROGATE.search(text):
        return text
    return _SURROGATE.sub("\ufffd", text)


def _parse_flag(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    text = str(value).strip().lower()
    if text in ("true", "yes", "1", "on"):
        return True
    if text in ("false", "no", "0", "off"):
        return False
    raise ValueError(f"cpsd backend: {name}={value!r}: expected true or false")


def _context_text(ctx: Any) -> str:
    if isinstance(ctx, JsonChatStr):
        return ctx.prompt
    if isinstance(ctx, str):
        return ctx
    return json.dumps(ctx, ensure_ascii=False, default=str)


def _kwargs_key(gen_kwargs: Any) -> str:
    return json.dumps(gen_kwargs, sort_keys=True, ensure_ascii=False, default=str)


# The prompt(s) of the request being parsed, for the async path (parse_generations gets no context).
_CURRENT_CONTEXTS: contextvars.ContextVar[Optional[list]] = contextvars.ContextVar("cpsd_contexts", default=None)


class _CpsdChatMixin:
    """Shared behaviour of the cpsd chat backends (see the module docstring)."""

    #: payload field for the answer budget
    max_tokens_field = "max_tokens"
    backend_name = "cpsd-local-chat"

    def _cpsd_setup(self, reasoning: Any, send_stop: Any, max_stop: Any) -> None:
        if reasoning is None or str(reasoning).strip().lower() == "auto":
            self.reasoning = is_reasoning_model(self.model)
            self.reasoning_source = "rule"
        else:
            self.reasoning = _parse_flag(reasoning, "reasoning")
            self.reasoning_source = "model_args reasoning="
        self.send_stop = _parse_flag(send_stop, "send_stop")
        try:
            self.max_stop = int(max_stop)
        except (TypeError, ValueError):
            raise ValueError(f"cpsd backend: max_stop={max_stop!r}: expected a whole number >= 1") from None
        if self.max_stop < 1:
            raise ValueError(f"cpsd backend: max_stop={max_stop!r}: expected a whole number >= 1")
        self._cpsd_lock = threading.Lock()
        self._sent: dict[str, dict[str, Any]] = {}
        self._tasks_by_kwargs: dict[str, set[str]] = {}
        self._doc_keys: dict[str, set[str]] = {}
        self._truncated = 0
        self._filtered = 0
        if self.reasoning:
            log.warning(
                "cpsd: %r is treated as a REASONING model (%s): no temperature and no stop strings "
                "are sent (the API rejects them), so decoding is the API's default sampling, NOT the "
                "task's greedy decoding. Results record this under config.cpsd_backend. "
                "Pass reasoning=false in --model_args if the model accepts temperature and stop.",
                self.model, "by name rule" if self.reasoning_source == "rule" else "reasoning=true")

    # ------------------------------------------------------------------ payload

    def _prompt_field(self, messages: Any) -> dict[str, Any]:
        """The prompt part of the request body: ``{"messages": …}`` (chat)."""
        assert isinstance(messages, list) and all(isinstance(m, dict) for m in messages), (
            f"{self.backend_name} expects chat messages: pass --apply_chat_template")
        return {"messages": messages}

    def _create_payload(self, messages: Any, generate: bool = False, gen_kwargs: Optional[dict] = None,
                        seed: int = 1234, eos: Optional[str] = None, **kwargs: Any) -> dict:
        prompt = self._prompt_field(messages)
        task_kwargs = copy.deepcopy(gen_kwargs or {})
        gk = dict(gen_kwargs or {})
        gk.pop("do_sample", None)
        if "max_tokens" in gk:
            max_tokens = gk.pop("max_tokens")
            gk.pop("max_gen_toks", None)
        else:
            max_tokens = gk.pop("max_gen_toks", self._max_gen_toks)
        temperature = gk.pop("temperature", 0.0)
        until = gk.pop("until", None)
        stop = handle_stop_sequences(list(until) if isinstance(until, (list, tuple)) else until,
                                     self._eos_string)
        payload: dict[str, Any] = {**prompt, "model": self.model, self.max_tokens_field: max_tokens,
                                   "seed": seed}
        if not self.reasoning:
            payload["temperature"] = temperature
            if self.send_stop and stop:
                payload["stop"] = stop[: self.max_stop]
        payload.update(gk)
        self._note_sent(task_kwargs, payload, stop)
        return payload

    def _note_sent(self, task_kwargs: dict, payload: dict, stop: list) -> None:
        key = _kwargs_key(task_kwargs)
        with self._cpsd_lock:
            if key in self._sent:
                return
            task_view = {
                "temperature": task_kwargs.get("temperature", 0.0),
                "do_sample": task_kwargs.get("do_sample", False),
                "stop": list(stop),
                "max_tokens": payload[self.max_tokens_field],
            }
            sent_view = {k: v for k, v in payload.items() if k not in ("messages", "prompt", "model")}
            differences = []
            if "temperature" not in payload:
                differences.append(f"temperature: task {task_view['temperature']}, sent none (API default, "
                                   f"sampling; reasoning model)")
            elif payload["temperature"] != task_view["temperature"]:
                differences.append(f"temperature: task {task_view['temperature']}, sent {payload['temperature']}")
            if task_view["do_sample"] and "temperature" in payload and not payload["temperature"]:
                differences.append("do_sample: task true, sent temperature 0 (greedy)")
            sent_stop = payload.get("stop", [])
            if stop and not sent_stop:
                why = "reasoning model" if self.reasoning else "send_stop=false"
                differences.append(f"stop: task {stop}, sent none ({why})")
            elif len(sent_stop) < len(stop):
                differences.append(f"stop: task has {len(stop)} stop strings, the API takes at most "
                                   f"{self.max_stop}: sent {sent_stop}, dropped {stop[len(sent_stop):]} "
                                   f"(set max_stop=N in --model_args if the server accepts more)")
            self._sent[key] = {"task_gen_kwargs": task_kwargs, "task": task_view, "sent": sent_view,
                               "differences": differences}
        for diff in differences:
            log.warning("cpsd: DECODING DIFFERS FROM THE TASK (%s, model %s): %s",
                        self.backend_name, self.model, diff)

    # ------------------------------------------------------------------ answers

    def generate_until(self, requests: list, disable_tqdm: bool = False) -> list[str]:
        with self._cpsd_lock:
            for req in requests:
                ctx = _context_text(req.args[0])
                self._doc_keys.setdefault(ctx, set()).add(truncation.doc_digest(req.doc))
                self._tasks_by_kwargs.setdefault(_kwargs_key(req.args[1]), set()).add(str(req.task_name))
        return super().generate_until(requests, disable_tqdm=disable_tqdm)  # type: ignore[misc]

    async def amodel_call(self, *args: Any, **kwargs: Any) -> Any:
        messages = kwargs["messages"] if "messages" in kwargs else args[2]
        token = _CURRENT_CONTEXTS.set(list(messages))
        try:
            return await super().amodel_call(*args, **kwargs)  # type: ignore[misc]
        finally:
            _CURRENT_CONTEXTS.reset(token)

    def parse_generations(self, outputs: Any, **kwargs: Any) -> list[Optional[str]]:
        contexts = kwargs.get("contexts")
        if contexts is None:
            contexts = _CURRENT_CONTEXTS.get()
        outs = outputs if isinstance(outputs, list) else [outputs]
        res: list[Optional[str]] = []
        for n, out in enumerate(outs):
            ctx = contexts[n] if contexts is not None and n < len(contexts) else None
            choices = out.get("choices") if isinstance(out, dict) else None
            if not isinstance(choices, list) or not choices:
                with self._cpsd_lock:
                    self._filtered += 1
                log.warning("cpsd: HTTP 200 answer without choices, scored as a filtered answer (refusal): %.300s",
                            json.dumps(out, ensure_ascii=False, default=str))
                res.append(None)
                self._record(ctx, None, "no_choices")
                continue
            texts: list[Optional[str]] = [None] * len(choices)
            for i, choice in enumerate(choices):
                choice = choice if isinstance(choice, dict) else {}
                idx = choice.get("index", i)
                if not isinstance(idx, int) or not 0 <= idx < len(choices):
                    idx = i
                message = choice.get("message")
                content = message.get("content") if isinstance(message, dict) else None
                if isinstance(content, list):  # content parts: keep the text ones
                    content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
                elif content is not None and not isinstance(content, str):
                    content = str(content)
                if content is not None:
                    content = sanitize(postprocess_generated_text(content, stop=None,
                                                                  think_end_token=self.think_end_token))
                else:
                    with self._cpsd_lock:
                        self._filtered += 1
                texts[idx] = content
                if i == 0:
                    self._record(ctx, content, choice.get("finish_reason"))
            res.extend(texts)
        return res

    def _record(self, ctx: Any, content: Optional[str], finish_reason: Any) -> None:
        if ctx is None:
            return
        text = LMEVAL_MODEL_NONE_ANSWER_PLACEHOLDER if content is None else content
        truncated = finish_reason in TRUNCATED_FINISH_REASONS
        with self._cpsd_lock:
            doc_keys = sorted(self._doc_keys.get(_context_text(ctx), ()))
            if truncated:
                self._truncated += 1
        keys = truncation.record(text, truncated, doc_keys)
        dbdict = getattr(getattr(self, "cache_hook", None), "dbdict", None)
        if keys and dbdict is not None:
            for key in keys:
                dbdict[CACHE_MARK_PREFIX + key] = True

    def set_cache_hook(self, cache_hook: Any) -> None:
        super().set_cache_hook(cache_hook)  # type: ignore[misc]
        dbdict = getattr(cache_hook, "dbdict", None)
        if dbdict is None:
            return
        for key in dbdict.keys():
            if isinstance(key, str) and key.startswith(CACHE_MARK_PREFIX):
                truncation.mark_key(key[len(CACHE_MARK_PREFIX):])

    # ------------------------------------------------------------------ record

    def get_model_info(self) -> dict[str, Any]:
        """What lands in ``config`` of the results JSON: the decoding actually sent."""
        with self._cpsd_lock:
            sent = []
            for key, entry in self._sent.items():
                sent.append({"tasks": sorted(self._tasks_by_kwargs.get(key, ())), **entry})
            info = {
                "backend": self.backend_name,
                "requested_as": REQUESTED_AS.get(self.backend_name, self.backend_name),
                "model": self.model,
                "reasoning_model": self.reasoning,
                "reasoning_decided_by": self.reasoning_source,
                "reasoning_rule": REASONING_RULE,
                "send_stop": self.send_stop,
                "max_stop": self.max_stop,
                "decoding_sent": sent,
                "decoding_differs_from_task": any(e["differences"] for e in sent),
                "answers_truncated": self._truncated,
                "answers_filtered": self._filtered,
            }
        for entry in sent:
            for diff in entry["differences"]:
                log.warning("cpsd: this run's decoding differed from the task's (%s): %s",
                            ", ".join(entry["tasks"]) or "?", diff)
        return {"cpsd_backend": info}


@register_model("cpsd-local-chat")
class CpsdLocalChat(_CpsdChatMixin, LocalChatCompletion):
    """``local-chat-completions`` with the cpsd fixes (module docstring). Extra model args:
    ``reasoning`` (auto|true|false), ``send_stop`` (true), ``max_stop`` (4)."""

    max_tokens_field = "max_tokens"
    backend_name = "cpsd-local-chat"

    def __init__(self, base_url: Optional[str] = None, reasoning: Any = "auto", send_stop: Any = True,
                 max_stop: Any = DEFAULT_MAX_STOP, **kwargs: Any) -> None:
        super().__init__(base_url=base_url, **kwargs)
        self._cpsd_setup(reasoning, send_stop, max_stop)


@register_model("cpsd-openai-chat")
class CpsdOpenAIChat(_CpsdChatMixin, OpenAIChatCompletion):
    """``openai-chat-completions`` with the cpsd fixes (module docstring): ``max_completion_tokens``,
    ``$OPENAI_API_KEY`` required. Extra model args: ``reasoning`` (auto|true|false),
    ``send_stop`` (true), ``max_stop`` (4)."""

    max_tokens_field = "max_completion_tokens"
    backend_name = "cpsd-openai-chat"

    def __init__(self, base_url: str = "https://api.openai.com/v1/chat/completions", reasoning: Any = "auto",
                 send_stop: Any = True, max_stop: Any = DEFAULT_MAX_STOP, **kwargs: Any) -> None:
        kwargs.setdefault("tokenizer_backend", None)
        kwargs.setdefault("tokenized_requests", False)
        # LocalChatCompletion's __init__, not OpenAIChatCompletion's: that one only warns about "o1".
        LocalChatCompletion.__init__(self, base_url=base_url, **kwargs)
        self._cpsd_setup(reasoning, send_stop, max_stop)


@register_model("cpsd-local-completions")
class CpsdLocalCompletions(_CpsdChatMixin, LocalCompletionsAPI):
    """``local-completions`` with the cpsd fixes that apply to a completions endpoint (module
    docstring): answers without ``choices`` or ``text`` are filtered answers, lone surrogates are
    repaired, ``finish_reason: "length"`` is counted, the stop strings and the decoding sent are
    recorded. Log-likelihood requests (``cpsd_ll``) are the harness's own. Extra model args as
    :class:`CpsdLocalChat`."""

    max_tokens_field = "max_tokens"
    backend_name = "cpsd-local-completions"

    def __init__(self, base_url: Optional[str] = None, reasoning: Any = "auto", send_stop: Any = True,
                 max_stop: Any = DEFAULT_MAX_STOP, **kwargs: Any) -> None:
        super().__init__(base_url=base_url, **kwargs)
        self._cpsd_setup(reasoning, send_stop, max_stop)

    def _prompt_field(self, messages: Any) -> dict[str, Any]:
        """The prompt part of the request body: ``{"prompt": …}`` (text, texts or token ids)."""
        return {"prompt": messages}

    def _create_payload(self, messages: Any, generate: bool = False, gen_kwargs: Optional[dict] = None,
                        seed: int = 1234, eos: Optional[str] = None, **kwargs: Any) -> dict:
        if not generate:  # log-likelihood: the harness's request, unchanged
            return LocalCompletionsAPI._create_payload(self, messages, generate=False, gen_kwargs=gen_kwargs,
                                                       seed=seed, eos=eos, **kwargs)
        return super()._create_payload(messages, generate=True, gen_kwargs=gen_kwargs, seed=seed, eos=eos,
                                       **kwargs)

    def generate_until(self, requests: list, disable_tqdm: bool = False) -> list[str]:
        if getattr(self, "tokenized_requests", False) and getattr(self, "tokenizer", None) is not None:
            self._note_token_contexts(requests)
        return super().generate_until(requests, disable_tqdm=disable_tqdm)

    def _note_token_contexts(self, requests: list) -> None:
        """With ``tokenized_requests``, the prompt sent is the context's token ids, cut from the left
        to ``max_length - max_gen_toks`` as the harness cuts them: key those to the same documents."""
        for req in requests:
            try:
                ids = self.tok_encode(req.args[0], add_special_tokens=self.add_bos_token)
                budget = self.max_length - int(req.args[1].get("max_gen_toks", self._max_gen_toks))
            except Exception:  # noqa: BLE001 - truncation is then not counted for this doc, nothing else
                continue
            key = _context_text(list(ids[-budget:]) if budget > 0 else list(ids))
            with self._cpsd_lock:
                self._doc_keys.setdefault(key, set()).add(truncation.doc_digest(req.doc))

    def parse_generations(self, outputs: Any, **kwargs: Any) -> list[Optional[str]]:
        """Texts of a completions answer, one per prompt of the request (``choices[i].index``)."""
        contexts = kwargs.get("contexts")
        if contexts is None:
            contexts = _CURRENT_CONTEXTS.get()
        contexts = list(contexts) if contexts is not None else None
        outs = outputs if isinstance(outputs, list) else [outputs]
        res: list[Optional[str]] = []
        for out in outs:
            choices = out.get("choices") if isinstance(out, dict) else None
            expected = max(1, len(contexts) if contexts is not None and len(outs) == 1 else 1)
            texts: list[Optional[str]] = [None] * max(expected, len(choices) if isinstance(choices, list) else 0)
            if not isinstance(choices, list) or not choices:
                with self._cpsd_lock:
                    self._filtered += len(texts)
                log.warning("cpsd: HTTP 200 answer without choices, scored as a filtered answer (refusal): %.300s",
                            json.dumps(out, ensure_ascii=False, default=str))
            for i, choice in enumerate(choices if isinstance(choices, list) else []):
                choice = choice if isinstance(choice, dict) else {}
                idx = choice.get("index", i)
                if not isinstance(idx, int) or not 0 <= idx < len(texts):
                    idx = i
                text = choice.get("text")
                text = sanitize(text if isinstance(text, str) or text is None else str(text))
                if text is None:
                    with self._cpsd_lock:
                        self._filtered += 1
                texts[idx] = text
                ctx = contexts[idx] if contexts is not None and idx < len(contexts) else None
                self._record(ctx, text, choice.get("finish_reason"))
            res.extend(texts)
        return res


#: The harness's own API backends and the cpsd backend that runs each with the same arguments and
#: the guards above. ``cpsd-eval`` runs ``--model <harness name>`` as the cpsd one (one stderr line).
GUARDED_HARNESS_BACKENDS: dict[str, str] = {
    "openai-chat-completions": "cpsd-openai-chat",
    "local-chat-completions": "cpsd-local-chat",
    "local-completions": "cpsd-local-completions",
}
#: cpsd backend name -> the ``--model`` name the user typed, when ``cpsd-eval`` substituted it
#: (recorded as ``config.cpsd_backend.requested_as``).
REQUESTED_AS: dict[str, str] = {}


def guard_harness_backend(model: str) -> Optional[str]:
    """The cpsd backend that runs the harness's API backend ``model``, or ``None`` when ``model``
    is not one of :data:`GUARDED_HARNESS_BACKENDS`; the substitution is remembered for the record."""
    ours = GUARDED_HARNESS_BACKENDS.get(model)
    if ours is not None:
        REQUESTED_AS[ours] = model
    return ours


# ``cpsd-hf``: the harness's hf backend with truncation flags from the token count. Lazy, so that
# API runs do not import torch/transformers.
from lm_eval.api.registry import model_registry  # noqa: E402

if "cpsd-hf" not in model_registry:
    model_registry.register("cpsd-hf", target="cpsd_tasks.backends.hf:CpsdHFLM")


# --------------------------------------------------------------------------- request cache

def task_digest(task: Any) -> str:
    """SHA-256 (16 hex) of a task's data (every split, every doc) and its prompt fields."""
    h = hashlib.sha256()
    dataset = getattr(task, "dataset", None)
    splits = dataset.items() if hasattr(dataset, "items") else [("eval", task.eval_docs)]
    for split, docs in sorted(splits, key=lambda kv: str(kv[0])):
        h.update(f"\0split:{split}\0".encode())
        for doc in docs:
            h.update(truncation.doc_digest(doc).encode("ascii"))
    config = getattr(task, "config", None)
    for field in ("doc_to_text", "doc_to_target", "doc_to_choice", "description", "target_delimiter",
                  "fewshot_delimiter", "gen_prefix"):
        value = getattr(config, field, None)
        if isinstance(value, (str, list, dict)):
            h.update(f"\0{field}:".encode())
            h.update(json.dumps(value, ensure_ascii=False, sort_keys=True).encode("utf-8", "surrogatepass"))
    return h.hexdigest()[:16]


def install_request_cache_digest() -> None:
    """Make ``--cache_requests`` key cpsd tasks on their data and prompt (idempotent).

    lm-eval 0.4.13 names a task's request cache after the task, few-shot count, rank, chat
    template, system prompt and tokenizer only (``Task.build_all_requests``): changed data (or
    another data dir) reuses the old prompts while scoring the new docs. The wrapper adds
    :func:`task_digest` to the tokenizer part of the key of ``cpsd_*`` tasks.
    """
    from lm_eval.api.task import Task

    original = Task.build_all_requests
    if getattr(original, "_cpsd_digest", False):
        return

    def build_all_requests(self: Any, *args: Any, **kwargs: Any) -> Any:
        name = str(getattr(getattr(self, "config", None), "task", "") or "")
        if kwargs.get("cache_requests") and name.startswith("cpsd_"):
            digest = task_digest(self)
            kwargs["tokenizer_name"] = f"{kwargs.get('tokenizer_name') or ''}-cpsd-data{digest}"
            log.info("cpsd: %s request cache keyed on data/prompt digest %s", name, digest)
        return original(self, *args, **kwargs)

    build_all_requests._cpsd_digest = True  # type: ignore[attr-defined]
    build_all_requests.__doc__ = original.__doc__
    Task.build_all_requests = build_all_requests  # type: ignore[method-assign]


install_request_cache_digest()
