"""In-memory stand-ins for the agent tests: a small document store, an answer callable, runtime builders."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.agent import AgentRuntime, AuditLog, Policy, RateLimiter, ToolContext, ToolRegistry, default_registry
from engine.config import load_settings
from engine.errors import KnowledgeBaseError
from engine.llm.base import ChatResponse, TextBlock
from engine.results import Answer, Evidence, EvidenceMeta, Intent
from engine.store.schema import DocumentInfo, SearchHit


@dataclass
class FakeDoc:
    doc_id: str
    kb: str
    title: str
    text: str
    update_date: str | None = "2024-05-02"
    authority: int = 3


@dataclass
class FakeStore:
    """The KnowledgeBaseStore methods the tools use, over a few documents in memory."""

    docs: list[FakeDoc] = field(default_factory=list)
    deleted: list[tuple[str, str]] = field(default_factory=list)
    searches: list[dict[str, Any]] = field(default_factory=list)

    def knowledge_base_names(self) -> list[str]:
        return sorted({d.kb for d in self.docs})

    def _info(self, d: FakeDoc) -> DocumentInfo:
        return DocumentInfo(d.doc_id, d.kb, d.title, f"{d.doc_id}.md", d.update_date, 3, "manual", None, None, 1,
                            "hash", "2024-01-01T00:00:00")

    def list_documents(self, kb: str) -> list[DocumentInfo]:
        if kb not in self.knowledge_base_names():
            raise KnowledgeBaseError(f"Knowledge base {kb!r} does not exist.")
        return [self._info(d) for d in self.docs if d.kb == kb]

    def get_document(self, doc_id: str, kb: str | None = None):
        for d in self.docs:
            if d.doc_id == doc_id and (kb is None or d.kb == kb):
                return self._info(d), [{"chunk_id": f"{d.doc_id}#0", "position": 0, "page": None, "text": d.text}]
        raise KnowledgeBaseError(f"Document {doc_id!r} was not found.")

    def delete_document(self, doc_id: str, kb: str) -> int:
        before = len(self.docs)
        self.docs = [d for d in self.docs if not (d.doc_id == doc_id and d.kb == kb)]
        if len(self.docs) == before:
            raise KnowledgeBaseError(f"Document {doc_id!r} is not in {kb!r}.")
        self.deleted.append((doc_id, kb))
        return 1

    def search(self, query: str, kb=None, mode: str = "hybrid", k: int = 10, filters=None) -> list[SearchHit]:
        self.searches.append({"query": query, "kb": kb, "mode": mode, "k": k, "filters": filters})
        words = set(re.findall(r"\w+", query.lower()))
        scored = []
        for d in self.docs:
            if kb is not None and d.kb != kb:
                continue
            if filters is not None and filters.since and (d.update_date or "") < filters.since.isoformat():
                continue
            score = len(words & set(re.findall(r"\w+", (d.title + " " + d.text).lower())))
            if score:
                scored.append((score, d))
        scored.sort(key=lambda item: -item[0])
        return [SearchHit(f"{d.doc_id}#0", d.doc_id, d.kb, d.text, float(s), mode, d.title, None, d.update_date,
                          d.authority, "manual", None, 0, f"{d.doc_id}.md") for s, d in scored[:k]]


def sample_store() -> FakeStore:
    return FakeStore([
        FakeDoc("brake-wear-1a2b3c4d", "manuals", "Brake wear pin check",
                "Measure the wear pin with the parking brake set. Replace the brake when the pin is flush."),
        FakeDoc("apu-oil-5e6f7a8b", "manuals", "APU oil servicing",
                "Service the APU oil within 15 minutes of shutdown.\nAircraft Oil quantity\nA320 5.7 qt\nB737 6.1 qt",
                "2023-06-30"),
        FakeDoc("old-manual-0badc0de", "archive", "Old wheel manual",
                "Old practice was to torque the axle nut to 120 lbf.ft.", "2019-07-10"),
    ])


def fake_answer(question: str) -> Answer:
    """A canned pipeline answer citing one piece of evidence."""
    evidence = Evidence(chunk_id="brake-wear-1a2b3c4d#0", doc_id="brake-wear-1a2b3c4d", knowledge_base="manuals",
                        text="Replace the brake when the pin is flush.", score=1.0,
                        metadata=EvidenceMeta(title="Brake wear pin check"))
    return Answer(question=question, intent=Intent(action="lookup", raw_query=question), evidence=(evidence,),
                  final="Replace the brake when the wear pin is flush [1].", status="success")


def make_runtime(tmp_path: Path, provider, registry: ToolRegistry | None = None, policy: Policy | None = None,
                 store: Any = None, audit: AuditLog | None = None, **options: Any) -> tuple[AgentRuntime, Any]:
    """A runtime over a fake store and a data folder under ``tmp_path``; returns (runtime, store)."""
    settings = load_settings(data_dir=tmp_path / "data")
    store = store if store is not None else sample_store()

    def context(user: str, role: str) -> ToolContext:
        return ToolContext(settings=settings, store=store, user=user, role=role, answer=fake_answer)

    options.setdefault("backoff_s", 0.0)
    runtime = AgentRuntime(provider, registry or default_registry(),
                           policy or Policy(rate_limiter=RateLimiter(limit=1000)),
                           audit or AuditLog.in_data_dir(settings.data_dir), context, **options)
    return runtime, store


def use(name: str, **arguments: Any) -> dict[str, Any]:
    """A scripted tool_use reply."""
    return {"tool_use": {"name": name, "input": arguments}}


def last_results(provider) -> list[dict[str, Any]]:
    """The tool_result blocks of the latest user message the scripted provider saw."""
    return provider.calls[-1]["messages"][-1]["content"]


class QueueProvider:
    """A provider that returns queued ChatResponses in order and records nothing (for long property runs)."""

    name = "queue"

    def __init__(self) -> None:
        self.queue: list[ChatResponse] = []

    def enqueue(self, *responses: ChatResponse) -> None:
        self.queue.extend(responses)

    def chat(self, messages, *, system=None, tools=(), tool_choice=None, max_tokens=1024, model=None) -> ChatResponse:
        if not self.queue:
            return ChatResponse((TextBlock("done"),), "end_turn")
        return self.queue.pop(0)
