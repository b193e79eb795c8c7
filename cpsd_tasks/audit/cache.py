"""The audit's reading cache: per corpus and model, what the readers read, kept on disk.

A cache file is valid for one reader and one corpus: its key is the digest of
:data:`cpsd_tasks.reading.READER_VERSION`, of the source of the installed reading code
(``cpsd_tasks/reading/*.py``, ``cpsd_tasks/qa/*.py``, ``cpsd_tasks/ie/*.py``, ``cpsd_tasks/tasks.py``, so
that a change of a rule not yet versioned is not served stale readings), of the audit's own code,
and of the corpus files read
(the model's prediction file and the items' data files). Any change gives a new key; the old
files stay until removed (``--cache`` names the folder).
"""

from __future__ import annotations

import gzip
import hashlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Optional

#: The default cache folder (relative to the working directory).
DEFAULT_CACHE = Path(".cpsd_audit_cache")


def file_digest(path: Path) -> str:
    """SHA-1 (hex) of a file's bytes. Raises ``OSError`` when it cannot be read."""
    digest = hashlib.sha1()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@lru_cache(maxsize=1)
def reader_digest() -> str:
    """Digest naming the installed readers and the audit's code: ``READER_VERSION`` and the source
    of the reading package, the QA hooks (``cpsd_tasks/qa/``), the IE metric (``cpsd_tasks/ie/``), the
    task table and this audit package, as imported at run time."""
    import cpsd_tasks.audit as audit_package
    import cpsd_tasks.ie as ie
    import cpsd_tasks.qa.score as score
    import cpsd_tasks.reading as reading
    import cpsd_tasks.tasks as tasks

    digest = hashlib.sha1(f"reader {reading.READER_VERSION}".encode())
    files = [*sorted(Path(reading.__file__).parent.glob("*.py")), *sorted(Path(score.__file__).parent.glob("*.py")),
             *sorted(Path(ie.__file__).parent.glob("*.py")), Path(tasks.__file__),
             *sorted(Path(audit_package.__file__).parent.glob("*.py"))]
    for path in files:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def cache_key(*parts: str) -> str:
    """The key of one cache entry: the reader digest and the given parts (file digests, names)."""
    return hashlib.sha1("\n".join((reader_digest(), *parts)).encode()).hexdigest()[:20]


def _path(folder: Path, name: str, parts: Iterable[str]) -> Path:
    return folder / f"{name}.{cache_key(name, *parts)}.json.gz"


def load(folder: Optional[Path], name: str, parts: Iterable[str]) -> Optional[Any]:
    """The cached value of ``name`` for these key ``parts`` (file digests), or ``None`` when absent,
    damaged or ``folder`` is ``None``."""
    if folder is None:
        return None
    path = _path(folder, name, parts)
    if not path.is_file():
        return None
    try:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return None


def store(folder: Optional[Path], name: str, parts: Iterable[str], value: Any) -> None:
    """Write a JSON-serialisable ``value`` under ``name`` and ``parts`` (nothing when ``folder`` is ``None``)."""
    if folder is None:
        return
    folder.mkdir(parents=True, exist_ok=True)
    path = _path(folder, name, parts)
    tmp = path.with_name(path.name + ".tmp")
    with gzip.open(tmp, "wt", encoding="utf-8", compresslevel=3) as handle:
        json.dump(value, handle, ensure_ascii=False)
    tmp.replace(path)


def cached(folder: Optional[Path], name: str, parts: Iterable[str], compute: Callable[[], Any]) -> tuple[Any, bool]:
    """``compute()``'s JSON-serialisable value, read from ``folder`` when an entry of the same key exists.

    Returns:
        ``(value, from_cache)``; a damaged entry is recomputed and rewritten.
    """
    parts = tuple(parts)
    value = load(folder, name, parts)
    if value is not None:
        return value, True
    value = compute()
    store(folder, name, parts, value)
    return value, False
