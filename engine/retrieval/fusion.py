"""Fusion: the runs of an ask's tasks as one ranked, budgeted evidence list.

Weighted reciprocal rank over the tasks, relevance fair across knowledge bases, the newest retrieved revision lifted
to its older ones, credibility breaking near-ties only, the context budget fitted. ``FusionBounds`` tells what a
fusion says about a passage it did not see, for the entity graph's choice of the rows worth reading
(engine/retrieval/retriever.py ``Retriever._could_enter``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date

import numpy as np

from engine.orchestration.strategy import Strategy
from engine.periods import about_period, asked_period
from engine.results import Evidence, Hop, Intent, RetrievalTask
from engine.retrieval import graph
from engine.retrieval.credibility import credibility
from engine.retrieval.evidence import allot_budget, evidence_meta, fit_text
from engine.store import SearchHit

OUTSIDE_WINDOW_RELEVANCE = 0.9
"""Relevance kept by a chunk known to be about another period than the question's window (its title's year, else
its date): about seven ranks of one search at rrf_k 60, so an in-window chunk of near-equal relevance comes first but a
clearly more relevant one stays ahead. On sample_docs, for "fuel efficiency ... 2023 reports", it puts the 2023 report
and its FAQ above the 2024 report's "Fleet Data 2024" heading chunk (relevance 1.0 against 0.95)."""


@dataclass(frozen=True)
class TaskRun:
    """What one task returned and how long it took."""

    task: RetrievalTask
    hits: tuple[SearchHit, ...]
    ms: float
    error: str | None = None
    reach: Mapping[str, graph.Reach] = field(default_factory=dict)
    """For a graph task: how the walk reached each hit that did not seed it."""
    ranks: tuple[int, ...] = ()
    """For a graph task: each hit's place in the walk's ranking (1 is the best), where the walk reached passages
    whose rows were not read because they could not reach the evidence; empty: the hits' own order."""
    reached: int | None = None
    """For a graph task: the passages its walk ranked, read or not (``hits`` holds those read)."""


@dataclass(frozen=True)
class Revision:
    """A candidate of a series of revisions, as the fusion saw it: its date, its relevance before and after
    ``lift_current_revisions``, and whether the evidence kept it."""

    date: str
    relevance: float
    lifted: float
    kept: bool


@dataclass
class FusionBounds:
    """What a fusion tells about a passage it did not see (``Retriever._could_enter``): each base's best fused score
    and its scale (``base_scales``), the final score of the last passage kept when the evidence was full (else
    None), and the candidates of each series of revisions."""

    top_rrf: dict[str, float] = field(default_factory=dict)
    scale: dict[str, float] = field(default_factory=dict)
    kth: float | None = None
    series: dict[str, list[Revision]] = field(default_factory=dict)


def task_label(index: int, task: RetrievalTask) -> str:
    return f"T{index + 1}:{task.search_type}@{task.knowledge_base}"


