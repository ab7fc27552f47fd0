"""Answers from "key: value; key: value" records (table rows, CSV lines): a candidate is one field's value, never a
run across keys, and the answer states the value without pasting the raw row after it."""

from __future__ import annotations

import pytest

from engine.language.question import read_question
from engine.offline.answerability import ReaderAnswerability
from engine.offline.generator import OfflineGenerator
from engine.offline.reader import candidates
from engine.offline.sentences import Sentence
from engine.results import Evidence, EvidenceMeta, Intent

pytestmark = pytest.mark.integration

ROW = ("component: tail rotor gearbox; airframe: H145; part_number: TR-4471-02; oil_capacity: 1.9 L; "
       "inspection_interval: 600 FH; manual_reference: 63-20-00.")


def card() -> list[Evidence]:
    return [Evidence(chunk_id="card:0001", doc_id="card", knowledge_base="kb", text=ROW, score=1.0,
                     metadata=EvidenceMeta(title="Helicopter gearbox service card"))]


def test_a_record_candidate_stays_inside_one_field_value():
    reading = read_question("What is the oil capacity of the H145 tail rotor gearbox?")
    sentence = Sentence(text=ROW, evidence=1, rank=0, kind="record", similarity=0.8, overlap=0.5, score=0.0)
    values = [field.split(":", 1)[1].strip().rstrip(".") for field in ROW.split(";")]
    found = candidates(reading, card(), [sentence])
    assert found
    for candidate in found:
        assert ";" not in candidate.text and ":" not in candidate.text, candidate.text
        assert any(candidate.text in value for value in values), candidate.text  # never a key, never across keys


@pytest.mark.parametrize("question, value", [
    ("What is the part number of the H145 tail rotor gearbox?", "TR-4471-02"),
    ("What is the oil capacity of the tail rotor gearbox on the H145?", "1.9 L"),
])
def test_the_answer_gives_the_field_value_and_not_the_raw_row(question, value):
    evidence = card()
    intent = Intent(action="lookup", raw_query=question)
    judged = ReaderAnswerability(accuracy=0).run(question, intent, evidence)
    assert judged.span is not None and judged.span.value == value, judged.span
    answer = OfflineGenerator().draft(question, evidence, intent, judged)
    assert answer.split("[1]")[0].count(value) == 1, answer
    pasted = [field for field in ("manual reference", "inspection interval") if field in answer.lower()]
    assert not pasted, answer  # no row pasted after the value


@pytest.mark.parametrize("question, wants", [
    ("Which airframe carries the tail rotor gearbox?", True),  # a noun the lexicon does not type: a name answers
    ("What vessel carried the cargo?", True),
    ("Why was the interval shortened?", False),
    ("What is the procedure for draining the gearbox?", False),  # a copula noun, not determined by the wh-word
])
def test_a_noun_the_wh_word_determines_asks_for_a_value(question, wants):
    assert read_question(question).wants_value is wants


def test_a_record_excerpt_keeps_the_row_name_and_the_fields_holding_the_value():
    from engine.language.layout import readable_record, record_excerpt

    assert record_excerpt(ROW, "1.9 L") == "Component tail rotor gearbox: oil capacity is 1.9 L."
    assert record_excerpt(ROW, "600") == "Component tail rotor gearbox: inspection interval is 600 FH."
    assert record_excerpt(ROW, "60") == readable_record(ROW)  # no field says 60 by itself ("600" is not it)
    assert record_excerpt(ROW, "", "How often is the gearbox inspected, at what interval?") == (
        "Component tail rotor gearbox: inspection interval is 600 FH.")  # no value: the fields the question names
    assert record_excerpt("The gearbox holds 1.9 L of oil.", "1.9 L") == "The gearbox holds 1.9 L of oil."



def test_a_labelled_row_keeps_its_label_as_the_row_name():
    from engine.language.layout import readable_record, record_excerpt

    row = "Harbour ferry - Crossings 2024: 1,912; Crossings 2023: 1,870; Crew: 6."
    assert readable_record(row) == "Harbour ferry: Crossings 2024 is 1,912; Crossings 2023 is 1,870; Crew is 6."
    assert record_excerpt(row, "1,870") == "Harbour ferry: Crossings 2023 is 1,870."
    # a heading run into prose is no row: one "key: value" after a dash is not a record
    assert readable_record("Fault Code E4027 - SENSOR DISAGREE Meaning: one sensor differs.") == (
        "Fault Code E4027 - SENSOR DISAGREE Meaning: one sensor differs.")


def test_a_value_from_a_heading_like_fragment_is_stated_once_without_the_fragment():
    evidence = [Evidence(chunk_id="s:0001", doc_id="s", knowledge_base="kb", score=1.0,
                         metadata=EvidenceMeta(title="Hull inspection schedule"),
                         text="Hull inspection schedule\nRepeat interval 6,000 FC\nInspect with eddy current.")]
    question = "What is the repeat interval of the hull inspection?"
    intent = Intent(action="lookup", raw_query=question)
    judged = ReaderAnswerability(accuracy=0).run(question, intent, evidence)
    assert judged.span is not None and judged.span.value == "6,000 FC", judged.span
    answer = OfflineGenerator().draft(question, evidence, intent, judged)
    assert answer == "The repeat interval of the hull inspection is 6,000 FC [1].", answer
