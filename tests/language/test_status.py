"""What a sentence calls out of date (engine/language/status.py), and the reader that never answers with such a
value unless the question asks for the earlier one (engine/offline/reader.py)."""

from __future__ import annotations

import pytest

from engine.embeddings import VectorCache
from engine.language import nlp
from engine.language.question import read_question
from engine.language.status import asks_former, retired_tokens
from engine.offline.reader import candidates
from engine.offline.sentences import rank_sentences
from engine.results import Evidence

pytestmark = pytest.mark.integration


def retired(text: str) -> list[str]:
    doc = nlp.parse([text])[0]
    marked = retired_tokens(doc)
    return [t.text for t in doc if t.i in marked]


def test_the_subject_of_an_out_of_date_predicate_is_retired_with_what_hangs_on_it():
    words = retired("Older printed manuals and pocket cards that list 40 psi or 45 psi for the cold inflation "
                    "pressure are out of date and must not be used.")
    assert {"40", "45", "cards", "manuals"} <= set(words)


def test_the_agent_of_superseded_by_is_the_current_value():
    words = retired("The 2019 rate of 3.2 % was superseded by 4.1 % in March.")
    assert "3.2" in words and "4.1" not in words


def test_a_retired_modifier_retires_its_noun_and_a_negation_retires_nothing():
    assert "6,000" in retired("The withdrawn limit of 6,000 cycles applied to early engines.")
    assert retired("The limit of 6,000 cycles is not superseded.") == []
    assert retired("The cold inflation pressure is 52 psi.") == []


def test_no_longer_is_a_status_not_a_negation():
    """"no longer valid" retires its subject: its "no" is part of the status words, not a negation of them."""
    assert {"6,000", "cycles"} <= set(retired("The limit of 6,000 cycles is no longer valid."))
    words = retired("The clamp preload of 18 kN (issue B) and 21 kN (issue C) must no longer be used.")
    assert {"18", "21"} <= set(words)


def test_a_question_for_the_earlier_value_is_told_apart():
    assert asks_former(read_question("What was the previous inflation pressure of the nose tyre?").lemmas)
    assert not asks_former(read_question("What is the current inflation pressure of the nose tyre?").lemmas)


TEXT = ("Nose tyre servicing, issue 7. Older printed manuals and pocket cards that list 40 psi or 45 psi for the "
        "cold inflation pressure of the nose tyre are out of date and must not be used. The cold inflation pressure "
        "of the nose tyre is 52 psi.")


def _read(question: str) -> set[str]:
    evidence = [Evidence(chunk_id="c1", doc_id="d1", knowledge_base="kb", score=1.0, text=TEXT,
                         metadata={"title": "Nose tyre servicing", "source": "tyres.md"})]
    reading = read_question(question)
    return {c.text for c in candidates(reading, evidence, rank_sentences(reading, evidence, VectorCache().encode))}


def test_the_reader_never_offers_a_value_its_sentence_retires():
    offered = _read("What is the cold inflation pressure of the nose tyre?")
    assert "52 psi" in offered
    assert not {"40 psi", "45 psi"} & offered


def test_the_reader_offers_the_retired_values_when_the_earlier_one_is_asked():
    offered = _read("What was the previous cold inflation pressure of the nose tyre?")
    assert {"40 psi", "45 psi"} & offered
