"""Turn a search request into a LanceDB query: vector, keyword (native FTS) or hybrid (RRF)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Literal

import lancedb
import numpy as np
import pyarrow as pa
from lancedb.background_loop import LOOP
from lancedb.table import AsyncTable

from engine.documents.identifiers import with_identifier_tokens
from engine.errors import SearchError
from engine.results import SearchFilters
from engine.store.schema import META_COLUMNS, SearchHit, sql_literal

Mode = Literal["vector", "keyword", "hybrid"]
MODES: tuple[Mode, ...] = ("vector", "keyword", "hybrid")
# ANN query settings, used once a table has a vector index (ignored by exact scans). Measured on
# 100k chunks (bench/bench_query.py): recall@10 against an exact scan goes from 0.82 with LanceDB's
# defaults to 1.00, for about 2 ms more per query.
ANN_EF = 128
ANN_NPROBES = 20
ANN_REFINE_FACTOR = 5


def filter_sql(filters: SearchFilters | None) -> str | None:
    """SQL ``WHERE`` clause for metadata filters; unknown dates never pass a date filter."""
    if filters is None:
        return None
    parts: list[str] = []
    if filters.doc_type:
        parts.append(f"doc_type = {sql_literal(filters.doc_type)}")
    if filters.since:
        parts.append(f"update_date >= {sql_literal(filters.since)}")
    if filters.until:
        parts.append(f"update_date <= {sql_literal(filters.until)}")
    if filters.min_authority is not None:
        parts.append(f"authority >= {int(filters.min_authority)}")
    if filters.max_authority is not None:
        parts.append(f"authority <= {int(filters.max_authority)}")
    if filters.since and filters.until and filters.since > filters.until:
        raise SearchError(f"The date range is empty: since {filters.since} is after until {filters.until}.")
    return " AND ".join(parts) or None


def make_filters(
    doc_type: str | None = None,
    since: str | date | None = None,
    until: str | date | None = None,
    min_authority: int | None = None,
) -> SearchFilters:
    """Build SearchFilters from loose values (e.g. CLI strings), with clear errors."""
    def as_date(value: str | date | None, name: str) -> date | None:
        if value is None or isinstance(value, date):
            return value
        try:
            return date.fromisoformat(value)
        except ValueError:
            raise SearchError(f"--{name} {value!r} is not a date; use YYYY-MM-DD.") from None

    try:
        return SearchFilters(
            doc_type=doc_type, since=as_date(since, "since"), until=as_date(until, "until"), min_authority=min_authority
        )
    except ValueError as exc:
        raise SearchError(f"Invalid filter: {exc}") from None


def _tune_ann(builder):
    return builder.ef(ANN_EF).nprobes(ANN_NPROBES).refine_factor(ANN_REFINE_FACTOR)


def _async_table(table):
    """The asynchronous table behind a LanceDB table handle. LanceDB's synchronous API is a wrapper that runs its
    asynchronous API on one background event loop (``lancedb.background_loop.LOOP``); searching through the
    asynchronous tables lets several queries of one ask run at once on that loop, where the wrapper would start
    a thread pool per hybrid query. ``tests/store/test_search_many.py`` fails if a LanceDB upgrade changes this."""
    inner = getattr(table, "_table", None)
    if not isinstance(inner, AsyncTable):
        raise SearchError(f"LanceDB {lancedb.__version__} no longer wraps an asynchronous table; "
                          "engine/store/search.py needs updating.")
    return inner


def _check(mode: str, k: int) -> None:
    if mode not in MODES:
        raise SearchError(f"Unknown search mode {mode!r}; use one of {', '.join(MODES)}.")
    if k < 1:
        raise SearchError("k must be at least 1.")


RRF_K = 60
"""Reciprocal-rank constant of the hybrid fusion, as LanceDB's ``RRFReranker`` has it."""


async def search_table(table, mode: str, query: str, vector: np.ndarray | None, k: int,
                       where: str | None) -> list[SearchHit]:
    """One query on one table; scores are higher-is-better in every mode; hits carry their stored vector."""
    _check(mode, k)
    legs = _Legs()
    search = Search(table, mode, query, vector, k, where)
    legs.plan(search)
    return await legs.hits(search)


