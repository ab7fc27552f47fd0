"""Weighted reciprocal-rank fusion, credibility and the context budget."""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import date

import numpy as np
import pytest

from engine.orchestration import Strategy
from engine.orchestration.strategy import CredibilityFormula
from engine.results import Intent, RetrievalTask, TimeConstraint, Constraints
from engine.retrieval import Retriever, TaskRun, allot_budget, credibility, fit_text, recency
from engine.store import SearchHit

pytestmark = pytest.mark.unit
TODAY = date(2026, 12, 2)


def hit(cid: str, text: str = "Some text.", date_: str | None = "2025-01-01", authority: int = 3, kb: str = "kb",
        vector: tuple[float, ...] | None = None) -> SearchHit:
    return SearchHit(chunk_id=cid, doc_id=cid.split(":")[0], knowledge_base=kb, text=text, score=1.0, mode="hybrid",
                     title=cid, source="s", update_date=date_, authority=authority, doc_type="manual", page=None,
                     position=0, file_name=f"{cid}.md", vector=vector)


def task(weight: float, priority: int = 0, kb: str = "kb") -> RetrievalTask:
    return RetrievalTask(query="q", search_type="hybrid", knowledge_base=kb, weight=weight, priority=priority)


def fuse(runs, strategy=Strategy(), intent=None, question=None):
    retriever = Retriever(store=None, today=lambda: TODAY)  # fuse() never touches the store
    return retriever.fuse(runs, intent or Intent(action="lookup", raw_query="q"), strategy, question)


def towards(similarity: float) -> tuple[float, float]:
    """A unit vector whose cosine with QUESTION is ``similarity``."""
    return (similarity, math.sqrt(1 - similarity ** 2))


QUESTION = np.array([1.0, 0.0])


def test_weighted_rrf_prefers_chunks_found_by_heavier_and_more_tasks():
    strategy = Strategy(credibility=CredibilityFormula(credibility_band=0.0))
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
    assert credibility(0.0, 1.0, 1, None, formula, None, TODAY) == pytest.approx(0.3 * 0.5)


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


def test_a_cut_chunk_keeps_its_own_beginning_so_its_sentences_read_as_the_stored_ones():
    """Line breaks and headings stay: the check splits the cut text into the sentences stored for the chunk (and
    finds their vectors), where a text rejoined with single spaces read "Purpose This advisory circular ..."."""
    from engine.language.layout import read_sentences

    text = ("# AC 121-OIL-1\n\n## 1. Purpose\n\nThis circular gives guidance on oil consumption monitoring.\n"
            "Operators should trend consumption per engine.\n\n## 2. Limits\n\nThe alert level is 80 % of the "
            "maximum consumption published in the AMM for each engine type.")
    cut = fit_text(text, 120)
    assert cut.endswith(" …") and cut.startswith("# AC 121-OIL-1\n\n## 1. Purpose\n\nThis circular")
    assert text.startswith(cut.removesuffix(" …"))
    stored, kept = read_sentences(text), read_sentences(cut)
    assert kept[:-1] == stored[: len(kept) - 1] and len(kept) >= 3


def test_no_hits_gives_no_evidence():
    assert fuse([TaskRun(task(1.0), (), 1.0)]) == ([], 0, 0)


# -- relevance dominates; credibility breaks near-ties only ------------------------------------------------


def test_credibility_moves_a_score_by_at_most_the_band():
    formula = CredibilityFormula(credibility_band=0.05)
    assert formula.fuse(0.8, 0.5) == 0.8  # neutral credibility keeps the relevance
    assert formula.fuse(0.8, 1.0) == pytest.approx(0.84) and formula.fuse(0.8, 0.0) == pytest.approx(0.76)
    assert CredibilityFormula(credibility_band=0.0).fuse(0.8, 1.0) == 0.8


def test_the_most_credible_evidence_cannot_overtake_clearly_more_relevant_evidence():
    """Rank 1 of a search, undated and default authority, against ranks 8.. of authority-5 documents dated today."""
    undated = hit("upload:1", date_=None, authority=3)
    padding = tuple(hit(f"pad{i}:1") for i in range(1, 7))
    official = tuple(hit(f"official{i}:1", date_=TODAY.isoformat(), authority=5) for i in range(7, 20))
    runs = [TaskRun(task(1.0), (undated,), 1.0), TaskRun(task(1.0), padding + official, 1.0)]
    order = [e.chunk_id for e in fuse(runs, Strategy(max_evidence=50))[0]]
    assert all(order.index("upload:1") < order.index(f"official{i}:1") for i in range(7, 20))


