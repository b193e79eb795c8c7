"""The task data (the hooks the task YAMLs name; loading and checks in :mod:`cpsd_tasks.data.loading`)."""

from cpsd_tasks.data.loading import harness_dataset  # noqa: F401


def __getattr__(name: str):
    from cpsd_tasks.data import loading

    return getattr(loading, name)
