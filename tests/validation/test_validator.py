"""Validation checks, each passing and failing: citation, timeliness, comparison."""

from __future__ import annotations

from datetime import date

import pytest

from engine.results import Entity, Intent, Validation
from engine.validation import Validator, check_citations, check_comparison, check_timeliness
from tests.reflection.builders import AMM_REV11, AMM_REV12, BRAKE_PIN, SHOP_NOTE, evidence, intent

pytestmark = pytest.mark.unit

Q = intent("What torque for the axle nut?")
A320_OIL = evidence("apu#1", "The A320 APU oil quantity is 5.7 qt.", "A320 APU oil servicing", updated=date(2024, 1, 1))
B737_OIL = evidence("apu#2", "Fill the APU tank to 6.1 qt.", "B737 APU oil servicing", updated=date(2024, 1, 1))
COMPARE = intent("Compare APU oil of the A320 and B737", "compare", ("A320", "B737"))


def messages(issues) -> str:
    return " | ".join(i.message for i in issues)


# citation ------------------------------------------------------------------------------------------


def test_citation_check_passes_for_cited_statements_and_skips_connectives():
    answer = "Torque the axle nut to 150 lbf.ft [1]. Yes, that is it. Replace the brake when the pin is flush [2]."
    assert check_citations(answer, [AMM_REV12, BRAKE_PIN], Q) == []


def test_citation_check_flags_an_uncited_key_statement():
    issues = check_citations("Torque the axle nut to 150 lbf.ft. Replace the brake when flush [1].", [AMM_REV12], Q)
    assert [i.check for i in issues] == ["citation"] and "has no citation" in issues[0].message
    assert "Torque the axle nut to 150 lbf.ft" in issues[0].message


def test_citation_check_flags_a_citation_to_no_evidence():
    issues = check_citations("Torque the axle nut to 150 lbf.ft [3].", [AMM_REV12, BRAKE_PIN], Q)
    assert len(issues) == 1 and "[3]" in issues[0].message and "[1]..[2]" in issues[0].message


def test_evidence_map_links_sentences_to_chunk_ids():
    result = Validator().run("Torque the axle nut to 150 lbf.ft [1]. Replace the brake when flush [2][1].",
                             [AMM_REV12, BRAKE_PIN], Q)
    assert result.evidence_map == {
        "Torque the axle nut to 150 lbf.ft.": ["amm-rev12#3"],
        "Replace the brake when flush.": ["brake-pin#1", "amm-rev12#3"],
    }


# timeliness ----------------------------------------------------------------------------------------


def test_timeliness_passes_inside_the_question_window():
    since_2024 = intent("torque since 2024", start=date(2024, 1, 1), time_text="since 2024")
    assert check_timeliness("Torque the axle nut to 150 lbf.ft [1].", [AMM_REV12], since_2024) == []


def test_timeliness_flags_evidence_older_than_the_question_window():
    since_2024 = intent("torque since 2024", start=date(2024, 1, 1), time_text="since 2024")
    issues = check_timeliness("Old practice was 120 lbf.ft [1].", [SHOP_NOTE], since_2024)
    assert [i.chunk_id for i in issues] == ["shop-note#1"]
    assert "2019-07-10" in issues[0].message and "since 2024" in issues[0].message


def test_timeliness_window_comes_from_the_intent_not_a_constant():
    since_2018 = intent("torque since 2018", start=date(2018, 1, 1))
    assert check_timeliness("Old practice was 120 lbf.ft [1].", [SHOP_NOTE], since_2018) == []
    assert check_timeliness("Old practice was 120 lbf.ft [1].", [SHOP_NOTE], Q) == []


def test_timeliness_flags_a_statement_cited_only_to_a_superseded_revision():
    issues = check_timeliness("Torque the axle nut to 140 lbf.ft [2].", [AMM_REV12, AMM_REV11], Q)
    assert [i.check for i in issues] == ["timeliness"] and issues[0].chunk_id == "amm-rev11#3"
    assert "Rev 11" in issues[0].message and "[1]" in issues[0].message and "Rev 12" in issues[0].message


