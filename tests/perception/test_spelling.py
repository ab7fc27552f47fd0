"""Spelling correction against a knowledge-base vocabulary: what is corrected, what never is, and its bounds."""

from __future__ import annotations

import random
import string

import pytest
from rapidfuzz.distance import OSA

from engine.perception import Perception
from engine.perception.spelling import (
    LONG_WORD_LENGTH, MIN_FUZZY_LENGTH, SWAP_ONLY_LENGTH, best_correction, correct_spelling, max_edits,
)
from engine.store.vocabulary import Vocabulary, text_words

pytestmark = pytest.mark.unit

CORPUS = [
    "A320 AMM 32-41-11 Main landing gear wheel installation. Torque the axle nut to 325 N.m, then back off.",
    "Final torque of the axle nut is checked with a calibrated torque wrench. The nut is torqued in two stages.",
    "Tyre pressure is measured cold with nitrogen. The wheel is inspected for damage and brake wear.",
    "Fault code E4027 means brake temperature sensor fault; replace the sensor.",
    "Fuel efficiency of the fleet in 2023 reports, by aircraft type.",
    "Flap track inspection interval for the Boeing 737 after AD 2024-11-02.",
]


@pytest.fixture(scope="module")
def vocabulary() -> Vocabulary:
    return Vocabulary.from_texts(CORPUS)


def corrections(text: str, vocabulary: Vocabulary) -> dict[str, str]:
    return {c.original: c.corrected for c in correct_spelling(text, vocabulary).corrections}


def test_vocabulary_counts_chunks_and_keeps_letters_only(vocabulary: Vocabulary) -> None:
    assert vocabulary.frequency("torque") == 2 and vocabulary.frequency("nut") == 2
    assert "axle" in vocabulary and "Axle" in vocabulary
    assert "a320" not in vocabulary.frequencies and "e4027" not in vocabulary.frequencies
    assert text_words("A320 main-wheel E4027 torqued") == ["main", "wheel", "torqued"]
    assert vocabulary.has_stem("inspections") and vocabulary.has_stem("torquing")
    assert not vocabulary.has_stem("torqe")


def test_typos_are_corrected_to_corpus_words(vocabulary: Vocabulary) -> None:
    spelling = correct_spelling("What is the final torqe for the A320 main wheel axel nut?", vocabulary)
    assert spelling.text == "What is the final torque for the A320 main wheel axle nut?"
    assert [(c.original, c.corrected, c.distance) for c in spelling.corrections] == [
        ("torqe", "torque", 1), ("axel", "axle", 1)]
    assert corrections("Fuel effciency in 2023", vocabulary) == {"effciency": "efficiency"}
    assert corrections("Flap track on the Boieng 737", vocabulary) == {"Boieng": "Boeing"}  # case kept


def test_known_words_and_inflections_are_never_changed(vocabulary: Vocabulary) -> None:
    # "torqued" occurs once, next to the frequent "torque": it is a word of the corpus, so it stays
    assert vocabulary.frequency("torqued") == 1
    assert best_correction("torqued", vocabulary) is None
    assert corrections("Which nut was torqued and inspected?", vocabulary) == {}
    # not in the corpus, but the index finds them by stem
    assert corrections("wheels inspections torquing", vocabulary) == {}


def test_codes_acronyms_short_words_and_stop_words_are_left_alone(vocabulary: Vocabulary) -> None:
    question = "Does E4072 or A321 or AD 2024-11-03 apply to AMM nit whel whch?"
    assert correct_spelling(question, vocabulary).text == question
    assert max_edits("nut") == 0 and max_edits("nit") == 0
    assert best_correction("whel", vocabulary) is None  # four letters: only a swap of adjacent letters is undone
    assert best_correction("tyer", vocabulary) == ("tyre", 1)
    assert best_correction("whele", vocabulary) == ("wheel", 1)


def test_bounds_follow_word_length() -> None:
    assert [max_edits("x" * n) for n in range(1, 10)] == [0, 0, 0, 1, 1, 1, 1, 2, 2]
    assert SWAP_ONLY_LENGTH < MIN_FUZZY_LENGTH < LONG_WORD_LENGTH


def test_nonsense_is_not_pulled_onto_real_words(vocabulary: Vocabulary) -> None:
    assert corrections("xqzv plorft wubbly", vocabulary) == {}
    rng = random.Random(7)
    words = sorted(vocabulary.frequencies)
    for _ in range(400):
        base = rng.choice(words)
        # half random letters, half one or two random edits of a real word
        if rng.random() < 0.5:
            token = "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 11)))
        else:
            chars = list(base)
            for _ in range(rng.randint(1, 2)):
                chars[rng.randrange(len(chars))] = rng.choice(string.ascii_lowercase)
            token = "".join(chars)
        found = best_correction(token, vocabulary)
        if found is None:
            continue
        corrected, distance = found
        assert corrected in vocabulary and token not in vocabulary
        assert distance == OSA.distance(token, corrected)
        assert corrected[0] == token[0]
        assert len(token) >= SWAP_ONLY_LENGTH
        assert distance <= (1 if len(token) < LONG_WORD_LENGTH else 2), (token, corrected)
        if len(token) < MIN_FUZZY_LENGTH:
            assert sorted(token) == sorted(corrected), (token, corrected)


def test_perception_reads_the_corrected_question(vocabulary: Vocabulary) -> None:
    perception = Perception(use_ner=False)
    question = "Comapre the fuel effciency of A320 and B737 in 2023"
    plain = perception.run(question)
    assert plain.spelling == () and plain.corrected_query is None and plain.search_query == question
    intent = perception.run(question, vocabulary=Vocabulary.from_texts(CORPUS + ["compare the figures"]))
    assert intent.raw_query == question
    assert intent.search_query == "Compare the fuel efficiency of A320 and B737 in 2023"
    assert intent.spelling_note == "Comapre → Compare, effciency → efficiency"
    assert intent.action == "compare"  # the rules read the corrected text
    assert intent.model_dump(mode="json")["spelling"][0] == {"original": "Comapre", "corrected": "Compare",
                                                              "distance": 1}


def test_without_a_vocabulary_nothing_changes() -> None:
    assert correct_spelling("torqe axel", None).corrections == ()
    assert correct_spelling("torqe axel", Vocabulary()).text == "torqe axel"


def test_words_of_the_language_are_not_typos_even_when_the_documents_lack_them(vocabulary: Vocabulary) -> None:
    near = Vocabulary.from_texts(CORPUS + ["uses reads scope lines slat regulator"])
    question = "Can free users export the regulatory scores for roads and lanes?"
    assert corrections(question, near) != {}  # without a language, real words get pulled onto near ones
    english = {"users", "regulatory", "scores", "roads", "lanes"}
    assert correct_spelling(question, near, english).corrections == ()
    assert corrections("final torqe", near) == {"torqe": "torque"}
    assert correct_spelling("final torqe", near, english).text == "final torque"


@pytest.mark.integration
def test_spacy_vocabulary_guards_real_words_but_not_typos() -> None:
    near = Vocabulary.from_texts(CORPUS + ["uses reads scope lines slat regulator"])
    perception = Perception()
    for question in ("Can free users export reports?", "How much was approved for roads in 2024?",
                     "Do residents support the bike lanes?", "When do I add salt?",
                     "Which regulatory requirements apply?"):
        assert perception.run(question, vocabulary=near).spelling == (), question
    intent = perception.run("What is the final torqe for the A320 main wheel axel nut?", vocabulary=near)
    assert intent.spelling_note == "torqe → torque, axel → axle"
