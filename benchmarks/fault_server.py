"""A loopback OpenAI-compatible chat server that injects faults, for robustness tests and the bench.

The content of a good answer is the rule baseline's (:func:`cpsd_tasks.baseline.answer`), so a run
through it scores exactly like a run against ``cpsd-baseline-server`` once every fault is retried.

Faults are decided by a *plan*: ``plan(prompt, attempt) -> action``, where ``attempt`` counts the
requests this server has seen for the same prompt (1 for the first). Actions:

- ``ok``: 200 with the baseline answer;
- ``429`` / ``500``: that status with an OpenAI-style error body;
- ``timeout``: the request is held ``hang`` seconds (past the client's ``timeout``) before an answer;
- ``reset``: the TCP connection is closed with an RST (SO_LINGER 0), no response at all;
- ``badjson``: 200 whose body is truncated JSON;
- ``null``: 200 with ``"content": null`` and ``finish_reason: "content_filter"`` (a filtered answer);
- ``nochoices``: 200 with a JSON error object and no ``choices`` (some gateways do this).

:func:`fraction_plan` gives each fault to a share of prompts chosen by the CRC-32 of their text (the
same prompts in every run); :func:`ordinal_plan` to every n-th distinct prompt in arrival order
(exact counts whatever the data).
Everything binds to 127.0.0.1 only and stops with :meth:`FaultServer.stop`.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
import zlib
from collections import Counter, defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Mapping, Optional

Plan = Callable[[str, int], str]
ACTIONS = ("ok", "429", "500", "timeout", "reset", "badjson", "null", "nochoices")


def bucket(prompt: str, buckets: int = 1000) -> int:
    """Deterministic bucket in ``[0, buckets)`` of a prompt (CRC-32 of its UTF-8 bytes)."""
    return zlib.crc32(prompt.encode("utf-8", "surrogatepass")) % buckets


def fraction_plan(fractions: Mapping[str, float], failing_attempts: int = 1) -> Plan:
    """A plan that gives each fault to a fixed share of prompts, on their first attempts only.

    Args:
        fractions: ``{action: share of prompts in [0, 1]}``; shares add up to at most 1.
            ``null`` and ``nochoices`` are answers, not errors: they apply on every attempt.
        failing_attempts: how many attempts of a faulty prompt fail before it gets ``ok``
            (use a large number for faults beyond any retry budget).

    Returns:
        ``plan(prompt, attempt) -> action``.
    """
    ranges: list[tuple[int, int, str]] = []
    start = 0
    for action, share in fractions.items():
        assert action in ACTIONS, action
        end = start + round(share * 1000)
        ranges.append((start, end, action))
        start = end
    assert start <= 1000, "fractions add up to more than 1"

    def plan(prompt: str, attempt: int) -> str:
        b = bucket(prompt)
        for lo, hi, action in ranges:
            if lo <= b < hi:
                if action in ("null", "nochoices") or attempt <= failing_attempts:
                    return action
                return "ok"
        return "ok"

    return plan


def ordinal_plan(schedule: Mapping[int, str], period: int, failing_attempts: int = 1) -> Plan:
    """A plan by arrival order: the n-th distinct prompt (from 0) gets ``schedule[n % period]``.

    Unlike :func:`fraction_plan` the number of prompts hit by each fault is exact whatever the
    data (which prompts are hit depends on arrival order when requests run concurrently).

    Args:
        schedule: ``{residue: action}``; residues not listed get ``ok``.
        period: cycle length.
        failing_attempts: attempts of a faulty prompt that fail before it gets ``ok``
            (``null``/``nochoices`` apply on every attempt).

    Returns:
        ``plan(prompt, attempt) -> action``.
    """
    for action in schedule.values():
        assert action in ACTIONS, action
    order: dict[str, int] = {}
    lock = threading.Lock()

    def plan(prompt: str, attempt: int) -> str:
        with lock:
            n = order.setdefault(prompt, len(order))
        action = schedule.get(n % period, "ok")
        if action in ("null", "nochoices") or attempt <= failing_attempts:
            return action
        return "ok"

    return plan


def _last_user_text(payload: dict[str, Any]) -> str:
    for message in reversed(payload.get("messages") or []):
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            return content if isinstance(content, str) else ""
    return ""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # http.server writes headers and body in two sends: with Nagle's algorithm on, the body waits
    # for the client's delayed ACK (~40 ms on Linux) and every answer looks 40 ms slower.
    disable_nagle_algorithm = True

    def log_message(self, fmt: str, *args: Any) -> None:
        pass

    def _send(self, status: int, body: bytes, ctype: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _error(self, status: int, message: str, kind: str) -> None:
        self._send(status, json.dumps({"error": {"message": message, "type": kind}}).encode())

    def do_POST(self) -> None:  # noqa: N802 (http.server API)
        fs: FaultServer = self.server.owner  # type: ignore[attr-defined]
        length = int(self.headers.get("Content-Length") or 0)
        payload = json.loads(self.rfile.read(length).decode("utf-8"))
        prompt = _last_user_text(payload)
        started = time.monotonic()
        with fs.lock:
            if fs.first_request_at is None:
                fs.first_request_at = started
            fs.requests += 1
            fs.attempts[prompt] += 1
            attempt = fs.attempts[prompt]
            fs.in_flight += 1
            fs.max_in_flight = max(fs.max_in_flight, fs.in_flight)
        action = fs.plan(prompt, attempt) if fs.plan else "ok"
        try:
            if fs.delay:
                time.sleep(fs.delay)
            with fs.lock:
                fs.actions[action] += 1
                fs.prompts[action].add(prompt)
            if action == "ok":
                from cpsd_tasks.baseline import answer

                content = fs.content(prompt) if fs.content else answer(prompt)
                self._send(200, _completion(content, payload))
                with fs.lock:
                    fs.served_ok += 1
            elif action == "null":
                self._send(200, _completion(None, payload, finish="content_filter"))
                with fs.lock:
                    fs.served_ok += 1
            elif action == "429":
                self._error(429, "Rate limit reached for requests (fault injected)", "rate_limit_exceeded")
            elif action == "500":
                self._error(500, "The server had an error while processing your request (fault injected)",
                            "server_error")
            elif action == "timeout":
                time.sleep(fs.hang)
                self._send(200, _completion("超时之后才到的答案", payload))
            elif action == "reset":
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.close_connection = True
                self.connection.close()
            elif action == "badjson":
                self._send(200, b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": "')
            elif action == "nochoices":
                self._send(200, json.dumps({"error": {"message": "upstream overloaded (fault injected)"}}).encode())
        except OSError:  # the client went away (timeout) or we reset the socket ourselves
            self.close_connection = True
        finally:
            with fs.lock:
                fs.in_flight -= 1
                fs.last_response_at = time.monotonic()
                fs.busy += fs.last_response_at - started

    def do_GET(self) -> None:  # noqa: N802
        self._send(200, json.dumps({"object": "list", "data": [{"id": "fault", "object": "model"}]}).encode())


def _completion(content: Optional[str], payload: dict[str, Any], finish: str = "stop") -> bytes:
    body = {
        "id": "fault-1", "object": "chat.completion", "created": int(time.time()),
        "model": payload.get("model", "fault"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }
    return json.dumps(body).encode("ascii")  # \u escapes: a lone surrogate goes out as JSON allows


class _QuietServer(ThreadingHTTPServer):
    """Counts handler errors (a client that gave up, our own resets) instead of printing them."""

    errors = 0
    # socketserver's default backlog is 5: a client opening 16 connections at once gets some SYNs
    # dropped and retried by the kernel after 1 s, which would show as harness latency.
    request_queue_size = 128

    def handle_error(self, request: Any, client_address: Any) -> None:
        self.errors += 1


class FaultServer:
    """A fault-injecting chat-completions server on 127.0.0.1 (started on construction).

    Args:
        plan: ``plan(prompt, attempt) -> action`` (see module docstring); ``None`` = always ``ok``.
        delay: seconds every request waits before its action (latency of a real model).
        hang: seconds a ``timeout`` request is held (set it above the client's ``timeout``).
        content: optional ``content(prompt) -> str`` replacing the baseline answer.

    Attributes:
        url: the ``base_url`` to give ``local-chat-completions``.
        requests: chat requests received; ``served_ok``: 200 answers with content or null content;
        attempts: Counter of requests per prompt; actions: Counter of actions taken;
        prompts: ``{action: set of prompts that got it at least once}``;
        first_request_at / last_response_at: ``time.monotonic()`` of the first request received and
        of the last response finished (``None`` before any); busy: summed handling seconds.
        max_in_flight: the largest number of requests in progress at once.
    """

    def __init__(self, plan: Optional[Plan] = None, delay: float = 0.0, hang: float = 3.0,
                 content: Optional[Callable[[str], str]] = None):
        self.plan, self.delay, self.hang, self.content = plan, delay, hang, content
        self.lock = threading.Lock()
        self.requests = self.served_ok = self.in_flight = self.max_in_flight = 0
        self.first_request_at: Optional[float] = None
        self.last_response_at: Optional[float] = None
        self.busy = 0.0
        self.attempts: Counter[str] = Counter()
        self.actions: Counter[str] = Counter()
        self.prompts: defaultdict[str, set[str]] = defaultdict(set)
        self._httpd = _QuietServer(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.owner = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        self.url = f"http://127.0.0.1:{self._httpd.server_port}/v1/chat/completions"

    def reset_counts(self) -> None:
        """Zero every counter (the plan's attempt counts too)."""
        with self.lock:
            self.requests = self.served_ok = self.max_in_flight = 0
            self.first_request_at = self.last_response_at = None
            self.busy = 0.0
            self.attempts.clear()
            self.actions.clear()
            self.prompts.clear()

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> "FaultServer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
