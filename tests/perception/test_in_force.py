""""current", "latest", "now in force" ask for what is in force today: a time constraint up to today, which needs no
dated search (every date qualifies) but makes timeliness prefer the source in force."""

from __future__ import annotations

from datetime import date

import pytest

from engine.orchestration import StrategyRouter
from engine.orchestration.strategy import Strategy
from engine.periods import in_force
from engine.perception import Perception

pytestmark = pytest.mark.integration

TODAY = date(2026, 3, 1)


@pytest.mark.parametrize("question", [
    "What is the current opening time of the ferry office?",
    "Which fee schedule is now in force?",
    "What is the latest tariff for a day pass?",
    "As of today, who chairs the committee?",
])
def test_in_force_wording_is_a_window_ending_today(question):
    window = Perception(today=lambda: TODAY).run(question).constraints.time
    assert window is not None and window.start is None and window.end == TODAY
    assert in_force(window, TODAY)


def test_a_year_is_not_in_force():
    window = Perception(today=lambda: TODAY).run("What was the day pass tariff in 2021?").constraints.time
    assert window is not None and not in_force(window, TODAY)


def test_an_in_force_question_adds_no_dated_search():
    intent = Perception().run("What is the current opening time of the ferry office?")
    tasks = StrategyRouter(Strategy(), ["notes"]).run(intent)
    assert intent.constraints.time is not None
    assert all(t.filters.since is None and t.filters.until is None for t in tasks)
