"""The entity graph's effect on retrieval: every mode on retrieval_dev, and the answer in the evidence on qa_dev.

    python bench/bench_graph.py [--data-dir DIR]          # the modes below
    python bench/bench_graph.py --tune [--data-dir DIR]   # choose the graph's settings by 5-fold cross-validation

retrieval_dev (HotpotQA, two gold passages per question): recall@5, recall@10, nDCG@10 and MRR@10 of the ranked
documents of vector, keyword and hybrid search, of hybrid search fused with the graph task (``hybrid+graph``: the
base task and the walk, as the pipeline fuses them), and of the pipeline's own plan with the graph task off and on
(``pipeline``, as `eval retrieval --mode pipeline`): with the default graph settings, and with the walk only adding
passages no search found (``additive``: ``rerank`` off, weight 1, damping 0.5). qa_dev (HotpotQA, answerable
questions only): the share whose gold answer is written in the text of the first 5 and 10 documents the pipeline gathers (a set the
graph's settings were never chosen on). ``, synonyms``: the same with the synonym edges walked too. Each corpus is
ingested once; with --data-dir the stores are kept there.

--tune scores every setting of a grid (weight, damping, seed passages) on each retrieval_dev question, in both plans,
and picks on four folds the setting with the best summed recall@10 of the two plans, scoring the fifth fold with it:
the out-of-fold recall is what the chosen defaults can be expected to give on questions they were not chosen on.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

import numpy as np
from common import DATASETS, report

from engine.config import load_settings
from engine.evaluation.retrieval import EVAL_KB, dedupe_docs, read_jsonl, read_qrels, score_rankings, search_docs
from engine.ingest import Ingestor
from engine.orchestration import Strategy, StrategyRouter
from engine.orchestration.strategy import GraphSettings
from engine.results import RetrievalTask
from engine.store import KnowledgeBaseStore


def store_for(folder: Path, corpus: Path) -> tuple[KnowledgeBaseStore, float]:
    store = KnowledgeBaseStore(load_settings(data_dir=folder, graph_synonyms=True))  # (walked only where asked)
    seconds = 0.0
    if EVAL_KB not in store.knowledge_base_names():
        started = time.perf_counter()
        Ingestor(store).ingest_records(read_jsonl(corpus), EVAL_KB)
        seconds = time.perf_counter() - started
        store.sentence_filler.wait()
    return store, seconds


def gatherer(store: KnowledgeBaseStore, graph: GraphSettings, plan: str):
    """Documents ranked as retrieval gathers evidence: the pipeline's plan, or hybrid search plus the walk."""
    from engine.perception import get_perception
    from engine.retrieval import Retriever

    perception, retriever = get_perception(), Retriever(store)
    strategy = Strategy(graph=graph)
    graph_weight = graph.weight

    def run(_, text: str, k: int) -> tuple[list[str], list[str]]:
        tuned = strategy.model_copy(update={"max_evidence": max(k * 3, strategy.max_evidence),
                                            "top_k": max(k * 2, strategy.top_k), "context_chars": 100_000})
        intent = perception.run(text)
        if plan == "pipeline":
            tasks = StrategyRouter(tuned, [EVAL_KB]).run(intent)
        else:
            tasks = [RetrievalTask(query=intent.search_query, search_type="hybrid", knowledge_base=EVAL_KB,
                                   weight=tuned.search_weights["hybrid"], top_k=tuned.top_k)]
            if graph_weight:
                tasks.append(RetrievalTask(query=intent.search_query, search_type="graph", knowledge_base=EVAL_KB,
                                           weight=graph_weight, priority=10, top_k=tuned.graph.top_k))
        evidence = retriever.run(tasks, intent, tuned).evidence
        ranked = dedupe_docs(e.doc_id for e in evidence)[:k]
        texts = {}
        for e in evidence:
            texts.setdefault(e.doc_id, []).append(f"{e.metadata.title}\n{e.text}")
        return ranked, [" ".join(texts[d]) for d in ranked]

    return run


def retrieval_rows(store: KnowledgeBaseStore) -> list[dict]:
    folder = DATASETS / "retrieval_dev"
    qrels, queries = read_qrels(folder / "qrels.tsv"), read_jsonl(folder / "queries.jsonl")
    modes = {m: (lambda s, t, k, m=m: (search_docs(m)(s, t, k), [])) for m in ("vector", "keyword", "hybrid")}
    for plan, name in (("hybrid", "hybrid+graph"), ("pipeline", "pipeline")):
        if plan == "pipeline":
            modes["pipeline, graph off"] = gatherer(store, GraphSettings(weight=0.0), plan)
        modes[name] = gatherer(store, GraphSettings(), plan)
        modes[f"{name}, synonyms"] = gatherer(store, GraphSettings(synonyms=True), plan)
        modes[f"{name}, additive"] = gatherer(store, ADDITIVE, plan)
    rows = []
    for name, run in modes.items():
        rankings, latencies = rank_all(store, run, queries)
        metrics = score_rankings(rankings, qrels, 10)
        rows.append({"set": "retrieval_dev", "mode": name, **{k: metrics[k] for k in ("recall@5", "recall@10",
                     "ndcg@10", "mrr@10")}, "p50_ms": round(float(np.percentile(latencies, 50)), 1)})
    return rows


