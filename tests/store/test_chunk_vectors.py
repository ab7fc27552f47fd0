"""A chunk's vector is pooled from its units' vectors (each unit embedded once, for the reader and for search), and
files embedded ahead on helper threads give the rows of one-at-a-time embedding."""

from __future__ import annotations

import numpy as np
import pytest

import engine.ingest_writer as ingest_writer
from engine.ingest import Ingestor
from engine.language.layout import read_sentences
from engine.store.sentences import chunk_units, embed_chunks, locate
from tests import helpers


class WeightedEmbedder:
    """Deterministic unit vectors and weights per text; records every text it is asked for."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def _vector(self, text: str) -> np.ndarray:
        rng = np.random.default_rng(sum(map(ord, text)) + len(text))
        vector = rng.normal(size=8).astype(np.float32)
        return vector / np.linalg.norm(vector)

    def encode(self, texts):
        return self.encode_weighted(texts)[0]

    def encode_weighted(self, texts):
        self.asked.extend(texts)
        return (np.stack([self._vector(t) for t in texts]),
                np.array([float(len(t.split())) for t in texts], dtype=np.float32))


CHUNKS = ["The pump delivers 12 L/min at 3000 psi. Check the case drain every 600 FH. Is the filter clogged?",
          "Check the case drain every 600 FH. Replace the filter when its indicator pops."]


@pytest.mark.unit
def test_a_chunk_vector_is_the_weighted_mean_of_its_title_and_units():
    embedder = WeightedEmbedder()
    vectors, sentences = embed_chunks(embedder, "Hydraulic pump", CHUNKS, mode="pooled")
    assert len(embedder.asked) == len(set(embedder.asked)), "each distinct text is embedded once"
    assert "Check the case drain every 600 FH." in embedder.asked  # shared by both chunks, asked once
    for chunk, vector in zip(CHUNKS, vectors):
        units = chunk_units("Hydraulic pump", chunk)
        assert units[0] == "Hydraulic pump"
        fresh, weights = WeightedEmbedder().encode_weighted(list(units))
        expected = weights @ fresh
        assert np.allclose(vector, expected / np.linalg.norm(expected), atol=1e-6)
    assert [s for s, _ in sentences] == [read_sentences(c) for c in CHUNKS]
    assert "Is the filter clogged?" in chunk_units("", CHUNKS[0]) and "Is the filter clogged?" not in sentences[0][0]


@pytest.mark.unit
def test_without_weights_each_unit_counts_once_and_sentences_can_be_left_out():
    class Plain(WeightedEmbedder):
        encode_weighted = None

        def encode(self, texts):
            return WeightedEmbedder.encode_weighted(self, texts)[0]

    vectors, sentences = embed_chunks(Plain(), "", CHUNKS[1:], with_sentences=False, mode="pooled")
    units = chunk_units("", CHUNKS[1])
    mean = WeightedEmbedder().encode_weighted(list(units))[0].sum(axis=0)
    assert sentences is None and np.allclose(vectors[0], mean / np.linalg.norm(mean), atol=1e-6)


@pytest.mark.integration
def test_a_pooled_vector_stays_close_to_the_whole_text_embedded_at_once(store):
    text = ("Measure the wear pin with the parking brake set. The brake is serviceable while the pin protrudes at "
            "least 1.0 mm. Replace the brake when the pin is flush with the housing.")
    pooled, _ = embed_chunks(store.embedder, "Brake wear pin check", [text], mode="pooled")
    whole = store.embedder.encode([f"Brake wear pin check\n{text}"])[0]
    assert float(pooled[0] @ whole) > 0.9


@pytest.mark.integration
def test_files_embedded_ahead_give_the_rows_of_files_embedded_one_at_a_time(tmp_path, settings, monkeypatch):
    from engine.store import KnowledgeBaseStore

    helpers.write_corpus(tmp_path / "docs")
    rows = {}
    for ahead in (1, 2):
        monkeypatch.setattr(ingest_writer, "EMBED_AHEAD", ahead)
        store = KnowledgeBaseStore(settings.model_copy(update={"data_dir": tmp_path / f"data{ahead}"}))
        report = Ingestor(store).ingest_paths([tmp_path / "docs"], "manuals")
        table = store._open("manuals").to_arrow().sort_by("chunk_id")
        rows[ahead] = (sorted((f.name, f.status, f.chunks) for f in report.files),
                       table["chunk_id"].to_pylist(), np.stack(table["vector"].to_numpy(zero_copy_only=False)))
    assert rows[1][0] == rows[2][0] and rows[1][1] == rows[2][1]
    assert np.array_equal(rows[1][2], rows[2][2]), "a vector does not depend on what was embedded beside it"


@pytest.mark.integration
@pytest.mark.parametrize("mode", ["whole", "pooled", "late"])
def test_the_setting_chooses_whole_pooled_or_late_chunk_vectors(tmp_path, settings, mode):
    """``chunk_vectors``: "whole" and "late" embed each chunk's text after its title; "pooled" stores the vectors
    pooled from its units. Either way the chunk's sentences and their vectors are stored with it."""
    from engine.store import KnowledgeBaseStore

    assert settings.chunk_vectors == "whole"
    helpers.write_corpus(tmp_path / "docs")
    store = KnowledgeBaseStore(settings.model_copy(update={"chunk_vectors": mode}))
    Ingestor(store).ingest_paths([tmp_path / "docs" / "brake-wear.md"], "manuals")
    assert store.sentence_filler.wait(120)  # with "whole", the sentences are embedded after the ingest
    table = store._open("manuals").to_arrow()
    title, texts = table["title"][0].as_py(), table["text"].to_pylist()
    stored = np.stack(table["vector"].to_numpy(zero_copy_only=False))
    whole = store.embedder.encode([f"{title}\n{text}" for text in texts])
    pooled, _ = embed_chunks(store.embedder, title, texts, mode="pooled")
    assert np.allclose(stored, pooled if mode == "pooled" else whole, atol=1e-5)
    assert not np.allclose(whole, pooled, atol=1e-3)
    assert store._db.open_table("sv_manuals").count_rows() == len(texts)


