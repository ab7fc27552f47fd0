"""Evaluations on Claude through Message Batches: every call of a step in one batch, resumable by batch id.

An evaluation runs in passes over its question set. In each pass the model calls go to a
:class:`~engine.llm.batches.BatchedProvider`: calls already answered by an earlier batch get that
answer, the others are collected. When a pass collected calls, they are submitted as one Message
Batch, polled (with progress) until it ends, and their results stored; the next pass gets one step
further (the drafts, then the reviews, then any revisions). A pass that collects nothing is the
evaluation itself and is scored as without batches.

Everything needed to resume lives in a state file (JSON): the batch ids submitted and every result
read. A run that was interrupted continues where it stopped when started again with the same state
file; ``--batch-id`` adds a batch to wait for (one submitted from another machine, or whose state
was lost), and its results are read when it ends.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from engine.errors import EngineError
from engine.llm.batches import POLL_S, BatchedProvider, BatchPending, BatchProgress, MessageBatches

T = TypeVar("T")
MAX_PASSES = 12  # draft, review and up to five revise/review rounds, with a validation retry's draft
STATE_VERSION = 1


@dataclass
class BatchState:
    """The batches an evaluation submitted and the results read from them, kept in ``path``."""

    path: Path
    batches: list[dict[str, Any]] = field(default_factory=list)
    results: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def load(cls, path: str | Path) -> "BatchState":
        """The state in ``path``, or an empty one when the file does not exist yet."""
        file = Path(path)
        if not file.exists():
            return cls(file)
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise EngineError(f"Cannot read the batch state {file} ({exc}); delete it to start over "
                              "(submitted batches can still be resumed with --batch-id).") from exc
        return cls(file, list(data.get("batches", [])), dict(data.get("results", {})))

    def save(self) -> None:
        """Write the state (atomically: a crash leaves the old file or the new one)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(self.path.name + ".tmp")
        temporary.write_text(json.dumps({"version": STATE_VERSION, "batches": self.batches,
                                         "results": self.results}, ensure_ascii=False), encoding="utf-8")
        os.replace(temporary, self.path)

    def add_batch(self, batch_id: str, requests: int | None = None) -> None:
        """Remember a batch to wait for (once)."""
        if not any(b["id"] == batch_id for b in self.batches):
            self.batches.append({"id": batch_id, "requests": requests, "read": False})

    @property
    def unread(self) -> list[str]:
        """Batches whose results have not been read yet."""
        return [b["id"] for b in self.batches if not b.get("read")]


@dataclass(frozen=True)
class BatchRun:
    """What the batches of one evaluation did."""

    batch_ids: tuple[str, ...]
    passes: int
    requests: int
    state_file: str


def run_in_batches(work: Callable[[BatchedProvider], T], provider: Any, state: BatchState, *,
                   batches: MessageBatches | None = None, on_progress: Callable[[BatchProgress], None] | None = None,
                   poll_s: float = POLL_S, max_passes: int = MAX_PASSES) -> tuple[T, BatchRun]:
    """Run ``work(batched_provider)`` pass after pass, sending each pass's new calls as one batch.

    ``work`` must make every call its inputs need even when some raise BatchPending (an evaluation
    catches it per row). Returns the last pass's result, when no call was pending.
    """
    batches = batches or MessageBatches(provider.client)
    for batch_id in state.unread:  # resume: wait for what an interrupted run submitted
        _collect(batches, state, batch_id, on_progress, poll_s)
    submitted = [b["id"] for b in state.batches]
    for number in range(1, max_passes + 1):
        batched = BatchedProvider(provider, state.results)
        result = work(batched)
        if not batched.pending:
            requests = sum(b.get("requests") or 0 for b in state.batches)
            return result, BatchRun(tuple(b["id"] for b in state.batches), number, requests, str(state.path))
        created = batches.submit(batched.pending)
        state.add_batch(created.batch_id, len(batched.pending))
        state.save()  # from here on an interruption resumes this batch
        if on_progress is not None:
            on_progress(created)
        _collect(batches, state, created.batch_id, on_progress, poll_s)
        submitted.append(created.batch_id)
    raise EngineError(f"The evaluation still had model calls waiting after {max_passes} batches "
                      f"({', '.join(submitted)}); the requests change between passes. Run it without --batch.")


def _collect(batches: MessageBatches, state: BatchState, batch_id: str,
             on_progress: Callable[[BatchProgress], None] | None, poll_s: float) -> None:
    """Wait for ``batch_id`` to end, store its results and mark it read."""
    state.add_batch(batch_id)
    state.save()
    batches.wait(batch_id, on_progress, poll_s=poll_s)
    state.results.update(batches.results(batch_id))
    for entry in state.batches:
        if entry["id"] == batch_id:
            entry["read"] = True
    state.save()


def each_row(rows: list[Any], call: Callable[[Any], Any]) -> None:
    """``call(row)`` for every row, going on past rows whose model call waits for a batch."""
    for row in rows:
        try:
            call(row)
        except BatchPending:
            continue