ADDITIVE = GraphSettings(weight=1.0, damping=0.5, rerank=False)
"""The walk only adding passages no search found, at the settings it had as the default before the cross-validated
ones (at weight 3 the walk's own passages would outrank the searched ones)."""


def rank_all(store: KnowledgeBaseStore, run, queries: list[dict]) -> tuple[dict[str, list[str]], list[float]]:
    run(store, "warm up", 10)
    rankings, latencies = {}, []
    for row in queries:
        started = time.perf_counter()
        rankings[str(row["id"])] = run(store, str(row["text"]), 10)[0]
        latencies.append((time.perf_counter() - started) * 1000)
    return rankings, latencies


GRID = [dict(weight=w, damping=d, seed_hits=s) for w in (0.5, 1.0, 2.0, 3.0, 4.0) for d in (0.5, 0.7, 0.85)
        for s in (3, 5, 10)]
"""The settings --tune compares (rerank on: additive fusion cannot move the searched passages it ranks)."""


def tune(store: KnowledgeBaseStore, folds: int = 5) -> dict:
    """Recall@10 of each ``GRID`` setting per question, and the out-of-fold recall of picking on the other folds."""
    folder = DATASETS / "retrieval_dev"
    qrels, queries = read_qrels(folder / "qrels.tsv"), read_jsonl(folder / "queries.jsonl")
    recall: dict[tuple[int, str], dict[str, float]] = {}
    for at, setting in enumerate(GRID):
        for plan in ("hybrid", "pipeline"):
            rankings, _ = rank_all(store, gatherer(store, GraphSettings(**setting), plan), queries)
            recall[at, plan] = {q: len(qrels[q] & set(r[:10])) / len(qrels[q])
                                for q, r in rankings.items() if q in qrels}
            mean = round(float(np.mean(list(recall[at, plan].values()))), 3)
            print(json.dumps({**setting, "plan": plan, "recall@10": mean}), flush=True)
    judged = sorted(recall[0, "hybrid"])
    order = random.Random(0).sample(judged, len(judged))
    held: dict[str, list[float]] = {"hybrid": [], "pipeline": []}
    picks = []
    for k in range(folds):
        test = set(order[k::folds])
        train = [q for q in judged if q not in test]
        best = max(range(len(GRID)), key=lambda at: (sum(np.mean([recall[at, p][q] for q in train]) for p in held),
                                                    -GRID[at]["weight"]))
        picks.append(GRID[best])
        for plan in held:
            held[plan].extend(recall[best, plan][q] for q in test)
    return {"picked per fold": picks,
            **{f"out-of-fold recall@10, {p}": round(float(np.mean(v)), 3) for p, v in held.items()}}


def answer_rows(store: KnowledgeBaseStore) -> list[dict]:
    questions = [q for q in read_jsonl(DATASETS / "qa_dev" / "questions.jsonl") if q.get("answerable")]
    rows = []
    for name, graph in (("pipeline, graph off", GraphSettings(weight=0.0)), ("pipeline", GraphSettings()),
                        ("pipeline, synonyms", GraphSettings(synonyms=True)), ("pipeline, additive", ADDITIVE)):
        run = gatherer(store, graph, "pipeline")
        found = {5: 0, 10: 0}
        for q in questions:
            _, texts = run(store, q["question"], 10)
            golds = [" ".join(a.lower().split()) for a in q["answers"]]
            for k in found:
                body = " ".join(" ".join(texts[:k]).lower().split())
                found[k] += any(g and g in body for g in golds)
        rows.append({"set": "qa_dev (answerable)", "mode": name, "answer in top 5 docs": round(found[5] / len(questions), 3),
                     "answer in top 10 docs": round(found[10] / len(questions), 3), "questions": len(questions)})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, default=None, help="keep the stores here (default: a temporary folder)")
    parser.add_argument("--tune", action="store_true", help="choose the graph's settings by cross-validation")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-graph-") as tmp:
        root = args.data_dir or Path(tmp)
        store, ingest_s = store_for(root / "retrieval_dev", DATASETS / "retrieval_dev" / "corpus.jsonl")
        if args.tune:
            print(json.dumps({"benchmark": "graph_tuning", **tune(store)}))
            return
        qa_store, _ = store_for(root / "qa_dev", DATASETS / "qa_dev" / "corpus.jsonl")
        from engine.store import mentions, synonyms
        graph_rows = mentions.count(store._db, EVAL_KB)
        edge_rows = len(synonyms.read_all(store._db, EVAL_KB))
        chunks = store.count_chunks(EVAL_KB)
        retrieval = retrieval_rows(store)
        answers = answer_rows(qa_store)
    report("graph_retrieval", {"ingest_s": round(ingest_s, 1), "chunks": chunks, "mention_rows": graph_rows,
                               "synonym_edge_rows": edge_rows,
                               "retrieval": retrieval, "answers": answers},
           retrieval, list(retrieval[0]))
    print()
    for row in answers:
        print(row)


if __name__ == "__main__":
    main()
