"""Sentence vectors stored at ingest, read back for an ask's evidence (engine/store/sentences.py)."""

from __future__ import annotations

import numpy as np
import pytest

from engine.config import load_settings
from engine.ingest import Ingestor
from engine.embeddings import VectorCache
from engine.offline.answerability import ReaderAnswerability
from engine.language.layout import read_sentences
from engine.results import Evidence, EvidenceMeta, Intent
from engine.store import KnowledgeBaseStore
from engine.store.sentences import SENTENCE_PREFIX, SENTENCES, VECTORS
from tests import helpers

pytestmark = pytest.mark.integration


def stored_rows(store, kb: str) -> list[dict]:
    """Each chunk's text with its stored sentences and vectors (None where it has none), once the sentences an
    ingest left to the background are filled (engine/store/sentence_fill.py)."""
    assert store.sentence_filler.wait(120)
    texts = {r["chunk_id"]: r["text"] for r in store._open(kb).to_arrow().select(["chunk_id", "text"]).to_pylist()}
    table = store._db.open_table(SENTENCE_PREFIX + kb) if SENTENCE_PREFIX + kb in store._db.table_names() else None
    stored = {r["chunk_id"]: r for r in table.to_arrow().to_pylist()} if table is not None else {}
    return [{"chunk_id": c, "text": t, SENTENCES: stored.get(c, {}).get(SENTENCES),
             VECTORS: stored.get(c, {}).get(VECTORS)} for c, t in sorted(texts.items())]


def test_ingest_stores_each_sentence_the_check_reads_with_the_embedders_vector(filled):
    rows = stored_rows(filled, "manuals")
    assert len(rows) >= 5
    for row in rows:
        sentences = read_sentences(row["text"])
        assert row[SENTENCES] == list(sentences)
        expected = filled.embedder.encode(list(sentences))
        assert np.allclose(np.asarray(row[VECTORS], dtype=np.float32), expected, atol=1e-5), row["chunk_id"]


def test_an_ask_reads_back_the_vectors_of_its_evidence(filled):
    rows = stored_rows(filled, "manuals")[:3]
    found = filled.sentence_vectors([("manuals", r["chunk_id"]) for r in rows] + [("manuals", "gone:0001"),
                                                                                 ("nosuchbase", "x:0001")])
    expected = {s: v for r in rows for s, v in zip(read_sentences(r["text"]), r[VECTORS])}
    assert found.keys() == expected.keys()
    for sentence, vector in expected.items():
        assert np.allclose(found[sentence], vector)


def test_a_sentence_read_another_way_is_embedded_as_before(filled):
    """A stored sentence the check no longer reads that way (a newer engine splits the text differently) is not
    used: the check looks its sentences up by their text."""
    table = filled._db.open_table(SENTENCE_PREFIX + "manuals")
    row = next(r for r in stored_rows(filled, "manuals") if len(r[SENTENCES]) > 1)
    changed = [row[SENTENCES][0] + " (read otherwise)"] + row[SENTENCES][1:]
    table.update(where=f"chunk_id = '{row['chunk_id']}'", values={SENTENCES: changed})
    found = filled.sentence_vectors([("manuals", row["chunk_id"])])
    sentences = read_sentences(row["text"])
    assert sentences[0] not in found
    assert set(sentences[1:]) <= found.keys()


def test_without_sentence_vectors_chunks_are_written_and_read_as_before(tmp_path):
    settings = load_settings(data_dir=tmp_path / "data", chunk_size=400, chunk_overlap=60,
                             store_sentence_vectors=False)
    store = KnowledgeBaseStore(settings)
    helpers.write_corpus(tmp_path / "docs")
    Ingestor(store).ingest_paths([tmp_path / "docs"], "manuals")
    rows = stored_rows(store, "manuals")
    assert rows and all(r[SENTENCES] is None and r[VECTORS] is None for r in rows)
    assert store.sentence_vectors([("manuals", rows[0]["chunk_id"])]) == {}
    assert store.search("axle nut torque", "manuals", "hybrid", 3)


def test_replacing_or_deleting_a_document_replaces_or_removes_its_sentences(tmp_path, store, ingestor):
    first = ingestor.ingest_bytes([("note.md", b"# Note\n\nThe axle nut torque is 90 N.m. Check it daily.")], "kb")
    doc_id = first.files[0].doc_id
    ingestor.ingest_bytes([("note.md", b"# Note\n\nThe axle nut torque is 95 N.m. Check it weekly.")], "kb")
    sentences = [s for r in stored_rows(store, "kb") for s in r[SENTENCES]]
    assert any("95 N.m" in s for s in sentences) and not any("90 N.m" in s for s in sentences)
    assert store._db.open_table(SENTENCE_PREFIX + "kb").count_rows() == store.count_chunks("kb")
    store.delete_document(doc_id, "kb")
    assert store._db.open_table(SENTENCE_PREFIX + "kb").count_rows() == 0
    store.drop_knowledge_base("kb")
    assert SENTENCE_PREFIX + "kb" not in store._db.table_names()


def test_a_base_written_before_sentence_vectors_gets_them_with_its_next_write(tmp_path):
    helpers.write_corpus(tmp_path / "docs")
    before = KnowledgeBaseStore(load_settings(data_dir=tmp_path / "data", store_sentence_vectors=False))
    Ingestor(before).ingest_bytes([("old.md", b"# Old\n\nThe brake wear pin limit is 2 mm.")], "manuals")
    assert SENTENCE_PREFIX + "manuals" not in before._db.table_names()
    after = KnowledgeBaseStore(load_settings(data_dir=tmp_path / "data"))
    assert after.sentence_vectors([("manuals", r["chunk_id"]) for r in stored_rows(after, "manuals")]) == {}
    Ingestor(after).ingest_paths([tmp_path / "docs"], "manuals")
    rows = stored_rows(after, "manuals")
    assert sum(1 for r in rows if r[SENTENCES]) == len(rows) - 1  # all but the old document's chunk
    assert after.search("axle nut torque", "manuals", "hybrid", 3)


class CountingEmbedder:
    def __init__(self, inner) -> None:
        self.inner, self.texts = inner, []
        self.dim = inner.dim

    def encode(self, texts):
        self.texts.extend(texts)
        return self.inner.encode(texts)


def test_the_check_embeds_only_the_question_when_the_evidence_vectors_are_known(filled):
    rows = stored_rows(filled, "manuals")
    row = next(r for r in rows if "torque" in r["text"].lower())
    evidence = [Evidence(chunk_id=row["chunk_id"], doc_id=row["chunk_id"].split(":")[0], knowledge_base="manuals",
                         text=row["text"], score=0.9, weight=1.0, credibility=0.5,
                         metadata=EvidenceMeta(title="Wheel manual"))]
    question = "What is the final torque of the axle nut?"
    known = filled.sentence_vectors([("manuals", row["chunk_id"])])
    counted = CountingEmbedder(filled.embedder)
    intent = Intent(action="lookup", raw_query=question)
    with_known = ReaderAnswerability(VectorCache(counted)).run(question, intent, evidence, known_vectors=known)
    assert counted.texts == [question]
    plain = ReaderAnswerability(VectorCache(filled.embedder)).run(question, intent, evidence)
    assert with_known.model_dump() == plain.model_dump()
