"""What a question asks for: expected answer type, subjects and attribute words."""

from __future__ import annotations

import pytest

from engine.answerability.question import analyse, answer_type, interrogative
from engine.results import Entity, Intent


@pytest.mark.unit
@pytest.mark.parametrize(("question", "kind"), [
    ("How many flight cycles may pass between two inspections?", "number"),
    ("When was the directive issued?", "date"),
    ("In which year did the council adopt the budget?", "date"),
    ("Who wrote the novel Moby-Dick?", "person"),
    ("Kate Ramsay is a character created by who?", "person"),
    ("Where is the company headquartered?", "place"),
    ("Which label released both films?", "organisation"),
    ("Which band was formed first, The Exies or Circus Diablo?", "choice"),
    ("Is the part approved for dispatch?", "yes_no"),
    ("What does fault code E4027 mean?", "definition"),
    ("Which service bulletin replaces the old nut?", "code"),
    ("Why did the interval change?", "reason"),
    ("What is the capital of France?", "other"),
])
def test_answer_type(question, kind):
    assert answer_type(question) == kind


@pytest.mark.unit
def test_relative_wh_words_are_not_the_question():
    """'who starred' and 'when he released' are relative clauses; the asking word comes later."""
    question = "Under what name did the guitarist who founded the band perform when he released the album?"
    assert interrogative(question).startswith("what name")
    assert answer_type("The actor who starred in the film was born in what year?") == "date"


@pytest.mark.unit
def test_subjects_and_attribute():
    intent = Intent(action="lookup", raw_query="q", entities=(Entity(text="A320", label="AIRCRAFT"),
                                                               Entity(text="American", label="NORP")))
    focus = analyse("What is the maximum takeoff weight of the American A320?", intent)
    assert focus.subjects == ("A320",)  # a nationality describes, it does not name the subject
    assert {"maximum", "takeoff", "weight"} <= set(focus.attribute_words)
    assert "what" not in focus.attribute_words


@pytest.mark.unit
def test_names_joined_by_and_are_two_subjects():
    intent = Intent(action="lookup", raw_query="q")
    focus = analyse('What do E. B. White and Dan Masterson have in common? Both Never Cry Wolf and "Big Hero 6"',
                    intent)
    assert "Dan Masterson" in focus.subjects and "Never Cry Wolf" in focus.subjects
    assert "Big Hero 6" in focus.subjects


def test_the_focus_reads_as_english():
    """The refusal message says "an organisation", not "a organisation"."""
    focus = analyse("On what station did the series air?", Intent(action="lookup", raw_query="On what station did the series air?"))
    assert focus.describe().startswith("an organisation")
    assert analyse("When did the series air?", Intent(action="lookup", raw_query="When did the series air?")).describe().startswith("a date")


@pytest.mark.unit
def test_a_word_of_the_subject_name_asked_elsewhere_is_part_of_the_attribute():
    """'born' is in "Natural Born Killers" and is also what the question asks about."""
    question = 'The soundtrack from the film "Natural Born Killers" was produced by a man born in what year?'
    focus = analyse(question, Intent(action="lookup", raw_query=question))
    assert "Natural Born Killers" in focus.subjects
    assert "born" in focus.attribute_words and "killers" not in focus.attribute_words


def test_the_name_of_a_thing_is_asked_by_its_noun():
    assert answer_type("What is the name of the rock band founded by the two brothers?") == "organisation"
    assert answer_type("What was the name of her first novel?") == "work"


def test_a_price_cost_or_fee_is_a_number():
    assert answer_type("What is the price of the annual licence?") == "number"
    assert answer_type("What are the fees for a late renewal?") == "number"


def test_a_clause_that_sets_the_scene_does_not_ask():
    """"When X upgraded Y, what version ...?" asks for a version; its opening "when" only sets the scene."""
    assert answer_type("When the library upgraded its parser, what version did it move to?") == "code"
    assert answer_type("When the tyre is hot, how long must it cool?") == "number"
    assert answer_type("When did the library drop Python 3.7, and why?") == "date"  # "when did": it asks
