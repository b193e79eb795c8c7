"""Pre-flight checks for API backends (cpsd_tasks.preflight): key present, endpoint reachable."""

from __future__ import annotations

import socket

import pytest

from cpsd_tasks.preflight import PreflightError, check, endpoint, proxy_for


@pytest.fixture
def listening():
    """A loopback socket that accepts connections; yields its port."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    yield sock.getsockname()[1]
    sock.close()


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
    url = f"http://127.0.0.1:{closed_port}/v1/chat/completions"
    with pytest.raises(PreflightError) as err:
        check(model, {"base_url": url, "model": "m"}, environ={})
    msg = one_line(err)
    assert url in msg and "nothing is listening" in msg and "--no_preflight" in msg and model in msg


@pytest.mark.parametrize("model", ["cpsd-openai-chat", "openai-chat-completions"])
@pytest.mark.parametrize("key", [None, "", "  "])
def test_openai_backends_need_a_key(model, key, listening):
    env = {} if key is None else {"OPENAI_API_KEY": key}
    url = f"http://127.0.0.1:{listening}/v1"
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
        check("cpsd-local-chat", {"base_url": "http://no-such-host.invalid:8000/v1"}, environ={}, timeout=3)
    msg = one_line(err)
    assert "no-such-host.invalid" in msg and "--no_preflight" in msg


def test_proxy_from_environment(listening, closed_port):
    url = f"http://10.255.255.1:{closed_port}/v1/chat/completions"
    env = {"HTTP_PROXY": f"http://127.0.0.1:{listening}"}
    assert proxy_for(url, env) == f"http://127.0.0.1:{listening}"
    assert proxy_for(url, {**env, "NO_PROXY": "10.255.255.1"}) is None
    direct = f"http://127.0.0.1:{closed_port}/v1"
    assert check("cpsd-local-chat", {"base_url": direct}, environ=env, timeout=1).endswith("(proxy)")
    with pytest.raises(PreflightError):
        check("cpsd-local-chat", {"base_url": direct}, environ={**env, "no_proxy": "127.0.0.1"}, timeout=1)