def fuse(runs: Sequence[TaskRun], intent: Intent, strategy: Strategy, question_vector: np.ndarray | None = None,
         today: date | None = None, bounds: FusionBounds | None = None) -> tuple[list[Evidence], int, int]:
    """Weighted RRF over tasks, dedupe by chunk, relevance fair across bases, credibility within a band, budget.

    Relevance is fair across knowledge bases (see ``base_relevance``): a base searched by more tasks cannot
    drown another, and a base whose best chunk is far from the question sinks. The newest retrieved revision
    of a document series ranks at least as high as its older revisions (``lift_current_revisions``).
    Credibility then moves a chunk by at most ``credibility_band`` of its relevance (``CredibilityFormula.fuse``).

    The entity graph's tasks only add (unless the strategy's ``graph.rerank``): a passage a search found keeps
    the place the searches gave it, and a passage only the walk found gets its own reciprocal rank, or, for the
    one the walk weighs most among those reached from a searched passage, just below that passage
    (``graph_place``). With ``rerank`` a walk's hits add their reciprocal rank as any task's do.
    """
    rrf: dict[str, float] = {}
    best_weight: dict[str, float] = {}
    hit_of: dict[str, SearchHit] = {}
    scores: dict[str, dict[str, float]] = {}
    found_by: dict[str, list[str]] = {}
    reach: dict[str, graph.Reach] = {}
    searched = set() if strategy.graph.rerank else \
        {hit.chunk_id for run in runs if run.task.search_type != "graph" for hit in run.hits}
    walked: list[tuple[str, float]] = []  # (chunk, its own reciprocal rank) of passages only a walk found
    for index, run in enumerate(runs):
        for cid, how in run.reach.items():
            reach.setdefault(cid, how)
        label = task_label(index, run.task)
        for rank, hit in zip(run.ranks or range(1, len(run.hits) + 1), run.hits):
            cid = hit.chunk_id
            if run.task.search_type == "graph" and not strategy.graph.rerank:
                if cid in searched:
                    continue
                walked.append((cid, run.task.weight / (strategy.rrf_k + rank)))
            else:
                rrf[cid] = rrf.get(cid, 0.0) + run.task.weight / (strategy.rrf_k + rank)
            best_weight[cid] = max(best_weight.get(cid, 0.0), run.task.weight)
            hit_of.setdefault(cid, hit)
            scores.setdefault(cid, {})[f"{label}:{hit.mode}"] = round(hit.score, 4)
            found_by.setdefault(cid, []).append(label)
    rrf.update(graph_place(walked, reach, rrf))  # (rrf holds the searched passages' scores only, until here)
    if not rrf:
        return [], 0, 0
    similarity = _similarities(question_vector, hit_of)
    base_weight: dict[str, float] = {}  # the weight of each base's first-priority task (its base task)
    for run in sorted(runs, key=lambda r: r.task.priority):
        base_weight.setdefault(run.task.knowledge_base, run.task.weight)
    base_of = {cid: hit.knowledge_base for cid, hit in hit_of.items()}
    top_rrf, scale = base_scales(rrf, base_of, similarity, base_weight)
    relevance = {cid: fused / top_rrf[base_of[cid]] * scale[base_of[cid]] for cid, fused in rrf.items()}
    own_relevance = relevance
    relevance = lift_current_revisions(relevance, hit_of)
    period = asked_period(intent)
    if period is not None:
        relevance = {cid: rel * (OUTSIDE_WINDOW_RELEVANCE if about_period(
            hit_of[cid].title, _day(hit_of[cid].update_date), period) is False else 1.0)
            for cid, rel in relevance.items()}
    max_weight = max(r.task.weight for r in runs) or 1.0
    formula = strategy.credibility
    window = intent.constraints.time
    today = today or date.today()
    ranked = []
    for cid in rrf:
        hit = hit_of[cid]
        update = date.fromisoformat(hit.update_date) if hit.update_date else None
        cred = credibility(best_weight[cid], max_weight, hit.authority, update, formula, window, today)
        ranked.append((formula.fuse(relevance[cid], cred), cid, cred, relevance[cid], update))
    ranked.sort(key=lambda r: (-r[0], r[1]))
    chosen = ranked[: strategy.max_evidence]
    if bounds is not None:
        bounds.top_rrf, bounds.scale = top_rrf, scale
        bounds.kth = chosen[-1][0] if len(chosen) == strategy.max_evidence else None
        kept = {c[1] for c in chosen}
        for cid, hit in hit_of.items():
            if hit.series and hit.update_date:
                bounds.series.setdefault(hit.series, []).append(
                    Revision(hit.update_date, own_relevance[cid], relevance[cid], cid in kept))
    budgets = allot_budget([c[2] for c in chosen], strategy.context_chars)
    number = {cid: n for n, (_, cid, _, _, _) in enumerate(chosen, start=1)}
    evidence = []
    for (final, cid, cred, rel, update), budget in zip(chosen, budgets):
        hit = hit_of[cid]
        text = fit_text(hit.text, budget)
        extra = {} if similarity[cid] is None else {"similarity": round(similarity[cid], 4)}
        how = reach.get(cid) if all(":graph@" in label for label in found_by[cid]) else None
        hop = None if how is None else Hop(mention=how.mention, from_chunk=how.from_chunk, from_title=how.from_title)
        evidence.append(Evidence(
            chunk_id=cid, doc_id=hit.doc_id, knowledge_base=hit.knowledge_base, text=text,
            score=round(final, 4), weight=best_weight[cid], credibility=cred,
            scores={"rrf": round(rrf[cid], 6), "relevance": round(rel, 4), **extra, **scores[cid]},
            found_by=tuple(found_by[cid]) + ((hop.label(number),) if hop else ()), metadata=evidence_meta(hit),
            hop=hop,
        ))
    return evidence, len(ranked), len(ranked) - len(chosen)


GRAPH_DISCOUNT = 0.999
"""A passage only the walk found, led to by a name in a searched passage, ranks at this share of that passage's
fused score: just after it (reciprocal ranks of neighbouring places differ by 1-2 %), as a document the link hop
adds does (engine/retrieval/links.py)."""


