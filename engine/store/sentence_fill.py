"""Sentence vectors embedded after the ingest has reported its files (the ``defer_sentence_vectors`` setting).

An ingest with chunk vectors embedded whole embeds each chunk and then each of its sentences again: about as many
word pieces twice (docs/benchmarks.md, "Ingest beside LlamaIndex"). The sentence vectors only spare an ask the
embedding of its evidence sentences (engine/store/sentences.py); search needs the chunks, their vectors and the
full-text index. So with the setting on, the ingest writes those, reports each file indexed, and hands the file
to a :class:`SentenceFiller`: one background thread per store that embeds the sentences of each stored document
and adds their rows, a batch of documents per commit, pausing while an ingest writes or an ask is answered
(``held``), so that it does not slow what a user waits on. Until it has, an ask that meets one of those
sentences embeds it itself, with the same vector (the embedder reads one text per run), so what an ask answers
does not depend on when it runs.

A job names the document's content hash; the document is read back from the base and filled only while the base
holds that version, checked again under the base's lock when the rows are written, so a file replaced or deleted
meanwhile gets no rows of its older text. A process that ends with jobs left loses them; the next warm-up queues
every document of a base that has no sentence rows (:meth:`SentenceFiller.recover`).
"""

from __future__ import annotations

import logging
import queue
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from engine.store import sentences
from engine.store.schema import in_values

log = logging.getLogger(__name__)

SLICE_TEXTS = 32
"""Sentences embedded between two looks at whether an ingest or an ask has started (``pause``): about a quarter of
a second."""
MAX_PAUSE_S = 10.0
"""The longest the fill waits for a free moment before it runs a slice anyway (``SentenceFiller.pause``)."""
BATCH_DOCUMENTS = 256
"""Documents filled together at most: one read of their chunks, one commit. A commit per document cost about 90 ms
on retrieval_dev's 994 one-record files, more than embedding their sentences."""


def deferred(settings: Any) -> bool:
    """Whether the settings leave sentence vectors to the fill: stored, deferred, and with chunk vectors "whole" (the
    only mode where the sentences cost an embedding pass of their own)."""
    return bool(settings.store_sentence_vectors and settings.defer_sentence_vectors
                and settings.chunk_vectors == "whole")


@dataclass(frozen=True)
class FillJob:
    """One stored document whose sentences are to be embedded: ``known``, vectors of its earlier version's
    sentences, reused for those it still has."""

    kb: str
    doc_id: str
    content_hash: str
    known: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)


class SentenceFiller:
    """A queue of :class:`FillJob` and the thread that works it off, oldest first.

    ``fill(jobs)`` embeds and writes the sentence rows of some documents of one base, in one commit, and returns
    how many of them it filled; ``maintain(kb)`` brings that base's sentence table index up to date after it.
    """

    def __init__(self, fill: Callable[[list[FillJob]], int], maintain: Callable[[str], None],
                 max_pause_s: float = MAX_PAUSE_S) -> None:
        self._fill, self._maintain = fill, maintain
        self.max_pause_s = max_pause_s
        self._jobs: queue.Queue[FillJob] = queue.Queue()
        self._lock = threading.Lock()
        self._open = 0  # jobs queued or running
        self._holds = 0  # ingests writing and asks being answered now (``held``)
        self._idle = threading.Condition(self._lock)
        self._thread: threading.Thread | None = None
        self.filled = 0  # documents filled by this process
        self.failed: list[str] = []  # "kb/doc_id: reason" of jobs that raised (their asks embed the sentences)

    def add(self, job: FillJob) -> None:
        """Queue ``job``; the thread starts with the first one."""
        with self._lock:
            self._open += 1
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="sentence-fill", daemon=True)
                self._thread.start()
        self._jobs.put(job)

    @contextmanager
    def held(self) -> Iterator[None]:
        """No fill runs while this is held (an ingest is writing, or an ask is being answered: the fill would take
        their cores); a fill under way stops at its next slice (``pause``), and the queue goes on when the last
        holder lets go."""
        with self._lock:
            self._holds += 1
        try:
            yield
        finally:
            with self._idle:
                self._holds -= 1
                self._idle.notify_all()

    def pause(self) -> None:
        """Wait while an ingest is writing or an ask is answered, at most ``max_pause_s``: called by the fill
        between slices of its embedding, so a fill under way gives the cores back to an ingest that starts (a
        folder after a folder). The bound keeps a stream of asks (a busy API) from starving the fill: it then runs
        one slice, about a quarter of a second on one core, per ``max_pause_s``."""
        with self._idle:
            self._idle.wait_for(lambda: self._holds == 0, self.max_pause_s)

    def pending(self) -> int:
        """Documents whose sentences are not embedded yet."""
        with self._lock:
            return self._open

    def wait(self, timeout: float | None = None) -> bool:
        """Block until every queued document is filled (True), or ``timeout`` seconds passed (False)."""
        with self._idle:
            return self._idle.wait_for(lambda: self._open == 0, timeout)

    def recover(self, kb: str, missing: Mapping[str, str]) -> int:
        """Queue the documents of ``kb`` that have no sentence rows (``missing``: doc_id -> content hash, from the
        store's ``documents_without_sentences``): those a process left unfilled when it ended. Returns how many."""
        for doc_id, content_hash in missing.items():
            self.add(FillJob(kb, doc_id, content_hash))
        return len(missing)

    def _run(self) -> None:
        touched: set[str] = set()
        while True:
            try:
                first = self._jobs.get(timeout=30)
            except queue.Empty:
                with self._lock:
                    if self._open == 0 and self._jobs.empty():
                        self._thread = None
                        return
                continue
            self.pause()
            batch = [first]
            while len(batch) < BATCH_DOCUMENTS:  # what is queued by now is filled together: one read, one commit
                try:
                    batch.append(self._jobs.get_nowait())
                except queue.Empty:
                    break
            for kb in dict.fromkeys(job.kb for job in batch):
                jobs = [job for job in batch if job.kb == kb]
                try:
                    filled = self._fill(jobs)
                    self.filled += filled
                    if filled:
                        touched.add(kb)
                except Exception as exc:  # noqa: BLE001 - only speed is lost: asks embed these sentences
                    log.warning("sentence vectors of %d document(s) of %s not filled (asks will embed them): %s",
                                len(jobs), kb, exc)
                    self.failed.extend(f"{kb}/{job.doc_id}: {exc}" for job in jobs)
            if self._jobs.empty():  # the index upkeep once the queue is worked off, not after every batch
                for kb in sorted(touched):
                    try:
                        self._maintain(kb)
                    except Exception as exc:  # noqa: BLE001 - reads scan until the next upkeep
                        log.warning("sentence table of %s not maintained: %s", kb, exc)
                touched.clear()
            with self._idle:
                self._open -= len(batch)
                if self._open == 0:
                    self._idle.notify_all()


