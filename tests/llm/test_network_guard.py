"""The conftest guard: public addresses are refused, loopback and unix sockets still work."""

from __future__ import annotations

import os
import socket
import tempfile
import threading

import pytest

pytestmark = pytest.mark.unit

PUBLIC = ("203.0.113.1", 443)  # TEST-NET-3: never routed, so a leak would hang rather than succeed


def test_connect_to_a_public_address_is_refused():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        with pytest.raises(RuntimeError, match="network access in tests"):
            sock.connect(PUBLIC)
        with pytest.raises(RuntimeError, match="network access in tests"):
            sock.connect_ex(PUBLIC)


def test_the_guard_error_is_also_a_connection_error():
    with pytest.raises(ConnectionError, match="network access in tests"):
        socket.create_connection(PUBLIC, timeout=1)


def test_create_connection_refuses_public_hosts_before_any_lookup():
    for address in (PUBLIC, ("api.anthropic.com", 443), ("2001:db8::1", 443), ("::ffff:8.8.8.8", 53)):
        with pytest.raises(RuntimeError, match="network access in tests"):
            socket.create_connection(address, timeout=1)


def _echo_once(server: socket.socket) -> None:
    conn, _ = server.accept()
    with conn:
        conn.sendall(conn.recv(64))


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_loopback_server_still_works(host):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        worker = threading.Thread(target=_echo_once, args=(server,), daemon=True)
        worker.start()
        with socket.create_connection((host, server.getsockname()[1]), timeout=5) as client:
            client.sendall(b"ping")
            assert client.recv(64) == b"ping"
        worker.join(timeout=5)


def test_unix_socket_still_works():
    folder = tempfile.mkdtemp(dir="/tmp")
    path = os.path.join(folder, "s")
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
            server.bind(path)
            server.listen(1)
            worker = threading.Thread(target=_echo_once, args=(server,), daemon=True)
            worker.start()
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
                client.connect(path)
                client.sendall(b"pong")
                assert client.recv(64) == b"pong"
            worker.join(timeout=5)
    finally:
        os.unlink(path)
        os.rmdir(folder)


def test_no_api_key_is_visible():
    assert "ANTHROPIC_API_KEY" not in os.environ
