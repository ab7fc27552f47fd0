"""Open the workbench database: SQLite under ``DATA_DIR`` by default, PostgreSQL when ``WORKBENCH_DATABASE_URL``
is set. Opening migrates the schema to the newest revision and imports the old per-file stores once.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, OperationalError
from sqlalchemy.pool import StaticPool

from engine.errors import ConfigError

if TYPE_CHECKING:
    from engine.config import Settings

log = logging.getLogger(__name__)
FILE_NAME = "workbench.db"
MEMORY = ":memory:"
_OPEN_LIMIT = 16
"""Databases kept open per process (each holds a connection pool); the least recently opened is disposed first."""


def normalise_url(url: str) -> str:
    """``url`` with PostgreSQL pointed at psycopg 3; a URL SQLAlchemy cannot read is a ConfigError."""
    try:
        parsed = make_url(url.strip())
    except ArgumentError:
        raise ConfigError("WORKBENCH_DATABASE_URL is not a database URL; give one like "
                          "postgresql://user:password@host:5432/workbench, or unset it to use SQLite.") from None
    if parsed.drivername in ("postgres", "postgresql", "postgresql+psycopg2"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() not in ("sqlite", "postgresql"):
        raise ConfigError(f"WORKBENCH_DATABASE_URL names {parsed.get_backend_name()!r}; the workbench supports "
                          "PostgreSQL (postgresql://...) and SQLite (sqlite:///path).")
    return parsed.render_as_string(hide_password=False)


def sqlite_url(data_dir: Path) -> str:
    return f"sqlite:///{Path(data_dir).resolve() / FILE_NAME}"


def _on_sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
    """WAL journal (readers never wait for the writer), a busy wait, and text read tolerantly (bad UTF-8 -> U+FFFD)."""
    dbapi_connection.text_factory = lambda raw: raw.decode("utf-8", "replace")
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.execute("PRAGMA synchronous=NORMAL")
    finally:
        cursor.close()


def make_engine(url: str) -> Engine:
    """A SQLAlchemy engine for ``url``; SQLite connections get WAL mode through a connect event."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database in (None, "", MEMORY):
            engine = create_engine("sqlite://", poolclass=StaticPool, connect_args={"check_same_thread": False})
        else:
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
            engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})
        event.listen(engine, "connect", _on_sqlite_connect)
        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=10)


class Database:
    """One SQL database, migrated to the newest schema when opened."""

    def __init__(self, url: str, legacy_dir: Path | None = None) -> None:
        from engine.database.legacy import import_legacy
        from engine.database.migrate import create_in_memory, upgrade

        self.url = normalise_url(url) if url != MEMORY else "sqlite://"
        self.engine = make_engine(self.url)
        self.in_memory = make_url(self.url).database in (None, "", MEMORY)
        self.applied: list[str] = []  # migrations this open applied
        self.imported: dict[str, int] = {}  # old stores this open imported, with their row counts
        if self.in_memory:
            create_in_memory(self.engine)  # a throwaway database: the tables alone, no migration history
        else:
            try:
                self.applied = upgrade(self.engine)
            except OperationalError as exc:
                self.engine.dispose()
                reason = str(exc.orig or exc).strip().splitlines()[0][:300]
                fix = ("Check that the folder exists and is writable (DATA_DIR or WORKBENCH_DATABASE_URL)."
                       if self.dialect == "sqlite" else "Check WORKBENCH_DATABASE_URL and that the server is running, "
                       "or unset it to use SQLite under DATA_DIR.")
                raise ConfigError(f"Cannot open the workbench database {self.safe_url} ({reason}). {fix}") from None
        if legacy_dir is not None:
            self.imported = import_legacy(self, Path(legacy_dir))

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    @contextmanager
    def begin(self) -> Iterator[Connection]:
        """A connection in a transaction, committed on success and rolled back on error."""
        with self.engine.begin() as conn:
            yield conn

    @contextmanager
    def connect(self) -> Iterator[Connection]:
        """A connection for reading."""
        with self.engine.connect() as conn:
            yield conn

    def close(self) -> None:
        self.engine.dispose()

    @property
    def safe_url(self) -> str:
        """The URL with its password hidden (fit for logs and output)."""
        return make_url(self.url).render_as_string(hide_password=True)

    def __repr__(self) -> str:
        return f"Database({self.safe_url!r})"


def location(target: "Settings | Path | str") -> tuple[str, Path | None]:
    """The database URL for Settings (``database_url``, else SQLite in ``data_dir``), a data folder or a URL, and the
    data folder whose old per-file stores are imported into it (None for a bare URL)."""
    from engine.config import Settings

    if isinstance(target, Settings):
        url = normalise_url(target.database_url) if target.database_url else sqlite_url(target.data_dir)
        return url, Path(target.data_dir).resolve()
    if isinstance(target, str) and "://" in target:
        return normalise_url(target), None
    return sqlite_url(Path(target)), Path(target).resolve()


_open: OrderedDict[tuple[str, str], Database] = OrderedDict()
_open_lock = threading.Lock()


def open_database(target: "Database | Settings | Path | str") -> Database:
    """The database for a Settings object (its ``database_url``, else SQLite in its data folder), a data folder,
    a URL, or ``":memory:"`` (a fresh private database each time). Opened once per process and reused."""
    if isinstance(target, Database):
        return target
    if isinstance(target, str) and target == MEMORY:
        return Database(MEMORY)
    url, legacy = location(target)
    key = (url, str(legacy))
    with _open_lock:
        database = _open.get(key)
        if database is None:
            database = _open[key] = Database(url, legacy_dir=legacy)
            while len(_open) > _OPEN_LIMIT:
                _, old = _open.popitem(last=False)
                old.close()  # the pool only: a store still holding it reconnects on its next call
        else:
            _open.move_to_end(key)
        return database


def forget_open_databases() -> None:
    """Dispose every database opened by :func:`open_database` (tests; a process about to fork)."""
    with _open_lock:
        while _open:
            _open.popitem()[1].close()