def _text_query(inner: AsyncTable, query: str):
    return inner.query().nearest_to_text(with_identifier_tokens(query), columns="search_text")


def _vector_query(inner: AsyncTable, vectors: Sequence[np.ndarray], metric: str | None):
    """One nearest-neighbour query for one or several vectors; LanceDB runs several as one plan (one index search
    or table scan per vector) and numbers their rows by ``query_index``."""
    builder = inner.query().nearest_to(vectors[0] if len(vectors) == 1 else list(vectors)).column("vector")
    return _tune_ann(builder.distance_type(metric) if metric else builder)


async def _rows(builder, where: str | None, k: int, score: str) -> list[dict]:
    """The ``k`` best rows of a vector or full-text query (per query vector), with the hit columns and ``score``."""
    if where:
        builder = builder.where(where)  # a prefilter: LanceDB filters before the nearest-neighbour search
    return as_rows(await collect(builder.limit(k).select(META_COLUMNS + ["vector", score])))


def as_rows(table: pa.Table) -> list[dict]:
    """A query's rows as dicts, each ``vector`` a float32 NumPy row (a hit's ``vector``): ``to_pylist`` makes a
    Python float of each of a vector's 384 numbers (0.12 ms for 16 rows, against 0.04 ms for the other columns and
    0.01 ms for the vectors this way)."""
    vectors = table.column("vector").combine_chunks()
    if vectors.null_count:
        return table.to_pylist()
    rows = table.drop_columns(["vector"]).to_pylist()
    if rows:
        matrix = vectors.flatten().to_numpy(zero_copy_only=False).reshape(len(rows), -1)
        for row, vector in zip(rows, matrix):
            row["vector"] = vector
    return rows


async def collect(builder) -> pa.Table:
    """Run a LanceDB query and collect its rows, as ``to_arrow`` does but without the table-schema read that
    ``to_arrow`` adds to every query (it looks for blob columns, which the workbench's tables never have): about
    0.2 ms of CPU a query, ten queries an ask. ``tests/store/test_search_many.py`` fails if a LanceDB upgrade changes
    the builders this relies on."""
    inner = getattr(builder, "_inner", None)
    if inner is None or not hasattr(inner, "execute"):
        raise SearchError(f"LanceDB {lancedb.__version__} changed its query builders; "
                          "engine/store/search.py needs updating.")
    stream = await inner.execute()
    return pa.Table.from_batches([batch async for batch in stream], schema=stream.schema)


def _fuse(legs: Sequence[list[dict]], k: int) -> list[SearchHit]:
    """The vector and full-text legs of a hybrid search fused by reciprocal rank exactly as LanceDB's hybrid query
    with its ``RRFReranker`` fuses them (vector hits first, then full-text hits not already found; a stable sort by
    the float32 sum of 1 / (rank + 60)). Done here because LanceDB's hybrid query adds a schema read and a pyarrow
    merge to every search, and runs its legs apart from the other searches' (see ``_Legs``);
    ``tests/store/test_search.py`` checks the two give the same hits."""
    fused: dict[str, float] = {}
    rows: dict[str, dict] = {}
    for leg in legs:
        for rank, row in enumerate(leg, start=1):
            fused[row["chunk_id"]] = fused.get(row["chunk_id"], 0.0) + 1.0 / (rank + RRF_K)
            rows.setdefault(row["chunk_id"], row)
    scores = {cid: float(np.float32(total)) for cid, total in fused.items()}
    order = sorted(rows, key=lambda cid: -scores[cid])  # stable: ties keep the vector leg's order
    return [SearchHit.from_row(rows[cid], scores[cid], "hybrid") for cid in order[:k]]


VECTOR_METRIC = {"vector": "cosine", "hybrid": None}
"""The distance a search mode's vector leg asks for: cosine for vector searches (their scores are 1 - distance);
LanceDB's default for the vector leg of a hybrid search, as LanceDB's own hybrid query asks (only its rank counts).
With the ANN index both use the index's cosine."""