def test_unknown_dates_and_default_authority_are_neutral():
    formula = CredibilityFormula()
    assert recency(None, formula, None, TODAY) == 0.5
    assert credibility(1.0, 1.0, 3, None, formula, None, TODAY) == pytest.approx(0.3 + 0.4 * 0.5 + 0.3 * 0.5)
    upload = hit("upload:1", date_=None, authority=3)
    evidence, _, _ = fuse([TaskRun(task(1.0), (upload,), 1.0)], Strategy(credibility=CredibilityFormula(w_task=0.0,
                                                                                  w_authority=0.5, w_recency=0.5)))
    assert evidence[0].credibility == 0.5 and evidence[0].score == evidence[0].scores["relevance"] == 1.0


def test_a_base_whose_best_chunk_is_closest_to_the_question_comes_first():
    """Each base's rank 1 ties on RRF; the base that is semantically closer to the question wins the tie,
    however credible the other base's documents are."""
    upload = hit("upload:1", date_=None, authority=3, kb="uploads", vector=towards(0.7))
    official = hit("official:1", date_=TODAY.isoformat(), authority=5, kb="manuals", vector=towards(0.4))
    runs = [TaskRun(task(1.2, kb="manuals"), (official,), 1.0), TaskRun(task(1.2, kb="uploads"), (upload,), 1.0)]
    evidence, _, _ = fuse(runs, question=QUESTION)
    assert [e.chunk_id for e in evidence] == ["upload:1", "official:1"]
    assert evidence[0].scores["similarity"] == pytest.approx(0.7)
    assert evidence[1].scores["relevance"] == pytest.approx(0.4 / 0.7, rel=1e-3)


def test_more_tasks_on_one_base_do_not_drown_the_top_hit_of_another():
    """The primary base gets extra tasks (time, quantity, entity fan-out); the other base's strong top hit
    still survives into a small evidence budget."""
    primary = tuple(hit(f"manual{i}:1", kb="manuals", vector=towards(0.6)) for i in range(8))
    other = (hit("faq:1", kb="faq", vector=towards(0.6)), hit("faq:2", kb="faq", vector=towards(0.3)))
    runs = [TaskRun(task(1.2, kb="manuals"), primary, 1.0), TaskRun(task(1.3, 1, kb="manuals"), primary, 1.0),
            TaskRun(task(1.3, 2, kb="manuals"), primary, 1.0), TaskRun(task(1.2, kb="faq"), other, 1.0)]
    evidence, _, _ = fuse(runs, Strategy(max_evidence=3), question=QUESTION)
    assert "faq:1" in [e.chunk_id for e in evidence][:2]


def test_without_vectors_every_base_counts_as_equally_close():
    runs = [TaskRun(task(1.0, kb="a"), (hit("a:1", kb="a"), hit("a:2", kb="a")), 1.0),
            TaskRun(task(1.0, kb="b"), (hit("b:1", kb="b"),), 1.0)]
    evidence, _, _ = fuse(runs, Strategy(credibility=CredibilityFormula(credibility_band=0.0)))
    assert {e.chunk_id: e.scores["relevance"] for e in evidence}["b:1"] == 1.0
    assert "similarity" not in evidence[0].scores


def test_strategies_saved_with_the_old_relevance_share_still_load():
    old = Strategy().model_dump(mode="json")
    old["credibility"] = {"w_task": 0.3, "w_authority": 0.4, "w_recency": 0.3, "half_life_days": 730,
                          "unknown_date_recency": 0.3, "relevance_share": 0.6}
    loaded = Strategy.model_validate(old).credibility
    assert loaded.credibility_band == CredibilityFormula().credibility_band
    assert loaded.unknown_date_recency == 0.5  # the old default penalised undated documents
    old["credibility"] = {**old["credibility"], "relevance_share": 1.0, "unknown_date_recency": 0.2}
    loaded = Strategy.model_validate(old).credibility
    assert loaded.credibility_band == 0.0 and loaded.unknown_date_recency == 0.2
    with pytest.raises(ValueError):
        CredibilityFormula(credibility_band=0.5)


def test_a_base_the_question_asks_for_keeps_its_lead():
    """A source constraint makes that base's task heavier; normalising per base must not erase it."""
    asked = tuple(hit(f"manual{i}:1", kb="manuals", vector=towards(0.6)) for i in range(3))
    other = (hit("faq:1", kb="faq", vector=towards(0.6)),)
    runs = [TaskRun(task(1.44, kb="manuals"), asked, 1.0), TaskRun(task(1.2, kb="faq"), other, 1.0)]
    evidence, _, _ = fuse(runs, question=QUESTION)
    assert [e.chunk_id for e in evidence][-1] == "faq:1"
    assert evidence[-1].scores["relevance"] == pytest.approx(1.2 / 1.44, rel=1e-3)


