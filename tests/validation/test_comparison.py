"""Comparison completeness: every compared entity needs cited evidence for the asked attribute and period.

A general-domain three-way product test (one product only has 2023 figures) and the sample corpus's
fleet fuel-efficiency reports, built from the real sample_docs files.
"""

from __future__ import annotations

import pytest

from engine.results import Entity, Intent
from engine.validation import check_comparison
from tests.validation import fixtures as fx
from tests.validation.sample_evidence import sample_evidence

pytestmark = pytest.mark.unit

ALL_2024 = "Zephyr X1 lasts 14.5 hours [1]. Nimbus 5 lasts 11.2 hours [1]. Orion Pro lasts 10.6 hours [2]."


def only(issues):
    assert len(issues) == 1, [i.message for i in issues]
    return issues[0]


def test_a_2024_comparison_answered_with_2023_figures_for_one_product_fails_and_names_it():
    answer = "Zephyr X1 lasts 14.5 hours [1]. Nimbus 5 lasts 11.2 hours [1]. Orion Pro lasts 9.8 hours [2]."
    issue = only(check_comparison(answer, [fx.BATTERY_2024, fx.ORION_2023], fx.compare_products(2024)))
    assert issue.check == "comparison"
    assert issue.message.startswith("No evidence for 'Orion Pro' gives the battery life for 2024; the closest is "
                                    "dated 2023"), issue.message


def test_every_product_with_figures_from_the_asked_year_passes():
    assert check_comparison(ALL_2024, [fx.BATTERY_2024, fx.ORION_2024], fx.compare_products(2024)) == []


def test_without_an_asked_period_any_year_will_do():
    answer = "Zephyr X1 lasts 14.5 hours [1]. Nimbus 5 lasts 11.2 hours [1]. Orion Pro lasts 9.8 hours [2]."
    assert check_comparison(answer, [fx.BATTERY_2024, fx.ORION_2023], fx.compare_products(None)) == []


def test_evidence_about_the_product_but_not_the_attribute_does_not_count():
    answer = "Zephyr X1 lasts 14.5 hours [1]. Nimbus 5 lasts 11.2 hours [1]. Orion Pro weighs 1.3 kg [2]."
    issue = only(check_comparison(answer, [fx.BATTERY_2024, fx.ORION_2024_WEIGHT], fx.compare_products(2024)))
    assert issue.message.startswith("No evidence for 'Orion Pro' gives the battery life for 2024")
    assert "closest" not in issue.message


def test_retrieved_but_uncited_evidence_for_the_period_is_pointed_out():
    answer = "Zephyr X1 lasts 14.5 hours [1]. Nimbus 5 lasts 11.2 hours [1]. Orion Pro lasts 9.8 hours [2]."
    issue = only(check_comparison(answer, [fx.BATTERY_2024, fx.ORION_2023, fx.ORION_2024], fx.compare_products(2024)))
    assert "'Orion Pro'" in issue.message and "[3]" in issue.message and "Orion Pro review 2024" in issue.message


def test_each_entity_is_judged_by_the_sentences_that_speak_of_it():
    """A 2024 source cited elsewhere in the answer does not excuse a 2023 figure stated for Orion Pro."""
    answer = ("Zephyr X1 lasts 14.5 hours and Nimbus 5 lasts 11.2 hours [1]. Orion Pro lasts 9.8 hours [2]. "
              "All three are light laptops [3].")
    issue = only(check_comparison(answer, [fx.BATTERY_2024, fx.ORION_2023, fx.ORION_2024_WEIGHT],
                                  fx.compare_products(2024)))
    assert "'Orion Pro'" in issue.message and "2023" in issue.message


# -- the sample corpus: fleet fuel-efficiency reports 2023 and 2024 -------------------------------------

REPORT_2023 = sample_evidence("manuals/fleet-fuel-efficiency-report-2023.pdf", "Fleet Overview 2023")
REPORT_2023_SUMMARY = sample_evidence("manuals/fleet-fuel-efficiency-report-2023.pdf", "2,366 kg per block hour")
REPORT_2024 = sample_evidence("manuals/fleet-fuel-efficiency-report-2024.docx", "Sub-fleet: A320neo; Engine: LEAP-1A")
THREE_WAY = Intent(
    action="compare", raw_query="Compare the fuel burn per block hour of the A320neo, B737-800 and B737 MAX 8 in 2024.",
    entities=tuple(Entity(text=t, label="AIRCRAFT") for t in ("A320neo", "B737-800", "B737 MAX 8")),
    constraints={"time": {"text": "2024", "start": "2024-01-01", "end": "2024-12-31"}},
)


def test_a_three_way_2024_fuel_comparison_with_a_2023_figure_fails_for_that_type():
    answer = ("A320neo: 2,080 kg per block hour [2]. B737-800: 2,505 kg per block hour [2]. "
              "B737 MAX 8: 2,160 kg per block hour [1].")
    issue = only(check_comparison(answer, [REPORT_2023, REPORT_2024], THREE_WAY))
    assert issue.message.startswith("The answer cites no evidence that gives the fuel burn per block hour of "
                                    "'B737 MAX 8' for 2024; [2] '2024 Fleet Fuel Efficiency Report"), issue.message
    swapped = check_comparison(answer, [REPORT_2024, REPORT_2023], THREE_WAY)  # now [1] is 2024 and [2] is 2023
    assert sorted(m for i in swapped for m in ("'A320neo'", "'B737-800'", "'B737 MAX 8'") if m in i.message) == [
        "'A320neo'", "'B737-800'"]


def test_the_answer_the_pipeline_gave_from_the_2023_report_fails():
    """The offline answer seen for this question: the B737 figures came from the 2023 report."""
    answer = ("With the sector-length correction the A320neo and the B737 MAX 8 are within 0.5 percent of each other "
              "per seat [2]. B737 family (B737-800 CFM56-7B and B737 MAX 8 LEAP-1B): 2,366 kg per block hour, "
              "12.52 kg per seat per block hour [1].")
    sector = sample_evidence("manuals/fleet-fuel-efficiency-report-2024.docx", "sector-length correction (standard")
    issues = check_comparison(answer, [REPORT_2023_SUMMARY, sector], THREE_WAY)
    assert any(i.message.startswith("No evidence for 'B737-800' gives the fuel burn per block hour for 2024; "
                                    "the closest is dated 2023") for i in issues), [i.message for i in issues]


def test_the_three_way_comparison_from_the_2024_report_passes():
    answer = ("A320neo: 2,080 kg per block hour [2]. B737-800: 2,505 kg per block hour [2]. "
              "B737 MAX 8: 2,150 kg per block hour [2].")
    assert check_comparison(answer, [REPORT_2023, REPORT_2024], THREE_WAY) == []


def test_the_2023_comparison_from_the_2023_report_passes():
    fuel_2023 = Intent(
        action="compare", raw_query="Compare the fuel efficiency of A320 and B737, focusing on data from 2023 reports.",
        entities=(Entity(text="A320", label="AIRCRAFT"), Entity(text="B737", label="AIRCRAFT")),
        constraints={"time": {"text": "2023 reports", "start": "2023-01-01", "end": "2023-12-31"}},
    )
    answer = "In 2023 the A320 family burned 2,288 kg per block hour and the B737 family 2,366 kg per block hour [1]."
    assert check_comparison(answer, [REPORT_2023_SUMMARY, REPORT_2024], fuel_2023) == []