class _Legs:
    """The LanceDB queries behind some searches, each run once: the vector legs of searches of one table with one
    filter, ``k`` and metric are one query with several vectors (three vector legs of an ask on 100k chunks took
    7.1 ms of CPU as one query against 10.2 ms apart; on a 52-row base 3.6 against 8.0 ms); a keyword search and a
    hybrid search of one text share their full-text leg. Each search gets the rows its own queries would give
    (``tests/store/test_search_many.py``)."""

    def __init__(self, memo: LegMemo | None = None) -> None:
        self._vectors: dict[tuple, list[np.ndarray | Future]] = {}  # leg key -> its query vectors
        self._texts: dict[tuple, tuple] = {}  # leg key -> (text, where, rows fetched)
        self._inner: dict[int, AsyncTable] = {}  # id of a table handle -> its table
        self._runs: dict[tuple, asyncio.Future] = {}
        self._memo = memo
        self._kept_rows: dict[tuple[int, str], list[dict]] = {}  # (id of a search, leg kind) -> rows the memo kept

    def _kept(self, search: Search, kind: str) -> list[dict] | None:
        """The rows of ``search``'s vector or text leg that an earlier query of the ask fetched deep enough."""
        if self._memo is None:
            return None
        if kind == "text":
            return self._memo.rows(("text", search.table.name, search.query, search.where), search.k)
        vector = search.vector
        if vector is None:
            return None
        if isinstance(vector, Future):  # known only once embedded (a vector an earlier attempt embedded is)
            if not vector.done() or vector.exception() is not None:
                return None
            vector = vector.result()
        return self._memo.rows(_vector_key(search.table.name, search.where, VECTOR_METRIC[search.mode], vector),
                               search.k)

    def _vector_leg(self, search: Search) -> tuple[tuple, int]:
        if search.vector is None:
            raise SearchError(f"A {search.mode} search needs a query vector.")
        key = ("vector", id(search.table), search.where, search.fetch, VECTOR_METRIC[search.mode])
        sources = self._vectors.setdefault(key, [])
        given = search.vector if isinstance(search.vector, Future) else np.asarray(search.vector, dtype=np.float32)
        for index, known in enumerate(sources):
            if known is given or (isinstance(known, np.ndarray) and isinstance(given, np.ndarray)
                                  and np.array_equal(known, given)):
                return key, index
        sources.append(given)
        return key, len(sources) - 1

    def _text_leg(self, search: Search) -> tuple:
        key = ("text", id(search.table), search.query, search.where, search.fetch)
        self._texts.setdefault(key, (search.query, search.where, search.fetch))
        return key

    def plan(self, search: Search) -> None:
        """Add ``search``'s legs (raises what the search would raise: a bad mode or k, a missing vector); a leg whose
        rows the memo keeps deep enough is read from them, decided here once, and not queried again."""
        _check(search.mode, search.k)
        self._inner.setdefault(id(search.table), _async_table(search.table))
        for kind, modes, plan_leg in (("vector", ("vector", "hybrid"), self._vector_leg),
                                      ("text", ("keyword", "hybrid"), self._text_leg)):
            if search.mode in modes:
                kept = self._kept(search, kind)
                if kept is None:
                    plan_leg(search)
                else:
                    self._kept_rows[(id(search), kind)] = kept

    def _run(self, key: tuple) -> asyncio.Future:
        """The leg's query, started on first use and shared (call on the event loop)."""
        if key not in self._runs:
            inner = self._inner[key[1]]
            if key[0] == "vector":
                self._runs[key] = asyncio.ensure_future(self._vector_rows(inner, key))
            else:
                self._runs[key] = asyncio.ensure_future(self._text_rows(inner, key))
        return self._runs[key]

    async def _vector_rows(self, inner: AsyncTable, key: tuple) -> list[list[dict]]:
        _, _, where, fetch, metric = key
        vectors, found = await _nearest(inner, self._vectors[key], where, fetch, metric)
        if self._memo is not None:
            for vector, rows in zip(vectors, found):
                self._memo.keep(_vector_key(inner.name, where, metric, vector), fetch, rows)
        return found

    async def _text_rows(self, inner: AsyncTable, key: tuple) -> list[dict]:
        query, where, fetch = self._texts[key]
        found = await _rows(_text_query(inner, query), where, fetch, "_score")
        if self._memo is not None:
            self._memo.keep(("text", inner.name, query, where), fetch, found)
        return found

    async def _leg(self, search: Search, kind: str) -> list[dict]:
        """The ``k`` best rows of one of ``search``'s legs (planned with :meth:`plan`): kept by the memo, or from its
        (shared) query."""
        kept = self._kept_rows.get((id(search), kind))
        if kept is not None:
            return kept[: search.k]
        if kind == "text":
            return (await self._run(self._text_leg(search)))[: search.k]
        key, index = self._vector_leg(search)
        return (await self._run(key))[index][: search.k]

    async def hits(self, search: Search) -> list[SearchHit]:
        """``search``'s hits from its legs (planned with :meth:`plan`); scores are higher-is-better in every mode.
        A leg fetched deeper than ``k`` counts its ``k`` best rows only, as a query of ``k`` rows would give."""
        if search.mode == "keyword":
            return [SearchHit.from_row(row, float(row["_score"]), "keyword") for row in await self._leg(search, "text")]
        if search.mode == "vector":
            return [SearchHit.from_row(row, 1.0 - float(row["_distance"]), "vector")
                    for row in await self._leg(search, "vector")]
        nearest, text = await asyncio.gather(self._leg(search, "vector"), self._leg(search, "text"))
        return _fuse([nearest, text], search.k)

    def start(self) -> None:
        """Start every planned leg at once (call on the event loop)."""
        for key in (*self._vectors, *self._texts):
            self._run(key)


