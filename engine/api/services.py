"""The engine objects one API process serves from, built once: store, pipeline, strategies, traces, agent.

Every request sees them through its caller's identity (:meth:`Services.store_for`, :meth:`pipeline_for`),
so a user only ever reaches the knowledge bases they may read.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from engine.agent.access import AgentGate, tool_context_hook
from engine.config import Settings
from engine.identity import Directory, Identity
from engine.store.scoped import ScopedStore


@dataclass
class Services:
    """Shared, process-wide engine objects (never changed per request)."""

    settings: Settings
    directory: Directory
    store: Any
    pipeline: Any
    strategies: Any
    traces: Any
    gate: AgentGate
    provider_id: str
    started: float = field(default_factory=time.time)
    _reviewer: Any = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def store_for(self, identity: Identity) -> ScopedStore:
        return ScopedStore(self.store, identity)

    def pipeline_for(self, identity: Identity):
        return self.pipeline.with_store(self.store_for(identity))

    def ingestor_for(self, identity: Identity):
        from engine.ingest import Ingestor

        return Ingestor(self.store_for(identity), self.settings)

    def readable(self, identity: Identity) -> list[str] | None:
        """Bases the identity may read, for filtering stored traces; None: no limit."""
        if identity.unrestricted:
            return None
        return self.store_for(identity).knowledge_base_names()

    def reviewer(self):
        """The reviewer of /v1/review (built on first use)."""
        with self._lock:
            if self._reviewer is None:
                from engine.reflection.factory import eval_reviewer

                self._reviewer = eval_reviewer(self.provider_id, settings=self.settings)
            return self._reviewer

    def warm_up(self) -> None:
        """Open the store, load the embedding model and the question parser now, not on the first request."""
        self.store.knowledge_base_names()
        self.store.embedder.encode_one("warm-up")
        self.pipeline.perception.run("What is the torque of the axle nut?")

    def health(self) -> dict[str, Any]:
        """Whether the store opens and the embedding model is loaded (raises when either fails)."""
        bases = self.store.knowledge_base_names()
        embedder = self.store.embedder  # loaded at start-up; loads here if warm-up was skipped
        return {"ok": True, "knowledge_bases": len(bases), "embedding_model": self.settings.embedding_model,
                "embedding_dim": int(embedder.dim), "provider": self.provider_id,
                "sign_in_required": self.directory.configured, "uptime_s": round(time.time() - self.started, 1)}


def load_services(settings: Settings, *, provider_id: str | None = None) -> Services:
    """Build every engine object the API needs over ``settings.data_dir`` (the models load lazily or in warm_up)."""
    from engine.agent import build_runtime
    from engine.llm.registry import default_provider_id, get_provider
    from engine.orchestration import StrategyStore
    from engine.perception import get_perception
    from engine.pipeline import Pipeline
    from engine.store import KnowledgeBaseStore
    from engine.tracing import TraceStore

    directory = Directory.from_settings(settings)
    provider_id = provider_id or default_provider_id()
    store = KnowledgeBaseStore(settings)
    strategies, traces = StrategyStore(settings), TraceStore(settings)
    pipeline = Pipeline(settings, store, perception=get_perception(), strategies=strategies, traces=traces)
    hook = tool_context_hook(directory, lambda: pipeline, provider_id)
    runtime = build_runtime(settings, get_provider(provider_id), store=store, context_hook=hook)
    return Services(settings, directory, store, pipeline, strategies, traces, AgentGate(runtime, directory),
                    provider_id)
