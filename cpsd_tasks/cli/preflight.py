"""Pre-flight checks of ``cpsd-eval`` for API backends, before any task is built.

A run against an endpoint where nothing listens, or an OpenAI backend without a key, used to fail
after the whole start-up with a page of chained traceback. :func:`check` answers both in one line
(:class:`PreflightError`), in well under a second when the endpoint is local:

* **key**: ``cpsd-openai-chat`` and ``openai-chat-completions`` need ``$OPENAI_API_KEY`` (set and
  not blank), unless ``--model_args`` gives a ``header`` (which replaces the Authorization header);
* **path** (:func:`path_problem`): ``base_url`` ends with the backend's path —
  ``/chat/completions`` for the chat backends, ``/completions`` (not ``/chat/completions``) for
  ``local-completions`` —, since the harness posts to ``base_url`` exactly as given, unlike the
  OpenAI SDK and vLLM's docs, which write ``http://HOST:PORT/v1``;
* **endpoint**: a TCP connection to ``base_url``'s host and port (default 443/80 by scheme) opens
  within :data:`TIMEOUT` seconds. If that fails and a proxy from the environment applies to the
  URL, the proxy's address is tried instead (the harness's one-at-a-time requests honour proxies);
* **the path answers** (:func:`probe_path`, direct connections only): a ``GET`` of ``base_url``
  without body or key; a route that exists answers 405 (POST only), 401, 200 …; on 404 an empty
  ``POST {}`` (no messages, no model: nothing a server can bill) confirms, and 404 or 405 to it
  means no such endpoint. Neither can cost a token.

Backends checked: :data:`API_BACKENDS`. ``--no_preflight`` (``cpsd-eval``) skips the checks.
"""

from __future__ import annotations

import os
import socket
import threading
import urllib.request
from dataclasses import dataclass
from typing import Any, Mapping, Optional
from urllib.parse import urlsplit

#: Seconds a TCP connection (name resolution included) may take.
TIMEOUT = 5.0


@dataclass(frozen=True)
class Backend:
    """What a backend needs: an API key, its ``base_url`` when none is given, and the path
    ``base_url`` must end with (the harness posts to ``base_url`` as given)."""

    needs_key: bool
    default_url: Optional[str] = None
    path: str = "/chat/completions"


_OPENAI_CHAT = "https://api.openai.com/v1/chat/completions"

#: The API backends :func:`check` knows, by ``--model`` name.
API_BACKENDS: dict[str, Backend] = {
    "cpsd-openai-chat": Backend(needs_key=True, default_url=_OPENAI_CHAT),
    "openai-chat-completions": Backend(needs_key=True, default_url=_OPENAI_CHAT),
    "cpsd-local-chat": Backend(needs_key=False),
    "local-chat-completions": Backend(needs_key=False),
    "local-completions": Backend(needs_key=False, path="/completions"),
    "cpsd-local-completions": Backend(needs_key=False, path="/completions"),
}

SKIP_HINT = "skip this check with --no_preflight"


class PreflightError(RuntimeError):
    """A pre-flight check failed; ``str()`` is one line that says what to do."""


def endpoint(base_url: str) -> tuple[str, int]:
    """``(host, port)`` of ``base_url``; the port defaults to 443 (https) or 80 (http).

    Raises:
        PreflightError: not an http(s) URL with a host.
    """
    try:
        parts = urlsplit(base_url)
        port = parts.port
    except ValueError as err:
        raise PreflightError(f"base_url {base_url!r} is not a valid URL ({err})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise PreflightError(f"base_url {base_url!r} is not an http(s) URL "
                             "(e.g. base_url=http://127.0.0.1:8000/v1/chat/completions)")
    return parts.hostname, port or (443 if parts.scheme == "https" else 80)


def connect_problem(host: str, port: int, timeout: float = TIMEOUT) -> Optional[str]:
    """Why a TCP connection to ``host:port`` cannot be opened, or ``None`` when it can.

    The attempt (name resolution included) runs in a daemon thread, so a resolver that hangs
    costs ``timeout`` seconds at most.
    """
    outcome: dict[str, Any] = {}

    def attempt() -> None:
        try:
            with socket.create_connection((host, port), timeout=timeout):
                outcome["ok"] = True
        except BaseException as err:  # noqa: BLE001 - reported, never raised
            outcome["error"] = err

    thread = threading.Thread(target=attempt, name="cpsd-preflight", daemon=True)
    thread.start()
    thread.join(timeout + 0.5)
    if outcome.get("ok"):
        return None
    err = outcome.get("error")
    if err is None or isinstance(err, (socket.timeout, TimeoutError)):
        return f"no answer within {timeout:g} s"
    if isinstance(err, ConnectionRefusedError):
        return "connection refused: nothing is listening there"
    if isinstance(err, socket.gaierror):
        return f"host name {host!r} not found"
    return f"{type(err).__name__}: {err}".strip()


