"""Ingest files into a knowledge base: parse, describe, chunk, embed and write.

Every file gets a status: ``added``, ``unchanged`` (same content hash), ``replaced`` (changed content; old chunks
removed in the same commit), ``skipped`` (a link or special file a folder walk passes over, or a file name the
base holds already under ``on_conflict="skip"``) or ``rejected`` with a reason. A rejected file writes nothing;
the rest of the batch proceeds, and each file lands as soon as it is ready, in small groups
(engine/ingest_writer.py), so a slow or rejected file holds back no other.

Reading (parse and describe) is done by a :class:`DocumentReader`: in this process by default
(:class:`LocalReader`), or by a distributed engine that may also chunk and embed (``engine.ray_ingest``). The
write, with its per-file time limit, its grouped commits and its statuses decided under the base's lock, is the
same for every reader.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from engine import heap
from engine.config import Settings
from engine.documents.folders import HIDDEN_FILE, HIDDEN_FOLDER, Found, Skipped, walk_paths  # noqa: F401 - re-exported
from engine.documents.metadata import (
    SIDE_SUFFIXES, check_metadata, is_sidecar, parse_sidecar, read_sidecar, resolve_metadata, sidecar_paths,
    sidecar_sets,
)
from engine.documents.limits import ParseLimits
from engine.documents.names import safe_name
from engine.documents.prepare import (  # noqa: F401 - re-exported: ingest's public names
    Embedded, FileItem, SourceDoc, chunk_document, content_hash, make_doc_id, prepare_document, search_text,
)
from engine.documents.sandbox import ParseWorker
from engine.documents.types import ParsedFile, Section
from engine.embed_budget import EMBED_STEP, FIRST_STEP  # noqa: F401 - re-exported
from engine.errors import DocumentError, EngineError
from engine.ingest_results import (  # noqa: F401 - re-exported: ingest's public names
    STATUSES, FileResult, IngestReport, IngestStep, ProgressCallback, Status, StepCallback,
)
from engine.ingest_writer import (  # noqa: F401 - chunk_row, chunk_table, FLUSH_*: re-exported
    FLUSH_CHUNKS, FLUSH_SECONDS, GroupWriter, chunk_row, chunk_table, write_all,
)
from engine.store.conflicts import ON_CONFLICT, OnConflict, check_on_conflict  # noqa: F401 - re-exported
from engine.store.knowledge_bases import KnowledgeBaseStore
from engine.store.schema import check_doc_id, check_kb_name

SIDECAR_FORMATS = (".yaml", ".yml", ".json")  # metadata files, never documents


class DocumentReader(Protocol):
    """Turns files into SourceDocs; yields (index in ``items``, SourceDoc or the EngineError that rejects it)."""

    def read(self, items: Sequence[FileItem], kb: str) -> Iterator[tuple[int, SourceDoc | EngineError]]: ...


def _described_name(sidecar: str) -> str:
    """The file name a sidecar describes: "manual.pdf.meta.yaml" -> "manual.pdf", "manual.meta.json" -> "manual"."""
    lower = sidecar.lower()
    return next(sidecar[: -len(s)] for s in SIDE_SUFFIXES if lower.endswith(s))


def expand_paths(paths: Iterable[str | Path], follow_links: bool = False) -> list[Path]:
    """The paths of the files ``walk_paths`` would ingest."""
    return [found.path for found in walk_paths(paths, follow_links)[0]]


class LocalReader:
    """Reads files one after another in this process's sandboxed parse worker."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def read(self, items: Sequence[FileItem], kb: str) -> Iterator[tuple[int, SourceDoc | EngineError]]:
        if not items:
            return
        with ParseWorker(ParseLimits.from_settings(self.settings), self.settings.text_fallback_encoding) as worker:
            for index, (name, source, sidecar, caller) in enumerate(items):
                try:
                    yield index, prepare_document(name, source, sidecar, kb, caller, worker, self.settings)
                except EngineError as exc:
                    yield index, exc


