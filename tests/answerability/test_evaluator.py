"""The answerability evaluator on general-domain evidence (a city budget, a changelog, a recipe).

Real embedding model and spaCy; the evidence objects are built here, no store.
"""

from __future__ import annotations

from datetime import date

import pytest

from engine.answerability import AnswerabilityEvaluator
from engine.answerability.addresses import unaddressed
from engine.answerability.lead import lead_sentence
from engine.perception import get_perception
from engine.results import AnswerSpan, Evidence, EvidenceMeta

pytestmark = pytest.mark.integration

BUDGET = ("Riverton City Budget 2024", "The Riverton city council adopted the 2024 budget on 12 December 2023. "
          "Total spending is 84.2 million dollars, of which 21.5 million dollars go to public transport. "
          "The library budget rises by 4 percent to 3.1 million dollars.")
CHANGELOG = ("Tablekit changelog", "Version 2.0 was released on 3 March 2025. It removes the legacy CSV exporter "
             "and adds streaming reads. Version 1.4 added support for Python 3.12.")
RECIPE = ("Sourdough notes", "Bake the loaf at 230 degrees C for 20 minutes with the lid on, then 25 minutes "
          "without it. The dough rests overnight in the fridge.")


def evidence(*docs, dated: date | None = None) -> tuple[Evidence, ...]:
    return tuple(Evidence(chunk_id=f"c{i}", doc_id=f"d{i}", knowledge_base="kb", text=text, score=1.0 - i / 10,
                          metadata=EvidenceMeta(title=title, update_date=dated))
                 for i, (title, text) in enumerate(docs))


@pytest.fixture(scope="module")
def judge():
    return AnswerabilityEvaluator()


def ask(judge, question, items):
    return judge.run(question, get_perception().run(question), items)


def test_a_stated_value_is_answerable_with_its_span(judge):
    result = ask(judge, "How much of the Riverton budget goes to public transport?", evidence(BUDGET, RECIPE))
    assert result.verdict == "answerable"
    assert result.span is not None and result.span.value.startswith("21.5 million") and result.span.evidence == 1
    assert result.signals["subject_coverage"] == 1.0 and result.signals["typed_answer"] == 1.0


def test_a_subject_no_document_mentions_is_unanswerable(judge):
    result = ask(judge, "What is the capital of France?", evidence(BUDGET, CHANGELOG, RECIPE))
    assert result.verdict == "unanswerable"
    assert "France" in result.reason and result.closest  # says what is missing and what came closest


def test_an_attribute_the_evidence_never_speaks_of_is_unanswerable(judge):
    result = ask(judge, "What is the police overtime budget of Riverton?", evidence(BUDGET))
    assert result.verdict == "unanswerable"
    assert "overtime" in " ".join(result.missing)


def test_random_letters_are_unanswerable(judge):
    assert ask(judge, "xqzv plorft wubbly", evidence(BUDGET, CHANGELOG)).verdict == "unanswerable"


def test_a_date_question_needs_a_date(judge):
    answered = ask(judge, "When was Tablekit version 2.0 released?", evidence(CHANGELOG, BUDGET))
    assert answered.verdict == "answerable" and answered.span.value == "3 March 2025"


def test_no_evidence_is_unanswerable(judge):
    assert ask(judge, "How long does the sourdough bake?", ()).verdict == "unanswerable"


def test_a_typo_in_a_long_name_still_finds_it(judge):
    result = ask(judge, "How much does the Riverten city council spend in total?", evidence(BUDGET))
    assert result.signals["subject_coverage"] == 1.0



def test_a_name_with_another_number_is_another_name(judge):
    """A typo is forgiven in a name's words, never in its numbers: the Falcon 26 is not the Falcon 23."""
    plane = ("Marlin Falcon 26", "The Marlin Falcon 26 was a training biplane first flown in 1931.")
    result = ask(judge, "When was the Marlin Falcon 23 first flown?", evidence(plane))
    assert result.verdict == "unanswerable" and "Marlin Falcon 23" in result.reason


