"""Named knowledge bases on LanceDB: per base, one table of chunks, one catalogue of its documents
(:mod:`engine.store.catalogue`) and one table of its sentence vectors (:mod:`engine.store.sentences`), in the store at ``settings.store_location`` (``DATA_DIR/lancedb`` unless
``WORKBENCH_STORE_URI`` names another folder, an object store or ``memory://``).

Several threads and processes may write at once. A write holds its base's lock file (``DATA_DIR/locks``, always
local) from "does the table exist, which of these documents does it hold" to its commits, and runs a commit
again when it loses a race (see :mod:`engine.store.commits`). Index work is not part of a write: it is
:meth:`KnowledgeBaseStore.maintain`, which the ingestor calls after writing and which a keyword search
calls when it finds the full-text index missing (see :mod:`engine.store.maintenance`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from engine.config import Settings
from engine.embeddings import AnyEmbedder, embedder_for
from engine.errors import KnowledgeBaseError
from engine.store.catalogue import (
    CATALOGUE_PREFIX, DELETING, DOC_COLUMNS, READY, WRITING, catalogue_schema, entries_from_chunks, in_list, infos,
    read_all, upsert, with_status,
)
from engine.store.commits import MAINTENANCE_WAIT_S, BaseLocks, retry_conflicts
from engine.store.conflicts import (
    ExistingDoc, Incoming, OnConflict, Written, check_on_conflict, decide, existing_from, renamed,
)
from engine.store.maintenance import (
    FTS_INDEX, MaintenanceResult, index_names, maintain, tidy_catalogue,
)
from engine.store.schema import (
    TABLE_PREFIX, DocumentInfo, KnowledgeBaseInfo, check_doc_id, check_kb_name, chunk_schema, open_named,
    sql_literal,
)
from engine.store import mentions as mention_rows
from engine.store import synonyms
from engine.store import sentences as sentence_rows
from engine.store import tables
from engine.store.sentence_fill import SentenceFiller, SentenceFilling
from engine.store.sentences import SENTENCE_PREFIX
from engine.store.retitle import check_title, retitled_rows
from engine.store.reading import StoreReading
from engine.store.vocabulary import Vocabulary

log = logging.getLogger(__name__)


REFRESH_AFTER = 32
"""Index rebuilds after which the store reopens its LanceDB connection (releasing old index readers)."""


class KnowledgeBaseStore(StoreReading, SentenceFilling):
    """Add, list, search and delete documents in named knowledge bases."""

    def __init__(self, settings: Settings, embedder: AnyEmbedder | None = None) -> None:
        self.settings = settings
        if settings.store_is_local:
            Path(settings.store_location).mkdir(parents=True, exist_ok=True)
        self._db = self._connect()
        self._maintained = 0  # index rebuilds since the connection was opened (see _refresh_connection)
        self._embedder = embedder
        self._write_lock = threading.Lock()
        self._locks = BaseLocks(settings.data_dir / "locks", released=lambda: self._db.changed())
        self._keyword_ready: dict[str, int] = {}  # kb -> the last table version seen with a full-text index
        self._vocabularies: dict[str, tuple[int, Vocabulary]] = {}  # kb -> (table version, its vocabulary)
        self._merged: tuple[tuple, Vocabulary] | None = None  # the last merged set, keyed by (kb, version) pairs
        self._vocabulary_lock = threading.Lock()
        self._titles: dict[str, tuple] = {}  # kb -> (catalogue version, its title index, its documents' revisions)
        self._graph_counts: dict[str, tuple] = {}  # kb -> ((mention, count table versions), counts, small table)
        self._filler = SentenceFiller(self.fill_sentences, lambda kb: sentence_rows.maintain_table(self._db, kb))

    # -- plumbing -----------------------------------------------------------
    def _connect(self):
        return tables.connect(self.settings.store_location, self.settings.store_index_cache_mb,
                              self.settings.store_metadata_cache_mb, self.settings.storage_options)

    def _refresh_connection(self) -> None:
        """Every REFRESH_AFTER index rebuilds, open a fresh connection: LanceDB keeps a reader (an open file) for
        every full-text index version it has searched, so a long-running app would otherwise gain a descriptor
        per upload. Calls already under way keep the old connection until they finish."""
        self._maintained += 1
        if self._maintained >= REFRESH_AFTER and not self.settings.store_location.startswith("memory://"):
            self._db, self._maintained = self._connect(), 0

    @property
    def embedder(self) -> AnyEmbedder:
        if self._embedder is None:
            self._embedder = embedder_for(self.settings)
        return self._embedder

    def _table_names(self) -> list[str]:
        result = self._db.list_tables()
        names = getattr(result, "tables", result)
        return sorted(n for n in names if n.startswith(TABLE_PREFIX))

    def knowledge_base_names(self) -> list[str]:
        return [n[len(TABLE_PREFIX):] for n in self._table_names()]

    def exists(self, kb: str) -> bool:
        return check_kb_name(kb) in self.knowledge_base_names()

    def _find(self, kb: str):
        """The table of ``kb``, or None when there is none, or only the folder of one being created or whose
        creation was cut short (LanceDB lists such a folder but cannot open it)."""
        return self._open_named(TABLE_PREFIX + check_kb_name(kb))  # opened by name: no listing of the store

    def _open_named(self, name: str):
        """The table ``name``, or None when it is missing or only a folder whose creation was cut short."""
        return open_named(self._db, name)

    def _open(self, kb: str):
        table = self._find(kb)
        if table is None:
            known = ", ".join(self.knowledge_base_names()) or "none yet"
            raise KnowledgeBaseError(
                f"Knowledge base {kb!r} does not exist (known: {known}). Ingest documents into it first."
            )
        return table

    def _open_or_create(self, kb: str):
        """The table of ``kb``, created if need be; call with the base's lock held."""
        table = self._find(check_kb_name(kb))
        if table is not None:
            return table
        # exist_ok: a writer that does not take the lock files (another tool) may have created it meanwhile
        table = self._db.create_table(TABLE_PREFIX + kb, schema=chunk_schema(self.embedder.dim), exist_ok=True)
        if table.count_rows() == 0:  # a new base: a catalogue left by a dropped base of this name is stale
            self._db.create_table(CATALOGUE_PREFIX + kb, schema=catalogue_schema(), mode="overwrite")
        return table

    def _present(self) -> list:
        """The tables of the bases that can be opened now (a base still being created is left out)."""
        return [t for t in (self._open_named(TABLE_PREFIX + n) for n in self.knowledge_base_names()) if t is not None]

    # -- the catalogue --------------------------------------------------------
    def _catalogue(self, kb: str, table, locked: bool = False):
        """The catalogue of ``kb``; built from its chunk table when the base has none yet (a store written before
        catalogues existed), under the base's lock (``locked``: the caller holds it)."""
        catalogue = self._open_named(CATALOGUE_PREFIX + kb)
        if catalogue is not None:
            return catalogue
        if locked:
            return self._build_catalogue(kb, table)
        with self._locks.hold(kb):
            table.checkout_latest()
            return self._open_named(CATALOGUE_PREFIX + kb) or self._build_catalogue(kb, table)

    def _build_catalogue(self, kb: str, table):
        log.info("building the document catalogue of %s from its chunks (once)", kb)
        entries = entries_from_chunks(self._scan(table, DOC_COLUMNS))
        name, data = CATALOGUE_PREFIX + kb, entries if entries.num_rows else None
        try:
            return self._db.create_table(name, data=data, schema=catalogue_schema())
        except ValueError as exc:
            if "already exists" not in str(exc):
                raise
        # made by another host meanwhile, or a folder whose creation was cut short
        return self._open_named(name) or self._db.create_table(name, data=data, schema=catalogue_schema(),
                                                               mode="overwrite")

    def _entries(self, kb: str, table) -> pa.Table:
        """Catalogue rows of ``kb``; a document whose row is not ready is described by its chunks instead."""
        entries = read_all(self._catalogue(kb, table))
        pending = entries.filter(pc.not_equal(entries["status"], READY))
        if pending.num_rows == 0:
            return entries
        ids = sorted(set(pending["doc_id"].to_pylist()))
        truth = entries_from_chunks(self._scan(table, DOC_COLUMNS, in_list(ids)))
        return pa.concat_tables([entries.filter(pc.equal(entries["status"], READY)), truth])

    def _catalogue_for_write(self, kb: str, table):
        """The catalogue, with rows a cut-short write left unsettled rewritten from the chunks; hold the lock."""
        catalogue = self._catalogue(kb, table, locked=True)
        rows = catalogue.search().where(f"status != {sql_literal(READY)}").select(["doc_id"]).limit(None).to_arrow()
        if rows.num_rows:
            self._settle(kb, table, catalogue, rows["doc_id"].to_pylist())
        return catalogue

    def _settle(self, kb: str, table, catalogue, doc_ids) -> None:
        """Rewrite the rows of ``doc_ids`` from what the chunk table holds now."""
        ids = sorted(set(doc_ids))
        truth = entries_from_chunks(self._scan(table, DOC_COLUMNS, in_list(ids)))
        gone = sorted(set(ids) - set(truth["doc_id"].to_pylist()))
        retry_conflicts(lambda: upsert(catalogue, truth, remove=gone), f"Updating the catalogue of {kb!r}")

    def _marked(self, catalogue, entries: pa.Table, removing: Sequence[str]) -> pa.Table:
        """Rows announcing a write: ``entries`` as writing, the current rows of ``removing`` as deleting."""
        marks = [with_status(entries, WRITING)]
        if removing:
            current = catalogue.search().where(in_list(removing)).select(catalogue_schema().names).limit(None)
            marks.append(with_status(current.to_arrow().cast(catalogue_schema()), DELETING))
        return pa.concat_tables(marks)

    def _commit_with_catalogue(self, kb: str, table, catalogue, entries: pa.Table, removing: Sequence[str],
                               commit, what: str) -> None:
        """Mark the catalogue rows, run the chunk ``commit``, then settle the rows (see the catalogue module)."""
        marks = self._marked(catalogue, entries, removing)
        touched = sorted(set(marks["doc_id"].to_pylist()) | set(removing))
        retry_conflicts(lambda: upsert(catalogue, marks), f"{what} (catalogue)")
        try:
            retry_conflicts(commit, what)
        except BaseException:
            try:  # put the rows back to what the chunks say; readers do the same if this fails too
                self._settle(kb, table, catalogue, touched)
            except Exception as exc:  # noqa: BLE001 - the chunk commit's error is the one to raise
                log.warning("catalogue of %s left unsettled after a failed write: %s", kb, exc)
            raise
        try:
            retry_conflicts(lambda: upsert(catalogue, entries, remove=sorted(set(removing))), f"{what} (catalogue)")
        except Exception as exc:  # noqa: BLE001 - the chunks landed; readers and the next write settle the rows
            log.warning("catalogue of %s not settled after a write (left for the next write): %s", kb, exc)

    # -- reading ------------------------------------------------------------
    def _scan(self, kb, columns: list[str], where: str | None = None) -> pa.Table:
        """Columns of every matching row; ``kb`` is a base name or an already-open table."""
        table = self._open(kb) if isinstance(kb, str) else kb
        query = table.search().select(columns)
        if where:
            query = query.where(where)
        return query.limit(None).to_arrow()

    def list_documents(self, kb: str) -> list[DocumentInfo]:
        """Documents in ``kb`` with their chunk counts, newest date first (from the catalogue)."""
        return infos(self._entries(kb, self._open(kb)), kb)

    def list_knowledge_bases(self) -> list[KnowledgeBaseInfo]:
        """Every base with its document and chunk counts and date range (catalogues and table metadata only)."""
        bases = []
        for table in self._present():
            kb = table.name[len(TABLE_PREFIX):]
            entries = self._entries(kb, table)
            dates = pc.drop_null(entries["update_date"])
            bases.append(
                KnowledgeBaseInfo(
                    name=kb,
                    documents=entries.num_rows,
                    chunks=table.count_rows(),
                    earliest_date=pc.min(dates).as_py() if len(dates) else None,
                    latest_date=pc.max(dates).as_py() if len(dates) else None,
                    has_vector_index="vector_idx" in index_names(table),
                )
            )
        return bases

    def document_hashes(self, kb: str) -> dict[str, str]:
        """doc_id -> content hash, for every document in ``kb`` (empty when the base is new)."""
        table = self._find(kb)
        if table is None:
            return {}
        entries = self._entries(kb, table)
        return dict(zip(entries["doc_id"].to_pylist(), entries["content_hash"].to_pylist()))

    def existing_documents(self, kb: str, doc_ids: Sequence[str]) -> dict[str, ExistingDoc]:
        """The stored documents among ``doc_ids``: title, date and when stored (from the catalogue)."""
        table = self._find(kb)
        if table is None or not doc_ids:
            return {}
        entries = self._entries(kb, table)
        return existing_from(entries.filter(pc.is_in(entries["doc_id"], pa.array(list(doc_ids), pa.string()))))

    def get_document(self, doc_id: str, kb: str | None = None) -> tuple[DocumentInfo, list[dict[str, Any]]]:
        """A document's info and its chunks in order; searches every base when ``kb`` is None."""
        check_doc_id(doc_id)
        for name in [kb] if kb else self.knowledge_base_names():
            cols = ["chunk_id", "position", "page", "text", *DOC_COLUMNS]
            rows = self._scan(name, cols, f"doc_id = {sql_literal(doc_id)}")
            if rows.num_rows:
                (info,) = infos(entries_from_chunks(rows.select(DOC_COLUMNS)), name)
                chunks = rows.select(["chunk_id", "position", "page", "text"]).to_pylist()
                return info, sorted(chunks, key=lambda r: r["position"])
        where = f" in {kb!r}" if kb else ""
        raise KnowledgeBaseError(f"Document {doc_id!r} was not found{where}; run `python -m engine kb list` for ids.")

    def sentence_vectors(self, chunks: Sequence[tuple[str, str]]) -> dict[str, np.ndarray]:
        """The stored vectors of the sentences of these ``(kb, chunk_id)`` chunks, by sentence text (see
        engine/store/sentences.py)."""
        return sentence_rows.read_vectors(self._db, chunks)

    def document_sentence_vectors(self, kb: str, doc_id: str) -> dict[str, np.ndarray]:
        """The stored vectors of the sentences of one document, by sentence text."""
        return sentence_rows.read_document(self._db, kb, doc_id)

    def count_chunks(self, kb: str, doc_id: str | None = None) -> int:
        table = self._find(kb)
        if table is None:
            return 0
        where = f"doc_id = {sql_literal(check_doc_id(doc_id))}" if doc_id else None
        return table.count_rows(where)

    # -- writing ------------------------------------------------------------
    def write_documents(self, kb: str, rows: Sequence[dict[str, Any]] | pa.Table,
                        replace_doc_ids: Iterable[str] = (), on_conflict: OnConflict = "replace") -> list[Written]:
        """Write chunk rows (dicts, or a table of the chunk schema) in one commit, and say what became of each
        document they belong to (see :mod:`engine.store.conflicts`): added, replaced (the older chunks removed in
        the same commit), a keep-both copy under a new id, unchanged or skipped. The outcome is decided under the
        base's lock, so it is true of the base whatever other writers do.

        ``replace_doc_ids`` names documents to remove even if they get no rows here. A document that another
        writer stored without the lock since it was decided is replaced too, so it is never there twice. Indexes
        are not touched: call :meth:`maintain` afterwards.
        """
        check_kb_name(kb)
        policy = check_on_conflict(on_conflict)
        replace = {check_doc_id(d) for d in replace_doc_ids}
        if not len(rows) and not replace:
            return []
        dim = self.embedder.dim
        if not isinstance(rows, pa.Table):
            rows = pa.Table.from_pylist(list(rows), schema=chunk_schema(dim))
        incoming = [Incoming(**row) for row in entries_from_chunks(rows.select(DOC_COLUMNS))
                    .select(["doc_id", "content_hash", "title"]).to_pylist()]
        for doc in incoming:
            check_doc_id(doc.doc_id)
        with self._write_lock, self._locks.hold(kb):
            table = self._open_or_create(kb)
            catalogue = self._catalogue_for_write(kb, table)
            outcomes = decide(incoming, self._stored_entries(catalogue, incoming, policy), policy)
            kept = [o for o in outcomes if o.status in ("added", "replaced")]
            replace |= {o.doc_id for o in outcomes if o.status == "replaced"}
            if not kept and not replace:
                return outcomes
            if len(kept) == len(incoming) and all(o.doc_id == o.requested_id for o in kept):
                chosen = rows
            else:
                chosen = pa.concat_tables([renamed(rows, o) for o in kept]) if kept else rows.slice(0, 0)
            chosen, sentences = sentence_rows.split_off(chosen, dim)  # sentences: to their own table
            data = chosen.cast(chunk_schema(dim))
            written = [o.doc_id for o in kept]
            entries = entries_from_chunks(data.select(DOC_COLUMNS))
            replace |= self._stored_doc_ids(table, written)
            if replace:
                commit = (lambda: table.merge_insert("chunk_id").when_matched_update_all()
                          .when_not_matched_insert_all().when_not_matched_by_source_delete(in_list(replace))
                          .execute(data))
            else:
                commit = lambda: table.add(data)  # noqa: E731
            what = f"Writing {len(written)} document(s) to {kb!r}"
            self._commit_with_catalogue(kb, table, catalogue, entries, sorted(replace - set(written)), commit, what)
            sentence_rows.write_rows(self._db, kb, sentences, sorted(replace | set(written)), dim)
            mention_rows.write_rows(self._db, kb, mention_rows.rows_for(data), sorted(replace | set(written)),
                                    self._name_encoder())
        return outcomes

    @staticmethod
    def _stored_entries(catalogue, incoming: Sequence[Incoming], policy: OnConflict) -> dict[str, ExistingDoc]:
        """The catalogue's documents a write must know of (settled: the caller holds the lock): those it writes, or
        for keep-both every one (a copy's id must be free)."""
        if not incoming:
            return {}
        if policy == "keep-both":
            return existing_from(read_all(catalogue))
        rows = catalogue.search().where(in_list([d.doc_id for d in incoming])).select(catalogue_schema().names)
        return existing_from(rows.limit(None).to_arrow())

    def _stored_doc_ids(self, table, doc_ids: Sequence[str]) -> set[str]:
        """Which of ``doc_ids`` already have chunks in ``table``."""
        if not doc_ids or table.count_rows() == 0:
            return set()
        return set(self._scan(table, ["doc_id"], in_list(doc_ids))["doc_id"].to_pylist())

    def maintain(self, kb: str) -> MaintenanceResult:
        """Bring the indexes of ``kb`` up to date: build missing ones, fold in rows written since; settle and
        compact its catalogue.

        Never raises for a failure of the index work itself (it is logged and returned as ``pending``): the
        data is already committed, and the next call finds the same work to do.
        """
        table = self._find(check_kb_name(kb))
        if table is None:
            return MaintenanceResult(kb)
        try:
            catalogue = self._open_named(CATALOGUE_PREFIX + kb)
            if catalogue is not None and catalogue.count_rows(f"status != {sql_literal(READY)}"):
                with self._write_lock, self._locks.hold(kb):  # rows a cut-short write left: settle them now
                    table.checkout_latest()
                    self._catalogue_for_write(kb, table)
            if mention_rows.table_of(self._db, kb) is None and table.count_rows():  # written before the graph existed
                with self._write_lock, self._locks.hold(kb):
                    if mention_rows.table_of(self._db, kb) is None:
                        self._build_mentions(kb, table)
            with self._locks.hold(kb, "maintenance", MAINTENANCE_WAIT_S):  # one at a time; writers go on meanwhile
                table.checkout_latest()
                result = maintain(table, kb, self.settings)
                if catalogue is not None:
                    catalogue.checkout_latest()
                    tidy_catalogue(catalogue)
                sentence_rows.maintain_table(self._db, kb)
                mention_rows.maintain_table(self._db, kb)
            self._refresh_connection()
            return result
        except Exception as exc:  # noqa: BLE001 - index work must not turn a landed write into an error
            log.warning("index maintenance of %s failed; left for the next ingest or search: %s", kb, exc)
            return MaintenanceResult(kb, pending=f"{type(exc).__name__}: {exc}")

    def rebuild_mentions(self, kb: str) -> int:
        """Make ``kb``'s entity-graph mentions again from its chunks (a base written before the graph existed, or
        one whose mention write failed); returns how many mention rows it holds now."""
        with self._write_lock, self._locks.hold(check_kb_name(kb)):
            self._build_mentions(kb, self._open(kb))
        self.maintain(kb)
        return mention_rows.count(self._db, kb)

    def _build_mentions(self, kb: str, table) -> None:
        chunks = self._scan(table, ["chunk_id", "doc_id", "title", "text"])
        mention_rows.drop(self._db, kb)
        self._db.create_table(mention_rows.MENTION_PREFIX + kb, data=mention_rows.rows_for(chunks),
                              schema=mention_rows.mention_schema())
        mention_rows.recount_all(self._db, kb, self._name_encoder())

    def synonym_pairs(self, kb: str) -> int:
        """How many pairs of names of ``kb`` its synonym edges join."""
        return len(synonyms.read_all(self._db, check_kb_name(kb))) // 2

    def _name_encoder(self):
        """The embedder that gives names their vectors for synonym edges, when ``graph_synonyms`` is on; else None
        (a name that goes still loses its vector and edges)."""
        return self.embedder if self.settings.graph_synonyms else None

    def _keyword_index_ready(self, kb: str, table) -> None:
        """Before a keyword search: build the full-text index if it is missing (a crash between a first write and
        its index build leaves it so). On failure the search goes on with LanceDB's unindexed scan."""
        if self._keyword_ready.get(kb) == self._db.version(table):
            return
        if FTS_INDEX not in index_names(table) and table.count_rows() > 0:
            result = self.maintain(kb)
            if result.pending:
                return
            table.checkout_latest()
        self._keyword_ready[kb] = self._db.version(table)

    def delete_document(self, doc_id: str, kb: str) -> int:
        """Remove every chunk of a document; returns how many were removed."""
        check_doc_id(doc_id)
        with self._write_lock, self._locks.hold(check_kb_name(kb)):
            table = self._open(kb)
            catalogue = self._catalogue_for_write(kb, table)
            where = f"doc_id = {sql_literal(doc_id)}"
            count = table.count_rows(where)  # the doc_id index answers this without a scan
            if count == 0:
                raise KnowledgeBaseError(f"Document {doc_id!r} is not in {kb!r}; run `python -m engine kb list` for ids.")
            self._commit_with_catalogue(kb, table, catalogue, catalogue_schema().empty_table(), [doc_id],
                                        lambda: table.delete(where), f"Deleting {doc_id!r} from {kb!r}")
            sentence_rows.write_rows(self._db, kb, None, [doc_id], self.embedder.dim)
            mention_rows.write_rows(self._db, kb, None, [doc_id])
        return count

    def set_title(self, doc_id: str, kb: str, title: str) -> DocumentInfo:
        """Give a document the title its user chose: in the catalogue and on every chunk (so search results show
        it), in one commit of the chunks (engine/store/retitle.py). Returns the document as listed now."""
        check_doc_id(doc_id)
        title = check_title(title)
        with self._write_lock, self._locks.hold(check_kb_name(kb)):
            table = self._open(kb)
            catalogue = self._catalogue_for_write(kb, table)
            rows = self._scan(table, table.schema.names, f"doc_id = {sql_literal(doc_id)}")
            if rows.num_rows == 0:
                raise KnowledgeBaseError(f"Document {doc_id!r} is not in {kb!r}; run `python -m engine kb list` for ids.")
            rows = retitled_rows(rows, title)
            entries = entries_from_chunks(rows.select(DOC_COLUMNS))
            self._commit_with_catalogue(
                kb, table, catalogue, entries, [],
                lambda: table.merge_insert("chunk_id").when_matched_update_all().execute(rows),
                f"Retitling {doc_id!r} in {kb!r}")
            mention_rows.retitle(self._db, kb, rows, self._name_encoder())
        self.maintain(kb)  # the keyword index takes the new text
        return next(d for d in self.list_documents(kb) if d.doc_id == doc_id)

    def drop_knowledge_base(self, kb: str) -> None:
        self._open(kb)
        with self._write_lock, self._locks.hold(kb):
            self._db.drop_table(TABLE_PREFIX + kb)
            self._db.drop_table(CATALOGUE_PREFIX + kb, ignore_missing=True)
            self._db.drop_table(SENTENCE_PREFIX + kb, ignore_missing=True)
            mention_rows.drop(self._db, kb)
        with self._vocabulary_lock:
            self._vocabularies.pop(kb, None)  # a new table of the same name restarts its version count
            self._titles.pop(kb, None)
            self._graph_counts.pop(kb, None)
        self._keyword_ready.pop(kb, None)
