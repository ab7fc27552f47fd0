"""Token handling from outside (issue 27, item 6): a token with spaces around it is refused like any malformed one;
help text says "Bearer <token>"; invalid tokens are limited per address (429 with Retry-After); and uvicorn answers
requests it cannot parse (oversized headers, a control character) with JSON, then closes the connection."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

pytestmark = pytest.mark.integration
TOKEN = "hardening-token-0123456789abcdef"


def _client(tmp_path, address: str = "203.0.113.7", **settings) -> TestClient:
    from engine.api import create_app
    from engine.config import load_settings

    app = create_app(load_settings(data_dir=tmp_path / "data", api_tokens=json.dumps({TOKEN: "analyst"}),
                                   **settings), warm=False)
    return TestClient(app, raise_server_exceptions=False, client=(address, 40000))


def test_a_token_with_spaces_around_it_is_refused(tmp_path):
    with _client(tmp_path) as client:
        assert client.get("/v1/strategy", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
        for header in (f"Bearer  {TOKEN}", f"Bearer {TOKEN} ", f"Bearer {TOKEN}\t", f"Bearer \t{TOKEN}",
                       f"Bearer {TOKEN[:10]} {TOKEN[10:]}"):
            response = client.get("/v1/strategy", headers={"Authorization": header})
            assert response.status_code == 401, repr(header)
            assert "The API token is not valid" in response.json()["error"]


def test_help_text_shows_the_header_to_send(tmp_path):
    with _client(tmp_path) as client:
        missing = client.get("/v1/strategy").json()["error"]
        assert "send Authorization: Bearer <token>" in missing and "[REDACTED]" not in missing
        basic = client.get("/v1/strategy", headers={"Authorization": f"Basic {TOKEN}"}).json()["error"]
        assert basic == "Use the Bearer scheme: Authorization: Bearer <token>."


def test_invalid_tokens_are_limited_per_address(tmp_path):
    with _client(tmp_path, sign_in_max_failures_per_address=3) as client:
        for n in range(3):
            wrong = client.get("/v1/strategy", headers={"Authorization": f"Bearer wrong-token-000000000{n}"})
            assert wrong.status_code == 401
        limited = client.get("/v1/strategy", headers={"Authorization": "Bearer wrong-token-0000000009"})
        assert limited.status_code == 429, limited.text
        body = limited.json()
        assert body["error_type"] == "TooManySignIns" and "Too many failed sign-in attempts from your address" in \
            body["error"] and "wait 5 min" in body["error"]
        assert 1 <= int(limited.headers["Retry-After"]) <= 300
        # from this address even the right token waits; another address is not held back
        assert client.get("/v1/strategy", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 429
        other = TestClient(client.app, raise_server_exceptions=False, client=("198.51.100.4", 40000))
        assert other.get("/v1/strategy", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200


# -- the uvicorn server as `serve` runs it -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[tuple[str, int]]:
    import uvicorn

    from engine.api import create_app
    from engine.api.server import server_config
    from engine.config import load_settings

    settings = load_settings(data_dir=tmp_path_factory.mktemp("serve") / "data", api_max_header_kb=16)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = server_config(create_app(settings, warm=False), settings, host="127.0.0.1", port=port,
                           log_level="critical")
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not running.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.05)
    yield "127.0.0.1", port
    running.should_exit = True
    thread.join(timeout=10)


def _exchange(address: tuple[str, int], request: bytes) -> tuple[int, dict[str, str], bytes, bool]:
    """Send raw bytes; the status, headers and body of the answer, and whether the server then closed."""
    with socket.create_connection(address, timeout=10) as sock:
        try:
            sock.sendall(request)
        except (BrokenPipeError, ConnectionResetError):  # the server answered and closed before reading it all
            pass
        data = b""
        closed = False
        while True:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                closed = True
                break
            if not chunk:
                closed = True
                break
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
    return int(lines[0].split()[1]), {k.lower(): v for k, v in headers.items()}, body, closed


def test_oversized_headers_get_a_json_431_and_the_connection_closes(server):
    big = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 200_000 + b"\r\n\r\n"
    status, headers, body, closed = _exchange(server, big)
    assert status == 431 and headers["content-type"] == "application/json" and headers["connection"] == "close"
    assert "larger than this server accepts (16 KB" in json.loads(body)["error"] and closed


@pytest.mark.parametrize("request_bytes", [
    b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Bad: a\x00b\r\n\r\n",
    b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Bad: a\x0bb\r\n\r\n",
    b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Bad: a\rb\r\n\r\n",
    b"GET /health\x01z HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /health z HTTP/1.1\r\nHost: x\r\n\r\n",
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n",
])
def test_a_request_uvicorn_cannot_parse_gets_a_json_400(server, request_bytes):
    status, headers, body, closed = _exchange(server, request_bytes)
    assert status == 400 and headers["content-type"] == "application/json" and closed
    assert "not valid HTTP/1.1" in json.loads(body)["error"]


def test_requests_h11_accepts_reach_the_app_as_usual(server):
    status, headers, body, _ = _exchange(server, b"GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert status == 404 and "No such endpoint" in json.loads(body)["error"]
    # h11 lets other control characters through in header values; the app answers as for any header
    status, headers, body, _ = _exchange(server, b"GET /nope HTTP/1.1\r\nHost: x\r\nX-Odd: a\x01b\r\n"
                                                 b"Connection: close\r\n\r\n")
    assert status == 404 and headers["content-type"] == "application/json"
