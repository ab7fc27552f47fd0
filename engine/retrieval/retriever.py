"""Run retrieval tasks at once (searches, the link hop, the entity graph's walks) and fuse them
(engine/retrieval/fusion.py)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from datetime import date

import numpy as np

from engine.fork_safe import Ahead, ForkSafePool
from engine.orchestration.strategy import Strategy
from engine.results import Evidence, Intent, RetrievalTask, SearchFilters
from engine.language.mentions import Mention, question_mentions
from engine.retrieval import graph
from engine.retrieval.fusion import OUTSIDE_WINDOW_RELEVANCE, FusionBounds, TaskRun, fuse, graph_place
from engine.retrieval.links import follow_links, title_indexes
from engine.store import KnowledgeBaseStore, LegMemo, SearchHit, SearchRequest
from engine.store.titles import TitleIndex


_READER = ForkSafePool(4, "store-reads")
"""Reads what an ask needs beside its searches: the bases' title indexes while the searches run, the evidence's
stored sentence vectors while the link hop runs."""

_WALKS = ForkSafePool(4, "graph-walks")
"""Runs the graph tasks of an ask, one per base, at once; their first reads run on ``_READER``."""

_EMBEDDING = Ahead("embed-ahead")
"""Questions embedded while perception reads them (see ``Retriever.prepare``), by (embedder, text)."""

@dataclass(frozen=True)
class RetrievalResult:
    evidence: tuple[Evidence, ...]
    runs: tuple[TaskRun, ...]
    candidates: int
    dropped_for_budget: int
    timings: dict[str, float] = field(default_factory=dict)
    sentence_vectors: Mapping[str, np.ndarray] = field(default_factory=dict, repr=False, compare=False)
    """The evidence's stored sentence vectors, by sentence text (see engine/store/sentences.py); with a memo, also
    those of the chunks the ask's earlier attempts read."""
    query_vectors: Mapping[str, np.ndarray] = field(default_factory=dict, repr=False, compare=False)
    """The vectors the searches embedded, by query text (the question's among them)."""


@dataclass
class AskMemo:
    """What one ask's retrieval has read, for its later attempts (the widened search before refusing, a retry after
    validation): the query vectors, the rows of its LanceDB queries (see ``LegMemo``), the bases' title indexes and
    the evidence's stored sentence vectors. A first attempt fetches ``depth`` times each task's k (at most
    ``most``) so that a search with k that many times larger reads the kept rows instead of querying again."""

    depth: int = 1
    most: int = 200
    vectors: dict[str, np.ndarray] = field(default_factory=dict)
    legs: LegMemo = field(default_factory=LegMemo)
    indexes: dict[str, TitleIndex] = field(default_factory=dict)
    sentences: dict[str, np.ndarray] = field(default_factory=dict)
    read: set[tuple[str, str]] = field(default_factory=set)
    """The (kb, chunk_id) chunks whose sentence vectors ``sentences`` holds."""
    near: dict[tuple, Future] = field(default_factory=dict)
    """Each base's question neighbourhood in the entity graph, by (kb, the question's mention keys)."""
    walks: dict[tuple, "Walked"] = field(default_factory=dict)
    """Each graph task's walk, by its base and the question's names: a later attempt (a wider search, a retry)
    reuses the walk of the first, whose seeds were the best hits of the question as first searched, and the rows it
    read."""

    def fetch(self, k: int) -> int | None:
        """The rows each query of a task of ``k`` fetches, when more than ``k``."""
        return min(k * self.depth, self.most) if self.depth > 1 else None


@dataclass
class Walked:
    """A graph task's walk: the passages it ranks (chunk, document, mass; best first, a passage's place is its rank),
    how it reached them, the searched passages of its base and the rows read so far of those only it found (an
    ask's later attempts share them)."""

    task: RetrievalTask
    ranked: list[tuple[str, str, float]]
    reach: dict[str, graph.Reach]
    known: dict[str, SearchHit]
    doc_of: dict[str, str]
    rows: dict[str, SearchHit]
    ms: float

    def run(self, found: Mapping[str, SearchHit]) -> TaskRun:
        """The task's run: its passages whose rows are at hand (read, or ``found`` by the attempt's searches), as
        hits of mode "graph" scored by their mass, each at its place in the walk's ranking."""
        hits, ranks = [], []
        for rank, (chunk_id, _, score) in enumerate(self.ranked, start=1):
            hit = self.known.get(chunk_id) or self.rows.get(chunk_id) or found.get(chunk_id)
            if hit is not None:
                hits.append(SearchHit(**{**hit.__dict__, "score": score, "mode": "graph"}))
                ranks.append(rank)
        every = {**self.rows, **self.known}
        reach = {c: graph.Reach(r.mention, r.from_chunk, every[r.from_chunk].title if r.from_chunk in every else "")
                 for c, r in self.reach.items()}
        return TaskRun(self.task, tuple(hits), self.ms, reach=reach, ranks=tuple(ranks), reached=len(self.ranked))


