"""Writers of one file name: the status is decided under the base's write lock, and the user chooses what a second
document of a name does (replace, keep-both, skip). Real LanceDB in tmp_path, real embedding model."""

from __future__ import annotations

import pytest

from engine.errors import KnowledgeBaseError
from engine.identity import Identity
from engine.ingest import Ingestor, IngestStep, make_doc_id
from engine.store.scoped import ScopedStore

pytestmark = pytest.mark.integration


def report_md(author: str, date: str) -> bytes:
    return (f"---\nupdate_date: {date}\n---\n# Report by {author}\n\nThe {author} team measured axle nut torque "
            f"on {date}.\n").encode()


def only(report):
    (result,) = [f for f in report.files if f.name == "report.md"]
    return result


def test_a_writer_that_lost_the_race_is_told_replaced_with_what_it_replaced(store):
    """Writer A reads the base (empty), then writer B stores its report.md before A writes. A must not say
    "added": its document replaced B's, and it is told which."""
    first, second = Ingestor(store), Ingestor(store)
    raced: list = []

    def meanwhile(step: IngestStep) -> None:
        if step.done == 0 and not raced:  # A has read its file and the base; B writes before A's commit
            raced.append(second.ingest_bytes([("report.md", report_md("Beta", "2024-05-01"))], "reports"))

    late = first.ingest_bytes([("report.md", report_md("Alpha", "2024-06-01"))], "reports", on_step=meanwhile)
    assert only(raced[0]).status == "added"
    result = only(late)
    assert result.status == "replaced", "the later writer was told 'added' though it overwrote a document"
    assert result.existing is not None and result.existing.title == "Report by Beta"
    assert result.existing.update_date == "2024-05-01" and result.existing.ingested_at
    assert 'Replaced "Report by Beta" (dated 2024-05-01, stored ' in result.note
    (doc,) = store.list_documents("reports")
    assert doc.title == "Report by Alpha", "one document remains: the last one written"


def test_sequential_replace_names_what_it_replaced(store):
    ingestor = Ingestor(store)
    ingestor.ingest_bytes([("report.md", report_md("Beta", "2024-05-01"))], "reports")
    result = only(ingestor.ingest_bytes([("report.md", report_md("Alpha", "2024-06-01"))], "reports"))
    assert (result.status, result.existing.title, result.existing.update_date) == (
        "replaced", "Report by Beta", "2024-05-01")
    payload = result.to_dict()
    assert payload["existing"]["title"] == "Report by Beta" and "content_hash" not in payload["existing"]


def test_keep_both_stores_the_second_under_its_own_id_and_a_title_suffix(store):
    ingestor = Ingestor(store)
    ingestor.ingest_bytes([("report.md", report_md("Beta", "2024-05-01"))], "reports")
    second = only(ingestor.ingest_bytes([("report.md", report_md("Alpha", "2024-06-01"))], "reports",
                                        on_conflict="keep-both"))
    original = make_doc_id("reports", "report.md")
    assert (second.status, second.doc_id, second.title) == ("added", f"{original}-2", "Report by Alpha (2)")
    assert second.existing.doc_id == original and "Kept beside" in second.note
    third = only(ingestor.ingest_bytes([("report.md", report_md("Gamma", "2024-07-01"))], "reports",
                                       on_conflict="keep-both"))
    assert (third.doc_id, third.title) == (f"{original}-3", "Report by Gamma (3)")
    again = only(ingestor.ingest_bytes([("report.md", report_md("Alpha", "2024-06-01"))], "reports",
                                       on_conflict="keep-both"))
    assert (again.status, again.doc_id) == ("unchanged", f"{original}-2"), "the same content is not kept twice"

    docs = {d.doc_id: d for d in store.list_documents("reports")}
    assert {d.title for d in docs.values()} == {"Report by Beta", "Report by Alpha (2)", "Report by Gamma (3)"}
    assert all(d.file_name == "report.md" for d in docs.values())
    _, chunks = store.get_document(f"{original}-2", "reports")
    assert chunks[0]["chunk_id"] == f"{original}-2:0000" and "Alpha" in chunks[0]["text"]
    hits = store.search("Alpha team measured", "reports", mode="keyword", k=5)
    assert hits and hits[0].doc_id == f"{original}-2" and hits[0].title == "Report by Alpha (2)"
    assert {h.doc_id for h in store.search("axle nut torque team", "reports", mode="hybrid", k=5)} == set(docs)


