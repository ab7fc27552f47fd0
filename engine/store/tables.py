"""A LanceDB connection that keeps the table handles it opens.

An ask used to open 15-17 tables (a base's chunks, catalogue and sentence vectors, each opened again by the
vocabulary, the title index, the searches and the sentence read). An open costs about 0.3 ms on an idle
machine and more during an ask, because it waits on LanceDB's event loop behind the searches: at 100k chunks,
keeping the handles took 4-8 ms p50 off the engine's overhead per ask (docs/benchmarks.md).

A kept handle must see what a fresh open would. So the connection checks for a newer version of a table on
every read (``read_consistency_interval`` of zero, about 0.05 ms a read): writes made through any other handle
or process, and a table dropped and made again under the same name elsewhere, are seen at the next read, as
``tests/store/test_tables.py`` checks. A drop made here forgets the handle at once; a drop made by another
process is noticed at the next listing of the tables (every ask lists them), and until then a read of that
table fails as it would have if the drop had come just after a fresh open.

What is derived from a table and kept until its version changes (a base's vocabulary, its titles as names, its
entity graph's counts, whether its full-text index is built) asks for that version through ``version``, which
looks it up at most once per ``VERSION_TTL_S``: a lookup is a check of the latest manifest (1-2 ms at 100k chunks,
against the 0.05 ms a read's own check adds), and an ask made 18 of them on a 100k-chunk base. A write made in this process (through
a store, under a base's lock, or a table made or dropped here) forgets every version looked up, so only another
process's write can take up to that long to reach those derived parts; the reads themselves see it at once.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from datetime import timedelta
from typing import Any

import lancedb

ALWAYS = timedelta(0)
"""``read_consistency_interval``: look for a newer version of a table on every read."""

VERSION_TTL_S = 1.0
"""How long a version looked up by ``Tables.version`` stands (see the module docstring)."""

_VERSIONS: dict[tuple[str, str], tuple[float, int]] = {}
"""(store URI, table name) -> (when it was looked up, the version): shared by every connection of the process, so
that a write through one store is seen by the derived parts of another at once."""
_WRITES: dict[str, int] = {}
"""Store key -> writes noticed (``Tables.changed``): a lookup that a write overtook is not kept."""
_VERSIONS_LOCK = threading.Lock()


def connect(uri: str, index_cache_mb: int, metadata_cache_mb: int, storage_options: dict[str, str] | None) -> Tables:
    """A connection to the store at ``uri`` (a folder, an object store URI or ``memory://``) that keeps its table
    handles, with LanceDB's index and metadata caches of these sizes."""
    session = lancedb.Session(index_cache_size_bytes=index_cache_mb * 2**20,
                              metadata_cache_size_bytes=metadata_cache_mb * 2**20)
    return Tables(lancedb.connect(uri, session=session, read_consistency_interval=ALWAYS,
                                  storage_options=storage_options or None), uri)


def _store_key(uri: str, connection: object) -> str:
    """What names a store among the versions looked up: a folder by its full path, an object store by its URI; an
    in-memory store is its connection's own."""
    if uri.startswith("memory") or not uri:
        return f"{uri}#{id(connection)}"
    return uri if "://" in uri else str(Path(uri).resolve())


class Tables:
    """A LanceDB connection (every method not named here is the connection's own) whose ``open_table`` returns
    a handle opened once and kept; ``create_table`` keeps the handle it makes and ``drop_table`` forgets it."""

    def __init__(self, db, uri: str = "") -> None:
        self.db = db
        self.uri = _store_key(uri, self)
        self._handles: dict[str, Any] = {}
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.db, name)

    def open_table(self, name: str, **options: Any):
        if options:  # a particular version, branch or setting: not the handle kept for plain reads
            return self.db.open_table(name, **options)
        with self._lock:
            table = self._handles.get(name)
        if table is None:
            table = self.db.open_table(name)  # raises as LanceDB does when there is no such table
            with self._lock:
                table = self._handles.setdefault(name, table)
        return table

    def version(self, table) -> int:
        """``table``'s version, as looked up at most ``VERSION_TTL_S`` ago (for what is derived from the table; a
        read of its rows needs no version)."""
        key, now = (self.uri, table.name), time.monotonic()
        with _VERSIONS_LOCK:
            seen, writes = _VERSIONS.get(key), _WRITES.get(self.uri, 0)
        if seen is not None and now - seen[0] < VERSION_TTL_S:
            return seen[1]
        version = table.version
        with _VERSIONS_LOCK:
            if _WRITES.get(self.uri, 0) == writes:
                _VERSIONS[key] = (now, version)
        return version

    def changed(self) -> None:
        """A write was made here: every version looked up for this store is looked up again."""
        with _VERSIONS_LOCK:
            _WRITES[self.uri] = _WRITES.get(self.uri, 0) + 1
            for key in [k for k in _VERSIONS if k[0] == self.uri]:
                del _VERSIONS[key]

    def create_table(self, name: str, *args: Any, **kwargs: Any):
        table = self.db.create_table(name, *args, **kwargs)
        self.changed()
        with self._lock:
            self._handles[name] = table
        return table

    def drop_table(self, name: str, *args: Any, **kwargs: Any) -> None:
        self.forget(name)
        self.db.drop_table(name, *args, **kwargs)
        self.changed()

    def list_tables(self, *args: Any, **kwargs: Any):
        """The connection's listing; a complete one also forgets the handles of tables no longer in it."""
        result = self.db.list_tables(*args, **kwargs)
        if not args and not kwargs and not getattr(result, "page_token", None):
            listed = set(getattr(result, "tables", result))
            with self._lock:
                for name in [n for n in self._handles if n not in listed]:
                    del self._handles[name]
        return result

    def forget(self, name: str) -> None:
        with self._lock:
            self._handles.pop(name, None)

    def kept(self) -> list[str]:
        """The names of the tables whose handles are kept."""
        with self._lock:
            return sorted(self._handles)
