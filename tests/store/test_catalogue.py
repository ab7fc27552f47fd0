"""The document catalogue follows the chunk table through ingest, replace, delete, failures and old stores."""

from __future__ import annotations

import pytest
from lancedb.table import LanceTable

from engine.errors import KnowledgeBaseError
from engine.store import KnowledgeBaseStore
from engine.store.catalogue import CATALOGUE_PREFIX, READY, read_all
from engine.store.maintenance import DOC_INDEX, index_names

pytestmark = pytest.mark.integration
KB = "manuals"
RECORDS = [
    {"id": "brakes", "title": "Brake wear", "text": "Replace the brake pads when the wear pins are flush. " * 12,
     "update_date": "2024-05-01"},
    {"id": "tyres", "title": "Tyre pressure", "text": "Check tyre pressure cold, before the first flight.",
     "update_date": "2021-02-03"},
]
CHANGED = [dict(RECORDS[1], text="Check tyre pressure cold, and again after a hard landing.")]


def catalogue_rows(store: KnowledgeBaseStore, kb: str = KB) -> dict[str, dict]:
    """The catalogue table as it is stored (not as readers settle it)."""
    table = store._open_named(CATALOGUE_PREFIX + kb)
    return {} if table is None else {r["doc_id"]: r for r in read_all(table).to_pylist()}


def chunk_counts(store: KnowledgeBaseStore, kb: str = KB) -> dict[str, int]:
    rows = store._open(kb).search().select(["doc_id"]).limit(None).to_arrow()["doc_id"].to_pylist()
    return {d: rows.count(d) for d in set(rows)}


def no_chunk_scans(store: KnowledgeBaseStore, monkeypatch) -> None:
    """Make any full read of a chunk table fail, so a test shows which calls no longer need one."""
    real = store._scan

    def scan(kb, columns, where=None):
        name = kb if isinstance(kb, str) else kb.name
        if where is None and not name.startswith(CATALOGUE_PREFIX):
            raise AssertionError(f"full scan of the chunk table {name} for {columns}")
        return real(kb, columns, where)

    monkeypatch.setattr(store, "_scan", scan)


def test_ingest_replace_and_delete_keep_the_catalogue_in_step(ingestor, store):
    ingestor.ingest_records(RECORDS, KB)
    rows = catalogue_rows(store)
    assert {d: r["chunks"] for d, r in rows.items()} == chunk_counts(store) and rows["brakes"]["chunks"] > 1
    assert {r["status"] for r in rows.values()} == {READY}
    assert rows["tyres"]["title"] == "Tyre pressure" and rows["tyres"]["update_date"] == "2021-02-03"
    hashes = store.document_hashes(KB)

    version = store._open_named(CATALOGUE_PREFIX + KB).version
    again = ingestor.ingest_records(RECORDS, KB)
    assert {f.status for f in again.files} == {"unchanged"}
    assert store._open_named(CATALOGUE_PREFIX + KB).version == version, "an unchanged batch must not write"

    report = ingestor.ingest_records(CHANGED, KB)
    assert [f.status for f in report.files] == ["replaced"]
    rows = catalogue_rows(store)
    assert rows["tyres"]["content_hash"] != hashes["tyres"] and rows["brakes"]["content_hash"] == hashes["brakes"]
    assert store.document_hashes(KB)["tyres"] == rows["tyres"]["content_hash"]

    assert store.delete_document("brakes", KB) == rows["brakes"]["chunks"]
    assert set(catalogue_rows(store)) == {"tyres"} == set(chunk_counts(store))
    assert [d.doc_id for d in store.list_documents(KB)] == ["tyres"]
    store.drop_knowledge_base(KB)
    assert store._open_named(CATALOGUE_PREFIX + KB) is None


def test_listing_hashing_and_deleting_read_no_chunk_table(ingestor, store, monkeypatch):
    ingestor.ingest_records(RECORDS, KB)
    assert DOC_INDEX in index_names(store._open(KB))
    no_chunk_scans(store, monkeypatch)
    assert [d.doc_id for d in store.list_documents(KB)] == ["brakes", "tyres"]
    assert store.document_hashes(KB).keys() == {"brakes", "tyres"}
    (base,) = store.list_knowledge_bases()
    assert (base.documents, base.chunks, base.earliest_date, base.latest_date) == (
        2, sum(chunk_counts(store).values()), "2021-02-03", "2024-05-01")
    assert store.delete_document("tyres", KB) == 1


