"""A loopback chat-completions server that records every request body and answers by a rule.

``CaptureServer(reply)`` binds 127.0.0.1 on a free port. ``reply(payload, prompt)`` returns a
:class:`Reply` (status, content, finish reason, or a raw JSON body); the default answers with the
rule baseline (:func:`cpsd_tasks.baseline.answer`). Every request body is kept in ``payloads``.

``CaptureServer(only_path="/v1/chat/completions")`` routes as vLLM (FastAPI) does: any other path
answers 404 ``{"detail": "Not Found"}`` (those requests are counted in ``not_found``, not kept in
``payloads``), and a GET of the path itself answers 405. Without it every POST is answered and a
GET gets http.server's 501.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Optional


@dataclass
class Reply:
    """One answer: ``body`` (a JSON-able object) wins over ``content``/``finish``."""

    content: Optional[str] = ""
    finish: str = "stop"
    status: int = 200
    body: Any = None


def user_prompt(payload: dict[str, Any]) -> str:
    """The last user message of a chat payload."""
    for message in reversed(payload.get("messages") or []):
        if isinstance(message, dict) and message.get("role") == "user":
            return message.get("content") or ""
    return ""


def completion(content: Optional[str], model: str, finish: str = "stop") -> dict[str, Any]:
    """An OpenAI chat.completion body with one choice."""
    return {"id": "cap-1", "object": "chat.completion", "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": finish}],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}}


def baseline_reply(payload: dict[str, Any], prompt: str) -> Reply:
    from cpsd_tasks.baseline import answer

    return Reply(answer(prompt))


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, fmt: str, *args: Any) -> None:
        pass

    def _plain(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode("ascii")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _routed_away(self) -> bool:
        """With ``only_path``: answer 404 for any other path (counted) and say so."""
        owner: CaptureServer = self.server.owner  # type: ignore[attr-defined]
        if owner.only_path is None or self.path.split("?", 1)[0] == owner.only_path:
            return False
        with owner.lock:
            owner.not_found += 1
        self._plain(404, {"detail": "Not Found"})
        return True

    def do_GET(self) -> None:  # noqa: N802
        owner: CaptureServer = self.server.owner  # type: ignore[attr-defined]
        if owner.only_path is None:
            self.send_error(501, "Unsupported method ('GET')")
            return
        if not self._routed_away():
            self._plain(405, {"detail": "Method Not Allowed"})

    def do_POST(self) -> None:  # noqa: N802
        owner: CaptureServer = self.server.owner  # type: ignore[attr-defined]
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if self._routed_away():
            return
        payload = json.loads(raw.decode("utf-8"))
        with owner.lock:
            owner.payloads.append(payload)
        reply = owner.reply(payload, user_prompt(payload))
        body = reply.body if reply.body is not None else completion(reply.content, payload.get("model", "x"),
                                                                    reply.finish)
        data = json.dumps(body).encode("ascii")  # \\u escapes: lone surrogates go out as JSON allows
        self.send_response(reply.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class CaptureServer:
    """Records request bodies (``payloads``) and answers with ``reply(payload, prompt)``."""

    def __init__(self, reply: Callable[[dict[str, Any], str], Reply] = baseline_reply,
                 only_path: Optional[str] = None):
        self.reply = reply
        self.only_path = only_path
        self.not_found = 0
        self.lock = threading.Lock()
        self.payloads: list[dict[str, Any]] = []
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.owner = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        self.root = f"http://127.0.0.1:{self._httpd.server_port}"
        self.url = f"{self.root}/v1/chat/completions"

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
