"""The vocabulary of a knowledge base: built from its indexed text, cached per table version, used for spelling."""

from __future__ import annotations

import pytest

from engine.perception import Perception
from tests import helpers

pytestmark = pytest.mark.integration

TYPO = "What is the final torqe for the A320 main wheel axel nut?"
RIGHT = "What is the final torque for the A320 main wheel axle nut?"


@pytest.fixture()
def filled(tmp_path, ingestor, store):
    helpers.write_corpus(tmp_path / "docs")
    ingestor.ingest_paths([tmp_path / "docs"], "manuals")
    ingestor.ingest_bytes([("faq.md", b"# Forum\n\nSomeone says axle nut torque is 90 lbf.ft with a calibrated wrench.")],
                          "faq")
    return store


@pytest.fixture(scope="module")
def perception() -> Perception:
    return Perception(use_ner=False)


def test_vocabulary_holds_the_indexed_words_of_each_base(filled):
    manuals, faq = filled.vocabulary("manuals"), filled.vocabulary("faq")
    assert {"torque", "axle", "nitrogen", "wheel"} <= set(manuals.frequencies)
    assert "calibrated" in faq and "calibrated" not in manuals
    both = filled.vocabulary()
    assert both.frequency("axle") == manuals.frequency("axle") + faq.frequency("axle")
    assert filled.vocabulary(["manuals", "no-such-base"]) is manuals  # unknown bases are skipped
    assert len(filled.vocabulary("no-such-base")) == 0


def test_vocabulary_is_cached_until_the_table_changes(filled, ingestor):
    first = filled.vocabulary("faq")
    assert filled.vocabulary("faq") is first
    assert filled.vocabulary() is filled.vocabulary()
    ingestor.ingest_bytes([("note.md", b"# Note\n\nThe hubcap is cleaned with solvent.")], "faq")
    second = filled.vocabulary("faq")
    assert second is not first and "hubcap" in second and "hubcap" not in first
    filled.drop_knowledge_base("faq")
    assert len(filled.vocabulary("faq")) == 0


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_a_question_with_typos_finds_what_the_right_spelling_finds(filled, perception, mode):
    intent = perception.run(TYPO, vocabulary=filled.vocabulary())
    assert intent.search_query == RIGHT and intent.spelling_note == "torqe → torque, axel → axle"
    corrected = filled.search(intent.search_query, mode=mode, k=3)
    right = filled.search(RIGHT, mode=mode, k=3)
    assert corrected[0].chunk_id == right[0].chunk_id
    assert "Torque the axle nut" in corrected[0].text or "axle nut torque" in corrected[0].text


def test_nonsense_gets_no_correction_and_no_keyword_hits(filled, perception):
    intent = perception.run("xqzv plorft wubbly", vocabulary=filled.vocabulary())
    assert intent.spelling == () and intent.search_query == "xqzv plorft wubbly"
    assert filled.search(intent.search_query, mode="keyword", k=5) == []
