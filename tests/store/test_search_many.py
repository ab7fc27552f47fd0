"""Several searches at once (the retrieval tasks of one ask) on a real store."""

from __future__ import annotations

from datetime import date

import pytest
from lancedb.table import AsyncTable

from engine.errors import KnowledgeBaseError
from engine.identity.model import Identity
from engine.store.scoped import ScopedStore
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


def _count_queries(monkeypatch) -> list[int]:
    """The LanceDB queries the searches run, counted."""
    from engine.store import search

    ran = [0]
    real = search.collect

    async def counted(builder):
        ran[0] += 1
        return await real(builder)

    monkeypatch.setattr(search, "collect", counted)
    return ran


def _same_as_alone(store, requests, outcomes):
    for request, outcome in zip(requests, outcomes):
        alone = store.search(request.query, request.kb, request.mode, request.k, request.filters, request.vector)
        assert outcome.error is None and outcome.hits, request
        assert [(h.chunk_id, h.score) for h in outcome.hits] == [(h.chunk_id, h.score) for h in alone], request


def test_searches_of_one_table_share_their_queries(filled, monkeypatch):
    """Vector legs of one table, filter, k and metric run as one query with several vectors; a keyword and a hybrid
    search of one text share the full-text query. Each search still gets what its own search gets."""
    vector = {q: filled.embedder.encode_one(q) for q in ("axle nut torque", "brake temperature sensor", "tyre")}
    since = SearchFilters(since=date(2020, 1, 1))
    requests = [SearchRequest("axle nut torque", "manuals", "vector", 5, vector=vector["axle nut torque"]),
                SearchRequest("brake temperature sensor", "manuals", "vector", 5,
                              vector=vector["brake temperature sensor"]),
                SearchRequest("tyre", "manuals", "vector", 5, since, vector["tyre"]),  # its own filter: its own query
                SearchRequest("axle nut torque", "manuals", "hybrid", 5, vector=vector["axle nut torque"]),
                SearchRequest("axle nut torque", "manuals", "keyword", 5),
                SearchRequest("tyre", "faq", "hybrid", 5, vector=vector["tyre"])]
    ran = _count_queries(monkeypatch)
    outcomes = filled.search_many(requests)
    # manuals: cosine vectors (2 in one query), the filtered one, the hybrid's vector leg, the shared text; faq: 2
    assert ran[0] == 6
    _same_as_alone(filled, requests, outcomes)


def test_several_vectors_in_one_query_match_their_own_searches_on_an_ann_index(tmp_path, settings, monkeypatch):
    from engine.ingest import Ingestor
    from engine.store import KnowledgeBaseStore

    store = KnowledgeBaseStore(settings.model_copy(update={"ann_index_min_rows": 256, "data_dir": tmp_path / "ann"}))
    Ingestor(store).ingest_records([{"id": f"d{i}", "title": f"Doc {i}",
                                     "text": f"Record {i} about part {i * 7} and task {i % 13}."} for i in range(300)],
                                   "big")
    assert store.list_knowledge_bases()[0].has_vector_index
    queries = ["Record 42 about part 294", "task 7", "part 70 and task 10"]
    requests = [SearchRequest(q, "big", mode, 8, vector=store.embedder.encode_one(q))
                for mode in ("vector", "hybrid") for q in queries]
    ran = _count_queries(monkeypatch)
    outcomes = store.search_many(requests)
    assert ran[0] == 2 + 3  # one query per metric for the six vector legs, and the three texts
    _same_as_alone(store, requests, outcomes)


def test_queries_are_collected_as_lancedb_collects_them(filled):
    """``collect`` skips ``to_arrow``'s schema read through LanceDB's query builders; an upgrade that changes them
    must fail here, not in a user's ask."""
    from lancedb.background_loop import LOOP

    from engine.store.search import collect

    table = _async_table(filled._open("manuals"))
    vector = filled.embedder.encode_one("axle nut torque")
    for builder in (lambda: table.query().where("authority >= 1").select(["chunk_id", "text"]),
                    lambda: table.query().nearest_to(vector).column("vector").limit(4),
                    lambda: table.query().nearest_to([vector, vector * 0.5]).column("vector").limit(4),
                    lambda: table.query().nearest_to_text("torque", columns="search_text").limit(4)):
        expected = LOOP.run(builder().to_arrow())
        assert expected.num_rows > 0
        assert LOOP.run(collect(builder())).equals(expected)


def test_full_text_legs_run_while_a_query_vector_is_still_being_embedded(filled, monkeypatch):
    """A request's vector may be a Future: its vector leg waits for it, the full-text legs do not."""
    import threading
    from concurrent.futures import Future

    query = "axle nut torque lbf.ft"
    pending, ran_before = Future(), []
    ran = _count_queries(monkeypatch)

    def embedded_later():
        ran_before.append(ran[0])
        pending.set_result(filled.embedder.encode_one(query))

    timer = threading.Timer(0.5, embedded_later)
    timer.start()
    requests = [SearchRequest(query, "manuals", "hybrid", 5, vector=pending),
                SearchRequest(query, "faq", "keyword", 5)]
    outcomes = filled.search_many(requests)
    timer.join()
    assert ran_before == [2]  # both full-text queries ran before the vector was there
    assert [(h.chunk_id, h.score) for h in outcomes[0].hits] == \
        [(h.chunk_id, h.score) for h in filled.search(query, "manuals", "hybrid", 5)]
    assert outcomes[1].hits


def test_a_vector_that_failed_to_embed_fails_its_searches_only(filled):
    from concurrent.futures import Future

    failed = Future()
    failed.set_exception(RuntimeError("the embedding model is gone"))
    outcomes = filled.search_many([SearchRequest("axle nut torque", "manuals", "hybrid", 5, vector=failed),
                                   SearchRequest("axle nut torque", "manuals", "keyword", 5)])
    assert isinstance(outcomes[0].error, RuntimeError) and outcomes[0].hits == ()
    assert outcomes[1].error is None and outcomes[1].hits


def test_rows_carry_their_vectors_as_lancedb_stores_them(filled):
    """``as_rows`` gives what ``to_pylist`` gives, each vector a float32 NumPy row of the same numbers."""
    import numpy as np
    import pyarrow as pa
    from lancedb.background_loop import LOOP

    from engine.store.schema import META_COLUMNS
    from engine.store.search import as_rows, collect

    table = _async_table(filled._open("manuals"))
    found = LOOP.run(collect(table.query().nearest_to(filled.embedder.encode_one("torque")).column("vector")
                             .limit(4).select(META_COLUMNS + ["vector", "_distance"])))
    plain, rows = found.to_pylist(), as_rows(found)
    assert len(rows) == 4
    for expected, row in zip(plain, rows):
        assert isinstance(row["vector"], np.ndarray) and row["vector"].dtype == np.float32
        assert row["vector"].tolist() == expected.pop("vector")
        assert {k: v for k, v in row.items() if k != "vector"} == expected
    nulls = pa.table({"chunk_id": ["a"], "vector": pa.array([None], pa.list_(pa.float32(), 2))})
    assert as_rows(nulls) == [{"chunk_id": "a", "vector": None}]
    assert as_rows(found.slice(0, 0)) == []
