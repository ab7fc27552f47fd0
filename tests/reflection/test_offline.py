"""Offline generator and reviewer on hand-built evidence (uses the real embedding model)."""

from __future__ import annotations

from datetime import date

import pytest

from engine.assemble import build_reflection
from engine.offline.answerability import ReaderAnswerability
from engine.offline.generator import OfflineGenerator
from engine.offline.reviewer import OfflineReviewer
from engine.reflection import ReflectionLoop, schema_errors
from engine.offline.generator import NO_ANSWER
from engine.results import AnswerFocus, Answerability, AnswerSpan, Review, ReviewIssue
from tests.reflection.builders import AMM_REV11, AMM_REV12, BRAKE_PIN, FAULT_CODES, SHOP_NOTE, evidence, intent

pytestmark = pytest.mark.integration

TORQUE = "What torque should the A320 main wheel axle nut get?"
PIN = "The brake is serviceable while the pin protrudes at least 1.0 mm"


@pytest.fixture(scope="module")
def reviewer() -> OfflineReviewer:
    return OfflineReviewer()


@pytest.fixture(scope="module")
def guesses() -> ReaderAnswerability:
    """A reader answering with its best candidate whatever its confidence: these tests check what the generator picks
    and how it writes it; whether the reader is sure enough to answer is the selector's (tests/offline)."""
    return ReaderAnswerability(accuracy=0)


@pytest.fixture(scope="module")
def generator(guesses) -> OfflineGenerator:
    return OfflineGenerator(reader=guesses)


def kinds(review: Review) -> list[str]:
    return [i.type for i in review.issues]


def fixes(review: Review) -> list[tuple[str, str]]:
    return [(c.original, c.corrected) for c in review.corrections]


def test_supported_answer_is_accepted(reviewer):
    answer = ("Torque the axle nut to 150 lbf.ft and safety it with the lock bolt [1]. "
              "The brake is serviceable while the pin protrudes at least 1.0 mm [2].")
    review = reviewer.review(TORQUE, [AMM_REV12, BRAKE_PIN], answer)
    assert review.valid and review.confidence >= 0.9 and review.issues == ()
    assert schema_errors(reviewer.review_payload(TORQUE, [AMM_REV12, BRAKE_PIN], answer)) == []


def test_wrong_figure_gets_a_fact_issue_and_the_right_figure(reviewer):
    review = reviewer.review(TORQUE, [AMM_REV12, BRAKE_PIN], "Torque the axle nut to 130 lbf.ft [1].")
    assert not review.valid and kinds(review) == ["fact"] and review.confidence < 0.6
    assert "130 lbf.ft" in review.issues[0].description
    assert fixes(review) == [("130 lbf.ft", "150 lbf.ft")]


def test_uncited_sentence_gets_a_citation_issue_and_a_fix(reviewer):
    answer = "Torque the axle nut to 150 lbf.ft and safety it with the lock bolt."
    review = reviewer.review(TORQUE, [BRAKE_PIN, AMM_REV12], answer)
    assert kinds(review) == ["citation"] and "no [n] citation" in review.issues[0].description
    assert fixes(review) == [(answer, "Torque the axle nut to 150 lbf.ft and safety it with the lock bolt [2].")]


def test_out_of_range_and_wrong_citations_are_redirected(reviewer):
    review = reviewer.review(TORQUE, [AMM_REV12, BRAKE_PIN], PIN + " [7].")
    assert kinds(review) == ["citation"] and fixes(review) == [("[7]", "[2]")]
    review = reviewer.review(TORQUE, [AMM_REV12, BRAKE_PIN], PIN + " [1].")
    assert kinds(review) == ["citation"] and fixes(review) == [("[1]", "[2]")]


def test_always_gets_an_overconfidence_issue_and_no_hedge(reviewer):
    review = reviewer.review(TORQUE, [BRAKE_PIN], PIN.replace("is ", "is always ") + " [1].")
    assert kinds(review) == ["overconfidence"] and fixes(review) == []


