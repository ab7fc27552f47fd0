"""The read side of a knowledge base store: searches (one base or several at once, the ask's retrieval tasks), the
nearest chunks of given documents, and what is derived from a base and kept until it changes (its vocabulary, its
titles as names). :class:`engine.store.knowledge_bases.KnowledgeBaseStore` is a :class:`StoreReading` and supplies
the tables (``_find``, ``_open``, ``_present``, ``_catalogue``, ``_entries``, ``_scan``) and the keyword index
(``_keyword_index_ready``) these read.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from engine.fork_safe import ForkSafePool
from engine.results import SearchFilters
from engine.store.catalogue import in_list
from engine.store import mentions as mention_rows
from engine.store import synonyms
from engine.store.schema import META_COLUMNS, TABLE_PREFIX, SearchHit, check_doc_id, sql_literal
from engine.store.search import (
    LegMemo, Outcome, Search, SearchRequest, as_rows, filter_sql, read_rows, run_all, run_search, run_searches,
)
from engine.store.titles import TitleIndex
from engine.store.vocabulary import Vocabulary

log = logging.getLogger(__name__)

_HOLDING = ForkSafePool(1, "graph-hold")
"""Reads mention tables whole into memory, one at a time, away from the asks that need them."""

HOLD_AFTER_S = 2.0
"""A mention table is read whole once it has been unchanged this long (at 100,000 passages a read takes 0.7 s of a
core and, briefly, about 300 MB)."""


class StoreReading:
    """Searching a store's bases and the vocabulary and titles derived from them (see the module docstring)."""

    def title_index(self, kb: str) -> TitleIndex:
        """The titles of ``kb``'s documents as names (see ``titles``), kept until its catalogue changes."""
        return self._documents(kb)[0]

    def revisions(self, kb: str) -> Mapping[str, tuple[str | None, str | None]]:
        """Each document of ``kb`` with its series and date (doc id -> (series, update_date)), kept until its
        catalogue changes: what ordering revisions needs (``lift_current_revisions``) without reading chunks."""
        return self._documents(kb)[1]

    def _documents(self, kb: str) -> tuple[TitleIndex, Mapping[str, tuple[str | None, str | None]]]:
        table = self._find(kb)
        if table is None:
            return TitleIndex(()), {}
        catalogue = self._catalogue(kb, table)
        version = self._db.version(catalogue)
        with self._vocabulary_lock:
            cached = self._titles.get(kb)
        if cached is None or cached[0] != version:
            entries = self._entries(kb, table)
            ids = entries["doc_id"].to_pylist()
            cached = (version, TitleIndex(zip(ids, entries["title"].to_pylist())),
                      dict(zip(ids, zip(entries["series"].to_pylist(), entries["update_date"].to_pylist()))))
            with self._vocabulary_lock:
                self._titles[kb] = cached
        return cached[1], cached[2]

    def nearest_chunks(self, kb: str, doc_ids: Sequence[str], vector: np.ndarray, k: int) -> list[SearchHit]:
        """The ``k`` chunks of these documents nearest to ``vector`` (a vector search filtered by ``doc_id``)."""
        if not doc_ids:
            return []
        return run_search(self._open(kb), "vector", "", vector, k, in_list([check_doc_id(d) for d in doc_ids]))

    def graph_tables(self, kb: str) -> mention_rows.GraphTables | None:
        """The entity graph of ``kb`` (engine/store/mentions.py): its mention table, the passage counts of the
        mentions its passages share and, for a table small enough, its rows in memory, kept until either table
        changes; None when it has no graph. A table of up to ``LOCAL_ROWS`` rows is read here; one of up to
        ``HELD_ROWS`` on a background thread, the walks reading the store until it is held."""
        table = mention_rows.table_of(self._db, kb)
        if table is None:
            return None
        counts = mention_rows.counts_of(self._db, kb)
        version = (self._db.version(table), None if counts is None else self._db.version(counts))
        with self._vocabulary_lock:
            cached = self._graph_counts.get(kb)
        if cached is None or cached[0] != version:
            rows = table.count_rows()
            local = mention_rows.local_graph(table) if rows <= mention_rows.LOCAL_ROWS else None
            cached = (version, mention_rows.shared_counts(counts), local, self._synonyms(kb))
            with self._vocabulary_lock:
                self._graph_counts[kb] = cached
            if local is None and rows <= mention_rows.HELD_ROWS:
                _HOLDING.submit(self._hold_graph, kb, table, version)
        return mention_rows.GraphTables(table, cached[1], cached[2], cached[3])

    def _synonyms(self, kb: str):
        """``kb``'s synonym edges (engine/store/synonyms.py): held, or read by key when there are too many, or none.
        They are written only with its mentions, so they are looked at again only when the mention table changes."""
        edges = synonyms.edges_of(self._db, kb)
        if edges is None:
            return {}
        return synonyms.synonym_map(edges) if edges.count_rows() <= synonyms.HELD_EDGES else synonyms.ByKey(edges)

    def _hold_graph(self, kb: str, table, version: tuple) -> None:
        """Read ``kb``'s mention table whole into memory (``graph_tables``), once it has stayed unchanged for
        ``HOLD_AFTER_S`` (a base being written to is not read whole after every write), unless it changed."""
        time.sleep(HOLD_AFTER_S)
        with self._vocabulary_lock:
            current = self._graph_counts.get(kb)
        if current is None or current[0] != version or current[2] is not None:
            return  # a newer version was seen (its own load is queued), or this one is held already
        try:
            latest = mention_rows.table_of(self._db, kb)
            if latest is None or latest.version != version[0]:
                return  # written to meanwhile: the next ask's look at the graph queues the new version
        except Exception:  # noqa: BLE001 - the table is being replaced; the next ask looks again
            return
        try:
            local = mention_rows.local_graph(table)  # (counted when queued; the version is unchanged)
        except Exception as exc:  # noqa: BLE001 - the walks go on reading the store
            log.warning("the entity graph of %s was not held in memory (walks read the store): %s", kb, exc)
            return
        with self._vocabulary_lock:
            current = self._graph_counts.get(kb)
            if current is not None and current[0] == version:
                self._graph_counts[kb] = (version, current[1], local, current[3])

    def chunks_by_id(self, kb: str, chunks: dict[str, str]) -> dict[str, SearchHit]:
        """The rows of these chunks of ``kb`` (chunk id -> its document id) as hits of score 0, by chunk id. The
        read goes through the document index, then picks the chunks."""
        if not chunks:
            return {}
        where = (f"{in_list(sorted({check_doc_id(d) for d in chunks.values()}))} AND chunk_id IN "
                 f"({', '.join(sql_literal(c) for c in sorted(chunks))})")
        rows = as_rows(run_all([read_rows(self._open(kb), where, META_COLUMNS + ["vector"])])[0])
        return {row["chunk_id"]: SearchHit.from_row(row, 0.0, "graph") for row in rows}

    def vocabulary(self, kb: str | Sequence[str] | None = None, known: Sequence[str] | None = None) -> Vocabulary:
        """The words of one, several or all knowledge bases (bases that do not exist are skipped; ``known``: the
        bases there are, when the caller has just listed them). Built from the keyword-indexed text on first use
        and kept until the table's version changes."""
        known = self.knowledge_base_names() if known is None else known
        names = known if kb is None else [kb] if isinstance(kb, str) else list(kb)
        parts, key = [], []
        for name in (n for n in names if n in known):
            table = self._find(name)
            if table is None:
                continue
            version = self._db.version(table)
            with self._vocabulary_lock:
                cached = self._vocabularies.get(name)
            if cached is None or cached[0] != version:
                rows = self._scan(table, ["search_text"])
                cached = (version, Vocabulary.from_texts(rows["search_text"].to_pylist()))
                with self._vocabulary_lock:
                    self._vocabularies[name] = cached
            parts.append(cached[1])
            key.append((name, cached[0]))
        if len(parts) < 2:
            return parts[0] if parts else Vocabulary()
        merged = self._merged
        if merged is None or merged[0] != tuple(key):
            merged = (tuple(key), Vocabulary.merge(parts))
            self._merged = merged
        return merged[1]

    def search(
        self,
        query: str,
        kb: str | Sequence[str] | None = None,
        mode: str = "hybrid",
        k: int = 10,
        filters: SearchFilters | None = None,
        vector: np.ndarray | None = None,
    ) -> list[SearchHit]:
        """Search one, several or all knowledge bases; results merged by score (best first)."""
        if kb is None:
            tables = self._present()
        else:
            tables = [self._open(name) for name in ([kb] if isinstance(kb, str) else list(kb))]
        if not query or not query.strip():
            return []
        if mode in ("keyword", "hybrid"):
            for table in tables:
                self._keyword_index_ready(table.name[len(TABLE_PREFIX):], table)
        if vector is None and mode in ("vector", "hybrid"):
            vector = self.embedder.encode_one(query)
        where = filter_sql(filters)
        hits: list[SearchHit] = []
        for outcome in run_searches([Search(table, mode, query, vector, k, where) for table in tables]):
            if outcome.error is not None:
                raise outcome.error
            hits.extend(outcome.hits)
        hits.sort(key=lambda h: h.score, reverse=True)
        return hits[:k]

    def search_many(self, requests: Sequence[SearchRequest], memo: LegMemo | None = None) -> list[Outcome]:
        """Several single-base searches at once (the retrieval tasks of one ask), in the order given.

        A request that cannot run (a missing base, a bad filter) gets an outcome carrying its error; the others
        still run. Identical requests run once. A blank query finds nothing. ``memo``: the rows of the ask's earlier
        queries, read instead of querying again where they go deep enough (and kept for later ones)."""
        outcomes: dict[int, Outcome] = {}
        searches: dict[int, Search] = {}
        tables: dict[str, Any] = {}
        keyword_ready: set[str] = set()
        for index, request in enumerate(requests):
            if not request.query or not request.query.strip():
                outcomes[index] = Outcome((), 0.0)
                continue
            try:
                if request.kb not in tables:
                    tables[request.kb] = self._open(request.kb)
                table = tables[request.kb]
                if request.mode in ("keyword", "hybrid") and request.kb not in keyword_ready:
                    self._keyword_index_ready(request.kb, table)  # once per base and ask
                    keyword_ready.add(request.kb)
                vector = request.vector
                if vector is None and request.mode in ("vector", "hybrid"):
                    vector = self.embedder.encode_one(request.query)
                searches[index] = Search(table, request.mode, request.query, vector, request.k,
                                         filter_sql(request.filters), request.fetch_k)
            except Exception as exc:  # noqa: BLE001 - kept with its request
                outcomes[index] = Outcome((), 0.0, exc)
        outcomes.update(zip(searches, run_searches(list(searches.values()), memo)))
        return [outcomes[index] for index in range(len(requests))]
