"""Ingest into a real LanceDB with the real embedding model: statuses, idempotence, replace, delete, rejection."""

from __future__ import annotations

import re
from datetime import date

import pytest

from engine.errors import KnowledgeBaseError
from engine.ingest import Ingestor
from tests import helpers

pytestmark = pytest.mark.integration


def statuses(report):
    return {f.name: f.status for f in report.files}


def test_every_format_is_ingested_with_metadata(tmp_path, ingestor, store):
    helpers.write_corpus(tmp_path / "docs")
    report = ingestor.ingest_paths([tmp_path / "docs"], "manuals")
    assert statuses(report) == {n: "added" for n in [
        "apu-oil.docx", "brake-wear.md", "fault-codes.csv", "shop-note.txt", "tyre-bulletin.html", "wheel-manual.pdf"]}
    docs = {d.file_name: d for d in store.list_documents("manuals")}
    assert docs["wheel-manual.pdf"].title == "A320 wheel manual"
    assert docs["wheel-manual.pdf"].update_date == "2025-03-01" and docs["wheel-manual.pdf"].revision == "Rev 12"
    assert docs["apu-oil.docx"].authority == 4 and docs["apu-oil.docx"].update_date == "2023-06-30"
    assert docs["tyre-bulletin.html"].doc_type == "service_bulletin"
    assert docs["fault-codes.csv"].update_date is None and docs["fault-codes.csv"].date_label == "unknown"
    assert docs["shop-note.txt"].authority == 2
    # page numbers survive into the chunks
    info, chunks = store.get_document(docs["wheel-manual.pdf"].doc_id, "manuals")
    assert [c["page"] for c in chunks] == [1, 2]
    assert sum(d.chunks for d in docs.values()) == store.count_chunks("manuals")
    kb = store.list_knowledge_bases()[0]
    assert (kb.name, kb.documents, kb.earliest_date, kb.latest_date) == ("manuals", 6, "2019-07-10", "2025-03-01")


def test_reingest_is_idempotent_and_changes_replace(tmp_path, ingestor, store):
    paths = helpers.write_corpus(tmp_path / "docs")
    ingestor.ingest_paths([tmp_path / "docs"], "manuals")
    before = store.count_chunks("manuals")
    version = store._open("manuals").version
    again = ingestor.ingest_paths([tmp_path / "docs"], "manuals")
    assert set(statuses(again).values()) == {"unchanged"}
    assert store.count_chunks("manuals") == before
    assert store._open("manuals").version == version, "an unchanged batch must not write"

    md = paths["brake-wear.md"]
    md.write_text(helpers.SAMPLE_MD.replace("at least 1.0 mm", "at least 1.5 mm") + "\n" + "Extra paragraph. " * 60)
    doc_id = next(d.doc_id for d in store.list_documents("manuals") if d.file_name == "brake-wear.md")
    old_chunks = store.count_chunks("manuals", doc_id)
    report = ingestor.ingest_paths([md], "manuals")
    assert statuses(report) == {"brake-wear.md": "replaced"}
    _, chunks = store.get_document(doc_id, "manuals")
    assert len(chunks) == report.files[0].chunks and len(chunks) > old_chunks
    text = " ".join(c["text"] for c in chunks)
    assert "1.5 mm" in text and "1.0 mm" not in text
    assert [c["position"] for c in chunks] == list(range(len(chunks)))


def test_metadata_change_alone_replaces(tmp_path, ingestor, store):
    helpers.write_corpus(tmp_path / "docs")
    ingestor.ingest_paths([tmp_path / "docs"], "manuals")
    (tmp_path / "docs" / "wheel-manual.meta.yaml").write_text("title: A320 wheel manual\nupdate_date: 2025-04-01\n")
    report = ingestor.ingest_paths([tmp_path / "docs" / "wheel-manual.pdf"], "manuals")
    assert statuses(report) == {"wheel-manual.pdf": "replaced"}
    doc = next(d for d in store.list_documents("manuals") if d.file_name == "wheel-manual.pdf")
    assert doc.update_date == "2025-04-01"


def test_delete_removes_every_chunk_and_drop_removes_base(tmp_path, ingestor, store):
    helpers.write_corpus(tmp_path / "docs")
    ingestor.ingest_paths([tmp_path / "docs"], "manuals")
    doc = next(d for d in store.list_documents("manuals") if d.file_name == "wheel-manual.pdf")
    assert store.delete_document(doc.doc_id, "manuals") == doc.chunks
    assert store.count_chunks("manuals", doc.doc_id) == 0
    assert all(h.doc_id != doc.doc_id for h in store.search("axle nut torque wheel", "manuals", "hybrid", 20))
    with pytest.raises(KnowledgeBaseError, match="not in"):
        store.delete_document(doc.doc_id, "manuals")
    store.drop_knowledge_base("manuals")
    assert store.knowledge_base_names() == []


@pytest.mark.parametrize("bad_id", ["../etc/passwd", "a b", "x'; DROP", ""])
def test_document_ids_are_validated(store, bad_id):
    with pytest.raises(KnowledgeBaseError, match="Invalid document id"):
        store.delete_document(bad_id, "manuals")