class SentenceFilling:
    """The store's side of the fill. :class:`engine.store.knowledge_bases.KnowledgeBaseStore` is one and supplies
    the tables (``_find``, ``_scan``, ``_db``), its locks (``_write_lock``, ``_locks``), its ``embedder``, its
    ``document_hashes`` and its filler (``_filler``)."""

    @property
    def sentence_filler(self) -> SentenceFiller:
        """This store's background filler of sentence vectors (its thread starts with the first job)."""
        return self._filler

    def fill_sentences(self, jobs: Sequence[FillJob]) -> int:
        """Embed and store, in one commit, the sentence vectors of the chunks of the documents of ``jobs`` (all of
        one base) whose version the base still holds (checked again under the base's lock before the write).
        Returns how many documents were filled."""
        if not jobs:
            return 0
        kb = jobs[0].kb
        if any(job.kb != kb for job in jobs):
            raise ValueError("fill_sentences takes the jobs of one base at a time")
        table = self._find(kb)
        if table is None:
            return 0
        where = in_values("doc_id", sorted({job.doc_id for job in jobs}))
        rows = self._scan(table, ["chunk_id", "doc_id", "content_hash", "text"], where)
        wanted = {(job.doc_id, job.content_hash) for job in jobs}
        keep = [i for i, key in enumerate(_versions(rows)) if key in wanted]  # a version replaced or deleted since
        if not keep:  # gets nothing: its own job, if any, fills the version the base holds
            return 0
        rows = rows.take(keep)
        known: dict[str, np.ndarray] = {}
        for job in jobs:
            known.update(job.known)
        embedded = sentences.embed_sentences(self.embedder, rows["text"].to_pylist(), known,
                                             between=self._filler.pause, slice_texts=SLICE_TEXTS)
        data = pa.table({"chunk_id": rows["chunk_id"], "doc_id": rows["doc_id"],
                         **sentences.columns(embedded, self.embedder.dim)})
        counts = Counter(_versions(rows))
        with self._write_lock, self._locks.hold(kb):  # the base may have changed while the sentences embedded
            current = self._find(kb)
            held = Counter(_versions(self._scan(current, ["doc_id", "content_hash"], where))) if current else {}
            still = {version for version, count in counts.items() if held.get(version) == count}
            data = data.filter(pa.array([version in still for version in _versions(rows)]))
            data = data.filter(pc.greater(pc.list_value_length(data[sentences.SENTENCES]), 0))
            sentences.add_rows(self._db, kb, data, self.embedder.dim)
        return len(still)

    def documents_without_sentences(self, kb: str) -> dict[str, str]:
        """doc_id -> content hash of the documents of ``kb`` that have no sentence rows."""
        hashes = self.document_hashes(kb)
        with_rows = sentences.documents_with_rows(self._db, kb) if hashes else set()
        return {doc_id: h for doc_id, h in hashes.items() if doc_id not in with_rows}


def _versions(rows: pa.Table) -> list[tuple[str, str]]:
    """(doc_id, content hash) of each chunk row."""
    return list(zip(rows["doc_id"].to_pylist(), rows["content_hash"].to_pylist()))