def test_codes_and_names_must_appear_in_the_cited_chunk(reviewer):
    assert reviewer.review("E4027?", [FAULT_CODES], "E4027 means a brake temperature sensor fault [1].").valid
    review = reviewer.review("E4028?", [FAULT_CODES], "E4028 means a brake temperature sensor fault [1].")
    assert kinds(review) == ["fact"] and "E4028" in review.issues[0].description


def test_answer_citing_the_older_revision_is_flagged(reviewer):
    answer = "Torque the axle nut to 140 lbf.ft and safety it with the lock bolt [2]."
    review = reviewer.review(TORQUE, [AMM_REV12, AMM_REV11], answer)
    assert not review.valid and "fact" in kinds(review)
    assert ("140 lbf.ft", "150 lbf.ft") in fixes(review) and ("[2]", "[1]") in fixes(review)


def test_superseded_revision_with_the_same_text_gets_a_citation_fix(reviewer):
    old = evidence("amm-rev10#2", "Measure the wear pin with the parking brake set.", "Brake check (Rev 10)",
                   updated=date(2020, 1, 1), series="brake", revision="Rev 10")
    new = evidence("amm-rev13#2", "Measure the wear pin with the parking brake set.", "Brake check (Rev 13)",
                   updated=date(2025, 1, 1), series="brake", revision="Rev 13")
    review = reviewer.review("How to measure?", [new, old], "Measure the wear pin with the parking brake set [2].")
    assert kinds(review) == ["citation"] and "superseded" in review.issues[0].description
    assert fixes(review) == [("[2]", "[1]")]


def test_lower_authority_older_figure_is_corrected_to_the_newest_source(reviewer):
    review = reviewer.review(TORQUE, [AMM_REV12, SHOP_NOTE], "Torque the axle nut to 120 lbf.ft [2].")
    assert "fact" in kinds(review) and ("120 lbf.ft", "150 lbf.ft") in fixes(review)


def test_draft_is_extractive_cited_and_prefers_the_newest_figure(generator, reviewer):
    ev = [SHOP_NOTE, BRAKE_PIN, AMM_REV11, AMM_REV12]
    draft = generator.draft(TORQUE, ev, intent(TORQUE))
    assert "150 lbf.ft" in draft and "[4]" in draft
    assert "120 lbf.ft" not in draft and "140 lbf.ft" not in draft
    assert reviewer.review(TORQUE, ev, draft).valid


def test_comparison_draft_covers_each_entity(generator):
    a320 = evidence("apu#1", "The A320 APU oil quantity is 5.7 qt at the full mark.", "A320 APU oil servicing")
    b737 = evidence("apu#2", "The B737 APU oil quantity is 6.1 qt at the full mark.", "B737 APU oil servicing")
    noise = evidence("apu#3", "APU oil servicing must be done within 15 minutes of shutdown on every type.", "APU oil")
    question = "Compare the APU oil quantity of the A320 and B737"
    draft = generator.draft(question, [noise, a320, b737], intent(question, "compare", ("A320", "B737")))
    assert "5.7 qt at the full mark [2]" in draft and "6.1 qt at the full mark [3]" in draft


def test_unrelated_question_gets_no_answer():
    assert OfflineGenerator().draft("Who won the 1998 World Cup?", [BRAKE_PIN], intent("x")) == NO_ANSWER


def test_revise_drops_unsupported_fixes_figures_and_keeps_absolute_wording(generator):
    answer = ("Torque the axle nut to 130 lbf.ft [1]. Pilots enjoy the view from the flight deck [1]. "
              "The brake is always serviceable while the pin protrudes at least 1.0 mm [2].")
    review = Review(valid=False, confidence=0.2, issues=(
        ReviewIssue(type="fact", description="wrong figure", location="Torque the axle nut to 130 lbf.ft [1]."),
        ReviewIssue(type="fact", description="unsupported", location="Pilots enjoy the view from the flight deck [1]."),
        ReviewIssue(type="overconfidence", description="always",
                    location="The brake is always serviceable while the pin protrudes at least 1.0 mm [2]."),
    ), corrections=({"type": "fact", "original": "130 lbf.ft", "corrected": "150 lbf.ft"},))
    revised = generator.revise(TORQUE, [AMM_REV12, BRAKE_PIN], answer, review)
    assert revised == ("Torque the axle nut to 150 lbf.ft [1]. "
                       "The brake is always serviceable while the pin protrudes at least 1.0 mm [2].")


