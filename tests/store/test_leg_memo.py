"""An ask's later searches read the rows its earlier queries fetched deep enough (``LegMemo``)."""

from __future__ import annotations

from datetime import date

import pytest

from engine.results import SearchFilters
from engine.store import LegMemo, SearchRequest

pytestmark = pytest.mark.integration

QUERY = "axle nut torque lbf.ft"


def _count_queries(monkeypatch) -> list[int]:
    """The LanceDB queries run, counted; ``ran[1:]`` names their kinds."""
    from engine.store import search

    ran: list = [0]
    real = search.collect

    async def counted(builder):
        ran[0] += 1
        ran.append("text" if "FTS" in type(builder).__name__ else "vector")
        return await real(builder)

    monkeypatch.setattr(search, "collect", counted)
    return ran


def _hits(outcome):
    assert outcome.error is None, outcome.error
    return [(h.chunk_id, h.score, h.mode) for h in outcome.hits]


def _requests(store, k, fetch_k=None, filters=None):
    vector = store.embedder.encode_one(QUERY)
    return [SearchRequest(QUERY, "manuals", mode, k, filters, vector, fetch_k)
            for mode in ("vector", "keyword", "hybrid")]


def test_a_search_fetching_deeper_gets_what_a_search_of_k_gets(filled):
    deeper = filled.search_many(_requests(filled, 2, fetch_k=4), LegMemo())
    plain = filled.search_many(_requests(filled, 2))
    assert [_hits(o) for o in deeper] == [_hits(o) for o in plain]
    assert all(len(o.hits) == 2 for o in deeper)


def test_a_deeper_retry_reads_the_kept_rows_and_runs_no_query(filled, monkeypatch):
    memo = LegMemo()
    filled.search_many(_requests(filled, 2, fetch_k=4), memo)
    ran = _count_queries(monkeypatch)
    retried = filled.search_many(_requests(filled, 4), memo)
    assert ran[0] == 0
    assert [_hits(o) for o in retried] == [_hits(o) for o in filled.search_many(_requests(filled, 4))]
    assert ran[0] == 3  # the fresh searches (no memo): the shared vector and text legs of manuals, and faq's none
    deeper = filled.search_many(_requests(filled, 6), memo)  # deeper than was fetched: queried again
    assert ran[4:].count("vector") == 2  # (the text leg is kept if it found fewer rows than it fetched)
    assert [_hits(o) for o in deeper] == [_hits(o) for o in filled.search_many(_requests(filled, 6))]


def test_kept_rows_serve_only_the_same_text_vector_and_filter(filled, monkeypatch):
    memo = LegMemo()
    filled.search_many(_requests(filled, 2, fetch_k=4), memo)
    ran = _count_queries(monkeypatch)
    filtered = _requests(filled, 2, filters=SearchFilters(since=date(2020, 1, 1)))
    assert [_hits(o) for o in filled.search_many(filtered, memo)] == [_hits(o) for o in filled.search_many(filtered)]
    assert ran[0] == 2 * 3  # another filter: its own three queries, with and without the memo
    other = [SearchRequest("brake temperature sensor", "manuals", "hybrid", 2,
                           vector=filled.embedder.encode_one("brake temperature sensor"))]
    filled.search_many(other, memo)
    assert ran[0] == 6 + 2
    filled.search_many([SearchRequest(QUERY, "faq", "keyword", 2)], memo)  # the same text on another base
    assert ran[0] == 6 + 2 + 1


def test_a_leg_that_found_fewer_rows_than_it_fetched_serves_any_k(filled, monkeypatch):
    memo = LegMemo()
    found = filled.search_many([SearchRequest(QUERY, "faq", "keyword", 3, fetch_k=6)], memo)
    assert 0 < len(found[0].hits) < 3  # the forum base holds one short post
    ran = _count_queries(monkeypatch)
    again = filled.search_many([SearchRequest(QUERY, "faq", "keyword", 50)], memo)
    assert ran[0] == 0 and _hits(again[0]) == _hits(found[0])


def test_a_vector_still_being_embedded_is_kept_once_it_is_there(filled, monkeypatch):
    from concurrent.futures import Future

    pending = Future()
    pending.set_result(filled.embedder.encode_one(QUERY))
    memo = LegMemo()
    filled.search_many([SearchRequest(QUERY, "manuals", "vector", 2, vector=pending, fetch_k=4)], memo)
    ran = _count_queries(monkeypatch)
    again = filled.search_many([SearchRequest(QUERY, "manuals", "vector", 4, vector=pending)], memo)
    assert ran[0] == 0 and len(again[0].hits) == 4
