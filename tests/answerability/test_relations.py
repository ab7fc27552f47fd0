"""What a question asks through: its relation word, its asking phrase's head noun, a thing it describes."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

pytestmark = pytest.mark.integration  # spaCy's tagger


def test_an_in_place_question_asks_through_its_relation_word():
    from engine.answerability.relations import asked_relation

    assert asked_relation("The score of the play was written by a composer born in what year?") == "born"
    assert asked_relation("The museum is in a town located in what region?") == "locat"
    assert asked_relation("What is the boiling point of ethanol?") == ""  # asks up front: no relation word
    assert asked_relation("Midnight Born Harvest. Who wrote its music in what year?") == ""  # not one sentence


def test_a_question_asking_who_at_its_end_asks_through_the_word_before():
    from engine.answerability.relations import asked_relation

    assert asked_relation("The quiz show airs on a channel founded by who?") == "found"
    assert asked_relation("The river was first charted when?") == "chart"


def test_a_question_opening_with_its_wh_word_asks_through_its_verb():
    """"Who directed ...?" asks through "directed"; "In what year was the man ... born?" through "born"."""
    from engine.answerability.relations import asked_relation
    from engine.reflection.text import stem

    assert asked_relation("Who directed the film in which the singer made his debut?") == "direct"
    assert asked_relation("In what year was the man that led the expedition born?") == "born"
    assert asked_relation("Who wrote the opera?") == asked_relation("The opera was written by whom?") == stem("writes")
    assert asked_relation("Who is the mayor of Lyon?") == ""  # "is" carries no relation
    assert asked_relation("What is the boiling point of ethanol?") == ""


def test_the_asking_phrase_names_its_head_noun_by_part_of_speech():
    """The phrase runs through adjectives and nouns to its head and stops at the verb after it."""
    from engine.answerability.relations import asked_head

    assert asked_head("The river was named after which Native American tribes?") == "tribes"
    assert asked_head("Which recurring character makes his first appearance in the episode?") == "character"
    assert asked_head("What position did the winner of the award play?") == "position"
    assert asked_head("Maria Lind graduated from what college preparatory boys' school?") == "school"
    assert asked_head("The film was released in what year?") == ""  # names only the answer type
    assert asked_head("What is the boiling point of ethanol?") == ""  # asks up front: "what is", no head
    assert asked_head("Who wrote the song?") == ""


def test_a_thing_the_question_describes_instead_of_naming_is_its_bridge():
    from engine.answerability.relations import bridge_noun

    assert bridge_noun("The score of the play was written by a composer born in what year?") == "composer"
    assert bridge_noun("What was the population of the town where the poet was born?") == "town"
    assert bridge_noun("The quiz show airs on a channel founded by who?") == "channel"
    # the description is what is asked, or describes the named subject: no bridge
    assert bridge_noun("What is the name of the band founded by the two brothers?") == ""
    assert bridge_noun("Harbour Lights is a television series that follows sailors; who presents it?") == ""
    assert bridge_noun("When must the oil level be checked on the A320 compared with the B737?") == ""
    assert bridge_noun("What is the boiling point of ethanol?") == ""


def test_a_question_tagged_ahead_is_tagged_once_and_read_the_same(monkeypatch):
    """The pipeline tags the question while retrieval runs; the check then waits for that Doc, not a second run."""
    from engine.answerability import relations
    from engine.perception import entities

    calls = []
    tagger = entities.load_tagger()
    monkeypatch.setattr(entities, "load_tagger",
                        lambda: lambda text: calls.append((text, threading.current_thread().name)) or tagger(text))
    question = "Which engineer signed the release certificate of the tagged-ahead aircraft?"
    relations.tag_ahead(question)
    relations.tag_ahead(question)  # asked twice before it is read: still tagged once
    doc = relations.tagged(question)
    assert [text for text, _ in calls] == [question]
    assert calls[0][1].startswith("tag-ahead")  # on the background thread
    assert [(t.text, t.pos_) for t in doc] == [(t.text, t.pos_) for t in tagger(question)]
    assert relations.tagged(question) is doc  # and remembered after
    assert relations.asked_head(question) == "engineer"
    assert len(calls) == 1


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_tags_ahead_even_if_the_parent_was_tagging_when_it_forked():
    from engine.answerability import relations

    relations.tagged("What is warmed up before the fork?")  # the tagger is loaded in the parent
    with relations._TAGGER_LOCK:  # the parent's tagging thread holds the lock at the moment of the fork
        pid = os.fork()
        if pid == 0:
            try:
                question = "Which child question is tagged after the fork?"
                relations.tag_ahead(question)
                code = 0 if relations.asked_head(question) == "question" else 1
            except BaseException:  # noqa: BLE001 - any failure is the child's exit code
                code = 2
            os._exit(code)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    pytest.fail("the forked child hung on the tagger's lock")
