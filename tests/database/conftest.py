"""Database fixtures: a throwaway PostgreSQL cluster for the session (Debian's server binaries, loopback only,
its socket in a temp folder), and ``database``: a fresh, migrated database on SQLite and on PostgreSQL in turn."""

from __future__ import annotations

import itertools
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from engine.database import Database

MISSING = ("PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin: install Debian's postgresql "
           "package (apt-get install -y postgresql; .ci/run does this when they are missing).")
_names = itertools.count()


def postgres_bin() -> Path:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parent.parent.name)
                   if p.parent.parent.name.isdigit() else 0)
    if not found:
        pytest.fail(MISSING, pytrace=False)
    return found[-1].parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """A running cluster for the session; the admin URL (database ``postgres``, user ``workbench``)."""
    with postgres_cluster() as url:
        yield url


@contextmanager
def postgres_cluster() -> Iterator[str]:
    """Start a throwaway cluster (loopback, a free port, its socket in a temp folder), stop and remove it after."""
    binaries = postgres_bin()
    root = Path(tempfile.mkdtemp(prefix="workbench-pg-"))
    data, sockets = root / "data", root / "sockets"
    sockets.mkdir()
    as_user: list[str] = []
    if os.geteuid() == 0:  # initdb refuses to run as root
        try:
            shutil.chown(root, "postgres")
            shutil.chown(sockets, "postgres")
        except LookupError:
            pytest.fail("Running as root, PostgreSQL needs the 'postgres' system user; install Debian's postgresql "
                        "package, which creates it.", pytrace=False)
        as_user = ["runuser", "-u", "postgres", "--"]
    port = free_port()

    def run(*command: str) -> None:
        done = subprocess.run([*as_user, *command], capture_output=True, text=True, timeout=120)
        if done.returncode:
            log = (root / "server.log").read_text() if (root / "server.log").exists() else ""
            pytest.fail(f"{command[0]} failed: {done.stderr.strip() or done.stdout.strip()}\n{log}", pytrace=False)

    run(str(binaries / "initdb"), "-D", str(data), "-U", "workbench", "-A", "trust", "-E", "UTF8", "--no-locale",
        "--no-sync")
    options = (f"-c listen_addresses=127.0.0.1 -p {port} -k {sockets} -c fsync=off -c synchronous_commit=off "
               "-c full_page_writes=off")
    run(str(binaries / "pg_ctl"), "-D", str(data), "-l", str(root / "server.log"), "-o", options, "-w", "start")
    try:
        yield f"postgresql+psycopg://workbench@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*as_user, str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                       capture_output=True, timeout=60)
        shutil.rmtree(root, ignore_errors=True)


def new_postgres_database(server_url: str) -> str:
    """A new empty database on the session's cluster; returns its URL."""
    name = f"wb_{os.getpid()}_{next(_names)}"
    admin = create_engine(server_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    finally:
        admin.dispose()
    return server_url.rsplit("/", 1)[0] + f"/{name}"


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path) -> str:
    """The URL of a new, empty database: a SQLite file in tmp_path, or a new database on the PostgreSQL cluster."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'workbench.db'}"
    return new_postgres_database(request.getfixturevalue("postgres_server"))


@pytest.fixture()
def database(database_url) -> Iterator[Database]:
    """A fresh database, migrated, on each backend in turn."""
    db = Database(database_url)
    yield db
    db.close()