def test_bad_files_are_rejected_and_the_batch_proceeds(tmp_path, settings, store):
    folder = tmp_path / "mixed"
    helpers.write_corpus(folder)
    bad = {
        "scan.pdf": helpers.make_image_only_pdf(),
        "empty.pdf": helpers.make_empty_pdf(),
        "locked.pdf": helpers.make_encrypted_pdf(),
        "broken.docx": helpers.make_docx("H", ["x"])[:300],
        "photo.pdf": helpers.png_bytes(),
        "latin.txt": "caf\xe9".encode("latin-1"),
        "movie.mp4": b"\x00\x00\x00\x18ftypmp42",
        "big.md": b"# Big\n\n" + b"Lots of text. " * 6000,
    }
    for name, data in bad.items():
        (folder / name).write_bytes(data)
    small = settings.model_copy(update={"max_file_mb": 0.05})  # ~52 KB: only big.md (84 KB) exceeds it
    report = Ingestor(store, small).ingest_paths([folder], "manuals")
    result = statuses(report)
    for name in bad:
        assert result[name] == "rejected", name
    assert [r for r in report.files if r.name == "big.md"][0].reason.startswith("The file is")
    assert all(result[n] == "added" for n in ["apu-oil.docx", "brake-wear.md", "wheel-manual.pdf"])
    stored = {d.file_name for d in store.list_documents("manuals")}
    assert stored.isdisjoint(bad), "nothing is written for a rejected file"
    for r in report.files:
        if r.status == "rejected":
            assert r.reason and r.reason[0].isupper()


def test_failed_write_leaves_nothing_behind(tmp_path, store, monkeypatch):
    helpers.write_corpus(tmp_path / "docs")
    ingestor = Ingestor(store)
    ingestor.ingest_paths([tmp_path / "docs" / "brake-wear.md"], "manuals")
    before = store.count_chunks("manuals")

    def explode(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(store.embedder, "encode", explode)
    monkeypatch.setattr(store.embedder, "encode_weighted", explode)
    monkeypatch.setattr(store.embedder, "bulk_weighted", explode)
    with pytest.raises(RuntimeError):
        ingestor.ingest_paths([tmp_path / "docs"], "manuals")
    assert store.count_chunks("manuals") == before


def test_upload_metadata_applies_to_each_file_unless_its_uploaded_sidecar_says_otherwise(store):
    upload = {"update_date": "2024-04-01", "authority": 4, "doc_type": "policy", "series": "hr-handbook",
              "revision": "Rev 3"}
    report = Ingestor(store).ingest_bytes([
        ("leave.md", b"# Leave\n\nStaff take leave after approval."),
        ("travel.txt", b"Travel is booked through the office."),
        ("travel.txt.meta.yaml", b"authority: 2\ndate: 2023-01-15\nrevision: Draft\n"),
    ], "hr", upload)
    assert statuses(report) == {"leave.md": "added", "travel.txt": "added"}
    docs = {d.file_name: d for d in store.list_documents("hr")}
    leave, travel = docs["leave.md"], docs["travel.txt"]
    assert (leave.update_date, leave.authority, leave.doc_type, leave.series, leave.revision) == (
        "2024-04-01", 4, "policy", "hr-handbook", "Rev 3")
    assert (travel.update_date, travel.authority, travel.doc_type, travel.series, travel.revision) == (
        "2023-01-15", 2, "policy", "hr-handbook", "Draft")


def test_stray_sidecars_and_metadata_files_are_rejected_with_what_to_do(store):
    report = Ingestor(store).ingest_bytes([
        ("orphan.pdf.meta.yaml", b"authority: 5\n"), ("settings.json", b"{}"), ("note.txt", b"A note."),
    ], "hr")
    assert statuses(report) == {"orphan.pdf.meta.yaml": "rejected", "settings.json": "rejected", "note.txt": "added"}
    reasons = {f.name: f.reason for f in report.files}
    assert "orphan.pdf" in reasons["orphan.pdf.meta.yaml"] and "upload them together" in reasons["orphan.pdf.meta.yaml"]
    assert "<file name>.meta.yaml" in reasons["settings.json"]


@pytest.mark.parametrize(("field", "value", "says"), [
    ("update_date", "01/04/2024", "YYYY-MM-DD"), ("authority", 9, "1 (lowest) to 5 (highest)"),
    ("series", "x" * 301, "at most 300 characters, e.g."), ("revision", "Rev 3\nRev 4", "one non-empty line"),
])
def test_a_bad_upload_value_fails_the_upload_before_anything_is_written(store, field, value, says):
    from engine.errors import DocumentError

    with pytest.raises(DocumentError, match=re.escape(says)):
        Ingestor(store).ingest_bytes([("note.txt", b"A note.")], "hr", {field: value})
    assert not store.exists("hr")


def test_uploads_from_memory_take_caller_metadata(store):
    report = Ingestor(store).ingest_bytes(
        [("upload.md", b"# Upload\n\nThe APU oil is checked daily."), ("x.exe", b"MZ\x90\x00")],
        "faq", {"authority": 5, "update_date": "2026-01-02", "doc_type": "faq"},
    )
    assert statuses(report) == {"upload.md": "added", "x.exe": "rejected"}
    doc = store.list_documents("faq")[0]
    assert (doc.authority, doc.update_date, doc.doc_type) == (5, "2026-01-02", "faq")
