"""``cpsd-baseline-server``: the rule baseline behind an OpenAI-compatible chat-completions API.

Serves ``POST /v1/chat/completions`` (and ``GET /v1/models``) on 127.0.0.1 with the standard
library's threading HTTP server, so the whole benchmark runs with no API key, GPU or network::

    cpsd-baseline-server --port 0          # prints: cpsd-baseline-server listening on http://127.0.0.1:PORT/v1/chat/completions
    cpsd-eval --model local-chat-completions \
        --model_args base_url=http://127.0.0.1:PORT/v1/chat/completions,model=baseline \
        --apply_chat_template --tasks cpsd_clf

The answer depends on the last user message only (few-shot turns are ignored). A prompt that is not
a cpsd prompt gets HTTP 400 with the reason, so a misconfigured run fails loudly. So does any
malformed request (a body that is not UTF-8 JSON, not an object, messages that are not a list of
``{"role", "content"}`` objects, a bad ``Content-Length``): always a JSON
``{"error": {"message", "type"}}`` answer, never a dropped connection. A bug in a rule answers
500 with the same shape (and a traceback on the server's stderr).
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Optional

from cpsd_tasks.baseline import UnknownPrompt, answer


#: Largest request body read (bytes); a cpsd prompt is a few kB, the longest documents ~100 kB.
MAX_BODY = 64 * 1024 * 1024


class BadRequest(ValueError):
    """A malformed request: answered with HTTP ``status`` and the message."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def _content_text(content: Any, where: str) -> str:
    """A message's content as text: a string, OpenAI content parts, or ``None`` (empty)."""
    if content is None or isinstance(content, str):
        return content or ""
    if isinstance(content, list):  # OpenAI content parts: [{"type": "text", "text": "…"}, …]
        texts = []
        for i, part in enumerate(content):
            if not isinstance(part, dict):
                raise BadRequest(f"{where}.content[{i}] must be an object, got {type(part).__name__}")
            text = part.get("text", "")
            if not isinstance(text, str):
                raise BadRequest(f"{where}.content[{i}].text must be a string, got {type(text).__name__}")
            texts.append(text)
        return "".join(texts)
    raise BadRequest(f"{where}.content must be a string or a list of parts, got {type(content).__name__}")


def parse_payload(raw: bytes) -> dict[str, Any]:
    """The request body as a chat-completions payload, checked.

    Raises:
        BadRequest: not UTF-8, not JSON (or nested too deep), not an object, ``messages`` not a
            list of objects with a string ``role`` and a text ``content``.
    """
    try:
        payload = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as err:
        raise BadRequest(f"request body is not UTF-8 (byte {err.start})") from None
    except ValueError as err:
        raise BadRequest(f"request body is not JSON: {err}") from None
    except RecursionError:
        raise BadRequest("request body is not JSON this server can read (nested too deeply)") from None
    if not isinstance(payload, dict):
        raise BadRequest(f"request body must be a JSON object, got {type(payload).__name__}")
    messages = payload.get("messages")
    if not isinstance(messages, list) or not messages:
        raise BadRequest("request needs 'messages': a non-empty list of {\"role\", \"content\"} objects")
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            raise BadRequest(f"messages[{i}] must be an object, got {type(message).__name__}")
        if not isinstance(message.get("role"), str):
            raise BadRequest(f"messages[{i}].role must be a string")
        _content_text(message.get("content"), f"messages[{i}]")
    return payload


def _last_user_text(payload: dict[str, Any]) -> str:
    """The text of the last user message of a checked payload (:func:`parse_payload`)."""
    for i in range(len(payload["messages"]) - 1, -1, -1):
        message = payload["messages"][i]
        if message.get("role") == "user":
            return _content_text(message.get("content"), f"messages[{i}]")
    raise UnknownPrompt("request has no user message")