@pytest.mark.integration
def test_a_changed_file_embeds_only_its_new_sentences(settings, monkeypatch):
    """With "whole" vectors, ingesting a new version of a file reuses the stored vectors of the sentences it still
    has."""
    from engine.store import KnowledgeBaseStore

    store = KnowledgeBaseStore(settings.model_copy(update={"chunk_vectors": "whole"}))
    first = "# Pump\n\n" + " ".join(f"Step {n}: check valve {n} for leaks at {100 + n} psi." for n in range(12))
    Ingestor(store).ingest_bytes([("pump.md", first.encode())], "manuals")
    assert store.sentence_filler.wait(120)  # the sentences are embedded after the ingest (sentence_fill.py)
    before = store.document_sentence_vectors("manuals", store.list_documents("manuals")[0].doc_id)
    asked: list[str] = []
    real = store.embedder.bulk_weighted  # what the ingest and the fill embed with

    def counting(texts):
        asked.extend(texts)
        return real(texts)

    monkeypatch.setattr(store.embedder, "bulk_weighted", counting)
    second = first.replace("valve 3 for leaks at 103 psi", "valve 3 for cracks at 130 psi")
    report = Ingestor(store).ingest_bytes([("pump.md", second.encode())], "manuals")
    assert [f.status for f in report.files] == ["replaced"]
    assert store.sentence_filler.wait(120)
    sentences = [s for s in asked if s.startswith("Step")]
    assert sentences == ["Step 3: check valve 3 for cracks at 130 psi."], asked
    after = store.document_sentence_vectors("manuals", report.files[0].doc_id)
    kept = [s for s in after if s in before]
    assert len(kept) == len(after) - 1 and all(np.array_equal(after[s], before[s]) for s in kept)
    fresh = store.embedder.encode(["Step 3: check valve 3 for cracks at 130 psi."])[0]
    assert np.allclose(after["Step 3: check valve 3 for cracks at 130 psi."], fresh, atol=1e-6)


@pytest.mark.integration
def test_a_file_of_more_than_one_step_embeds_on_the_writers_thread_with_its_steps(store, monkeypatch):
    import engine.embed_budget as embed_budget

    monkeypatch.setattr(embed_budget, "FIRST_STEP", 2)
    monkeypatch.setattr(embed_budget, "EMBED_STEP", 3)
    monkeypatch.setattr(ingest_writer, "EMBED_STEP", 3)  # more than one step: embedded alone, not ahead
    text = "\n\n".join(f"Paragraph {n}: torque the axle nut to {100 + n} N.m, then check." for n in range(40))
    steps: list = []
    report = Ingestor(store).ingest_bytes([("long.md", text.encode())], "manuals", on_step=steps.append)
    total = report.files[0].chunks
    assert report.files[0].status == "added" and total > 3
    assert [(s.done, s.total) for s in steps][-1] == (total, total) and len(steps) > 2


