"""Pre-flight checks for API backends (cpsd_tasks.cli.preflight): key present, endpoint reachable."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from cpsd_tasks.cli.preflight import API_BACKENDS, PreflightError, check, endpoint, path_problem, probe_path, proxy_for


class _Routes(BaseHTTPRequestHandler):
    """vLLM's routing in miniature: /v1/chat/completions and /v1/completions exist (POST only: a
    GET answers 405), any other path answers 404."""

    def log_message(self, *args) -> None:
        pass

    def _answer(self, method: str) -> None:
        self.server.seen.append((method, self.path))
        known = self.path in ("/v1/chat/completions", "/v1/completions")
        status = (405 if method == "GET" else 400) if known else 404
        body = json.dumps({"detail": "Not Found" if status == 404 else "nope"}).encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802
        self._answer("GET")

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._answer("POST")


@pytest.fixture
def routes():
    """A loopback HTTP server routing as :class:`_Routes`; yields it (``seen``: method, path)."""
    httpd = HTTPServer(("127.0.0.1", 0), _Routes)
    httpd.seen = []
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def listening(routes):
    """The port of a loopback server whose /v1/chat/completions exists."""
    return routes.server_port


@pytest.fixture
def closed_port():
    """A loopback port nothing listens on."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return port


def one_line(err: pytest.ExceptionInfo) -> str:
    msg = str(err.value)
    assert "\n" not in msg
    return msg


def test_reachable_endpoint_passes(listening):
    url = f"http://127.0.0.1:{listening}/v1/chat/completions"
    assert check("local-chat-completions", {"base_url": url}, environ={}) == f"127.0.0.1:{listening}"
    assert check("cpsd-openai-chat", {"base_url": url}, environ={"OPENAI_API_KEY": "k"}) == f"127.0.0.1:{listening}"


@pytest.mark.parametrize("model", ["cpsd-local-chat", "local-chat-completions", "local-completions"])
def test_nothing_listening(model, closed_port):
    path = "/v1/completions" if model == "local-completions" else "/v1/chat/completions"
    url = f"http://127.0.0.1:{closed_port}{path}"
    with pytest.raises(PreflightError) as err:
        check(model, {"base_url": url, "model": "m"}, environ={})
    msg = one_line(err)
    assert url in msg and "nothing is listening" in msg and "--no_preflight" in msg and model in msg


@pytest.mark.parametrize("model", ["cpsd-openai-chat", "openai-chat-completions"])
@pytest.mark.parametrize("key", [None, "", "  "])
def test_openai_backends_need_a_key(model, key, listening):
    env = {} if key is None else {"OPENAI_API_KEY": key}
    url = f"http://127.0.0.1:{listening}/v1/chat/completions"
    with pytest.raises(PreflightError) as err:
        check(model, {"base_url": url}, environ=env)
    assert "OPENAI_API_KEY" in one_line(err) and "--no_preflight" in str(err.value)
    # a header replaces the Authorization header: no key needed
    assert check(model, {"base_url": url, "header": "{'Authorization': 'x'}"}, environ=env)
    # local backends need no key
    assert check("cpsd-local-chat", {"base_url": url}, environ=env)


def test_other_backends_are_not_checked():
    assert check("hf", {"pretrained": "x"}, environ={}) is None
    assert check("cpsd-hf", None, environ={}) is None
    assert check(None, None, environ={}) is None


def test_missing_or_bad_base_url():
    with pytest.raises(PreflightError, match="needs base_url"):
        check("local-chat-completions", {"model": "m"}, environ={})
    with pytest.raises(PreflightError, match="not an http"):
        check("cpsd-local-chat", {"base_url": "127.0.0.1:8000/v1"}, environ={})
    assert endpoint("https://api.example.com/v1/chat/completions") == ("api.example.com", 443)
    assert endpoint("http://[::1]:8000/v1") == ("::1", 8000)
    assert endpoint("http://localhost/v1") == ("localhost", 80)


def test_unknown_host_is_one_line():
    with pytest.raises(PreflightError) as err:
        check("cpsd-local-chat", {"base_url": "http://no-such-host.invalid:8000/v1/chat/completions"}, environ={},
              timeout=3)
    msg = one_line(err)
    assert "no-such-host.invalid" in msg and "--no_preflight" in msg