class Ingestor:
    """Ingest files or in-memory uploads into one knowledge base at a time."""

    def __init__(self, store: KnowledgeBaseStore, settings: Settings | None = None,
                 reader: DocumentReader | None = None) -> None:
        self.store = store
        self.settings = settings or store.settings
        self.reader = reader or LocalReader(self.settings)

    # -- public entry points -------------------------------------------------
    def ingest_paths(
        self, paths: Iterable[str | Path], kb: str, metadata: Mapping[str, Any] | None = None,
        progress: ProgressCallback | None = None, on_step: StepCallback | None = None, follow_links: bool = False,
        on_conflict: OnConflict = "replace",
    ) -> IngestReport:
        """Ingest files and folders from disk; sidecar metadata is read next to each file.

        ``progress`` gets each file's result as it is decided; ``on_step`` gets steps inside a file as its
        chunks are embedded. A folder walk never leaves the folder given; ``follow_links`` follows symbolic links
        that stay inside it (engine/documents/folders.py). ``on_conflict``: what to do with a file name the base
        already holds (engine/store/conflicts.py).
        """
        items: list[tuple[str, Any, Mapping[str, Any], Mapping[str, Any] | None]] = []
        found, skipped = walk_paths(paths, follow_links)
        limits = ParseLimits.from_settings(self.settings)
        for file in found:
            try:
                sidecar = read_sidecar(file.path, limits, file.root, follow_links)
            except DocumentError as exc:
                items.append((file.name, exc, {}, metadata))
                continue
            items.append((file.name, file, sidecar, metadata))
        items.extend((s.shown, s, {}, metadata) for s in skipped)
        return self._ingest(items, kb, progress, on_step, on_conflict)

    def ingest_bytes(
        self, files: Sequence[tuple[str, bytes]], kb: str, metadata: Mapping[str, Any] | None = None,
        progress: ProgressCallback | None = None, on_step: StepCallback | None = None,
        on_conflict: OnConflict = "replace",
    ) -> IngestReport:
        """Ingest uploaded files given as (file name, bytes); ``progress``, ``on_step`` and ``on_conflict`` as for
        ingest_paths.

        ``metadata`` applies to every file of the upload unless the file's own sidecar, uploaded with it as
        ``NAME.meta.yaml`` or ``NAME.meta.json``, sets that field. A bad ``metadata`` value raises DocumentError
        before anything is read or written.
        """
        upload = check_metadata(metadata or {})
        check_on_conflict(on_conflict)
        sidecars = {name: data for name, data in files if is_sidecar(Path(name))}
        items: list[tuple[str, bytes | Exception, dict[str, Any], Mapping[str, Any]]] = []
        paired: set[str] = set()
        for name, data in files:
            if name in sidecars:
                continue
            if Path(name).suffix.lower() in SIDECAR_FORMATS:
                items.append((name, DocumentError(
                    f"{name} is not a document. To give a file metadata, name its sidecar after it: "
                    f"'<file name>.meta.yaml' or '<file name>.meta.json'."), {}, upload))
                continue
            sidecar_name = next((c.name for c in sidecar_paths(Path(name)) if c.name in sidecars), None)
            if sidecar_name is None:
                items.append((name, data, {}, upload))
                continue
            paired.add(sidecar_name)
            try:
                sidecar = parse_sidecar(sidecar_name, sidecars[sidecar_name].decode("utf-8-sig"),
                                        ParseLimits.from_settings(self.settings))
            except UnicodeDecodeError:
                items.append((name, DocumentError(f"Sidecar {sidecar_name} is not UTF-8 text; save it as UTF-8."),
                              {}, upload))
                continue
            except DocumentError as exc:
                items.append((name, exc, {}, upload))
                continue
            items.append((name, data, sidecar, {k: v for k, v in upload.items() if not sidecar_sets(sidecar, k)}))
        for name in sorted(set(sidecars) - paired):
            items.append((name, DocumentError(
                f"{name} is a metadata sidecar, but the file it describes ({_described_name(name)}) is not in this "
                "upload; upload them together, or leave the sidecar out."), {}, upload))
        return self._ingest(items, kb, progress, on_step, on_conflict)

    def ingest_records(self, records: Iterable[Mapping[str, Any]], kb: str) -> IngestReport:
        """Ingest text records ``{"id", "title", "text", ...metadata}`` (e.g. an evaluation corpus)."""
        outcomes: list[tuple[int, SourceDoc | EngineError]] = []
        names: list[str] = []
        for index, record in enumerate(records):
            name = str(record.get("id", ""))
            names.append(name)
            try:
                doc_id = check_doc_id(name)
                text = str(record.get("text") or "").strip()
                if not text:
                    raise DocumentError("The record has no text.")
                parsed = ParsedFile("txt", (Section(text),), title_hint=record.get("title"))
                caller = {k: v for k, v in record.items() if k not in ("id", "text")}
                meta = resolve_metadata(name, parsed, kb, caller=caller)
                doc = SourceDoc(name, doc_id, parsed, meta, content_hash(text.encode(), meta, self.settings))
                outcomes.append((index, doc))
            except EngineError as exc:
                outcomes.append((index, exc))
        report = IngestReport(kb)
        self._write(iter(outcomes), names, list(range(len(names))), report)
        return report

    # -- internals ------------------------------------------------------------
    def _ingest(self, items, kb: str, progress: ProgressCallback | None, on_step: StepCallback | None = None,
                on_conflict: OnConflict = "replace") -> IngestReport:
        """Ingest (name, path or found file or bytes or the Skipped or error that decides it, sidecar, caller
        metadata) items."""
        check_kb_name(kb)
        check_on_conflict(on_conflict)
        report = IngestReport(kb)
        decided: list[tuple[int, FileResult]] = []
        to_read: list[FileItem] = []
        places: list[int] = []
        for at, (raw_name, source, sidecar, own) in enumerate(items):
            name = safe_name(raw_name)  # stored and printed: no terminal escapes, NULs or bidi overrides
            if isinstance(source, Skipped):
                decided.append((at, FileResult(name, "skipped", reason=source.reason)))
            elif isinstance(source, EngineError):
                decided.append((at, FileResult(name, "rejected", reason=str(source))))
            elif isinstance(source, Exception):
                raise source
            else:
                to_read.append((name, source, sidecar, own))
                places.append(at)
        self._write(self.reader.read(to_read, kb) if to_read else iter(()), [item[0] for item in to_read], places,
                    report, progress, on_step, on_conflict, decided)
        return report

    def _write(self, outcomes: Iterator[tuple[int, SourceDoc | EngineError]], names: Sequence[str],
               places: Sequence[int], report: IngestReport, progress: ProgressCallback | None = None,
               on_step: StepCallback | None = None, on_conflict: OnConflict = "replace",
               decided: Sequence[tuple[int, FileResult]] = ()) -> None:
        """Write what a reader yields, group by group (engine/ingest_writer.py); then bring the indexes up to date.
        ``decided``: files already decided without reading (skipped, rejected), with their places in the input."""
        started = time.monotonic()
        writer = GroupWriter(self.store, self.settings, report.knowledge_base, report, on_conflict, progress, on_step)
        for at, result in decided:
            writer.decided(result, at)
        with self.store.sentence_filler.held():  # sentences left to the background wait for the write's end
            write_all(writer, outcomes, names, places)
        # after the writes, never inside them: also repairs indexes a crashed earlier run did not build
        report.index_pending = self.store.maintain(report.knowledge_base).pending
        report.seconds = time.monotonic() - started
        heap.upkeep()  # when the write has ended: a due collection of reference cycles (engine/heap.py)
