"""Retrieval evaluation: index a corpus into a throw-away knowledge base, run queries, score rankings."""

from __future__ import annotations

import csv
import json
import math
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from engine.config import Settings, load_settings
from engine.errors import EngineError
from engine.ingest import Ingestor
from engine.store import KnowledgeBaseStore

EVAL_KB = "eval"


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    rows = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise EngineError(f"{path}:{number} is not valid JSON ({exc.msg}); fix that line.") from None
    return rows


def read_qrels(path: str | Path) -> dict[str, set[str]]:
    """``qid docid score`` lines (tab or space separated, optional header) -> relevant ids per query."""
    relevant: dict[str, set[str]] = {}
    with open(path, encoding="utf-8") as handle:
        for row in csv.reader(handle, delimiter="\t"):
            parts = row if len(row) >= 2 else (row[0].split() if row else [])
            if len(parts) < 2 or parts[0] in ("qid", "query-id", "query_id"):
                continue
            score = float(parts[2]) if len(parts) > 2 else 1.0
            if score > 0:
                relevant.setdefault(parts[0], set()).add(parts[1])
    if not relevant:
        raise EngineError(f"{path} has no relevance judgements; expected lines 'qid<TAB>docid<TAB>score'.")
    return relevant


def recall_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    return len(set(ranked[:k]) & relevant) / len(relevant) if relevant else 0.0


def ndcg_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    dcg = sum(1.0 / math.log2(i + 2) for i, doc in enumerate(ranked[:k]) if doc in relevant)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(relevant), k)))
    return dcg / ideal if ideal else 0.0


def mrr_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    for i, doc in enumerate(ranked[:k]):
        if doc in relevant:
            return 1.0 / (i + 1)
    return 0.0


def dedupe_docs(doc_ids: Iterable[str]) -> list[str]:
    """Document ranking from a chunk ranking: first occurrence wins."""
    seen: dict[str, None] = {}
    for doc_id in doc_ids:
        seen.setdefault(doc_id, None)
    return list(seen)


@dataclass(frozen=True)
class RetrievalReport:
    mode: str
    k: int
    queries: int
    metrics: dict[str, float]
    p50_ms: float
    p95_ms: float
    index_seconds: float
    chunks: int
    per_query: list[dict[str, Any]]

    def to_dict(self, with_queries: bool = False) -> dict[str, Any]:
        data = {"mode": self.mode, "k": self.k, "queries": self.queries, **self.metrics,
                "p50_ms": self.p50_ms, "p95_ms": self.p95_ms, "index_seconds": self.index_seconds,
                "chunks": self.chunks}
        if with_queries:
            data["per_query"] = self.per_query
        return data


def score_rankings(rankings: Mapping[str, list[str]], qrels: Mapping[str, set[str]], k: int) -> dict[str, float]:
    """Mean recall@5, recall@10, nDCG@10 and MRR@10 (plus recall@k) over the judged queries."""
    judged = [q for q in rankings if q in qrels]
    if not judged:
        raise EngineError("None of the queries has relevance judgements; check that query ids match the qrels file.")
    metrics = {
        "recall@5": float(np.mean([recall_at(rankings[q], qrels[q], 5) for q in judged])),
        "recall@10": float(np.mean([recall_at(rankings[q], qrels[q], 10) for q in judged])),
        "ndcg@10": float(np.mean([ndcg_at(rankings[q], qrels[q], 10) for q in judged])),
        "mrr@10": float(np.mean([mrr_at(rankings[q], qrels[q], 10) for q in judged])),
    }
    if k not in (5, 10):
        metrics[f"recall@{k}"] = float(np.mean([recall_at(rankings[q], qrels[q], k) for q in judged]))
    return {key: round(value, 4) for key, value in metrics.items()}


Searcher = Callable[[KnowledgeBaseStore, str, int], list[str]]


def search_docs(mode: str) -> Searcher:
    """A searcher returning document ids for one store search mode."""
    def run(store: KnowledgeBaseStore, text: str, k: int) -> list[str]:
        hits = store.search(text, EVAL_KB, mode=mode, k=k * 3)
        return dedupe_docs(h.doc_id for h in hits)[:k]
    return run


def evaluate_retrieval(
    corpus: str | Path, queries: str | Path, qrels: str | Path, *, k: int = 10, mode: str = "hybrid",
    settings: Settings | None = None, searcher: Searcher | None = None,
) -> RetrievalReport:
    """Index ``corpus`` into a fresh temporary knowledge base and score every query."""
    judgements = read_qrels(qrels)
    query_rows = read_jsonl(queries)
    corpus_rows = read_jsonl(corpus)
    with tempfile.TemporaryDirectory(prefix="rag-eval-") as tmp:
        base = settings or load_settings()
        eval_settings = base.model_copy(update={"data_dir": Path(tmp), "store_uri": None})  # never the real store
        store = KnowledgeBaseStore(eval_settings)
        started = time.perf_counter()
        report = Ingestor(store).ingest_records(corpus_rows, EVAL_KB)
        index_seconds = time.perf_counter() - started
        store.sentence_filler.wait()  # no background embedding beside the timed searches
        rejected = [f for f in report.files if f.status == "rejected"]
        if rejected:
            raise EngineError(f"{len(rejected)} corpus records were rejected, e.g. {rejected[0].name}: {rejected[0].reason}")
        run = searcher or search_docs(mode)
        run(store, "warm up", k)
        rankings, latencies, per_query = {}, [], []
        for row in query_rows:
            qid, text = str(row["id"]), str(row["text"])
            t0 = time.perf_counter()
            ranked = run(store, text, max(k, 10))
            latencies.append((time.perf_counter() - t0) * 1000)
            rankings[qid] = ranked
            per_query.append({"id": qid, "ranked": ranked[:k], "relevant": sorted(judgements.get(qid, ()))})
        metrics = score_rankings(rankings, judgements, k)
        return RetrievalReport(
            mode=mode, k=k, queries=len(query_rows), metrics=metrics,
            p50_ms=round(float(np.percentile(latencies, 50)), 2), p95_ms=round(float(np.percentile(latencies, 95)), 2),
            index_seconds=round(index_seconds, 2), chunks=report.chunks_written, per_query=per_query,
        )
