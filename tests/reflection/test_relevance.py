"""The asked code, not a neighbour; old revisions only when asked; one embedding per evidence unit per run."""

from __future__ import annotations

import hashlib
from datetime import date

import numpy as np
import pytest

from engine.offline.generator import OfflineGenerator
from engine.offline.reviewer import OfflineReviewer
from engine.reflection import ReflectionLoop
from engine.embeddings import VectorCache
from engine.offline.support import EvidenceIndex
from engine.language.citations import citations
from tests.reflection.builders import evidence, intent

FAULT = "What does fault code E4027 mean?"
FIM = [
    evidence("fim#1", "Fault Code E3118 - APU OIL LEVEL LOW Meaning: advisory. The APU oil level is at the ADD mark.",
             "Fault isolation manual", updated=date(2024, 5, 20), authority=5),
    evidence("fim#2", "Fault Code E4031 - WHEEL SPEED SIGNAL LOST Meaning: the brake control unit gets no signal "
             "from one wheel speed transducer above 20 kt.", "Fault isolation manual", updated=date(2024, 5, 20)),
    evidence("fim#3", "Code Message E4027 BRK TEMP SENSOR DISAGREE E4031 WHEEL SPEED SIGNAL LOST E3118 APU OIL LEVEL "
             "LOW Fault Code E4027 - BRK TEMP SENSOR DISAGREE Meaning: one brake temperature sensor differs by more "
             "than 150 deg C from the mean of the other brakes on the same gear.", "Fault isolation manual",
             updated=date(2024, 5, 20)),
]
OFF_TOPIC = ("Fault Code E4031 - WHEEL SPEED SIGNAL LOST Meaning: the brake control unit gets no signal from one "
             "wheel speed transducer above 20 kt [2].")
REV10 = evidence("rev10#1", "Final torque: torque the axle nut to 270 N.m while you turn the wheel.",
                 "A320 AMM 32-41-11 (Rev 10)", updated=date(2021, 4, 15), series="amm", revision="Rev 10")
REV12 = evidence("rev12#1", "Final torque: torque the axle nut to 325 N.m while you turn the wheel. Revision history: "
                 "Rev 10 270 N.m, Rev 11 300 N.m, Rev 12 325 N.m.", "A320 AMM 32-41-11 (Rev 12)",
                 updated=date(2025, 3, 3), series="amm", revision="Rev 12", authority=5)


@pytest.fixture(scope="module")
def generator() -> OfflineGenerator:
    # best guesses: these tests check which evidence the answer quotes, not whether the reader is sure enough
    from engine.offline.answerability import ReaderAnswerability

    return OfflineGenerator(reader=ReaderAnswerability(accuracy=0))


@pytest.fixture(scope="module")
def reviewer() -> OfflineReviewer:
    return OfflineReviewer()


@pytest.mark.integration
def test_the_draft_quotes_the_asked_code_and_not_its_neighbours(generator):
    draft = generator.draft(FAULT, FIM, intent(FAULT))
    assert "E4027 - BRK TEMP SENSOR DISAGREE Meaning" in draft and citations(draft) == [3]
    assert "E4031" not in draft and "E3118" not in draft


@pytest.mark.integration
def test_an_answer_about_another_code_gets_a_logic_issue(reviewer):
    review = reviewer.review(FAULT, FIM, OFF_TOPIC)
    assert not review.valid and review.confidence < 0.9
    assert [i.type for i in review.issues] == ["logic"] and "E4027" in review.issues[0].description
    good = "Fault Code E4027 - BRK TEMP SENSOR DISAGREE Meaning: one brake temperature sensor differs [3]."
    assert "logic" not in {i.type for i in reviewer.review(FAULT, FIM, good).issues}


@pytest.mark.integration
def test_the_title_of_the_cited_document_names_the_asked_model(reviewer):
    question = "What is the final torque of the A320 axle nut?"
    review = reviewer.review(question, [REV12], "Final torque: torque the axle nut to 325 N.m while you turn the "
                                                "wheel [1].")
    assert review.valid, review.issues
    other = evidence("b737#1", "Final torque: torque the axle nut to 205 N.m.", "B737 AMM 32-45-11")
    review = reviewer.review(question, [other], "Final torque: torque the axle nut to 205 N.m [1].")
    assert "logic" in {i.type for i in review.issues}


@pytest.mark.integration
def test_revise_replaces_the_neighbour_with_the_asked_code(generator, reviewer):
    review = reviewer.review(FAULT, FIM, OFF_TOPIC)
    revised = generator.revise(FAULT, FIM, OFF_TOPIC, review)
    assert "E4027" in revised and "E4031" not in revised and citations(revised) == [3]
    assert reviewer.review(FAULT, FIM, revised).valid


@pytest.mark.integration
def test_the_loop_refuses_when_no_evidence_names_the_asked_code(generator, reviewer):
    question = "What does fault code E4028 mean?"
    result = ReflectionLoop(generator, reviewer).run(question, FIM, intent(question))
    assert result.status == "refused" and "E4028" in result.refusal_reason


@pytest.mark.integration
def test_an_old_revision_is_quoted_only_when_the_question_asks_for_it(generator, reviewer):
    current = "What is the final torque of the A320 axle nut?"
    draft = generator.draft(current, [REV10, REV12], intent(current))
    assert "325 N.m" in draft and "270" not in draft and 1 not in citations(draft)
    old = "What was the final torque of the A320 axle nut in Rev 10?"
    draft = generator.draft(old, [REV10, REV12], intent(old))
    first = draft.split(" [1]")[0]
    assert "270 N.m" in first and "325" not in first and citations(draft)[0] == 1
    assert reviewer.review(old, [REV10, REV12], "Torque the axle nut to 270 N.m [1].").valid
    assert not reviewer.review(current, [REV10, REV12], "Torque the axle nut to 270 N.m [1].").valid