async def _nearest(inner: AsyncTable, sources: Sequence[np.ndarray | Future], where: str | None, k: int,
                   metric: str | None) -> tuple[list[np.ndarray], list[list[dict]]]:
    """A vector leg's query vectors and its rows per vector (in LanceDB's order), once every vector still being
    embedded is."""
    vectors = [await asyncio.wrap_future(v) if isinstance(v, Future) else v for v in sources]
    found = await _rows(_vector_query(inner, vectors, metric), where, k, "_distance")
    if len(vectors) == 1:
        return vectors, [found]
    per_vector: list[list[dict]] = [[] for _ in range(len(vectors))]
    for row in found:
        per_vector[row.pop("query_index")].append(row)
    return vectors, per_vector


def _vector_key(table: str, where: str | None, metric: str | None, vector: np.ndarray) -> tuple:
    return ("vector", table, where, metric, np.asarray(vector, dtype=np.float32).tobytes())


class LegMemo:
    """The rows of the LanceDB queries of one ask, by leg (table, filter, and text or vector), with how many rows
    each fetched. A later search of the ask whose legs an earlier query fetched at least ``k`` rows for (or all
    there were) reads them instead of querying again: the pipeline's first attempt fetches twice each task's
    ``k`` (``SearchRequest.fetch_k``), so its widened search before refusing runs no query. The ``k`` best of
    deeper rows are the rows a query of ``k`` gives, save the order of rows tied on score at the cut (LanceDB
    orders equal scores as they come). Only for one ask: a write to the base in between is not seen, so the ask
    reads one state of the base throughout."""

    def __init__(self) -> None:
        self._rows: dict[tuple, tuple[int, list[dict]]] = {}

    def rows(self, key: tuple, k: int) -> list[dict] | None:
        """The kept rows of a leg, when they hold its ``k`` best; else None."""
        fetched, rows = self._rows.get(key, (0, None))
        return rows if rows is not None and (fetched >= k or len(rows) < fetched) else None

    def keep(self, key: tuple, fetched: int, rows: list[dict]) -> None:
        if fetched >= self._rows.get(key, (0, None))[0]:
            self._rows[key] = (fetched, rows)


