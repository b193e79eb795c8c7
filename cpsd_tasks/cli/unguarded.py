"""A warning, once per run, when cpsd tasks run on one of the harness's own API backends unguarded.

``cpsd-eval`` runs ``openai-chat-completions``, ``local-chat-completions`` and
``local-completions`` as the guarded ``cpsd-*`` backends (:mod:`cpsd_tasks.backends`). Plain
``lm_eval --include_path …`` cannot be changed from here: the harness builds its own class. The
task layer (:func:`cpsd_tasks.data.harness_dataset`, called when each task is built, after the
model) then says what that costs, once per process:

* ``openai-chat-completions`` (``OpenAIChatCompletion._create_payload``, lm-eval 0.4.13): a model
  whose name contains ``o1``, ``o3``, ``o4`` or the character ``5`` is sent ``temperature: 1`` and
  no ``stop`` — ``gpt-3.5-turbo``, ``qwen2.5-*``, ``glm-4.5`` included — while the results JSON
  records the task's greedy decoding. :data:`HARNESS_REASONING_RULE` is that rule, as written
  there;
* the three backends: an HTTP 200 answer with ``"choices": []`` ends the run after every request
  was sent, lone surrogates in an answer cost the task's sample log, and truncated answers are not
  counted (``truncated_rate`` 0).

The backend object is found in the harness's ``simple_evaluate`` frame (its local ``lm``), the only
place it exists while tasks are built; when it cannot be found, the ``model`` name in the task
metadata (the harness merges ``model_args`` into it) is judged by the name rule alone.
"""

from __future__ import annotations

import logging
import sys
from typing import Any, Mapping, Optional

log = logging.getLogger("cpsd_tasks")

#: lm-eval 0.4.13's rule for "reasoning" models in ``OpenAIChatCompletion._create_payload``.
HARNESS_NAME_MARKS = ("o1", "5", "o3", "o4")
HARNESS_REASONING_RULE = ('lm-eval 0.4.13 openai-chat-completions: "o1" in model or "5" in model or "o3" in '
                          'model or "o4" in model → temperature 1, no stop')
#: The harness's API classes by name (module ``lm_eval.models.openai_completions``).
HARNESS_CLASSES = {"OpenAIChatCompletion": "openai-chat-completions",
                   "LocalChatCompletion": "local-chat-completions",
                   "LocalCompletionsAPI": "local-completions"}

_warned = False


def harness_rule_applies(model: Optional[str]) -> bool:
    """The harness's own reasoning-model test (:data:`HARNESS_REASONING_RULE`) on ``model``."""
    return bool(model) and any(mark in str(model) for mark in HARNESS_NAME_MARKS)


def running_lm(max_depth: int = 60) -> Any:
    """The model object of the harness run calling us (``lm`` in ``simple_evaluate``'s frame,
    unwrapped from ``CachingLM``), or ``None``."""
    frame = sys._getframe(1)
    for _ in range(max_depth):
        if frame is None:
            return None
        if frame.f_code.co_name == "simple_evaluate" and "lm" in frame.f_locals:
            lm = frame.f_locals["lm"]
            return getattr(lm, "lm", lm) if type(lm).__name__ == "CachingLM" else lm
        frame = frame.f_back
    return None


def harness_backend_of(lm: Any) -> Optional[str]:
    """The harness's name of ``lm``'s class when it is one of its API classes unguarded (not a
    cpsd subclass), else ``None``."""
    cls = type(lm)
    if cls.__module__.startswith("cpsd_tasks"):
        return None
    for klass in cls.__mro__:
        if klass.__module__ == "lm_eval.models.openai_completions" and klass.__name__ in HARNESS_CLASSES:
            return HARNESS_CLASSES[klass.__name__]
    return None


def unguarded_warning(backend: Optional[str], model: Optional[str]) -> Optional[str]:
    """The warning for cpsd tasks on the harness's ``backend`` with ``model``, or ``None``.

    ``backend`` ``None`` means unknown: only the name rule is judged, conditionally.
    """
    guard = "run with cpsd-eval (same command, guarded) or --model cpsd-openai-chat / cpsd-local-chat"
    if backend is None:
        if not harness_rule_applies(model):
            return None
        return (f"cpsd: model {model!r}: IF this run uses lm_eval's own openai-chat-completions, its decoding is "
                f"NOT the task's greedy decoding ({HARNESS_REASONING_RULE}), though the results will say "
                f"temperature 0; {guard}")
    text = (f"cpsd: lm_eval's own {backend} backend runs without cpsd's guards: an answer without choices "
            f"ends the run after all requests, a lone surrogate in an answer costs the sample log, truncated "
            f"answers are not counted")
    if backend == "openai-chat-completions" and harness_rule_applies(model):
        text = (f"cpsd: model {model!r} is sampled, NOT decoded greedily as the task asks ({HARNESS_REASONING_RULE}), "
                f"though the results will say temperature 0; also " + text[len("cpsd: "):])
    return f"{text}; {guard}"


def warn_once(metadata: Mapping[str, Any]) -> Optional[str]:
    """Log :func:`unguarded_warning` for the running harness model once per process; returns it."""
    global _warned
    if _warned:
        return None
    lm = running_lm()
    backend = harness_backend_of(lm) if lm is not None else None
    if lm is not None and backend is None:  # a cpsd backend, hf, vllm …: nothing to say, ever
        _warned = True
        return None
    model = getattr(lm, "model", None) if lm is not None else metadata.get("model")
    message = unguarded_warning(backend, model if isinstance(model, str) else None)
    if message is not None:
        _warned = True
        log.warning(message)
    return message
