"""Timeliness fails when an answer rests on superseded or out-of-window evidence while better was retrieved.

General-domain cases (a council budget, a software changelog) and the sample corpus's superseded
B737 flap-track AD, built from the real sample_docs files.
"""

from __future__ import annotations

from datetime import date

import pytest

from engine.results import Constraints, Intent, TimeConstraint
from engine.validation import Validator, check_timeliness
from tests.validation import fixtures as fx
from tests.validation.sample_evidence import sample_evidence

pytestmark = pytest.mark.unit

IN_2023 = Intent(action="lookup", raw_query="What did the parks department spend in 2023?",
                 constraints=Constraints(time=TimeConstraint(text="in 2023", start=date(2023, 1, 1),
                                                             end=date(2023, 12, 31))))


def only(issues):
    assert len(issues) == 1, [i.message for i in issues]
    return issues[0]


# -- the asked window --------------------------------------------------------------------------------


def test_an_answer_from_last_years_report_fails_when_this_periods_report_was_retrieved():
    issue = only(check_timeliness("The parks department budget is $4.2 million [1].",
                                  [fx.BUDGET_2023, fx.BUDGET_2024], fx.since(2024)))
    assert issue.check == "timeliness" and issue.chunk_id == "budget-2023#2"
    assert "since 2024" in issue.message and "[2]" in issue.message
    assert "Riverton City Council budget report 2024" in issue.message


def test_the_answer_from_this_periods_report_passes():
    assert check_timeliness("The parks department budget is $4.8 million [2].",
                            [fx.BUDGET_2023, fx.BUDGET_2024], fx.since(2024)) == []


def test_a_sentence_that_also_cites_the_current_report_may_cite_history():
    answer = "The parks department budget rose from $4.2 million [1] to $4.8 million [2]."
    assert check_timeliness(answer, [fx.BUDGET_2023, fx.BUDGET_2024], fx.since(2024)) == []


def test_an_unknown_date_never_counts_as_outside_the_window():
    answer = "A blog expects a parks department budget of about $5 million [1]."
    assert check_timeliness(answer, [fx.BUDGET_RUMOUR, fx.BUDGET_2024], fx.since(2024)) == []


def test_a_report_about_the_asked_year_counts_as_inside_even_when_published_later():
    assert check_timeliness("The parks department spent $4.1 million [1].",
                            [fx.ANNUAL_REPORT_2023, fx.BUDGET_2024], IN_2023) == []
    issue = only(check_timeliness("The parks department budget is $4.8 million [2].",
                                  [fx.ANNUAL_REPORT_2023, fx.BUDGET_2024], IN_2023))
    assert issue.chunk_id == "budget-2024#2" and "[1]" in issue.message and "in 2023" in issue.message


def test_without_newer_evidence_an_old_source_is_still_flagged_as_before_the_window():
    issue = only(check_timeliness("The parks department budget is $4.2 million [1].", [fx.BUDGET_2023],
                                  fx.since(2024)))
    assert "2023-03-01" in issue.message and "before the question's time window" in issue.message


# -- superseded documents ----------------------------------------------------------------------------


def test_a_statement_from_the_old_version_fails_when_the_new_version_was_retrieved():
    issue = only(check_timeliness("The default config file is ~/.acme/config.ini [1].",
                                  [fx.CHANGELOG_1, fx.CHANGELOG_2], fx.CONFIG_QUESTION))
    assert issue.chunk_id == "acme-1.0#1"
    assert "1.0" in issue.message and "[2]" in issue.message and "2.0" in issue.message


def test_the_new_version_passes_and_naming_the_old_version_is_history():
    items = [fx.CHANGELOG_1, fx.CHANGELOG_2]
    assert check_timeliness("The default config file is ~/.config/acme/config.toml [2].", items,
                            fx.CONFIG_QUESTION) == []
    history = "In 1.0 the default config file was ~/.acme/config.ini [1]. Now it is ~/.config/acme/config.toml [2]."
    assert check_timeliness(history, items, fx.CONFIG_QUESTION) == []


