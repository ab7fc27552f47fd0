"""Weighted reciprocal-rank fusion, credibility and the context budget."""

from __future__ import annotations

from datetime import date

import pytest

from engine.orchestration import Strategy
from engine.orchestration.strategy import CredibilityFormula
from engine.results import Intent, RetrievalTask, TimeConstraint, Constraints
from engine.retrieval import Retriever, TaskRun, allot_budget, credibility, fit_text, recency
from engine.store import SearchHit

pytestmark = pytest.mark.unit
TODAY = date(2026, 12, 2)


def hit(cid: str, text: str = "Some text.", date_: str | None = "2025-01-01", authority: int = 3) -> SearchHit:
    return SearchHit(chunk_id=cid, doc_id=cid.split(":")[0], knowledge_base="kb", text=text, score=1.0, mode="hybrid",
                     title=cid, source="s", update_date=date_, authority=authority, doc_type="manual", page=None,
                     position=0, file_name=f"{cid}.md")


def task(weight: float, priority: int = 0) -> RetrievalTask:
    return RetrievalTask(query="q", search_type="hybrid", knowledge_base="kb", weight=weight, priority=priority)


def fuse(runs, strategy=Strategy(), intent=None):
    retriever = Retriever(store=None, today=lambda: TODAY)  # fuse() never touches the store
    return retriever.fuse(runs, intent or Intent(action="lookup", raw_query="q"), strategy)


def test_weighted_rrf_prefers_chunks_found_by_heavier_and_more_tasks():
    strategy = Strategy(credibility=CredibilityFormula(relevance_share=1.0))
    runs = [TaskRun(task(1.0), (hit("a:1"), hit("b:1")), 1.0), TaskRun(task(3.0), (hit("b:1"), hit("c:1")), 1.0)]
    evidence, candidates, dropped = fuse(runs, strategy)
    assert [e.chunk_id for e in evidence] == ["b:1", "c:1", "a:1"]
    assert candidates == 3 and dropped == 0
    assert evidence[0].found_by == ("T1:hybrid@kb", "T2:hybrid@kb")
    assert evidence[0].weight == 3.0
    assert evidence[0].scores["rrf"] == pytest.approx(1 / 62 + 3 / 61, rel=1e-4)


def test_duplicates_are_merged_by_chunk():
    runs = [TaskRun(task(1.0), (hit("a:1"),), 1.0)] * 3
    evidence, candidates, _ = fuse(runs)
    assert [e.chunk_id for e in evidence] == ["a:1"] and candidates == 1


def test_credibility_breaks_ties_toward_authority_and_recency():
    runs = [TaskRun(task(1.0), (hit("old:1", date_="2015-01-01", authority=1),), 1.0),
            TaskRun(task(1.0), (hit("new:1", date_="2026-06-01", authority=5),), 1.0)]
    evidence, _, _ = fuse(runs)
    assert evidence[0].chunk_id == "new:1"
    assert evidence[0].credibility > evidence[1].credibility


def test_recency_is_relative_to_the_time_constraint():
    formula = CredibilityFormula()
    window = TimeConstraint(text="2023 reports", start=date(2023, 1, 1), end=date(2023, 12, 31))
    assert recency(date(2023, 6, 1), formula, window, TODAY) == 1.0
    assert recency(date(2025, 12, 31), formula, window, TODAY) == pytest.approx(0.5, abs=0.01)
    assert recency(None, formula, window, TODAY) == formula.unknown_date_recency
    assert recency(TODAY, formula, None, TODAY) == 1.0
    assert credibility(1.0, 1.0, 5, TODAY, formula, None, TODAY) == 1.0
    assert credibility(0.0, 1.0, 1, None, formula, None, TODAY) == pytest.approx(0.3 * 0.3)


def test_max_evidence_and_budget_give_more_room_to_credible_evidence():
    long = " ".join(f"Sentence number {i} explains a step." for i in range(80))
    runs = [TaskRun(task(1.0), tuple(hit(f"d{i}:1", long, authority=5 if i == 0 else 1) for i in range(10)), 1.0)]
    strategy = Strategy(max_evidence=4, context_chars=2000)
    evidence, candidates, dropped = fuse(runs, strategy)
    assert len(evidence) == 4 and candidates == 10 and dropped == 6
    assert sum(len(e.text) for e in evidence) <= 2000 + 4 * 2
    by_id = {e.chunk_id: e for e in evidence}
    assert len(by_id["d0:1"].text) > max(len(e.text) for e in evidence if e.chunk_id != "d0:1")
    assert all(e.text.endswith("…") for e in evidence)


def test_budget_helpers():
    assert allot_budget([], 100) == []
    shares = allot_budget([1.0, 0.5, 0.5], 2000)
    assert sum(shares) <= 2000 and shares[0] > shares[1] == shares[2] >= 240
    assert fit_text("Short.", 100) == "Short."
    assert fit_text("First sentence here. Second one is long.", 25) == "First sentence here. …"


def test_no_hits_gives_no_evidence():
    assert fuse([TaskRun(task(1.0), (), 1.0)]) == ([], 0, 0)
