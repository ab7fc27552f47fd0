"""Engine overhead per ask at 100k chunks: everything an ask costs except the provider's own time.

    python bench/bench_ask_overhead.py [--chunks 100000] [--asks 40] [--backend onnx-int8] [--follow-links N]
                                       [--processes N] [--keep DIR]

The base: sample_docs ingested for real (three knowledge bases, as the demo has them), then its
largest base filled until the store holds --chunks chunks, with rows written straight into its table
(words drawn at random from the real chunks' vocabulary, as many as a real chunk has; random unit
vectors for the chunk and for each of its sentences; for the entity graph, its title and ten
mentions, four drawn from the real chunks' mentions and six from 200,000 made-up names, both by a
Zipf law so that some names are shared by thousands of chunks, and synonym edges between made-up
names, as many per name as retrieval_dev's names have, ``FILLER_SYNONYM_PAIRS``), and its indexes built
as the store builds them (full-text, and the ANN index past 50,000 rows).

Asks run through the real Pipeline with the offline provider. Overhead = wall time of ``Pipeline.run``
(trace storage included) minus the trace's ``reflection`` stage, the generator + reviewer loop (the
provider's time). Only asks that ran exactly --tasks retrieval tasks are counted (questions are
repeated with rewordings until enough are collected or --max-asks have run); the overhead of every ask
is reported too. Printed: p50/p95 overhead and per-stage p50/p95.

``--processes N`` runs the asks in N fresh processes, one after the other, over the one base, and pools their asks
(each process's own p50 is printed too). One process's figure depends on luck the engine does not control: LanceDB's
full-text search takes 2-3 ms or 5-7 ms for the same query on the same base depending on the process (a hash
seed, it seems), so single runs of one commit differ by up to 25 ms at p50. The default, 1, runs them in the
process that built the base, as before.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from contextlib import nullcontext
from pathlib import Path

import numpy as np
import pyarrow as pa
from common import ROOT, pct, report

from engine.config import default_settings, load_settings
from engine.ingest import Ingestor
from engine.orchestration.strategy import GraphSettings
from engine.pipeline import AskOptions, Pipeline
from engine.language.layout import read_sentences
from engine.store import KnowledgeBaseStore
from engine.store.catalogue import CATALOGUE_PREFIX, entries_from_chunks
from engine.store.schema import TABLE_PREFIX, chunk_schema
from engine.store.sentences import SENTENCE_PREFIX, sentence_schema
from engine.store.sentences import columns as sentence_columns
from engine.store import mentions as mention_rows
from engine.store import synonyms

REWORDINGS = ["{q}", "Please answer: {q}", "{q} Cite the documents.", "In short: {q}", "{q} Be precise."]
STAGES = ("perception", "orchestration", "retrieval", "answerability", "validation")
RETRIEVAL_PARTS = ("embed", "search", "graph", "fuse", "links", "sentences")


def build_base(data: Path, chunks: int, backend: str, rng: np.random.Generator) -> tuple[KnowledgeBaseStore, str]:
    settings = load_settings(data_dir=data, embedding_backend=backend, graph_synonyms=True)
    store = KnowledgeBaseStore(settings)
    ingestor = Ingestor(store)
    for folder in sorted(p for p in (ROOT / "sample_docs").iterdir() if p.is_dir()):
        ingestor.ingest_paths([folder], folder.name)
    store.sentence_filler.wait()
    sizes = {kb: store._db.open_table(TABLE_PREFIX + kb).count_rows() for kb in store.knowledge_base_names()}
    kb = max(sizes, key=sizes.get)
    table = store._db.open_table(TABLE_PREFIX + kb)
    real = table.to_arrow().to_pylist()  # the chunk table: no sentence columns
    schema = chunk_schema(store.embedder.dim)
    vocabulary = np.array(sorted({w for row in real for w in row["search_text"].split()}))
    remaining, made = chunks - sum(sizes.values()), 0
    sentence_table = store._db.open_table(SENTENCE_PREFIX + kb)
    mention_table = mention_rows.table_of(store._db, kb)
    catalogue = store._db.open_table(CATALOGUE_PREFIX + kb)
    real_keys = np.array(sorted(set(mention_rows.read_all(store._db, kb)["mention"].to_pylist())))
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
        mention_table.add(filler_mentions(batch, real_keys, rng))
        catalogue.add(entries_from_chunks(pa.Table.from_pylist(batch, schema=schema)))  # listed as ingest lists them
        made += len(batch)
    mention_rows.recount_all(store._db, kb)
    filler_synonyms(store._db, kb, rng)
    store.maintain(kb)
    return store, kb


FILLER_SYNONYM_PAIRS = 0.2
"""Synonym pairs per made-up name: about what retrieval_dev's names have (docs/benchmarks.md: 1,338 pairs among
its 7,432 names and titles)."""


def filler_synonyms(db, kb: str, rng: np.random.Generator) -> None:
    """Synonym edges between the made-up names, each at a similarity drawn between the threshold and 0.95 (their
    name vectors are not written: a walk reads only the edges)."""
    pairs = int(200_000 * FILLER_SYNONYM_PAIRS)
    a, b = rng.integers(1, 200_001, size=pairs), rng.integers(1, 200_001, size=pairs)
    similarity = rng.uniform(synonyms.MIN_SIMILARITY, 0.95, size=pairs).round(4)
    kept = {}
    for x, y, sim in zip(a.tolist(), b.tolist(), similarity.tolist()):
        if x != y:
            kept[f"name {x}", f"name {y}"] = kept[f"name {y}", f"name {x}"] = sim
    ordered = sorted(kept)
    edges = db.create_table(synonyms.SYNONYM_PREFIX + kb, schema=synonyms.synonym_schema(), exist_ok=True)
    edges.add(pa.table({"mention": [p for p, _ in ordered], "synonym": [q for _, q in ordered],
                        "similarity": [kept[k] for k in ordered]}, schema=synonyms.synonym_schema()))


def filler_mentions(batch: list[dict], real_keys: np.ndarray, rng: np.random.Generator) -> pa.Table:
    """Mention rows for filler chunks: the title, four real mentions and six made-up names (Zipf-drawn)."""
    out: dict[str, list[str]] = {name: [] for name in mention_rows.mention_schema().names}
    for row in batch:
        real = real_keys[np.minimum(rng.zipf(1.3, size=4) - 1, len(real_keys) - 1)]
        made_up = [f"name {n}" for n in np.minimum(rng.zipf(1.3, size=6), 200_000)]
        keys = dict.fromkeys([row["title"].lower(), *real, *made_up])
        for key in keys:
            out["chunk_id"].append(row["chunk_id"])
            out["doc_id"].append(row["doc_id"])
            out["mention"].append(str(key))
            out["written"].append(str(key))
            out["kind"].append("title" if key == row["title"].lower() else "name")
    return pa.table(out, schema=mention_rows.mention_schema())


def questions() -> list[str]:
    base = [l.strip() for l in (ROOT / "sample_docs" / "questions.txt").read_text().splitlines()
            if l.strip() and not l.startswith("#")]
    return [form.format(q=q) for form in REWORDINGS for q in base]


def run_asks(pipeline: Pipeline, args: argparse.Namespace) -> dict:
    """Ask until --asks asks with --tasks tasks were timed (or --max-asks in all); every timing, in ms."""
    _, strategy = pipeline.strategies.active()
    if args.follow_links is not None:
        strategy = strategy.model_copy(update={"follow_links": args.follow_links})
    if args.graph_weight is not None:
        strategy = strategy.model_copy(update={"graph": GraphSettings(weight=args.graph_weight)})  # else as defaulted
    pipeline.fixed_strategy = ("bench", strategy)
    options = AskOptions(provider="offline")
    for q in questions()[:3]:  # warm-up: models, caches, table handles
        pipeline.run(q, options)
    got = {"overheads": [], "walls": [], "every": [], "tasks_seen": {},
           "stages": {s: [] for s in (*STAGES, "trace+other")}, "parts": {f"retrieval.{p}": [] for p in RETRIEVAL_PARTS}}
    for q in (questions() * 4)[: args.max_asks]:
        t0 = time.perf_counter()
        answer = pipeline.run(q, options)
        wall = (time.perf_counter() - t0) * 1000
        searches = sum(1 for t in answer.tasks if t.search_type != "graph")  # graph tasks: one per base searched
        seen = str(searches)
        got["tasks_seen"][seen] = got["tasks_seen"].get(seen, 0) + 1
        got["every"].append(wall - answer.timings.get("reflection", 0.0))
        if searches != args.tasks:
            continue
        t = answer.timings
        got["overheads"].append(wall - t.get("reflection", 0.0))
        got["walls"].append(wall)
        for stage in STAGES:
            got["stages"][stage].append(t.get(stage, 0.0))
        for part in got["parts"]:
            got["parts"][part].append(t.get(part, 0.0))
        got["stages"]["trace+other"].append(wall - sum(t.get(s, 0.0) for s in (*STAGES, "reflection")))
        if len(got["overheads"]) >= args.asks:
            break
    return got


def pooled(runs: list[dict]) -> dict:
    """The asks of several processes as if one had asked them all."""
    got = {key: [v for run in runs for v in run[key]] for key in ("overheads", "walls", "every")}
    got["stages"] = {s: [v for run in runs for v in run["stages"][s]] for s in runs[0]["stages"]}
    got["parts"] = {p: [v for run in runs for v in run["parts"][p]] for p in runs[0]["parts"]}
    got["tasks_seen"] = {}
    for run in runs:
        for n, count in run["tasks_seen"].items():
            got["tasks_seen"][n] = got["tasks_seen"].get(n, 0) + count
    return got


def in_processes(data: Path, args: argparse.Namespace) -> list[dict]:
    """Run the asks in --processes fresh processes over the base under ``data``, one after the other."""
    runs = []
    for _ in range(args.processes):
        command = [sys.executable, __file__, "--worker", str(data), "--asks", str(args.asks), "--tasks", str(args.tasks),
                   "--max-asks", str(args.max_asks), "--backend", args.backend]
        if args.follow_links is not None:
            command += ["--follow-links", str(args.follow_links)]
        if args.graph_weight is not None:
            command += ["--graph-weight", str(args.graph_weight)]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode:
            raise SystemExit(f"A worker process failed ({' '.join(command)}):\n{done.stderr[-3000:]}")
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return runs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--asks", type=int, default=40, help="asks with --tasks tasks to collect (per process)")
    parser.add_argument("--tasks", type=int, default=5)
    parser.add_argument("--max-asks", type=int, default=150, help="stop after this many asks in all (per process)")
    parser.add_argument("--backend", default="onnx-int8", help="embedding backend (torch, onnx, onnx-int8)")
    parser.add_argument("--follow-links", type=int, default=None,
                        help="the strategy's follow_links (documents added by the link hop); default: the strategy's")
    parser.add_argument("--graph-weight", type=float, default=None,
                        help="the entity-graph task at this weight with the other graph settings at their defaults "
                             "(0: no graph tasks); default: the base's saved strategy")
    parser.add_argument("--processes", type=int, default=1, help="fresh processes to run the asks in, pooled")
    parser.add_argument("--worker", type=Path, default=None, help=argparse.SUPPRESS)  # a base's DATA_DIR
    parser.add_argument("--keep", type=Path, default=None,
                        help="build the base in this (new) folder and keep it (for bench_graph_cost.py and reruns)")
    args = parser.parse_args()
    # every part of the engine that embeds (store, answerability, offline provider) reads the backend
    # from the process settings, as the app does
    os.environ["WORKBENCH_EMBEDDING_BACKEND"] = args.backend
    default_settings.cache_clear()
    if args.worker is not None:
        store = KnowledgeBaseStore(load_settings(data_dir=args.worker, embedding_backend=args.backend))
        print(json.dumps(run_asks(Pipeline(store.settings, store), args)))
        return
    rng = np.random.default_rng(11)
    with (nullcontext(str(args.keep)) if args.keep else tempfile.TemporaryDirectory(prefix="bench-overhead-")) as tmp:
        started = time.perf_counter()
        store, filled = build_base(Path(tmp) / "data", args.chunks, args.backend, rng)
        build_s = time.perf_counter() - started
        chunks = sum(store._db.open_table(TABLE_PREFIX + kb).count_rows() for kb in store.knowledge_base_names())
        mentions = sum(mention_rows.count(store._db, kb) for kb in store.knowledge_base_names())
        mention_bytes = sum(p.stat().st_size for p in (Path(tmp) / "data").rglob("*")
                            if p.is_file() and "/gm_" in str(p))
        chunk_bytes = sum(p.stat().st_size for p in (Path(tmp) / "data").rglob("*")
                          if p.is_file() and "/kb_" in str(p))
        synonym_bytes = sum(p.stat().st_size for p in (Path(tmp) / "data").rglob("*")
                            if p.is_file() and ("/gs_" in str(p) or "/gv_" in str(p)))
        if args.processes > 1:
            runs = in_processes(Path(tmp) / "data", args)
        else:
            runs = [run_asks(Pipeline(store.settings, store), args)]
    got = pooled(runs)
    rows = [{"part": s, "p50_ms": pct(v, 50), "p95_ms": pct(v, 95)}
            for s, v in {**got["stages"], **got["parts"]}.items()]
    rows.append({"part": "engine overhead", "p50_ms": pct(got["overheads"], 50), "p95_ms": pct(got["overheads"], 95)})
    rows.append({"part": "wall (incl. provider)", "p50_ms": pct(got["walls"], 50), "p95_ms": pct(got["walls"], 95)})
    rows.append({"part": f"engine overhead, all {len(got['every'])} asks", "p50_ms": pct(got["every"], 50),
                 "p95_ms": pct(got["every"], 95)})
    if len(runs) > 1:
        rows += [{"part": f"engine overhead, process {i}", "p50_ms": pct(run["overheads"], 50),
                  "p95_ms": pct(run["overheads"], 95)} for i, run in enumerate(runs, start=1)]
    report("ask_overhead", {"chunks": chunks, "build_s": round(build_s, 1), "backend": args.backend,
                            "follow_links": args.follow_links, "graph_weight": args.graph_weight,
                            "mention_rows": mentions, "mention_table_mb": round(mention_bytes / 2**20, 1),
                            "chunk_table_mb": round(chunk_bytes / 2**20, 1),
                            "synonym_tables_mb": round(synonym_bytes / 2**20, 1),
                            "filled_base": filled, "processes": len(runs),
                            "asks": len(got["overheads"]), "tasks": args.tasks, "tasks_seen": got["tasks_seen"],
                            "goal_p50_ms": 50, "results": rows}, rows, ["part", "p50_ms", "p95_ms"])


if __name__ == "__main__":
    main()
