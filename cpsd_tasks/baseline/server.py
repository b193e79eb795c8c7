"""``cpsd-baseline-server``: the rule baseline behind an OpenAI-compatible chat-completions API.

Serves ``POST /v1/chat/completions`` (and ``GET /v1/models``) on 127.0.0.1 with the standard
library's threading HTTP server, so the whole benchmark runs with no API key, GPU or network::

    cpsd-baseline-server --port 0          # prints: cpsd-baseline-server listening on http://127.0.0.1:PORT/v1/chat/completions
    cpsd-eval --model local-chat-completions \
        --model_args base_url=http://127.0.0.1:PORT/v1/chat/completions,model=baseline \
        --apply_chat_template --tasks cpsd_clf

The answer depends on the last user message only (few-shot turns are ignored). A prompt that is not
a cpsd prompt gets HTTP 400 with the reason, so a misconfigured run fails loudly.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Optional

from cpsd_tasks.baseline import UnknownPrompt, answer


def _last_user_text(payload: dict[str, Any]) -> str:
    messages = payload.get("messages")
    if not isinstance(messages, list):
        raise UnknownPrompt("request has no 'messages' list")
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):  # OpenAI content parts
                content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
            return content if isinstance(content, str) else ""
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

    def do_GET(self) -> None:  # noqa: N802 (http.server API)
        if self.path.rstrip("/").endswith("/v1/models"):
            self._send(200, {"object": "list", "data": [{"id": "baseline", "object": "model"}]})
        else:
            self._send(404, {"error": {"message": f"no such path {self.path}"}})

    def do_POST(self) -> None:  # noqa: N802
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, {"error": {"message": f"no such path {self.path}; use /v1/chat/completions"}})
            return
        with self.server.lock:
            self.server.requests += 1
        try:
            length = int(self.headers.get("Content-Length") or 0)
            payload = json.loads(self.rfile.read(length).decode("utf-8"))
            content = answer(_last_user_text(payload))
        except (UnknownPrompt, ValueError) as err:
            self._send(400, {"error": {"message": str(err), "type": "invalid_request_error"}})
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
