"""Synonym edges of the entity graph: names whose vectors are close are joined, kept in step with the passages that
mention them, and walked (built when ``graph_synonyms`` is on, walked when a strategy's graph asks for them). A real
LanceDB store on tmp_path with the real embedding model.

The novel's passage spells its author "Orianne Vasseur"; her own document is titled "Oriane Vasseur". No exact key
joins the two passages, so only the synonym edge lets the walk cross from the novel to the author.
"""

from __future__ import annotations

import lancedb
import pytest

from engine.config import load_settings
from engine.ingest import Ingestor
from engine.orchestration import Strategy, StrategyRouter
from engine.orchestration.strategy import GraphSettings
from engine.perception import get_perception
from engine.retrieval import Retriever
from engine.store import KnowledgeBaseStore
from engine.store import mentions as mention_rows
from engine.store import synonyms
from tests.retrieval.test_graph import PASSAGES as GRAPH_PASSAGES
from tests.retrieval.test_graph import QUESTION

pytestmark = [pytest.mark.integration, pytest.mark.slow]

PASSAGES = {  # the graph test's passages, the novel's naming its author another way, and two close codes
    **{title: text.replace("Oriane Vasseur and won", "Orianne Vasseur and won")
       for title, text in GRAPH_PASSAGES.items() if title != "Writers' residencies"},
    "Fleet notes": "The A320 and the A321 share a type rating; the A321 is the longer of the two.",
}
assert "Orianne Vasseur" in PASSAGES["Saltmarsh Hymns"]


def markdown(title: str, text: str) -> bytes:
    return f"---\ntitle: {title}\n---\n{text}\n".encode()


def files(titles=None) -> list[tuple[str, bytes]]:
    return [(f"doc-{i}.md", markdown(t, x)) for i, (t, x) in enumerate(PASSAGES.items())
            if titles is None or t in titles]


def edge_set(store, kb="wiki") -> set[tuple[str, str]]:
    return {(a, b) for a, b, _ in synonyms.read_all(store._db, kb)}


def vector_keys(store, kb="wiki") -> set[str]:
    table = store._db.open_table(synonyms.VECTOR_PREFIX + kb)
    return set(table.search().select(["mention"]).limit(None).to_arrow()["mention"].to_pylist())


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> KnowledgeBaseStore:
    folder = tmp_path_factory.mktemp("synonyms") / "data"
    store = KnowledgeBaseStore(load_settings(data_dir=folder, graph_synonyms=True))
    assert Ingestor(store).ingest_bytes(files(), "wiki").chunks_written == len(PASSAGES)
    return store


def test_close_names_are_joined_both_ways_and_codes_never(store):
    edges = edge_set(store)
    assert ("orianne vasseur", "oriane vasseur") in edges and ("oriane vasseur", "orianne vasseur") in edges
    keys = vector_keys(store)
    assert {"orianne vasseur", "oriane vasseur", "saltmarsh hymns"} <= keys
    assert not {"a320", "a321"} & keys  # close vectors (0.89), different aircraft: codes get no vector
    assert not any("a32" in a for a, _ in edges)
    assert all(s >= synonyms.MIN_SIMILARITY for _, _, s in synonyms.read_all(store._db, "wiki"))


def walk(store, follow: bool):
    strategy = Strategy(default_knowledge_bases=("wiki",), top_k=2, max_evidence=4, follow_links=0,
                        entity_fanout_limit=0, graph=GraphSettings(weight=1.0, top_k=3, seed_hits=2, synonyms=follow))
    intent = get_perception().run(QUESTION)
    return Retriever(store).run(StrategyRouter(strategy, ["wiki"]).run(intent), intent, strategy)


def test_the_walk_crosses_a_synonym_edge_to_a_passage_no_exact_name_joins(store):
    without = walk(store, follow=False)
    assert "Oriane Vasseur" not in [e.metadata.title for e in without.evidence]
    found = walk(store, follow=True)
    reached = next(e for e in found.evidence if e.metadata.title == "Oriane Vasseur")
    assert reached.hop is not None and reached.hop.mention == "Oriane Vasseur"
    source = next(e for e in found.evidence if e.chunk_id == reached.hop.from_chunk)
    assert source.metadata.title == "Saltmarsh Hymns"  # the passage that spells the name the other way


def test_a_name_no_passage_mentions_any_more_loses_its_vector_and_edges(tmp_path):
    store = KnowledgeBaseStore(load_settings(data_dir=tmp_path / "data", graph_synonyms=True))
    ingestor = Ingestor(store)
    ingestor.ingest_bytes(files(["Saltmarsh Hymns", "Oriane Vasseur"]), "wiki")
    assert ("orianne vasseur", "oriane vasseur") in edge_set(store)
    author = next(d.doc_id for d in store.list_documents("wiki") if d.title == "Oriane Vasseur")
    store.delete_document(author, "wiki")
    assert "oriane vasseur" not in vector_keys(store) and "university of quillmoor" not in vector_keys(store)
    assert not any("oriane vasseur" in pair for pair in edge_set(store))
    assert "orianne vasseur" in vector_keys(store)  # still named by the novel
    ingestor.ingest_bytes(files(["Oriane Vasseur"]), "wiki")  # back: compared with the names already there
    assert ("orianne vasseur", "oriane vasseur") in edge_set(store)
    # the novel rewritten without the name: its key goes, with its edge
    ingestor.ingest_bytes([("doc-0.md", markdown("Saltmarsh Hymns", "Saltmarsh Hymns is a 2009 novel."))], "wiki")
    assert "orianne vasseur" not in vector_keys(store) and not any("orianne vasseur" in p for p in edge_set(store))
    stored = set(mention_rows.read_all(store._db, "wiki")["mention"].to_pylist())
    assert vector_keys(store) == {k for k in stored if synonyms.wanted(k)}
    store.drop_knowledge_base("wiki")
    assert synonyms.edges_of(store._db, "wiki") is None


