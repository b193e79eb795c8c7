"""BERTScore F1 of the generation tasks (docs/metrics.md#text-generation): the model and batched scoring.

``bertscore_f1`` is BERTScore F1 (bert-score), default ``bert-base-chinese`` at layer 8, no
baseline rescaling, no idf (options: :mod:`cpsd_tasks.generation.settings`). All the state of a
process lives in one :class:`BertScorer` object (:func:`bert_scorer`, created on first use): the
one loaded ``bert_score.BERTScorer`` (model and tokenizer), the loads that failed (not retried),
the last scoring per task (so ``bertscore_f1``, ``score`` and ``bertscore_config`` share one
computation) and two counters. All pairs of a task are scored in one batched call at aggregation
time; texts are cut to the model window explicitly (:func:`truncate_to_tokens`). bert-score's
private attributes are read only through :mod:`cpsd_tasks.generation.adapters`.

A model that cannot be loaded raises :class:`~cpsd_tasks.generation.settings.BertScoreUnavailable`
(logged once per task as an ERROR naming the model, the cause and the fix); the aggregations then
report NaN.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import time
from pathlib import Path
from typing import Any, Optional, Sequence

from cpsd_tasks.generation import adapters
from cpsd_tasks.options import RunConfig
from cpsd_tasks.generation.settings import (ENV_MODEL, ENV_NUM_LAYERS, BertScoreSettings,
                                            BertScoreUnavailable, bert_score_version,
                                            bertscore_settings)

log = logging.getLogger("cpsd_tasks.generation")

#: From this many pairs on, bert-score's progress bar is shown while BERTScore runs.
PROGRESS_FROM = 100

_FIX = (f"give a local copy with --metadata bertscore_model=<dir> bertscore_num_layers=8 (or "
        f"${ENV_MODEL}/${ENV_NUM_LAYERS}), or re-score the sample log later with cpsd-rescore")


# --------------------------------------------------------------------------- texts

def truncate_to_tokens(tokenizer, text: str, limit: int) -> tuple[str, bool]:
    """Cut ``text`` to its longest character prefix of at most ``limit`` tokens.

    Args:
        tokenizer: a transformers tokenizer (``tokenize`` counts tokens without special tokens).
        text: the text.
        limit: maximum number of tokens (>= 0).

    Returns:
        ``(text or its prefix, truncated?)``.
    """
    if len(tokenizer.tokenize(text)) <= limit:
        return text, False
    low, high = 0, len(text)
    while low < high:  # largest prefix length whose token count fits
        mid = (low + high + 1) // 2
        if len(tokenizer.tokenize(text[:mid])) <= limit:
            low = mid
        else:
            high = mid - 1
    return text[:low], True


def _max_tokens(scorer) -> int:
    """Content tokens that fit the model window (512 for BERT, minus [CLS] and [SEP] = 510)."""
    tokenizer = adapters.scorer_tokenizer(scorer)
    window = adapters.scorer_window(scorer)
    if not tokenizer.model_max_length or tokenizer.model_max_length > window:
        # An unset model_max_length (a huge sentinel) makes bert-score's encode overflow.
        tokenizer.model_max_length = window
    return tokenizer.model_max_length - tokenizer.num_special_tokens_to_add(pair=False)


def _digest(items: Sequence[Sequence[Any]]) -> str:
    h = hashlib.sha1()
    for ref, cand, _ in items:
        h.update(ref.encode("utf-8") + b"\x00" + cand.encode("utf-8") + b"\x01")
    return h.hexdigest()


# --------------------------------------------------------------------------- the state

#: A model/layer pair: the key of a loaded or failed scorer.
ScorerKey = tuple[str, Optional[int]]


class BertScorer:
    """The BERTScore state of one process: model, failures, results per task, counters.

    Attributes:
        key: ``(model, layers)`` of the loaded model, ``None`` before the first load.
        scorer: the loaded ``bert_score.BERTScorer`` (model and tokenizer), ``None`` before.
        failed: load failures by ``(model, layers)``; a model that failed is not retried.
        results: per task id, the last scoring (:meth:`f1s`): ``{"digest", "settings", "f1s",
            "truncated", "limit", "seconds", "error", "n", "scored"}``.
        stats: ``{"loads": int, "score_calls": int}``: ``BERTScorer`` constructions and batched
            ``score`` calls (tests assert on them).
    """

    def __init__(self) -> None:
        self.key: Optional[ScorerKey] = None
        self.scorer: Any = None
        self.failed: dict[ScorerKey, BertScoreUnavailable] = {}
        self.results: dict[str, dict[str, Any]] = {}
        self.stats = {"loads": 0, "score_calls": 0}

    def reset(self) -> None:
        """Forget the loaded model, failures, cached results and counters (tests, re-scoring)."""
        self.key, self.scorer = None, None
        self.failed.clear()
        self.results.clear()
        self.stats.update(loads=0, score_calls=0)

    def _fail(self, key: ScorerKey, message: str, short: str) -> BertScoreUnavailable:
        err = BertScoreUnavailable(message, short)
        self.failed[key] = err
        return err

    def load(self, settings: BertScoreSettings):
        """Return the ``bert_score.BERTScorer`` for ``settings``, loading it on first use.

        One model is kept; asking for another model/layer replaces it (logged).

        Raises:
            BertScoreUnavailable: switched off, missing directory, unknown layer, or the model
                cannot be loaded; the message names the model, the cause and the fix. Failures
                are remembered and not retried by this object.
        """
        if settings.disabled:
            raise BertScoreUnavailable(
                f"BERTScore switched off ({settings.origin}={settings.model})",
                f"switched off ({settings.model})")
        key = (settings.model, settings.num_layers)
        if self.scorer is not None and self.key == key:
            return self.scorer
        if key in self.failed:
            raise self.failed[key]
        path = Path(settings.model).expanduser()
        if (path.is_absolute() or settings.model.startswith((".", "~"))) and not path.is_dir():
            raise self._fail(key, f"BERTScore model directory {str(path)!r} ({settings.origin}) does "
                             f"not exist; give a directory holding config.json, the weights and the "
                             f"tokenizer", f"no such directory {str(path)!r}")
        if settings.num_layers is None:
            raise self._fail(key, f"no layer known for BERTScore model {settings.model!r}: set "
                             f"--metadata bertscore_num_layers=N or ${ENV_NUM_LAYERS} "
                             f"(bert-base-chinese uses 8)",
                             f"set bertscore_num_layers for {settings.model!r}")
        started = time.perf_counter()
        try:
            from bert_score import BERTScorer

            model_type = str(path) if path.is_dir() else settings.model  # "~/m" works too
            scorer = BERTScorer(model_type=model_type, num_layers=settings.num_layers, idf=False,
                                rescale_with_baseline=False, batch_size=settings.batch_size)
        except Exception as err:  # OSError (no hub, no local files), ValueError, ImportError, ...
            first_line = (str(err).strip().splitlines() or [""])[0][:300].rstrip(". ")
            raise self._fail(key, f"could not load BERTScore model {settings.model!r} "
                             f"({settings.origin}): {type(err).__name__}: {first_line}. To fix: {_FIX}",
                             f"cannot load {settings.model!r} ({type(err).__name__}; see log)") from err
        if self.scorer is not None:
            log.warning("cpsd generation: replacing BERTScore model %s by %s", self.key, key)
        self.key, self.scorer = key, scorer
        self.stats["loads"] += 1
        log.warning("cpsd generation: BERTScore model %s (%s), layer %d, bert-score %s, no baseline "
                    "rescaling, idf off, device %s; loaded in %.1f s", settings.model, settings.origin,
                    settings.num_layers, bert_score_version(), scorer.device,
                    time.perf_counter() - started)
        return scorer

    def f1s(self, items: Sequence[Sequence[Any]], config: Optional[RunConfig] = None) -> list[float]:
        """BERTScore F1 of every ``[reference, candidate, task id]`` item, in one batched call.

        Empty candidates score 0 without the model; the others (and their references) are cut
        to the model window explicitly (:func:`truncate_to_tokens`, 510 tokens for BERT; the
        count is logged and shown in ``bertscore_config``) and scored in one
        ``BERTScorer.score`` call. The result is kept per task, item list and settings
        (:attr:`results`), so ``bertscore_f1`` and ``score`` share one computation.

        Args:
            items: per-sample items from ``process_results``, all of one task.
            config: the run configuration to score with; default the one the task was built
                with (:func:`cpsd_tasks.options.run_config`).

        Returns:
            F1 per item (raw BERTScore, no rescaling; in [0, 1] for real BERT models).

        Raises:
            BertScoreUnavailable: see :meth:`load`; also when scoring itself fails. The full
                message is logged as an ERROR once per task.
        """
        if not items:
            return []
        task_id = items[0][2]
        try:
            settings: Optional[BertScoreSettings] = bertscore_settings(config or task_id)
            settings_error = None
        except ValueError as err:
            settings, settings_error = None, BertScoreUnavailable(f"bad BERTScore option: {err}",
                                                                  "bad BERTScore option (see log)")
        digest = _digest(items)
        cached = self.results.get(task_id)
        if cached and cached["digest"] == digest and cached["settings"] == settings:
            if cached["error"]:
                raise cached["error"]
            return cached["f1s"]
        f1s = [0.0] * len(items)
        todo = [i for i, (_, cand, _) in enumerate(items) if cand.strip()]
        record: dict[str, Any] = {"digest": digest, "settings": settings, "f1s": f1s, "truncated": 0,
                                  "limit": None, "seconds": 0.0, "error": None, "n": len(items),
                                  "scored": len(todo)}
        self.results[task_id] = record
        if not todo:
            return f1s
        try:
            if settings_error is not None:
                raise settings_error
            scorer = self.load(settings)
            started = time.perf_counter()
            limit = record["limit"] = _max_tokens(scorer)
            tokenizer = adapters.scorer_tokenizer(scorer)
            cands, refs = [], []
            for i in todo:
                ref, cand, _ = items[i]
                cand, cut_c = truncate_to_tokens(tokenizer, cand, limit)
                ref, cut_r = truncate_to_tokens(tokenizer, ref, limit)
                record["truncated"] += int(cut_c) + int(cut_r)
                cands.append(cand)
                refs.append(ref)
            self.stats["score_calls"] += 1
            # Hundreds of pairs take minutes on a CPU: say so first, and let bert-score's own
            # progress bar run for large batches (printing only; the values are the same).
            log.warning("cpsd_%s: scoring BERTScore of %d pairs with %s (layer %s)…", task_id,
                        len(todo), settings.model, settings.num_layers)
            _, _, f = scorer.score(cands, refs, batch_size=settings.batch_size,
                                   verbose=len(todo) >= PROGRESS_FROM)
            for i, value in zip(todo, f.tolist()):
                f1s[i] = float(value)
            record["seconds"] = time.perf_counter() - started
        except BertScoreUnavailable as err:
            record["error"] = err
        except Exception as err:  # scoring itself failed (e.g. out of memory): missing, not a crash
            record["error"] = BertScoreUnavailable(
                f"BERTScore failed while scoring: {type(err).__name__}: {err}",
                f"scoring failed ({type(err).__name__}; see log)")
        if record["error"] is not None:
            log.error("cpsd_%s: bertscore_f1 and score are MISSING (reported as NaN, not 0): %s",
                      task_id, record["error"])
            raise record["error"]
        log.warning("cpsd_%s: BERTScore of %d pairs (%d empty outputs scored 0 without the model) "
                    "in %.1f s; %d texts cut to %d tokens", task_id, len(todo),
                    len(items) - len(todo), record["seconds"], record["truncated"], limit)
        return f1s

    def describe(self, task_id: str) -> str:
        """One line on how ``bertscore_f1`` of ``task_id`` was computed, or why it is missing.

        Examples: ``"bert-base-chinese, layer 8, bert-score 0.3.13, 3 of 400 texts cut to 510
        tokens"`` (candidates and references both count);
        ``"MISSING: cannot load 'bert-base-chinese' (OSError; see log)"``; ``"not computed"``.
        """
        record = self.results.get(task_id)
        if record is None:
            return "not computed"
        if record["error"] is not None:
            return f"MISSING: {record['error'].short}"
        if not record["scored"]:
            return "model not loaded: every output was empty (all scored 0)"
        settings = record["settings"]
        return (f"{settings.model}, layer {settings.num_layers}, bert-score {bert_score_version()}, "
                f"{record['truncated']} of {2 * record['scored']} texts cut to {record['limit']} tokens")


#: File names (or suffixes) that hold a model's weights, and a tokenizer's vocabulary.
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin", "model.safetensors.index.json",
                "pytorch_model.bin.index.json", "tf_model.h5", "flax_model.msgpack")
TOKENIZER_FILES = ("tokenizer.json", "vocab.txt", "vocab.json", "spiece.model", "sentencepiece.bpe.model",
                   "tokenizer.model")


def is_model_folder(model: str) -> bool:
    """``model`` (a ``bertscore_model`` value) names a local folder rather than a hub id: an absolute
    path, one starting with ``.`` or ``~``, or an existing folder."""
    path = Path(model).expanduser()
    return path.is_absolute() or model.startswith((".", "~")) or path.is_dir()


def model_folder_problem(model: str, num_layers: Optional[int]) -> Optional[str]:
    """Why the BERTScore model folder ``model`` cannot be used, or ``None`` when it can.

    Cheap enough to run before a run starts: the folder must exist and hold ``config.json``, the
    weights (:data:`WEIGHT_FILES`, sharded or not) and the tokenizer (:data:`TOKENIZER_FILES`);
    then the config and the tokenizer are loaded (transformers ``AutoConfig`` /
    ``AutoTokenizer``, local files only, not the weights), and ``num_layers`` must not exceed the
    model's ``num_hidden_layers``. The answer is one line, cached per folder, layer and the folder's
    file listing (names, sizes, times).
    """
    path = Path(model).expanduser()
    try:
        listing = tuple(sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in path.iterdir()))
    except OSError:
        listing = ()
    key = (str(path), num_layers, listing)
    if key not in _FOLDER_PROBLEMS:
        _FOLDER_PROBLEMS[key] = _folder_problem(path, num_layers)
    return _FOLDER_PROBLEMS[key]


_FOLDER_PROBLEMS: dict[tuple, Optional[str]] = {}


def _folder_problem(path: Path, num_layers: Optional[int]) -> Optional[str]:
    """:func:`model_folder_problem` without the cache."""
    if not path.exists():
        return f"folder {str(path)!r} does not exist"
    if not path.is_dir():
        return f"{str(path)!r} is a file, not a model folder"
    names = {p.name for p in path.iterdir()}
    if "config.json" not in names:
        return f"folder {str(path)!r} has no config.json"
    sharded = any(n.endswith(".safetensors") or (n.startswith("pytorch_model-") and n.endswith(".bin"))
                  for n in names)
    if not (names & set(WEIGHT_FILES) or sharded):
        return f"folder {str(path)!r} has no weights ({' or '.join(WEIGHT_FILES[:2])})"
    if not names & set(TOKENIZER_FILES):
        return f"folder {str(path)!r} has no tokenizer ({' or '.join(TOKENIZER_FILES[:2])})"
    try:
        from transformers import AutoConfig, AutoTokenizer

        config = AutoConfig.from_pretrained(str(path), local_files_only=True)
        AutoTokenizer.from_pretrained(str(path), local_files_only=True)
    except Exception as err:  # noqa: BLE001 - reported as the reason, one line
        first = (str(err).strip().splitlines() or [""])[0][:200].rstrip(". ")
        return f"folder {str(path)!r} cannot be loaded ({type(err).__name__}: {first})"
    layers = getattr(config, "num_hidden_layers", None)
    if num_layers is not None and isinstance(layers, int) and num_layers > layers:
        return f"layer {num_layers} asked for, but the model in {str(path)!r} has {layers} layers"
    return None


@functools.cache
def bert_scorer() -> BertScorer:
    """The process's one :class:`BertScorer`, created on first use (the model inside it is loaded
    only when something is scored)."""
    return BertScorer()


# --------------------------------------------------------------------------- functions on it

def get_scorer(settings: BertScoreSettings):
    """:meth:`BertScorer.load` of the process's scorer: the ``bert_score.BERTScorer`` for
    ``settings``. Raises :class:`BertScoreUnavailable` (see there)."""
    return bert_scorer().load(settings)


def bertscore_f1s(items: Sequence[Sequence[Any]], config: Optional[RunConfig] = None) -> list[float]:
    """:meth:`BertScorer.f1s` of the process's scorer: BERTScore F1 per ``[reference, candidate,
    task id]`` item, in [0, 1] for real BERT models, with ``config``'s BERTScore options (default
    the task's own). Raises :class:`BertScoreUnavailable`."""
    return bert_scorer().f1s(items, config)


def describe_bertscore(task_id: str) -> str:
    """:meth:`BertScorer.describe` of the process's scorer: how ``bertscore_f1`` of ``task_id``
    was computed, or why it is missing (one line)."""
    return bert_scorer().describe(task_id)


def reset_bertscore_state() -> None:
    """Forget the loaded scorer, failures, cached results and counters (tests, re-scoring)."""
    bert_scorer().reset()
