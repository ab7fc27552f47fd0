"""Several searches at once (the retrieval tasks of one ask) on a real store."""

from __future__ import annotations

from datetime import date

import pytest
from lancedb.table import AsyncTable

from engine.errors import KnowledgeBaseError
from engine.identity.model import Identity
from engine.identity.scope import ScopedStore
from engine.results import SearchFilters
from engine.store import SearchRequest
from engine.store.schema import TABLE_PREFIX
from engine.store.search import _async_table

pytestmark = pytest.mark.integration


REQUESTS = [
    SearchRequest("E4027 brake temperature sensor", "manuals", "vector", 3),
    SearchRequest("E4027 brake temperature sensor", "manuals", "keyword", 3),
    SearchRequest("axle nut torque lbf.ft", "manuals", "hybrid", 5),
    SearchRequest("axle nut torque lbf.ft", "faq", "hybrid", 5),
    SearchRequest("torque", "manuals", "hybrid", 20, SearchFilters(since=date(2024, 1, 1))),
    SearchRequest("torque", "manuals", "vector", 20, SearchFilters(min_authority=5)),
]


def test_each_request_gets_what_its_own_search_gets(filled):
    outcomes = filled.search_many(REQUESTS)
    assert len(outcomes) == len(REQUESTS)
    for request, outcome in zip(REQUESTS, outcomes):
        alone = filled.search(request.query, request.kb, request.mode, request.k, request.filters)
        assert outcome.error is None
        assert outcome.hits, request
        assert [(h.chunk_id, round(h.score, 5)) for h in outcome.hits] == \
            [(h.chunk_id, round(h.score, 5)) for h in alone]
        assert all(h.mode == request.mode and h.knowledge_base == request.kb for h in outcome.hits)
        assert outcome.ms > 0


def test_a_failing_request_keeps_its_error_and_the_others_run(filled):
    outcomes = filled.search_many([
        SearchRequest("axle nut torque", "nosuchbase", "hybrid", 5),
        SearchRequest("axle nut torque", "manuals", "hybrid", 5),
        SearchRequest("torque", "manuals", "hybrid", 5, SearchFilters(since=date(2024, 1, 1), until=date(2020, 1, 1))),
        SearchRequest("   ", "manuals", "hybrid", 5),
    ])
    assert isinstance(outcomes[0].error, KnowledgeBaseError) and "nosuchbase" in str(outcomes[0].error)
    assert outcomes[1].error is None and outcomes[1].hits
    assert outcomes[2].error is not None and "date range is empty" in str(outcomes[2].error)
    assert outcomes[3].error is None and outcomes[3].hits == ()


def test_identical_requests_run_once(filled):
    vector = filled.embedder.encode_one("axle nut torque")
    outcomes = filled.search_many([
        SearchRequest("axle nut torque", "manuals", "hybrid", 5, vector=vector),
        SearchRequest("axle nut torque", "faq", "hybrid", 5, vector=vector),
        SearchRequest("axle nut torque", "manuals", "hybrid", 5, vector=vector.copy()),
    ])
    assert outcomes[0] is outcomes[2]  # one search, its outcome shared
    assert outcomes[1] is not outcomes[0]


def test_a_scoped_store_refuses_bases_it_may_not_read(filled):
    scoped = ScopedStore(filled, Identity("ana", "analyst", {"faq": frozenset({"read"})}))
    outcomes = scoped.search_many([SearchRequest("axle nut torque", "manuals", "hybrid", 5),
                                   SearchRequest("axle nut torque", "faq", "hybrid", 5)])
    assert isinstance(outcomes[0].error, KnowledgeBaseError) and outcomes[0].hits == ()
    assert "no read grant" in str(outcomes[0].error)
    assert outcomes[1].error is None and {h.knowledge_base for h in outcomes[1].hits} == {"faq"}


def test_lancedb_still_wraps_an_asynchronous_table(filled):
    """The searches run on LanceDB's asynchronous tables behind its synchronous handles; an upgrade that changes
    this must fail here, not in a user's ask."""
    assert isinstance(_async_table(filled._db.open_table(TABLE_PREFIX + "manuals")), AsyncTable)
