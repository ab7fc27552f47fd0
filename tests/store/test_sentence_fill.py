"""Sentence vectors embedded after the ingest reported its files (engine/store/sentence_fill.py): the same rows as
embedding them at ingest, never rows of a version the base no longer holds, and nothing lost to a process end."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from engine.config import load_settings
from engine.facade import Workbench
from engine.ingest import Ingestor
from engine.language.layout import read_sentences
from engine.store import KnowledgeBaseStore
from engine.store.sentence_fill import FillJob, SentenceFiller
from engine.store.sentences import SENTENCE_PREFIX, SENTENCES, VECTORS, embed_sentences
from tests import helpers

pytestmark = pytest.mark.integration


def sentence_rows(store, kb: str) -> dict[str, tuple[list[str], np.ndarray]]:
    """chunk_id -> its stored sentences and vectors, as the table holds them now (no waiting)."""
    if SENTENCE_PREFIX + kb not in store._db.table_names():
        return {}
    rows = store._db.open_table(SENTENCE_PREFIX + kb).to_arrow().to_pylist()
    return {r["chunk_id"]: (r[SENTENCES], np.asarray(r[VECTORS], dtype=np.float32)) for r in rows}


def chunks(store, kb: str) -> dict[str, dict]:
    return {r["chunk_id"]: r for r in store._open(kb).to_arrow().select(["chunk_id", "text", "vector"]).to_pylist()}


def test_filled_later_the_rows_and_chunk_vectors_are_those_of_embedding_at_ingest(tmp_path):
    helpers.write_corpus(tmp_path / "docs")
    stores = {}
    for defer in (True, False):
        settings = load_settings(data_dir=tmp_path / f"data-{defer}", chunk_size=400, chunk_overlap=60,
                                 defer_sentence_vectors=defer)
        stores[defer] = store = KnowledgeBaseStore(settings)
        report = Ingestor(store).ingest_paths([tmp_path / "docs"], "manuals")
        assert {f.status for f in report.files} == {"added"}
        assert store.search("axle nut torque", "manuals", "hybrid", 3), "searchable as soon as the ingest returns"
    assert stores[False].sentence_filler.pending() == 0 and stores[False].sentence_filler.filled == 0
    assert stores[True].sentence_filler.wait(120)
    assert stores[True].sentence_filler.filled == len(stores[True].list_documents("manuals"))
    later, at_ingest = sentence_rows(stores[True], "manuals"), sentence_rows(stores[False], "manuals")
    assert later.keys() == at_ingest.keys() == chunks(stores[True], "manuals").keys()
    for chunk_id, (sentences, vectors) in at_ingest.items():
        assert later[chunk_id][0] == sentences
        assert np.array_equal(later[chunk_id][1], vectors), chunk_id
    for chunk_id, row in chunks(stores[False], "manuals").items():
        assert row["vector"] == chunks(stores[True], "manuals")[chunk_id]["vector"]
    assert stores[True].documents_without_sentences("manuals") == {}


def test_an_ask_before_the_fill_embeds_its_evidence_sentences_with_the_same_vectors(tmp_path):
    settings = load_settings(data_dir=tmp_path / "data", chunk_size=400, chunk_overlap=60)
    store = KnowledgeBaseStore(settings)
    release = threading.Event()
    real_fill = store.fill_sentences
    store.sentence_filler._fill = lambda job: release.wait(60) and real_fill(job)  # the fill held back
    helpers.write_corpus(tmp_path / "docs")
    Ingestor(store).ingest_paths([tmp_path / "docs"], "manuals")
    assert store.sentence_filler.pending() > 0
    evidence = store.search("axle nut torque", "manuals", "hybrid", 3)
    assert evidence and store.sentence_vectors([("manuals", e.chunk_id) for e in evidence]) == {}
    release.set()
    assert store.sentence_filler.wait(120)
    stored = store.sentence_vectors([("manuals", e.chunk_id) for e in evidence])
    sentences = [s for e in evidence for s in read_sentences(e.text)]
    assert set(sentences) <= stored.keys()
    for sentence in sentences:  # what an ask embeds itself meanwhile is the vector stored afterwards
        assert np.allclose(store.embedder.encode([sentence])[0], stored[sentence], atol=1e-6)


def test_a_document_replaced_or_deleted_before_its_fill_gets_no_rows_of_the_older_text(tmp_path, store, ingestor):
    first = ingestor.ingest_bytes([("note.md", b"# Note\n\nThe axle nut torque is 90 N.m. Check it daily.")], "kb")
    doc_id, old_hash = first.files[0].doc_id, store.document_hashes("kb")[first.files[0].doc_id]
    ingestor.ingest_bytes([("note.md", b"# Note\n\nThe axle nut torque is 95 N.m. Check it weekly.")], "kb")
    assert store.sentence_filler.wait(120)
    assert store.fill_sentences([FillJob("kb", doc_id, old_hash)]) == 0  # a late job for the replaced version
    sentences = [s for row, _ in sentence_rows(store, "kb").values() for s in row]
    assert any("95 N.m" in s for s in sentences) and not any("90 N.m" in s for s in sentences)
    new_hash = store.document_hashes("kb")[doc_id]
    store.delete_document(doc_id, "kb")
    assert store.fill_sentences([FillJob("kb", doc_id, new_hash)]) == 0
    assert sentence_rows(store, "kb") == {}


def test_documents_a_process_left_unfilled_are_queued_again_at_warm_up(tmp_path):
    helpers.write_corpus(tmp_path / "docs")
    data = tmp_path / "data"
    before = KnowledgeBaseStore(load_settings(data_dir=data, store_sentence_vectors=False))  # as if cut short
    Ingestor(before).ingest_paths([tmp_path / "docs"], "manuals")
    assert sentence_rows(before, "manuals") == {}
    bench = Workbench(load_settings(data_dir=data))
    missing = bench.store.documents_without_sentences("manuals")
    assert set(missing) == {d.doc_id for d in bench.store.list_documents("manuals")}
    assert bench.resume_sentence_fill() == len(missing)
    assert bench.store.sentence_filler.wait(120)
    assert bench.store.documents_without_sentences("manuals") == {}
    assert bench.resume_sentence_fill() == 0
    assert sentence_rows(bench.store, "manuals").keys() == chunks(bench.store, "manuals").keys()
    off = Workbench(load_settings(data_dir=tmp_path / "other", defer_sentence_vectors=False))
    assert off.resume_sentence_fill() == 0


def test_the_ingest_command_returns_only_once_the_sentences_are_stored(tmp_path, capsys):
    helpers.write_corpus(tmp_path / "docs")
    data = tmp_path / "data"
    code, payload = helpers.run_json(capsys, "--data-dir", str(data), "ingest", str(tmp_path / "docs"),
                                     "--kb", "manuals")
    assert code == 0 and payload["summary"]["added"] >= 3
    store = KnowledgeBaseStore(load_settings(data_dir=data))
    assert store.documents_without_sentences("manuals") == {}


@pytest.mark.unit
def test_a_failing_fill_is_logged_and_the_queue_goes_on():
    done: list[str] = []

    def fill(jobs: list[FillJob]) -> int:
        if any(job.kb == "bad" for job in jobs):
            raise OSError("disk full")
        done.extend(job.doc_id for job in jobs)
        return len(jobs)

    maintained: list[str] = []
    filler = SentenceFiller(fill, maintained.append)
    with filler.held():  # nothing starts while an ingest writes: the three are then filled as one batch per base
        for kb, doc_id in (("kb", "a"), ("bad", "x"), ("kb", "b")):
            filler.add(FillJob(kb, doc_id, "h"))
        assert not filler.wait(0.3) and filler.pending() == 3 and done == []
    assert filler.wait(30)
    assert done == ["a", "b"] and filler.filled == 2 and filler.pending() == 0
    assert filler.failed == ["bad/x: disk full"] and maintained == ["kb"]
    assert filler.wait(0)


def test_a_batch_fills_only_the_documents_still_held_in_one_commit(tmp_path, store, ingestor):
    ingestor.ingest_records([{"id": f"n{i}", "title": f"Note {i}", "text": f"Wheel {i} takes {90 + i} N.m. Check it."}
                             for i in range(5)], "kb")
    assert store.sentence_filler.wait(120)
    hashes = store.document_hashes("kb")
    table = store._db.open_table(SENTENCE_PREFIX + "kb")
    table.delete("true")
    before = table.version
    jobs = [FillJob("kb", doc_id, h) for doc_id, h in sorted(hashes.items())]
    jobs[0] = FillJob("kb", jobs[0].doc_id, "an older version")
    assert store.fill_sentences(jobs) == 4
    table.checkout_latest()
    assert table.version == before + 1  # one commit for the batch
    assert {r["doc_id"] for r in table.to_arrow().to_pylist()} == {job.doc_id for job in jobs[1:]}
    with pytest.raises(ValueError, match="one base"):
        store.fill_sentences([FillJob("kb", "n1", "h"), FillJob("other", "n2", "h")])


@pytest.mark.unit
def test_the_fill_looks_for_an_ingest_between_slices_and_gives_the_same_vectors():
    from tests.store.test_chunk_vectors import WeightedEmbedder

    texts = [" ".join(f"Step {i}.{j} takes {j} minutes." for j in range(5)) for i in range(9)]
    looks: list[int] = []
    sliced = embed_sentences(WeightedEmbedder(), texts, between=lambda: looks.append(1), slice_texts=8)
    whole = embed_sentences(WeightedEmbedder(), texts)
    assert len(looks) == -(-45 // 8)  # 45 distinct sentences, in slices of 8
    assert [s for s, _ in sliced] == [s for s, _ in whole]
    assert all(np.array_equal(a, b) for (_, a), (_, b) in zip(sliced, whole))


def test_an_ask_holds_the_fill_while_it_is_answered(tmp_path):
    from engine.pipeline import Pipeline
    from engine.pipeline.options import AskOptions

    store = KnowledgeBaseStore(load_settings(data_dir=tmp_path / "data"))
    Ingestor(store).ingest_records([{"id": "n1", "title": "Note", "text": "The axle nut torque is 300 N.m."}], "kb")
    assert store.sentence_filler.wait(120)
    pipeline = Pipeline(store.settings, store)
    seen: list[int] = []
    real = pipeline._answer
    pipeline._answer = lambda *args: seen.append(store.sentence_filler._holds) or real(*args)
    pipeline.run("What is the axle nut torque?", AskOptions(provider="offline"))
    assert seen == [1] and store.sentence_filler._holds == 0


@pytest.mark.unit
def test_a_stream_of_asks_does_not_starve_the_fill():
    done: list[str] = []
    filler = SentenceFiller(lambda jobs: done.extend(job.doc_id for job in jobs) or len(jobs), lambda kb: None,
                            max_pause_s=0.2)
    with filler.held():  # held for the whole test, as a server that is always answering someone
        filler.add(FillJob("kb", "a", "h"))
        assert filler.wait(10) and done == ["a"]
