"""Fixtures shared by every test.

Two guards hold for the whole session: no Anthropic credentials in the environment, and
no network connection beyond loopback (NetworkAccessBlocked instead). A test that needs a
model uses the scripted provider, or an Anthropic client on ``httpx2.MockTransport``
(see tests/llm/conftest.py).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from typing import Any

import pytest

# --- no credentials ---------------------------------------------------------------

CREDENTIAL_VARS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")


def remove_api_keys(mp: pytest.MonkeyPatch) -> None:
    for name in CREDENTIAL_VARS:
        mp.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def _no_api_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Remove API keys before each test, even if an earlier test set one without monkeypatch."""
    remove_api_keys(monkeypatch)


# --- loopback-only network ----------------------------------------------------------

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback", ""})


def is_local_address(address: Any) -> bool:
    """True for unix-socket paths, loopback hosts and non-IP socket families; False for anything else."""
    if not isinstance(address, tuple) or not address or not isinstance(address[0], str):
        return True  # AF_UNIX path, netlink (pid, groups), ...
    host = address[0].strip("[]").split("%")[0].lower()
    if host in LOOPBACK_NAMES:
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False  # a host name other than localhost: blocked before any DNS lookup
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return ip.is_loopback or ip.is_unspecified


class NetworkAccessBlocked(RuntimeError, ConnectionError):
    """Raised for a non-loopback connection in tests.

    Also a ConnectionError, so libraries that degrade gracefully without network
    (as they must in CI) take the same path here instead of crashing.
    """


def _refuse(address: Any) -> None:
    if not is_local_address(address):
        raise NetworkAccessBlocked(
            f"network access in tests: connection to {address!r} blocked. Use a loopback server, "
            "an httpx2.MockTransport client or the scripted provider."
        )


def block_network(mp: pytest.MonkeyPatch) -> None:
    """Make any non-loopback connection raise NetworkAccessBlocked; loopback and unix sockets still work."""
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex
    real_create_connection = socket.create_connection

    def connect(self: socket.socket, address: Any) -> None:
        _refuse(address)
        return real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        _refuse(address)
        return real_connect_ex(self, address)

    def create_connection(address: Any, *args: Any, **kwargs: Any) -> socket.socket:
        _refuse(address)
        return real_create_connection(address, *args, **kwargs)

    mp.setattr(socket.socket, "connect", connect)
    mp.setattr(socket.socket, "connect_ex", connect_ex)
    mp.setattr(socket, "create_connection", create_connection)


# --- session-wide: before any other fixture, so session fixtures and the subprocesses they
# start (a Streamlit server, say) see no key and reach no outside host either ----------------


@pytest.fixture(scope="session", autouse=True)
def _offline_session() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        remove_api_keys(mp)
        block_network(mp)
        yield
