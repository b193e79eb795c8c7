"""Pre-flight checks of ``cpsd-eval`` for API backends, before any task is built.

A run against an endpoint where nothing listens, or an OpenAI backend without a key, used to fail
after the whole start-up with a page of chained traceback. :func:`check` answers both in one line
(:class:`PreflightError`), in well under a second when the endpoint is local:

* **key**: ``cpsd-openai-chat`` and ``openai-chat-completions`` need ``$OPENAI_API_KEY`` (set and
  not blank), unless ``--model_args`` gives a ``header`` (which replaces the Authorization header);
* **endpoint**: a TCP connection to ``base_url``'s host and port (default 443/80 by scheme) opens
  within :data:`TIMEOUT` seconds. If that fails and a proxy from the environment applies to the
  URL, the proxy's address is tried instead (the harness's one-at-a-time requests honour proxies).
  Nothing is sent: the check cannot cost a token or trip a rate limit.

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
    """What a backend needs: an API key, and its ``base_url`` when none is given."""

    needs_key: bool
    default_url: Optional[str] = None


_OPENAI_CHAT = "https://api.openai.com/v1/chat/completions"

#: The API backends :func:`check` knows, by ``--model`` name.
API_BACKENDS: dict[str, Backend] = {
    "cpsd-openai-chat": Backend(needs_key=True, default_url=_OPENAI_CHAT),
    "openai-chat-completions": Backend(needs_key=True, default_url=_OPENAI_CHAT),
    "cpsd-local-chat": Backend(needs_key=False),
    "local-chat-completions": Backend(needs_key=False),
    "local-completions": Backend(needs_key=False),
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
        PreflightError: the key is missing or the endpoint cannot be reached (one line).
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
    problem = connect_problem(host, port, timeout)
    if problem is None:
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