def test_revise_recites_a_sentence_to_the_evidence_that_supports_it(generator):
    answer = "The brake is serviceable while the pin protrudes at least 1.0 mm [1]."
    review = Review(valid=False, confidence=0.3,
                    issues=(ReviewIssue(type="citation", description="wrong", location=answer),))
    assert generator.revise(TORQUE, [AMM_REV12, BRAKE_PIN], answer, review).endswith("1.0 mm [2].")


_CENSUS = "Regional fleet census, 2019."
CENSUS = [evidence("census#1", f"{_CENSUS} Region: Northfield; Depots: 12; Trucks: 340.", "Fleet census"),
          evidence("census#2", f"{_CENSUS} Region: Marsh Cove; Depots: 4; Trucks: 90.", "Fleet census"),
          evidence("census#3", f"{_CENSUS} The regions counted are Northfield, Marsh Cove and Eastvale.",
                   "Fleet census")]
EASTVALE = "How many trucks were counted in Eastvale in the 2019 census?"
WRONG_REGION = "The number of trucks counted in Eastvale in 2019 was 340 [1]. Region Northfield: Trucks is 340 [1]."


GUESS = Answerability(verdict="answerable", focus=AnswerFocus(answer_type="quantity", subjects=("Eastvale",)),
                      reason="best guess", span=AnswerSpan(value="340", sentence="Region: Northfield; Trucks: 340.",
                                                           evidence=1))


class _WrongRegionDraft(OfflineGenerator):
    """A best-guess draft that says another region's figure of the asked region, then quotes the row it came from."""

    def draft(self, question, evidence, intent, answerability=None):
        super().draft(question, evidence, intent, answerability)  # keeps the verdict, as for any draft
        return WRONG_REGION


def test_a_lead_dropped_for_its_other_words_leaves_the_evidence_that_states_the_value(generator):
    """A lead whose wording beyond the value is unsupported (say, a detail of the question restated) is dropped, and
    the sentence it stood in, which states the value, is the answer."""
    question = "How many trucks were counted in Northfield in the 2019 census?"
    lead = "The count for Northfield in the 2019 census was 340, the largest fleet [1]."
    review = Review(valid=False, confidence=0.3, issues=(
        ReviewIssue(type="fact", description="Not supported by [1] (support 0.40).", location=lead),))
    generator.draft(question, CENSUS, intent(question), GUESS.model_copy(
        update={"focus": AnswerFocus(answer_type="quantity", subjects=("Northfield",))}))
    row = "Region Northfield: Trucks is 340 [1]."
    assert generator.revise(question, CENSUS, f"{lead} {row}", review) == row


def test_a_dropped_lead_is_not_replaced_by_the_evidence_it_stood_in(reviewer):
    """The review finds the lead's figure is another region's and the revision drops the lead. The row left behind
    is true and cited, and it names a region the question does not ask about; the document names the asked region
    elsewhere. Shown alone it would pass review as an answer about the wrong region, so the loop refuses and says
    why."""
    review = reviewer.review(EASTVALE, CENSUS, WRONG_REGION)
    assert [i.type for i in review.issues] == ["fact"] and "not for Eastvale" in review.issues[0].description
    generator = _WrongRegionDraft(reader=ReaderAnswerability(accuracy=0))
    generator.draft(EASTVALE, CENSUS, intent(EASTVALE), GUESS)
    assert generator.revise(EASTVALE, CENSUS, WRONG_REGION, review) == WRONG_REGION  # drafted afresh, not the row
    result = ReflectionLoop(generator, reviewer, max_rounds=2).run(EASTVALE, CENSUS, intent(EASTVALE), GUESS)
    assert result.status == "refused" and "not for Eastvale" in result.final