def path_problem(model: str, base_url: str, backend: Backend) -> Optional[str]:
    """Why ``base_url``'s path cannot be the endpoint of ``backend``, with the likely fix; or ``None``."""
    parts = urlsplit(base_url)
    path = parts.path.rstrip("/")
    chat = backend.path == "/chat/completions"
    if path.endswith(backend.path) and (chat or not path.endswith("/chat/completions")):
        return None
    stem = path
    for tail in ("/chat/completions", "/completions", "/chat"):
        if stem.endswith(tail):
            stem = stem[: -len(tail)]
            break
    fixed = parts._replace(path=stem + backend.path).geturl()
    if not chat and path.endswith("/chat/completions"):
        return (f"base_url {base_url} is a chat-completions endpoint, but --model {model} sends a prompt, not "
                f"messages, to a completions endpoint: use base_url={fixed} (or a chat backend); {SKIP_HINT}")
    what = "the chat-completions endpoint" if chat else "the completions endpoint"
    return (f"base_url {base_url} does not end with {backend.path}: --model {model} posts to base_url as given "
            f"and needs {what}; use base_url={fixed}; {SKIP_HINT}")


def _status(url: str, method: str, timeout: float) -> Optional[tuple[int, str]]:
    """``(status, first 200 characters of the body)`` of one request to ``url`` (no proxy), or
    ``None`` when no HTTP answer came."""
    import urllib.error

    data = b"{}" if method == "POST" else None
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=timeout) as response:
            return response.status, response.read(2000).decode("utf-8", "replace")[:200]
    except urllib.error.HTTPError as err:
        body = err.read(2000).decode("utf-8", "replace") if err.fp is not None else ""
        return err.code, " ".join(body.split())[:200]
    except Exception:  # noqa: BLE001 - TLS, a reset, a timeout: the run will say so itself
        return None


def probe_path(model: str, base_url: str, timeout: float = TIMEOUT) -> Optional[str]:
    """Why the server at ``base_url`` has no such endpoint (404/405), or ``None`` (module doc)."""
    got = _status(base_url, "GET", timeout)
    if got is None or got[0] != 404:
        return None
    posted = _status(base_url, "POST", timeout)
    if posted is None or posted[0] not in (404, 405):
        return None
    said = f" ({posted[1]})" if posted[1] else ""
    return (f"the server at base_url {base_url} has no such endpoint: HTTP {posted[0]}{said}; fix the path in "
            f"base_url (e.g. http://HOST:PORT/v1/chat/completions for vLLM and OpenAI-compatible servers); "
            f"{SKIP_HINT}")


def proxy_for(url: str, environ: Optional[Mapping[str, str]] = None) -> Optional[str]:
    """The proxy URL from the environment that applies to ``url``, or ``None``."""
    env = os.environ if environ is None else environ
    proxies = urllib.request.getproxies_environment() if environ is None else {
        k.lower()[:-len("_proxy")]: v for k, v in env.items() if k.lower().endswith("_proxy") and v}
    parts = urlsplit(url)
    proxy = proxies.get(parts.scheme) or proxies.get("all")
    if not proxy:
        return None
    no_proxy = proxies.get("no", "")
    host = parts.hostname or ""
    if no_proxy == "*" or any(host == d.strip().lstrip(".") or host.endswith("." + d.strip().lstrip("."))
                              for d in no_proxy.split(",") if d.strip()):
        return None
    return proxy if "://" in proxy else f"http://{proxy}"


def check(model: Optional[str], model_args: Optional[Mapping[str, Any]], environ: Optional[Mapping[str, str]] = None,
          timeout: float = TIMEOUT) -> Optional[str]:
    """Check an API backend's key and endpoint before anything is built.

    Args:
        model: the ``--model`` name; backends not in :data:`API_BACKENDS` are not checked.
        model_args: the parsed ``--model_args``.
        environ: environment to read the key and proxies from (default ``os.environ``).
        timeout: seconds for the TCP connection.

    Returns:
        ``None`` for a backend that is not checked, else the ``host:port`` that answered.

    Raises:
        PreflightError: the key is missing, ``base_url``'s path is not the backend's, the endpoint
            cannot be reached, or its server has no such path (one line each).
    """
    backend = API_BACKENDS.get(model or "")
    if backend is None:
        return None
    env = os.environ if environ is None else environ
    args = dict(model_args or {})
    if backend.needs_key and not args.get("header") and not str(env.get("OPENAI_API_KEY") or "").strip():
        raise PreflightError(f"--model {model} needs an API key in $OPENAI_API_KEY, which is not set: "
                             f"export OPENAI_API_KEY=… (any non-empty value for a server without keys); "
                             f"{SKIP_HINT}")
    base_url = str(args.get("base_url") or backend.default_url or "")
    if not base_url:
        raise PreflightError(f"--model {model} needs base_url in --model_args "
                             f"(e.g. --model_args base_url=http://127.0.0.1:8000/v1/chat/completions,model=…)")
    host, port = endpoint(base_url)
    wrong_path = path_problem(str(model), base_url, backend)
    if wrong_path:
        raise PreflightError(wrong_path)
    problem = connect_problem(host, port, timeout)
    if problem is None:
        no_endpoint = probe_path(str(model), base_url, timeout)
        if no_endpoint:
            raise PreflightError(no_endpoint)
        return f"{host}:{port}"
    proxy = proxy_for(base_url, environ)
    if proxy:
        try:
            p_host, p_port = endpoint(proxy)
        except PreflightError:
            p_host = None
        if p_host and connect_problem(p_host, p_port, timeout) is None:
            return f"{p_host}:{p_port} (proxy)"
    raise PreflightError(f"cannot reach the endpoint of --model {model}: {base_url} ({host}:{port}: {problem}); "
                         f"start the server or fix base_url in --model_args; {SKIP_HINT}")
