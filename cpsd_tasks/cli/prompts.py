"""Our Jinja prompts, compiled once instead of once per doc.

lm-eval 0.4.13 renders a string ``doc_to_text`` with ``lm_eval.utils.apply_template``, which calls
``env.from_string(template)`` — a full Jinja compilation — for every doc (and every few-shot
example): about 1.3 ms per prompt, most of the prompt cost of a run. :func:`install` wraps that
function so that the templates of *our* YAMLs (the ``doc_to_text`` strings of
``cpsd_tasks/yaml``) are compiled once, with the harness's own ``Environment`` (same filters,
``StrictUndefined``, ``keep_trailing_newline``), and rendered from the compiled template. The
prompt text is the same, byte for byte (tested on every task's docs); any other template goes to
the harness's function unchanged.

The YAMLs keep their prompts as plain ``doc_to_text`` strings, so the results JSON, the request
cache digest, the scoring signature and the baseline's task recognition see what they saw before.

``cpsd-eval`` and :func:`cpsd_tasks.task_manager` install the wrapper; plain ``lm_eval
--include_path`` runs do not (same prompts, compiled per doc).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

#: Fields of our YAMLs that may hold a Jinja template.
TEMPLATE_FIELDS = ("doc_to_text", "doc_to_target", "doc_to_choice", "gen_prefix", "description")


def _is_template(value: Any) -> bool:
    return isinstance(value, str) and ("{{" in value or "{%" in value)


@functools.lru_cache(maxsize=None)
def our_templates(yaml_dir: str | None = None) -> frozenset[str]:
    """The Jinja templates of every task YAML in ``yaml_dir`` (default: ours), as written there."""
    from cpsd_tasks import YAML_DIR, task_yaml

    found = set()
    folder = Path(yaml_dir) if yaml_dir else YAML_DIR
    for path in sorted([*folder.glob("*.yaml"), *folder.glob("*_yaml")]):
        cfg = task_yaml.read(path, include=False)
        if isinstance(cfg, dict):
            found.update(cfg[f] for f in TEMPLATE_FIELDS if _is_template(cfg.get(f)))
    return frozenset(found)


def install() -> None:
    """Compile our templates once in ``lm_eval.utils.apply_template`` (idempotent; see module doc)."""
    import lm_eval.utils as harness_utils

    original = harness_utils.apply_template
    if getattr(original, "_cpsd_compiled_once", False):
        return
    ours = our_templates()

    @functools.lru_cache(maxsize=256)
    def compiled(template: str) -> Any:
        return harness_utils.env.from_string(template)

    def apply_template(template: str, doc: dict) -> str:
        if template in ours:
            return compiled(template).render(**doc)
        return original(template, doc)

    apply_template._cpsd_compiled_once = True  # type: ignore[attr-defined]
    apply_template.__wrapped__ = original  # type: ignore[attr-defined]
    apply_template.__doc__ = original.__doc__
    harness_utils.apply_template = apply_template


def uninstall() -> None:
    """Undo :func:`install` (tests compare prompts with and without it)."""
    import lm_eval.utils as harness_utils

    current = harness_utils.apply_template
    if getattr(current, "_cpsd_compiled_once", False):
        harness_utils.apply_template = current.__wrapped__
