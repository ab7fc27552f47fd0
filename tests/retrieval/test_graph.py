"""The entity graph: mentions stored beside the chunks, a walk that finds the passage the question never names.

"Which city is home to the university where the author of the novel Saltmarsh Hymns studied?": the novel's
passage names its author, Oriane Vasseur; the university is in the passage about her, which shares no word
with the question but her name. A real LanceDB store on tmp_path with the real embedding model; the plan
searches narrowly (two chunks) so that only the graph can bring her passage in.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.config import load_settings
from engine.identity import Identity
from engine.ingest import Ingestor
from engine.orchestration import Strategy, StrategyRouter
from engine.orchestration.strategy import GraphSettings
from engine.perception import get_perception
from engine.retrieval import Retriever
from engine.store import KnowledgeBaseStore
from engine.store import mentions as mention_rows
from engine.store.scoped import ScopedStore

pytestmark = [pytest.mark.integration, pytest.mark.slow]

QUESTION = "Which city is home to the university where the author of the novel Saltmarsh Hymns studied?"
PASSAGES = {
    "Saltmarsh Hymns": "Saltmarsh Hymns is a 2009 novel about a lighthouse keeper's daughter on a tidal island. "
    "It was written by Oriane Vasseur and won a regional prize for fiction in 2010.",
    "Oriane Vasseur": "Oriane Vasseur (born 1971) is a writer. She read philosophy at the University of "
    "Quillmoor, then taught for ten years before her first book appeared.",
    "University of Quillmoor": "The University of Quillmoor is a public research university in the city of "
    "Brennhaven, founded in 1846.",
    "Campus guide": "Which city is home to the university? Students who studied at a university in a city often "
    "stay there; the novel and the author of the novel are discussed in many city university courses.",
    "Reading list": "A reading list of novels by authors who studied at a university: each novel is listed with "
    "the city where its author studied and the university they attended.",
    "Writers' residencies": "Universities in many cities host authors of novels for a term; the author of a novel "
    "studied there gives readings in the city.",
}


def markdown(title: str, text: str) -> bytes:
    return f"---\ntitle: {title}\n---\n{text}\n".encode()


def narrow(weight: float) -> Strategy:
    return Strategy(default_knowledge_bases=("wiki",), top_k=2, max_evidence=4, follow_links=0,
                    entity_fanout_limit=0, graph=GraphSettings(weight=weight, top_k=3, seed_hits=2))


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> KnowledgeBaseStore:
    store = KnowledgeBaseStore(load_settings(data_dir=tmp_path_factory.mktemp("graph") / "data"))
    report = Ingestor(store).ingest_bytes(
        [(f"doc-{i}.md", markdown(title, text)) for i, (title, text) in enumerate(PASSAGES.items())], "wiki")
    assert report.chunks_written == len(PASSAGES)
    return store


def retrieve(store, weight: float, question: str = QUESTION, bases=("wiki",)):
    strategy = narrow(weight).model_copy(update={"default_knowledge_bases": tuple(bases)})
    intent = get_perception().run(question)
    tasks = StrategyRouter(strategy, list(bases)).run(intent)
    return tasks, Retriever(store).run(tasks, intent, strategy)


def titles(result) -> list[str]:
    return [e.metadata.title for e in result.evidence]


def test_each_passage_stores_its_names_and_its_title(store):
    rows = mention_rows.read_all(store._db, "wiki").to_pylist()
    novel = {r["mention"] for r in rows if r["doc_id"] == next(d.doc_id for d in store.list_documents("wiki")
                                                                 if d.title == "Saltmarsh Hymns")}
    assert {"saltmarsh hymns", "oriane vasseur"} <= novel
    kinds = {(r["mention"], r["kind"]) for r in rows}
    assert ("oriane vasseur", "title") in kinds and ("oriane vasseur", "name") in kinds


def test_the_second_passage_comes_only_through_the_graph_and_says_how(store):
    tasks, without = retrieve(store, weight=0)
    assert "graph" not in {t.search_type for t in tasks}
    assert "Oriane Vasseur" not in titles(without)
    tasks, found = retrieve(store, weight=1.0)
    assert [t.search_type for t in tasks].count("graph") == 1
    reached = next(e for e in found.evidence if e.metadata.title == "Oriane Vasseur")
    assert reached.hop is not None and reached.hop.mention == "Oriane Vasseur"
    source = next(n for n, e in enumerate(found.evidence, start=1) if e.chunk_id == reached.hop.from_chunk)
    assert found.evidence[source - 1].metadata.title == "Saltmarsh Hymns"
    assert f"graph: via 'Oriane Vasseur' from [{source}]" in reached.found_by
    assert found.timings["graph_ms"] > 0


@pytest.mark.parametrize("weight, max_evidence", [(0.3, 2), (1.0, 2), (1.0, 4), (3.0, 3)])
def test_only_rows_that_can_reach_the_evidence_are_read_and_the_evidence_is_the_same(store, monkeypatch, weight,
                                                                                       max_evidence):
    strategy = narrow(weight).model_copy(update={"max_evidence": max_evidence})
    intent = get_perception().run(QUESTION)
    tasks = StrategyRouter(strategy, ["wiki"]).run(intent)
    read: list[int] = []
    real = store.chunks_by_id
    monkeypatch.setattr(store, "chunks_by_id", lambda kb, chunks: read.append(len(chunks)) or real(kb, chunks))

    def seen(result):
        return ([(e.chunk_id, e.score, e.found_by, e.hop) for e in result.evidence], result.candidates,
                result.dropped_for_budget)

    chosen = Retriever(store).run(tasks, intent, strategy)
    chosen_reads, read[:] = sum(read), []
    decide = Retriever._could_enter
    monkeypatch.setattr(Retriever, "_could_enter",  # with no bar, every passage the walk alone found is read
                        lambda self, walking, runs, bounds, *rest:
                        decide(self, walking, runs, replace(bounds, kth=None), *rest))
    every = Retriever(store).run(tasks, intent, strategy)
    assert seen(chosen) == seen(every)
    assert chosen_reads <= sum(read)
    if weight < 1:  # a light walk's passages cannot reach two places: none is read
        assert chosen_reads == 0 < sum(read)
    if weight == 3.0:  # a heavy walk brings the author's passage in: read
        assert "Oriane Vasseur" in titles(chosen) and chosen_reads > 0


def test_a_small_graph_is_walked_from_memory_and_a_large_one_from_the_store(store, monkeypatch):
    tables = store.graph_tables("wiki")
    assert tables.local is not None  # six passages: held in memory
    from_store = mention_rows.GraphTables(tables.mentions, tables.shared)
    keys, chunks = sorted(tables.local.by_mention), sorted(tables.local.by_chunk)
    assert len(tables.local.rows) == mention_rows.count(store._db, "wiki")
    assert sorted(tables.rows_by_mention(keys, 10_000)) == sorted(from_store.rows_by_mention(keys, 10_000))
    assert sorted(tables.rows_by_chunk(chunks[:3], 10_000)) == sorted(from_store.rows_by_chunk(chunks[:3], 10_000))
    assert len(tables.rows_by_mention(keys, 5)) == 5
    monkeypatch.setattr(mention_rows, "LOCAL_ROWS", 0)  # as a base too large to hold
    store._graph_counts.clear()
    assert store.graph_tables("wiki").local is None
    _, found = retrieve(store, weight=1.0)
    reached = next(e for e in found.evidence if e.metadata.title == "Oriane Vasseur")
    assert reached.hop is not None and reached.hop.mention == "Oriane Vasseur"
    store._graph_counts.clear()


def test_a_larger_graph_is_held_on_a_background_thread_and_walked_the_same(store, monkeypatch):
    from engine.store import reading

    monkeypatch.setattr(mention_rows, "LOCAL_ROWS", 0)  # as a base too large to read while an ask waits
    monkeypatch.setattr(reading, "HOLD_AFTER_S", 0.0)
    store._graph_counts.clear()
    first = store.graph_tables("wiki")
    assert first.local is None  # the first walk reads the store ...
    reading._HOLDING.submit(lambda: None).result()  # (the load queued before this has run)
    held = store.graph_tables("wiki")
    assert held.local is not None  # ... and later ones read memory
    keys = sorted(held.local.by_mention)
    chunks = sorted(held.local.by_chunk)
    assert sorted(held.rows_by_mention(keys, 10_000)) == sorted(first.rows_by_mention(keys, 10_000))
    assert sorted(held.rows_by_chunk(chunks, 10_000)) == sorted(first.rows_by_chunk(chunks, 10_000))
    seven = held.rows_by_mention(keys, 7)
    assert len(seven) == 7 and set(seven) <= set(first.rows_by_mention(keys, 10_000))
    assert [r[2] for r in seven] == sorted(r[2] for r in seven)  # the rarest-first budget cuts in key order
    monkeypatch.setattr(mention_rows, "HELD_ROWS", 0)  # too large to hold at all: never loaded
    store._graph_counts.clear()
    store.graph_tables("wiki")
    reading._HOLDING.submit(lambda: None).result()
    assert store.graph_tables("wiki").local is None
    store._graph_counts.clear()


def test_a_graph_written_to_before_its_load_is_not_read_whole(tmp_path, monkeypatch):
    from engine.store import reading

    monkeypatch.setattr(mention_rows, "LOCAL_ROWS", 0)
    monkeypatch.setattr(reading, "HOLD_AFTER_S", 0.0)
    store = KnowledgeBaseStore(load_settings(data_dir=tmp_path / "data"))
    items = list(PASSAGES.items())
    Ingestor(store).ingest_bytes([("doc-0.md", markdown(*items[0]))], "wiki")
    first = store.graph_tables("wiki")
    reading._HOLDING.submit(lambda: None).result()
    version, counts, held, near = store._graph_counts["wiki"]
    assert held is not None  # unchanged since it was asked for: held
    store._graph_counts["wiki"] = (version, counts, None, near)
    Ingestor(store).ingest_bytes([("doc-1.md", markdown(*items[1]))], "wiki")  # a write before the load runs
    store._hold_graph("wiki", first.mentions, version)
    assert store._graph_counts["wiki"][2] is None  # the stale version is not read whole
    assert store.graph_tables("wiki").local is None  # the new version is queued ...
    reading._HOLDING.submit(lambda: None).result()
    assert len(store.graph_tables("wiki").local.by_chunk) == 2  # ... and held once it stays unchanged


def test_a_base_written_after_its_graph_was_held_is_walked_anew(tmp_path):
    store = KnowledgeBaseStore(load_settings(data_dir=tmp_path / "data"))
    items = list(PASSAGES.items())
    Ingestor(store).ingest_bytes([("doc-0.md", markdown(*items[0]))], "wiki")
    assert len(store.graph_tables("wiki").local.by_chunk) == 1
    Ingestor(store).ingest_bytes([("doc-1.md", markdown(*items[1]))], "wiki")
    held = store.graph_tables("wiki").local
    assert len(held.by_chunk) == 2 and len(held.of_mentions(["oriane vasseur"], 10)) == 2


def test_deletes_and_reingests_leave_no_dangling_mentions(tmp_path):
    store = KnowledgeBaseStore(load_settings(data_dir=tmp_path / "data"))
    ingestor = Ingestor(store)
    files = [(f"doc-{i}.md", markdown(t, x)) for i, (t, x) in enumerate(list(PASSAGES.items())[:3])]
    ingestor.ingest_bytes(files, "wiki")
    first = mention_rows.read_all(store._db, "wiki")
    author = next(d.doc_id for d in store.list_documents("wiki") if d.title == "Oriane Vasseur")
    store.delete_document(author, "wiki")
    left = mention_rows.read_all(store._db, "wiki").to_pylist()
    assert left and author not in {r["doc_id"] for r in left}
    chunks = set(store._scan("wiki", ["chunk_id"])["chunk_id"].to_pylist())
    assert {r["chunk_id"] for r in left} <= chunks
    # the same files again, one of them changed: its old mentions go, the new ones come, nothing twice
    changed = files[:1] + [(files[1][0], markdown("Oriane Vasseur", "Oriane Vasseur later moved to Lisbon."))] + files[2:]
    ingestor.ingest_bytes(changed, "wiki")
    again = mention_rows.read_all(store._db, "wiki").to_pylist()
    pairs = [(r["chunk_id"], r["mention"]) for r in again]
    assert len(pairs) == len(set(pairs))
    assert {r["chunk_id"] for r in again} == set(store._scan("wiki", ["chunk_id"])["chunk_id"].to_pylist())
    keys = {r["mention"] for r in again}
    assert "lisbon" in keys and "university of quillmoor" in keys  # (the university's own passage names it)
    assert len(again) != len(first) or {r["mention"] for r in first} != keys
    store.drop_knowledge_base("wiki")
    assert mention_rows.table_of(store._db, "wiki") is None


def test_a_retitled_document_is_mentioned_by_its_new_title(tmp_path):
    store = KnowledgeBaseStore(load_settings(data_dir=tmp_path / "data"))
    Ingestor(store).ingest_bytes([("a.md", markdown("Saltmarsh Hymns", PASSAGES["Saltmarsh Hymns"]))], "wiki")
    doc = store.list_documents("wiki")[0].doc_id
    store.set_title(doc, "wiki", "Tidal Island Novel")
    keys = {r["mention"] for r in mention_rows.read_all(store._db, "wiki").to_pylist() if r["kind"] == "title"}
    assert keys == {"tidal island novel"}


def test_a_base_written_before_the_graph_gets_its_mentions_at_its_next_upkeep(tmp_path):
    store = KnowledgeBaseStore(load_settings(data_dir=tmp_path / "data"))
    Ingestor(store).ingest_bytes([("a.md", markdown("Saltmarsh Hymns", PASSAGES["Saltmarsh Hymns"]))], "wiki")
    expected = mention_rows.count(store._db, "wiki")
    mention_rows.drop(store._db, "wiki")  # as a store written by an earlier version has it
    assert mention_rows.table_of(store._db, "wiki") is None
    store.maintain("wiki")
    assert mention_rows.count(store._db, "wiki") == expected
    assert store.rebuild_mentions("wiki") == expected


def test_a_scoped_user_never_reaches_a_passage_of_a_base_they_may_not_read(tmp_path):
    store = KnowledgeBaseStore(load_settings(data_dir=tmp_path / "data"))
    items = list(PASSAGES.items())
    ingestor = Ingestor(store)
    ingestor.ingest_bytes([(f"p{i}.md", markdown(t, x)) for i, (t, x) in enumerate(items) if t != "Oriane Vasseur"],
                          "public")
    ingestor.ingest_bytes([("s.md", markdown("Oriane Vasseur", PASSAGES["Oriane Vasseur"]))], "secret")
    _, everything = retrieve(store, 1.0, bases=("public", "secret"))
    assert "Oriane Vasseur" in titles(everything)  # the walk on the secret base reaches it for a reader of both
    reader = Identity("ana", "analyst", {"public": frozenset({"read"})})
    scoped = ScopedStore(store, reader)
    tasks, seen = retrieve(scoped, 1.0, bases=("public",))
    assert {t.knowledge_base for t in tasks} == {"public"}
    assert all(e.knowledge_base == "public" for e in seen.evidence)
    with pytest.raises(Exception, match="secret"):
        scoped.graph_tables("secret")
    with pytest.raises(Exception, match="secret"):
        scoped.chunks_by_id("secret", {"x": "y"})