def graph_place(walked: Sequence[tuple[str, float]], reach: Mapping[str, graph.Reach],
                rrf: Mapping[str, float]) -> dict[str, float]:
    """The fused score of each passage only a walk found (``walked``: chunk and its own reciprocal rank, in the
    walk's order): its own, or for the first passage reached from each searched passage, ``GRAPH_DISCOUNT`` of that
    passage's score when that is more."""
    placed: dict[str, float] = {}
    lent: set[str] = set()
    for cid, own in walked:
        source = reach[cid].from_chunk if cid in reach else None
        score = placed.get(cid, 0.0) + own
        if source is not None and source in rrf and source not in lent:
            lent.add(source)
            score = max(score, GRAPH_DISCOUNT * rrf[source])
        placed[cid] = score
    return placed


def base_relevance(rrf: dict[str, float], base_of: dict[str, str], similarity: dict[str, float | None],
                   base_weight: dict[str, float] | None = None) -> dict[str, float]:
    """Relevance in (0, 1] that is fair across knowledge bases.

    A chunk's RRF over the best RRF in its own base (so a base searched by more tasks cannot drown another), times
    its base's weight (its base task's, over the heaviest base task's: a source the question asks for keeps its
    lead), times its base's closeness (its best chunk's similarity to the question over the best base's). Without
    similarities (hits that carry no vector) every base counts as equally close.
    """
    top_rrf, scale = base_scales(rrf, base_of, similarity, base_weight)
    return {cid: fused / top_rrf[base_of[cid]] * scale[base_of[cid]] for cid, fused in rrf.items()}


def base_scales(rrf: dict[str, float], base_of: dict[str, str], similarity: dict[str, float | None],
                base_weight: dict[str, float] | None = None) -> tuple[dict[str, float], dict[str, float]]:
    """Each base's best fused score and its scale, as ``base_relevance`` reads them."""
    top_rrf: dict[str, float] = {}
    top_sim: dict[str, float] = {}
    for cid, fused in rrf.items():
        base = base_of[cid]
        top_rrf[base] = max(top_rrf.get(base, 0.0), fused)
        if similarity.get(cid) is not None:
            top_sim[base] = max(top_sim.get(base, 0.0), max(similarity[cid], 0.0))
    best = max(top_sim.values(), default=0.0)
    weights = {base: (base_weight or {}).get(base, 1.0) for base in top_rrf}
    heaviest = max(weights.values()) or 1.0
    scale = {base: weights[base] / heaviest * (top_sim.get(base, 0.0) / best if best > 0 else 1.0) for base in top_rrf}
    return top_rrf, scale


def lift_current_revisions(relevance: dict[str, float], hit_of: dict[str, SearchHit]) -> dict[str, float]:
    """The newest retrieved revision of a document series ranks at least as high as its older revisions.

    Revisions of one document say the same things, so the passages that make old revisions relevant stand for the
    current one too: the current revision's chunks, best first, are lifted to the older revisions' relevances, best
    first, and credibility (recency, authority) then breaks those ties.
    """
    series: dict[str, list[str]] = {}
    for cid, hit in hit_of.items():
        if hit.series and hit.update_date:
            series.setdefault(hit.series, []).append(cid)
    lifted = dict(relevance)
    for cids in series.values():
        newest = max(hit_of[c].update_date for c in cids)
        current = sorted((c for c in cids if hit_of[c].update_date == newest), key=lambda c: -relevance[c])
        older = sorted((relevance[c] for c in cids if hit_of[c].update_date != newest), reverse=True)
        for cid, level in zip(current, older):
            lifted[cid] = max(relevance[cid], level)
    return lifted


def _day(value: str | None) -> date | None:
    return date.fromisoformat(value) if value else None


def _similarities(question: np.ndarray | None, hits: Mapping[str, SearchHit]) -> dict[str, float | None]:
    """The cosine of each hit's stored vector with the question's (None without either), in one product."""
    out: dict[str, float | None] = dict.fromkeys(hits)
    ids = [cid for cid, hit in hits.items() if hit.vector is not None]
    if question is None or not ids:
        return out
    chunks = np.asarray([hits[cid].vector for cid in ids], dtype=np.float32)
    asked = np.asarray(question, dtype=np.float32)
    norms = np.linalg.norm(chunks, axis=1) * float(np.linalg.norm(asked))
    for cid, dot, norm in zip(ids, chunks @ asked, norms):
        out[cid] = float(dot / norm) if norm > 0 else None
    return out