@pytest.mark.unit
def test_lead_sentence_states_value_subject_and_citation():
    span = AnswerSpan(value="325 N.m", sentence="Torque the nut to 325 N.m.", evidence=2)
    assert lead_sentence("What is the final torque for the A320 axle nut?", span) == \
        "The final torque for the A320 axle nut is 325 N.m [2]."
    assert lead_sentence("How many cracked nuts were found worldwide?", span).endswith(": 325 N.m [2].")


def test_an_answer_without_the_asked_value_does_not_address_the_question():
    items = evidence(BUDGET)
    question = "How much of the Riverton budget goes to public transport?"
    assert unaddressed(question, "Riverton adopted its budget in December [1].", items)
    assert not unaddressed(question, "Public transport gets 21.5 million dollars [1].", items)


def test_a_value_near_the_subject_but_not_said_with_the_asked_attribute_is_no_answer(judge):
    """The only date sits in the film's sentence; the attribute asked ("born") is only in the film's name."""
    film = ("Midnight Born Harvest", '"Midnight Born Harvest" is a drama film released in 2011. Its music was '
            "written by a composer from Lyon.")
    result = ask(judge, 'The music of "Midnight Born Harvest" was written by a composer born in what year?',
                 evidence(film))
    assert result.verdict != "answerable"
    assert result.span is None or result.span.value != "2011"
    stated = ask(judge, 'The music of "Midnight Born Harvest" was written by a composer born in what year?',
                 evidence(film, ("Anne Marcel", "Anne Marcel, the composer of Midnight Born Harvest, was born "
                                                "in 1968 in Lyon.")))
    assert stated.span is not None and stated.span.value == "1968"


def test_a_name_said_without_the_asked_attribute_is_no_answer(judge):
    record = ("Harbour Lights (album)", '"Harbour Lights" is a duet album by Tom Reyes and Clara Reyes. '
              "Clara was expecting her first child during the sessions.")
    result = ask(judge, 'Who was Clara Reyes pregnant with during the sessions of "Harbour Lights"?',
                 evidence(record))
    assert result.span is None or result.span.value != "Tom Reyes"
    assert result.verdict != "answerable"


def test_a_statement_that_never_names_the_asked_kind_of_thing_is_no_answer(judge):
    """"Which tribe ..." is not answered by a sentence about the river that names no tribe."""
    river = ("Kessan River", "The Kessan River flows south for 310 kilometres. The Kessan River was named "
             "by early settlers in 1851 and floods every spring.")
    question = "The Kessan River was named after which local tribe?"
    result = ask(judge, question, evidence(river))
    assert result.verdict == "unanswerable" and "tribe" in result.reason
    named = ask(judge, question, evidence(river, ("Kessan people", "The Kessan are a local tribe of the valley; "
                                                                   "the Kessan River was named after the tribe.")))
    assert named.verdict != "unanswerable"
    assert named.span is not None and "tribe" in named.span.sentence


def test_a_name_said_without_the_relation_or_the_asked_noun_is_no_answer(judge):
    """"... a channel founded by who?": the person must be said with "founded", not be any name nearby."""
    show = ("Pocket Quiz", "Pocket Quiz is a quiz show that airs on Kidwave. The show is hosted by Dana Pike.")
    question = "Pocket Quiz airs on a channel founded by who?"
    result = ask(judge, question, evidence(show))
    assert result.span is None or result.span.value != "Dana Pike"
    assert result.verdict != "answerable"
    founded = ask(judge, question, evidence(show, ("Kidwave", "Kidwave is a children's channel founded by "
                                                              "Margaret Hill in 1999.")))
    assert founded.span is not None and founded.span.value == "Margaret Hill"


def test_a_value_of_a_described_thing_comes_from_that_thing_not_from_the_subject(judge):
    """"... produced by a musician born in what year?": the year of the musician the soundtrack's page names,
    not of another producer whose page names the film."""
    soundtrack = ("Glass Orchard (soundtrack)", 'Glass Orchard: Music from the Film is the soundtrack to the film '
                  '"Glass Orchard", produced by Tomas Brandt.')
    other = ("Lena Fisk", 'Lena Fisk (born 1961) is a film producer who produced "Glass Orchard" and other films.')
    musician = ("Tomas Brandt", "Tomas Brandt (born 1958) is a Danish musician and record producer.")
    question = 'The soundtrack of the film "Glass Orchard" was produced by a musician born in what year?'
    wrong = ask(judge, question, evidence(soundtrack, other))
    assert wrong.verdict == "unanswerable" and "musician" in wrong.reason
    right = ask(judge, question, evidence(soundtrack, other, musician))
    assert right.span is not None and right.span.value == "1958" and right.span.evidence == 3


