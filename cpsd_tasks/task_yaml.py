"""The one reader of task YAML files outside the harness (no ``lm_eval`` import).

The task index of ``cpsd-eval`` (:mod:`cpsd_tasks.cli.selection`), the prompt compiler
(:mod:`cpsd_tasks.cli.prompts`), the scoring signature (:func:`cpsd_tasks.options.prompt_template`),
the rule baseline and ``scripts/gen_yaml.py`` all read the YAMLs through :func:`read`, so they
agree on what a file says.

``!function a.b`` (the harness imports ``a.b``) is read as the string ``"!function a.b"``:
a value that names a function is neither lost nor taken for text; :func:`function_path` gives
``a.b`` back. With ``include``, the included files are merged beneath the file's own keys as
lm-eval 0.4.13's ``load_yaml`` does: one path or a list, relative to the including file or
absolute, later ones over earlier ones, the file's own keys over all of them; an included file's
``task_list`` is not inherited; an include cycle is an error.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Optional

#: The harness's tag for "import this function"; kept as the prefix of the value read.
FUNCTION_TAG = "!function"


@lru_cache(maxsize=1)
def _loader() -> Any:
    """A safe YAML loader (libyaml's when installed, as the harness uses) that reads
    ``!function a.b`` as the string ``"!function a.b"``."""
    import yaml

    class Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
        """Safe YAML plus the harness's ``!function`` tag, kept as text."""

    Loader.add_constructor(FUNCTION_TAG, lambda loader, node: f"{FUNCTION_TAG} {loader.construct_scalar(node)}")
    return Loader


def function_path(value: Any) -> Optional[str]:
    """``a.b`` when ``value`` was read from ``!function a.b``, else ``None``."""
    if isinstance(value, str) and value.startswith(FUNCTION_TAG + " "):
        return value[len(FUNCTION_TAG) + 1:]
    return None


def read(path: Any, include: bool = True, _seen: Optional[frozenset[Path]] = None) -> Any:
    """A task YAML as plain data.

    Args:
        path: the YAML file.
        include: merge the files its ``include`` names beneath its own keys (module doc); without
            it the file is read alone, ``include`` kept as written.

    Returns:
        What the file holds (a dict for a task or group file), ``!function`` values as strings.

    Raises:
        OSError: the file (or an included one) cannot be read. yaml.YAMLError: it is not YAML.
        ValueError: an include cycle.
    """
    import yaml

    path = Path(path)
    seen = (_seen or frozenset()) | {path.resolve()}
    cfg = yaml.load(path.read_text(encoding="utf-8"), Loader=_loader())  # noqa: S506 - a SafeLoader
    if not include or not isinstance(cfg, dict) or "include" not in cfg:
        return cfg
    includes = cfg["include"]
    merged: dict[str, Any] = {}
    for name in includes if isinstance(includes, list) else [includes]:
        inc_path = Path(name) if Path(name).is_absolute() else path.parent / name
        if inc_path.resolve() in seen:
            raise ValueError(f"{path}: include cycle at {inc_path}")
        base = read(inc_path, include=True, _seen=seen)
        if isinstance(base, dict):
            merged.update({key: value for key, value in base.items() if key != "task_list"})
    merged.update({key: value for key, value in cfg.items() if key != "include"})
    return merged
