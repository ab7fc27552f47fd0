"""The reader's verdict over hand-made evidence: the asked value leads, a silent corpus is refused with a true
reason, a superseded revision never answers, and sources of equal standing that disagree are both named."""

from __future__ import annotations

from datetime import date

import pytest

from engine.offline.answerability import ReaderAnswerability
from engine.offline.generator import OfflineGenerator
from engine.results import Evidence, EvidenceMeta, Intent, TimeConstraint

pytestmark = pytest.mark.integration


def item(n: int, text: str, title: str, **meta) -> Evidence:
    return Evidence(chunk_id=f"d{n}:0001", doc_id=f"d{n}", knowledge_base="kb", text=text, score=1.0 / n,
                    metadata=EvidenceMeta(title=title, **meta))


HALL = [
    item(1, "Ferris Hall is a concert venue in Marlow. It was designed by the architect Imani Osei and opened "
            "in 1932. The main auditorium seats 1,140 people.", "Ferris Hall"),
    item(2, "Marlow is a market town on the river Wend. Its railway station opened in 1871.", "Marlow"),
    item(3, "Imani Osei (1889-1961) was an architect known for theatres and libraries.", "Imani Osei"),
]


@pytest.fixture(scope="module")
def reader() -> ReaderAnswerability:
    """The shipped decision at its default target accuracy."""
    return ReaderAnswerability()


@pytest.fixture(scope="module")
def guesses() -> ReaderAnswerability:
    """Best guesses: the best candidate whatever its confidence, to test which value the reader picks."""
    return ReaderAnswerability(accuracy=0)


def ask(reader, question, evidence, **intent):
    return reader.run(question, Intent(action="lookup", raw_query=question, **intent), evidence)


def test_a_question_the_evidence_answers_gets_its_value_and_a_confidence(guesses):
    judged = ask(guesses, "Who designed Ferris Hall?", HALL)
    assert judged.verdict == "answerable", judged.reason
    assert judged.span is not None and "Imani Osei" in judged.span.value and judged.span.evidence == 1
    assert judged.confidence is not None and judged.threshold is not None and judged.confidence >= judged.threshold
    assert judged.candidates and judged.candidates[0].value == judged.span.value
    assert judged.features and "top_probability" in judged.features  # kept for calibration and the trace


def test_the_answer_leads_with_the_value(guesses):
    question = "How many people does the main auditorium of Ferris Hall seat?"
    judged = ask(guesses, question, HALL)
    draft = OfflineGenerator().draft(question, HALL, Intent(action="lookup", raw_query=question), judged)
    first = draft.split("[1]")[0]
    assert "1,140" in first, draft


def test_a_subject_no_document_mentions_is_refused_with_that_reason(reader):
    judged = ask(reader, "Who designed the Kestrel Valley viaduct?", HALL)
    assert judged.verdict == "unanswerable"
    assert "Kestrel Valley" in judged.reason and "no retrieved document mentions" in judged.reason.lower()


def test_a_subject_written_another_way_is_not_called_missing(guesses):
    evidence = [item(1, "The U.S. registry lists 212 vessels of the class.", "Registry")]
    judged = ask(guesses, "How many vessels does the US registry list?", evidence)
    assert "US" not in judged.missing


def test_a_superseded_revision_never_answers(reader):
    old = item(1, "Tighten the flange bolts to 40 N.m.", "Pump manual", series="pump", revision="Rev 2",
               update_date=date(2020, 1, 1), authority=4)
    new = item(2, "Tighten the flange bolts to 45 N.m.", "Pump manual", series="pump", revision="Rev 3",
               update_date=date(2024, 1, 1), authority=4)
    question = "What torque are the flange bolts tightened to?"
    judged = ask(reader, question, [old, new],
                 constraints={"time": TimeConstraint(text="current", end=date(2026, 1, 1))})
    assert judged.span is not None and judged.span.evidence == 2
    assert "45" in (judged.span.value or judged.span.sentence)  # the value, or the sentence stating it
    assert all("40" not in c.value for c in judged.candidates)