def test_a_store_made_before_catalogues_gets_one_on_first_open(ingestor, store, settings):
    ingestor.ingest_records(RECORDS, KB)
    expected = store.list_documents(KB)
    store._db.drop_table(CATALOGUE_PREFIX + KB)  # the layout of a store written before catalogues existed
    older = KnowledgeBaseStore(settings, embedder=store.embedder)
    assert older._open_named(CATALOGUE_PREFIX + KB) is None
    assert older.list_documents(KB) == expected
    assert set(catalogue_rows(older)) == {"brakes", "tyres"}
    assert [b.documents for b in older.list_knowledge_bases()] == [2]
    assert {f.status for f in ingestor.ingest_records(RECORDS, KB).files} == {"unchanged"}


def failing_chunk_commits(monkeypatch) -> None:
    """Chunk-table commits fail (disk full); catalogue commits go through."""
    from lancedb.merge import LanceMergeInsertBuilder

    def fail_on_chunks(method, name_of):
        def wrapper(self, *args, **kwargs):
            if not name_of(self).startswith(CATALOGUE_PREFIX):
                raise OSError(28, "No space left on device")
            return method(self, *args, **kwargs)
        return wrapper

    monkeypatch.setattr(LanceTable, "add", fail_on_chunks(LanceTable.add, lambda t: t.name))
    monkeypatch.setattr(LanceTable, "delete", fail_on_chunks(LanceTable.delete, lambda t: t.name))
    monkeypatch.setattr(LanceMergeInsertBuilder, "execute",
                        fail_on_chunks(LanceMergeInsertBuilder.execute, lambda b: b._table.name))


def test_a_failed_write_leaves_no_row_for_a_document_that_is_not_there(ingestor, store, monkeypatch):
    ingestor.ingest_records(RECORDS[:1], KB)
    before = catalogue_rows(store)
    failing_chunk_commits(monkeypatch)
    with pytest.raises(OSError, match="No space left"):
        ingestor.ingest_records(RECORDS[1:], KB)  # a new document
    with pytest.raises(OSError, match="No space left"):
        ingestor.ingest_records([dict(RECORDS[0], text="Brake pads: new limits.")], KB)  # a replacement
    with pytest.raises(OSError, match="No space left"):
        store.delete_document("brakes", KB)
    assert catalogue_rows(store) == before  # rows put back as they were, ready
    assert set(store.document_hashes(KB)) == {"brakes"} == set(chunk_counts(store))


def test_a_write_cut_short_after_its_chunk_commit_is_listed_from_its_chunks(ingestor, store, monkeypatch):
    import engine.store.knowledge_bases as kbs

    ingestor.ingest_records(RECORDS, KB)
    real = kbs.upsert

    def crash_before_settling(catalogue, entries, remove=()):
        if remove or (entries.num_rows and set(entries["status"].to_pylist()) == {READY}):
            raise OSError("killed")  # the process died between the chunk commit and the catalogue's
        return real(catalogue, entries, remove)

    monkeypatch.setattr(kbs, "upsert", crash_before_settling)
    ingestor.ingest_records(CHANGED, KB)
    assert catalogue_rows(store)["tyres"]["status"] == "writing"
    changed_hash = store.document_hashes(KB)["tyres"]  # the new text's hash, read from the chunks
    monkeypatch.undo()
    assert {f.status for f in ingestor.ingest_records(CHANGED, KB).files} == {"unchanged"}  # and it settles
    settled = catalogue_rows(store)["tyres"]
    assert settled["status"] == READY and settled["content_hash"] == changed_hash

    monkeypatch.setattr(kbs, "upsert", crash_before_settling)
    store.delete_document("brakes", KB)
    assert catalogue_rows(store)["brakes"]["status"] == "deleting"
    assert [d.doc_id for d in store.list_documents(KB)] == ["tyres"]
    assert [b.documents for b in store.list_knowledge_bases()] == [1]
    monkeypatch.undo()
    store.maintain(KB)
    assert set(catalogue_rows(store)) == {"tyres"}


def test_deleting_an_unknown_document_still_says_so(ingestor, store):
    ingestor.ingest_records(RECORDS, KB)
    with pytest.raises(KnowledgeBaseError, match="is not in"):
        store.delete_document("nothing-here", KB)
    assert set(catalogue_rows(store)) == {"brakes", "tyres"}
