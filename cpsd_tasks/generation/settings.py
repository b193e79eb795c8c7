"""BERTScore options of a run and why BERTScore can be missing (docs/metrics.md#text-generation).

Options (per run; ``--metadata`` wins over the environment; :func:`bertscore_settings`):

* ``bertscore_model`` / ``$CPSD_BERTSCORE_MODEL``: hub name or local directory
  (default ``bert-base-chinese``); ``none`` switches BERTScore off (reported as missing);
* ``bertscore_num_layers`` / ``$CPSD_BERTSCORE_NUM_LAYERS``: layer to use; required for a local
  directory unless its path names a model bert-score knows (``…/bert-base-chinese`` → 8);
* ``bertscore_batch_size`` / ``$CPSD_BERTSCORE_BATCH_SIZE``: batch size (default 32).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Union

from cpsd_tasks.generation import adapters
from cpsd_tasks.options import RunConfig, run_config

DEFAULT_BERTSCORE_MODEL = "bert-base-chinese"
DEFAULT_BERTSCORE_BATCH_SIZE = 32
ENV_MODEL = "CPSD_BERTSCORE_MODEL"
ENV_NUM_LAYERS = "CPSD_BERTSCORE_NUM_LAYERS"
ENV_BATCH_SIZE = "CPSD_BERTSCORE_BATCH_SIZE"
#: ``bertscore_model`` values that switch BERTScore off.
DISABLED = ("none", "off")


class BertScoreUnavailable(RuntimeError):
    """BERTScore cannot be computed (model not loadable, switched off, bad option).

    ``str(err)`` is the full message for the log; ``err.short`` a one-line reason for the table.
    """

    def __init__(self, message: str, short: str):
        super().__init__(message)
        self.short = short


@dataclass(frozen=True)
class BertScoreSettings:
    """Resolved BERTScore options of a run.

    Attributes:
        model: hub name or local directory, as given.
        num_layers: layer whose embeddings are compared (``None`` when unknown: an error).
        batch_size: texts per forward pass.
        origin: where ``model`` came from (``--metadata bertscore_model``,
            ``$CPSD_BERTSCORE_MODEL`` or ``default``).
    """

    model: str
    num_layers: Optional[int]
    batch_size: int
    origin: str

    @property
    def disabled(self) -> bool:
        """``bertscore_model=none``: BERTScore switched off on purpose."""
        return self.model.lower() in DISABLED


def _known_layers(model: str) -> Optional[int]:
    """bert-score's recommended layer for ``model`` or for a local path that names a known model.

    ``/models/bert-base-chinese`` and a hub-cache ``…/models--bert-base-chinese/snapshots/<hash>``
    both give 8; an unknown name gives ``None``.
    """
    model2layers = adapters.known_layers()
    if model in model2layers:
        return model2layers[model]
    for part in reversed(Path(model).parts):
        name = part[len("models--"):].replace("--", "/") if part.startswith("models--") else part
        if name in model2layers:
            return model2layers[name]
    return None


def _env_int(name: str) -> Optional[int]:
    """Environment variable ``name`` as an integer, ``None`` when unset or empty.

    Raises:
        ValueError: it is set but not an integer (the message names it).
    """
    value = os.environ.get(name)
    if not value:
        return None
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"${name}={value!r} is not an integer") from None


def bertscore_settings(config: Union[RunConfig, str]) -> BertScoreSettings:
    """Resolve the BERTScore options of a run (``--metadata`` > environment > default).

    Args:
        config: the task's :class:`~cpsd_tasks.options.RunConfig`, or a task id for the one the
            task was built with (:func:`cpsd_tasks.options.run_config`).

    Raises:
        ValueError: a BERTScore environment variable is not an integer (the message names it).
    """
    if isinstance(config, str):
        config = run_config(config)
    model = config.bertscore_model
    origin = "--metadata bertscore_model"
    if model is None and os.environ.get(ENV_MODEL):
        model, origin = os.environ[ENV_MODEL], f"${ENV_MODEL}"
    if model is None:
        model, origin = DEFAULT_BERTSCORE_MODEL, "default"
    model = str(model).strip()
    layers = config.bertscore_num_layers
    if layers is None:
        layers = _env_int(ENV_NUM_LAYERS)
    if layers is None and model.lower() not in DISABLED:  # _known_layers imports bert_score
        layers = _known_layers(model)
    batch = config.bertscore_batch_size
    if batch is None:
        batch = _env_int(ENV_BATCH_SIZE)
    if batch is None:
        batch = DEFAULT_BERTSCORE_BATCH_SIZE
    return BertScoreSettings(model=model, num_layers=layers, batch_size=max(1, batch), origin=origin)


def bert_score_version() -> str:
    """Installed bert-score distribution version (``"0.3.13"``), ``"?"`` if unknown."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("bert-score")
    except PackageNotFoundError:
        return "?"
