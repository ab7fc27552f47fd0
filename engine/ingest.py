"""Ingest files into a knowledge base: parse, describe, chunk, embed and write.

Every file gets a status: ``added``, ``unchanged`` (same content hash), ``replaced``
(changed content; old chunks removed in the same commit) or ``rejected`` with a reason.
A rejected file writes nothing; the rest of the batch proceeds.

Reading (parse and describe) is done by a :class:`DocumentReader`: in this process by default
(:class:`LocalReader`), or by a distributed engine that may also chunk and embed (``engine.ray_ingest``). The
write, with its hash checks and one commit per flush, is the same for every reader.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal, Protocol

import pyarrow as pa

from engine.config import Settings
from engine.documents.identifiers import with_identifier_tokens
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
from engine.documents.types import Chunk, ParsedFile, Section
from engine.errors import DocumentError, EngineError
from engine.store.knowledge_bases import KnowledgeBaseStore
from engine.store.schema import check_doc_id, check_kb_name, chunk_schema
from engine.store.sentences import columns as sentence_columns
from engine.store.sentences import embed_sentences, sentence_fields

Status = Literal["added", "unchanged", "replaced", "rejected", "skipped"]
STATUSES: tuple[Status, ...] = ("added", "unchanged", "replaced", "rejected", "skipped")
FLUSH_CHUNKS = 2048  # chunks embedded and written per commit
EMBED_STEP = 128  # chunks embedded between two progress steps of one file (about a second on two CPU cores)
SIDECAR_FORMATS = (".yaml", ".yml", ".json")  # metadata files, never documents


@dataclass(frozen=True)
class FileResult:
    """What happened to one file."""

    name: str
    status: Status
    doc_id: str | None = None
    title: str | None = None
    chunks: int = 0
    reason: str | None = None
    warnings: tuple[str, ...] = ()
    """Problems that did not stop the file being indexed (e.g. a PDF that is mostly scanned images)."""

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__, warnings=list(self.warnings))


@dataclass(frozen=True)
class IngestStep:
    """Progress inside one file: ``done`` of its ``total`` chunks embedded (``done == 0``: read, waiting)."""

    name: str
    done: int
    total: int

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 1.0


StepCallback = Callable[[IngestStep], None]


@dataclass
class IngestReport:
    knowledge_base: str
    files: list[FileResult] = field(default_factory=list)
    seconds: float = 0.0
    index_pending: str | None = None
    """Why the base's indexes are not up to date after this ingest (None: they are). The documents are stored and
    searchable either way; the next ingest or keyword search finishes the index work."""

    def count(self, status: Status) -> int:
        return sum(1 for f in self.files if f.status == status)

    @property
    def chunks_written(self) -> int:
        return sum(f.chunks for f in self.files if f.status in ("added", "replaced"))

    def to_dict(self) -> dict[str, Any]:
        return {
            "knowledge_base": self.knowledge_base,
            "files": [f.to_dict() for f in self.files],
            "summary": {s: self.count(s) for s in STATUSES},
            "chunks_written": self.chunks_written,
            "seconds": round(self.seconds, 3),
            "index_pending": self.index_pending,
        }


class DocumentReader(Protocol):
    """Turns files into SourceDocs; yields (index in ``items``, SourceDoc or the EngineError that rejects it)."""

    def read(self, items: Sequence[FileItem], kb: str) -> Iterator[tuple[int, SourceDoc | EngineError]]: ...


def _described_name(sidecar: str) -> str:
    """The file name a sidecar describes: "manual.pdf.meta.yaml" -> "manual.pdf", "manual.meta.json" -> "manual"."""
    lower = sidecar.lower()
    return next(sidecar[: -len(s)] for s in SIDE_SUFFIXES if lower.endswith(s))


HIDDEN_FILE = ("Hidden file (its name starts with '.'): skipped. Rename it, or name it on the command line, to "
               "ingest it.")
HIDDEN_FOLDER = ("Hidden folder (its name starts with '.'): skipped with everything in it. Name it on the command "
                 "line to ingest it.")


@dataclass(frozen=True)
class Skipped:
    """A path a folder walk passes over, and why."""

    path: Path
    reason: str


def walk_paths(paths: Iterable[str | Path]) -> tuple[list[Path], list[Skipped]]:
    """Files named, plus the files inside named folders (recursively); sidecars are left to their documents, and
    hidden files and folders (names starting with '.') are skipped with a reason."""
    found: list[Path] = []
    skipped: list[Skipped] = []
    for raw in paths:
        path = Path(raw)
        if not path.is_dir():
            found.append(path)
            continue
        inside: list[Path] = []
        for root, dirs, files in os.walk(path):
            hidden = sorted(d for d in dirs if d.startswith("."))
            dirs[:] = [d for d in dirs if not d.startswith(".")]  # not walked into
            skipped.extend(Skipped(Path(root, d), HIDDEN_FOLDER) for d in hidden)
            for name in files:
                child = Path(root, name)
                if is_sidecar(child) or not child.is_file():
                    continue
                if name.startswith("."):
                    skipped.append(Skipped(child, HIDDEN_FILE))
                else:
                    inside.append(child)
        found.extend(sorted(inside))
    return found, sorted(skipped, key=lambda s: s.path)


def expand_paths(paths: Iterable[str | Path]) -> list[Path]:
    """The files ``walk_paths`` would ingest."""
    return walk_paths(paths)[0]


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
        progress: Callable[[FileResult], None] | None = None, on_step: StepCallback | None = None,
    ) -> IngestReport:
        """Ingest files and folders from disk; sidecar metadata is read next to each file.

        ``progress`` gets each file's result as it is decided; ``on_step`` gets steps inside a file as its
        chunks are embedded.
        """
        items = []
        found, skipped = walk_paths(paths)
        limits = ParseLimits.from_settings(self.settings)
        for path in found:
            try:
                sidecar = read_sidecar(path, limits)
            except DocumentError as exc:
                items.append((path.name, exc, {}, metadata))
                continue
            items.append((path.name, path, sidecar, metadata))
        items.extend((s.path.name + ("/" if s.path.is_dir() else ""), s, {}, metadata) for s in skipped)
        return self._ingest(items, kb, None, progress, on_step)

    def ingest_bytes(
        self, files: Sequence[tuple[str, bytes]], kb: str, metadata: Mapping[str, Any] | None = None,
        progress: Callable[[FileResult], None] | None = None, on_step: StepCallback | None = None,
    ) -> IngestReport:
        """Ingest uploaded files given as (file name, bytes); ``progress`` and ``on_step`` as for ingest_paths.

        ``metadata`` applies to every file of the upload unless the file's own sidecar, uploaded with it as
        ``NAME.meta.yaml`` or ``NAME.meta.json``, sets that field. A bad ``metadata`` value raises DocumentError
        before anything is read or written.
        """
        upload = check_metadata(metadata or {})
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
        return self._ingest(items, kb, None, progress, on_step)

    def ingest_records(self, records: Iterable[Mapping[str, Any]], kb: str) -> IngestReport:
        """Ingest text records ``{"id", "title", "text", ...metadata}`` (e.g. an evaluation corpus)."""
        docs, results = [], []
        for record in records:
            name = str(record.get("id", ""))
            try:
                doc_id = check_doc_id(name)
                text = str(record.get("text") or "").strip()
                if not text:
                    raise DocumentError("The record has no text.")
                parsed = ParsedFile("txt", (Section(text),), title_hint=record.get("title"))
                caller = {k: v for k, v in record.items() if k not in ("id", "text")}
                meta = resolve_metadata(name, parsed, kb, caller=caller)
                docs.append(SourceDoc(name, doc_id, parsed, meta, content_hash(text.encode(), meta, self.settings)))
            except EngineError as exc:
                results.append(FileResult(name, "rejected", reason=str(exc)))
        report = self._write(docs, kb, None)
        report.files[:0] = results
        return report

    # -- internals ------------------------------------------------------------
    def _ingest(self, items, kb: str, caller, progress, on_step: StepCallback | None = None) -> IngestReport:
        """Ingest (name, path or bytes or the error that rejects it, sidecar, caller metadata) items."""
        check_kb_name(kb)
        decided: dict[int, FileResult] = {}  # item index -> skipped or rejected
        to_read: list[FileItem] = []
        positions: list[int] = []
        for index, (raw_name, source, sidecar, own) in enumerate(items):
            name = safe_name(raw_name)  # stored and printed: no terminal escapes, NULs or bidi overrides
            if isinstance(source, Skipped):
                decided[index] = FileResult(name, "skipped", reason=source.reason)
            elif isinstance(source, EngineError):
                decided[index] = FileResult(name, "rejected", reason=str(source))
            elif isinstance(source, Exception):
                raise source
            else:
                to_read.append((name, source, sidecar, own if own is not None else caller))
                positions.append(index)
                continue
            if progress:
                progress(decided[index])
        docs: dict[int, SourceDoc] = {}
        for at, outcome in self.reader.read(to_read, kb):
            if isinstance(outcome, SourceDoc):
                docs[positions[at]] = outcome
                continue
            decided[positions[at]] = FileResult(to_read[at][0], "rejected", reason=str(outcome))
            if progress:
                progress(decided[positions[at]])
        report = self._write([docs[i] for i in sorted(docs)], kb, progress, on_step)
        report.files[:0] = [decided[i] for i in sorted(decided)]
        return report

    def _write(self, docs: list[SourceDoc], kb: str, progress, on_step: StepCallback | None = None) -> IngestReport:
        started = datetime.now(timezone.utc)
        report = IngestReport(kb)
        known = self.store.document_hashes(kb)
        pending: list[tuple[SourceDoc, list[Chunk], Status]] = []
        pending_chunks = 0
        seen: set[str] = set()
        for doc in docs:
            if doc.doc_id in seen:
                result = FileResult(doc.name, "rejected", doc.doc_id, reason="The same file name appears twice in this batch.")
                report.files.append(result)
                if progress:
                    progress(result)
                continue
            seen.add(doc.doc_id)
            if known.get(doc.doc_id) == doc.content_hash:
                result = FileResult(doc.name, "unchanged", doc.doc_id, doc.metadata.title,
                                    self.store.count_chunks(kb, doc.doc_id))
                report.files.append(result)
                if progress:
                    progress(result)
                continue
            chunks = list(doc.embedded.chunks) if doc.embedded else chunk_document(doc, self.settings)
            if on_step:
                on_step(IngestStep(doc.name, 0, len(chunks)))
            pending.append((doc, chunks, "replaced" if doc.doc_id in known else "added"))
            pending_chunks += len(chunks)
            if pending_chunks >= FLUSH_CHUNKS:
                self._flush(pending, kb, report, progress, on_step)
                pending, pending_chunks = [], 0
        self._flush(pending, kb, report, progress, on_step)
        # after the writes, never inside them: also repairs indexes a crashed earlier run did not build
        report.index_pending = self.store.maintain(kb).pending
        report.seconds = (datetime.now(timezone.utc) - started).total_seconds()
        return report

    def _embed(self, pending, on_step: StepCallback | None) -> tuple[list[str], list[Any], list[Any] | None]:
        """Texts and vectors of every pending chunk, embedded file by file with a step every EMBED_STEP chunks;
        with ``store_sentence_vectors``, also each chunk's sentences and their vectors (else None)."""
        texts: list[str] = []
        vectors: list[Any] = []
        sentences: list[Any] | None = [] if self.settings.store_sentence_vectors else None
        for doc, chunks, _ in pending:
            own = [search_text(doc.metadata, c.text) for c in chunks]
            made = doc.embedded is not None and (sentences is None or doc.embedded.sentences is not None)
            if made:  # the reader embedded them already
                vectors.extend(doc.embedded.vectors)
                if sentences is not None:
                    sentences.extend(doc.embedded.sentences)
                if on_step:
                    on_step(IngestStep(doc.name, len(own), len(own)))
            else:
                for start in range(0, len(own), EMBED_STEP):
                    if doc.embedded is not None:
                        vectors.extend(doc.embedded.vectors[start:start + EMBED_STEP])
                    else:
                        vectors.extend(self.store.embedder.encode(own[start:start + EMBED_STEP]))
                    if sentences is not None:
                        sentences.extend(embed_sentences(self.store.embedder,
                                                         [c.text for c in chunks[start:start + EMBED_STEP]]))
                    if on_step:
                        on_step(IngestStep(doc.name, min(start + EMBED_STEP, len(own)), len(own)))
            texts.extend(with_identifier_tokens(text) for text in own)  # keyword-indexed; embedded without them
        return texts, vectors, sentences

    def _flush(self, pending, kb: str, report: IngestReport, progress, on_step: StepCallback | None = None) -> None:
        if not pending:
            return
        texts, vectors, sentences = self._embed(pending, on_step)
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        rows, i = [], 0
        for doc, chunks, _ in pending:
            for chunk in chunks:
                rows.append(chunk_row(doc, chunk, texts[i], vectors[i], now))
                i += 1
        data = chunk_table(rows, sentences, self.store.embedder.dim)
        replaced = [doc.doc_id for doc, _, status in pending if status == "replaced"]
        self.store.write_documents(kb, data, replace_doc_ids=replaced)
        for doc, chunks, status in pending:
            result = FileResult(doc.name, status, doc.doc_id, doc.metadata.title, len(chunks),
                                warnings=doc.parsed.warnings)
            report.files.append(result)
            if progress:
                progress(result)


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
        "vector": vector.tolist(),
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
