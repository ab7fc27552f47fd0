"""What the offline reviewer must catch: flipped negations, figures in the wrong unit or said of
another subject, and absolute wording, which it flags without inventing a hedge."""

from __future__ import annotations

import pytest

from engine.llm.scripted import ScriptedProvider
from engine.offline.generator import OfflineGenerator
from engine.offline.reviewer import OfflineReviewer
from engine.reflection import LLMReviewer, ReflectionLoop
from engine.results import Review, ReviewIssue
from tests.reflection.builders import BRAKE_PIN, evidence, intent

pytestmark = pytest.mark.integration

HEDGES = {"rarely", "typically", "usually", "most", "likely", "expected", "unlikely", "support", "often"}


@pytest.fixture(scope="module")
def reviewer() -> OfflineReviewer:
    return OfflineReviewer()


def kinds(review: Review) -> list[str]:
    return [i.type for i in review.issues]


def fixes(review: Review) -> list[tuple[str, str]]:
    return [(c.original, c.corrected) for c in review.corrections]


# --- 1. negation is part of the check ------------------------------------------------------

NEGATION_PAIRS = [
    # (evidence, answer that says the opposite, answer that agrees)
    ("The part is approved for use on the wing spar.",
     "The part is not approved for use on the wing spar.", "The part is approved for use on the wing spar."),
    ("The part is not approved for use on the wing spar.",
     "The part is approved for use on the wing spar.", "The part isn't approved for use on the wing spar."),
    ("No smoking is allowed in the hangar.", "Smoking is allowed in the hangar.", "Smoking is not allowed in the hangar."),
    ("The seal is never reused after removal.", "The seal is reused after removal.",
     "The seal is never reused after removal."),
    ("Users cannot export reports in the free plan.", "Users can export reports in the free plan.",
     "Users can't export reports in the free plan."),
    ("The valve doesn't close automatically during a power loss.",
     "The valve closes automatically during a power loss.",
     "The valve does not close automatically during a power loss."),
    ("The app won't sync photos over mobile data.", "The app will sync photos over mobile data.",
     "The app will not sync photos over mobile data."),
    ("The oil filter must not be cleaned with solvent.", "The oil filter must be cleaned with solvent.",
     "The oil filter must not be cleaned with solvent."),
    ("The soup is served without cream.", "The soup is served with cream.", "The soup is served without any cream."),
    ("Neither the museum nor the zoo charges an entry fee on Sundays.",
     "The museum charges an entry fee on Sundays.", "The zoo does not charge an entry fee on Sundays."),
]


@pytest.mark.parametrize("text, flipped, agreeing", NEGATION_PAIRS)
def test_a_statement_with_the_opposite_polarity_is_a_fact_issue(reviewer, text, flipped, agreeing):
    ev = [evidence("doc#1", text, "Notes")]
    review = reviewer.review("What do the notes say?", ev, flipped.replace(".", " [1]."))
    assert not review.valid and "fact" in kinds(review), review
    assert any("negat" in i.description or "opposite" in i.description for i in review.issues)
    same = reviewer.review("What do the notes say?", ev, agreeing.replace(".", " [1]."))
    assert same.valid, same.issues


# --- 2. a figure is tied to its unit and its subject ----------------------------------------

def test_a_number_given_in_another_unit_is_not_support(reviewer):
    ev = [evidence("doc#1", "The torque is 270 N.m; the pressure is 300 psi.", "Wheel data")]
    review = reviewer.review("What is the torque?", ev, "The torque is 300 N.m [1].")
    assert not review.valid and kinds(review) == ["fact"], review
    assert "psi" in review.issues[0].description
    assert fixes(review) == [("300 N.m", "270 N.m")]


def test_a_number_said_of_another_subject_is_not_support(reviewer):
    ev = [evidence("doc#1", "The B737 limit is 300 N.m. The A320 limit is 270 N.m.", "Limits")]
    review = reviewer.review("What is the A320 limit?", ev, "The A320 limit is 300 N.m [1].")
    assert not review.valid and "fact" in kinds(review), review
    assert any("B737" in i.description for i in review.issues)
    assert ("300 N.m", "270 N.m") in fixes(review)
    same_sentence = [evidence("doc#1", "The B737 limit is 300 N.m, while the A320 limit is 270 N.m.", "Limits")]
    assert not reviewer.review("A320 limit?", same_sentence, "The A320 limit is 300 N.m [1].").valid


@pytest.mark.parametrize("text, answer", [
    ("The A320 and B737 limits are both 300 N.m.", "The A320 limit is 300 N.m [1]."),
    ("For the A320, the limit is 300 N.m.", "The A320 limit is 300 N.m [1]."),
    ("The torque is 300 N.m.", "The torque is 300 [1]."),
    ("Ticket sales rose by 12 percent last season.", "Ticket sales rose 12% last season [1]."),
    ("The trail is 5 kilometres long.", "The trail is 5 km long [1]."),
])
def test_units_and_subjects_that_agree_are_support(reviewer, text, answer):
    review = reviewer.review("What is it?", [evidence("doc#1", text, "Data")], answer)
    assert review.valid, review.issues


