"""The ``graph`` retrieval task: passages reached through the things they mention, by personalised PageRank.

A question such as "Who wrote the score of the film that Ana Ruiz directed?" needs two passages: the film's,
which names Ana Ruiz and the composer, and the composer's, which names neither the director nor anything the
question says. Passages and the names, codes and titles they mention form a graph (engine/store/mentions.py);
the walk starts from the question's own names and from the best passages the other searches found, and the
passages where most of its mass settles are this task's hits (HippoRAG: Gutiérrez et al. 2024, "HippoRAG:
Neurobiologically Inspired Long-Term Memory for Large Language Models"; here the graph is built offline from the
name reader, not by an LLM).

Only the seeds' neighbourhood is read, never the whole graph: the passages that mention a question's names and
their own mentions (read while the searches run), then, in one read, the passages that mention anything those or
the seed passages mention (a seed's mentions are read from its text). A base's mention table of up to about
100,000 passages is held in memory instead (engine/store/mentions.py ``HELD_ROWS``; above about 5,000 passages,
``LOCAL_ROWS``, it is loaded on a background thread, the walks reading the store meanwhile), so its walk reads
nothing from the store. Each step follows the rarest mentions first, within a budget of rows and keys
(``ROW_BUDGET``, ``MOST_KEYS``), from the passage counts of the mentions that two or more passages share, which
the store keeps in memory per base until the base changes: a mention of one passage (most of them) costs nothing,
a name that half the base mentions is never read, and each read is by key or by chunk, with a scalar index.

The walk is a personalised PageRank over that bipartite sub-graph (``walk``), with ``damping`` the share of mass
that walks on at each step. A mention's edges weigh its specificity, one over the number of passages that mention it (HippoRAG's node specificity), so "United States" carries less
than "Trent Reznor"; a question's name seeds the walk with that weight too. Two names whose vectors are close
("McCartney", "Paul McCartney") are joined by a synonym edge (engine/store/synonyms.py), which the walk follows as a
mention's third side, so a passage that writes a name one way leads to those that write it another. Each hit says
how it was reached: the mention that brought it most mass and the passage, or the question, that names it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from engine.language.mentions import Mention, passage_mentions
from engine.store.mentions import GraphTables, Row
from engine.store.schema import SearchHit

ROW_BUDGET = 1_000
"""Most mention rows one widening reads: the mentions to follow are taken rarest first until their passages add up
to this (a name that thousands of passages share adds little to the walk but cost)."""
MAX_SHARED = 200
"""A mention shared by more passages is not followed (its edges weigh at most 1/200 of a name's own)."""
MOST_KEYS = 64
"""Most mentions one widening follows (a read by key costs about 0.05 ms more per key on 100k chunks)."""
FIRST_HOP_PASSAGES = 200
"""The passages that mention a question's names have their own mentions read only when there are at most this many."""
ITERATIONS = 50
TOLERANCE = 1e-8


@dataclass(frozen=True)
class Reach:
    """How the walk reached a passage: the mention that brought it most mass, as written, and the passage that
    names it (its chunk id and title), or none when the question names it."""

    mention: str
    from_chunk: str | None = None
    from_title: str = ""


@dataclass(frozen=True)
class GraphResult:
    """The passages the walk ranks highest, best first, with their mass (the best's is 1) and how each was reached
    (none for a seed passage); and the size of the sub-graph it walked."""

    ranked: list[tuple[str, str, float]]  # (chunk_id, doc_id, score)
    reach: dict[str, Reach] = field(default_factory=dict)
    passages: int = 0
    mentions: int = 0
    reads: int = 0


@dataclass
class Neighbourhood:
    """The (chunk, mention) edges read so far, the written form of each mention and, where known, how many passages
    of the base mention it."""

    edges: set[tuple[str, str]] = field(default_factory=set)
    titles: set[tuple[str, str]] = field(default_factory=set)
    """The edges that join a passage to its own document's title."""
    doc_of: dict[str, str] = field(default_factory=dict)
    written: dict[str, str] = field(default_factory=dict)
    shared: dict[str, int] = field(default_factory=dict)
    keys_read: set[str] = field(default_factory=set)
    chunks_read: set[str] = field(default_factory=set)
    reads: int = 0
    pending: list[str] = field(default_factory=list)
    """Keys whose passages the next ``widen`` reads too (the question's second hop), in the same read."""
    synonyms: dict[tuple[str, str], float] = field(default_factory=dict)
    """Synonym edges between keys (both directions) and their similarity (engine/store/synonyms.py)."""
    follow_synonyms: bool = True

    def add(self, rows: Sequence[Row]) -> None:
        for chunk_id, doc_id, key, written, kind in rows:
            self.edges.add((chunk_id, key))
            if kind == "title":
                self.titles.add((chunk_id, key))
            self.doc_of[chunk_id] = doc_id
            self.written.setdefault(key, written)
        self.reads += 1

    def choose(self, tables: GraphTables, keys: Sequence[str], asked: bool = False) -> list[str]:
        """The rarest of ``keys`` within budget, not read before. A key no other passage shares is not chosen
        (it joins nothing), unless the question ``asked`` it: then its one passage is what it leads to."""
        keys = sorted(set(keys) - self.keys_read)
        self.keys_read |= set(keys)
        counts = {k: tables.shared.get(k, 1) for k in keys if asked or k in tables.shared}
        if self.follow_synonyms:  # a synonym is followed even when one passage names it: it joins two passages
            found = tables.synonyms_of(keys)
            for key, close in found.items():
                for other, similarity in close:
                    self.synonyms[key, other] = self.synonyms[other, key] = similarity
            extra = sorted({other for close in found.values() for other, _ in close} - self.keys_read)
            self.keys_read |= set(extra)
            counts.update({k: tables.shared.get(k, 1) for k in extra})
        self.shared.update({k: n for k, n in counts.items() if k in tables.shared})
        chosen, total = [], 0
        for key in sorted((k for k in counts if counts[k] <= MAX_SHARED), key=lambda k: (counts[k], k)):
            if total + counts[key] > ROW_BUDGET or len(chosen) == MOST_KEYS:
                break
            chosen.append(key)
            total += counts[key]
        return chosen

    def read(self, tables: GraphTables, chosen: Sequence[str]) -> None:
        """Add the passages of the ``chosen`` keys, in one read."""
        if chosen:
            self.add(tables.rows_by_mention(chosen, ROW_BUDGET * max(1, -(-len(chosen) // MOST_KEYS))))


def question_neighbourhood(tables: GraphTables | None, keys: Sequence[str], synonyms: bool = True) -> Neighbourhood:
    """The reads that need only the question: the passages that mention its names (and their synonyms), their
    mentions, and the passages that mention those. The retriever runs this while the searches run."""
    near = Neighbourhood(follow_synonyms=synonyms)
    if tables is None or not keys:
        return near
    near.read(tables, near.choose(tables, keys, asked=True))
    first = sorted({c for c, _ in near.edges} - near.chunks_read)
    if first and len(first) <= FIRST_HOP_PASSAGES:
        near.add(tables.rows_by_chunk(first, ROW_BUDGET))
        near.chunks_read |= set(first)
        near.pending = [k for _, k in near.edges]  # the second hop from the question's names: read by ``widen``
    return near


def widen(tables: GraphTables | None, near: Neighbourhood, seeds: Sequence[SearchHit]) -> Neighbourhood:
    """The read that needs the seed passages: the passages that mention what the seeds mention, rarest mentions
    first. A seed's own mentions are read from its text and title, as the ingest read them (0.3 ms a passage,
    against a read of the store), so this is one read."""
    if tables is None:
        return near
    seeded = {hit.chunk_id for hit in seeds}
    for hit in seeds:
        if hit.chunk_id not in near.chunks_read:
            for mention in passage_mentions(hit.title or "", hit.text or ""):
                near.edges.add((hit.chunk_id, mention.key))
                if mention.kind == "title":
                    near.titles.add((hit.chunk_id, mention.key))
                near.written.setdefault(mention.key, mention.written)
            near.doc_of[hit.chunk_id] = hit.doc_id
            near.chunks_read.add(hit.chunk_id)
    second = near.choose(tables, near.pending)  # the question's second hop, then the seeds' first, one read
    near.pending = []
    near.read(tables, second + near.choose(tables, [k for c, k in near.edges if c in seeded]))
    return near


def walk(near: Neighbourhood, question: Sequence[Mention], seeds: Sequence[tuple[str, float]], k: int,
         damping: float) -> GraphResult:
    """Personalised PageRank over ``near`` from the question's mentions and the ``seeds`` (chunk id, weight)."""
    if not near.edges:
        return GraphResult([], reads=near.reads)
    edges = sorted(near.edges)
    chunks = sorted({c for c, _ in edges})
    keys = sorted({m for _, m in edges})
    chunk_at = {c: i for i, c in enumerate(chunks)}
    key_at = {m: len(chunks) + i for i, m in enumerate(keys)}
    size = len(chunks) + len(keys)
    passage = np.fromiter((chunk_at[c] for c, _ in edges), dtype=np.int64, count=len(edges))
    mention = np.fromiter((key_at[m] for _, m in edges), dtype=np.int64, count=len(edges))
    degree = np.bincount(mention, minlength=size).astype(float)  # passages per mention: in the base where counted,
    for key, at in key_at.items():  # else in the neighbourhood
        degree[at] = max(degree[at], near.shared.get(key, 0))
    # from a passage, to each of its mentions by specificity (one over the passages that share it)
    out_of_passage = 1.0 / degree[mention]
    out_of_passage /= np.bincount(passage, weights=out_of_passage, minlength=size)[passage]
    # from a mention, an equal share to each side it has: the passages of the document it is the title of (a name
    # leads first to what is written about it), the passages that mention it, and its synonyms, by similarity
    titled = np.fromiter(((c, m) in near.titles for c, m in edges), dtype=bool, count=len(edges))
    sides = np.where(titled, mention + size, mention)  # a mention's title side and its mention side, apart
    side_count = np.bincount(sides, minlength=2 * size)
    close = [(key_at[a], key_at[b], w) for (a, b), w in sorted(near.synonyms.items()) if a in key_at and b in key_at]
    from_key = np.array([a for a, _, _ in close], dtype=np.int64)
    to_key = np.array([b for _, b, _ in close], dtype=np.int64)
    similarity = np.array([w for _, _, w in close], dtype=float)
    synonym_total = np.bincount(from_key, weights=similarity, minlength=size)
    present = (side_count[:size] > 0).astype(float) + (side_count[size:] > 0) + (synonym_total > 0)
    out_of_mention = 1.0 / side_count[sides] / present[mention]
    out_of_synonym = similarity / np.maximum(synonym_total[from_key], 1e-12) / np.maximum(present[from_key], 1.0)
    source = np.concatenate([passage, mention, from_key])
    target = np.concatenate([mention, passage, to_key])
    moves = np.concatenate([out_of_passage, out_of_mention, out_of_synonym])  # each node's moves sum to one
    reset = np.zeros(size)
    asked = {m.key for m in question if m.key in key_at}
    for key in asked:
        reset[key_at[key]] += 1.0 / degree[key_at[key]]
    seed_weight = {c: w for c, w in seeds if c in chunk_at}
    if seed_weight:  # the seed passages carry as much as the question's names together (all when it names none)
        share = (reset.sum() or 1.0) / sum(seed_weight.values())
        for chunk_id, weight_of in seed_weight.items():
            reset[chunk_at[chunk_id]] += weight_of * share
    if reset.sum() == 0:
        return GraphResult([], passages=len(chunks), mentions=len(keys), reads=near.reads)
    reset /= reset.sum()
    mass = reset.copy()
    for _ in range(ITERATIONS):
        after = (1 - damping) * reset + damping * np.bincount(target, weights=moves * mass[source], minlength=size)
        done = np.abs(after - mass).sum() < TOLERANCE
        mass = after
        if done:
            break
    passage_mass = mass[: len(chunks)]
    order = np.argsort(-passage_mass, kind="stable")[:k]
    top = float(passage_mass[order[0]]) if len(order) else 0.0
    ranked = [(chunks[i], near.doc_of[chunks[i]], float(passage_mass[i]) / top if top > 0 else 0.0)
              for i in order if passage_mass[i] > 0]
    reach = _reach([c for c, _, _ in ranked], near, mass, chunk_at, key_at, asked, set(seed_weight))
    return GraphResult(ranked, reach, len(chunks), len(keys), near.reads)


def _reach(chunk_ids: Sequence[str], near: Neighbourhood, mass: np.ndarray, chunk_at: dict[str, int],
           key_at: dict[str, int], asked: set[str], seeds: set[str]) -> dict[str, Reach]:
    """For each passage that is not a seed: its mention with the most mass, and the heaviest other passage (or the
    question) that names it."""
    keys_of: dict[str, list[str]] = {}
    chunks_of: dict[str, list[str]] = {}
    for chunk_id, key in near.edges:
        keys_of.setdefault(chunk_id, []).append(key)
        chunks_of.setdefault(key, []).append(chunk_id)
    out: dict[str, Reach] = {}
    for chunk_id in chunk_ids:
        if chunk_id in seeds:
            continue
        key = max(sorted(keys_of.get(chunk_id, [])), key=lambda m: mass[key_at[m]], default=None)
        if key is None:
            continue
        if key in asked:
            out[chunk_id] = Reach(near.written[key])
            continue
        others = [c for c in chunks_of[key] if c != chunk_id] or [  # reached through a synonym of its name
            c for (a, b) in near.synonyms if a == key for c in chunks_of.get(b, ()) if c != chunk_id]
        source = max(sorted(others), key=lambda c: mass[chunk_at[c]], default=None)
        out[chunk_id] = Reach(near.written[key], source)
    return out
