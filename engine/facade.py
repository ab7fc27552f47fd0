"""The engine's parts for one process, built once and shared: what the UI and the API both serve from.

:class:`Workbench` builds the settings' directory of users, the knowledge-base store, the question pipeline (with
its perception, strategies and traces), the ingestor, the agent runtime with its identity gate, the experiment
stores and the warm-up steps, the same way for every caller: the pages get one through ``st.cache_resource``
(``components/factories.py``), the API through ``create_app``. Each part is built on its first use (a page that
only lists documents never loads the pipeline), under a lock of its own, and is never changed per user; what one
identity may see is a view made per call (:meth:`store_for`, :meth:`pipeline_for`, :meth:`ingestor_for`,
:meth:`traces_for`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any, TypeVar

from engine import heap
from engine.config import Settings
from engine.identity import Directory, Identity

if TYPE_CHECKING:
    from engine.agent import AgentRuntime
    from engine.agent.access import AgentGate
    from engine.bootstrap import Bootstrap
    from engine.experiments import ExperimentStore, RolloutStore
    from engine.ingest import Ingestor
    from engine.orchestration import StrategyStore
    from engine.perception import Perception
    from engine.pipeline import Pipeline
    from engine.store import KnowledgeBaseStore
    from engine.store.scoped import ScopedStore
    from engine.tracing import TraceStore

T = TypeVar("T")
WARM_QUESTION = "What changed in the last 12 months?"
"""The question the warm-up parses: it loads spaCy and runs the rules, time rules included."""


class TraceView:
    """The trace store as one identity sees it: runs over bases they may read, and their own failed runs."""

    def __init__(self, traces: TraceStore, readable: Collection[str] | None, user: str) -> None:
        self._traces, self.readable, self.user = traces, readable, user

    def list(self, *args: Any, **kwargs: Any):
        return self._traces.list(*args, readable=self.readable, user=self.user, **kwargs)

    def get(self, trace_id: str) -> dict[str, Any]:
        return self._traces.get(trace_id, readable=self.readable, user=self.user)

    def count(self) -> int:
        return self._traces.count(readable=self.readable, user=self.user)


class Workbench:
    """Every engine part one process serves from, each built once on first use (thread-safe)."""

    def __init__(self, settings: Settings, *, provider_id: str | None = None) -> None:
        if not isinstance(settings, Settings):
            raise TypeError("Workbench needs a Settings object (engine.config.load_settings()).")
        from engine.llm.registry import default_provider_id

        self.settings = settings
        self.provider_id = provider_id or default_provider_id()
        self.started = time.time()
        self._parts: dict[str, Any] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._locks_lock = threading.Lock()

    def _part(self, name: str, build: Callable[[], T]) -> T:
        """The part ``name``, built by ``build`` the first time; a failed build is tried again on the next call."""
        if name in self._parts:
            return self._parts[name]
        with self._locks_lock:
            lock = self._locks.setdefault(name, threading.Lock())
        with lock:
            if name not in self._parts:
                self._parts[name] = build()
            return self._parts[name]

    # -- the shared parts ----------------------------------------------------------------------------------------
    @property
    def directory(self) -> Directory:
        """Users and API tokens from the settings; open (one local admin) when none are configured."""
        return self._part("directory", lambda: Directory.from_settings(self.settings))

    @property
    def store(self) -> KnowledgeBaseStore:
        def build() -> KnowledgeBaseStore:
            from engine.store import KnowledgeBaseStore

            return KnowledgeBaseStore(self.settings)
        return self._part("store", build)

    @property
    def perception(self) -> Perception:
        def build() -> Perception:
            from engine.perception import get_perception

            return get_perception()
        return self._part("perception", build)

    @property
    def strategies(self) -> StrategyStore:
        def build() -> StrategyStore:
            from engine.orchestration import StrategyStore

            return StrategyStore(self.settings)
        return self._part("strategies", build)

    @property
    def traces(self) -> TraceStore:
        def build() -> TraceStore:
            from engine.tracing import TraceStore

            return TraceStore(self.settings)
        return self._part("traces", build)

    @property
    def pipeline(self) -> Pipeline:
        """The question pipeline over the whole store (use :meth:`pipeline_for` to answer for someone)."""
        def build() -> Pipeline:
            from engine.pipeline import Pipeline

            return Pipeline(self.settings, self.store, perception=self.perception, strategies=self.strategies,
                            traces=self.traces)
        return self._part("pipeline", build)

    @property
    def agent_runtime(self) -> AgentRuntime:
        """The tool-calling agent; each run's tools see only its user's bases and answer through :attr:`pipeline`."""
        def build() -> AgentRuntime:
            from engine.agent import build_runtime
            from engine.agent.access import tool_context_hook
            from engine.llm.registry import get_provider

            hook = tool_context_hook(self.directory, lambda: self.pipeline, self.provider_id)
            return build_runtime(self.settings, get_provider(self.provider_id), store=self.store, context_hook=hook)
        return self._part("agent_runtime", build)

    @property
    def gate(self) -> AgentGate:
        """The agent as people use it: runs act as the signed-in user, approvals follow the rules."""
        def build() -> AgentGate:
            from engine.agent.access import AgentGate

            return AgentGate(self.agent_runtime, self.directory)
        return self._part("gate", build)

    @property
    def experiments(self) -> ExperimentStore:
        def build() -> ExperimentStore:
            from engine.experiments import ExperimentStore

            return ExperimentStore(self.settings)
        return self._part("experiments", build)

    @property
    def rollout(self) -> RolloutStore:
        def build() -> RolloutStore:
            from engine.experiments import RolloutStore

            return RolloutStore(self.settings)
        return self._part("rollout", build)

    def reviewer(self):
        """The stand-alone reviewer (the API's ``/v1/review``), for this process's provider."""
        def build():
            from engine.assemble import eval_reviewer

            return eval_reviewer(self.provider_id, settings=self.settings)
        return self._part("reviewer", build)

    # -- views for one identity -----------------------------------------------------------------------------------
    def store_for(self, identity: Identity) -> ScopedStore:
        """The store limited to the bases ``identity`` may read and write."""
        from engine.store.scoped import ScopedStore

        return ScopedStore(self.store, identity)

    def pipeline_for(self, identity: Identity) -> Pipeline:
        """The pipeline answering from the bases ``identity`` may read."""
        return self.pipeline.with_store(self.store_for(identity))

    def ingestor_for(self, identity: Identity) -> Ingestor:
        """An ingestor writing, with the settings' limits, to the bases ``identity`` may write."""
        from engine.ingest import Ingestor

        return Ingestor(self.store_for(identity), self.settings)

    def readable(self, identity: Identity) -> list[str] | None:
        """Bases ``identity`` may read, for filtering stored runs; None: no limit."""
        if identity.unrestricted:
            return None
        return self.store_for(identity).knowledge_base_names()

    def traces_for(self, identity: Identity) -> TraceView:
        """Stored runs as ``identity`` may see them."""
        return TraceView(self.traces, self.readable(identity), identity.name)

    # -- start-up and health --------------------------------------------------------------------------------------
    def bootstrap(self) -> Bootstrap | None:
        """The start-up indexing of ``settings.bootstrap_dir`` (engine/bootstrap.py), built on the first call and
        not yet started (``start()`` it); None when no folder is set."""
        folder = self.settings.bootstrap_dir
        if folder is None:
            return None

        def build() -> Bootstrap:
            from engine.bootstrap import Bootstrap

            return Bootstrap(self.store, folder)
        return self._part("bootstrap", build)

    def warm_steps(self) -> list[tuple[str, Callable[[], object]]]:
        """The slow first loads, named: the store, the embedding model, spaCy (named entities and the full parse), pint.
        The answer reader's span model (PyTorch) loads on the first offline ask instead: importing it here competes
        with the sample documents' indexing for the same cores and the interpreter lock."""
        from engine import units
        from engine.language import nlp

        return [
            ("knowledge bases", self.store.knowledge_base_names),
            ("embedding model", lambda: self.store.embedder.encode_one("warm-up")),
            ("question parser (spaCy)", lambda: (self.perception.run(WARM_QUESTION), nlp.warm())),
            ("sentence vectors left to fill", self.resume_sentence_fill),
            ("unit conversions (pint)", units.warm),
        ]

    def resume_sentence_fill(self) -> int:
        """Queue the documents whose sentence vectors an earlier process left unfilled when it ended
        (engine/store/sentence_fill.py); returns how many. Nothing when the settings store none or embed them at
        ingest."""
        from engine.store.sentence_fill import deferred

        if not deferred(self.settings):
            return 0
        filler = self.store.sentence_filler
        return sum(filler.recover(kb, self.store.documents_without_sentences(kb))
                   for kb in self.store.knowledge_base_names())

    def warm_up(self) -> None:
        """Run every warm-up step now (the API's start-up; the UI runs them on a thread, see ``engine.warmup``)."""
        for _, step in self.warm_steps():
            step()
        heap.settle()  # what the steps loaded is kept for good: later collections skip it (engine/heap.py)

    def health(self) -> dict[str, Any]:
        """Whether the store opens and the embedding model is loaded (raises when either fails)."""
        bases = self.store.knowledge_base_names()
        embedder = self.store.embedder  # loaded at start-up; loads here if warm-up was skipped
        return {"ok": True, "knowledge_bases": len(bases), "embedding_model": self.settings.embedding_model,
                "embedding_dim": int(embedder.dim), "provider": self.provider_id,
                "sign_in_required": self.directory.configured, "uptime_s": round(time.time() - self.started, 1),
                "sentence_vectors_pending": self.store.sentence_filler.pending()}
