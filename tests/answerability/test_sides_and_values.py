"""Values said of the right thing: one value per side, counts, measures named by acronym, tidy leads.

General-domain evidence (a hospital report, a pump log, a library), built here; real spaCy and embedding model.
"""

from __future__ import annotations

from datetime import date

import pytest

from engine.answerability import AnswerabilityEvaluator
from engine.answerability.lead import lead_sentence, side_leads
from engine.answerability.question import analyse
from engine.answerability.sides import nearest_value, sides
from engine.answerability.spans import typed_values
from engine.perception import get_perception
from engine.reflection.text import figures
from engine.reflection.units import readable_record
from engine.results import AnswerSpan, Evidence, EvidenceMeta


def _evidence(*docs) -> tuple[Evidence, ...]:
    return tuple(Evidence(chunk_id=f"c{i}", doc_id=f"d{i}", knowledge_base="kb", text=text, score=1.0 - i / 10,
                          metadata=EvidenceMeta(title=title, update_date=date(2024, 3, 1)))
                 for i, (title, text) in enumerate(docs))


def test_sides_are_subjects_joined_by_and():
    joined, text = sides("What was the mean wait time at North Clinic and at South Clinic in 2023?",
                         ("North Clinic", "South Clinic"))
    assert joined == ("North Clinic", "South Clinic") and text == "North Clinic and at South Clinic"
    assert sides("What did North Clinic pay for the South Clinic lease?", ("North Clinic", "South Clinic")) == ((), "")


def test_nearest_value_is_the_one_after_each_side():
    line = "Mean wait: North Clinic 42 minutes; South Clinic 57 minutes."
    values = ["42 minutes", "57 minutes"]
    assert nearest_value(line, values, "North Clinic") == "42 minutes"
    assert nearest_value(line, values, "South Clinic") == "57 minutes"


def test_side_leads_state_one_value_per_side_without_an_unstated_period():
    question = "What was the mean wait time at North Clinic and at South Clinic in 2023?"
    spans = (AnswerSpan(value="42 minutes", sentence="North Clinic 42 minutes", evidence=1, subject="North Clinic"),
             AnswerSpan(value="57 minutes", sentence="South Clinic 57 minutes", evidence=2, subject="South Clinic"))
    leads = side_leads(question, spans, period="2023")
    assert leads == ["The mean wait time at North Clinic was 42 minutes [1].",
                     "The mean wait time at South Clinic was 57 minutes [2]."]


def test_the_period_is_kept_when_the_cited_sentence_states_it():
    span = AnswerSpan(value="42 minutes", sentence="In 2023 the mean wait was 42 minutes.", evidence=1)
    assert lead_sentence("What was the mean wait time since 2023?", span, period="since 2023") == \
        "The mean wait time since 2023 was 42 minutes [1]."
    other = AnswerSpan(value="42 minutes", sentence="The mean wait is 42 minutes.", evidence=1)
    assert lead_sentence("What was the mean wait time since 2023?", other, period="since 2023") == \
        "The mean wait time was 42 minutes [1]."


def test_which_did_questions_lead_with_the_thing_that_did_it():
    span = AnswerSpan(value="2.0", sentence="Version 2.0 removed the CSV exporter.", evidence=3)
    assert lead_sentence("Which version removed the CSV exporter, and why?", span) == \
        "The version that removed the CSV exporter is 2.0 [3]."


def test_a_count_is_the_number_before_the_counted_noun():
    line = "Of the 57 P4410 alarms, 40 were cleared by a reset and 2 by a pump swap."
    assert typed_values(line, "number", "How many P4410 alarms were logged?", ("alarm", "log"))[0] == "57"


def test_a_code_after_a_number_is_not_its_unit():
    assert [(f.text, f.unit) for f in figures("57 P4410 alarms")][0] == ("57", "")