def test_a_rebuilt_graph_has_the_edges_again(store):
    before = edge_set(store)
    store.rebuild_mentions("wiki")
    assert ("orianne vasseur", "oriane vasseur") in edge_set(store)
    assert len(edge_set(store) ^ before) <= 2  # (a name's vector depends a little on what it was embedded with)


@pytest.mark.parametrize("a, b, joined", [
    ("barack obama", "obama", True), ("new york city", "new york", True), ("jane austen", "austen", True),
    ("boeing", "airbus", False), ("harvard university", "yale university", False), ("ohio", "iowa", False),
])
def test_the_threshold_joins_forms_of_one_name_and_not_neighbours(tmp_path, store, a, b, joined):
    db = lancedb.connect(tmp_path / "db")
    synonyms.update(db, "names", store.embedder, [a, b], [])
    assert ((a, b) in {(x, y) for x, y, _ in synonyms.read_all(db, "names")}) is joined


def test_a_large_base_is_compared_and_walked_through_lancedb_not_memory(tmp_path, monkeypatch):
    """Past ``FLAT_ROWS`` a write's names are compared by LanceDB's vector search; past ``HELD_EDGES`` a walk reads
    the synonyms of its keys by key. The edges and the walk are the same."""
    monkeypatch.setattr(synonyms, "FLAT_ROWS", 1)
    monkeypatch.setattr(synonyms, "HELD_EDGES", 0)
    store = KnowledgeBaseStore(load_settings(data_dir=tmp_path / "data", graph_synonyms=True))
    ingestor = Ingestor(store)
    ingestor.ingest_bytes(files(["Oriane Vasseur"]), "wiki")
    ingestor.ingest_bytes(files([t for t in PASSAGES if t != "Oriane Vasseur"]), "wiki")  # compared with the stored
    assert ("orianne vasseur", "oriane vasseur") in edge_set(store)
    assert isinstance(store.graph_tables("wiki").synonyms, synonyms.ByKey)
    vectors = store._db.open_table(synonyms.VECTOR_PREFIX + "wiki")
    assert synonyms.VECTOR_INDEX in {i.name for i in vectors.list_indices()}  # built by the ingest's upkeep
    edges = store._db.open_table(synonyms.SYNONYM_PREFIX + "wiki")
    assert synonyms.MENTION_INDEX in {i.name for i in edges.list_indices()}
    found = walk(store, follow=True)
    assert "Oriane Vasseur" in [e.metadata.title for e in found.evidence]


def test_off_by_default_nothing_is_built_and_a_base_built_with_them_still_loses_a_deleted_name(tmp_path):
    plain = KnowledgeBaseStore(load_settings(data_dir=tmp_path / "plain"))
    assert plain.settings.graph_synonyms is False
    Ingestor(plain).ingest_bytes(files(["Saltmarsh Hymns", "Oriane Vasseur"]), "wiki")
    assert synonyms.edges_of(plain._db, "wiki") is None and plain.graph_tables("wiki").synonyms == {}
    built = KnowledgeBaseStore(load_settings(data_dir=tmp_path / "built", graph_synonyms=True))
    Ingestor(built).ingest_bytes(files(["Saltmarsh Hymns", "Oriane Vasseur"]), "wiki")
    later = KnowledgeBaseStore(load_settings(data_dir=tmp_path / "built"))  # the setting turned off afterwards
    author = next(d.doc_id for d in later.list_documents("wiki") if d.title == "Oriane Vasseur")
    later.delete_document(author, "wiki")
    assert "oriane vasseur" not in vector_keys(later) and not any("oriane vasseur" in p for p in edge_set(later))


def test_one_new_name_is_compared_with_the_stored_ones_through_lancedb_too(tmp_path, store, monkeypatch):
    """A write of a single new name: LanceDB answers a one-vector search without its query index."""
    monkeypatch.setattr(synonyms, "FLAT_ROWS", 0)
    db = lancedb.connect(tmp_path / "db")
    synonyms.update(db, "names", store.embedder, ["barack obama", "boeing"], [])
    synonyms.update(db, "names", store.embedder, ["obama"], [])
    edges = {(a, b) for a, b, _ in synonyms.read_all(db, "names")}
    assert {("obama", "barack obama"), ("barack obama", "obama")} <= edges
    assert not any("boeing" in (a, b) for a, b, _ in synonyms.read_all(db, "names"))


def test_names_compared_slice_by_slice_give_the_edges_of_one_comparison(tmp_path, store, monkeypatch):
    """A large write is compared in slices, each with the stored names and the slices before it (read once)."""
    names = ["barack obama", "obama", "new york city", "new york", "jane austen", "austen", "boeing", "airbus"]
    whole = lancedb.connect(tmp_path / "whole")
    synonyms.update(whole, "names", store.embedder, names, [])
    monkeypatch.setattr(synonyms, "SLICE", 3)
    sliced = lancedb.connect(tmp_path / "sliced")
    synonyms.update(sliced, "names", store.embedder, names, [])
    pairs = {(a, b) for a, b, _ in synonyms.read_all(whole, "names")}
    assert pairs and pairs == {(a, b) for a, b, _ in synonyms.read_all(sliced, "names")}
