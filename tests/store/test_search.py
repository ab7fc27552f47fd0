"""Vector, keyword and hybrid search with metadata filters on a real store."""

from __future__ import annotations

from datetime import date

import pytest

from engine.errors import KnowledgeBaseError, SearchError
from engine.results import SearchFilters
from engine.store import make_filters

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("mode", ["vector", "keyword", "hybrid"])
def test_each_mode_finds_the_fault_code(filled, mode):
    hits = filled.search("E4027 brake temperature sensor", "manuals", mode=mode, k=3)
    assert hits and hits[0].file_name == "fault-codes.csv"
    assert all(h.mode == mode for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


@pytest.mark.parametrize(("query", "k", "filters"), [
    ("E4027 brake temperature sensor", 3, None),
    ("axle nut torque lbf.ft", 8, None),
    ("How much oil does the APU take?", 20, None),
    ("torque", 20, SearchFilters(since=date(2024, 1, 1))),
    ("tyre pressure check", 5, SearchFilters(doc_type="service_bulletin")),
])
def test_hybrid_fuses_as_lancedbs_hybrid_query_does(filled, query, k, filters):
    """The two legs fused here give the hits, order and scores of LanceDB's own hybrid query with its RRF reranker."""
    from lancedb.background_loop import LOOP
    from lancedb.rerankers import RRFReranker

    from engine.documents.identifiers import with_identifier_tokens
    from engine.store.search import _tune_ann, filter_sql

    table = filled._open("manuals")
    vector = filled.embedder.encode_one(query)
    builder = _tune_ann(table._table.query().nearest_to(vector).column("vector")
                        .nearest_to_text(with_identifier_tokens(query), columns="search_text")
                        .rerank(RRFReranker()))
    where = filter_sql(filters)
    if where:
        builder = builder.where(where)
    expected = LOOP.run(builder.limit(k).select(["chunk_id"]).to_arrow()).to_pylist()
    hits = filled.search(query, "manuals", "hybrid", k, filters)
    assert expected, "the reference query found nothing: the case tests nothing"
    assert [h.chunk_id for h in hits] == [row["chunk_id"] for row in expected]
    assert [h.score for h in hits] == pytest.approx([row["_relevance_score"] for row in expected], abs=1e-7)


def test_vector_scores_are_cosine_similarities(filled):
    hits = filled.search("How much oil does the APU take?", "manuals", mode="vector", k=6)
    assert hits[0].file_name == "apu-oil.docx"
    assert all(-1.0 <= h.score <= 1.0 for h in hits)


def test_keyword_search_is_lexical(filled):
    assert filled.search("zzyzx-nonexistent-term", "manuals", mode="keyword", k=5) == []


def test_filters_by_date_type_and_authority(filled):
    hits = filled.search("torque", "manuals", "hybrid", 20, SearchFilters(since=date(2024, 1, 1)))
    assert hits and all(h.update_date and h.update_date >= "2024-01-01" for h in hits)
    hits = filled.search("torque", "manuals", "vector", 20, SearchFilters(until=date(2020, 1, 1)))
    assert {h.file_name for h in hits} == {"shop-note.txt"}
    hits = filled.search("tyre", "manuals", "vector", 20, SearchFilters(doc_type="service_bulletin"))
    assert {h.file_name for h in hits} == {"tyre-bulletin.html"}
    hits = filled.search("torque", "manuals", "vector", 20, SearchFilters(min_authority=5))
    assert {h.file_name for h in hits} == {"wheel-manual.pdf"}
    # unknown dates never pass a date filter
    hits = filled.search("E4027", "manuals", "keyword", 20, SearchFilters(since=date(1900, 1, 1)))
    assert all(h.file_name != "fault-codes.csv" for h in hits)


def test_search_across_and_within_bases(filled):
    everywhere = filled.search("axle nut torque lbf.ft", None, "hybrid", 10)
    assert {h.knowledge_base for h in everywhere} == {"manuals", "faq"}
    only_faq = filled.search("axle nut torque", "faq", "hybrid", 10)
    assert {h.knowledge_base for h in only_faq} == {"faq"}


def test_bad_requests_have_clear_errors(filled):
    with pytest.raises(KnowledgeBaseError, match="does not exist"):
        filled.search("x", "nope")
    with pytest.raises(SearchError, match="Unknown search mode"):
        filled.search("x", "manuals", mode="fuzzy")
    with pytest.raises(SearchError, match="YYYY-MM-DD"):
        make_filters(since="last week")
    with pytest.raises(SearchError, match="empty"):
        filled.search("x", "manuals", filters=make_filters(since="2024-01-01", until="2023-01-01"))


def test_ann_index_is_built_past_the_threshold(tmp_path, settings, ingestor):
    from engine.ingest import Ingestor
    from engine.store import KnowledgeBaseStore

    small = settings.model_copy(update={"ann_index_min_rows": 256, "data_dir": tmp_path / "ann"})
    store = KnowledgeBaseStore(small)
    records = [{"id": f"d{i}", "title": f"Doc {i}", "text": f"Record {i} about part {i * 7} and task {i % 13}."}
               for i in range(300)]
    Ingestor(store).ingest_records(records, "big")
    assert store.list_knowledge_bases()[0].has_vector_index
    assert store.search("Record 42 about part 294", "big", "vector", 5)[0].doc_id == "d42"


def test_corpus_stats_count_per_base_year_and_authority(filled):
    from engine.store.stats import corpus_stats

    stats = corpus_stats(filled)
    assert {r["base"]: r["documents"] for r in stats.per_base} == {"faq": 1, "manuals": 6}
    years = {(r["year"], r["base"]): r["documents"] for r in stats.by_year}
    assert years[("undated", "manuals")] == 1 and years[("2021", "faq")] == 1 and years[("2025", "manuals")] == 1
    assert sum(r["documents"] for r in stats.by_authority) == 7
    assert {(r["authority"], r["base"]) for r in stats.by_authority} >= {(1, "faq"), (5, "manuals")}
