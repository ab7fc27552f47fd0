"""Questions that name the asked thing by a noun ("what station", "which Canadian actress") and questions that ask
in place ("X graduated from what school?"): typed by the head noun, answered by putting the value in its place."""

from __future__ import annotations

import pytest

from engine.answerability.addresses import unaddressed
from engine.answerability.lead import lead_sentence
from engine.answerability.question import QuestionFocus, answer_type, wh_phrase
from engine.results import AnswerSpan, Evidence, EvidenceMeta


@pytest.mark.parametrize("question, kind", [
    ("The ferry crossed the bay to which harbour town?", "place"),
    ("The novel was printed by what small independent publisher?", "organisation"),
    ("The mural was painted by which Mexican artist?", "person"),
    ("What radio station first played the song?", "organisation"),
    ("The composer wrote music for what television series?", "work"),
    ("In which decade did the mill close?", "date"),
    ("What colour is the livery?", "other"),
    ("Which of the two bridges is longer?", "other"),
])
def test_the_head_noun_names_the_answer_type(question, kind):
    assert answer_type(question) == kind


def test_wh_phrase_spans_modifiers_up_to_the_head_noun():
    question = "The mural was painted by which Mexican artist?"
    start, end, head = wh_phrase(question)
    assert question[start:end] == "which Mexican artist" and head == "artist"


def _span(value: str) -> AnswerSpan:
    return AnswerSpan(value=value, sentence="", evidence=2, chunk_id="c2")


def test_a_question_asked_in_place_is_answered_in_place():
    assert lead_sentence("The mural was painted by which Mexican artist?", _span("Diego Rivera")) == \
        "The mural was painted by Diego Rivera [2]."
    # A question that opens with its wh-phrase is turned round as before.
    assert lead_sentence("Which Danish company designed the bridge?", _span("Cowi")) == \
        "The Danish company that designed the bridge is Cowi [2]."
    assert not lead_sentence("In what year was the mill built?", _span("1850")).startswith("In 1850")
    # Asked up front, with a second part naming a "which ..." phrase: not an in-place question.
    assert "and 14 replaces" not in lead_sentence(
        "How many nuts cracked worldwide, and which part number replaces the old nut?", _span("14"))


def _evidence(title: str, text: str) -> Evidence:
    return Evidence(chunk_id="c1", doc_id="d1", knowledge_base="kb", text=text, score=1.0,
                    metadata=EvidenceMeta(title=title, file_name="a.md"))


def test_attribute_words_the_cited_evidence_never_uses_are_not_required():
    focus = QuestionFocus("organisation", ("Ann Lee",), ("graduat", "colleg", "preparatory", "boy", "school"),
                          ("graduated", "college", "preparatory", "boys", "school"))
    evidence = [_evidence("Ann Lee", "She attended the village school and graduated from Hebron Academy.")]
    question = "Ann Lee graduated from what college preparatory boys' school?"
    assert unaddressed(question, "Ann Lee graduated from Hebron Academy [1].", evidence, focus=focus) == []
    # Still wrong when the sentence with the value says nothing of what was asked.
    assert unaddressed(question, "Hebron Academy has a library [1].", evidence, focus=focus)