def test_a_relation_word_inside_a_title_is_not_the_relation(judge):
    """"born in what year" is not answered by the year of a film called "Born to Run Again"."""
    film = ("Glass Orchard", '"Glass Orchard" is a 1996 drama whose music was written by Tomas Brandt.')
    composer = ("Tomas Brandt", 'Tomas Brandt is a Danish composer whose scores include "Born to Run Again" '
                                '(1989) and "Night Train" (1994).')
    question = 'The music of "Glass Orchard" was written by a composer born in what year?'
    result = ask(judge, question, evidence(film, composer))
    assert result.span is None or result.span.value != "1989"
    assert result.verdict == "unanswerable"


CHANGES = ("Changelog", "## [2.4.0] - 2025-05-02\n\n### Fixed\n- Fix a crash when the input is empty.\n\n"
           "## [2.3.1] - 2025-01-20\n\n### Changed\n- Faster start-up.")
README = ("Tabulon", "Tabulon reads tables from text files. Each release is listed in the changelog.")


def test_a_changelog_heading_answers_when_its_version_came_out(judge):
    """The changelog never says "released"; its heading naming the asked version with a date answers the question."""
    question = "When was tabulon version 2.4.0 released?"
    items = evidence(CHANGES, README)
    result = ask(judge, question, items)
    assert result.verdict != "unanswerable" and result.span is not None and result.span.value == "2025-05-02"
    assert not unaddressed(question, "2.4.0: 2025-05-02 [1].", items)
    assert unaddressed(question, "Faster start-up [1].", items)  # no date: not answered
    assert unaddressed(question, "2.3.1: 2025-01-20 [1].", items)  # a date said of another version is no answer
    assert unaddressed(question, "2.4.0: 2025-05-02 [2].", items)  # cited where the words are, the words are due


def test_an_entry_under_the_asked_version_states_what_it_changed_to(judge):
    """"When 2.5.0 upgraded its parser, what version did it move to?": the entry under "## [2.5.0]" holds the
    value; the scene-setting "when" does not make it a date question, and the change is read "to", not "from"."""
    changes = ("Changelog", "## [2.5.0] - 2025-08-01\n\n### Changed\n- Upgrade `fastparse` from `20240110` to "
                            "`20250615`.\n\n## [2.4.0] - 2025-05-02\n\n### Fixed\n- Fix a crash.")
    result = ask(judge, "When tabulon 2.5.0 upgraded fastparse, what version did it move to?", evidence(changes))
    assert result.span is not None and result.span.value == "20250615"


def test_the_offline_draft_states_the_version_date_and_passes_review():
    """The lead restates only words its evidence uses, so the reviewer can verify it (and it answers)."""
    from engine.reflection import OfflineGenerator, OfflineReviewer

    question = "When was tabulon version 2.4.0 released?"
    items = evidence(CHANGES, README)
    draft = OfflineGenerator().draft(question, items, get_perception().run(question))
    lead = draft.split("[1].")[0]
    assert "2025-05-02" in lead and "2.4.0" in lead and "released" not in lead.lower()
    review = OfflineReviewer().review(question, items, draft)
    assert not [i for i in review.issues if i.type in ("fact", "logic")], review.issues


NOTES = ("Changelog", "## [3.1.0] - 2025-06-01\n\n### Removed\n- Drop support for Ruby 2.7 (see issue #4410).\n\n"
         "### Added\n- Add a strict mode to the parser.\n\n## [3.0.2] - 2025-03-11\n\n### Fixed\n"
         "- Fix a leak in the reader, reported in #4388.")


def test_which_release_is_answered_by_the_version_heading_over_the_entry(judge):
    question = "Which release removed support for Ruby 2.7?"
    result = ask(judge, question, evidence(NOTES))
    assert result.span is not None and result.span.value == "3.1.0", result.span
    assert "Ruby 2.7" in result.span.sentence  # the entry that says it, not the heading
    # an issue number in the entry is not a version
    fixed = ask(judge, "Which version fixed the leak in the reader?", evidence(NOTES))
    assert fixed.span is not None and fixed.span.value == "3.0.2", fixed.span


