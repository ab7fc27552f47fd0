"""Which passages only the entity graph's walk found have their rows read: those that could reach the evidence.

``Retriever._could_enter`` decides from the fusion of everything else (``FusionBounds``): a passage's best possible
final score (its reciprocal rank over its base's best, times the base's scale, moved up by the whole credibility
band; lifted to its series' best when it is the newest revision) against the score of the last passage the evidence
keeps. These tests fix the bounds by hand; tests/retrieval/test_graph.py checks on a real store that the evidence is
the same whether the rows are read or not.
"""

from __future__ import annotations

import pytest

from engine.orchestration.strategy import GraphSettings, Strategy
from engine.results import Intent, RetrievalTask, SearchFilters
from engine.retrieval.fusion import FusionBounds, Revision, TaskRun
from engine.retrieval.retriever import Retriever, Walked
from engine.store.schema import SearchHit

QUESTION = "Who designed the bridge over the Corran estuary?"
STRATEGY = Strategy()  # rerank on, rrf_k 60, credibility band as shipped


class Catalogue:
    """The one store call the decision makes: each document's series and date."""

    def __init__(self, revisions: dict[str, tuple[str | None, str | None]]) -> None:
        self._revisions = revisions
        self.calls = 0

    def revisions(self, kb: str):
        self.calls += 1
        return self._revisions


def hit(chunk_id: str, doc_id: str) -> SearchHit:
    return SearchHit(chunk_id=chunk_id, doc_id=doc_id, knowledge_base="wiki", text="...", score=0.03, mode="hybrid",
                     title=doc_id, source=None, update_date=None, authority=3, doc_type=None, page=None, position=0,
                     file_name=None)


def searched(search_type: str = "hybrid", query: str = QUESTION, filters: SearchFilters | None = None) -> TaskRun:
    task = RetrievalTask(query=query, search_type=search_type, knowledge_base="wiki", weight=1.2,
                         filters=filters or SearchFilters())
    return TaskRun(task, (hit("a", "doc-a"),), 1.0)


def walked(weight: float = 3.0) -> Walked:
    task = RetrievalTask(query=QUESTION, search_type="graph", knowledge_base="wiki", weight=weight, priority=10)
    return Walked(task, [("a", "doc-a", 1.0), ("c", "doc-c", 0.4)], {}, {"a": hit("a", "doc-a")},
                  {"a": "doc-a", "c": "doc-c"}, {}, 1.0)


def bounds(kth: float | None, series: dict[str, list[Revision]] | None = None) -> FusionBounds:
    # the base's best fused score: "a", first in both the search (weight 1.2) and the walk (weight 3)
    return FusionBounds(top_rrf={"wiki": 1.2 / 61 + 3 / 61}, scale={"wiki": 1.0}, kth=kth, series=series or {})


def wanted(walk: Walked, runs, fused: FusionBounds, strategy: Strategy = STRATEGY,
           catalogue: Catalogue | None = None) -> list[str]:
    retriever = Retriever(catalogue or Catalogue({"doc-a": (None, None), "doc-c": (None, None)}))
    intent = Intent(action="lookup", raw_query=QUESTION)
    return retriever._could_enter([walk], runs, fused, intent, strategy)[0][id(walk)]


def best_final(walk: Walked) -> float:
    """The highest final score "c" can reach: its reciprocal rank (second in the walk) over the base's best."""
    return walk.task.weight / 62 / (1.2 / 61 + 3 / 61) * (1 + STRATEGY.credibility.credibility_band)


def test_a_passage_below_the_last_one_kept_is_not_read_and_one_above_is():
    walk = walked()
    assert wanted(walk, [searched()], bounds(kth=best_final(walk) * 1.01)) == []
    assert wanted(walk, [searched()], bounds(kth=best_final(walk) * 0.99)) == ["c"]


@pytest.mark.parametrize("case", ["evidence not full", "rerank off", "keyword search only", "another query",
                                  "filtered search", "unknown document"])
def test_every_passage_is_read_where_the_bound_does_not_hold(case):
    walk = walked()
    runs, fused, strategy = [searched()], bounds(kth=best_final(walk) * 10), STRATEGY
    catalogue = None
    if case == "evidence not full":
        fused = bounds(kth=None)
    elif case == "rerank off":
        strategy = STRATEGY.model_copy(update={"graph": GraphSettings(rerank=False)})
    elif case == "keyword search only":  # nothing says the passage is no closer to the question than the best hit
        runs = [searched("keyword")]
    elif case == "another query":
        runs = [searched(query="bridge designer Corran")]
    elif case == "filtered search":
        runs = [searched(filters=SearchFilters(doc_type="manual"))]
    elif case == "unknown document":  # a series is in play and the catalogue does not know the passage's document
        fused = bounds(kth=best_final(walk) * 10, series={"s": [Revision("2024-01-01", 0.9, 0.9, True)]})
        catalogue = Catalogue({"doc-a": (None, None)})
    assert wanted(walk, runs, fused, strategy, catalogue) == ["c"]


def test_a_passage_the_searches_found_is_never_read_again():
    walk = walked()
    runs = [searched(), TaskRun(searched().task, (hit("c", "doc-c"),), 1.0)]
    assert wanted(walk, runs, bounds(kth=0.0)) == []


def test_revisions_of_a_series_are_read_from_the_catalogue():
    walk = walked()
    high = best_final(walk) * 1.5  # the evidence's bar, well above what "c" reaches by its own rank
    older_kept = [Revision("2023-01-01", 0.2, 0.2, False), Revision("2024-01-01", 0.9, 0.9, True)]

    # an older revision than the series' candidates lifts others at most to its own relevance: not read
    catalogue = Catalogue({"doc-c": ("manual", "2022-06-01")})
    assert wanted(walk, [searched()], bounds(high, {"manual": older_kept}), catalogue=catalogue) == []
    assert catalogue.calls == 1

    # the newest revision may be lifted to its series' best relevance (0.9), above the bar: read
    catalogue = Catalogue({"doc-c": ("manual", "2025-01-01")})
    assert wanted(walk, [searched()], bounds(0.9, {"manual": older_kept}), catalogue=catalogue) == ["c"]
    # ... unless even that is below the bar
    assert wanted(walk, [searched()], bounds(0.9 * 2, {"manual": older_kept}), catalogue=catalogue) == []

    # a kept candidate of its series that holds its place by a lift could lose it to the newest revision: read
    lifted = [Revision("2023-01-01", 0.95, 0.95, False), Revision("2024-01-01", 0.1, 0.95, True)]
    assert wanted(walk, [searched()], bounds(high * 100, {"manual": lifted}), catalogue=catalogue) == ["c"]

    # a passage with no series plays no part in lifts, whatever the other candidates' series
    catalogue = Catalogue({"doc-c": (None, "2025-01-01")})
    assert wanted(walk, [searched()], bounds(high, {"manual": lifted}), catalogue=catalogue) == []
