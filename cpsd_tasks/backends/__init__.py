"""Model backends cpsd-eval adds to the harness; importing this package registers them.

:mod:`~cpsd_tasks.backends.api` holds the guarded API backends (``cpsd-local-chat``,
``cpsd-openai-chat``, ``cpsd-local-completions``) and registers ``cpsd-hf``
(:mod:`~cpsd_tasks.backends.hf`, the harness's ``hf`` plus truncation flags) lazily, so torch is
imported only when it is used. What they record about cut answers goes to
:mod:`cpsd_tasks.truncation`, which the task families read.
"""

from cpsd_tasks.backends import api  # noqa: F401 - registers the backends with lm-eval's register_model
