"""The span scorer (engine/offline/span_model.py): the packaged fine-tuned layers load over the installed base
model, read a question against sentences, and score the answer's span above the rest; the reader turns the
scores into candidate features and adds each best sentence's best span as a candidate."""

from __future__ import annotations

import json

import pytest

from engine.errors import ConfigError
from engine.offline import span_model
from engine.offline.span_model import SentenceSpans

pytestmark = pytest.mark.integration


def test_a_span_scores_its_first_piece_as_start_and_last_as_end():
    spans = SentenceSpans(starts=(0.0, 5.0, 1.0, 0.5), ends=(0.0, 1.0, 4.0, 0.2),
                          offsets=((0, 3), (4, 9), (10, 14), (15, 19)), null=2.0)
    assert spans.span(4, 14) == 9.0
    assert spans.span(4, 9) == 6.0
    assert spans.best() == (4, 14, 9.0)
    assert spans.best(longest=1) == (4, 9, 6.0)


def test_a_span_outside_the_pieces_read_has_no_score():
    spans = SentenceSpans(starts=(1.0,), ends=(1.0,), offsets=((0, 4),), null=0.0)
    assert spans.span(20, 30) is None


def test_the_span_model_can_be_switched_off(monkeypatch):
    monkeypatch.setenv("WORKBENCH_SPAN_MODEL", "off")
    assert span_model.packaged() is None


def test_an_incomplete_model_folder_says_what_to_do(tmp_path, monkeypatch):
    (tmp_path / span_model.CARD).write_text(json.dumps({"trainable_layers": 3}), encoding="utf-8")
    monkeypatch.setenv("WORKBENCH_SPAN_MODEL", str(tmp_path))
    with pytest.raises(ConfigError, match="train one with tools/train_span_reader.py"):
        span_model.packaged()


@pytest.fixture(scope="module")
def packaged():
    model = span_model.load(span_model.PACKAGED)
    assert model.card["held_out_articles"], "the packaged model records the articles it never saw"
    return model


@pytest.mark.parametrize("question, sentence, answer", [
    ("Who designed the lighthouse on the northern cape?",
     "The lighthouse on the northern cape was designed by Imani Osei and opened in 1902.", "Imani Osei"),
    ("In which year did the lighthouse open?",
     "The lighthouse on the northern cape was designed by Imani Osei and opened in 1902.", "1902"),
    ("How many keepers lived at the station?",
     "The station housed three keepers until the lamp was automated in 1968.", "three"),
])
def test_the_packaged_model_scores_the_answer_span_best(packaged, question, sentence, answer):
    scores = span_model.read(packaged, question, [sentence])[0]
    begin, finish, score = scores.best()
    assert answer in sentence[begin:finish]
    assert len(sentence[begin:finish]) <= len(answer) + 12


def test_the_reader_adds_span_features_and_each_best_span_as_a_candidate(packaged):
    from engine.language.question import read_question
    from engine.offline.reader import SPAN_SENTENCES, candidates
    from engine.offline.sentences import rank_sentences
    from engine.embeddings import VectorCache
    from engine.results import Evidence

    reading = read_question("Who restored the old tide mill?")
    evidence = [Evidence(chunk_id="c1", doc_id="d1", knowledge_base="kb", score=1.0,
                         text="The old tide mill was restored by the Harbour Trust in 1987. It grinds flour on "
                              "summer weekends.", metadata={"title": "Tide mill", "source": "mill.md"})]
    sentences = rank_sentences(reading, evidence, VectorCache().encode)
    found = candidates(reading, evidence, sentences)
    assert found and all("qa_span" in c.features for c in found)
    assert sum(c.features["qa_top"] for c in found) >= 1
    scores = span_model.read(packaged, reading.text, [s.text for s in sentences])
    for sentence, spans in list(zip(sentences, scores))[:SPAN_SENTENCES]:
        begin, finish, _ = spans.best()
        best = sentence.text[begin:finish].strip(" .")
        assert any(best in c.text or c.text in best for c in found if c.sentence == sentence)


