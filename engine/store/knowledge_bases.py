"""Named knowledge bases on LanceDB: one table of chunks per base, under ``DATA_DIR/lancedb``."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Sequence
from typing import Any

import lancedb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from lancedb.index import FTS

from engine.config import Settings
from engine.embeddings import Embedder, get_embedder
from engine.errors import KnowledgeBaseError
from engine.results import SearchFilters
from engine.store.schema import (
    TABLE_PREFIX, DocumentInfo, KnowledgeBaseInfo, SearchHit, check_doc_id, check_kb_name, chunk_schema, sql_literal,
)
from engine.store.search import filter_sql, run_search
from engine.store.vocabulary import Vocabulary

log = logging.getLogger(__name__)
_DOC_COLUMNS = [
    "doc_id", "title", "file_name", "update_date", "authority", "doc_type", "series", "revision",
    "content_hash", "ingested_at",
]


class KnowledgeBaseStore:
    """Add, list, search and delete documents in named knowledge bases."""

    def __init__(self, settings: Settings, embedder: Embedder | None = None) -> None:
        self.settings = settings
        settings.lancedb_dir.mkdir(parents=True, exist_ok=True)
        self._db = lancedb.connect(str(settings.lancedb_dir))
        self._embedder = embedder
        self._write_lock = threading.Lock()
        self._vocabularies: dict[str, tuple[int, Vocabulary]] = {}  # kb -> (table version, its vocabulary)
        self._merged: tuple[tuple, Vocabulary] | None = None  # the last merged set, keyed by (kb, version) pairs
        self._vocabulary_lock = threading.Lock()

    # -- plumbing -----------------------------------------------------------
    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = get_embedder(self.settings.embedding_model, self.settings.embed_batch_size)
        return self._embedder

    def _table_names(self) -> list[str]:
        result = self._db.list_tables()
        names = getattr(result, "tables", result)
        return sorted(n for n in names if n.startswith(TABLE_PREFIX))

    def knowledge_base_names(self) -> list[str]:
        return [n[len(TABLE_PREFIX):] for n in self._table_names()]

    def exists(self, kb: str) -> bool:
        return check_kb_name(kb) in self.knowledge_base_names()

    def _open(self, kb: str):
        if not self.exists(kb):
            known = ", ".join(self.knowledge_base_names()) or "none yet"
            raise KnowledgeBaseError(
                f"Knowledge base {kb!r} does not exist (known: {known}). Ingest documents into it first."
            )
        return self._db.open_table(TABLE_PREFIX + kb)

    def _open_or_create(self, kb: str):
        if self.exists(kb):
            return self._db.open_table(TABLE_PREFIX + kb)
        return self._db.create_table(TABLE_PREFIX + check_kb_name(kb), schema=chunk_schema(self.embedder.dim))

    # -- reading ------------------------------------------------------------
    def _scan(self, kb, columns: list[str], where: str | None = None) -> pa.Table:
        """Columns of every matching row; ``kb`` is a base name or an already-open table."""
        table = self._open(kb) if isinstance(kb, str) else kb
        query = table.search().select(columns)
        if where:
            query = query.where(where)
        return query.limit(None).to_arrow()

    def list_documents(self, kb: str) -> list[DocumentInfo]:
        """Documents in ``kb`` with their chunk counts, newest date first."""
        return _documents(self._scan(kb, _DOC_COLUMNS), kb)

    def list_knowledge_bases(self) -> list[KnowledgeBaseInfo]:
        infos = []
        for kb in self.knowledge_base_names():
            table = self._open(kb)
            rows = self._scan(table, ["doc_id", "update_date"])
            dates = pc.drop_null(rows["update_date"]) if rows.num_rows else pa.array([], pa.string())
            indices = {i.name for i in table.list_indices()}
            infos.append(
                KnowledgeBaseInfo(
                    name=kb,
                    documents=len(pc.unique(rows["doc_id"])) if rows.num_rows else 0,
                    chunks=rows.num_rows,
                    earliest_date=pc.min(dates).as_py() if len(dates) else None,
                    latest_date=pc.max(dates).as_py() if len(dates) else None,
                    has_vector_index="vector_idx" in indices,
                )
            )
        return infos

    def document_hashes(self, kb: str) -> dict[str, str]:
        """doc_id -> content hash, for every document in ``kb`` (empty when the base is new)."""
        if not self.exists(kb):
            return {}
        rows = self._scan(kb, ["doc_id", "content_hash"])
        return dict(zip(rows["doc_id"].to_pylist(), rows["content_hash"].to_pylist()))

    def get_document(self, doc_id: str, kb: str | None = None) -> tuple[DocumentInfo, list[dict[str, Any]]]:
        """A document's info and its chunks in order; searches every base when ``kb`` is None."""
        check_doc_id(doc_id)
        for name in [kb] if kb else self.knowledge_base_names():
            cols = ["chunk_id", "position", "page", "text", *_DOC_COLUMNS]
            rows = self._scan(name, cols, f"doc_id = {sql_literal(doc_id)}")
            if rows.num_rows:
                (info,) = _documents(rows.select(_DOC_COLUMNS), name)
                chunks = rows.select(["chunk_id", "position", "page", "text"]).to_pylist()
                return info, sorted(chunks, key=lambda r: r["position"])
        where = f" in {kb!r}" if kb else ""
        raise KnowledgeBaseError(f"Document {doc_id!r} was not found{where}; run `python -m engine kb list` for ids.")

    def count_chunks(self, kb: str, doc_id: str | None = None) -> int:
        if not self.exists(kb):
            return 0
        where = f"doc_id = {sql_literal(check_doc_id(doc_id))}" if doc_id else None
        return self._db.open_table(TABLE_PREFIX + kb).count_rows(where)

    def vocabulary(self, kb: str | Sequence[str] | None = None) -> Vocabulary:
        """The words of one, several or all knowledge bases (bases that do not exist are skipped).

        Built from the keyword-indexed text on first use and kept until the table's version changes.
        """
        known = self.knowledge_base_names()
        names = known if kb is None else [kb] if isinstance(kb, str) else list(kb)
        parts, key = [], []
        for name in (n for n in names if n in known):
            table = self._db.open_table(TABLE_PREFIX + name)
            version = table.version
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

    # -- writing ------------------------------------------------------------
    def write_documents(self, kb: str, rows: Sequence[dict[str, Any]], replace_doc_ids: Iterable[str] = ()) -> None:
        """Write chunk rows in one commit; documents in ``replace_doc_ids`` lose their old chunks in the same commit."""
        replace = sorted({check_doc_id(d) for d in replace_doc_ids})
        if not rows and not replace:
            return
        with self._write_lock:
            table = self._open_or_create(kb)
            data = pa.Table.from_pylist(list(rows), schema=chunk_schema(self.embedder.dim))
            if replace:
                ids = ", ".join(sql_literal(d) for d in replace)
                (
                    table.merge_insert("chunk_id")
                    .when_matched_update_all()
                    .when_not_matched_insert_all()
                    .when_not_matched_by_source_delete(f"doc_id IN ({ids})")
                    .execute(data)
                )
            else:
                table.add(data)
            self._maintain_indexes(table)

    def _maintain_indexes(self, table) -> None:
        """Create the FTS index once; fold new rows into indexes; build ANN past the threshold."""
        indices = {i.name for i in table.list_indices()}
        if "search_text_idx" not in indices:
            table.create_index("search_text", config=FTS(language="English", stem=True, remove_stop_words=True),
                               replace=True, name="search_text_idx")
        rows = table.count_rows()
        if "vector_idx" not in indices and rows >= self.settings.ann_index_min_rows:
            log.info("building ANN index on %s (%d rows)", table.name, rows)
            table.create_index(metric="cosine", vector_column_name="vector", index_type="IVF_HNSW_SQ", name="vector_idx")
        table.optimize()

    def delete_document(self, doc_id: str, kb: str) -> int:
        """Remove every chunk of a document; returns how many were removed."""
        check_doc_id(doc_id)
        with self._write_lock:
            table = self._open(kb)
            where = f"doc_id = {sql_literal(doc_id)}"
            count = table.count_rows(where)
            if count == 0:
                raise KnowledgeBaseError(f"Document {doc_id!r} is not in {kb!r}; run `python -m engine kb list` for ids.")
            table.delete(where)
        return count

    def drop_knowledge_base(self, kb: str) -> None:
        self._open(kb)
        with self._write_lock:
            self._db.drop_table(TABLE_PREFIX + kb)
        with self._vocabulary_lock:
            self._vocabularies.pop(kb, None)  # a new table of the same name restarts its version count

    # -- searching ----------------------------------------------------------
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
        names = self.knowledge_base_names() if kb is None else [kb] if isinstance(kb, str) else list(kb)
        tables = [self._open(name) for name in names]
        if not query or not query.strip():
            return []
        if vector is None and mode in ("vector", "hybrid"):
            vector = self.embedder.encode_one(query)
        where = filter_sql(filters)
        hits: list[SearchHit] = []
        for table in tables:
            hits.extend(run_search(table, mode, query, vector, k, where))
        hits.sort(key=lambda h: h.score, reverse=True)
        return hits[:k]


def _documents(rows: pa.Table, kb: str) -> list[DocumentInfo]:
    """Group chunk rows (``_DOC_COLUMNS``) into one DocumentInfo per document, newest date first."""
    if rows.num_rows == 0:
        return []
    counts = rows.group_by("doc_id").aggregate([("doc_id", "count")])
    count_of = dict(zip(counts["doc_id"].to_pylist(), counts["doc_id_count"].to_pylist()))
    seen: dict[str, DocumentInfo] = {}
    for row in rows.to_pylist():
        if row["doc_id"] in seen:
            continue
        seen[row["doc_id"]] = DocumentInfo(
            doc_id=row["doc_id"], knowledge_base=kb, title=row["title"], file_name=row["file_name"] or "",
            update_date=row["update_date"], authority=int(row["authority"]), doc_type=row["doc_type"] or "",
            series=row["series"], revision=row["revision"], chunks=int(count_of[row["doc_id"]]),
            content_hash=row["content_hash"], ingested_at=row["ingested_at"],
        )
    return sorted(seen.values(), key=lambda d: (d.update_date or "", d.title), reverse=True)
