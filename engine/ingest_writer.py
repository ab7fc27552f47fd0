"""The write side of an ingest: files land in small groups as they are ready, never held back by a slow one.

Files are read on a thread of their own (:class:`ReadAhead`, at most ``READ_AHEAD`` files ahead) while the
writer embeds and commits. Each file is embedded on its own, within the time one file may take
(engine/embed_budget.py), and joins a group; the group is committed once it holds ``FLUSH_CHUNKS`` chunks or its
first file has waited ``FLUSH_SECONDS`` (checked as files arrive, between the embedding steps of a large file,
and while the reader is slow), and before a file of more than one embedding step starts. So a file that is
rejected, or slow to read or embed, holds back no other file for more than ``FLUSH_SECONDS``, and a run that is
killed keeps every group committed before.

What each file's status is (added, replaced, unchanged, skipped, a keep-both copy) is decided by the store under
the base's write lock (engine/store/conflicts.py). Before embedding, a file the base already holds unchanged, or
holds at all under ``skip``, is reported without being embedded.
"""

from __future__ import annotations

import json
import logging
import queue
import re
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import pyarrow as pa

from engine.config import Settings
from engine.documents.identifiers import with_identifier_tokens
from engine.documents.prepare import SourceDoc, chunk_document, search_text
from engine.documents.types import Chunk
from engine.embed_budget import EMBED_STEP, embed_within
from engine.errors import DocumentError, EngineError
from engine.ingest_results import FileResult, IngestReport, IngestStep, ProgressCallback, StepCallback
from engine.store.conflicts import ExistingDoc, OnConflict, Written
from engine.store.sentence_fill import FillJob, deferred
from engine.store.schema import chunk_schema
from engine.store.sentences import columns as sentence_columns
from engine.store.sentences import sentence_fields

log = logging.getLogger(__name__)

FLUSH_CHUNKS = 2048
"""Chunks committed together at most (about 2 MB of text and 3 MB of vectors held)."""
FLUSH_SECONDS = 2.0
"""How long a finished file may wait for its group's commit. A commit costs about 50 ms, so grouping the files
finished within 2 s keeps a folder of small files from paying one commit each."""
READ_AHEAD = 2
"""Files read ahead of the writer (each holds its parsed text: at most about 8 MB under the chunk cap)."""
EMBED_AHEAD = 2
"""Files of at most one embedding step embedded at once on helper threads, while the writer reads, chunks and
commits. One file at a time left the cores idle between files (while the writer chunked the next file and
committed groups, and while the last text of a file ran on one session with the other idle): on retrieval_dev's
994 one-record files that was a fifth of the ingest's time (docs/benchmarks.md, "Ingest beside LlamaIndex"). A
file's time limit (``max_embed_seconds_per_file``) counts its own wall time, shared with the file beside it; a file
of more than one step embeds alone, as before."""
SAME_NAME = "The same file name appears twice in this batch."


