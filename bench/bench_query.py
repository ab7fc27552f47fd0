"""Query latency p50/p95 per search mode at 1k, 10k and 100k chunks.

    python bench/bench_query.py [--sizes 1000,10000,100000] [--queries 50]

Tables are filled from retrieval_dev: its passages are chunked and embedded once with the real
model; larger tables repeat those rows with a unique suffix in the text and a small random
perturbation of the vector (renormalised), so every row is distinct. Search cost depends on row
count and vector dimension, not on whether rows are semantically new. The ANN index is built
automatically past the store's threshold (WORKBENCH_ANN_INDEX_MIN_ROWS, default 50,000).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

from common import DATASETS, pct, report

from engine.config import load_settings
from engine.ingest import Ingestor
from engine.store import KnowledgeBaseStore
from engine.store.schema import chunk_schema
from engine.store.search import _tune_ann


def base_rows(tmp: Path) -> list[dict]:
    records = [json.loads(l) for l in (DATASETS / "retrieval_dev" / "corpus.jsonl").open() if l.strip()]
    store = KnowledgeBaseStore(load_settings(data_dir=tmp / "seed"))
    Ingestor(store).ingest_records(records, "seed")
    store.sentence_filler.wait()
    return store._open("seed").to_arrow().to_pylist()


def build(store: KnowledgeBaseStore, rows: list[dict], size: int, rng: np.random.Generator) -> None:
    batch: list[dict] = []
    schema = chunk_schema(store.embedder.dim)
    table = None
    for i in range(size):
        src = rows[i % len(rows)]
        copy = i // len(rows)
        row = dict(src)
        if copy:
            vec = np.asarray(src["vector"], dtype=np.float32) + rng.normal(0, 0.02, len(src["vector"])).astype(np.float32)
            row["vector"] = (vec / np.linalg.norm(vec)).tolist()
            row["chunk_id"] = f"{src['chunk_id']}~{copy}"
            row["doc_id"] = f"{src['doc_id']}-c{copy}"
            row["text"] = f"{src['text']} (copy {copy})"
            row["search_text"] = f"{src['search_text']} copy{copy}"
        batch.append(row)
        if len(batch) == 20_000 or i == size - 1:
            data = pa.Table.from_pylist(batch, schema=schema)
            if table is None:
                table = store._db.create_table("kb_bench", data=data, schema=schema)
            else:
                table.add(data)
            batch = []
    store.maintain("bench")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--ann-threshold", type=int, default=None, help="override WORKBENCH_ANN_INDEX_MIN_ROWS")
    args = parser.parse_args()
    queries = [json.loads(l)["text"] for l in (DATASETS / "retrieval_dev" / "queries.jsonl").open()][: args.queries]
    rng = np.random.default_rng(7)
    rows_out = []
    with tempfile.TemporaryDirectory() as tmp:
        seed = base_rows(Path(tmp))
        for size in [int(s) for s in args.sizes.split(",")]:
            settings = load_settings(data_dir=Path(tmp) / f"s{size}", ann_index_min_rows=args.ann_threshold)
            store = KnowledgeBaseStore(settings)
            started = time.perf_counter()
            build(store, seed, size, rng)
            build_s = time.perf_counter() - started
            vectors = store.embedder.encode(queries)
            indexed = store.list_knowledge_bases()[0].has_vector_index
            ann_recall = None
            if indexed:  # how many of the exact top-10 the ANN index returns
                table = store._open("bench")
                overlaps = []
                for v in vectors:
                    approx = {r["chunk_id"] for r in _tune_ann(table.search(v).distance_type("cosine")).limit(10)
                              .select(["chunk_id", "_distance"]).to_list()}
                    exact = {r["chunk_id"] for r in table.search(v).distance_type("cosine").bypass_vector_index()
                             .limit(10).select(["chunk_id", "_distance"]).to_list()}
                    overlaps.append(len(approx & exact) / 10)
                ann_recall = round(float(np.mean(overlaps)), 3)
            for mode in ("vector", "keyword", "hybrid"):
                for q, v in zip(queries[:5], vectors[:5]):  # warm caches
                    store.search(q, "bench", mode, 10, vector=v)
                times = []
                for q, v in zip(queries, vectors):
                    t0 = time.perf_counter()
                    store.search(q, "bench", mode, 10, vector=v)
                    times.append((time.perf_counter() - t0) * 1000)
                rows_out.append({"chunks": size, "mode": mode, "ann_index": indexed, "p50_ms": pct(times, 50),
                                 "p95_ms": pct(times, 95), "build_s": round(build_s, 1),
                                 "ann_recall@10": ann_recall if mode == "vector" else None})
    report("query_latency", {"results": rows_out, "note": "query embedding excluded (done once up front)"},
           rows_out, ["chunks", "mode", "ann_index", "p50_ms", "p95_ms", "build_s", "ann_recall@10"])


if __name__ == "__main__":
    main()