class _WrongDraft(OfflineGenerator):
    def draft(self, question, evidence, intent):
        return "Torque the axle nut to 130 lbf.ft and safety it with the lock bolt [1]."


@pytest.mark.parametrize("mode", ["dual", "single"])
def test_offline_loop_accepts_a_good_draft(mode, guesses):
    loop = build_reflection("offline", mode)
    verdict = guesses.run(TORQUE, intent(TORQUE), [AMM_REV12, BRAKE_PIN])  # as the pipeline passes it
    result = loop.run(TORQUE, [AMM_REV12, BRAKE_PIN], intent(TORQUE), verdict)
    assert result.status == "success" and "150 lbf.ft" in result.final and result.final.endswith("[1].")
    assert result.reviews[-1].confidence >= 0.9


def test_offline_loop_corrects_a_wrong_figure(reviewer):
    result = ReflectionLoop(_WrongDraft(), reviewer).run(TORQUE, [AMM_REV12, BRAKE_PIN], intent(TORQUE))
    assert [r.action for r in result.rounds] == ["corrected", "accepted"]
    assert result.final == "Torque the axle nut to 150 lbf.ft and safety it with the lock bolt [1]."


def test_offline_loop_refuses_when_nothing_is_supported():
    result = build_reflection("offline").run("Who won the 1998 World Cup?", [BRAKE_PIN], intent("x"))
    assert result.status == "refused" and result.refusal_reason.startswith("I could not verify")


def test_figures_of_different_entities_are_not_a_contradiction(reviewer):
    a320 = evidence("apu#1", "The A320 APU oil quantity is 5.7 qt at the full mark.", "A320 APU oil",
                    updated=date(2022, 1, 1))
    b737 = evidence("apu#2", "The B737 APU oil quantity is 6.1 qt at the full mark.", "B737 APU oil",
                    updated=date(2024, 1, 1), authority=5)
    answer = "The A320 APU oil quantity is 5.7 qt at the full mark [1]. The B737 APU oil quantity is 6.1 qt [2]."
    review = reviewer.review("Compare APU oil of the A320 and B737", [a320, b737], answer)
    assert review.valid, review.issues


def test_draft_skips_superseded_revisions_questions_and_table_rules(generator):
    old = evidence("rev10#1", "Torque the axle nut to 270 N.m while you turn the wheel.", "AMM (Rev 10)",
                   updated=date(2021, 4, 15), series="amm", revision="Rev 10")
    new = evidence("rev12#1", "Seat the nut first. Final torque: torque the axle nut to 325 N.m while you turn the "
                   "wheel.", "AMM (Rev 12)", updated=date(2025, 3, 3), series="amm", revision="Rev 12")
    forum = evidence("forum#1", "What torque do you use for the axle nut? | --- | --- | We use **270 N.m** always.",
                     "Forum", credibility=0.1, authority=1)
    draft = generator.draft(TORQUE, [old, forum, new], intent(TORQUE))
    assert "325 N.m" in draft and "[3]" in draft
    assert "[1]" not in draft and "?" not in draft and "---" not in draft and "**" not in draft


def test_reviewer_redirects_a_missing_citation_to_the_current_revision(reviewer):
    old = evidence("rev10#2", "Measure the wear pin with the parking brake set.", "Brake check (Rev 10)",
                   updated=date(2020, 1, 1), series="brake", revision="Rev 10")
    new = evidence("rev13#2", "Measure the wear pin with the parking brake set.", "Brake check (Rev 13)",
                   updated=date(2025, 1, 1), series="brake", revision="Rev 13")
    review = reviewer.review("How to measure?", [old, new], "Measure the wear pin with the parking brake set.")
    assert fixes(review) == [("Measure the wear pin with the parking brake set.",
                              "Measure the wear pin with the parking brake set [2].")]
