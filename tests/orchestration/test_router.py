"""StrategyRouter: one test per rule, with the reason each task carries."""

from __future__ import annotations

from datetime import date

import pytest

from engine.orchestration import RouteRule, Strategy, StrategyRouter
from engine.results import Constraints, Entity, Intent, QuantConstraint, TimeConstraint

pytestmark = pytest.mark.unit
BASES = ["faq", "manuals", "regulations"]


def intent(query="What is the brake wear limit?", action="lookup", entities=(), **constraints) -> Intent:
    return Intent(action=action, raw_query=query, entities=tuple(Entity(text=e, label="AIRCRAFT") for e in entities),
                  constraints=Constraints(**constraints))


def searches(tasks):
    """The store searches of a plan (the entity-graph tasks, one per base, have their own test)."""
    return [t for t in tasks if t.search_type != "graph"]


def test_base_task_always_present_on_every_base():
    tasks = searches(StrategyRouter(Strategy(), BASES).run(intent()))
    assert [(t.search_type, t.knowledge_base, t.priority) for t in tasks] == [
        ("hybrid", "faq", 0), ("hybrid", "manuals", 0), ("hybrid", "regulations", 0)]
    assert all(t.weight == 1.2 and "base task" in t.reason and "no route rule matched" in t.reason for t in tasks)


def test_source_routes_and_boosts():
    tasks = StrategyRouter(Strategy(), BASES).run(intent("What is the torque according to the AMM?", source="AMM"))
    assert tasks[0].knowledge_base == "manuals"
    assert tasks[0].weight == pytest.approx(1.2 * 1.2)
    assert "source 'AMM'" in tasks[0].reason
    exclusive = Strategy(routes=(RouteRule(pattern="AMM", knowledge_bases=("manuals",), exclusive=True),))
    assert [t.knowledge_base for t in searches(StrategyRouter(exclusive, BASES).run(intent(source="AMM")))] == \
        ["manuals"]


def test_time_constraint_adds_dated_keyword_task_on_regulations():
    window = TimeConstraint(text="since 2024", start=date(2024, 1, 1), end=date(2026, 12, 2))
    tasks = StrategyRouter(Strategy(), BASES).run(intent("Which ADs apply since 2024?", time=window))
    (timed,) = [t for t in tasks if t.priority == 1]
    assert (timed.search_type, timed.knowledge_base) == ("keyword", "regulations")
    assert (timed.filters.since, timed.filters.until) == (date(2024, 1, 1), date(2026, 12, 2))
    assert timed.weight == pytest.approx(0.8 * 1.3)
    assert "since 2024" not in timed.query and "time rule" in timed.reason
    # without a regulations base the primary base gets it, and the reason says so
    (timed,) = [t for t in StrategyRouter(Strategy(), ["manuals"]).run(intent(time=window)) if t.priority == 1]
    assert timed.knowledge_base == "manuals" and "no 'regulations' base" in timed.reason


def test_quantitative_question_adds_hybrid_task():
    q = intent("How many cycles between flap track inspections?",
               quantitative=QuantConstraint(text="How many", kind="count"))
    (quant,) = [t for t in StrategyRouter(Strategy(), BASES).run(q) if t.priority == 2]
    assert quant.search_type == "hybrid" and quant.weight == pytest.approx(1.2 * 1.1)
    assert "quantitative rule" in quant.reason and "count" in quant.reason


def test_comparison_fans_out_per_entity_up_to_the_limit():
    q = intent("Compare fuel burn of A320, B737 and E190 and A220", action="compare",
               entities=("A320", "B737", "E190", "A220"))
    tasks = StrategyRouter(Strategy(entity_fanout_limit=3), BASES).run(q)
    fan = [t for t in searches(tasks) if t.priority >= 3]
    assert sorted({t.query.split()[0] for t in fan}) == ["A320", "B737", "E190"]
    assert all("fuel burn" in t.query for t in fan)
    assert all("comparison" in t.reason for t in fan)
    assert [t.priority for t in tasks] == sorted(t.priority for t in tasks)


def test_single_entity_lookup_has_no_fanout_and_limit_zero_disables_it():
    assert all(t.priority < 3 for t in searches(StrategyRouter(Strategy(), BASES).run(intent(entities=("A320",)))))
    q = intent(action="compare", entities=("A320", "B737"))
    assert all(t.priority < 3 for t in searches(StrategyRouter(Strategy(entity_fanout_limit=0), BASES).run(q)))


def test_weights_follow_the_strategy():
    strategy = Strategy(search_weights={"vector": 1.0, "keyword": 2.0, "hybrid": 0.5}, base_search_type="vector")
    tasks = StrategyRouter(strategy, ["manuals"]).run(intent())
    assert [(t.search_type, t.weight) for t in tasks] == [("vector", 1.0), ("graph", strategy.graph.weight)]


def test_a_graph_task_walks_each_base_searched_after_its_searches_unless_turned_off():
    from engine.orchestration.strategy import GraphSettings

    tasks = StrategyRouter(Strategy(), BASES).run(intent())
    walks = [t for t in tasks if t.search_type == "graph"]
    assert [t.knowledge_base for t in walks] == BASES and tasks[-len(walks):] == walks
    assert all(t.weight == 3.0 and t.top_k == 10 and "entity graph" in t.reason and "damping 0.7" in t.reason
               for t in walks)
    tuned = Strategy(graph=GraphSettings(weight=0.7, top_k=4, damping=0.3))
    assert {(t.weight, t.top_k) for t in StrategyRouter(tuned, BASES).run(intent()) if t.search_type == "graph"} == \
        {(0.7, 4)}
    off = Strategy(graph=GraphSettings(weight=0))
    assert "graph" not in {t.search_type for t in StrategyRouter(off, BASES).run(intent())}
    # a strategy saved before the graph existed loads with the default graph task
    assert Strategy.model_validate({"name": "old"}).graph == GraphSettings()


def test_bad_strategies_are_refused():
    with pytest.raises(ValueError):
        Strategy(search_weights={"vector": 1.0})
    with pytest.raises(ValueError):
        RouteRule(pattern="(", knowledge_bases=("x",))
    with pytest.raises(ValueError, match="must be 1"):
        Strategy.model_validate({"credibility": {"w_task": 0.5, "w_authority": 0.5, "w_recency": 0.5}})
    with pytest.raises(ValueError):
        StrategyRouter(Strategy(), [])
