"""Which tasks ``cpsd-eval --tasks …`` means: wildcards, duplicates, misspellings.

The rule (README, "Running"):

* A name or wildcard **starting with ``cpsd``** is ours; it is resolved here, against our task
  folder only, without the harness's ~15k built-in tasks (no built-in task name starts with
  ``cpsd``). Anything else (a built-in task, a YAML path, a folder) is left to the harness.
* A **wildcard** (``*``, ``?``, ``[…]``: ``cpsd_*``, ``cpsd*``, ``cpsd_c*``) selects the tasks it
  names — directly or through a group it matches — among the twelve ``generate_until`` tasks of
  the paper. The ``cpsd_ll_*`` log-likelihood variants are selected only by a wildcard that starts
  with ``cpsd_ll`` (or by their names, or the tag ``cpsd_ll``): chat APIs cannot run them. What a
  wildcard selects, together with the plain cpsd names beside it, is then written as the fewest
  complete groups (all twelve → ``cpsd``; four classification tasks → ``cpsd_clf``) plus single
  tasks, so a task is never requested twice and group scores are reported where complete.
* Plain names are kept as given; a name whose tasks another requested cpsd group already holds
  (``cpsd,cpsd_clf``, ``cpsd_qa,cpsd_case_reading``) is dropped instead of failing as a duplicate.
* An unknown name starting with ``cpsd`` (``cpsd_sentimnet``), or a wildcard that matches nothing,
  is :class:`UnknownTask` with a "did you mean".
"""

from __future__ import annotations

import difflib
import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from cpsd_tasks import task_yaml

#: Every name of ours starts with this; no built-in task of lm-eval 0.4.13 does.
PREFIX = "cpsd"
#: Wildcards starting with this may select the log-likelihood variants.
LL_PREFIX = "cpsd_ll"
_WILDCARD_CHARS = "*?["


class UnknownTask(ValueError):
    """A cpsd name that names no task, group or tag of ours; ``str()`` is one line."""


def is_wildcard(spec: str) -> bool:
    """``spec`` is an fnmatch pattern (holds ``*``, ``?`` or ``[``)."""
    return any(c in spec for c in _WILDCARD_CHARS)


def literal_prefix(spec: str) -> str:
    """The part of ``spec`` before its first wildcard character."""
    cut = min((spec.index(c) for c in _WILDCARD_CHARS if c in spec), default=len(spec))
    return spec[:cut]


def is_ours(spec: str) -> bool:
    """``spec`` (a name or wildcard) can only mean cpsd tasks: it starts with ``cpsd`` and is not a
    file path."""
    return (literal_prefix(spec).startswith(PREFIX) and "/" not in spec and "\\" not in spec
            and not spec.endswith((".yaml", ".yml")))