def test_a_document_marked_superseded_fails_when_a_current_one_on_the_subject_was_retrieved():
    answer = "The default config file is ~/.acme/config.ini [1]."
    for question in (fx.CONFIG_QUESTION, fx.since(2024, "Where is the Acme CLI default config file?")):
        issue = only(check_timeliness(answer, [fx.GUIDE_1, fx.GUIDE_2], question))
        assert issue.chunk_id == "acme-guide-1#1"
        assert "superseded" in issue.message and "[2]" in issue.message and "Acme CLI 2.0 user guide" in issue.message


def test_a_superseded_mark_needs_a_current_document_on_the_same_subject():
    answer = "The default config file is ~/.acme/config.ini [1]."
    assert check_timeliness(answer, [fx.GUIDE_1, fx.BILLING_FAQ], fx.CONFIG_QUESTION) == []
    assert check_timeliness(answer, [fx.GUIDE_1], fx.CONFIG_QUESTION) == []


def test_a_document_that_supersedes_another_is_not_itself_superseded():
    answer = "The default config file is ~/.config/acme/config.toml [1]."
    assert check_timeliness(answer, [fx.GUIDE_2, fx.GUIDE_1], fx.CONFIG_QUESTION) == []


# -- the sample corpus: ACAA AD 2020-18-05 superseded by AD 2024-11-02 -----------------------------------

FLAP_Q = "What is the repeat inspection interval for the B737 trailing edge flap main tracks"
AD_2024 = sample_evidence("regulations/acaa-ad-2024-11-02-b737-flap-track.html", "intervals not to exceed 4,500 FC")
AD_2020 = sample_evidence("regulations/acaa-ad-2020-18-05-b737-flap-track.txt", "intervals not to exceed 6,000")
STATUS_ROW = sample_evidence("regulations/ad-compliance-status-2025-q1.csv", "ad_number: 2020-18-05")


def test_the_superseded_ad_cited_for_a_since_2024_question_fails():
    answer = "Repeat the inspections thereafter at intervals not to exceed 6,000 FC [2]."
    issue = only(check_timeliness(answer, [AD_2024, AD_2020], fx.since(2024, FLAP_Q)))
    assert issue.chunk_id == AD_2020.chunk_id and "AD 2020-18-05" in issue.message and "AD 2024-11-02" in issue.message


def test_a_status_table_row_marked_superseded_fails_when_the_current_ad_was_retrieved():
    """The answer the offline pipeline gave: the CAMO table row for the old AD, dated 2025, cited for the interval."""
    row = STATUS_ROW.text.splitlines()[-1]
    answer = f"{row} [2]."
    issue = only(check_timeliness(answer, [AD_2024, STATUS_ROW], fx.since(2024, FLAP_Q)))
    assert issue.chunk_id == STATUS_ROW.chunk_id
    assert "superseded" in issue.message and "[1]" in issue.message and "2024-11-02" in issue.message


def test_the_current_ad_passes_and_the_validator_reports_the_stale_one():
    answer = "Repeat the inspections at intervals not to exceed 4,500 FC [1]."
    assert check_timeliness(answer, [AD_2024, AD_2020, STATUS_ROW], fx.since(2024, FLAP_Q)) == []
    stale = Validator(["timeliness"]).run("Repeat the inspections at intervals not to exceed 6,000 FC [2].",
                                          [AD_2024, AD_2020, STATUS_ROW], fx.since(2024, FLAP_Q))
    assert not stale.is_valid


@pytest.mark.integration
def test_perception_gives_the_window_that_makes_the_flap_track_answer_fail():
    from engine.perception import get_perception

    intent = get_perception().run(f"{FLAP_Q} since 2024?")
    answer = "Repeat the inspections thereafter at intervals not to exceed 6,000 FC [2]."
    assert check_timeliness(answer, [AD_2024, AD_2020], intent)
    assert check_timeliness("Repeat the inspections at intervals not to exceed 4,500 FC [1].",
                            [AD_2024, AD_2020], intent) == []


def test_a_document_relaying_an_old_revision_as_current_fails_when_the_new_one_was_retrieved():
    blog = evidence_item("acme-blog#1", "Per the current release, version 1.0, the default config file is "
                         "~/.acme/config.ini.", "Acme tips blog", date(2023, 5, 1))
    answer = "Per the current release, version 1.0, the default config file is ~/.acme/config.ini [3]."
    issue = only(check_timeliness(answer, [fx.CHANGELOG_2, fx.CHANGELOG_1, blog], fx.CONFIG_QUESTION))
    assert "1.0" in issue.message and "[1]" in issue.message and "supersedes" in issue.message
    past = "Version 1.0 was configured in ~/.acme/config.ini [3]."
    assert check_timeliness(past, [fx.CHANGELOG_2, fx.CHANGELOG_1, blog], fx.CONFIG_QUESTION) == []
    assert check_timeliness(answer, [fx.CHANGELOG_1, blog], fx.CONFIG_QUESTION) == []  # no newer version retrieved