def test_the_newest_revision_of_a_series_ranks_at_least_as_high_as_an_older_one():
    def revision(cid: str, day: str, authority: int) -> SearchHit:
        return SearchHit(chunk_id=cid, doc_id=cid.split(":")[0], knowledge_base="kb", text="Torque it.", score=1.0,
                         mode="hybrid", title="Manual", source="s", update_date=day, authority=authority,
                         doc_type="manual", page=None, position=0, file_name="m.md", series="manual-32",
                         revision=cid.split(":")[0])
    old = tuple(revision(f"rev11:{i}", "2023-02-10", 4) for i in range(4))
    new = (revision("rev12:1", "2025-03-03", 5), revision("rev12:2", "2025-03-03", 5))
    evidence, _, _ = fuse([TaskRun(task(1.0), old + new, 1.0)])
    assert [e.chunk_id for e in evidence][:3] == ["rev12:1", "rev12:2", "rev11:0"]  # lifted, then credibility
    relevance = {e.chunk_id: e.scores["relevance"] for e in evidence}
    assert relevance["rev12:1"] == relevance["rev11:0"] and relevance["rev12:2"] == relevance["rev11:1"]


def test_a_chunk_about_another_period_gives_way_to_one_about_the_asked_window():
    """"2023 reports": the 2023 report (published in 2024) outranks a slightly more relevant 2024 report chunk;
    an undated chunk is neither inside nor outside."""
    def report(cid: str, title: str, day: str | None) -> SearchHit:
        return SearchHit(chunk_id=cid, doc_id=cid.split(":")[0], knowledge_base="kb", text="Fuel per hour.", score=1.0,
                         mode="hybrid", title=title, source="s", update_date=day, authority=4, doc_type="report",
                         page=None, position=0, file_name=f"{cid}.md")
    window = Intent(action="lookup", raw_query="fuel efficiency in 2023 reports", constraints=Constraints(
        time=TimeConstraint(text="2023 reports", start=date(2023, 1, 1), end=date(2023, 12, 31))))
    hits = (report("r2024:1", "Fuel report 2024", "2025-02-12"), report("r2023:1", "Fuel report 2023", "2024-02-15"),
            report("note:1", "Fuel note", None))
    evidence, _, _ = fuse([TaskRun(task(1.0), hits, 1.0)], intent=window)
    assert [e.chunk_id for e in evidence] == ["r2023:1", "note:1", "r2024:1"]
    assert evidence[-1].scores["relevance"] == pytest.approx(0.9)


def test_the_graph_adds_passages_after_the_one_that_names_them_and_leaves_the_searched_ones_in_place():
    from engine.orchestration.strategy import GraphSettings
    from engine.retrieval.graph import Reach

    searched = TaskRun(task(1.2), tuple(hit(f"d{i}:0") for i in range(1, 6)), 1.0)
    walk = RetrievalTask(query="q", search_type="graph", knowledge_base="kb", weight=1.0, priority=10)
    # the walk ranks a searched passage first, then two passages no search found, both reached from d2
    walked = TaskRun(walk, (hit("d4:0"), hit("x:0"), hit("y:0")), 1.0,
                     reach={"x:0": Reach("Ana Ruiz", "d2:0", "d2"), "y:0": Reach("Ana Ruiz", "d2:0", "d2")})
    evidence, _, _ = fuse([searched, walked], Strategy(max_evidence=10, graph=GraphSettings(rerank=False)))
    order = [e.chunk_id for e in evidence]
    assert order[:3] == ["d1:0", "d2:0", "x:0"]  # x right after the passage that names its way in
    assert [c for c in order if c.startswith("d")] == ["d1:0", "d2:0", "d3:0", "d4:0", "d5:0"]  # searched: as searched
    assert order[-1] == "y:0"  # a second passage from d2 gets only its own reciprocal rank
    x = evidence[2]
    assert x.hop is not None and x.hop.from_chunk == "d2:0" and "graph: via 'Ana Ruiz' from [2]" in x.found_by
    assert all(e.hop is None for e in evidence if e.chunk_id.startswith("d"))
    # with rerank (the default) the walk's ranking moves the searched passages too: d4, its first hit, climbs
    assert Strategy().graph.rerank
    reranked, _, _ = fuse([searched, walked], Strategy(max_evidence=10))
    assert [e.chunk_id for e in reranked][0] == "d4:0"


def test_similarities_are_each_hits_cosine_with_the_question():
    from engine.retrieval.fusion import _similarities

    rng = np.random.default_rng(3)
    question = rng.normal(size=8).astype(np.float32)
    vectors = {"a:0": rng.normal(size=8).tolist(), "b:0": None, "c:0": [0.0] * 8, "d:0": rng.normal(size=8)}
    hits = {cid: replace(hit(cid), vector=v) for cid, v in vectors.items()}
    got = _similarities(question, hits)
    for cid in ("a:0", "d:0"):
        v = np.asarray(vectors[cid], dtype=np.float32)
        assert abs(got[cid] - float(v @ question / np.linalg.norm(v) / np.linalg.norm(question))) < 1e-5
    assert got["b:0"] is None and got["c:0"] is None
    assert _similarities(None, hits) == dict.fromkeys(hits)
