"""One hop along the corpus's own links: documents that the best evidence names, but no task retrieved.

A question such as "In what year was the engineer who designed the Kestrel Valley viaduct born?" is answered
in two steps: the viaduct's passage names its engineer, Mara Lindqvist, and the year is in the passage about her,
which resembles the question too little to be retrieved by it. When the corpus holds a
document titled by that name (the catalogue knows every title), the passage of that document nearest to the
question is added to the evidence, marked as found by the link. The answerability check then treats it as
a bridge: about the question's subject through the passage that names it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from engine.results import Evidence
from engine.retrieval.evidence import evidence_meta, fit_text
from engine.store import KnowledgeBaseStore, SearchHit
from engine.store.titles import NamedDocument, TitleIndex

LINK_SOURCES = 3
"""How many of the best evidence chunks are read for names of other documents (the first hop)."""
LINK_DISCOUNT = 0.9
"""A linked chunk's score: this share of the score of the chunk that names it (it ranks just after its source)."""


def title_indexes(store: KnowledgeBaseStore, bases: Sequence[str]) -> dict[str, TitleIndex]:
    """The title index of each base (a missing base: an empty index)."""
    return {kb: store.title_index(kb) for kb in dict.fromkeys(bases)}


def follow_links(store: KnowledgeBaseStore, evidence: Sequence[Evidence], bases: Sequence[str],
                 question_vector: np.ndarray | None, limit: int, chars: int,
                 indexes: Mapping[str, TitleIndex] | None = None) -> list[Evidence]:
    """Evidence from up to ``limit`` documents named in the best ``LINK_SOURCES`` chunks, each cut to ``chars``.
    ``indexes``: the bases' title indexes when the caller has them (see ``title_indexes``)."""
    if limit < 1 or not evidence or question_vector is None:
        return []
    indexes = title_indexes(store, bases) if indexes is None else indexes
    have = {e.doc_id for e in evidence}
    picks: list[tuple[int, Evidence, str, NamedDocument]] = []
    for number, source in enumerate(evidence[:LINK_SOURCES], start=1):
        for kb, index in indexes.items():
            for named in index.named_in(source.text):
                if named.doc_id in have or len(picks) >= limit:
                    continue
                have.add(named.doc_id)
                picks.append((number, source, kb, named))
    linked: list[Evidence] = []
    by_base: dict[str, list[str]] = {}
    for _, _, kb, named in picks:
        by_base.setdefault(kb, []).append(named.doc_id)
    nearest: dict[str, SearchHit] = {}
    for kb, doc_ids in by_base.items():
        for hit in store.nearest_chunks(kb, doc_ids, question_vector, k=len(doc_ids) * 4):
            nearest.setdefault(hit.doc_id, hit)  # best first: the first hit of each document is its nearest
    for number, source, kb, named in picks:
        hit = nearest.get(named.doc_id)
        if hit is None:
            continue
        linked.append(_evidence(hit, source, number, named, chars))
    return linked


def _evidence(hit: SearchHit, source: Evidence, number: int, named: NamedDocument, chars: int) -> Evidence:
    return Evidence(
        chunk_id=hit.chunk_id, doc_id=hit.doc_id, knowledge_base=hit.knowledge_base, text=fit_text(hit.text, chars),
        score=round(source.score * LINK_DISCOUNT, 4), weight=source.weight, credibility=source.credibility,
        scores={"linked_from": float(number), "similarity": round(hit.score, 4)},
        found_by=(f"link: [{number}] names '{named.title}'",),
        metadata=evidence_meta(hit),
    )