# --- 3. absolute wording is flagged, never hedged ---------------------------------------------

PIN = "The brake is always serviceable while the pin protrudes at least 1.0 mm [1]."


def test_an_unbacked_absolute_word_is_flagged_without_a_hedge(reviewer):
    review = reviewer.review("Brake?", [BRAKE_PIN], PIN)
    assert kinds(review) == ["overconfidence"] and review.corrections == ()
    assert "always" in review.issues[0].description


def test_a_correction_for_an_absolute_word_quotes_the_evidence(reviewer):
    ev = [evidence("survey#1", "Most residents support the new bike lanes, according to the survey.", "Survey")]
    review = reviewer.review("Do residents like the lanes?", ev,
                             "All residents support the new bike lanes, according to the survey [1].")
    assert kinds(review) == ["overconfidence"]
    assert fixes(review) == [("All residents", "Most residents")]


def test_an_absolute_word_the_evidence_uses_is_fine(reviewer):
    ev = [evidence("amm#1", "The torque must never exceed 300 N.m during installation.", "AMM")]
    assert reviewer.review("Torque?", ev, "The torque must never exceed 300 N.m during installation [1].").valid


class _AlwaysDraft(OfflineGenerator):
    def draft(self, question, evidence, intent):
        return PIN


def test_the_offline_loop_refuses_instead_of_hedging(reviewer):
    result = ReflectionLoop(_AlwaysDraft(), reviewer).run("Brake?", [BRAKE_PIN], intent("Brake?"))
    assert result.status == "refused" and "always" in result.refusal_reason
    assert not any(word in r.answer.lower().split() for r in result.rounds for word in HEDGES)


def test_revise_keeps_an_overconfident_sentence_as_written():
    review = Review(valid=False, confidence=0.5, issues=(
        ReviewIssue(type="overconfidence", description="always", location=PIN),))
    assert OfflineGenerator().revise("Brake?", [BRAKE_PIN], PIN, review) == PIN


def test_the_loop_does_not_apply_a_hedge_suggested_by_an_llm_reviewer():
    suggestion = {"tool_use": {"name": "submit_review", "input": {
        "valid": False, "confidence": 0.5, "reasoning": "absolute",
        "issues": [{"type": "overconfidence", "description": "always is not backed", "location": PIN}],
        "corrections": [{"type": "overconfidence", "original": "always", "corrected": "typically"}]}}}
    provider = ScriptedProvider([suggestion, suggestion, suggestion])
    result = ReflectionLoop(_AlwaysDraft(), LLMReviewer(provider)).run("Brake?", [BRAKE_PIN], intent("Brake?"))
    assert result.status == "refused"
    assert all("typically" not in r.answer for r in result.rounds)


def test_a_value_said_of_one_side_is_not_contradicted_by_the_other_sides_value(reviewer):
    """A line giving both pumps' figures supports "pump P101 ... 42 minutes"; P202's 57 is no conflict."""
    from datetime import date as _date

    items = [evidence("report#1", "Mean time to restart: pump P101 42 minutes per stop; pump P202 57 minutes "
                                  "per stop.", "Pump report 2023", updated=_date(2024, 2, 1)),
             evidence("memo#2", "The mean time to restart pump P202 was 57 minutes per stop in 2023.",
                      "Pump P202 memo", updated=_date(2024, 6, 1), authority=5)]
    review = reviewer.review("What was the mean time to restart pump P101 in 2023?", items,
                             "The mean time to restart pump P101 was 42 minutes per stop [1].")
    assert not [i for i in review.issues if "newer or more authoritative" in i.description], review.issues


def test_a_value_of_another_quantity_in_the_same_unit_is_no_conflict(reviewer):
    """"Threshold 24,000 km" in a newer card does not contradict "the oil change interval is 15,000 km"."""
    from datetime import date as _date

    items = [evidence("manual#1", "Change the engine oil at intervals not to exceed 15,000 km.", "Van service manual",
                      updated=_date(2023, 1, 10)),
             evidence("card#2", "Van oil change interval card: Item Value Reference Threshold 24,000 km.", "Van quick card", updated=_date(2025, 3, 1), authority=5)]
    review = reviewer.review("What is the oil change interval of the van?", items,
                             "The oil change interval of the van is 15,000 km [1].")
    assert not [i for i in review.issues if "newer or more authoritative" in i.description], review.issues


def test_a_figure_said_of_a_named_revision_is_history_not_a_stale_claim(reviewer):
    from datetime import date as _date

    items = [evidence("manual-r3#1", "Tighten the hub bolts to 90 N.m.", "Pump manual (Revision 3)",
                      updated=_date(2021, 1, 10)),
             evidence("manual-r4#2", "Tighten the hub bolts to 110 N.m.", "Pump manual (Revision 4)",
                      updated=_date(2024, 3, 1), authority=5)]
    history = reviewer.review("How did the hub bolt torque change?", items,
                              "Revision 3 set the hub bolt torque to 90 N.m [1].")
    assert not [i for i in history.issues if "newer or more authoritative" in i.description], history.issues
    stale = reviewer.review("What is the hub bolt torque?", items, "The hub bolt torque is 90 N.m [1].")
    assert not stale.valid