@pytest.mark.integration
def test_a_figure_listed_only_in_a_revision_history_is_not_current(reviewer):
    review = reviewer.review("What is the final torque of the A320 axle nut?", [REV12],
                             "The final torque of the axle nut is 300 N.m [1].")
    assert not review.valid and [i.type for i in review.issues] == ["fact"]
    assert [(c.original, c.corrected) for c in review.corrections] == [("300 N.m", "325 N.m")]


class _CountingEmbedder:
    """Deterministic bag-of-words vectors; records every text it is asked to embed."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def encode(self, texts):
        self.calls.append(list(texts))
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                out[row, int(hashlib.md5(word.encode()).hexdigest(), 16) % 64] += 1.0
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


@pytest.mark.unit
def test_generator_and_reviewer_share_one_cache_and_embed_each_unit_once():
    embedder = _CountingEmbedder()
    generator, reviewer = OfflineGenerator(embedder), OfflineReviewer(embedder)
    assert generator.cache is reviewer.cache is VectorCache.shared(embedder)
    units = EvidenceIndex.texts(FIM + [REV10, REV12])
    loop = ReflectionLoop(generator, reviewer)
    result = loop.run(FAULT, FIM + [REV10, REV12], intent(FAULT))
    loop.run(FAULT, FIM + [REV10, REV12], intent(FAULT))
    assert result.reviews
    embedded = [text for call in embedder.calls for text in call]
    assert all(embedded.count(text) == 1 for text in set(embedded)), "a text was embedded twice"
    assert set(units) <= set(embedder.calls[0]), "the evidence units are embedded in the first, single batch"


# A lead that labels its value with the question's own words, and a subject named elsewhere in the cited document
HARBOUR = [
    evidence("harbour-order#1", "SUMMARY: The board proposes to amend Order 2019-44, which applies to all Kestrel 400 "
             "ferries of the harbour fleet.", "Harbour Board notice"),
    evidence("harbour-order#7", "Costs of Compliance The board estimates that this proposed order affects 12 vessels "
             "of local registry.", "Harbour Board notice"),
    evidence("tug-bulletin#2", "In addition, Tug Bulletin 400-27-1318, Revision 1, dated June 24, 2020, specifies "
             "reporting any deviations to the yard.", "Tug bulletin"),
]
HARBOUR_Q = "How many locally registered vessels does the board estimate would be covered by the proposed Kestrel 400 order?"


@pytest.mark.integration
def test_the_question_s_own_words_in_a_lead_are_not_claims_to_back(reviewer):
    answer = (f"{HARBOUR_Q.rstrip('?')}: 12 [2]. Costs of Compliance The board estimates that this proposed order "
              "affects 12 vessels of local registry [2].")
    issues = reviewer.review(HARBOUR_Q, HARBOUR, answer).issues
    assert [i for i in issues if i.type == "fact"] == [], issues
    # the value after the label is still checked: a wrong one is a fact issue
    wrong = (f"{HARBOUR_Q.rstrip('?')}: 19 [2]. Costs of Compliance The board estimates that this proposed order "
             "affects 12 vessels of local registry [2].")
    assert any(i.type == "fact" and "19" in i.description for i in reviewer.review(HARBOUR_Q, HARBOUR, wrong).issues)


@pytest.mark.integration
def test_a_subject_named_in_another_passage_of_the_cited_document_counts_as_named(reviewer):
    from engine.offline.reviewer import unaddressed

    answer = "12 [2]. The board estimates that this proposed order affects 12 vessels of local registry [2]."
    assert unaddressed(HARBOUR_Q, answer, HARBOUR) == []
    # a passage of another document does not lend its subjects
    assert unaddressed(HARBOUR_Q, answer, [HARBOUR[1], HARBOUR[2]]) != []


NOVEL = [
    evidence("novel#1", "Saltmarsh Hymns is a 2009 novel written by Oriane Vasseur.", "Saltmarsh Hymns"),
    evidence("vasseur#1", "Oriane Vasseur read philosophy at the University of Quillmoor.", "Oriane Vasseur"),
]
NOVEL_Q = "Where did the author of Saltmarsh Hymns study?"


@pytest.mark.unit
def test_a_passage_reached_through_a_name_in_another_passage_is_said_of_that_passage_s_subject():
    from engine.offline.reviewer import unaddressed
    from engine.offline.sentences import bridges
    from engine.results import Hop

    answer = "At the University of Quillmoor [2]."
    assert unaddressed(NOVEL_Q, answer, NOVEL) != []  # a passage alone does not name the novel
    reached = NOVEL[1].model_copy(update={"hop": Hop(mention="Oriane Vasseur", from_chunk="novel#1")})
    assert bridges([NOVEL[0], reached]) == {2: 1}
    assert unaddressed(NOVEL_Q, answer, [NOVEL[0], reached]) == []
    # the link hop's passages are bridges too; a hop from a passage not among the evidence bridges nothing
    linked = NOVEL[1].model_copy(update={"scores": {"linked_from": 1.0}})
    assert bridges([NOVEL[0], linked]) == {2: 1} and unaddressed(NOVEL_Q, answer, [NOVEL[0], linked]) == []
    stray = NOVEL[1].model_copy(update={"hop": Hop(mention="Oriane Vasseur", from_chunk="elsewhere#3")})
    assert bridges([NOVEL[0], stray]) == {} and unaddressed(NOVEL_Q, answer, [NOVEL[0], stray]) != []
