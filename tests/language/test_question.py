"""The question reader: answer type from the wh-phrase and head noun, subjects, attribute words, choices."""

from __future__ import annotations

import pytest

from engine.language.question import head_type, read_question

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("question, answer_type", [
    ("Who designed the Ferris Hall?", "person"),
    ("When did the ferry service start?", "date"),
    ("In which year was the lighthouse rebuilt?", "date"),
    ("Where is the observatory located?", "place"),
    ("How many seats does the hall have?", "number"),
    ("How tall is the radio mast?", "quantity"),
    ("How often is the dam inspected?", "duration"),
    ("Which company operates the tramway?", "organisation"),
    ("What is the maximum pressure of the boiler?", "quantity"),
    ("What percentage of the budget went to repairs?", "percent"),
    ("What is the return fare for a bicycle on the ferry?", "money"),
    ("What is the serial number of the pump?", "code"),
    ("Why was the canal closed?", "reason"),
    ("Is the tunnel open at night?", "yes_no"),
    # the verb that says money comes after the subject
    ("How much did the mayor's return ferry ticket between Dover and Calais cost?", "money"),
    ("How much was spent on the harbour master's travel in May 2019?", "money"),
    # the noun a wh-word determines, however long the phrase before it
    ("Which pressure relief valve firmware version does the new boiler order require?", "code"),
    ("Which main wheel axle nut torque applies to the tram?", "quantity"),
    # a possessive before the asked noun
    ("What was Leeds's total number of inspections in May 2019?", "number"),
])
def test_the_expected_answer_type(question, answer_type):
    assert read_question(question).answer_type == answer_type


def test_subjects_are_the_names_and_codes_the_question_names():
    reading = read_question("What did Imani Osei build for the Kestrel Valley Railway in 1932?")
    assert "Imani Osei" in reading.subjects and any("Kestrel Valley" in s for s in reading.subjects)
    assert "build" in reading.attribute and reading.relation == "build"
    coded = read_question("Which release of the V-2210 pump fixed the seal?")
    assert "V-2210" in coded.subjects  # written as the question writes it


def test_dates_in_a_question_are_constraints_not_subjects():
    reading = read_question("How many inspections were recorded for Leeds in November 2015?")
    assert "Leeds" in reading.subjects and not any("November" in s for s in reading.subjects)
    # a subject of the wh-phrase's own is still read in a long "how much ... cost" question
    fare = read_question("How much did the mayor's return ferry ticket between Dover and Calais cost?")
    assert {"Dover", "Calais"} <= set(fare.subjects)
    assert fare.wh == "how much"  # the wh-phrase, not the words the pattern reached over


def test_the_shipped_models_hold_no_question_wording():
    """Features named after the wh-phrase stay short: a model never carries a question's own words."""
    import json

    from engine.offline.model import MODELS

    for path in MODELS.glob("*.json"):
        weights = json.loads(path.read_text(encoding="utf-8")).get("weights", {})
        long = [k for k in weights if k.startswith("wh=") and len(k[3:].split("|")[0].split()) > 3]
        assert not long, (path.name, long[:3])


def test_the_sides_of_a_choice():
    assert read_question("Which opened first, the museum or the library?").choices == ("museum", "library")
    assert read_question("Was the bridge designed by Okafor or by Lindqvist?").choices == ("Okafor", "Lindqvist")


def test_the_head_noun_lexicon_is_data():
    assert head_type("city") == "place" and head_type("torque") == "quantity" and head_type("zeppelin") == "other"