def test_asks_read_with_the_onnx_export_and_get_the_same_scores(packaged, tmp_path, monkeypatch):
    """packaged() exports the folder once (in a child process) into the model cache and reads with ONNX Runtime;
    its scores match the PyTorch module's."""
    import numpy as np

    monkeypatch.setenv("WORKBENCH_EMBEDDING_CACHE_DIR", str(tmp_path))
    span_model.forget_loaded()
    try:
        assert span_model.export_pending()
        reader = span_model.packaged()
        assert isinstance(reader, span_model.OnnxSpanReader) and not span_model.export_pending()
        exported = list(tmp_path.glob("span_reader-*"))
        assert len(exported) == 1 and (exported[0] / span_model.ONNX_FILE).is_file()
        question = "Who designed the lighthouse on the northern cape?"
        sentences = ["The lighthouse on the northern cape was designed by Imani Osei and opened in 1902.",
                     "The station housed three keepers until the lamp was automated in 1968."]
        fast, slow = span_model.read(reader, question, sentences), span_model.read(packaged, question, sentences)
        for a, b in zip(fast, slow):
            assert a.offsets == b.offsets
            assert np.allclose(a.starts, b.starts, atol=1e-4) and np.allclose(a.ends, b.ends, atol=1e-4)
    finally:
        span_model.forget_loaded()


def test_a_sentence_longer_than_a_passage_is_cut_not_dropped(packaged):
    long = " ".join(["The keeper lit the lamp every night."] * 60)
    scores = span_model.read(packaged, "Who lit the lamp?", [long])[0]
    assert 100 < len(scores.starts) < span_model.MAX_PIECES
    assert scores.offsets[0][0] == 0


def _lighthouse_log():
    from engine.results import Evidence

    lines = [f"In {1900 + n} the keepers logged {40 + n} storms and repainted the gallery rail." for n in range(18)]
    lines.insert(13, "The lantern of the northern cape light was built by the Halvorsen Foundry of Bergen.")
    return [Evidence(chunk_id="c1", doc_id="d1", knowledge_base="kb", score=1.0, text=" ".join(lines),
                     metadata={"title": "Keepers' log", "source": "log.md"})]


def test_the_reader_reads_the_sixteen_best_sentences_and_no_more(packaged):
    """Real documents often hold the answer past the eighth best sentence (tables, lists, long manuals): candidates
    come from every one of the ``SENTENCES`` best, in the order given, and none from past them."""
    from engine.embeddings import VectorCache
    from engine.language.question import read_question
    from engine.offline.reader import SENTENCES, candidates
    from engine.offline.sentences import rank_sentences

    assert SENTENCES == 16
    reading = read_question("Which foundry built the lantern of the northern cape light?")
    evidence = _lighthouse_log()
    ranked = rank_sentences(reading, evidence, VectorCache().encode)
    answer = next(s for s in ranked if "Halvorsen" in s.text)
    others = [s for s in ranked if s is not answer]
    assert len(others) >= SENTENCES
    late = others[:SENTENCES - 1] + [answer] + others[SENTENCES - 1:]  # the answer's sentence 16th
    assert any("Halvorsen" in c.text for c in candidates(reading, evidence, late))
    past = others[:SENTENCES] + [answer] + others[SENTENCES:]  # 17th: not read
    assert not any("Halvorsen" in c.text for c in candidates(reading, evidence, past))


def test_the_span_read_beside_the_parse_gives_what_a_read_after_it_gives(packaged, monkeypatch):
    """The span model reads on its own thread while spaCy parses; the candidates and their features are the same as
    when it reads after the parse."""
    from concurrent.futures import Future

    from engine.embeddings import VectorCache
    from engine.language.question import read_question
    from engine.offline import reader
    from engine.offline.sentences import rank_sentences

    class Inline:
        def submit(self, fn, *args):
            done = Future()
            done.set_result(fn(*args))
            return done

    reading = read_question("Which foundry built the lantern of the northern cape light?")
    evidence = _lighthouse_log()
    ranked = rank_sentences(reading, evidence, VectorCache().encode)
    beside = [(c.text, dict(c.features)) for c in reader.candidates(reading, evidence, ranked)]
    monkeypatch.setattr(reader, "_SPAN_READS", Inline())
    after = [(c.text, dict(c.features)) for c in reader.candidates(reading, evidence, ranked)]
    assert beside == after and any("qa_span" in f for _, f in beside)


def test_the_read_at_load_has_the_largest_shape_an_ask_gives():
    """The span model's peak read at load is as many passages as the reader reads sentences (each may fill a
    passage); the two constants live in two modules and must move together."""
    from engine.offline.reader import SENTENCES

    assert span_model.PEAK_PASSAGES == SENTENCES