def test_keep_both_keeps_two_files_of_one_name_in_one_batch(store, tmp_path):
    for folder, author in (("north", "North"), ("south", "South")):
        (tmp_path / "docs" / folder).mkdir(parents=True)
        (tmp_path / "docs" / folder / "report.md").write_bytes(report_md(author, "2024-01-02"))
    refused = Ingestor(store).ingest_paths([tmp_path / "docs"], "reports")
    assert sorted(f.status for f in refused.files) == ["added", "rejected"]
    assert "keep both" in next(f.reason for f in refused.files if f.status == "rejected")
    kept = Ingestor(store).ingest_paths([tmp_path / "docs"], "both", on_conflict="keep-both")
    assert sorted(f.status for f in kept.files) == ["added", "added"]
    assert {d.title for d in store.list_documents("both")} == {"Report by North", "Report by South (2)"}


def test_skip_leaves_the_stored_document_and_writes_nothing(store):
    ingestor = Ingestor(store)
    ingestor.ingest_bytes([("report.md", report_md("Beta", "2024-05-01"))], "reports")
    version = store._open("reports").version
    result = only(ingestor.ingest_bytes([("report.md", report_md("Alpha", "2024-06-01")),
                                         ("new.md", report_md("Delta", "2024-08-01"))], "reports",
                                        on_conflict="skip"))
    assert result.status == "skipped" and "kept" in result.reason and "keep-both" in result.reason
    assert result.existing.title == "Report by Beta" and 'Report by Beta" (dated 2024-05-01' in result.reason
    assert {d.title for d in store.list_documents("reports")} == {"Report by Beta", "Report by Delta"}
    assert store._open("reports").version > version  # new.md was written; report.md was not
    assert only(ingestor.ingest_bytes([("report.md", report_md("Beta", "2024-05-01"))], "reports",
                                      on_conflict="skip")).status == "unchanged"


def test_skip_decided_under_the_lock_when_another_writer_got_there_first(store):
    first, second = Ingestor(store), Ingestor(store)
    raced: list = []

    def meanwhile(step: IngestStep) -> None:
        if step.done == 0 and not raced:
            raced.append(second.ingest_bytes([("report.md", report_md("Beta", "2024-05-01"))], "reports"))

    result = only(first.ingest_bytes([("report.md", report_md("Alpha", "2024-06-01"))], "reports",
                                     on_step=meanwhile, on_conflict="skip"))
    assert result.status == "skipped" and result.existing.title == "Report by Beta"
    assert 'Report by Beta" (dated 2024-05-01' in result.reason
    assert [d.title for d in store.list_documents("reports")] == ["Report by Beta"]


def test_a_writer_who_may_not_read_the_base_learns_no_title(store):
    Ingestor(store).ingest_bytes([("report.md", report_md("Beta", "2024-05-01"))], "reports")
    drop_box = Identity("dana", "analyst", {"reports": frozenset({"write"})}, "password")
    result = only(Ingestor(ScopedStore(store, drop_box)).ingest_bytes(
        [("report.md", report_md("Alpha", "2024-06-01"))], "reports"))
    assert result.status == "replaced" and result.existing.doc_id == make_doc_id("reports", "report.md")
    assert result.existing.title is None and result.existing.update_date is None
    assert "Beta" not in str(result.to_dict())
    skipped = only(Ingestor(ScopedStore(store, drop_box)).ingest_bytes(
        [("report.md", report_md("Gamma", "2024-07-01"))], "reports", on_conflict="skip"))
    assert skipped.status == "skipped" and skipped.existing.title is None and "Alpha" not in skipped.reason


def test_an_unknown_choice_is_refused_before_anything_is_read(store):
    with pytest.raises(KnowledgeBaseError, match="choose one of replace, keep-both, skip"):
        Ingestor(store).ingest_bytes([("report.md", report_md("Beta", "2024-05-01"))], "reports",
                                     on_conflict="merge")
    assert not store.exists("reports")