def default_state_file(data_dir: Path, kind: str, source: str | Path) -> Path:
    """Where an evaluation of ``source`` keeps its batch state unless told otherwise."""
    return Path(data_dir) / "batches" / f"eval-{kind}-{Path(source).stem}.json"


class CollectedTraces:
    """A trace store that keeps a pass's runs in memory; the final pass's are written with :meth:`flush`.

    Passes that wait for a batch end their questions as failures; those runs are not worth a trace.
    """

    def __init__(self) -> None:
        self.saved: list[tuple[dict[str, Any], str | None]] = []

    def save(self, payload: dict[str, Any], error: str | None = None) -> str:
        self.saved.append((payload, error))
        return str(payload.get("trace_id", ""))

    def clear(self) -> None:
        self.saved.clear()

    def flush(self, store: Any) -> int:
        """Write the kept runs into ``store`` (a TraceStore); returns how many."""
        for payload, error in self.saved:
            store.save(payload, error=error)
        return len(self.saved)


def evaluate_qa_in_batches(questions: str | Path, provider: Any, state: BatchState, *, corpus: str | Path | None = None,
                           k: int | None = None, settings: Any = None, limit: int | None = None, options: Any = None,
                           on_progress: Callable[[BatchProgress], None] | None = None, poll_s: float = POLL_S,
                           batches: MessageBatches | None = None) -> tuple[Any, BatchRun]:
    """``eval qa`` on Claude through Message Batches; the report is scored as ``evaluate_qa``'s.

    The store is prepared once (``corpus`` indexed into a temporary folder, else the bases in
    ``settings.data_dir``); each pass asks every question through a pipeline on the batched
    provider. The final pass's runs are stored as traces (not those of a temporary corpus).
    """
    import tempfile

    from engine.config import load_settings
    from engine.evaluation.qa import read_qa_rows, run_questions
    from engine.pipeline import AskOptions, Pipeline
    from engine.store import KnowledgeBaseStore
    from engine.tracing import TraceStore

    rows = read_qa_rows(questions, limit)
    base = settings or load_settings()
    options = options or AskOptions()
    traces = CollectedTraces()

    def passes(run_settings: Any, store: Any) -> tuple[Any, BatchRun]:
        def work(batched: BatchedProvider) -> Any:
            traces.clear()
            pipeline = Pipeline(run_settings, store, provider=batched, traces=traces)
            if k is not None:
                if k < 1:
                    raise EngineError("--k must be at least 1.")
                _, strategy = pipeline.strategies.active()
                pipeline.fixed_strategy = ("eval-k", strategy.model_copy(update={"top_k": k, "max_evidence": k}))
            return run_questions(rows, lambda question: pipeline.run(question, options))
        return run_in_batches(work, provider, state, batches=batches, on_progress=on_progress, poll_s=poll_s)

    if corpus is None:
        store = KnowledgeBaseStore(base)
        if not store.list_knowledge_bases():
            raise EngineError(f"There are no knowledge bases in {base.data_dir}; index documents first "
                              "(python -m engine ingest PATH --kb NAME) or pass --corpus FILE.")
        report, run = passes(base, store)
        traces.flush(TraceStore(base))
        return report, run
    from engine.evaluation.retrieval import EVAL_KB, read_jsonl
    from engine.ingest import Ingestor

    with tempfile.TemporaryDirectory(prefix="rag-eval-qa-") as tmp:
        eval_settings = base.model_copy(update={"data_dir": Path(tmp), "store_uri": None})  # never the real store
        store = KnowledgeBaseStore(eval_settings)
        ingested = Ingestor(store).ingest_records(read_jsonl(corpus), EVAL_KB)
        store.sentence_filler.wait()  # the asks meet the base as a settled one (engine/store/sentence_fill.py)
        rejected = [f for f in ingested.files if f.status == "rejected"]
        if rejected:
            raise EngineError(f"{len(rejected)} corpus records were rejected, e.g. {rejected[0].name}: "
                              f"{rejected[0].reason}")
        return passes(eval_settings, store)


def evaluate_review_in_batches(path: str | Path, provider: Any, state: BatchState, *, model: str | None = None,
                               limit: int | None = None, out: str | Path | None = None,
                               on_progress: Callable[[BatchProgress], None] | None = None, poll_s: float = POLL_S,
                               batches: MessageBatches | None = None) -> tuple[Any, BatchRun]:
    """``eval review`` on Claude through one Message Batch (a review is one call); scored as ``evaluate_review``'s."""
    from engine.evaluation.review import evaluate_review, read_review_rows
    from engine.reflection.llm import LLMReviewer

    rows = read_review_rows(path, limit)
    reviewer_model = provider.resolve_model("reviewer", model)

    def work(batched: BatchedProvider) -> Any:
        reviewer = LLMReviewer(batched, reviewer_model, require_citations=False)
        each_row(rows, lambda row: reviewer.review(row.question, row.evidence(), row.answer))
        if batched.pending:
            return None
        return evaluate_review(path, reviewer, limit=limit, out=out)

    return run_in_batches(work, provider, state, batches=batches, on_progress=on_progress, poll_s=poll_s)
