"""Listing, hashing, deleting and the sidebar's base list: chunk-table scans (before) against the catalogue (after).

    python bench/bench_catalogue.py [--sizes 100000,1000000] [--chunks-per-doc 50] [--repeats 3]

For each size a chunk table is written directly, in batches of 50,000 rows, with random unit vectors
(384 dimensions, as the real model's) instead of embeddings: the operations measured never look at the
vectors or the text, so the model would only add hours of embedding. Every document has
``--chunks-per-doc`` chunks, a title, a date and a content hash.

"Before" runs the queries the store ran until it had a catalogue, directly against the chunk table
with no index on ``doc_id``: a scan of the document columns grouped in Python (list), a scan of
``doc_id, content_hash`` (hashes), a scan of ``doc_id, update_date`` per base (base list) and a
``count_rows`` + ``delete`` by ``doc_id`` (delete). "After" builds the ``doc_id`` BTree index, opens the
store (which builds the catalogue from the chunks once: the migration, timed too) and calls the store's
own methods. Times are medians of ``--repeats`` runs, in milliseconds; each delete removes another document.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from common import report

from engine.config import load_settings
from engine.store import DocumentInfo, KnowledgeBaseStore
from engine.store.maintenance import build_doc_index
from engine.store.schema import chunk_schema, sql_literal

DIM = 384
BATCH = 50_000
KB = "bench"
OLD_DOC_COLUMNS = ["doc_id", "title", "file_name", "update_date", "authority", "doc_type", "series", "revision",
                   "content_hash", "ingested_at"]


def batches(size: int, per_doc: int, rng: np.random.Generator):
    for start in range(0, size, BATCH):
        n = min(BATCH, size - start)
        index = np.arange(start, start + n)
        docs = index // per_doc
        vectors = rng.standard_normal((n, DIM), dtype=np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        doc_ids = [f"doc-{d:07d}" for d in docs]
        text = [f"chunk {i % per_doc} of document {d}" for i, d in zip(index, docs)]
        yield pa.Table.from_pydict({
            "chunk_id": [f"{d}:{i % per_doc:04d}" for d, i in zip(doc_ids, index)],
            "doc_id": doc_ids,
            "knowledge_base": [KB] * n,
            "position": (index % per_doc).astype(np.int32),
            "page": pa.nulls(n, pa.int32()),
            "text": text,
            "search_text": text,
            "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), DIM),
            "title": [f"Document {d}" for d in docs],
            "source": pa.nulls(n, pa.string()),
            "update_date": [f"{2000 + d % 25}-{1 + d % 12:02d}-{1 + d % 28:02d}" for d in docs],
            "authority": ((docs % 5) + 1).astype(np.int8),
            "doc_type": ["manual"] * n,
            "series": pa.nulls(n, pa.string()),
            "revision": pa.nulls(n, pa.string()),
            "file_name": [f"document-{d}.pdf" for d in docs],
            "content_hash": [f"{d:064x}" for d in docs],
            "ingested_at": ["2026-01-01T00:00:00+00:00"] * n,
            "extra": ["{}"] * n,
        }, schema=chunk_schema(DIM))


def build(store: KnowledgeBaseStore, size: int, per_doc: int, seed: int) -> float:
    started = time.perf_counter()
    table = None
    for data in batches(size, per_doc, np.random.default_rng(seed)):
        if table is None:
            table = store._db.create_table("kb_" + KB, data=data, schema=chunk_schema(DIM))
        else:
            table.add(data)
    table.optimize()  # one compacted table, as a long-lived base is after maintenance
    return time.perf_counter() - started


# -- the store's queries before the catalogue, run directly on the chunk table ---------------------------------

def scan(table, columns: list[str]) -> pa.Table:
    return table.search().select(columns).limit(None).to_arrow()


def old_list_documents(table) -> list[DocumentInfo]:
    rows = scan(table, OLD_DOC_COLUMNS)
    counts = rows.group_by("doc_id").aggregate([("doc_id", "count")])
    count_of = dict(zip(counts["doc_id"].to_pylist(), counts["doc_id_count"].to_pylist()))
    seen: dict[str, DocumentInfo] = {}
    for row in rows.to_pylist():
        if row["doc_id"] in seen:
            continue
        seen[row["doc_id"]] = DocumentInfo(
            doc_id=row["doc_id"], knowledge_base=KB, title=row["title"], file_name=row["file_name"] or "",
            update_date=row["update_date"], authority=int(row["authority"]), doc_type=row["doc_type"] or "",
            series=row["series"], revision=row["revision"], chunks=int(count_of[row["doc_id"]]),
            content_hash=row["content_hash"], ingested_at=row["ingested_at"],
        )
    return sorted(seen.values(), key=lambda d: (d.update_date or "", d.title), reverse=True)


def old_document_hashes(table) -> dict[str, str]:
    rows = scan(table, ["doc_id", "content_hash"])
    return dict(zip(rows["doc_id"].to_pylist(), rows["content_hash"].to_pylist()))


def old_list_knowledge_bases(table) -> tuple[int, int]:
    rows = scan(table, ["doc_id", "update_date"])
    dates = pc.drop_null(rows["update_date"])
    {i.name for i in table.list_indices()}
    pc.min(dates), pc.max(dates)
    return len(pc.unique(rows["doc_id"])), rows.num_rows


def old_delete(table, doc_id: str) -> int:
    where = f"doc_id = {sql_literal(doc_id)}"
    count = table.count_rows(where)
    table.delete(where)
    return count


# -- measuring ---------------------------------------------------------------------------------------------------

def timed(action, repeats: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        started = time.perf_counter()
        result = action()
        times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times), 1), result


def deletes(action, doc_ids: list[str]) -> float:
    times = []
    for doc_id in doc_ids:
        started = time.perf_counter()
        action(doc_id)
        times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times), 1)


def run_size(size: int, per_doc: int, repeats: int, tmp: Path) -> dict:
    settings = load_settings(data_dir=tmp / f"s{size}").model_copy(update={"store_uri": None})  # a scratch store
    store = KnowledgeBaseStore(settings)
    build_s = build(store, size, per_doc, seed=size)
    documents = -(-size // per_doc)
    victims = [f"doc-{d:07d}" for d in range(0, documents, max(1, documents // (2 * repeats)))][: 2 * repeats]
    table = store._open(KB)

    before = {}
    before["list_documents"], old_docs = timed(lambda: old_list_documents(table), repeats)
    before["document_hashes"], old_hashes = timed(lambda: old_document_hashes(table), repeats)
    before["list_knowledge_bases"], _ = timed(lambda: old_list_knowledge_bases(table), repeats)
    before["delete_document"] = deletes(lambda d: old_delete(table, d), victims[:repeats])

    started = time.perf_counter()
    build_doc_index(table)
    index_s = time.perf_counter() - started
    started = time.perf_counter()
    store.list_documents(KB)  # the first call builds the catalogue from the chunks
    migrate_s = time.perf_counter() - started

    after = {}
    after["list_documents"], new_docs = timed(lambda: store.list_documents(KB), repeats)
    after["document_hashes"], new_hashes = timed(lambda: store.document_hashes(KB), repeats)
    after["list_knowledge_bases"], _ = timed(store.list_knowledge_bases, repeats)
    after["delete_document"] = deletes(lambda d: store.delete_document(d, KB), victims[repeats:])
    table.checkout_latest()
    assert store.document_hashes(KB) == old_document_hashes(table), "the catalogue disagrees with the chunks"
    assert len(new_docs) == len(old_docs) - repeats and len(new_hashes) == len(old_hashes) - repeats
    return {"chunks": size, "documents": documents, "build_s": round(build_s, 1),
            "doc_index_s": round(index_s, 2), "catalogue_migration_s": round(migrate_s, 2),
            "before_ms": before, "after_ms": after}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--chunks-per-doc", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-catalogue-") as tmp:
        for size in (int(s) for s in args.sizes.split(",")):
            results.append(run_size(size, args.chunks_per_doc, args.repeats, Path(tmp)))
    rows = []
    for r in results:
        for op in r["before_ms"]:
            before, after = r["before_ms"][op], r["after_ms"][op]
            rows.append({"chunks": r["chunks"], "documents": r["documents"], "operation": op,
                         "before_ms": before, "after_ms": after, "speed-up": f"{before / max(after, 0.1):.0f}x"})
    report("catalogue", {"chunks_per_doc": args.chunks_per_doc, "repeats": args.repeats, "results": results},
           rows, ["chunks", "documents", "operation", "before_ms", "after_ms", "speed-up"])


if __name__ == "__main__":
    main()