def run_search(table, mode: str, query: str, vector: np.ndarray | None, k: int, where: str | None) -> list[SearchHit]:
    """:func:`search_table`, waited for."""
    return LOOP.run(search_table(table, mode, query, vector, k, where))


@dataclass(frozen=True)
class SearchRequest:
    """One search of one knowledge base, as :meth:`KnowledgeBaseStore.search_many` takes them. Without a
    ``vector``, a vector or hybrid search embeds ``query``."""

    query: str
    kb: str
    mode: str = "hybrid"
    k: int = 10
    filters: SearchFilters | None = None
    vector: np.ndarray | Future | None = field(default=None, compare=False)
    """The query's vector, or a Future of it (still being embedded: the full-text legs start meanwhile)."""
    fetch_k: int | None = None
    """Rows each of its LanceDB queries fetches, when more than ``k`` (kept in a ``LegMemo`` for a deeper retry)."""


@dataclass(frozen=True)
class Search:
    """One query on one opened table, as :func:`run_searches` takes them."""

    table: Any
    mode: str
    query: str
    vector: np.ndarray | Future | None
    k: int
    where: str | None
    fetch_k: int | None = None
    """Rows each of its LanceDB queries fetches, when more than ``k``; its hits come from the ``k`` best."""

    @property
    def fetch(self) -> int:
        return max(self.k, self.fetch_k or 0)

    def key(self) -> tuple:
        if self.vector is None or isinstance(self.vector, Future):
            vector: Any = None if self.vector is None else ("future", id(self.vector))
        else:
            vector = np.asarray(self.vector, dtype=np.float32).tobytes()
        return (self.table.name, self.mode, self.query, vector, self.k, self.fetch, self.where)


@dataclass(frozen=True)
class Outcome:
    """What one search returned (or the error it raised) and how long it took, in ms."""

    hits: tuple[SearchHit, ...]
    ms: float
    error: Exception | None = None


def run_searches(searches: Sequence[Search], memo: LegMemo | None = None) -> list[Outcome]:
    """Run searches at once on LanceDB's event loop; an identical search runs once and its outcome is shared, and
    searches share the LanceDB queries they can (see ``_Legs``), and those ``memo`` kept from earlier ones.

    On two cores, five hybrid searches of an ask (two over 100k chunks) took about 21 ms this way against 43 ms
    one after the other (docs/benchmarks.md, "searches at once"). One failing search does not sink the others:
    its outcome carries the error."""
    distinct: dict[tuple, Search] = {}
    for search in searches:
        distinct.setdefault(search.key(), search)
    legs = _Legs(memo)
    unplanned: dict[tuple, Exception] = {}
    for key, search in distinct.items():
        try:
            legs.plan(search)
        except Exception as exc:  # noqa: BLE001 - kept with its search, shown in the trace
            unplanned[key] = exc

    async def timed(key: tuple, search: Search, started: float) -> Outcome:
        if key in unplanned:
            return Outcome((), 0.0, unplanned[key])
        try:
            hits = await legs.hits(search)
            return Outcome(tuple(hits), (time.perf_counter() - started) * 1000)
        except Exception as exc:  # noqa: BLE001 - kept with its search, shown in the trace
            return Outcome((), (time.perf_counter() - started) * 1000, exc)

    async def every() -> list[Outcome]:
        started = time.perf_counter()
        legs.start()
        return list(await asyncio.gather(*[timed(key, search, started) for key, search in distinct.items()]))

    outcomes = dict(zip(distinct, LOOP.run(every()))) if distinct else {}
    return [outcomes[search.key()] for search in searches]


def run_all(coroutines: Sequence[Coroutine]) -> list:
    """Await ``coroutines`` at once on LanceDB's event loop (the one its synchronous API runs on)."""
    async def gather() -> list:
        return list(await asyncio.gather(*coroutines))

    return LOOP.run(gather()) if coroutines else []


async def read_rows(table, where: str, columns: list[str], limit: int | None = None) -> pa.Table:
    """The rows of ``table`` matching ``where``, with ``columns`` (at most ``limit``)."""
    query = _async_table(table).query().where(where).select(columns)
    return await collect(query.limit(limit) if limit else query)