def test_proxy_from_environment(listening, closed_port):
    url = f"http://10.255.255.1:{closed_port}/v1/chat/completions"
    env = {"HTTP_PROXY": f"http://127.0.0.1:{listening}"}
    assert proxy_for(url, env) == f"http://127.0.0.1:{listening}"
    assert proxy_for(url, {**env, "NO_PROXY": "10.255.255.1"}) is None
    direct = f"http://127.0.0.1:{closed_port}/v1/chat/completions"
    assert check("cpsd-local-chat", {"base_url": direct}, environ=env, timeout=1).endswith("(proxy)")
    with pytest.raises(PreflightError):
        check("cpsd-local-chat", {"base_url": direct}, environ={**env, "no_proxy": "127.0.0.1"}, timeout=1)


# --------------------------------------------------------------------------- the path (issue 23)

@pytest.mark.parametrize("model, url, fixed", [
    ("openai-chat-completions", "http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1/chat/completions"),
    ("local-chat-completions", "http://127.0.0.1:8000/v1/", "http://127.0.0.1:8000/v1/chat/completions"),
    ("cpsd-local-chat", "http://h:9/v1/completions", "http://h:9/v1/chat/completions"),
    ("cpsd-local-chat", "http://h:9/v1/chat", "http://h:9/v1/chat/completions"),
    ("local-completions", "http://h:9/v1", "http://h:9/v1/completions"),
])
def test_base_url_lacking_the_backends_path_names_the_fix(model, url, fixed):
    problem = path_problem(model, url, API_BACKENDS[model])
    endpoint = "completions" if model == "local-completions" else "chat-completions"
    assert problem == (f"base_url {url} does not end with {API_BACKENDS[model].path}: --model {model} posts to "
                       f"base_url as given and needs the {endpoint}"
                       f" endpoint; use base_url={fixed}; skip this check with --no_preflight")
    with pytest.raises(PreflightError) as err:  # before any connection: the port is not even tried
        check(model, {"base_url": url}, environ={"OPENAI_API_KEY": "k"})
    assert str(err.value) == problem


def test_completions_backend_on_a_chat_path_and_good_paths():
    problem = path_problem("local-completions", "http://h/v1/chat/completions", API_BACKENDS["local-completions"])
    assert problem.startswith("base_url http://h/v1/chat/completions is a chat-completions endpoint, but --model "
                              "local-completions sends a prompt") and "use base_url=http://h/v1/completions" in problem
    for model, url in [("cpsd-local-chat", "http://h/v1/chat/completions"),
                       ("cpsd-local-chat", "http://h/v1/chat/completions/"),
                       ("openai-chat-completions", "https://x/openai/deployments/d/chat/completions?api-version=1"),
                       ("local-completions", "http://h/v1/completions")]:
        assert path_problem(model, url, API_BACKENDS[model]) is None, url


def test_probe_finds_a_path_the_server_lacks_and_sends_no_body_to_a_real_one(routes):
    root = f"http://127.0.0.1:{routes.server_port}"
    assert probe_path("cpsd-local-chat", f"{root}/v1/chat/completions") is None
    assert routes.seen == [("GET", "/v1/chat/completions")]  # 405 to a GET: the route exists, nothing posted
    routes.seen.clear()
    problem = probe_path("cpsd-local-chat", f"{root}/v2/chat/completions")
    assert problem == (f'the server at base_url {root}/v2/chat/completions has no such endpoint: HTTP 404 '
                       f'({{"detail": "Not Found"}}); fix the path in base_url (e.g. '
                       f'http://HOST:PORT/v1/chat/completions for vLLM and OpenAI-compatible servers); skip this '
                       f'check with --no_preflight')
    assert routes.seen == [("GET", "/v2/chat/completions"), ("POST", "/v2/chat/completions")]
    with pytest.raises(PreflightError) as err:
        check("cpsd-local-chat", {"base_url": f"{root}/v2/chat/completions"}, environ={})
    assert str(err.value) == problem
