"""The run configuration of a task (α, τ, τ_qa, BERTScore model …) and its scoring signature.

The harness passes a task's metadata (YAML ``metadata``, model args and ``--metadata``) only to
the ``custom_dataset`` hook, not to ``process_results``. That hook
(:func:`cpsd_tasks.data.harness_dataset`) therefore builds the task's :class:`RunConfig` once —
checked, with every default filled in, frozen — with :func:`configure`, before any request is sent;
metric code reads it back with :func:`run_config`. Nothing else writes it: report code that
re-scores a stored run builds its own :class:`RunConfig` and passes it explicitly. Configurations
are per task id and per process, which is how the harness runs a task.

The same hook writes the task's **scoring signature** (:func:`signature`, like sacrebleu's), built
from the configuration, into the task's metadata, so the results JSON says how its numbers were
computed: in ``configs.<task>.metadata.cpsd_signature`` (the harness dumps each task's config
there). The task YAMLs hold an empty ``cpsd_signature: {}`` slot that the hook fills in place —
the hook gets the metadata as keyword arguments, so a nested dict is the one object it can change.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

from cpsd_tasks.exceptions import DataError

#: Defaults of the IE mix weight α and fuzzy threshold τ (docs/metrics.md#information-extraction).
DEFAULT_ALPHA = 0.5
DEFAULT_TAU = 0.8
#: Default 模糊 similarity threshold τ_qa of case_reading (docs/metrics.md#case-reading).
TAU_QA_DEFAULT = 0.6

#: Signatures of the tasks built in this process, by task id (see :func:`signature`).
SIGNATURES: dict[str, dict[str, Any]] = {}

#: Key of the signature in a task's metadata (and so in the results JSON's ``configs``).
SIGNATURE_KEY = "cpsd_signature"

#: Real-valued options: name -> (low, high, low included?, what it is). High is always included.
RANGES: dict[str, tuple[float, float, bool, str]] = {
    "alpha": (0.0, 1.0, True, "IE weight of the exact stage α"),
    "tau": (0.0, 1.0, False, "IE fuzzy-match threshold τ"),
    "tau_qa": (0.0, 1.0, True, "case_reading 模糊 similarity threshold τ_qa"),
}
#: Integer options: name -> smallest allowed value.
INTEGERS: dict[str, int] = {"bertscore_num_layers": 1, "bertscore_batch_size": 1}


class OptionError(DataError):
    """A run option (``--metadata`` / model arg) that cannot be used; raised before any request."""

    def __init__(self, message: str):
        super().__init__(message, headline="invalid run option")


@dataclasses.dataclass(frozen=True)
class RunConfig:
    """The cpsd run options of one task, checked once (docs/running.md#run-options).

    Build it with :meth:`from_metadata`; ``RunConfig(task_id)`` is the configuration of a run
    that sets no option.

    Attributes:
        task_id: the task id (``drug_ner``).
        alpha: IE weight of the exact stage α in [0, 1] (default 0.5).
        tau: IE fuzzy-match threshold τ in (0, 1] (default 0.8).
        tau_qa: case_reading 模糊 threshold τ_qa in [0, 1] (default 0.6).
        bertscore_model, bertscore_num_layers, bertscore_batch_size: as given in the metadata,
            ``None`` when not given (the environment and the defaults are then used:
            :func:`cpsd_tasks.generation.bertscore_settings`).
    """

    task_id: str
    alpha: float = DEFAULT_ALPHA
    tau: float = DEFAULT_TAU
    tau_qa: float = TAU_QA_DEFAULT
    bertscore_model: Optional[str] = None
    bertscore_num_layers: Optional[int] = None
    bertscore_batch_size: Optional[int] = None

    @classmethod
    def from_metadata(cls, task_id: str, metadata: Mapping[str, Any]) -> "RunConfig":
        """Check every cpsd option in ``metadata`` and return the task's configuration.

        Every option in :data:`RANGES` and :data:`INTEGERS` is checked whichever task it is given
        to (``--metadata`` reaches all tasks; a bad value is a mistake wherever it lands); other
        keys (``data_dir``, the harness's own) are ignored. For a generation task the BERTScore
        settings are resolved too (environment variables); whether a local model folder can be
        used is :meth:`check_model_folder`'s question (a run asks it, a re-scoring reports it).

        Raises:
            OptionError: a value out of range, not a number, or not an integer; ``bertscore_model``
                empty or not a string; a BERTScore environment variable that is not an integer.
            KeyError: ``task_id`` is unknown.
        """
        from cpsd_tasks.tasks import get_task

        spec = get_task(task_id)
        given = {k: v for k, v in metadata.items() if k in (*RANGES, *INTEGERS, "bertscore_model")
                 and v not in (None, "")}
        for name in RANGES:
            if name in given:
                _check_range(spec.id, name, given[name])
        for name in INTEGERS:
            if name in given:
                _check_integer(spec.id, name, given[name])
        model = given.get("bertscore_model")
        if model is not None and not (isinstance(model, str) and model.strip()):
            raise OptionError(f"cpsd_{spec.id}: option bertscore_model={model!r} must be a model name or a "
                              "directory (or none to switch BERTScore off)")
        values = {name: float(given[name]) for name in RANGES if name in given}
        values.update({name: int(given[name]) for name in INTEGERS if name in given})
        config = cls(spec.id, bertscore_model=model, **values)
        if spec.kind == "generation":
            config._bertscore_settings()
        return config

    def _bertscore_settings(self) -> Any:
        from cpsd_tasks import generation

        try:
            s = generation.bertscore_settings(self)
        except ValueError as err:  # $CPSD_BERTSCORE_NUM_LAYERS=eight …
            raise OptionError(f"cpsd_{self.task_id}: {err}") from None
        if s.num_layers is not None and s.num_layers < 1:
            raise OptionError(f"cpsd_{self.task_id}: BERTScore layer {s.num_layers} must be an integer ≥ 1")
        return s

    def check_model_folder(self) -> None:
        """For a generation task whose BERTScore model is a local folder: it must exist, hold
        ``config.json``, the weights and the tokenizer, and load (config and tokenizer only).
        Hub names are not looked up; other tasks have nothing to check.

        Raises:
            OptionError: the folder cannot be used (one line, with the fix).
        """
        from cpsd_tasks.tasks import get_task

        if get_task(self.task_id).kind == "generation":
            _check_bertscore_folder(self.task_id, self._bertscore_settings())

    def scoring_options(self) -> dict[str, Any]:
        """The options the task's metrics use, as the signature records them: ``alpha``/``tau``
        for IE, ``tau_qa`` for case_reading, the resolved BERTScore settings for generation;
        ``{}`` for the other tasks."""
        from cpsd_tasks.tasks import get_task

        kind = get_task(self.task_id).kind
        if kind in ("ner", "re"):
            return {"alpha": self.alpha, "tau": self.tau}
        if kind == "reading":
            return {"tau_qa": self.tau_qa}
        if kind == "generation":
            from cpsd_tasks import generation

            s = generation.bertscore_settings(self)
            return {"bertscore_model": s.model, "bertscore_num_layers": s.num_layers,
                    "bertscore_rescale": False, "bertscore_idf": False}
        return {}


_CONFIGS: dict[str, RunConfig] = {}


def configure(task_id: str, metadata: Mapping[str, Any]) -> RunConfig:
    """Build ``task_id``'s :class:`RunConfig` from the harness metadata and keep it for the
    task's metric hooks (:func:`run_config`). Called by the dataset hook when the task is built
    (and by tests that call metric hooks directly); a later build of the same task replaces it.

    Raises:
        OptionError: see :meth:`RunConfig.from_metadata` and :meth:`RunConfig.check_model_folder`.
    """
    config = RunConfig.from_metadata(task_id, metadata)
    config.check_model_folder()
    _CONFIGS[config.task_id] = config
    return config


def reset_run_configs() -> None:
    """Forget every configuration :func:`configure` built in this process (tests)."""
    _CONFIGS.clear()


def run_config(task_id: str) -> RunConfig:
    """The configuration :func:`configure` built for ``task_id`` in this process, or the defaults
    (``RunConfig(task_id)``) when the task was not built here."""
    return _CONFIGS.get(task_id) or RunConfig(task_id)


def _check_range(task_id: str, name: str, raw: Any) -> None:
    low, high, low_in, what = RANGES[name]
    interval = f"{'[' if low_in else '('}{low:g}, {high:g}]"
    try:
        value = float(raw)
    except (TypeError, ValueError):
        value = math.nan
    if isinstance(raw, bool) or math.isnan(value) or not (low <= value if low_in else low < value) or value > high:
        raise OptionError(f"cpsd_{task_id}: option {name}={raw!r} ({what}) must be a number in {interval}")


def _check_integer(task_id: str, name: str, raw: Any) -> None:
    smallest = INTEGERS[name]
    try:
        value = int(raw)
        ok = not isinstance(raw, bool) and value == float(raw) and value >= smallest
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok:
        raise OptionError(f"cpsd_{task_id}: option {name}={raw!r} must be an integer ≥ {smallest}")


def _check_bertscore_folder(task_id: str, settings: Any) -> None:
    """A BERTScore model given as a local folder must be usable before any request is sent
    (:func:`cpsd_tasks.generation.bertscore.model_folder_problem`); hub names are not looked up.

    Raises:
        OptionError: the folder is missing, incomplete or cannot be loaded (one line, with the fix).
    """
    from cpsd_tasks.generation.bertscore import is_model_folder, model_folder_problem

    if settings.disabled or not is_model_folder(settings.model):
        return
    problem = model_folder_problem(settings.model, settings.num_layers)
    if problem:
        raise OptionError(f"cpsd_{task_id}: BERTScore model ({settings.origin}={settings.model}): {problem}; "
                          f"give a folder holding config.json, the weights and the tokenizer (a copy of "
                          f"bert-base-chinese), or bertscore_model=none to run without BERTScore")


# --------------------------------------------------------------------------- signature

def _version(dist: str) -> str:
    try:
        return version(dist)
    except PackageNotFoundError:
        return "?"


def digest(parts: Sequence[str]) -> str:
    """``sha256:`` and the first 16 hex digits of the SHA-256 of ``parts`` (each NUL-terminated)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8", "surrogatepass") + b"\x00")
    return "sha256:" + h.hexdigest()[:16]


def data_digest(docs: Mapping[str, Sequence[Mapping[str, Any]]]) -> str:
    """Digest of the docs a task loaded, split by split (``test``, ``fewshot``).

    Each doc counts with every field except ``data_source`` (where the file lies does not change
    the data), as canonical JSON (sorted keys), in file order.
    """
    parts: list[str] = []
    for split in sorted(docs):
        parts.append(f"split:{split}")
        parts += [json.dumps({k: v for k, v in doc.items() if k != "data_source"}, ensure_ascii=False,
                             sort_keys=True) for doc in docs[split]]
    return digest(parts)


def prompt_template(task_id: str, config_source: Optional[str] = None) -> Optional[str]:
    """The ``doc_to_text`` template the task was built from: read from ``config_source`` (the YAML
    path the harness passes to the hook), else from our shipped YAML; ``None`` when neither has one."""
    from cpsd_tasks import YAML_DIR, task_yaml
    from cpsd_tasks.tasks import get_task

    for path in (config_source, YAML_DIR / f"{get_task(task_id).harness_name}.yaml"):
        if path and path != "inline" and Path(path).is_file():
            cfg = task_yaml.read(path)
            template = cfg.get("doc_to_text") if isinstance(cfg, dict) else None
            if template is not None:
                return str(template)
    return None


def signature(config: RunConfig, docs: Mapping[str, Sequence[Mapping[str, Any]]],
              template: Optional[str]) -> dict[str, Any]:
    """The scoring signature of a task: everything its numbers depend on besides the model.

    Args:
        config: the task's run configuration (:meth:`RunConfig.scoring_options` is recorded).
        docs: the loaded docs by split. template: the ``doc_to_text`` template (:func:`prompt_template`).

    Returns:
        ``{"cpsd_tasks": version, "reader": :data:`cpsd_tasks.reading.READER_VERSION`, "metrics":
        :data:`cpsd_tasks.specs.METRICS_VERSION`, "task", "prompt": digest of the template, "data": digest of the
        docs (:func:`data_digest`), "n_test", "n_fewshot"}``, plus ``alpha``/``tau`` (IE),
        ``tau_qa`` (case_reading), and for generation ``jieba``, ``sacrebleu`` and
        ``rouge_chinese`` versions, ``bertscore_model``, ``bertscore_num_layers``,
        ``bertscore_rescale``, ``bertscore_idf`` and the ``bert_score`` version; and ``string``,
        all of it on one line (``cpsd:0.1.0|reader:11|metrics:1|task:drug_ner|prompt:sha256.…|…``).
    """
    import cpsd_tasks
    from cpsd_tasks.reading import READER_VERSION
    from cpsd_tasks.specs import METRICS_VERSION
    from cpsd_tasks.tasks import get_task

    spec = get_task(config.task_id)
    sig: dict[str, Any] = {
        "cpsd_tasks": cpsd_tasks.__version__,
        "reader": READER_VERSION,
        "metrics": METRICS_VERSION,
        "task": spec.id,
        "prompt": digest([template]) if template is not None else "unknown",
        "data": data_digest(docs),
        "n_test": len(docs.get("test", ())),
        "n_fewshot": len(docs.get("fewshot", ())),
        **config.scoring_options(),
    }
    if spec.kind == "generation":
        sig.update(jieba=_version("jieba"), sacrebleu=_version("sacrebleu"),
                   rouge_chinese=_version("rouge-chinese"), bert_score=_version("bert-score"))
    short = {"cpsd_tasks": "cpsd", "bertscore_model": "bs_model", "bertscore_num_layers": "bs_layers",
             "bertscore_rescale": "bs_rescale", "bertscore_idf": "bs_idf", "bert_score": "bs_version"}
    sig["string"] = "|".join(f"{short.get(k, k)}:{str(v).replace('sha256:', 'sha256.')}"
                             for k, v in sig.items())
    return sig


def record_signature(task_id: str, sig: dict[str, Any], slot: Any = None) -> None:
    """Keep ``sig`` for this process and write it into ``slot`` (the task metadata's
    ``cpsd_signature`` dict) when there is one."""
    SIGNATURES[task_id] = sig
    if isinstance(slot, dict):
        slot.clear()
        slot.update(sig)
