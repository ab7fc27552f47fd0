"""One file made ready to write: sandboxed parse, metadata, a stable id and a content hash; then its chunks and
the text each chunk is embedded as.

Every ingest engine runs these same steps (in this process, or on Ray workers: this module imports no store,
so a worker that only reads files stays light).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.config import Settings
from engine.documents.chunking import chunk_sections
from engine.documents.detect import format_for_name
from engine.documents.files import read_regular, too_large
from engine.documents.folders import Found
from engine.documents.metadata import resolve_metadata
from engine.documents.sandbox import ParseWorker
from engine.documents.types import Chunk, DocumentMetadata, ParsedFile


@dataclass(frozen=True)
class Embedded:
    """A document's chunks and their vectors (one row each), made by the reader before the write; ``sentences``:
    per chunk, its sentences and their vectors (engine/store/sentences.py), or None when the reader made none."""

    chunks: tuple[Chunk, ...]
    vectors: Any
    sentences: Any = None


@dataclass(frozen=True)
class SourceDoc:
    """A document ready to be chunked: its identity, text and metadata (and its chunks and vectors, when the
    reader made them)."""

    name: str
    doc_id: str
    parsed: ParsedFile
    metadata: DocumentMetadata
    content_hash: str
    embedded: Embedded | None = None


FileItem = tuple[str, "Path | Found | bytes", Mapping[str, Any], "Mapping[str, Any] | None"]
"""A file to read: (safe name, a path, a file a folder walk found, or bytes; sidecar metadata; caller metadata)."""


def make_doc_id(kb: str, file_name: str) -> str:
    """Stable id from the knowledge base and file name: a readable slug plus a short hash."""
    stem = re.sub(r"[^a-z0-9]+", "-", Path(file_name).stem.lower()).strip("-")[:48] or "doc"
    digest = hashlib.sha1(f"{kb}/{file_name}".encode()).hexdigest()[:8]
    return f"{stem}-{digest}"


def content_hash(data: bytes, metadata: DocumentMetadata, settings: Settings) -> str:
    """Hash of the bytes, the metadata and the chunking settings: any change means re-ingest."""
    h = hashlib.sha256(data)
    meta = {k: (str(v) if v is not None else None) for k, v in metadata.__dict__.items()}
    h.update(json.dumps(meta, sort_keys=True).encode())
    h.update(f"{settings.chunk_size}/{settings.chunk_overlap}/{settings.embedding_model}".encode())
    return h.hexdigest()


def prepare_document(name: str, source: Path | Found | bytes, sidecar: Mapping[str, Any], kb: str,
                     caller: Mapping[str, Any] | None, reader: ParseWorker, settings: Settings) -> SourceDoc:
    """Read one file (a regular file only, size limit, sandboxed parse, metadata, hash); raises DocumentError to
    reject it. A :class:`Found` file is read only if it is still the file its folder walk found."""
    format_for_name(name)
    if isinstance(source, Found):
        data = read_regular(source.target, settings.max_file_mb, source.identity)
    elif isinstance(source, Path):
        data = read_regular(source, settings.max_file_mb)
    else:
        if len(source) > settings.max_file_bytes:
            raise too_large(len(source), settings.max_file_mb)
        data = source
    parsed = reader.parse(name, data)
    meta = resolve_metadata(name, parsed, kb, sidecar=sidecar, caller=caller)
    return SourceDoc(name, make_doc_id(kb, name), parsed, meta, content_hash(data, meta, settings))


def chunk_document(doc: SourceDoc, settings: Settings) -> list[Chunk]:
    """The chunks of a document under the chunking settings."""
    return chunk_sections(doc.parsed.sections, settings.chunk_size, settings.chunk_overlap)


def search_text(meta: DocumentMetadata, text: str) -> str:
    """What is embedded and keyword-indexed (with identifier tokens): the title gives every chunk its context."""
    return f"{meta.title}\n{text}"
