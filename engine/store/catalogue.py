"""The document catalogue: one small LanceDB table per knowledge base, one row per document.

A row holds what the Documents page, ``kb list`` and the ingest's "unchanged?" check need (id, title, file,
hash, date, metadata, chunk count) so none of them scans the chunk table. The chunk table stays the truth;
the catalogue follows it.

LanceDB commits one table at a time, so a write touches the catalogue on both sides of its chunk commit:

1. the documents it is about to write or remove get a row with status ``writing`` (or ``deleting``);
2. the chunk commit (one commit: all of those chunks or none);
3. the rows become ``ready`` (or are removed).

A row that is not ``ready`` therefore marks a document whose chunks may have changed without the catalogue
knowing (a crash or a failed commit between 1 and 3). Readers take such a document's entry from its chunks
(a filter on the indexed ``doc_id``, not a scan), and the next writer of the base rewrites the row from them,
so no row ever claims a document that is not in the chunk table, or misses one that is.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa
import pyarrow.compute as pc

from engine.store.schema import DocumentInfo, in_values

CATALOGUE_PREFIX = "docs_"
READY, WRITING, DELETING = "ready", "writing", "deleting"
DOC_COLUMNS = [
    "doc_id", "title", "file_name", "update_date", "authority", "doc_type", "series", "revision",
    "content_hash", "ingested_at",
]
"""The chunk-table columns a catalogue row is made of (the same on every chunk of a document)."""


def catalogue_schema() -> pa.Schema:
    return pa.schema(
        [
            pa.field("doc_id", pa.string(), nullable=False),
            pa.field("title", pa.string(), nullable=False),
            pa.field("file_name", pa.string()),
            pa.field("update_date", pa.string()),
            pa.field("authority", pa.int8(), nullable=False),
            pa.field("doc_type", pa.string()),
            pa.field("series", pa.string()),
            pa.field("revision", pa.string()),
            pa.field("content_hash", pa.string(), nullable=False),
            pa.field("ingested_at", pa.string(), nullable=False),
            pa.field("chunks", pa.int64(), nullable=False),
            pa.field("status", pa.string(), nullable=False),
        ]
    )


def entries_from_chunks(rows: pa.Table, status: str = READY) -> pa.Table:
    """One catalogue row per document of chunk rows (``DOC_COLUMNS``), counting its chunks."""
    schema = catalogue_schema()
    if rows.num_rows == 0:
        return schema.empty_table()
    counts = rows.group_by("doc_id").aggregate([("doc_id", "count")])
    count_of = dict(zip(counts["doc_id"].to_pylist(), counts["doc_id_count"].to_pylist()))
    first = {}
    for row in rows.select(DOC_COLUMNS).to_pylist():
        first.setdefault(row["doc_id"], row)
    entries = [dict(row, chunks=count_of[doc_id], status=status) for doc_id, row in first.items()]
    return pa.Table.from_pylist(entries, schema=schema)


def with_status(entries: pa.Table, status: str) -> pa.Table:
    index = entries.schema.get_field_index("status")
    return entries.set_column(index, entries.schema.field("status"), pa.array([status] * entries.num_rows, pa.string()))


def infos(entries: pa.Table, kb: str) -> list[DocumentInfo]:
    """DocumentInfos of catalogue rows, newest date first (unknown dates last), then by title, descending."""
    if entries.num_rows == 0:
        return []
    order = pc.sort_indices(entries, sort_keys=[("update_date", "descending"), ("title", "descending")])  # nulls last
    columns = {name: entries[name].take(order).to_pylist() for name in DOC_COLUMNS + ["chunks"]}
    return [
        DocumentInfo(
            doc_id=doc_id, knowledge_base=kb, title=title, file_name=file_name or "", update_date=update_date,
            authority=int(authority), doc_type=doc_type or "", series=series, revision=revision, chunks=int(chunks),
            content_hash=content_hash, ingested_at=ingested_at,
        )
        for doc_id, title, file_name, update_date, authority, doc_type, series, revision, content_hash, ingested_at,
        chunks in zip(*(columns[name] for name in DOC_COLUMNS + ["chunks"]))
    ]


def read_all(catalogue) -> pa.Table:
    return catalogue.search().select(catalogue_schema().names).limit(None).to_arrow().cast(catalogue_schema())


def not_ready(entries: pa.Table) -> list[str]:
    """Documents whose rows are not ``ready`` (their chunk commit may or may not have landed)."""
    if entries.num_rows == 0:
        return []
    return sorted(set(entries.filter(pc.not_equal(entries["status"], READY))["doc_id"].to_pylist()))


def in_list(doc_ids: Sequence[str]) -> str:
    """A filter keeping the rows of these documents."""
    return in_values("doc_id", doc_ids)


def upsert(catalogue, entries: pa.Table, remove: Sequence[str] = ()) -> None:
    """Write ``entries`` (replacing rows of the same documents) and remove the rows of ``remove``: one commit."""
    if entries.num_rows == 0:
        if remove:
            catalogue.delete(in_list(remove))
        return
    builder = catalogue.merge_insert("doc_id").when_matched_update_all().when_not_matched_insert_all()
    if remove:
        builder = builder.when_not_matched_by_source_delete(in_list(remove))
    builder.execute(entries)
