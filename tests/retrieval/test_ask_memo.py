"""An ask's later retrieval attempts reuse what its first one read (``AskMemo``): the widened search before
refusing runs no search query and embeds nothing again, and finds what a fresh search would."""

from __future__ import annotations

import pytest

from engine.config import load_settings
from engine.ingest import Ingestor
from engine.pipeline import Pipeline
from engine.pipeline.options import AskOptions
from engine.pipeline.replan import widen
from engine.retrieval.retriever import Retriever
from engine.store import KnowledgeBaseStore

pytestmark = pytest.mark.integration

RECORDS = [{"id": f"d{i}", "title": f"Wheel task {i}", "text": f"Task {i}: torque the axle nut of wheel {i} to "
            f"{200 + i * 5} N.m. Check the brake wear pin of wheel {i}; replace it below {i + 1} mm."}
           for i in range(40)]


@pytest.fixture()
def pipeline(tmp_path):
    store = KnowledgeBaseStore(load_settings(data_dir=tmp_path / "data"))
    Ingestor(store).ingest_records(RECORDS, "manuals")
    Ingestor(store).ingest_records([{"id": "f1", "title": "Forum", "text": "Someone says wheel 3 needs 90 N.m."}],
                                   "faq")
    assert store.sentence_filler.wait(120)  # the sentence vectors are stored, so an ask embeds only its question
    return Pipeline(store.settings, store)


def _record_attempts(monkeypatch, pipeline):
    """What each retrieval attempt queried and embedded."""
    from engine.store import search

    attempts: list[dict] = []
    real_collect, real_run = search.collect, pipeline.retriever.run
    embedder = pipeline.store.embedder
    real_beside, real_encode = embedder.encode_beside, embedder.encode

    async def collect(builder):
        attempts[-1]["queries"].append(type(builder).__name__)
        return await real_collect(builder)

    def run(*args, **kwargs):
        attempts.append({"queries": [], "embedded": []})
        return real_run(*args, **kwargs)

    monkeypatch.setattr(search, "collect", collect)
    monkeypatch.setattr(pipeline.retriever, "run", run)
    monkeypatch.setattr(embedder, "encode_beside",
                        lambda text: (attempts[-1]["embedded"].append(text) if attempts else None) or real_beside(text))
    monkeypatch.setattr(embedder, "encode",
                        lambda texts: (attempts[-1]["embedded"].extend(texts) if attempts else None)
                        or real_encode(texts))
    return attempts


def test_the_widened_search_before_refusing_reads_the_first_searches_rows(pipeline, monkeypatch):
    attempts = _record_attempts(monkeypatch, pipeline)
    # a target the selectors can reach (at one no confidence reaches, nothing is searched again)
    answer = pipeline.run("What is the capital of France?", AskOptions(provider="offline", target_accuracy=0.6))
    assert answer.status == "refused" and len(attempts) == 2
    assert answer.extra["attempts"][0]["status"] == "unanswerable"  # refused after one wider search
    searched = [q for q in attempts[0]["queries"] if "FTS" in q or "Vector" in q]
    assert searched  # the first attempt searched, fetching twice each task's k
    assert [q for q in attempts[1]["queries"] if "FTS" in q or "Vector" in q] == []
    assert attempts[1]["embedded"] == []

    # the widened attempt found what a fresh search of the widened plan finds
    first = [t.model_copy(update={"top_k": t.top_k // 2}) for t in answer.tasks]
    _, strategy = pipeline.strategies.active()
    tasks, wider = widen(first, strategy)
    assert tasks == list(answer.tasks)
    fresh = Retriever(pipeline.store).run(tasks, answer.intent, wider)
    assert [(e.chunk_id, e.score, e.text) for e in fresh.evidence] == \
        [(e.chunk_id, e.score, e.text) for e in answer.evidence]


def test_a_retrieval_without_a_memo_fetches_k_rows(pipeline, monkeypatch):
    from engine.store import search

    limits: list[int] = []
    real = search._rows

    async def rows(builder, where, k, score):
        limits.append(k)
        return await real(builder, where, k, score)

    monkeypatch.setattr(search, "_rows", rows)
    _, strategy = pipeline.strategies.active()
    intent = pipeline.perception.run("axle nut torque of wheel 3")
    from engine.orchestration import StrategyRouter
    tasks = StrategyRouter(strategy, ["manuals", "faq"]).run(intent)
    Retriever(pipeline.store).run(tasks, intent, strategy)
    assert limits and set(limits) == {t.top_k for t in tasks if t.search_type != "graph"}  # (a walk searches not)


def test_no_wider_search_when_the_target_is_out_of_the_selectors_reach(pipeline, monkeypatch):
    from engine.offline.model import packaged
    from engine.offline.selector import Selector

    attempts = _record_attempts(monkeypatch, pipeline)
    for name, part in (("selector", "selector"), ("passage", "passage")):  # selectors no confidence lifts to 0.95
        monkeypatch.setattr(pipeline.answerability, name,
                            Selector(packaged(part), 1.01, f"unreachable {part}", {"0.8": 1.01, "0.95": 1.01}))
    answer = pipeline.run("What is the capital of France?", AskOptions(provider="offline", target_accuracy=0.95))
    judged = answer.answerability
    assert answer.status == "refused" and judged.threshold > 1 and judged.signals.get("passage_threshold", 2) > 1
    assert len(attempts) == 1 and "nothing is answered" in answer.final
