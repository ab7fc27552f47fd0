"""Turn a search request into a LanceDB query: vector, keyword (native FTS) or hybrid (RRF)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine, Sequence
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
    inner = _async_table(table)
    if mode == "hybrid":
        return await _hybrid(inner, query, vector, k, where)
    if mode == "vector":
        builder = _tune_ann(inner.vector_search(vector).column("vector").distance_type("cosine"))
        return [SearchHit.from_row(row, 1.0 - float(row["_distance"]), mode)
                for row in await _rows(builder, where, k, "_distance")]
    return [SearchHit.from_row(row, float(row["_score"]), mode)
            for row in await _rows(_text_query(inner, query), where, k, "_score")]


def _text_query(inner: AsyncTable, query: str):
    return inner.query().nearest_to_text(with_identifier_tokens(query), columns="search_text")


async def _rows(builder, where: str | None, k: int, score: str) -> list[dict]:
    """The ``k`` best rows of a vector or full-text query, with the hit columns and ``score``."""
    if where:
        builder = builder.where(where)  # a prefilter: LanceDB filters before the nearest-neighbour search
    return (await builder.limit(k).select(META_COLUMNS + ["vector", score]).to_arrow()).to_pylist()


async def _hybrid(inner: AsyncTable, query: str, vector: np.ndarray | None, k: int,
                  where: str | None) -> list[SearchHit]:
    """The vector and full-text legs at once, fused by reciprocal rank exactly as LanceDB's hybrid query with its
    ``RRFReranker`` fuses them (vector hits first, then full-text hits not already found; a stable sort by the
    float32 sum of 1 / (rank + 60)). Run here because LanceDB's hybrid query adds a schema read and a pyarrow
    merge to every search; ``tests/store/test_search.py`` checks the two give the same hits."""
    vector_query = _tune_ann(inner.query().nearest_to(vector).column("vector"))
    legs = await asyncio.gather(_rows(vector_query, where, k, "_distance"),
                                _rows(_text_query(inner, query), where, k, "_score"))
    fused: dict[str, float] = {}
    rows: dict[str, dict] = {}
    for leg in legs:
        for rank, row in enumerate(leg, start=1):
            fused[row["chunk_id"]] = fused.get(row["chunk_id"], 0.0) + 1.0 / (rank + RRF_K)
            rows.setdefault(row["chunk_id"], row)
    scores = {cid: float(np.float32(total)) for cid, total in fused.items()}
    order = sorted(rows, key=lambda cid: -scores[cid])  # stable: ties keep the vector leg's order
    return [SearchHit.from_row(rows[cid], scores[cid], "hybrid") for cid in order[:k]]


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
    vector: np.ndarray | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Search:
    """One query on one opened table, as :func:`run_searches` takes them."""

    table: Any
    mode: str
    query: str
    vector: np.ndarray | None
    k: int
    where: str | None

    def key(self) -> tuple:
        vector = None if self.vector is None else np.asarray(self.vector, dtype=np.float32).tobytes()
        return (self.table.name, self.mode, self.query, vector, self.k, self.where)


@dataclass(frozen=True)
class Outcome:
    """What one search returned (or the error it raised) and how long it took, in ms."""

    hits: tuple[SearchHit, ...]
    ms: float
    error: Exception | None = None


def run_searches(searches: Sequence[Search]) -> list[Outcome]:
    """Run searches at once on LanceDB's event loop; an identical search runs once and its outcome is shared.

    On two cores, five hybrid searches of an ask (two over 100k chunks) took about 21 ms this way against 43 ms
    one after the other (docs/benchmarks.md, "searches at once"). One failing search does not sink the others:
    its outcome carries the error."""
    distinct: dict[tuple, Search] = {}
    for search in searches:
        distinct.setdefault(search.key(), search)

    async def timed(search: Search) -> Outcome:
        started = time.perf_counter()
        try:
            hits = await search_table(search.table, search.mode, search.query, search.vector, search.k, search.where)
            return Outcome(tuple(hits), (time.perf_counter() - started) * 1000)
        except Exception as exc:  # noqa: BLE001 - kept with its search, shown in the trace
            return Outcome((), (time.perf_counter() - started) * 1000, exc)

    outcomes = dict(zip(distinct, run_all([timed(s) for s in distinct.values()])))
    return [outcomes[search.key()] for search in searches]


def run_all(coroutines: Sequence[Coroutine]) -> list:
    """Await ``coroutines`` at once on LanceDB's event loop (the one its synchronous API runs on)."""
    async def gather() -> list:
        return list(await asyncio.gather(*coroutines))

    return LOOP.run(gather()) if coroutines else []


async def read_rows(table, where: str, columns: list[str]) -> pa.Table:
    """The rows of ``table`` matching ``where``, with ``columns``."""
    return await _async_table(table).query().where(where).select(columns).to_arrow()