def test_the_offline_draft_leads_with_the_section_version_and_its_entry():
    from engine.reflection import OfflineGenerator, OfflineReviewer

    question = "Which release removed support for Ruby 2.7?"
    items = evidence(NOTES)
    draft = OfflineGenerator().draft(question, items, get_perception().run(question))
    assert draft.startswith("3.1.0: Drop support for Ruby 2.7"), draft
    assert draft.count("Drop support for Ruby 2.7") == 1
    review = OfflineReviewer().review(question, items, draft)
    assert not [i for i in review.issues if i.type in ("fact", "logic")], review.issues


def test_an_in_place_question_needs_its_value_said_with_the_relation_it_asks_through(judge):
    """The year of the film's sentence is said with "score" and "written", but not with "born"."""
    film = ("Lanterns at Dusk", '"Lanterns at Dusk" is a 2009 film; its score was written by the composer Paul Ardent.')
    question = 'The score of "Lanterns at Dusk" was written by a composer born in what year?'
    result = ask(judge, question, evidence(film))
    assert result.span is None or result.span.value != "2009"
    assert result.verdict != "answerable"
    told = ask(judge, question, evidence(film, ("Paul Ardent", "Paul Ardent is a composer, born in 1958 in Leeds.")))
    assert told.span is not None and told.span.value == "1958"


def test_a_price_is_answered_with_its_amount_or_refused():
    from engine.reflection import OfflineGenerator, OfflineReviewer

    pricing = ("Tabulon pricing", "A commercial licence for Tabulon costs $1,500 per year. Community use is free.")
    question = "What is the price of a commercial Tabulon licence?"
    draft = OfflineGenerator().draft(question, evidence(pricing), get_perception().run(question))
    assert "$1,500" in draft.split("[1].")[0]
    review = OfflineReviewer().review(question, evidence(pricing), draft)
    assert not [i for i in review.issues if i.type in ("fact", "logic")], review.issues
    # documents that never state a price do not answer it
    assert AnswerabilityEvaluator().run(question, get_perception().run(question),
                                        evidence(README)).verdict == "unanswerable"


NOTICE = ("Federal notice 2021-0042", "SUMMARY: The agency proposes to supersede directive 2019-23-51, which applies "
          "to all Airbus Model A350-941 and A350-1041 (A350 XWB) airplanes. DATES: Comments must be received by "
          "June 14, 2021. Send comments to Docket No. NA–2021–0042.")


def test_a_maker_and_model_is_named_by_the_model_with_the_maker_elsewhere():
    from engine.reflection.text import names_model

    text = NOTICE[1]
    assert names_model(text, "Airbus A350 XWB")  # "Airbus Model A350-941 ... (A350 XWB)"
    assert not names_model(text, "Airbus A380 XWB")  # another model is another subject
    assert not names_model(text, "Boeing A350 XWB")  # the maker's words must stand in the text
    assert not names_model(text, "A350 XWB Freighter")  # a name that starts with its model is written as it is


def test_a_subject_written_maker_apart_from_model_is_found(judge):
    question = "What does the proposed rule for the Airbus A350 XWB supersede?"
    assert "Airbus A350 XWB" not in ask(judge, question, evidence(NOTICE)).missing


def test_the_answer_must_say_its_value_of_the_asked_docket():
    """A chunk naming the docket is no proof that a date quoted from it is the docket's: the answer says so."""
    from engine.reflection import OfflineReviewer

    question = "By what date must comments on Docket NA-2021-0042 be received?"
    items = evidence(NOTICE)
    said = OfflineReviewer().review(question, items, "Comments on Docket NA-2021-0042 must be received by "
                                                     "June 14, 2021 [1].")
    assert not [i for i in said.issues if i.type == "logic"], said.issues
    bare = OfflineReviewer().review(question, items, "Comments must be received by June 14, 2021 [1]. "
                                                     "They go to Docket No. NA–2021–0042 [1].")
    assert [i for i in bare.issues if i.type == "logic"]
