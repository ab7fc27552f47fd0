"""Questions and checks: ``/v1/ask`` (the full Answer), ``/v1/ask/stream`` (the same, as it happens),
``/rag`` (its short form), ``/v1/review``, ``/v1/search``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse

from engine.api.auth import Caller, Engine
from engine.api.errors import NotFound
from engine.api.schemas import AskRequest, RagRequest, ReviewRequest, SearchRequest
from engine.identity import Identity
from engine.language.citations import citations
from engine.results import Answer, Evidence, EvidenceMeta

router = APIRouter()


def _check_bases(engine, identity: Identity, names: list[str] | None) -> tuple[str, ...] | None:
    """The bases to search, each one readable and existing; NotFound (404) names the caller's own bases."""
    store = engine.store_for(identity)
    readable = store.knowledge_base_names()
    if not readable:
        raise NotFound("There are no knowledge bases you may read yet; upload documents (POST /v1/documents) or "
                       "ask an admin for a read grant.")
    missing = [n for n in names or () if n not in readable]
    if missing:
        raise NotFound(f"Knowledge base {missing[0]!r} does not exist or you have no read grant for it; yours: "
                       f"{', '.join(readable)}.")
    return tuple(dict.fromkeys(names)) if names else None


def _options(engine, identity: Identity, **options: Any):
    from engine.pipeline import AskOptions

    bases = _check_bases(engine, identity, options.pop("knowledge_bases", None))
    return AskOptions(knowledge_bases=bases, provider=engine.provider_id, user=identity.name, **options)


def _answer(request: Request, engine, identity: Identity, question: str, **options: Any) -> Answer:
    answer = engine.pipeline_for(identity).run(question, _options(engine, identity, **options))
    request.app.state.metrics.record_answer(answer)
    return answer


def answer_payload(answer: Answer) -> dict[str, Any]:
    """The Answer exactly as ``python -m engine ask --json`` prints it."""
    return answer.model_dump(mode="json") | {"review_rounds": answer.review_rounds, "revisions": answer.revisions}


@router.post("/v1/ask", tags=["answers"], summary="Answer a question with review and validation")
def ask(body: AskRequest, request: Request, engine: Engine, identity: Caller) -> dict[str, Any]:
    """The full Answer (intent, tasks, evidence, draft, reviews, final, validation, status, per-stage timings in
    ms), as `python -m engine ask --json` gives it. A refusal is a normal answer with status `refused`."""
    answer = _answer(request, engine, identity, body.question, knowledge_bases=body.knowledge_bases or None,
                     reflection=body.reflection, mode=body.mode, max_rounds=body.max_rounds,
                     previous_question=body.previous_question, target_accuracy=body.target_accuracy)
    return answer_payload(answer)


@router.post("/v1/ask/stream", tags=["answers"], summary="Answer a question, streaming each stage and the draft",
             response_class=StreamingResponse,
             responses={200: {"content": {"text/event-stream": {}}, "description": "server-sent events"}})
def ask_stream(body: AskRequest, request: Request, engine: Engine, identity: Caller) -> StreamingResponse:
    """The ask of `/v1/ask` as server-sent events while it runs, in order:

    - `stage_started` `{stage}` and `stage_finished` `{stage, ms, error}` around each stage;
    - `draft_delta` `{step, text}`: the draft (step `draft`) or a revision (step `revise`) as it is written,
      to be shown as "draft — under review"; `draft_reset` `{step, reason}`: the stream broke and restarted,
      drop the text so far; `draft_done` `{step, text}`: that text in full, with its [n] citations;
    - `review` `{round, valid, confidence, issues}` after each review round; `replan` `{changes}` when a
      failed check sends the question back to retrieval;
    - last, `answer` with the full Answer of `/v1/ask`, or `error` `{error}` when the run broke.

    Bases are checked before the stream starts (404, as for `/v1/ask`)."""
    from engine.pipeline.events import stream_answer

    options = _options(engine, identity, knowledge_bases=body.knowledge_bases or None, reflection=body.reflection,
                       mode=body.mode, max_rounds=body.max_rounds, previous_question=body.previous_question,
                       target_accuracy=body.target_accuracy)
    run = engine.pipeline_for(identity).run
    metrics = request.app.state.metrics

    def events() -> Iterator[str]:
        for event in stream_answer(run, body.question, options):
            data = event.data
            if event.kind == "answer":
                metrics.record_answer(data["answer"])
                data = answer_payload(data["answer"])
            yield f"event: {event.kind}\ndata: {json.dumps(data, ensure_ascii=False, default=str)}\n\n"

    return StreamingResponse(events(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


def sources(answer: Answer) -> list[dict[str, Any]]:
    cited = set(citations(answer.final or ""))
    return [{"n": n, "cited": n in cited, "title": e.metadata.title, "doc_id": e.doc_id,
             "knowledge_base": e.knowledge_base, "chunk_id": e.chunk_id, "page": e.metadata.page,
             "update_date": e.metadata.update_date.isoformat() if e.metadata.update_date else None,
             "score": round(e.score, 6), "text": e.text}
            for n, e in enumerate(answer.evidence, start=1)]


@router.post("/rag", tags=["answers"], summary="Answer a question (short form)")
def rag(body: RagRequest, request: Request, engine: Engine, identity: Caller) -> dict[str, Any]:
    """`{query}` in; the answer, its status, the numbered sources it drew on ([n] in the answer) and the time per
    stage in ms out. The same pipeline as /v1/ask with its defaults."""
    answer = _answer(request, engine, identity, body.query, target_accuracy=body.target_accuracy)
    return {"query": body.query, "answer": answer.final, "status": answer.status, "sources": sources(answer),
            "timings": answer.timings, "trace_id": answer.trace_id, "provider": answer.provider}


@router.post("/v1/review", tags=["answers"], summary="Review an answer against passages")
def review(body: ReviewRequest, engine: Engine, identity: Caller) -> dict[str, Any]:
    """The reviewer's verdict on `answer` given `passages` (numbered [1]..[n]): valid, confidence and issues. The
    answer needs no [n] citations; each statement is checked against all passages. No store access."""
    evidence = tuple(
        Evidence(chunk_id=f"passage-{i}", doc_id=f"passage-{i}", knowledge_base="request", score=1.0,
                 text=p if isinstance(p, str) else p.text,
                 metadata=EvidenceMeta(title=(p.title if not isinstance(p, str) and p.title else f"Passage {i}")))
        for i, p in enumerate(body.passages, start=1))
    verdict = engine.reviewer().review(body.question, evidence, body.answer)
    return {"valid": verdict.valid, "hallucinated": not verdict.valid, "confidence": verdict.confidence,
            "issues": [i.model_dump(mode="json") for i in verdict.issues],
            "corrections": [c.model_dump(mode="json") for c in verdict.corrections],
            "reasoning": verdict.reasoning, "reviewer": type(engine.reviewer()).__name__}


@router.post("/v1/search", tags=["answers"], summary="Search the knowledge bases")
def search(body: SearchRequest, engine: Engine, identity: Caller) -> dict[str, Any]:
    """The best chunks for `query` in the bases you may read (or the ones named), best first."""
    bases = _check_bases(engine, identity, body.knowledge_bases or None)
    hits = engine.store_for(identity).search(body.query, list(bases) if bases else None, mode=body.mode, k=body.k)
    return {"query": body.query, "mode": body.mode, "k": body.k, "results": [h.to_dict() for h in hits]}
