"""The ``run`` step of ``cpsd-eval`` when every requested task is ours: no built-in task index.

lm-eval 0.4.13's ``lm-eval run`` (``lm_eval._cli.run.Run._execute``) builds its ``TaskManager``
inside ``EvaluatorConfig.process_tasks`` with the harness's ~15k built-in tasks always indexed
(4–60 s, the largest fixed cost of a cpsd run) and offers no option to leave them out.
:func:`execute` is that method with one change: the ``TaskManager`` indexes our task folder only
(``include_defaults=False``), and the task names are the ones :mod:`cpsd_tasks.cli.selection` already
resolved. Everything else — configuration and its validation (``EvaluatorConfig.from_cli``),
``simple_evaluate``, the evaluation tracker, W&B/Trackio logging, the results files and the
printed tables — is the harness's own code, called in the same order with the same arguments.

The harness is not patched. ``tests/test_cli.py`` diffs this function against the installed
``Run._execute`` and allows only the marked lines to differ, so an lm-eval release that changes the
method fails the test until this copy is brought in line; an end-to-end test compares a run
through here with the same run through the harness's own path (``--index_builtins``).

Around that copy, :func:`torch_free_api_run` keeps torch out of an API run's process (with
transformers, ~185 MiB of a full run's 566 MiB peak, and ~1.5 s CPU to import): the harness imports
torch only to seed it (``set_torch_seed``) and to describe the environment (``add_env_info``).
With an API backend and torch not yet imported, those two names in ``lm_eval.evaluator`` are
swapped for the run's duration (and put back after): the seed is applied the moment torch is
imported (it never is in such a run, unless e.g. BERTScore loads it), and the environment
description is the harness's own, computed in a short child process started at the beginning of
the run. The seeds and the results JSON read exactly as before (``tests/test_run_torch.py``).
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import logging
import os
import subprocess
import sys
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Optional, Sequence

log = logging.getLogger(__name__)

def task_manager(include_path: Any, metadata: dict | None) -> Any:
    """The ``TaskManager`` of a cpsd-only run: ``include_path`` (our folder) without the built-ins."""
    from lm_eval.tasks import TaskManager

    return TaskManager(include_path=include_path, include_defaults=False, metadata=metadata or {})


# --------------------------------------------------------------------------- torch-free API runs

def api_backend(model: Any) -> bool:
    """True when ``model`` names a registered API backend (a subclass of the harness's
    ``TemplateAPI``: ``local-chat-completions``, ``cpsd-local-chat``, …).

    Only entries already loaded, or whose module is already imported, are resolved: asking about
    ``hf`` must not import ``lm_eval.models.huggingface`` (and torch with it). Anything else —
    a local backend, an entry point, an unknown name, an ``LM`` object — is not an API backend.
    """
    if not isinstance(model, str):
        return False
    from lm_eval.api.registry import model_registry
    from lm_eval.models.api_models import TemplateAPI

    entry = dict(model_registry.items()).get(model)
    if isinstance(entry, str):
        if entry.partition(":")[0].strip() not in sys.modules:
            return False
        try:
            entry = model_registry.get(model)
        except Exception:  # noqa: BLE001 - the harness reports a broken entry itself, later
            return False
    return isinstance(entry, type) and issubclass(entry, TemplateAPI)


class SeedTorchOnImport:
    """A ``sys.meta_path`` hook: when ``torch`` is imported, runs ``torch.manual_seed(seed)`` right
    after its ``__init__`` has executed, then removes itself.

    Nothing can draw from torch's generators before torch is imported, so seeding at import gives
    the same random state as the harness's seeding at the start of ``simple_evaluate``.
    """

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def install(self) -> None:
        if self not in sys.meta_path:
            sys.meta_path.insert(0, self)

    def remove(self) -> None:
        while self in sys.meta_path:
            sys.meta_path.remove(self)

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != "torch":
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        original = loader.exec_module

        def exec_module(module: Any) -> None:
            original(module)
            self.remove()
            try:
                del loader.exec_module  # the loader's own method again
            except AttributeError:
                pass
            module.manual_seed(self.seed)
            log.debug("torch imported: manual seed %s applied", self.seed)

        loader.exec_module = exec_module  # this spec's loader instance only
        return spec


#: Run in a child process: the two torch/transformers fields of the harness's ``add_env_info``
#: (lm-eval 0.4.13, ``lm_eval.loggers.utils``), computed with the same calls.
ENV_INFO_CHILD = r"""
import importlib.util, json, sys
try:
    from torch.utils.collect_env import get_pretty_env_info
    pretty_env_info = get_pretty_env_info()
except Exception as err:
    pretty_env_info = str(err)
if importlib.util.find_spec("transformers") is not None:
    from transformers import __version__ as transformers_version
else:
    transformers_version = "N/A"
