"""Engine overhead per ask at 100k chunks: everything an ask costs except the provider's own time.

    python bench/bench_ask_overhead.py [--chunks 100000] [--asks 40] [--backend onnx-int8] [--follow-links N]

The base: sample_docs ingested for real (three knowledge bases, as the demo has them), then its
largest base filled until the store holds --chunks chunks, with rows written straight into its table
(words drawn at random from the real chunks' vocabulary, as many as a real chunk has; random unit
vectors for the chunk and for each of its sentences), and its indexes built as the store
builds them (full-text, and the ANN index past 50,000 rows).

Asks run through the real Pipeline with the offline provider. Overhead = wall time of ``Pipeline.run``
(trace storage included) minus the trace's ``reflection`` stage, the generator + reviewer loop (the
provider's time). Only asks that ran exactly --tasks retrieval tasks are counted (questions are
repeated with rewordings until enough are collected or --max-asks have run); the overhead of every ask
is reported too. Printed: p50/p95 overhead and per-stage p50/p95.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
from common import ROOT, pct, report

from engine.config import default_settings, load_settings
from engine.ingest import Ingestor
from engine.pipeline import AskOptions, Pipeline
from engine.reflection.units import read_sentences
from engine.store import KnowledgeBaseStore
from engine.store.schema import TABLE_PREFIX, chunk_schema
from engine.store.sentences import SENTENCE_PREFIX, sentence_schema
from engine.store.sentences import columns as sentence_columns

REWORDINGS = ["{q}", "Please answer: {q}", "{q} Cite the documents.", "In short: {q}", "{q} Be precise."]
STAGES = ("perception", "orchestration", "retrieval", "answerability", "validation")
RETRIEVAL_PARTS = ("embed", "search", "fuse", "links", "sentences")


def build_base(data: Path, chunks: int, backend: str, rng: np.random.Generator) -> tuple[KnowledgeBaseStore, str]:
    settings = load_settings(data_dir=data, embedding_backend=backend)
    store = KnowledgeBaseStore(settings)
    ingestor = Ingestor(store)
    for folder in sorted(p for p in (ROOT / "sample_docs").iterdir() if p.is_dir()):
        ingestor.ingest_paths([folder], folder.name)
    sizes = {kb: store._db.open_table(TABLE_PREFIX + kb).count_rows() for kb in store.knowledge_base_names()}
    kb = max(sizes, key=sizes.get)
    table = store._db.open_table(TABLE_PREFIX + kb)
    real = table.to_arrow().to_pylist()  # the chunk table: no sentence columns
    schema = chunk_schema(store.embedder.dim)
    vocabulary = np.array(sorted({w for row in real for w in row["search_text"].split()}))
    remaining, made = chunks - sum(sizes.values()), 0
    sentence_table = store._db.open_table(SENTENCE_PREFIX + kb)
    while made < remaining:
        batch, embedded = [], []
        for i in range(min(20_000, remaining - made)):
            src = real[(made + i) % len(real)]
            words = list(rng.choice(vocabulary, size=len(src["search_text"].split())))
            vec = rng.normal(size=store.embedder.dim).astype(np.float32)
            text = " ".join(words)
            batch.append({**src, "chunk_id": f"filler-{made + i}", "doc_id": f"filler-{(made + i) // 50}",
                          "text": text, "search_text": text,
                          "vector": (vec / np.linalg.norm(vec)).tolist(), "title": f"Filler {(made + i) // 50}"})
            sentences = read_sentences(text)  # stored as the ingest stores them, with random unit vectors
            unit = rng.normal(size=(len(sentences), store.embedder.dim)).astype(np.float32)
            embedded.append((sentences, unit / np.linalg.norm(unit, axis=1, keepdims=True)))
        table.add(pa.Table.from_pylist(batch, schema=schema))
        ids = {"chunk_id": [r["chunk_id"] for r in batch], "doc_id": [r["doc_id"] for r in batch]}
        sentence_table.add(pa.table({**ids, **sentence_columns(embedded, store.embedder.dim)},
                                    schema=sentence_schema(store.embedder.dim)))
        made += len(batch)
    store.maintain(kb)
    return store, kb


def questions() -> list[str]:
    base = [l.strip() for l in (ROOT / "sample_docs" / "questions.txt").read_text().splitlines()
            if l.strip() and not l.startswith("#")]
    return [form.format(q=q) for form in REWORDINGS for q in base]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--asks", type=int, default=40, help="asks with --tasks tasks to collect")
    parser.add_argument("--tasks", type=int, default=5)
    parser.add_argument("--max-asks", type=int, default=150, help="stop after this many asks in all")
    parser.add_argument("--backend", default="onnx-int8", help="embedding backend (torch, onnx, onnx-int8)")
    parser.add_argument("--follow-links", type=int, default=None,
                        help="the strategy's follow_links (documents added by the link hop); default: the strategy's")
    args = parser.parse_args()
    # every part of the engine that embeds (store, answerability, offline provider) reads the backend
    # from the process settings, as the app does
    os.environ["WORKBENCH_EMBEDDING_BACKEND"] = args.backend
    default_settings.cache_clear()
    rng = np.random.default_rng(11)
    with tempfile.TemporaryDirectory(prefix="bench-overhead-") as tmp:
        started = time.perf_counter()
        store, filled = build_base(Path(tmp) / "data", args.chunks, args.backend, rng)
        build_s = time.perf_counter() - started
        pipeline = Pipeline(store.settings, store)
        if args.follow_links is not None:
            _, strategy = pipeline.strategies.active()
            pipeline.fixed_strategy = ("bench", strategy.model_copy(update={"follow_links": args.follow_links}))
        options = AskOptions(provider="offline")
        for q in questions()[:3]:  # warm-up: models, caches, table handles
            pipeline.run(q, options)
        parts = {f"retrieval.{p}": [] for p in RETRIEVAL_PARTS}
        overheads, walls, stages, tasks_seen, every = [], [], {s: [] for s in (*STAGES, "trace+other")}, {}, []
        for q in (questions() * 4)[: args.max_asks]:
            t0 = time.perf_counter()
            answer = pipeline.run(q, options)
            wall = (time.perf_counter() - t0) * 1000
            tasks_seen[len(answer.tasks)] = tasks_seen.get(len(answer.tasks), 0) + 1
            every.append(wall - answer.timings.get("reflection", 0.0))
            if len(answer.tasks) != args.tasks:
                continue
            t = answer.timings
            overheads.append(wall - t.get("reflection", 0.0))
            walls.append(wall)
            for stage in STAGES:
                stages[stage].append(t.get(stage, 0.0))
            for part in parts:
                parts[part].append(t.get(part, 0.0))
            stages["trace+other"].append(wall - sum(t.get(s, 0.0) for s in (*STAGES, "reflection")))
            if len(overheads) >= args.asks:
                break
        rows = [{"part": s, "p50_ms": pct(v, 50), "p95_ms": pct(v, 95)} for s, v in {**stages, **parts}.items()]
        rows.append({"part": "engine overhead", "p50_ms": pct(overheads, 50), "p95_ms": pct(overheads, 95)})
        rows.append({"part": "wall (incl. provider)", "p50_ms": pct(walls, 50), "p95_ms": pct(walls, 95)})
        rows.append({"part": f"engine overhead, all {len(every)} asks", "p50_ms": pct(every, 50),
                     "p95_ms": pct(every, 95)})
        chunks = sum(store._db.open_table(TABLE_PREFIX + kb).count_rows() for kb in store.knowledge_base_names())
        report("ask_overhead", {"chunks": chunks, "build_s": round(build_s, 1), "backend": args.backend,
                                "follow_links": args.follow_links, "filled_base": filled,
                                "asks": len(overheads), "tasks": args.tasks, "tasks_seen": tasks_seen,
                                "goal_p50_ms": 50, "results": rows}, rows, ["part", "p50_ms", "p95_ms"])


if __name__ == "__main__":
    main()