@pytest.mark.unit
def test_locate_finds_each_sentence_in_order_and_gives_up_on_rewritten_ones():
    text = "Title\nThe pump delivers 12 L/min [2]. **Check** the drain. | Part | Torque |"
    where = locate(text, ["The pump delivers 12 L/min.", "Check the drain.", "Torque: 325 N.m."], 6)
    assert text[where[0][0]:where[0][1]] == "The pump delivers 12 L/min"
    assert text[where[1][0]:where[1][1]] == "Check** the drain"
    assert where[2] is None, "words that are not in the text give no place"
    assert locate("a b a b", ["a b.", "a b."]) == [(0, 3), (4, 7)], "a repeated sentence is found after the last"


@pytest.mark.integration
def test_late_sentence_vectors_come_from_the_chunks_own_run(store):
    """"late": the chunk vectors are those of "whole" exactly, each sentence's vector is the mean of its word pieces'
    vectors in the chunk's run (no sentence is embedded on its own when it can be found), and a table row that the
    layout rewrote is embedded on its own."""
    title = "Main landing gear"
    texts = ["Torque the axle nut to 325 N.m [2]. Check the wear pin before each flight. Replace the seal if it leaks.",
             "| Part | Torque |\n|---|---|\n| Axle nut | 325 N.m |\n| Brake bolt | 45 N.m |"]
    whole, _ = embed_chunks(store.embedder, title, texts, mode="whole", with_sentences=False)
    asked: list[list[str]] = []
    real = store.embedder.encode

    class Counting:
        dim = store.embedder.dim
        encode_tokens = store.embedder.encode_tokens

        def encode(self, texts):
            asked.append(list(texts))
            return real(texts)

    late, sentences = embed_chunks(Counting(), title, texts, mode="late")
    assert np.allclose(late, whole, atol=1e-6), "chunk vectors, and so retrieval, are those of whole mode"
    assert [s for s, _ in sentences] == [read_sentences(t) for t in texts]
    on_their_own = [t for call in asked for t in call]
    assert not set(on_their_own) & set(sentences[0][0]), "the prose sentences come from the chunk's run"
    vectors, pieces, spans = store.embedder.encode_tokens([f"{title}\n{texts[0]}"])
    start = len(title) + 1 + texts[0].index("Check")
    inside = (spans[0][:, 0] >= start) & (spans[0][:, 1] <= start + len("Check the wear pin before each flight"))
    mean = pieces[0][inside].sum(axis=0)
    assert np.allclose(sentences[0][1][1], mean / np.linalg.norm(mean), atol=1e-6)
    assert np.allclose(vectors[0], whole[0], atol=1e-6)
    for sentence, vector in zip(*sentences[1]):
        assert np.isclose(np.linalg.norm(vector), 1.0, atol=1e-5), sentence
    own = np.array([s not in on_their_own for s in sentences[1][0]])
    assert own.any() or on_their_own, "every row was either found in the chunk or embedded on its own"


@pytest.mark.integration
def test_late_vectors_past_the_models_length_limit_are_embedded_on_their_own(store):
    long_text = " ".join(f"Valve {n} opens at {100 + n} psi and closes at {90 + n} psi." for n in range(40))
    asked: list[str] = []
    real = store.embedder.encode

    class Counting:
        dim = store.embedder.dim
        encode_tokens = store.embedder.encode_tokens

        def encode(self, texts):
            asked.extend(texts)
            return real(texts)

    _, sentences = embed_chunks(Counting(), "Valves", [long_text], mode="late")
    read = sentences[0][0]
    assert read[0] not in asked and read[-1] in asked, "the first sentences are read in the chunk, the last alone"
    assert np.allclose(sentences[0][1][-1], real([read[-1]])[0], atol=1e-6)


@pytest.mark.integration
def test_the_torch_embedder_gives_late_vectors_like_the_onnx_one(store):
    from engine.embeddings import Embedder

    torch_embedder = Embedder(store.settings.embedding_model)
    text = "Main landing gear\nTorque the axle nut to 325 N.m. Check the wear pin before each flight."
    ours = store.embedder.encode_tokens([text])
    theirs = torch_embedder.encode_tokens([text])
    assert np.array_equal(ours[2][0], theirs[2][0]), "the same word pieces at the same places"
    assert float(ours[0][0] @ theirs[0][0]) > 0.98
    assert np.allclose(theirs[0][0], torch_embedder.encode([text])[0], atol=1e-5)