sys.stdout.write(json.dumps({"pretty_env_info": pretty_env_info, "transformers_version": transformers_version}))
"""


def start_env_info() -> subprocess.Popen:
    """Start :data:`ENV_INFO_CHILD` (same interpreter, environment and working directory)."""
    return subprocess.Popen([sys.executable, "-c", ENV_INFO_CHILD], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)


def env_info_from(child: subprocess.Popen, timeout: float = 300) -> Optional[dict[str, Any]]:
    """The child's two fields, or ``None`` if it failed (the caller then asks the harness)."""
    try:
        out, _ = child.communicate(timeout=timeout)
        info = json.loads(out) if child.returncode == 0 else None
    except (subprocess.TimeoutExpired, ValueError, OSError):
        child.kill()
        child.wait()
        return None
    if not isinstance(info, dict) or set(info) != {"pretty_env_info", "transformers_version"}:
        return None
    return info


def env_info(storage: dict[str, Any], torch_fields: dict[str, Any]) -> None:
    """The harness's ``add_env_info(storage)`` with its torch/transformers fields given: the same
    four keys, in the same order, the other two computed as the harness does."""
    from importlib.metadata import version
    from pathlib import Path

    from lm_eval.loggers.utils import get_commit_from_path

    try:
        lm_eval_version = version("lm_eval")
    except Exception as err:  # noqa: BLE001 - as the harness
        lm_eval_version = str(err)
    storage.update({
        "pretty_env_info": torch_fields["pretty_env_info"],
        "transformers_version": torch_fields["transformers_version"],
        "lm_eval_version": lm_eval_version,
        "upper_git_hash": get_commit_from_path(Path(os.getcwd(), "..")),
    })


@contextmanager
def torch_left_out(model: Any) -> Iterator[Optional[list[SeedTorchOnImport]]]:
    """Within: an API run of ``model`` does not import torch (module doc). Yields a list holding
    the seed hook once the harness has asked for a torch seed (empty before), or ``None`` when
    nothing is changed: ``model`` is not an API backend, torch is already imported, or torch is
    not installed (the harness then seeds nothing and writes "N/A" itself). If torch is imported
    within after all, seeding and the environment description are the harness's own calls again
    (the child's work is then wasted: ~2 s CPU of a run that loads torch for BERTScore anyway).
    """
    if not api_backend(model) or "torch" in sys.modules or importlib.util.find_spec("torch") is None:
        yield None
        return
    import lm_eval.evaluator as evaluator

    original_seed, original_env = evaluator.set_torch_seed, evaluator.add_env_info
    child = start_env_info()
    hook: list[SeedTorchOnImport] = []

    def set_torch_seed(seed: int) -> None:
        if "torch" in sys.modules:
            return original_seed(seed)
        for old in hook:
            old.remove()
        hook[:] = [SeedTorchOnImport(seed)]
        hook[0].install()
        log.debug("torch not imported (API backend): seed %s is applied if it ever is", seed)

    def add_env_info(storage: dict[str, Any]) -> None:
        # torch loaded after all (BERTScore, a tokenizer): the harness's own, in-process, as before
        fields = None if "torch" in sys.modules else env_info_from(child)
        if fields is None:
            return original_env(storage)
        env_info(storage, fields)

    evaluator.set_torch_seed, evaluator.add_env_info = set_torch_seed, add_env_info
    try:
        yield hook
    finally:
        evaluator.set_torch_seed, evaluator.add_env_info = original_seed, original_env
        for old in hook:
            old.remove()
        if child.poll() is None:
            child.kill()
        child.wait()


def torch_free_api_run(func: Callable[[argparse.Namespace, Sequence[str]], None]) -> Callable[..., None]:
    """Decorator of :func:`execute`: runs it inside :func:`torch_left_out` for the requested model
    (from ``--model`` or ``--config``, as :func:`cpsd_tasks.cli.cpsd_eval.requested` reads it). The body of
    :func:`execute` stays the harness's (``inspect`` sees through ``functools.wraps``)."""

    @functools.wraps(func)
    def wrapper(args: argparse.Namespace, tasks: Sequence[str]) -> None:
        from cpsd_tasks.cli.cpsd_eval import requested

        try:
            model = requested(args)[1]
        except Exception:  # noqa: BLE001 - an unreadable --config: the harness says so itself
            model = None
        with torch_left_out(model):
            return func(args, tasks)

    return wrapper


