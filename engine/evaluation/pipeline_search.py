"""The `pipeline` retrieval mode for evaluation: perception + orchestration + fused retrieval, no generation."""

from __future__ import annotations

from engine.evaluation.retrieval import EVAL_KB, Searcher, dedupe_docs
from engine.orchestration import Strategy, StrategyRouter
from engine.retrieval import Retriever


def pipeline_searcher(strategy: Strategy | None = None) -> Searcher:
    """Rank documents the way the pipeline would gather evidence for a question."""
    from engine.perception import get_perception

    perception = get_perception()
    base = strategy or Strategy()
    cache: dict[int, Retriever] = {}

    def run(store, text: str, k: int) -> list[str]:
        retriever = cache.setdefault(id(store), Retriever(store))
        tuned = base.model_copy(update={"max_evidence": max(k * 3, base.max_evidence), "top_k": max(k * 2, base.top_k),
                                        "context_chars": 100_000})
        intent = perception.run(text)
        tasks = StrategyRouter(tuned, [EVAL_KB]).run(intent)
        result = retriever.run(tasks, intent, tuned)
        return dedupe_docs(e.doc_id for e in result.evidence)[:k]

    return run
