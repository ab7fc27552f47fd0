"""Turn a search request into a LanceDB query: vector, keyword (native FTS) or hybrid (RRF)."""

from __future__ import annotations

from datetime import date
from typing import Literal

import numpy as np
from lancedb.rerankers import RRFReranker

from engine.documents.identifiers import with_identifier_tokens
from engine.errors import SearchError
from engine.results import SearchFilters
from engine.store.schema import META_COLUMNS, SearchHit, sql_literal

Mode = Literal["vector", "keyword", "hybrid"]
MODES: tuple[Mode, ...] = ("vector", "keyword", "hybrid")
_RERANKER = RRFReranker()
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


def run_search(table, mode: str, query: str, vector: np.ndarray | None, k: int, where: str | None) -> list[SearchHit]:
    """Run one query on one table; scores are higher-is-better in every mode; hits carry their stored vector."""
    if mode not in MODES:
        raise SearchError(f"Unknown search mode {mode!r}; use one of {', '.join(MODES)}.")
    if k < 1:
        raise SearchError("k must be at least 1.")
    if mode == "vector":
        builder = _tune_ann(table.search(vector, vector_column_name="vector").distance_type("cosine"))
    elif mode == "keyword":
        builder = table.search(with_identifier_tokens(query), query_type="fts", fts_columns="search_text")
    else:
        builder = (
            table.search(query_type="hybrid", vector_column_name="vector", fts_columns="search_text")
            .vector(vector)
            .text(with_identifier_tokens(query))
            .rerank(_RERANKER)
        )
        builder = _tune_ann(builder)
    if where:
        builder = builder.where(where, prefilter=True)
    extra = {"vector": ["_distance"], "keyword": ["_score"], "hybrid": []}[mode]
    rows = builder.limit(k).select(META_COLUMNS + ["vector"] + extra).to_list()
    hits = []
    for row in rows:
        if mode == "vector":
            score = 1.0 - float(row["_distance"])
        elif mode == "keyword":
            score = float(row["_score"])
        else:
            score = float(row["_relevance_score"])
        hits.append(SearchHit.from_row(row, score, mode))
    return hits