class Handler(BaseHTTPRequestHandler):
    """Request handler; counts requests on the server object for tests and benchmarks."""

    server_version = "cpsd-baseline/1"
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes; without TCP_NODELAY each answer waits ~40 ms
    # for the client's delayed ACK.
    disable_nagle_algorithm = True

    def log_message(self, fmt: str, *args: Any) -> None:  # quiet by default
        if getattr(self.server, "verbose", False):
            super().log_message(fmt, *args)

    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> bytes:
        """The request body, by ``Content-Length``.

        Raises:
            BadRequest: ``Content-Length`` missing on a chunked body, not a number, negative (400)
                or above :data:`MAX_BODY` (413).
        """
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            self.close_connection = True
            raise BadRequest("chunked request bodies are not supported; send Content-Length", 411)
        raw = self.headers.get("Content-Length")
        try:
            length = int(raw or 0)
        except ValueError:
            self.close_connection = True  # where the body ends is unknown
            raise BadRequest(f"Content-Length {raw!r} is not a number") from None
        if length < 0:
            self.close_connection = True
            raise BadRequest(f"Content-Length {length} is negative")
        if length > MAX_BODY:
            raise BadRequest(f"request body of {length} bytes is larger than {MAX_BODY}", 413)
        return self.rfile.read(length)

    def do_GET(self) -> None:  # noqa: N802 (http.server API)
        if self.path.rstrip("/").endswith("/v1/models"):
            self._send(200, {"object": "list", "data": [{"id": "baseline", "object": "model"}]})
        elif self.path.split("?", 1)[0].rstrip("/").endswith("/chat/completions"):
            # as vLLM (FastAPI) answers: the route exists, for POST only
            self._send(405, {"error": {"message": "Method Not Allowed: POST only"}})
        else:
            self._send(404, {"error": {"message": f"no such path {self.path}"}})

    def do_POST(self) -> None:  # noqa: N802
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, {"error": {"message": f"no such path {self.path}; use /v1/chat/completions"}})
            return
        with self.server.lock:
            self.server.requests += 1
        try:
            payload = parse_payload(self._body())
            content = answer(_last_user_text(payload))
        except (BadRequest, UnknownPrompt) as err:
            status = err.status if isinstance(err, BadRequest) else 400
            if status == 413:  # the body was not read: this connection cannot carry another request
                self.close_connection = True
            self._send(status, {"error": {"message": str(err), "type": "invalid_request_error"}})
            return
        except Exception as err:  # a bug in a rule: say so in JSON, keep serving
            traceback.print_exc(file=sys.stderr)
            self._send(500, {"error": {"message": f"cpsd-baseline-server bug: {type(err).__name__}: {err}",
                                       "type": "server_error"}})
            return
        self._send(200, {
            "id": f"cpsd-baseline-{self.server.requests}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": payload.get("model", "baseline"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        })


class _Server(ThreadingHTTPServer):
    # The default listen backlog of 5 makes a client with more concurrent connections wait ~1 s.
    request_queue_size = 128


def make_server(host: str = "127.0.0.1", port: int = 0, verbose: bool = False) -> ThreadingHTTPServer:
    """Build (not start) the baseline server; ``port=0`` picks a free port (``server.server_port``).

    The server object has ``requests`` (count of chat requests served) and ``lock``.
    """
    server = _Server((host, port), Handler)
    server.daemon_threads = True
    server.requests = 0
    server.lock = threading.Lock()
    server.verbose = verbose
    return server


def main(argv: Optional[list[str]] = None) -> None:
    """Entry point of ``cpsd-baseline-server``: serve until interrupted."""
    parser = argparse.ArgumentParser(prog="cpsd-baseline-server", description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port; 0 picks a free one (default 8000)")
    parser.add_argument("--verbose", action="store_true", help="log every request")
    args = parser.parse_args(argv)
    server = make_server(args.host, args.port, args.verbose)
    print(f"cpsd-baseline-server listening on http://{args.host}:{server.server_port}/v1/chat/completions",
          flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    sys.exit(main())