def test_timeliness_passes_when_the_newer_revision_is_also_cited_or_absent():
    assert check_timeliness("Torque the axle nut to 150 lbf.ft [1][2].", [AMM_REV12, AMM_REV11], Q) == []
    assert check_timeliness("Torque the axle nut to 140 lbf.ft [1].", [AMM_REV11], Q) == []


# comparison ----------------------------------------------------------------------------------------


def test_comparison_passes_when_each_entity_has_evidence_and_its_figures():
    answer = "The A320 APU takes 5.7 qt [1]. The B737 APU takes 6.1 qt [2]."
    assert check_comparison(answer, [A320_OIL, B737_OIL], COMPARE) == []


def test_comparison_flags_an_entity_without_evidence():
    issues = check_comparison("The A320 APU takes 5.7 qt [1].", [A320_OIL], COMPARE)
    assert any("No retrieved evidence mentions 'B737'" in i.message for i in issues)


def test_comparison_flags_an_entity_the_answer_leaves_out():
    issues = check_comparison("The A320 APU takes 5.7 qt [1].", [A320_OIL, B737_OIL], COMPARE)
    assert [i.check for i in issues] == ["comparison"] and "'B737'" in issues[0].message


def test_comparison_flags_a_figure_not_in_that_entitys_evidence():
    answer = "The A320 APU takes 6.1 qt [1]. The B737 APU takes 6.1 qt [2]."
    issues = check_comparison(answer, [A320_OIL, B737_OIL], COMPARE)
    assert len(issues) == 1 and "6.1 qt" in issues[0].message and "A320" in issues[0].message


def test_comparison_is_skipped_for_a_single_entity_lookup():
    assert check_comparison("Anything 9 qt [1].", [A320_OIL], intent("A320 oil?", entities=("A320",))) == []


def test_two_entities_trigger_the_comparison_check_without_the_compare_action():
    two = intent("A320 and B737 oil", "lookup", ("A320", "B737"))
    assert check_comparison("The A320 APU takes 5.7 qt [1].", [A320_OIL, B737_OIL], two)


# the stage -----------------------------------------------------------------------------------------


def test_validator_collects_issues_from_every_check():
    since_2024 = intent("Compare A320 and B737 since 2024", "compare", ("A320", "B737"), start=date(2024, 1, 1))
    answer = "The A320 APU takes 9 qt [1]. Old practice was 120 lbf.ft [3]. Torque it to 150 lbf.ft."
    result = Validator().run(answer, [A320_OIL, B737_OIL, SHOP_NOTE], since_2024)
    assert isinstance(result, Validation) and not result.is_valid
    assert {i.check for i in result.issues} == {"citation", "timeliness", "comparison"}


def test_validator_passes_a_clean_answer_and_rejects_bad_settings():
    answer = "The A320 APU takes 5.7 qt [1]. The B737 APU takes 6.1 qt [2]."
    assert Validator().run(answer, [A320_OIL, B737_OIL], COMPARE).is_valid
    assert Validator(["citation"]).run("Torque the axle nut to 150 lbf.ft.", [], Q).issues
    with pytest.raises(ValueError, match="unknown"):
        Validator(["spelling"])
    with pytest.raises(ValueError):
        Validator([])
    with pytest.raises(ValueError):
        Validator(min_content_words=0)


def test_comparison_matches_entities_across_hyphens_and_skips_unrelated_entity_kinds():
    mixed = Intent(action="lookup", raw_query="A320 wheel axle torque",
                   entities=(Entity(text="A320", label="AIRCRAFT"), Entity(text="wheel axle", label="PERSON")))
    assert check_comparison("Torque the axle nut to 150 lbf.ft [1].", [AMM_REV12], mixed) == []
    hyphen = intent("Compare CFM56-7B and LEAP-1B", "compare", ("CFM56 7B", "LEAP-1B"))
    ev = [evidence("oil#1", "CFM56-7B: 0.45 US qt/h. LEAP-1B: 0.30 US qt/h.", "B737 engine oil")]
    assert check_comparison("CFM56-7B: 0.45 US qt/h; LEAP-1B: 0.30 US qt/h [1].", ev, hyphen) == []