@torch_free_api_run
def execute(args: argparse.Namespace, tasks: Sequence[str]) -> None:  # noqa: C901 - the harness's method, line for line
    """``lm-eval run`` for ``tasks`` (resolved names of ours), indexing our task folder only.

    Mirrors lm-eval 0.4.13's ``Run._execute`` (module doc); the only difference is marked below.
    """
    os.environ["TOKENIZERS_PARALLELISM"] = "false"

    from lm_eval.config.evaluate_config import EvaluatorConfig

    eval_logger = logging.getLogger("lm_eval._cli.run")

    # Create and validate config (most validation now occurs in EvaluationConfig)
    cfg = EvaluatorConfig.from_cli(args)

    from lm_eval import simple_evaluate
    from lm_eval.loggers import EvaluationTracker, TrackioLogger, WandbLogger
    from lm_eval.utils import handle_non_serializable, make_table

    # Set up logging
    if cfg.wandb_args:
        wandb_logger = WandbLogger(cfg.wandb_args, cfg.wandb_config_args)
    if cfg.trackio_args:
        trackio_logger = TrackioLogger(cfg.trackio_args)

    # Set up evaluation tracker
    if cfg.output_path:
        cfg.hf_hub_log_args["output_path"] = cfg.output_path

    if os.environ.get("HF_TOKEN", None):
        cfg.hf_hub_log_args["token"] = os.environ.get("HF_TOKEN")

    evaluation_tracker = EvaluationTracker(**cfg.hf_hub_log_args)

    # ---- the one difference: our folder only, names already resolved (harness:
    # ---- task_manager = cfg.process_tasks(cfg.metadata), which indexes every built-in task)
    task_manager_ = task_manager(cfg.include_path, cfg.metadata)
    cfg.tasks = list(tasks)
    # ----

    # Validation warnings (keep these in CLI as they're logging-specific)
    if "push_samples_to_hub" in cfg.hf_hub_log_args and not cfg.log_samples:
        eval_logger.warning(
            "Pushing samples to the Hub requires --log_samples to be set."
        )

    # Log task selection (tasks already processed in config)
    if cfg.include_path is not None:
        eval_logger.info("Including path: %s", cfg.include_path)
    eval_logger.info("Selected Tasks: %s", cfg.tasks)

    # Run evaluation
    results = simple_evaluate(
        model=cfg.model,
        model_args=cfg.model_args,
        tasks=cfg.tasks,
        num_fewshot=cfg.num_fewshot,
        batch_size=cfg.batch_size,
        max_batch_size=cfg.max_batch_size,
        device=cfg.device,
        use_cache=cfg.use_cache,
        cache_requests=cfg.cache_requests.get("cache_requests", False),
        rewrite_requests_cache=cfg.cache_requests.get(
            "rewrite_requests_cache", False
        ),
        delete_requests_cache=cfg.cache_requests.get(
            "delete_requests_cache", False
        ),
        limit=cfg.limit,
        samples=cfg.samples,
        check_integrity=cfg.check_integrity,
        write_out=cfg.write_out,
        log_samples=cfg.log_samples,
        evaluation_tracker=evaluation_tracker,
        system_instruction=cfg.system_instruction,
        apply_chat_template=cfg.apply_chat_template,
        fewshot_as_multiturn=cfg.fewshot_as_multiturn,
        gen_kwargs=cfg.gen_kwargs,
        task_manager=task_manager_,
        verbosity=cfg.verbosity,
        predict_only=cfg.predict_only,
        random_seed=cfg.seed[0] if cfg.seed else None,
        numpy_random_seed=cfg.seed[1] if cfg.seed else None,
        torch_random_seed=cfg.seed[2] if cfg.seed else None,
        fewshot_random_seed=cfg.seed[3] if cfg.seed else None,
        confirm_run_unsafe_code=cfg.confirm_run_unsafe_code,
        metadata=cfg.metadata,
    )

    # Process results
    if results is not None:
        if cfg.log_samples:
            samples = results.pop("samples")

        dumped = json.dumps(
            results, indent=2, default=handle_non_serializable, ensure_ascii=False
        )
        if cfg.show_config:
            print(dumped)

        batch_sizes = ",".join(map(str, results["config"]["batch_sizes"]))

        # W&B logging
        if cfg.wandb_args:
            try:
                wandb_logger.post_init(results)
                wandb_logger.log_eval_result()
                if cfg.log_samples:
                    wandb_logger.log_eval_samples(samples)
            except Exception as e:  # noqa: BLE001
                eval_logger.info("Logging to W&B failed: %s", e)

        # Trackio logging
        if cfg.trackio_args:
            try:
                trackio_logger.post_init(results)
                trackio_logger.log_eval_result()
                if cfg.log_samples:
                    trackio_logger.log_eval_samples(samples)
            except Exception as e:  # noqa: BLE001
                eval_logger.info("Logging to Trackio failed: %s", e)

        # Save results
        evaluation_tracker.save_results_aggregated(
            results=results, samples=samples if cfg.log_samples else None
        )

        if cfg.log_samples:
            for task_name in results["configs"]:
                evaluation_tracker.save_results_samples(
                    task_name=task_name, samples=samples[task_name]
                )

        if (
            evaluation_tracker.push_results_to_hub
            or evaluation_tracker.push_samples_to_hub
        ):
            evaluation_tracker.recreate_metadata_card()

        # Print results
        cfg.model_args.pop("trust_remote_code", None)
        print(
            f"{cfg.model} ({cfg.model_args}), gen_kwargs: ({cfg.gen_kwargs}), "
            f"limit: {cfg.limit}, num_fewshot: {cfg.num_fewshot}, "
            f"batch_size: {cfg.batch_size}{f' ({batch_sizes})' if batch_sizes else ''}"
        )
        print(make_table(results))
        if "groups" in results:
            print(make_table(results, "groups"))

        if cfg.wandb_args:
            wandb_logger.run.finish()

        if cfg.trackio_args:
            trackio_logger.finish()
