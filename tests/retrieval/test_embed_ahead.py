"""The question is embedded while perception reads it: once, on a background thread, to the same vector."""

from __future__ import annotations

import threading

import numpy as np

from engine.config import load_settings
from engine.ingest import Ingestor
from engine.retrieval.retriever import Retriever
from engine.store import KnowledgeBaseStore


def test_a_question_prepared_ahead_is_embedded_once_on_the_background_thread(tmp_path, monkeypatch):
    store = KnowledgeBaseStore(load_settings(data_dir=tmp_path / "data"))
    Ingestor(store).ingest_records([{"id": "d1", "title": "Torque", "text": "The axle nut torque is 250 lbf.ft."}],
                                   "manuals")
    embedder, calls = store.embedder, []
    real, beside = embedder.encode, embedder.encode_beside
    monkeypatch.setattr(embedder, "encode",
                        lambda texts: calls.append((list(texts), threading.current_thread().name)) or real(texts))
    monkeypatch.setattr(embedder, "encode_beside",
                        lambda text: calls.append(([text], threading.current_thread().name)) or beside(text))
    retriever = Retriever(store)
    question = "What is the axle nut torque on the prepared aircraft?"
    retriever.prepare(question)
    retriever.prepare(question)  # prepared twice before it is read: still embedded once
    vectors = {q: f.result() for q, f in retriever._embedding([question, "axle nut torque prepared"]).items()}
    assert sorted(text for texts, _ in calls for text in texts) == sorted([question, "axle nut torque prepared"])
    assert [name for texts, name in calls if texts == [question]][0].startswith("embed-ahead")
    assert [name[:12] for texts, name in calls if texts == ["axle nut torque prepared"]] == ["store-reads_"]
    assert np.array_equal(vectors[question], real([question])[0])
    calls.clear()
    retriever._embedding([question])[question].result()  # taken once: a later ask embeds it again
    assert [texts for texts, name in calls if not name.startswith("embed-ahead")] == [[question]]

