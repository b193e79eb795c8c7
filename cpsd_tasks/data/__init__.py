"""The task data: the two hooks the task YAMLs name, over the loader and the record checks.

``custom_dataset: !function cpsd_tasks.data.harness_dataset`` builds a task's splits (and its
scoring signature); ``sampler: !function cpsd_tasks.data.FewshotSampler`` is the harness's
few-shot sampler with a clear error when there are no few-shot examples.
:mod:`~cpsd_tasks.data.loading` finds, reads and validates the JSONL files (data directory
resolution, few-shot leak check); :mod:`~cpsd_tasks.data.records` says what a valid record of each
kind is.
"""

from __future__ import annotations

import logging
from typing import Any

from cpsd_tasks.data.loading import ENV_VAR, load_task_docs, resolve_data_dir
from cpsd_tasks.exceptions import DataError
from cpsd_tasks.tasks import get_task

log = logging.getLogger("cpsd_tasks")


def harness_dataset(**kwargs: Any):
    """``custom_dataset`` hook for lm-eval: build a task's ``DatasetDict`` (``test``, ``fewshot``).

    The harness calls this with the task metadata (YAML ``metadata``, model args, ``--metadata``,
    ``config_source``) and the YAML ``dataset_kwargs``, which must hold ``task_id``. Run options
    (α, τ, BERTScore model …) are checked once and kept, frozen, as the task's
    :class:`~cpsd_tasks.options.RunConfig` (:func:`cpsd_tasks.options.configure`), which the
    metric hooks read; the task's scoring signature, built from it, is written
    into the metadata's ``cpsd_signature`` slot (see :mod:`cpsd_tasks.options`), from where the
    harness copies it into the results JSON (``configs.<task>.metadata.cpsd_signature``).

    Returns:
        ``datasets.DatasetDict`` with ``test`` and ``fewshot`` splits.

    Raises:
        DataError: bad or missing data, or (:class:`cpsd_tasks.options.OptionError`) a bad run
            option — before any request is sent.
        KeyError: ``task_id`` is missing from ``dataset_kwargs`` or unknown.
    """
    import datasets

    from cpsd_tasks.options import SIGNATURE_KEY, configure, prompt_template, record_signature, signature

    if "task_id" not in kwargs:
        raise KeyError("cpsd task YAML must set dataset_kwargs: {task_id: <task id>}")
    spec = get_task(kwargs["task_id"])
    from cpsd_tasks.cli.unguarded import warn_once

    warn_once(kwargs)  # the harness's own API backend, unguarded (plain lm_eval): said once per run
    config = configure(spec.id, kwargs)
    base, is_demo = resolve_data_dir(kwargs.get("data_dir"))
    docs = load_task_docs(spec.id, str(base))
    sig = signature(config, docs, prompt_template(spec.id, kwargs.get("config_source")))
    record_signature(spec.id, sig, kwargs.get(SIGNATURE_KEY))
    log.info("cpsd_%s: scoring signature %s", spec.id, sig["string"])
    if spec.kind == "generation":
        from cpsd_tasks.generation.tokens import warm_up

        warm_up([doc["reference"] for doc in docs["test"]])   # (jieba + references, while requests are in flight)
    if is_demo:
        log.warning("cpsd_%s: using the embedded DEMO data (%d samples, synthetic, NOT CPSDBench). "
                    "Set --metadata '{\"data_dir\": …}' or $%s for real data.", spec.id,
                    len(docs["test"]), ENV_VAR)
    else:
        log.warning("cpsd_%s: data from %s (%d samples)", spec.id, base / spec.id, len(docs["test"]))
    out = {}
    for split, rows in docs.items():
        if rows:
            out[split] = datasets.Dataset.from_list(rows)
        else:
            out[split] = datasets.Dataset.from_list(docs["test"][:1]).select([])
    return datasets.DatasetDict(out)


def _fewshot_sampler_class():
    from lm_eval.api.samplers import ContextSampler

    class FewshotSampler(ContextSampler):
        """The harness's default sampler, with a clear error when no ``fewshot.jsonl`` exists."""

        def sample(self, n, eval_doc=None, df=None, **kwargs):
            if n and not (df or self.df):
                raise DataError(f"--num_fewshot {n} needs few-shot examples: put them in "
                                "<data_dir>/<task id>/fewshot.jsonl (same schema as test.jsonl)",
                                headline="missing few-shot examples")
            return super().sample(n, eval_doc=eval_doc, df=df, **kwargs)

    return FewshotSampler


def __getattr__(name: str):
    # Built lazily so that importing cpsd_tasks.data does not import lm_eval.
    if name == "FewshotSampler":
        return _fewshot_sampler_class()
    raise AttributeError(name)
