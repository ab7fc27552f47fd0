"""A document's title set by its user: in the catalogue, on every chunk (search results show it) and in the
keyword index; an empty or overlong title is refused."""

from __future__ import annotations

import pytest

from engine.errors import KnowledgeBaseError
from engine.ingest import Ingestor

pytestmark = pytest.mark.integration

NOTE = b"# Changelog\n\nWheel axle nut torque changed to 325 N.m in revision 12.\n\nThe locking bolt stays at 14 N.m."


def test_a_new_title_reaches_the_catalogue_the_chunks_and_keyword_search(store):
    report = Ingestor(store).ingest_bytes([("changelog.md", NOTE)], "manuals")
    (doc,) = store.list_documents("manuals")
    assert doc.title == "Changelog"
    info = store.set_title(doc.doc_id, "manuals", "  AMM 32-41-11 revision notes\n(Rev 12) ")
    assert info.title == "AMM 32-41-11 revision notes (Rev 12)" and info.chunks == report.files[0].chunks
    assert [d.title for d in store.list_documents("manuals")] == ["AMM 32-41-11 revision notes (Rev 12)"]
    hits = store.search("revision notes", "manuals", mode="keyword", k=5)
    assert hits and {h.title for h in hits} == {"AMM 32-41-11 revision notes (Rev 12)"}
    assert {h.title for h in store.search("axle nut torque", "manuals", k=5)} == {info.title}
    every = store.search("torque", "manuals", mode="vector", k=50)
    assert len(every) == info.chunks and {h.title for h in every} == {info.title}  # every chunk carries it


@pytest.mark.parametrize("title, message", [("   ", "cannot be empty"), ("x" * 301, "at most 300")])
def test_a_bad_title_is_refused_with_what_to_write(store, title, message):
    Ingestor(store).ingest_bytes([("changelog.md", NOTE)], "manuals")
    (doc,) = store.list_documents("manuals")
    with pytest.raises(KnowledgeBaseError, match=message):
        store.set_title(doc.doc_id, "manuals", title)
    with pytest.raises(KnowledgeBaseError, match="is not in"):
        store.set_title("nope-00000000", "manuals", "A title")