class ReadAhead:
    """The outcomes of a reader, produced on a thread at most ``depth`` ahead; :meth:`next` waits for one.

    The reader runs on its own thread only: progress callbacks and writes stay on the caller's thread. When the
    caller stops early (:meth:`close`), the thread finishes the file in hand (bounded by the parse time limit),
    then closes the reader.
    """

    END = object()
    WAITING = object()

    def __init__(self, outcomes: Iterator[Any], depth: int = READ_AHEAD) -> None:
        self._queue: queue.Queue = queue.Queue(maxsize=depth)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(outcomes,), name="ingest-read-ahead", daemon=True)
        self._thread.start()

    def _run(self, outcomes: Iterator[Any]) -> None:
        try:
            for outcome in outcomes:
                if not self._put(("item", outcome)):
                    return
            self._put(("end", None))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread, raised there
            self._put(("error", exc))
        finally:
            close = getattr(outcomes, "close", None)
            if close is not None:
                close()

    def _put(self, entry: tuple[str, Any]) -> bool:
        while not self._stop.is_set():
            try:
                self._queue.put(entry, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def next(self, timeout: float | None) -> Any:
        """The next outcome, END after the last, or WAITING when none came within ``timeout`` seconds."""
        try:
            kind, value = self._queue.get(timeout=timeout)
        except queue.Empty:
            return self.WAITING
        if kind == "error":
            raise value
        return self.END if kind == "end" else value

    def close(self) -> None:
        self._stop.set()


@dataclass
class _Ready:
    """A file embedded and waiting for its group's commit."""

    doc: SourceDoc
    at: int  # the file's place in the ingest's input, where its result is listed
    chunks: list[Chunk]
    texts: list[str]
    vectors: Any
    sentences: list[Any] | None
    earlier: dict[str, Any] | None = None  # sentence vectors of the stored version, for a deferred fill


@dataclass
class _Embedding:
    """A file being embedded on a helper thread; ``steps``: its chunks embedded so far, after each step, not yet
    reported."""

    doc: SourceDoc
    at: int
    chunks: list[Chunk]
    future: Future | None = None
    steps: queue.SimpleQueue = field(default_factory=queue.SimpleQueue)


def _indexed(doc: SourceDoc, chunks: Sequence[Chunk]) -> list[str]:
    """The keyword-indexed text of each chunk: its title and text, with identifier tokens (not embedded)."""
    return [with_identifier_tokens(search_text(doc.metadata, c.text)) for c in chunks]


def copy_of(doc_id: str, other: str) -> bool:
    """Whether ``other`` is ``doc_id`` or one of its keep-both copies."""
    return other == doc_id or re.fullmatch(re.escape(doc_id) + r"-\d+", other) is not None


class GroupWriter:
    """Embeds the files of one ingest as they come and commits them in groups (see the module's docstring)."""

    def __init__(self, store: Any, settings: Settings, kb: str, report: IngestReport, on_conflict: OnConflict,
                 progress: ProgressCallback | None = None, on_step: StepCallback | None = None) -> None:
        self.store, self.settings, self.kb, self.report = store, settings, kb, report
        self.on_conflict, self.progress, self.on_step = on_conflict, progress, on_step
        self.pending: list[_Ready] = []
        self.since: float | None = None  # when the group's first file was ready
        self.seen: set[str] = set()  # doc ids of this batch
        # what the base holds, as read at the start and as this ingest changed it: for the checks before embedding
        # (the store decides again under the lock)
        self.known = store.document_hashes(kb)
        self.placed: list[tuple[int, FileResult]] = []  # results by their file's place in the input
        self.embedding: deque[_Embedding] = deque()  # files on the helper threads, oldest first
        self._helpers: ThreadPoolExecutor | None = None

    # -- one file at a time ---------------------------------------------------------------
    def decided(self, result: FileResult, at: int) -> None:
        """Report ``result`` (of the file at place ``at`` of the input) as soon as it is known."""
        self.placed.append((at, result))
        if self.progress:
            self.progress(result)

    def finish(self) -> None:
        """The report lists every file in the order of the input, whenever each was decided."""
        self.close()
        self.report.files[:] = [result for _, result in sorted(self.placed, key=lambda placed: placed[0])]

    def close(self) -> None:
        """Stop the helper threads (a file still embedding finishes first; nothing more is written)."""
        if self._helpers is not None:
            self._helpers.shutdown(wait=True, cancel_futures=True)
            self._helpers = None

    def add(self, doc: SourceDoc, at: int) -> None:
        """Embed ``doc`` (unless it is decided without) and add it to the group; commit the group when it is due. A
        file of at most one embedding step is embedded on a helper thread (``EMBED_AHEAD``); it joins the group
        when done (``settle``)."""
        if any(e.doc.doc_id == doc.doc_id for e in self.embedding):
            self.settle(0)  # an earlier file of this name is decided first
        if doc.doc_id in self.seen and self.on_conflict != "keep-both":
            status = "skipped" if self.on_conflict == "skip" else "rejected"
            self.decided(FileResult(doc.name, status, doc.doc_id, reason=SAME_NAME + (
                " The first was kept." if status == "skipped" else " Rename one, or keep both (--on-conflict "
                "keep-both)."), warnings=doc.parsed.warnings), at)
            return
        if any(ready.doc.doc_id == doc.doc_id for ready in self.pending):
            self.flush()  # the earlier file of this name is committed first; this one is decided against it
        self.seen.add(doc.doc_id)
        early = self._without_embedding(doc)
        if early is not None:
            self.decided(early, at)
            return
        chunks = list(doc.embedded.chunks) if doc.embedded else chunk_document(doc, self.settings)
        if len(chunks) > EMBED_STEP and doc.embedded is None:
            self.settle(0)
            self.flush()  # a file that takes more than a step to embed: what is finished lands first
        if self.on_step:
            self.on_step(IngestStep(doc.name, 0, len(chunks)))
        if doc.embedded is None and len(chunks) <= EMBED_STEP:
            self._embed_ahead(_Embedding(doc, at, chunks))
            self.settle(EMBED_AHEAD - 1)
            return
        try:
            ready = self._embedded(doc, at, chunks)
        except DocumentError as exc:
            self.decided(FileResult(doc.name, "rejected", doc.doc_id, reason=str(exc)), at)
            return
        self._join(ready)

    def _join(self, ready: _Ready) -> None:
        self.pending.append(ready)
        if self.since is None:
            self.since = time.monotonic()
        self.flush_if_due()

    def _embed_ahead(self, entry: _Embedding) -> None:
        if self._helpers is None:
            self._helpers = ThreadPoolExecutor(EMBED_AHEAD, thread_name_prefix="ingest-embed")

        # on the helper thread, steps are only queued: the writer's thread reports them
        entry.future = self._helpers.submit(self._embed, entry.doc, entry.chunks,
                                            entry.steps.put if self.on_step else None)
        self.embedding.append(entry)

    @property
    def defers(self) -> bool:
        """Whether sentences are embedded after the commit, in the background (``defer_sentence_vectors``;
        engine/store/sentence_fill.py): with chunk vectors "whole" only, where they cost a pass of their own."""
        return deferred(self.settings)

    def _embed(self, doc: SourceDoc, chunks: list[Chunk], on_step: Any) -> tuple[Any, list[Any] | None, Any]:
        """The vectors of ``doc``'s chunks and their sentences (engine/embed_budget.py), as the settings ask; and,
        when the sentences are deferred, the stored vectors of its earlier version's sentences for the fill."""
        earlier = self._earlier_sentences(doc)
        defer = self.defers
        vectors, sentences = embed_within(
            self.store.embedder, doc.metadata.title, [c.text for c in chunks], self.settings.max_embed_seconds_per_file,
            self.settings.store_sentence_vectors and not defer, on_step, self.settings.chunk_vectors,
            None if defer else earlier)
        return vectors, sentences, earlier if defer else None

    def _earlier_sentences(self, doc: SourceDoc) -> dict[str, Any]:
        """The stored sentence vectors of the version of ``doc`` that the base holds (a changed file), so that its
        unchanged sentences are not embedded again; none for a new file, or when they cannot be read."""
        if doc.doc_id not in self.known or self.settings.chunk_vectors != "whole":
            return {}
        try:
            return self.store.document_sentence_vectors(self.kb, doc.doc_id)
        except Exception as exc:  # noqa: BLE001 - only speed is lost: the sentences are embedded
            log.warning("stored sentence vectors of %s not read (embedding them): %s", doc.doc_id, exc)
            return {}

    def settle(self, keep: int) -> None:
        """Wait until at most ``keep`` files are still embedding; each finished one (oldest first) joins the group
        or is rejected. Progress is reported, and groups that are due commit, while waiting (on this thread)."""
        while len(self.embedding) > keep:
            entry = self.embedding[0]
            while not entry.future.done():
                try:
                    entry.future.exception(timeout=0.25)
                except TimeoutError:
                    pass
                self._show(entry)
                self.flush_if_due()
            self.embedding.popleft()
            self._show(entry)
            try:
                vectors, sentences, earlier = entry.future.result()
            except DocumentError as exc:
                self.decided(FileResult(entry.doc.name, "rejected", entry.doc.doc_id, reason=str(exc)), entry.at)
                continue
            self._join(_Ready(entry.doc, entry.at, entry.chunks, _indexed(entry.doc, entry.chunks), vectors,
                              sentences, earlier))

    def _show(self, entry: _Embedding) -> None:
        while self.on_step and not entry.steps.empty():
            self.on_step(IngestStep(entry.doc.name, entry.steps.get(), len(entry.chunks)))

    def _without_embedding(self, doc: SourceDoc) -> FileResult | None:
        """The result of a file the base holds unchanged (or holds at all, under skip), or None: embed it."""
        stored = self.known.get(doc.doc_id)
        same = doc.doc_id if stored == doc.content_hash else None
        if same is None and self.on_conflict == "keep-both":  # or a kept copy holds this content
            same = next((i for i, h in self.known.items() if h == doc.content_hash and copy_of(doc.doc_id, i)), None)
        if same is not None:
            return FileResult(doc.name, "unchanged", same, doc.metadata.title, self.store.count_chunks(self.kb, same))
        if stored is not None and self.on_conflict == "skip":
            existing = self.store.existing_documents(self.kb, [doc.doc_id]).get(doc.doc_id, ExistingDoc(doc.doc_id))
            return FileResult(doc.name, "skipped", doc.doc_id, existing=existing, reason=self._kept_reason(existing))
        return None

    @staticmethod
    def _kept_reason(existing: ExistingDoc) -> str:
        return (f"The base already holds a document of this file name, {existing.described()}; it was kept and "
                "this file was not written (on conflict: skip). Choose replace or keep-both to store it.")

    def _embedded(self, doc: SourceDoc, at: int, chunks: list[Chunk]) -> _Ready:
        """The file's texts and vectors: the reader's, or embedded here within the file's time limit."""
        texts = _indexed(doc, chunks)
        wanted = self.settings.store_sentence_vectors
        if doc.embedded is not None and (not wanted or self.defers or doc.embedded.sentences is not None):
            if self.on_step:
                self.on_step(IngestStep(doc.name, len(chunks), len(chunks)))
            return _Ready(doc, at, chunks, texts, doc.embedded.vectors, doc.embedded.sentences if wanted else None)

        def step(done: int) -> None:
            if self.on_step:
                self.on_step(IngestStep(doc.name, done, len(chunks)))
            self.flush_if_due()  # files finished earlier land while a large one embeds

        vectors, sentences, earlier = self._embed(doc, chunks, step)
        return _Ready(doc, at, chunks, texts, vectors, sentences, earlier)

    # -- the group ----------------------------------------------------------------------
    def flush_if_due(self) -> None:
        if self.pending and (sum(len(r.chunks) for r in self.pending) >= FLUSH_CHUNKS
                             or time.monotonic() - (self.since or 0) >= FLUSH_SECONDS):
            self.flush()

    def flush(self) -> None:
        """Commit the group; each file's status is what the store decided under the lock."""
        if not self.pending:
            return
        group, self.pending, self.since = self.pending, [], None
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        rows = [chunk_row(r.doc, chunk, text, vector, now)
                for r in group for chunk, text, vector in zip(r.chunks, r.texts, r.vectors)]
        sentences = None if any(r.sentences is None for r in group) else [s for r in group for s in r.sentences]
        data = chunk_table(rows, sentences, self.store.embedder.dim)
        outcomes = {o.requested_id: o for o in self.store.write_documents(self.kb, data,
                                                                          on_conflict=self.on_conflict)}
        self.report.commits += 1
        for ready in group:
            outcome = outcomes[ready.doc.doc_id]
            if outcome.status in ("added", "replaced"):
                self.known[outcome.doc_id] = ready.doc.content_hash
                if sentences is None and self.defers:  # searchable now; its sentences are embedded after
                    self.store.sentence_filler.add(FillJob(self.kb, outcome.doc_id, ready.doc.content_hash,
                                                           ready.earlier or {}))
            self.decided(self._result(ready, outcome), ready.at)

    def _result(self, ready: _Ready, outcome: Written) -> FileResult:
        doc = ready.doc
        if outcome.status == "skipped":
            return FileResult(doc.name, "skipped", outcome.doc_id, existing=outcome.existing,
                              reason=self._kept_reason(outcome.existing or ExistingDoc(outcome.doc_id)))
        return FileResult(doc.name, outcome.status, outcome.doc_id, outcome.title or doc.metadata.title,
                          len(ready.chunks), warnings=doc.parsed.warnings,
                          existing=outcome.existing if outcome.status != "unchanged" else None)


def write_all(writer: GroupWriter, outcomes: Iterator[tuple[int, SourceDoc | EngineError]],
              names: Sequence[str], places: Sequence[int]) -> None:
    """Write what a reader yields for files ``names`` (by index; ``places``: where each is in the ingest's input),
    reading ahead on a thread; commit the last group and list the results in the order of the input."""
    ahead = ReadAhead(outcomes)
    try:
        while True:
            got = ahead.next(FLUSH_SECONDS if writer.pending or writer.embedding else None)
            if got is ReadAhead.WAITING:  # the reader is slow: what is finished lands meanwhile
                writer.settle(0)
                writer.flush()
                continue
            if got is ReadAhead.END:
                break
            at, outcome = got
            if isinstance(outcome, EngineError):
                writer.decided(FileResult(names[at], "rejected", reason=str(outcome)), places[at])
            else:
                writer.add(outcome, places[at])
        writer.settle(0)
        writer.flush()
    finally:
        ahead.close()
        writer.close()
    writer.finish()


def chunk_table(rows: Sequence[dict[str, Any]], sentences: Sequence[Any] | None, dim: int) -> pa.Table:
    """Chunk rows as the table the store writes, with their sentence columns when ``sentences`` is given."""
    data = pa.Table.from_pylist(list(rows), schema=chunk_schema(dim))
    if sentences is not None:
        for field, column in zip(sentence_fields(dim), sentence_columns(sentences, dim).values()):
            data = data.append_column(field, column)
    return data


def chunk_row(doc: SourceDoc, chunk: Chunk, indexed: str, vector, now: str) -> dict[str, Any]:
    meta = doc.metadata
    return {
        "chunk_id": f"{doc.doc_id}:{chunk.position:04d}",
        "doc_id": doc.doc_id,
        "knowledge_base": meta.knowledge_base,
        "position": chunk.position,
        "page": chunk.page,
        "text": chunk.text,
        "search_text": indexed,
        "vector": vector.tolist() if hasattr(vector, "tolist") else list(vector),
        "title": meta.title,
        "source": meta.source,
        "update_date": meta.update_date.isoformat() if meta.update_date else None,
        "authority": meta.authority,
        "doc_type": meta.doc_type,
        "series": meta.series,
        "revision": meta.revision,
        "file_name": doc.name,
        "content_hash": doc.content_hash,
        "ingested_at": now,
        "extra": json.dumps(meta.extra, sort_keys=True),
    }