class Retriever:
    """Retrieval stage: tasks in, fused and budgeted Evidence out."""

    def __init__(self, store: KnowledgeBaseStore, today: Callable[[], date] = date.today) -> None:
        self.store = store
        self.today = today

    def prepare(self, question: str) -> None:
        """Start embedding ``question`` on a background thread. The pipeline calls this before perception, whose
        spaCy pass keeps one core busy, so the searches find the question's vector ready (its tasks search the
        question as asked unless a word was misspelt)."""
        embedder = self.store.embedder
        _EMBEDDING.start((embedder, question), embedder.encode_beside, question)  # on one thread

    def _embedding(self, queries: Sequence[str], known: Mapping[str, np.ndarray] | None = None) -> dict[str, Future]:
        """The queries' vectors, as Futures: those ``known`` (an earlier attempt's), those :meth:`prepare` started,
        and the others started now, on the one-thread session, beside the searches (their full-text legs need no
        vector and start meanwhile; on 100k chunks this took 1.9 ms off an ask's retrieval, docs/benchmarks.md)."""
        embedder = self.store.embedder
        started = {query: _done(known[query]) for query in queries if known and query in known}
        started.update({query: ahead for query in queries if query not in started
                        and (ahead := _EMBEDDING.take((embedder, query))) is not None})
        started.update({query: _READER.submit(embedder.encode_beside, query) for query in queries
                        if query not in started})
        return started

    def _search(self, tasks: Sequence[RetrievalTask], vectors: Mapping[str, np.ndarray | Future],
                memo: AskMemo) -> list[TaskRun]:
        """Every task's search at once (see ``KnowledgeBaseStore.search_many``); a failing task keeps its error
        and does not sink the others."""
        outcomes = self.store.search_many([
            SearchRequest(t.query, t.knowledge_base, t.search_type, t.top_k, t.filters, vectors.get(t.query),
                          memo.fetch(t.top_k))
            for t in tasks], memo.legs)
        return [TaskRun(task, outcome.hits, outcome.ms,
                        None if outcome.error is None else f"{type(outcome.error).__name__}: {outcome.error}")
                for task, outcome in zip(tasks, outcomes)]

    def run(self, tasks: Sequence[RetrievalTask], intent: Intent, strategy: Strategy,
            memo: AskMemo | None = None) -> RetrievalResult:
        """The evidence for ``tasks``. ``memo``: what the ask's earlier attempts read (kept for later ones)."""
        if not tasks:
            raise ValueError("Retriever.run needs at least one task")
        t0 = time.perf_counter()
        memo = AskMemo() if memo is None else memo
        bases = [t.knowledge_base for t in tasks]
        # the title indexes the link hop reads depend on the bases only: fetched while the searches run
        indexes = _READER.submit(self._title_indexes, bases, memo) if strategy.follow_links > 0 else None
        walks = [t for t in tasks if t.search_type == "graph"]
        searches = [t for t in tasks if t.search_type != "graph"]
        # the graph's first reads need only the question: they run while the searches do
        asked = question_mentions(intent.search_query, intent.entity_texts)
        keys = tuple(m.key for m in asked)
        for kb in dict.fromkeys(t.knowledge_base for t in walks):
            if (kb, keys) not in memo.near:
                memo.near[kb, keys] = _READER.submit(self._question_neighbourhood, kb, keys, strategy.graph.synonyms)
        queries = sorted({t.query for t in tasks if t.search_type in ("vector", "hybrid")} | {intent.search_query})
        embedding = self._embedding(queries, memo.vectors)
        ready = [t0]  # when each vector was ready
        for started in embedding.values():
            started.add_done_callback(lambda _: ready.append(time.perf_counter()))
        runs = self._search(searches, embedding, memo) if searches else []
        vectors = {query: vector.result() for query, vector in embedding.items()}  # an embedding error is raised
        memo.vectors.update(vectors)
        t1 = time.perf_counter()
        question = vectors.get(intent.search_query)
        # each base's walk runs here (a few ms of Python, which a thread beside this one would only slow by sharing
        # the interpreter with the fusion below); the searches' own evidence is fused, its sentence vectors read and
        # its links followed; the walks' passages are fused in, the rows of those that can reach the evidence read on
        # the pool meanwhile (most asks need none), and the sentences of any chunk they bring are read after
        walking = [self._walk(task, asked, strategy, runs, memo.near[task.knowledge_base, keys], memo)
                   for task in walks]
        walked = time.perf_counter()
        evidence, candidates, dropped = self.fuse(runs, intent, strategy, question) if runs else ([], 0, 0)
        reading = _READER.submit(self._sentences, [(e.knowledge_base, e.chunk_id) for e in evidence], memo)
        fetching, unread, fused = {}, 0, None
        if walking:
            fused = self._fuse_walks(runs, walking, tasks, intent, strategy, question)
            t3 = time.perf_counter()
            wanted, unread = self._could_enter(walking, runs, fused[4], intent, strategy)
            fetching = {id(w): _WALKS.submit(self._walk_rows, w, wanted[id(w)], memo)
                        for w in walking if isinstance(w, Walked) and wanted.get(id(w))}
        else:
            t3 = time.perf_counter()
        t3b = time.perf_counter()
        linked = follow_links(self.store, evidence, bases, question, strategy.follow_links,
                              strategy.context_chars // strategy.max_evidence,
                              indexes.result() if indexes is not None and evidence else None)
        t4 = time.perf_counter()
        failed = {key: future.result() for key, future in fetching.items()}  # a read's error, or None
        t5 = time.perf_counter()
        if walking:
            if fetching:  # the passages read are fused in
                walking = [TaskRun(w.task, (), w.ms, failed[id(w)]) if failed.get(id(w)) else w for w in walking]
                fused = self._fuse_walks(runs, walking, tasks, intent, strategy, question)
            runs, evidence, candidates, dropped = fused[0], fused[1], fused[2] + unread, fused[3] + unread
            have = {e.doc_id for e in evidence}
            linked = [e for e in linked if e.doc_id not in have]
        t6 = time.perf_counter()
        reading.result()
        self._sentences([(e.knowledge_base, e.chunk_id) for e in evidence + linked], memo)  # reads only the new
        sentences = dict(memo.sentences)  # the evidence's, and those of chunks an earlier attempt read
        t7 = time.perf_counter()
        # the parts add up to the stage: "embed" until every vector was ready (the full-text legs ran meanwhile),
        # "search" the rest of the searches, "graph" the walks, the choice of the passages to read and the wait for
        # their rows once the links were followed
        embedded = min(max(ready), t1)  # (a callback runs just after its result is set: at most a few µs late)
        timings = {"embed_ms": (embedded - t0) * 1000, "search_ms": (t1 - embedded) * 1000,
                   "fuse_ms": (t3 - walked + t6 - t5) * 1000, "links_ms": (t4 - t3b) * 1000,
                   "graph_ms": (walked - t1 + t3b - t3 + t5 - t4) * 1000,
                   "sentences_ms": (t7 - t6) * 1000}
        return RetrievalResult(tuple(evidence + linked), tuple(runs), candidates, dropped, timings, sentences,
                               vectors)

    def _question_neighbourhood(self, kb: str, keys: Sequence[str], synonyms: bool) -> tuple[Any, graph.Neighbourhood]:
        tables = self.store.graph_tables(kb)
        return tables, graph.question_neighbourhood(tables, keys, synonyms)

    def _walk(self, task: RetrievalTask, asked: Sequence[Mention], strategy: Strategy, runs: Sequence[TaskRun],
              near: Future, memo: AskMemo) -> "Walked | TaskRun":
        """A graph task's walk over ``task``'s base, seeded by the question's names and the best hits of the base's
        other searches (by reciprocal rank over them), made on the calling thread; no row is read here (see
        ``_could_enter``). A failure is the task's error, as a search's is.

        Its hits are the passages no search of the base found (with ``rerank``, the searched ones it ranks too),
        and of those only the ones that can reach the evidence are kept: when ``max_evidence`` passages of the same
        base already outrank the score the fusion would give one (``graph_place``) by more than the credibility band
        and the period discount can move, it is left out (the fusion would drop it)."""
        started = time.perf_counter()
        try:
            kb = task.knowledge_base
            fused: dict[str, float] = {}
            known: dict[str, SearchHit] = {}
            for run in runs:
                if run.task.knowledge_base != kb:
                    continue
                for rank, hit in enumerate(run.hits, start=1):
                    fused[hit.chunk_id] = fused.get(hit.chunk_id, 0.0) + run.task.weight / (strategy.rrf_k + rank)
                    known.setdefault(hit.chunk_id, hit)
            seeds = sorted(fused.items(), key=lambda item: -item[1])[: strategy.graph.seed_hits]
            key = (kb, tuple(m.key for m in asked))
            if key in memo.walks:
                return replace(memo.walks[key], task=task)
            tables, neighbourhood = near.result()
            neighbourhood = graph.widen(tables, neighbourhood, [known[c] for c, _ in seeds])
            result = graph.walk(neighbourhood, asked, seeds, task.top_k, strategy.graph.damping)
            band = strategy.credibility.credibility_band
            ahead = sorted(fused.values(), reverse=True)
            bar = ahead[strategy.max_evidence - 1] * (1 - band) / (1 + band) * OUTSIDE_WINDOW_RELEVANCE \
                if len(ahead) >= strategy.max_evidence else 0.0  # (a searched passage may lose both)
            placed = graph_place([(c, task.weight / (strategy.rrf_k + rank))
                                  for rank, (c, _, _) in enumerate(result.ranked, start=1) if c not in known],
                                 result.reach, fused)
            ranked = [(c, d, score) for rank, (c, d, score) in enumerate(result.ranked, start=1)
                      if (c in known and strategy.graph.rerank)
                      or (c not in known and max(placed[c], task.weight / (strategy.rrf_k + rank)) >= bar)]
        except Exception as exc:  # noqa: BLE001 - a failing task keeps its error, as a failing search does
            return TaskRun(task, (), (time.perf_counter() - started) * 1000, f"{type(exc).__name__}: {exc}")
        kept = {c for c, _, _ in ranked}
        memo.walks[key] = Walked(task, ranked, {c: r for c, r in result.reach.items() if c in kept}, known,
                                 dict(neighbourhood.doc_of), {}, (time.perf_counter() - started) * 1000)
        return memo.walks[key]

    def _walk_rows(self, walk: "Walked", chunks: Sequence[str], memo: AskMemo) -> str | None:
        """Read the rows of ``chunks`` (passages only ``walk`` found) into it, and the rows of the passages that name
        what led to them (for their titles), with their sentence vectors beside them (not after the fusion). Returns
        the read's error, or None."""
        started = time.perf_counter()
        kb = walk.task.knowledge_base
        wanted = {c: walk.doc_of[c] for c in chunks}
        wanted.update({r.from_chunk: walk.doc_of[r.from_chunk] for c in chunks if (r := walk.reach.get(c))
                       and r.from_chunk and r.from_chunk not in walk.known and r.from_chunk not in walk.rows})
        try:
            reading = _READER.submit(self._sentences, [(kb, c) for c in wanted], memo)
            walk.rows.update(self.store.chunks_by_id(kb, wanted))
            reading.result()
            return None
        except Exception as exc:  # noqa: BLE001 - a failing task keeps its error, as a failing search does
            return f"{type(exc).__name__}: {exc}"
        finally:
            walk.ms += (time.perf_counter() - started) * 1000

    def _fuse_walks(self, runs: Sequence[TaskRun], walking: Sequence["Walked | TaskRun"],
                    tasks: Sequence[RetrievalTask], intent: Intent, strategy: Strategy,
                    question: np.ndarray | None) -> tuple[list[TaskRun], list[Evidence], int, int, "FusionBounds"]:
        """The searches' runs and the walks' (each walk's passages whose rows are at hand), fused: the runs in the
        tasks' order, the evidence, the candidates, those dropped and the bounds ``_could_enter`` reads."""
        found = {hit.chunk_id: hit for run in runs for hit in run.hits}
        every = list(runs) + [w if isinstance(w, TaskRun) else w.run(found) for w in walking]
        ordered = [next(r for r in every if r.task is task) for task in tasks]
        bounds = FusionBounds()
        evidence, candidates, dropped = self.fuse(ordered, intent, strategy, question, bounds)
        return ordered, evidence, candidates, dropped, bounds

    def _could_enter(self, walking: Sequence["Walked | TaskRun"], runs: Sequence[TaskRun], bounds: "FusionBounds",
                     intent: Intent, strategy: Strategy) -> tuple[dict[int, list[str]], int]:
        """For each walk (by ``id``), the passages only it found, not read yet, that could reach the evidence; and
        how many such passages are left unread (they count as candidates the evidence dropped, as when every row was
        read).

        ``bounds`` come from fusing everything else. A passage the walk alone found gets its own reciprocal rank; its
        relevance is that over its base's best fused score, times the base's scale, and credibility moves it up by at
        most the credibility band; the period discount only lowers it. When that is below the final score of the
        last passage the evidence keeps, the passage cannot enter the evidence, nor change what it keeps, so its row
        is not read. This holds when adding the passage leaves the base's best score and the similarity scales as
        they are: the passage is below the base's best (else it is read), and it is no closer to the question than
        the base's best hit, which holds when a vector or hybrid search of the question, unfiltered, ran on the base
        and did not return it (up to the approximation of its vector index).

        Revisions (``lift_current_revisions``) are read from the base's catalogue, not the passage's row: a passage
        of an older revision than the candidates of its series lifts others at most to its own relevance, which is
        below the bar; one of the newest revision may be lifted to the best relevance of its series' older
        revisions, and may take the lift of a candidate of its series that the evidence keeps only for its lift, so
        then it is read. Every unread passage is read when ``rerank`` is off (the walk then lends searched passages
        their places) or with fewer candidates than the evidence keeps."""
        out: dict[int, list[str]] = {}
        left = 0
        own: dict[str, float] = {}
        for walk in walking:
            if isinstance(walk, Walked):
                for rank, (c, _, _) in enumerate(walk.ranked, start=1):
                    own[c] = own.get(c, 0.0) + walk.task.weight / (strategy.rrf_k + rank)
        searched = {r.task.knowledge_base for r in runs if r.task.search_type in ("vector", "hybrid")
                    and r.task.query == intent.search_query and r.task.filters == SearchFilters()
                    and r.error is None and r.hits}
        grow = 1 + strategy.credibility.credibility_band
        found = {hit.chunk_id for run in runs for hit in run.hits}  # (a later attempt's searches may find more)
        for walk in walking:
            if not isinstance(walk, Walked):
                continue
            unread = [c for c, _, _ in walk.ranked if c not in walk.known and c not in walk.rows and c not in found]
            kb = walk.task.knowledge_base
            top, scale = bounds.top_rrf.get(kb, 0.0), bounds.scale.get(kb)
            if not unread or not strategy.graph.rerank or bounds.kth is None or kb not in searched or top <= 0 \
                    or scale is None:
                out[id(walk)] = unread
                continue
            revisions = self.store.revisions(kb) if bounds.series else None
            wanted = []
            for c in unread:
                relevance = own[c] / top * scale
                if revisions is not None and walk.doc_of[c] not in revisions:
                    wanted.append(c)  # a document the catalogue does not know yet
                    continue
                series, date_of = revisions[walk.doc_of[c]] if revisions is not None else (None, None)
                rivals = bounds.series.get(series, []) if series and date_of else []
                if rivals and date_of >= max(r.date for r in rivals):
                    if any(r.kept and r.lifted > r.relevance for r in rivals):
                        wanted.append(c)
                        continue
                    relevance = max([relevance] + [r.relevance for r in rivals if r.date < date_of])
                if own[c] >= top or relevance * grow >= bounds.kth:
                    wanted.append(c)
            out[id(walk)] = wanted
            left += len(unread) - len(wanted)
        return out, left

    def _title_indexes(self, bases: Sequence[str], memo: AskMemo) -> dict[str, TitleIndex]:
        missing = [kb for kb in dict.fromkeys(bases) if kb not in memo.indexes]
        memo.indexes.update(title_indexes(self.store, missing) if missing else {})
        return {kb: memo.indexes[kb] for kb in dict.fromkeys(bases)}

    def fuse(self, runs: Sequence[TaskRun], intent: Intent, strategy: Strategy,
             question_vector: np.ndarray | None = None,
             bounds: FusionBounds | None = None) -> tuple[list[Evidence], int, int]:
        """The runs fused as of this retriever's today (engine/retrieval/fusion.py ``fuse``)."""
        return fuse(runs, intent, strategy, question_vector, self.today(), bounds)

    def _sentences(self, chunks: Sequence[tuple[str, str]], memo: AskMemo) -> None:
        """Read the stored sentence vectors of the chunks ``memo`` does not hold yet into it."""
        unread = [chunk for chunk in dict.fromkeys(chunks) if chunk not in memo.read]
        if unread:
            memo.sentences.update(self.store.sentence_vectors(unread))
            memo.read.update(unread)


def _done(value: np.ndarray) -> Future:
    known: Future = Future()
    known.set_result(value)
    return known