@dataclass
class Index:
    """Our task folder as names: leaf tasks (with output type), groups (children) and tags (members).

    Build it with :meth:`from_task_manager`; the order of groups and their children is kept.
    """

    tasks: dict[str, str]
    groups: dict[str, list[str]]
    tags: dict[str, list[str]]
    #: task -> the task id whose data it reads (its YAML's ``dataset_kwargs.task_id``); filled by
    #: :meth:`from_yaml_dir` only.
    data_ids: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_task_manager(cls, tm: Any) -> "Index":
        """From an ``lm_eval.tasks.TaskManager`` (its ``task_index`` of name → ``Entry``)."""
        tasks, groups, tags = {}, {}, {}
        for name, entry in tm.task_index.items():
            kind = getattr(entry.kind, "name", str(entry.kind))
            cfg = entry.cfg or {}
            if kind in ("TASK", "PY_TASK"):
                tasks[name] = str(cfg.get("output_type") or "")
            elif kind == "GROUP":
                children = cfg.get("task") or []
                groups[name] = [c if isinstance(c, str) else str(c.get("task") or c.get("group"))
                                for c in (children if isinstance(children, list) else [children])]
            elif kind == "TAG":
                tags[name] = sorted(entry.tags)
        return cls(tasks, groups, tags)

    @classmethod
    def from_yaml_dir(cls, folder: Any) -> "Index":
        """From the task YAMLs of ``folder`` read directly (no harness import: ~0.05 s).

        Same entries as :meth:`from_task_manager` of ``TaskManager(include_path=folder,
        include_defaults=False)`` for folders like ours (tested): a file with ``group`` is a group,
        one with ``task`` a task (``include`` merged beneath it), ``tag`` names its tags.
        """
        tasks: dict[str, str] = {}
        groups: dict[str, list[str]] = {}
        tags: dict[str, list[str]] = {}
        data_ids: dict[str, str] = {}
        for path in sorted(Path(folder).rglob("*.yaml"), key=lambda p: p.as_posix()):
            if "__pycache__" in path.parts:
                continue
            try:
                cfg = task_yaml.read(path)
            except Exception:  # noqa: BLE001 - the harness skips unreadable files too
                continue
            if not isinstance(cfg, dict):
                continue
            if "group" in cfg:
                children = cfg.get("task") or []
                groups.setdefault(str(cfg["group"]), [
                    c if isinstance(c, str) else str(c.get("task") or c.get("group"))
                    for c in (children if isinstance(children, list) else [children])])
            elif isinstance(cfg.get("task"), str) and cfg["task"] not in tasks:
                tasks[cfg["task"]] = str(cfg.get("output_type") or "")
                kwargs = cfg.get("dataset_kwargs")
                if isinstance(kwargs, dict) and isinstance(kwargs.get("task_id"), str):
                    data_ids[cfg["task"]] = kwargs["task_id"]
                tag = cfg.get("tag")
                for t in ([tag] if isinstance(tag, str) else tag or []):
                    tags.setdefault(t, []).append(cfg["task"])
        return cls(tasks, groups, {t: sorted(m) for t, m in tags.items()}, data_ids)

    @property
    def names(self) -> list[str]:
        """Every task, group and tag name."""
        return sorted({*self.tasks, *self.groups, *self.tags})

    def leaves(self, name: str) -> list[str]:
        """The leaf tasks under ``name`` (a task: itself), in order, each once."""
        out: list[str] = []
        stack = [name]
        seen = set()
        while stack:
            n = stack.pop(0)
            if n in seen:
                continue
            seen.add(n)
            if n in self.tasks:
                out.append(n)
            elif n in self.groups:
                stack[:0] = self.groups[n]
            elif n in self.tags:
                stack[:0] = self.tags[n]
        return out

    def order(self) -> list[str]:
        """Leaf tasks in a stable order: depth-first through the top groups, then the rest sorted."""
        children = {c for kids in self.groups.values() for c in kids}
        out: list[str] = []
        for top in [g for g in self.groups if g not in children]:
            out += [t for t in self.leaves(top) if t not in out]
        return out + sorted(t for t in self.tasks if t not in out)

    def collapse(self, leaves: Iterable[str]) -> list[str]:
        """``leaves`` as the fewest complete groups (largest first), then tags, then single tasks."""
        remaining = set(leaves)
        chosen: list[str] = []
        children = {c for kids in self.groups.values() for c in kids}

        def visit(group: str) -> None:
            members = set(self.leaves(group))
            if members and members <= remaining:
                chosen.append(group)
                remaining.difference_update(members)
                return
            for child in self.groups.get(group, []):
                if child in self.groups:
                    visit(child)

        for top in [g for g in self.groups if g not in children]:
            visit(top)
        for tag in sorted(self.tags):
            members = set(self.leaves(tag))
            if members and members <= remaining:
                chosen.append(tag)
                remaining.difference_update(members)
        return chosen + [t for t in self.order() if t in remaining]


@dataclass
class Selection:
    """What ``--tasks`` resolves to.

    Attributes:
        tasks: the names to pass to the harness, in order (ours resolved, the rest unchanged).
        ours: the resolved cpsd names among ``tasks``.
        others: the specs left to the harness (built-in tasks, paths).
        notes: what was rewritten, one short phrase each (``"cpsd_* → cpsd"``).
    """

    tasks: list[str]
    ours: list[str]
    others: list[str]
    notes: list[str] = field(default_factory=list)

    @property
    def only_ours(self) -> bool:
        """Every requested task is a cpsd task (the built-in index is not needed)."""
        return bool(self.ours) and not self.others


