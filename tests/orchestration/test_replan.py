"""After a failed validation the plan changes in the direction of the failed check, and says how."""

from __future__ import annotations

from datetime import date

import pytest

from engine.orchestration import Strategy, StrategyRouter
from engine.pipeline.replan import adjust_plan
from engine.results import Constraints, Entity, Intent, TimeConstraint, Validation, ValidationIssue

pytestmark = pytest.mark.unit
WINDOW = TimeConstraint(text="2023 reports", start=date(2023, 1, 1), end=date(2023, 12, 31))


def plan(intent: Intent, strategy: Strategy = Strategy()):
    return StrategyRouter(strategy, ["manuals", "regulations"]).run(intent)


def failed(*checks: str, message: str = "problem") -> Validation:
    return Validation(is_valid=False, issues=tuple(ValidationIssue(check=c, message=message) for c in checks))


def test_timeliness_failure_adds_the_date_filter_and_raises_recency():
    intent = Intent(action="lookup", raw_query="Fuel burn in 2023 reports?", constraints=Constraints(time=WINDOW))
    strategy = Strategy()
    tasks, new_strategy, changes = adjust_plan(plan(intent), failed("timeliness"), intent, strategy)
    base = [t for t in tasks if t.priority == 0]
    # from the window's start only: a report about 2023 is published in 2024 and must stay findable
    assert base and all((t.filters.since, t.filters.until) == (WINDOW.start, None) for t in base)
    f = new_strategy.credibility
    assert f.w_recency > strategy.credibility.w_recency
    assert f.w_task + f.w_authority + f.w_recency == pytest.approx(1.0)
    assert any("date filter" in c for c in changes) and any("recency" in c for c in changes)


def test_a_window_open_at_its_start_keeps_its_end():
    before_2020 = TimeConstraint(text="before 2020", end=date(2019, 12, 31))
    intent = Intent(action="lookup", raw_query="Which torque applied before 2020?",
                    constraints=Constraints(time=before_2020))
    tasks, _, changes = adjust_plan(plan(intent), failed("timeliness"), intent, Strategy())
    assert all((t.filters.since, t.filters.until) == (None, before_2020.end) for t in tasks if t.priority == 0)
    assert "date filter ... to 2019-12-31 added to the base tasks" in changes


def test_comparison_failure_adds_keyword_tasks_for_the_missing_entity():
    intent = Intent(action="compare", raw_query="Compare tyre pressure of A320 and B737",
                    entities=(Entity(text="A320", label="AIRCRAFT"), Entity(text="B737", label="AIRCRAFT")))
    before = plan(intent)
    tasks, _, changes = adjust_plan(before, failed("comparison", message="No evidence mentions 'B737'."), intent,
                                    Strategy())
    added = [t for t in tasks if t not in before]
    assert added and all(t.search_type == "keyword" and t.query.startswith("B737") for t in added)
    assert {t.knowledge_base for t in added} == {"manuals", "regulations"}
    assert all("B737" in t.reason for t in added) and changes == ["keyword tasks added for B737"]


def test_citation_failure_widens_the_search():
    intent = Intent(action="lookup", raw_query="What is the brake wear limit?")
    before = plan(intent)
    tasks, new_strategy, changes = adjust_plan(before, failed("citation"), intent, Strategy())
    assert [t.top_k for t in tasks] == [2 * t.top_k for t in before]
    assert new_strategy.max_evidence == Strategy().max_evidence + 4
    assert changes == ["k doubled per task and evidence limit raised by 4"]
