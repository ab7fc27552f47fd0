"""The write path keeps landed writes landed: index work apart from commits, repairs after a crash, no doubles."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import KnowledgeBaseError
from engine.store import KnowledgeBaseStore
from engine.store.commits import is_commit_conflict, retry_conflicts
from engine.store.maintenance import FTS_INDEX, index_health, index_names

RECORDS = [
    {"id": "brakes", "title": "Brake wear", "text": "Replace the brake pads when the wear pins are flush. "
                                                     "Lockwire every caliper bolt after torquing it."},
    {"id": "tyres", "title": "Tyre pressure", "text": "Check tyre pressure cold, before the first flight of the day."},
]
CONFLICT = "lance error: Retryable commit conflict for version 7: This Rewrite transaction was preempted by Delete"


def stemmed_hits(store: KnowledgeBaseStore, kb: str = "manuals") -> list[str]:
    """Documents a keyword search for "lockwiring bolts" finds: only a stemming full-text index matches them."""
    return [h.doc_id for h in store.search("lockwiring bolts", kb, mode="keyword", k=5)]


@pytest.mark.unit
def test_commit_conflicts_are_retried_other_errors_are_not():
    calls = []

    def flaky():
        calls.append(1)
        if len(calls) < 3:
            raise RuntimeError(CONFLICT)
        return "done"

    assert retry_conflicts(flaky, "Writing") == "done" and len(calls) == 3
    assert is_commit_conflict(RuntimeError("lance error: Commit conflict for version 3: Append is incompatible"))
    assert not is_commit_conflict(ValueError("Table 'kb_x' was not found"))

    def broken():
        calls.append(1)
        raise ValueError("schema mismatch")

    calls.clear()
    with pytest.raises(ValueError, match="schema mismatch"):
        retry_conflicts(broken, "Writing")
    assert len(calls) == 1


@pytest.mark.unit
def test_endless_conflicts_end_in_a_clear_error(monkeypatch):
    monkeypatch.setattr("engine.store.commits.RETRY_FIRST_WAIT_S", 0.001)
    monkeypatch.setattr("engine.store.commits.RETRY_MAX_WAIT_S", 0.002)

    def always():
        raise RuntimeError(CONFLICT)

    with pytest.raises(KnowledgeBaseError, match="kept colliding with other writers.*nothing was written"):
        retry_conflicts(always, "Writing 1 document(s) to 'manuals'")


@pytest.mark.integration
def test_ingest_rebuilds_a_keyword_index_a_crash_left_missing(ingestor, store):
    ingestor.ingest_records(RECORDS, "manuals")
    store._open("manuals").drop_index(FTS_INDEX)  # the state a kill between commit and index build leaves
    again = ingestor.ingest_records(RECORDS, "manuals")
    assert {f.status for f in again.files} == {"unchanged"}
    assert FTS_INDEX in index_names(store._open("manuals")) and again.index_pending is None
    assert stemmed_hits(store) == ["brakes"]


@pytest.mark.integration
def test_keyword_search_rebuilds_a_missing_index(ingestor, store, settings):
    ingestor.ingest_records(RECORDS, "manuals")
    store._open("manuals").drop_index(FTS_INDEX)
    reopened = KnowledgeBaseStore(settings, embedder=store.embedder)  # a new process opening the data folder
    assert stemmed_hits(reopened) == ["brakes"]
    assert index_health(reopened._open("manuals"), settings).healthy


@pytest.mark.integration
def test_failed_index_work_never_fails_the_ingest(ingestor, store, monkeypatch):
    def disk_full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("engine.store.knowledge_bases.maintain", disk_full)
    report = ingestor.ingest_records(RECORDS, "manuals")
    assert [f.status for f in report.files] == ["added", "added"]
    assert "No space left on device" in report.index_pending
    assert store.count_chunks("manuals") == 2
    monkeypatch.undo()
    later = ingestor.ingest_records(RECORDS, "manuals")
    assert later.index_pending is None and stemmed_hits(store) == ["brakes"]


@pytest.mark.integration
def test_a_document_two_ingests_both_add_is_stored_once(ingestor, store):
    ingestor.ingest_records(RECORDS, "manuals")
    rows = store._scan("manuals", ["chunk_id"])
    twin = [dict(r) for r in store._open("manuals").search().limit(None).to_list()]
    for row in twin:
        row.pop("_rowid", None)
    # a second writer that also saw "brakes" and "tyres" as new writes them without asking to replace
    store.write_documents("manuals", twin)
    assert store.count_chunks("manuals") == rows.num_rows
    assert sorted(store._scan("manuals", ["chunk_id"])["chunk_id"].to_pylist()) == sorted(rows["chunk_id"].to_pylist())


@pytest.mark.integration
def test_a_base_whose_creation_was_cut_short_can_be_written(ingestor, store, settings):
    (Path(settings.store_location) / "kb_manuals.lance" / "data").mkdir(parents=True)  # folder made, no version committed
    assert store.list_knowledge_bases() == [] and store.document_hashes("manuals") == {}
    report = ingestor.ingest_records(RECORDS, "manuals")
    assert [f.status for f in report.files] == ["added", "added"]
    assert [kb.documents for kb in store.list_knowledge_bases()] == [2]
