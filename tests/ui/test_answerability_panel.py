"""The Answerability panel says what the decision was: the confidence against the bar, or that no confidence is
enough at the chosen target, and the best candidate with its source."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

pytestmark = pytest.mark.unit


def _script(threshold, target, verdict):
    from components.answerability_view import render_answerability
    from engine.results import AnswerCandidate, AnswerFocus, Answerability, AnswerSpan

    render_answerability(Answerability(
        verdict=verdict, focus=AnswerFocus(answer_type="quantity", subjects=("A320",)), reason="r",
        confidence=0.29, threshold=threshold, target_accuracy=target, selector="default",
        span=AnswerSpan(value="325 N.m", sentence="Torque to 325 N.m.", evidence=2),
        candidates=(AnswerCandidate(value="325 N.m", probability=0.29, evidence=2),)), "refused")


def _panel(threshold: float, target: float | None, verdict: str = "unanswerable"):
    return AppTest.from_function(_script, kwargs={"threshold": threshold, "target": target, "verdict": verdict}).run()


def _progress_text(at) -> str:
    return " ".join(p.proto.text for p in at.get("progress")).replace("\\", "")  # Markdown escapes dropped


def test_a_target_no_confidence_reaches_is_said_in_words():
    at = _panel(1.01, 0.8)
    assert not at.exception
    text = _progress_text(at)
    assert "Confidence 29%" in text and "no confidence is enough at this target" in text and "101%" not in text
    assert any("325 N.m [2]" in c.value.replace("\\", "") for c in at.caption)


def test_a_reachable_bar_is_shown_as_a_percentage():
    at = _panel(0.62, 0.6)
    assert "answers need 62% (target accuracy 60%)" in _progress_text(at)