def suggest(spec: str, names: Sequence[str]) -> list[str]:
    """Up to three of ``names`` close to ``spec`` (difflib), best first."""
    close = difflib.get_close_matches(spec, names, n=3, cutoff=0.75)
    if not close and is_wildcard(spec):
        close = difflib.get_close_matches(literal_prefix(spec), names, n=3, cutoff=0.75)
    if not close and not spec.startswith(PREFIX + "_"):
        close = difflib.get_close_matches(f"{PREFIX}_{spec}", names, n=3, cutoff=0.75)
    return close


def unknown_message(spec: str, index: Index) -> str:
    """One line: ``spec`` names no cpsd task, the closest names, and our groups."""
    what = "task pattern" if is_wildcard(spec) else "task"
    close = suggest(spec, index.names)
    hint = f"did you mean {' or '.join(repr(c) for c in close)}? " if close else ""
    tops = ", ".join([*index.groups, *index.tags])
    return (f"unknown {what} {spec!r}{' (matches no cpsd task)' if is_wildcard(spec) else ''}; {hint}"
            f"cpsd groups: {tops}; every name: cpsd-eval ls")


def resolve(specs: Sequence[str], index: Index) -> Selection:
    """Resolve ``--tasks`` entries (already split at commas) by the rule of the module doc.

    Raises:
        UnknownTask: a cpsd name or wildcard names nothing of ours (the message is one line).
    """
    explicit: list[str] = []       # plain cpsd names, deduplicated
    wild: list[str] = []           # leaves selected by cpsd wildcards
    wild_specs: list[str] = []
    others: list[str] = []
    slots: list[str] = []          # "ours" marks where the cpsd names go among the others
    for spec in specs:
        spec = spec.strip()
        if not spec:
            continue
        if not is_ours(spec):
            if spec not in others:
                others.append(spec)
                slots.append(spec)
            continue
        if "ours" not in slots:
            slots.append("ours")
        if is_wildcard(spec):
            allow_ll = literal_prefix(spec).startswith(LL_PREFIX)
            matched = fnmatch.filter(index.names, spec)
            leaves = [t for m in matched for t in index.leaves(m)
                      if allow_ll or index.tasks.get(t) == "generate_until"]
            if not leaves:
                raise UnknownTask(unknown_message(spec, index))
            wild_specs.append(spec)
            wild += [t for t in leaves if t not in wild]
        elif spec in index.tasks or spec in index.groups or spec in index.tags:
            if spec not in explicit:
                explicit.append(spec)
        else:
            raise UnknownTask(unknown_message(spec, index))

    notes: list[str] = []
    if wild_specs:
        union = [t for t in index.order() if t in set(wild) | {x for e in explicit for x in index.leaves(e)}]
        ours = index.collapse(union)
        notes.append(f"{','.join(wild_specs)} → {','.join(ours)}")
        if not any(literal_prefix(s).startswith(LL_PREFIX) for s in wild_specs):
            notes.append("the cpsd_ll log-likelihood variants only by name or cpsd_ll*")
    else:
        ours = []
        for name in explicit:
            mine = set(index.leaves(name))
            covered_by = [o for o in explicit if o != name and mine < set(index.leaves(o))]
            same_as_earlier = [o for o in ours if set(index.leaves(o)) == mine]
            if covered_by or same_as_earlier:
                notes.append(f"{name} dropped (already in {(covered_by or same_as_earlier)[0]})")
                continue
            ours.append(name)
    tasks: list[str] = []
    for slot in slots:
        tasks += ours if slot == "ours" else [slot]
    return Selection(tasks=tasks, ours=ours, others=others, notes=notes)


def local_index(include_path: Any = None) -> Index:
    """:class:`Index` of our task folder (or ``include_path``), read without the harness."""
    from cpsd_tasks import YAML_DIR

    return Index.from_yaml_dir(include_path or YAML_DIR)
