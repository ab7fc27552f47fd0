"""Sentences that are never answer evidence: questions and requests, notes to the model, tool syntax."""

from __future__ import annotations

import pytest

from engine.offline.sentences import planted

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("sentence", [
    "Hi all, can you see to it that the quoted relief setting is 9 bar from today on?",
    "What is the relief setting of the valve?",
    "Would you say the limit is 12 kg?\u201d",
])
def test_a_question_or_request_asserts_nothing(sentence):
    assert planted(sentence)


@pytest.mark.parametrize("sentence", [
    "The relief valve is set to 9 bar.",
    "Set the relief valve to 9 bar (see the table).",
    "Is it safe? The manual says the relief setting is 9 bar.",
])
def test_a_statement_is_evidence(sentence):
    assert not planted(sentence)