def test_an_older_weaker_source_is_named_as_superseded_not_chosen(guesses):
    note = item(1, "The flange bolts are tightened to 40 N.m.", "Workshop note", update_date=date(2019, 5, 1),
                authority=2)
    manual = item(2, "The flange bolts are tightened to 45 N.m.", "Pump manual", update_date=date(2024, 3, 1),
                  authority=5)
    judged = ask(guesses, "What torque are the flange bolts tightened to?", [note, manual])
    assert judged.span is not None and "45" in judged.span.value
    assert any("40" in c.value and c.note for c in judged.conflicts)


def test_sources_of_equal_standing_that_disagree_are_both_named_and_neither_chosen(guesses):
    first = item(1, "The relief valve of the boiler opens at 3.0 bar.", "Boiler guide", update_date=date(2024, 3, 1),
                 authority=3)
    second = item(2, "The relief valve of the boiler opens at 3.5 bar.", "Boiler notes", update_date=date(2024, 3, 1),
                  authority=3)
    question = "At what pressure does the boiler relief valve open?"
    judged = ask(guesses, question, [first, second])
    assert judged.verdict == "ambiguous", judged.reason
    draft = OfflineGenerator().draft(question, [first, second], Intent(action="lookup", raw_query=question), judged)
    lead = draft.split(". ")[0]
    assert lead.startswith("The sources disagree") and "3.0 bar" in lead and "3.5 bar" in lead, draft
    assert "[1]" in draft and "[2]" in draft
    # neither sentence is quoted: one of two disagreeing sentences may be planted text addressed to whoever answers
    assert "relief valve" not in draft, draft


def test_the_reviewer_checks_each_attributed_value_against_the_source_it_names():
    from engine.offline.reviewer import OfflineReviewer

    first = item(1, "The relief valve of the boiler opens at 3.0 bar.", "Boiler guide")
    second = item(2, "The relief valve of the boiler opens at 3.5 bar.", "Boiler notes")
    reviewer = OfflineReviewer()
    right = "The sources disagree: [1] gives 3.0 bar and [2] gives 3.5 bar [1, 2]."
    assert reviewer.review("At what pressure does the relief valve open?", [first, second], right).valid
    swapped = "The sources disagree: [1] gives 3.5 bar and [2] gives 3.0 bar [1, 2]."
    review = reviewer.review("At what pressure does the relief valve open?", [first, second], swapped)
    assert not review.valid and any("[1] does not give 3.5 bar" in i.description for i in review.issues)


def test_another_source_stating_another_value_for_the_subject_is_named_even_when_phrased_unlike_the_question(guesses):
    same = {"update_date": date(2024, 3, 1), "authority": 2}
    evidence = [
        item(1, "Steam boiler B-2 service sheet. The relief valve of steam boiler B-2 opens at 6.5 bar. Drain the "
                "gauge glass weekly.", "Boiler B-2 service sheet", **same),
        item(2, "Plant safety summary. After the survey the relief valve of steam boiler B-2 was reset by the "
                "insurer's engineer; a tag on the valve reads 9 bar. Fire drills are held each quarter.",
             "Plant safety summary", **same),
    ]
    question = "What pressure does the relief valve of steam boiler B-2 open at?"
    judged = ask(guesses, question, evidence)
    assert judged.verdict == "ambiguous", judged.reason
    draft = OfflineGenerator().draft(question, evidence, Intent(action="lookup", raw_query=question), judged)
    assert draft.startswith("The sources disagree") and "6.5 bar" in draft and "9 bar" in draft, draft


def test_a_figure_is_shown_with_the_equivalent_beside_it_in_the_answer_the_reason_and_the_candidates(guesses):
    evidence = [item(1, "Tighten the pump flange bolts to a final torque of 85 N.m (63 lbf.ft) in a cross pattern.",
                     "Pump flange")]
    judged = ask(guesses, "What is the final torque of the pump flange bolts?", evidence)
    assert judged.span is not None and judged.span.value == "85 N.m (63 lbf.ft)", judged.span
    assert "'85 N.m (63 lbf.ft)'" in judged.reason
    for candidate in judged.candidates:
        assert ("lbf.ft" in candidate.value) == ("N.m" in candidate.value), candidate.value