def test_an_acronym_asked_of_something_is_the_measure_not_the_subject():
    question = "What was the MTBF of the feed pump FP-220 at Plant North?"
    focus = analyse(question, get_perception().run(question))
    assert "MTBF" not in focus.subjects and "mtbf" in focus.attribute
    row = "year: 2024; site: Plant North; component: Feed pump; part_number: FP-220; mtbf_hours: 6120; removals: 4"
    assert typed_values(row, "number", question, focus.attribute) == ["6120"]


def test_overlapping_readings_of_a_numbered_name_keep_one():
    question = "Which bulletin superseded ACME SB 2021-0456, and what does it require?"
    focus = analyse(question, get_perception().run(question))
    assert focus.subjects == ("SB 2021-0456", "ACME")  # not also "ACME SB", which the evidence need not say


def test_a_record_whose_value_holds_semicolons_reads_as_one_statement():
    row = ("alarm_code: P4410; message: LOW SUCTION; probable_cause: clogged strainer; air leak; "
           "corrective_action: clean strainer; check seals.")
    assert readable_record(row) == ("Alarm code P4410: message is LOW SUCTION; probable cause is clogged strainer; "
                                    "air leak; corrective action is clean strainer; check seals.")


@pytest.mark.integration
def test_per_side_values_come_from_sentences_naming_each_side():
    report = ("Clinic Report 2023", "Mean wait: North Clinic 42 minutes; South Clinic 57 minutes. "
                                    "Both clinics opened a second triage desk.")
    question = "What was the mean wait time at North Clinic and at South Clinic in 2023?"
    judged = AnswerabilityEvaluator().run(question, get_perception().run(question), _evidence(report))
    assert [(s.subject, s.value) for s in judged.sides] == [("North Clinic", "42 minutes"),
                                                          ("South Clinic", "57 minutes")]


@pytest.mark.integration
def test_a_definition_leads_with_the_row_about_the_asked_code():
    table = ("Pump Alarm Table", "alarm_code: P2105; message: HIGH DISCHARGE TEMP; meaning: discharge above limit. "
                                 "alarm_code: P4410; message: LOW SUCTION; meaning: suction pressure below 0.4 bar.")
    question = "What does alarm code P4410 mean?"
    judged = AnswerabilityEvaluator().run(question, get_perception().run(question), _evidence(table))
    assert judged.span is not None and "P4410" in judged.span.sentence and "P2105" not in judged.span.sentence


def test_how_often_is_answered_by_an_interval_not_a_retention_period():
    question = "How often must the filters be checked?"
    kept = "The results of each filter check shall be recorded and kept for at least 12 months."
    interval = "Each filter shall be checked at intervals not exceeding 48 hours."
    assert typed_values(kept, "number", question, ("filter", "check")) == []
    assert typed_values(interval, "number", question, ("filter", "check")) == ["48 hours"]


def test_an_amount_of_money_with_its_currency_first_is_a_number():
    question = "What is the price of the annual licence?"
    near = ("price", "annual", "licenc")
    assert typed_values("The annual licence costs $99.", "number", question, near) == ["$99"]
    assert typed_values("The price of the annual licence is USD 1,200.", "number", question, near) == ["USD 1,200"]


def test_in_a_flattened_table_row_a_value_belongs_to_the_label_before_it():
    """The nearest "pressure" is the row before's; the words since the previous value are this value's label."""
    row = ("Pump settings Pump P-2 - idle pressure (cold start) 3.5 bar 51 psi Pump P-2 - working pressure "
           "(cold start, full load) 6.0 bar 87 psi Relief valve setting 7.2 bar 104 psi.")
    question = "What is the working pressure of pump P-2 at full load?"
    assert typed_values(row, "number", question, ("work", "pressur", "pump", "full", "load"))[0] == "6.0 bar"


@pytest.mark.unit
def test_a_change_from_one_value_to_another_is_answered_by_the_new_one():
    sentence = "The limit rose from 300 N.m to 320 N.m in 2024."
    assert typed_values(sentence, "number", "What is the limit?", ("limit",))[0] == "320 N.m"
    assert typed_values(sentence, "number", "The limit rose from what value?", ("limit",))[0] == "300 N.m"
