"""Sending judge requests: an OpenAI-compatible chat endpoint, a request cache, concurrency,
retries with back-off, a progress bar.

* **Endpoint.** ``base_url`` is the chat-completions URL (``http://127.0.0.1:8000/v1/chat/completions``);
  a URL ending in ``/v1`` gets ``/chat/completions`` appended. The body is the OpenAI chat
  format with ``temperature: 0`` and a small ``max_tokens``; ``$OPENAI_API_KEY`` (or ``api_key``)
  is sent as a bearer token when set.
* **Cache.** Every reply is stored in a SQLite file as soon as it arrives, keyed on (judge model,
  prompt digest, sample digest) — the sample digest is the SHA-256 of the request's messages,
  which hold the question, the options or labels and the output. A second run with the same
  judge and prompts sends nothing; a run that was interrupted (Ctrl-C, a dead endpoint) resumes
  with what is missing.
* **Retries** (``tenacity``): a connection error, a timeout, HTTP 429 or 5xx, or a 200 without a
  reply is retried with exponential back-off (0.5 s doubling, at most 30 s between tries) up to
  ``max_retries`` times; then :class:`JudgeTransportError` ends the command with one line, and
  what was judged stays in the cache. Another HTTP status (400, 401, 404 …) is not retried.
* **Concurrency**: ``concurrency`` requests in flight (threads; one ``requests`` session each);
  the cache is written by the calling thread only. A ``tqdm`` bar on stderr counts the replies.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Callable, Iterable, Optional, Sequence

import requests
import tenacity

DEFAULT_CONCURRENCY = 8
DEFAULT_RETRIES = 5
DEFAULT_TIMEOUT = 120.0
#: ``max_tokens`` of a request: extraction replies are one short line; a rubric a few more words.
MAX_TOKENS = {"rubric": 128}
DEFAULT_MAX_TOKENS = 64


class JudgeTransportError(RuntimeError):
    """The endpoint could not be reached or kept failing after the retries (message: one line)."""


class _Retryable(Exception):
    """A failure worth another try (connection, timeout, 429, 5xx, a reply without content)."""


def chat_url(base_url: str) -> str:
    """The chat-completions URL of ``base_url`` (``…/v1`` → ``…/v1/chat/completions``)."""
    url = base_url.rstrip("/")
    return url + "/chat/completions" if url.endswith("/v1") else url


def sample_digest(messages: Sequence[dict[str, str]]) -> str:
    """SHA-256 hex digest of a request's messages (canonical JSON) — the cache's sample key."""
    raw = json.dumps(list(messages), ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


class ReplyCache:
    """Judge replies in a SQLite file, keyed on (judge model, prompt digest, sample digest).

    Every :meth:`put` commits at once, so an interrupted run keeps every reply received.
    """

    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(self.path))
        self._db.execute("CREATE TABLE IF NOT EXISTS replies (judge_model TEXT, prompt_digest TEXT, "
                         "sample_digest TEXT, reply TEXT, created TEXT, "
                         "PRIMARY KEY (judge_model, prompt_digest, sample_digest))")
        self._db.commit()

    def get(self, model: str, prompt: str, sample: str) -> Optional[str]:
        """The cached reply text, or ``None``."""
        row = self._db.execute("SELECT reply FROM replies WHERE judge_model=? AND prompt_digest=? AND "
                               "sample_digest=?", (model, prompt, sample)).fetchone()
        return None if row is None else row[0]

    def put(self, model: str, prompt: str, sample: str, reply: str) -> None:
        """Store one reply (replacing an older one for the same key) and commit."""
        self._db.execute("INSERT OR REPLACE INTO replies VALUES (?, ?, ?, ?, ?)",
                         (model, prompt, sample, reply, time.strftime("%Y-%m-%dT%H:%M:%S")))
        self._db.commit()

    def __len__(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM replies").fetchone()[0]

    def close(self) -> None:
        """Close the database."""
        self._db.close()


class JudgeClient:
    """Sends judge requests to one model at one endpoint, through a :class:`ReplyCache`.

    Args:
        base_url: chat-completions URL (see :func:`chat_url`). model: the judge model name.
        cache: the reply cache. prompt_digest: :func:`cpsd_tasks.judge.prompts.prompt_digest`.
        concurrency: requests in flight (≥ 1). max_retries: retries per request after the first
            try. timeout: seconds per try. api_key: bearer token (default ``$OPENAI_API_KEY``).
        backoff: first back-off in seconds (doubles per retry, at most 30 s; tests use 0).
    """

    def __init__(self, base_url: str, model: str, cache: ReplyCache, prompt_digest: str,
                 concurrency: int = DEFAULT_CONCURRENCY, max_retries: int = DEFAULT_RETRIES,
                 timeout: float = DEFAULT_TIMEOUT, api_key: Optional[str] = None, backoff: float = 0.5):
        self.url = chat_url(base_url)
        self.model = model
        self.cache = cache
        self.prompt_digest = prompt_digest
        self.concurrency = max(1, int(concurrency))
        self.max_retries = max(0, int(max_retries))
        self.timeout = timeout
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self.backoff = backoff
        self.sent = 0
        self._local = threading.local()

    def _session(self) -> requests.Session:
        if not hasattr(self._local, "session"):
            self._local.session = requests.Session()
        return self._local.session

    def _post_once(self, messages: Sequence[dict[str, str]], max_tokens: int) -> str:
        body = {"model": self.model, "messages": list(messages), "temperature": 0, "max_tokens": max_tokens}
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        try:
            resp = self._session().post(self.url, json=body, headers=headers, timeout=self.timeout)
        except requests.Timeout:
            raise _Retryable(f"no answer within {self.timeout:g} s") from None
        except requests.ConnectionError:
            raise _Retryable("cannot connect: nothing listening there, or the host is unreachable") from None
        if resp.status_code == 429 or resp.status_code >= 500:
            raise _Retryable(f"HTTP {resp.status_code}")
        if resp.status_code != 200:
            raise JudgeTransportError(f"the judge endpoint {self.url} answered HTTP {resp.status_code}: "
                                      f"{resp.text.strip().splitlines()[0][:200] if resp.text.strip() else ''}")
        try:
            content = resp.json()["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise _Retryable("a reply without choices[0].message.content") from None
        return "" if content is None else str(content)

    def post(self, messages: Sequence[dict[str, str]], max_tokens: int = DEFAULT_MAX_TOKENS) -> str:
        """Send one request (with retries) and return the reply's content.

        Raises:
            JudgeTransportError: the retries were used up, or a status that is not retried.
        """
        retrying = tenacity.Retrying(
            retry=tenacity.retry_if_exception_type(_Retryable),
            stop=tenacity.stop_after_attempt(self.max_retries + 1),
            wait=tenacity.wait_exponential(multiplier=self.backoff, max=30) if self.backoff else tenacity.wait_none(),
            reraise=True)
        try:
            return retrying(self._post_once, messages, max_tokens)
        except _Retryable as err:
            tries = self.max_retries + 1
            raise JudgeTransportError(f"the judge endpoint {self.url} failed {tries} time{'s' if tries > 1 else ''} "
                                      f"(last: {err})") from None

    def replies(self, requests_: Iterable[tuple[Sequence[dict[str, str]], str]],
                on_reply: Callable[[int, str, bool], None], progress: bool = True) -> None:
        """Get the reply to every request, from the cache or the endpoint.

        Args:
            requests_: ``(messages, kind)`` per request, in order.
            on_reply: called in this thread as ``on_reply(index, reply text, from_cache)`` — at
                once for a cached reply, on arrival for the others (any order).
            progress: show a ``tqdm`` bar on stderr (hidden when stderr is not a terminal).

        Raises:
            JudgeTransportError: a request failed for good; the replies received so far are
                cached and were passed to ``on_reply``; requests not yet sent are not sent.
        """
        from tqdm import tqdm

        pending: list[tuple[int, Sequence[dict[str, str]], str, str]] = []
        for index, (messages, kind) in enumerate(requests_):
            key = sample_digest(messages)
            cached = self.cache.get(self.model, self.prompt_digest, key)
            if cached is not None:
                on_reply(index, cached, True)
            else:
                pending.append((index, messages, kind, key))
        if not pending:
            return
        bar = tqdm(total=len(pending), desc=f"judge {self.model}", unit="req", disable=None if progress else True)
        pool = ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="cpsd-judge")
        try:
            todo = iter(pending)
            running: dict[Future, tuple[int, str]] = {}

            def submit_next() -> None:
                for index, messages, kind, key in todo:
                    running[pool.submit(self.post, messages, MAX_TOKENS.get(kind, DEFAULT_MAX_TOKENS))] = (index, key)
                    return

            for _ in range(self.concurrency):
                submit_next()
            error: Optional[JudgeTransportError] = None
            while running:
                done, _ = wait(list(running), return_when=FIRST_COMPLETED)
                for future in done:
                    index, key = running.pop(future)
                    try:
                        reply = future.result()
                    except JudgeTransportError as err:
                        error = error or err         # send nothing more; keep the replies in flight
                        continue
                    self.sent += 1
                    self.cache.put(self.model, self.prompt_digest, key, reply)
                    on_reply(index, reply, False)
                    bar.update(1)
                    if error is None:
                        submit_next()
            if error is not None:
                raise error
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            bar.close()