def test_the_faq_that_still_calls_rev_11_current_fails_next_to_rev_12():
    """sample_docs trap: the wheels FAQ (2024) says Rev 11's 300 N.m is current; AMM Rev 12 (2025) supersedes it."""
    faq = sample_evidence("faq/maintenance-faq-wheels-brakes.md", "current revision is **Rev 11")
    rev11 = sample_evidence("manuals/a320-amm-32-41-rev11.docx", "300 N.m")
    rev12 = sample_evidence("manuals/a320-amm-32-41-rev12.pdf", "325 N.m")
    answer = ("At the date of this FAQ the current revision is Rev 11 (10 FEB 2023): final torque 300 N.m "
              "(221 lbf.ft) [3].")
    issue = only(check_timeliness(answer, [rev12, rev11, faq], intent_without_window()))
    assert issue.chunk_id == faq.chunk_id and "Rev 11" in issue.message and "Rev 12" in issue.message
    assert check_timeliness("Final torque: 325 N.m (240 lbf.ft) [1].", [rev12, rev11, faq],
                            intent_without_window()) == []


def evidence_item(chunk_id: str, text: str, title: str, updated: date):
    from tests.reflection.builders import evidence

    return evidence(chunk_id, text, title, updated=updated)


def intent_without_window() -> Intent:
    return Intent(action="lookup", raw_query="What is the current final torque for the A320 MLG wheel axle nut?")


def test_a_later_document_quoting_the_asked_years_figure_counts_as_inside():
    from tests.reflection.builders import evidence

    handbook = evidence("handbook-2025#3", "Parks spending in 2023 was $4.1 million (annual report).",
                        "Riverton staff handbook", updated=date(2025, 1, 10))
    assert check_timeliness("Parks spending in 2023 was $4.1 million [1].",
                            [handbook, fx.ANNUAL_REPORT_2023], IN_2023) == []


# -- what is in force ------------------------------------------------------------------------------------

from engine.results import Evidence, EvidenceMeta  # noqa: E402

CURRENT = Intent(action="lookup", raw_query="What is the current day pass fare on the ferry?",
                 constraints=Constraints(time=TimeConstraint(text="current", end=date.today())))
LEAFLET = Evidence(chunk_id="leaflet#1", doc_id="leaflet", knowledge_base="kb", score=0.9,
                   text="The day pass fare on the ferry is 12 EUR for adults.",
                   metadata=EvidenceMeta(title="Visitor leaflet", update_date=date(2021, 4, 1), authority=2))
TARIFF = Evidence(chunk_id="tariff#1", doc_id="tariff", knowledge_base="kb", score=0.8,
                  text="From 1 May the day pass fare on the ferry is 14 EUR for adults.",
                  metadata=EvidenceMeta(title="Ferry tariff 2025", update_date=date(2025, 4, 20), authority=5))


def test_an_in_force_answer_fails_when_a_newer_more_authoritative_source_gives_another_value():
    issue = only(check_timeliness("The day pass fare on the ferry is 12 EUR [1].", [LEAFLET, TARIFF], CURRENT))
    assert issue.chunk_id == "leaflet#1" and "14 EUR" in issue.message and "[2]" in issue.message


def test_the_value_in_force_passes_and_a_value_marked_as_past_passes():
    assert check_timeliness("The day pass fare on the ferry is 14 EUR [2].", [LEAFLET, TARIFF], CURRENT) == []
    assert check_timeliness("The fare was 12 EUR before the new tariff [1].", [LEAFLET, TARIFF], CURRENT) == []


def test_without_an_in_force_question_the_older_value_is_not_judged_here():
    plain = Intent(action="lookup", raw_query="What does the leaflet give as the day pass fare?")
    assert check_timeliness("The day pass fare on the ferry is 12 EUR [1].", [LEAFLET, TARIFF], plain) == []
