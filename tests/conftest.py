"""Fixtures shared by every test.

Two guards hold for the whole session: no Anthropic credentials in the environment, and
no network connection beyond loopback (NetworkAccessBlocked instead). A test that needs a
model uses the scripted provider, or an Anthropic client on ``httpx2.MockTransport``
(see tests/llm/conftest.py).

The one way out is explicit and narrow: in a run that selects the ``live`` marker
(``ANTHROPIC_API_KEY=... pytest -m live``), a test marked ``live`` that asks for the
``live_anthropic`` fixture gets the key back and may reach the Anthropic API host, for
that test only. The default ``-m "not live"`` (pyproject.toml) never selects such tests.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Iterable, Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

# --- one exported embedding model for the whole run --------------------------------------
# The default embedding backend (onnx-int8) exports the packaged weights once per cache folder,
# which defaults to DATA_DIR/models; every test has its own DATA_DIR. Set here, at import,
# before any settings are read, so that the tests and the servers and CLIs they start share one
# export (a folder named by the weights' hash, the backend and the ONNX Runtime version).
os.environ.setdefault("WORKBENCH_EMBEDDING_CACHE_DIR",
                      os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".cache", "models"))

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


# the unguarded functions, kept so that a narrower guard can replace the session's for one test
_REAL_CONNECT, _REAL_CONNECT_EX = socket.socket.connect, socket.socket.connect_ex
_REAL_CREATE_CONNECTION = socket.create_connection


def _refuse(address: Any, allowed: frozenset[str] = frozenset()) -> None:
    if is_local_address(address) or address[0].strip("[]").split("%")[0].lower() in allowed:
        return
    raise NetworkAccessBlocked(
        f"network access in tests: connection to {address!r} blocked. Use a loopback server, "
        "an httpx2.MockTransport client or the scripted provider."
    )


def _names_and_addresses(hosts: Iterable[str]) -> frozenset[str]:
    """Each host name with the IP addresses it resolves to now (socket.connect sees only addresses)."""
    found: set[str] = set()
    for host in hosts:
        found.add(host.lower())
        try:
            found.update(str(info[4][0]).split("%")[0].lower() for info in socket.getaddrinfo(host, None))
        except OSError:
            pass
    return frozenset(found)


def block_network(mp: pytest.MonkeyPatch, allow: Iterable[str] = ()) -> None:
    """Make any connection raise NetworkAccessBlocked, except to loopback, unix sockets and the ``allow`` hosts."""
    allowed = _names_and_addresses(allow)

    def connect(self: socket.socket, address: Any) -> None:
        _refuse(address, allowed)
        return _REAL_CONNECT(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        _refuse(address, allowed)
        return _REAL_CONNECT_EX(self, address)

    def create_connection(address: Any, *args: Any, **kwargs: Any) -> socket.socket:
        _refuse(address, allowed)
        return _REAL_CREATE_CONNECTION(address, *args, **kwargs)

    mp.setattr(socket.socket, "connect", connect)
    mp.setattr(socket.socket, "connect_ex", connect_ex)
    mp.setattr(socket, "create_connection", create_connection)


# --- session-wide: before any other fixture, so session fixtures and the subprocesses they
# start (a Streamlit server, say) see no key and reach no outside host either ----------------


@pytest.fixture(scope="session", autouse=True)
def _offline_session(request: pytest.FixtureRequest) -> Iterator[str]:
    """Guards for the whole session; yields the Anthropic key only in a run that selects ``live`` tests."""
    live_key = os.environ.get("ANTHROPIC_API_KEY", "").strip() if live_requested(request.config) else ""
    with pytest.MonkeyPatch.context() as mp:
        remove_api_keys(mp)
        block_network(mp)
        yield live_key


@pytest.fixture(scope="session", autouse=True)
def _span_model_exported(_offline_session: str) -> None:
    """The offline reader's span model exported to ONNX once, before any test asks: otherwise the first offline ask
    of the run makes the export (about 10 s) inside whatever test it is, a timed UI run included."""
    from engine.offline import span_model

    if span_model.export_pending():
        span_model.packaged()


# --- the live opt-out -----------------------------------------------------------------

LIVE_HOSTS = ("api.anthropic.com",)


def live_requested(config: pytest.Config) -> bool:
    """True when the marker expression selects ``live`` tests on purpose, e.g. ``-m live``."""
    expression = config.getoption("markexpr", "") or ""
    return "live" in expression.replace("not live", "")


@pytest.fixture
def live_anthropic(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, _offline_session: str
) -> None:
    """For a test marked ``live`` in a ``-m live`` run with a key: the key back, the Anthropic API reachable."""
    if request.node.get_closest_marker("live") is None:
        pytest.fail("live_anthropic is only for tests marked @pytest.mark.live")
    if not _offline_session:
        pytest.skip("live test: set ANTHROPIC_API_KEY and run with -m live")
    monkeypatch.setenv("ANTHROPIC_API_KEY", _offline_session)
    base_host = urlsplit(os.environ.get("ANTHROPIC_BASE_URL", "")).hostname
    block_network(monkeypatch, allow=(*LIVE_HOSTS, *([base_host] if base_host else [])))
