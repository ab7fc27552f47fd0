"""Follow-up questions resolved against the previous question, and questions that must be left as asked."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from engine.errors import ConfigError
from engine.perception import DEFAULT_RULES_PATH, Perception
from engine.perception.followup import resolve_followup

pytestmark = pytest.mark.integration

TORQUE = "What is the final torque for the A320 main wheel axle nut?"
FUEL = "Compare the fuel efficiency of A320 and B737, focusing on data from 2023 reports."
BURN = "What is the fuel burn of the A320?"
AD = "What does AD 2020-18-05 require?"


@pytest.fixture(scope="module")
def perception() -> Perception:
    return Perception(today=lambda: date(2026, 12, 2))


@pytest.mark.parametrize(("previous", "question", "expected"), [
    # an entity swapped for one of the same kind
    (TORQUE, "And on the 737?", "What is the final torque for the 737 main wheel axle nut?"),
    (TORQUE, "What about the B737?", "What is the final torque for the B737 main wheel axle nut?"),
    (TORQUE, "How about the A321?", "What is the final torque for the A321 main wheel axle nut?"),
    (TORQUE, "Same for the 737?", "What is the final torque for the 737 main wheel axle nut?"),
    (TORQUE, "737?", "What is the final torque for the 737 main wheel axle nut?"),
    (TORQUE, "And what is it for the B737?", "What is the final torque for the B737 main wheel axle nut?"),
    (TORQUE, "Is it the same for the 737?", "What is the final torque for the 737 main wheel axle nut?"),
    # a date swapped for the date, keeping the words around it
    (FUEL, "and for 2022?", "Compare the fuel efficiency of A320 and B737, focusing on data from 2022 reports."),
    # nothing of the same kind to swap: appended after the preposition it was asked with
    (BURN, "and for 2023?", "What is the fuel burn of the A320 for 2023?"),
    (BURN, "And how much for 2023?", "What is the fuel burn of the A320 for 2023?"),
    (BURN, "And since 2020?", "What is the fuel burn of the A320 since 2020?"),
    (TORQUE, "And on the 737 in 2023?", "What is the final torque for the 737 main wheel axle nut in 2023?"),
])
def test_follow_ups_are_resolved(perception, previous, question, expected):
    resolved = resolve_followup(question, previous, perception)
    assert resolved.text == expected
    assert resolved.is_followup and resolved.resolved_from == previous
    assert resolved.explanation.startswith("follow-up to the previous question")


def test_the_explanation_names_the_swap_and_the_addition(perception):
    assert resolve_followup("And on the 737?", TORQUE, perception).explanation.endswith("A320 → 737")
    assert resolve_followup("and for 2023?", BURN, perception).explanation.endswith("added “for 2023”")


@pytest.mark.parametrize(("previous", "question", "why"), [
    # a question with its own subject is answered as asked, even after "and"
    (TORQUE, "And what is the torque for the B737?", "names its own subject (torque)"),
    (TORQUE, "What does fault code E4027 mean?", "names its own subject"),
    # a full question of its own that does not refer back ("it", "same") stands alone
    (AD, "What is AD 2024-11-02?", "asks a full question"),
    (AD, "And what is AD 2024-11-02?", "asks a full question"),
    # long, with no opening such as "and"
    (TORQUE, FUEL, "not short"),
    # nothing to carry over
    (TORQUE, "What about the nose wheel?", "names no entity or date"),
    (TORQUE, "And why?", "names no entity or date"),
])
def test_questions_that_stand_alone_are_left_as_asked(perception, previous, question, why):
    resolved = resolve_followup(question, previous, perception)
    assert resolved.text == question and not resolved.is_followup
    assert why in resolved.explanation


def test_no_previous_question_means_nothing_to_resolve(perception):
    for previous in (None, "", "   "):
        resolved = resolve_followup("And on the 737?", previous, perception)
        assert resolved.text == "And on the 737?" and resolved.resolved_from is None
    assert not resolve_followup(TORQUE, TORQUE, perception).is_followup


def test_naming_the_same_entity_again_asks_the_previous_question_again(perception):
    resolved = resolve_followup("And on the A320?", TORQUE, perception)
    assert resolved.text == TORQUE and resolved.is_followup


def test_follow_up_rules_come_from_the_rules_file(tmp_path: Path):
    text = DEFAULT_RULES_PATH.read_text(encoding="utf-8").replace("max_words = 8", "max_words = 0")
    path = tmp_path / "rules.toml"
    path.write_text(text, encoding="utf-8")
    strict = Perception(path, use_ner=False)
    assert strict.rules.followup.max_words == 0
    assert resolve_followup("737?", TORQUE, strict).text == "737?"  # no lead, and short questions are not enough
    assert resolve_followup("And on the 737?", TORQUE, strict).text.startswith("What is the final torque for the 737")
    path.write_text(text.replace("max_words = 0", "max_words = -1"), encoding="utf-8")
    with pytest.raises(ConfigError, match="followup.max_words"):
        Perception(path, use_ner=False)
