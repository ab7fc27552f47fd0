"""A window counted back from today is a document date range, unless it is a term of a rule the question asks about."""

from __future__ import annotations

import pytest

from engine.perception import get_perception

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("question", [
    "What recent experience must staff have within the last 24 months to keep their licence?",
    "Which requirements refer to something done within the last 12 months?",
    "How many hours are required within the past 6 months?",
])
def test_a_relative_window_inside_a_rule_is_not_a_document_date_range(question):
    assert get_perception().run(question).constraints.time is None


@pytest.mark.parametrize("question", [
    "What changed in the tenancy rules in the last 12 months?",
    "What did the council decide in the last 6 months?",
])
def test_a_relative_window_on_events_still_filters_documents(question):
    window = get_perception().run(question).constraints.time
    assert window is not None and window.start is not None and window.end is not None
