"""The embedding backends side by side: torch, onnx, onnx-int8 (same MiniLM weights), in one run.

    python bench/bench_embedder.py [--backends torch,onnx,onnx-int8] [--review-limit N] [--rounds 3]

Per backend:
- load_s: first load, including the one-off ONNX export into a fresh cache folder;
- encode speed (texts/s): the retrieval_dev queries one at a time (what an ask does) and as one batch,
  and chunk-size texts (the corpus cut to 800 characters) in batches; backends alternate round by round
  and the best round is kept, so load from other processes does not pick the winner;
- ingest chunks/s, recall@10 and nDCG@10: ``engine eval retrieval``'s ingest, search and scoring on
  ../shared/datasets/retrieval_dev (real ingest into a temporary store; hybrid, the default mode, and vector);
- review score: ``engine eval review`` (offline reviewer) on ../shared/datasets/review_dev;
- cosine to the torch vectors for the same texts (min and mean, queries and chunks);
- mixed: the torch-built store searched with this backend's query vectors (recall@10, hybrid and vector).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np
from common import DATASETS, report

from engine.config import load_settings
from engine.embeddings import embedder_for
from engine.evaluation.retrieval import EVAL_KB, dedupe_docs, read_jsonl, read_qrels, score_rankings
from engine.ingest import Ingestor
from engine.evaluation.review import evaluate_review
from engine.offline.reviewer import OfflineReviewer
from engine.store import KnowledgeBaseStore

RETRIEVAL = DATASETS / "retrieval_dev"
REVIEW = DATASETS / "review_dev" / "begin_dev.jsonl"


def timed_rate(fn, count: int) -> float:
    started = time.perf_counter()
    fn()
    return count / (time.perf_counter() - started)


def encode_rates(embedders: dict, queries: list[str], chunks: list[str], rounds: int) -> dict[str, dict]:
    best = {name: {"query_one_by_one": 0.0, "query_batch": 0.0, "chunk_batch": 0.0} for name in embedders}
    for _ in range(rounds):
        for name, emb in embedders.items():
            rates = {
                "query_one_by_one": timed_rate(lambda: [emb.encode([q]) for q in queries], len(queries)),
                "query_batch": timed_rate(lambda: emb.encode(queries), len(queries)),
                "chunk_batch": timed_rate(lambda: emb.encode(chunks), len(chunks)),
            }
            best[name] = {k: max(best[name][k], v) for k, v in rates.items()}
    return {name: {k: round(v, 1) for k, v in r.items()} for name, r in best.items()}


def cosines(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    c = (a * b).sum(axis=1)
    return {"min": round(float(c.min()), 4), "mean": round(float(c.mean()), 4)}


def index_corpus(settings) -> tuple[KnowledgeBaseStore, float, int]:
    """The retrieval_dev corpus ingested for real into a fresh store, as ``engine eval retrieval`` does."""
    store = KnowledgeBaseStore(settings)
    started = time.perf_counter()
    rep = Ingestor(store).ingest_records(read_jsonl(RETRIEVAL / "corpus.jsonl"), EVAL_KB)
    store.sentence_filler.wait()  # the clock counts the sentence vectors too
    return store, time.perf_counter() - started, rep.chunks_written


def recall(store: KnowledgeBaseStore, mode: str, query_rows: list[dict], qrels, vectors=None) -> dict[str, float]:
    """``engine eval retrieval``'s search and scoring; ``vectors``: query vectors from another embedder."""
    rankings = {}
    for i, row in enumerate(query_rows):
        vector = None if vectors is None else vectors[i]
        hits = store.search(str(row["text"]), EVAL_KB, mode=mode, k=30, vector=vector)
        rankings[str(row["id"])] = dedupe_docs(h.doc_id for h in hits)[:10]
    return score_rankings(rankings, qrels, 10)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backends", default="torch,onnx,onnx-int8")
    parser.add_argument("--rounds", type=int, default=3, help="encode rounds per backend (best kept)")
    parser.add_argument("--review-limit", type=int, default=None, help="review only the first N rows")
    args = parser.parse_args()
    names = [b.strip() for b in args.backends.split(",") if b.strip()]
    if "torch" not in names:
        names.insert(0, "torch")
    queries = [str(r["text"]) for r in read_jsonl(RETRIEVAL / "queries.jsonl")]
    chunks = [str(r["text"])[:800] for r in read_jsonl(RETRIEVAL / "corpus.jsonl")][:256]

    with tempfile.TemporaryDirectory(prefix="bench-embedder-") as tmp:
        settings_of, embedders, load_s = {}, {}, {}
        for name in names:
            settings_of[name] = load_settings(data_dir=Path(tmp) / "data", embedding_backend=name,
                                              embedding_cache_dir=Path(tmp) / "models")
            started = time.perf_counter()
            embedders[name] = embedder_for(settings_of[name])
            load_s[name] = round(time.perf_counter() - started, 2)
            embedders[name].encode(["warm up"] * 4)
        rates = encode_rates(embedders, queries, chunks, args.rounds)
        ref_q, ref_c = embedders["torch"].encode(queries), embedders["torch"].encode(chunks)

        query_rows, qrels = read_jsonl(RETRIEVAL / "queries.jsonl"), read_qrels(RETRIEVAL / "qrels.tsv")
        results, torch_store = [], None
        for name in names:
            emb = embedders[name]
            store, ingest_s, n_chunks = index_corpus(settings_of[name].model_copy(
                update={"data_dir": Path(tmp) / f"store-{name}"}))
            torch_store = torch_store or store
            hybrid, vector = (recall(store, mode, query_rows, qrels) for mode in ("hybrid", "vector"))
            review = evaluate_review(REVIEW, OfflineReviewer(emb, require_citations=False), limit=args.review_limit)
            row = {
                "backend": name, "load_s": load_s[name], **rates[name],
                "ingest_chunks_per_s": round(n_chunks / ingest_s, 1), "chunks": n_chunks,
                "recall@10": hybrid["recall@10"], "ndcg@10": hybrid["ndcg@10"],
                "vector_recall@10": vector["recall@10"], "vector_ndcg@10": vector["ndcg@10"],
                "review_f1": round(review.metrics["f1"], 4),
                "review_balanced_accuracy": round(review.metrics["balanced_accuracy"], 4),
                "review_rows_per_s": round(review.rows / review.seconds, 1),
                "cos_query": cosines(emb.encode(queries), ref_q), "cos_chunk": cosines(emb.encode(chunks), ref_c),
            }
            if name != "torch":  # a torch-built store searched with this backend's query vectors
                mixed = emb.encode([str(r["text"]) for r in query_rows])
                row["mixed_recall@10"] = recall(torch_store, "hybrid", query_rows, qrels, mixed)["recall@10"]
                row["mixed_vector_recall@10"] = recall(torch_store, "vector", query_rows, qrels, mixed)["recall@10"]
            results.append(row)
            print(json.dumps(row), flush=True)

    torch_row = results[0]
    verdicts = {}
    for row in results[1:]:
        faster = row["chunk_batch"] > torch_row["chunk_batch"] and row["query_one_by_one"] > torch_row["query_one_by_one"]
        recall_ok = abs(row["recall@10"] - torch_row["recall@10"]) <= 0.01
        review_ok = row["review_f1"] >= torch_row["review_f1"]
        verdicts[row["backend"]] = {"faster": faster, "recall_within_0.01": recall_ok, "review_not_worse": review_ok,
                                    "wins": faster and recall_ok and review_ok}
    table_rows = [{**r, "cos_query_min": r["cos_query"]["min"], "cos_chunk_min": r["cos_chunk"]["min"]} for r in results]
    columns = ["backend", "load_s", "query_one_by_one", "query_batch", "chunk_batch", "ingest_chunks_per_s",
               "recall@10", "vector_recall@10", "mixed_recall@10", "mixed_vector_recall@10", "review_f1",
               "review_balanced_accuracy", "cos_query_min", "cos_chunk_min"]
    report("embedder", {"results": results, "verdicts": verdicts, "review_rows": args.review_limit or "all"},
           table_rows, columns)


if __name__ == "__main__":
    main()
