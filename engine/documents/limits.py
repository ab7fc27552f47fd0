"""Limits on what reading one file may cost, and the checks that apply them before the expensive work.

A hostile or broken file must be turned away with a reason, in bounded time and memory: a ZIP (DOCX)
is judged by its directory before anything is inflated, a document's chunk count by a cheap lower
bound before it is chunked, then exactly with the chunker stopping one past the cap.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.documents.types import Section
from engine.errors import DocumentError

if TYPE_CHECKING:
    from engine.config import Settings

MB = 1024 * 1024


@dataclass(frozen=True)
class ParseLimits:
    """What reading one file may cost; defaults match the Settings defaults."""

    max_chunks: int = 10_000
    """Chunks one document may produce (at ``chunk_size``/``chunk_overlap``); 10,000 chunks of 800 characters
    is about 3,000 pages of text and takes minutes to embed on a laptop."""
    chunk_size: int = 800
    chunk_overlap: int = 120
    max_field_chars: int = 100_000
    """Characters in one CSV field (Python's csv module stops at 131,072 by default)."""
    max_metadata_chars: int = 2_000
    """Characters in one metadata value from front matter or a sidecar; it is stored with every chunk."""
    max_metadata_bytes: int = 64 * 1024
    """Size of a sidecar file or a front-matter block; real ones are a few hundred bytes."""
    max_metadata_depth: int = 5
    """Nesting of lists and mappings in metadata; values are flat (a tag list is depth 2)."""
    max_unpacked_mb: float = 200.0
    """Total uncompressed size of a DOCX package (a 50 MB DOCX of photos unpacks to about 55 MB)."""
    max_zip_ratio: float = 200.0
    """Compression ratio above which a DOCX part over 1 MB counts as a decompression bomb (Word XML packs
    10-40:1; a stream of zeros packs 1,000:1)."""
    max_zip_members: int = 10_000
    timeout_s: float = 120.0
    memory_mb: int = 2048

    def __post_init__(self) -> None:
        for name in ("max_chunks", "chunk_size", "max_field_chars", "max_metadata_chars", "max_metadata_bytes",
                     "max_metadata_depth", "max_unpacked_mb", "max_zip_ratio", "max_zip_members", "timeout_s",
                     "memory_mb"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be greater than 0")
        if not 0 <= self.chunk_overlap < self.chunk_size:
            raise ValueError("chunk_overlap must be >= 0 and smaller than chunk_size")

    @classmethod
    def from_settings(cls, settings: Settings) -> ParseLimits:
        return cls(
            max_chunks=settings.max_chunks_per_doc, chunk_size=settings.chunk_size,
            chunk_overlap=settings.chunk_overlap, max_field_chars=settings.max_field_chars,
            max_metadata_chars=settings.max_metadata_chars, max_unpacked_mb=settings.max_unpacked_mb,
            timeout_s=settings.parse_timeout_s, memory_mb=settings.parse_memory_mb,
        )


DEFAULT_LIMITS = ParseLimits()
ZIP_RATIO_MIN_BYTES = 1 * MB
"""Small parts may pack well by chance (an empty style sheet); only large ones are judged by their ratio."""


def check_zip(archive: zipfile.ZipFile, what: str, limits: ParseLimits) -> None:
    """Refuse a ZIP whose directory declares too many members, too much data or a bomb-like ratio.

    zipfile never yields more than a member's declared size, so the directory bounds what parsing can unpack.
    """
    members = archive.infolist()
    if len(members) > limits.max_zip_members:
        raise DocumentError(f"The {what} file holds {len(members):,} parts, over the limit of "
                            f"{limits.max_zip_members:,}; it is damaged or not a real {what}. Re-save it and retry.")
    total = 0
    for member in members:
        total += member.file_size
        ratio = member.file_size / max(member.compress_size, 1)
        if member.file_size > ZIP_RATIO_MIN_BYTES and ratio > limits.max_zip_ratio:
            raise DocumentError(
                f"The {what} part {member.filename} unpacks to {member.file_size / MB:,.0f} MB from "
                f"{member.compress_size / MB:,.2f} MB (ratio {ratio:,.0f}:1, limit {limits.max_zip_ratio:g}:1), as a "
                f"decompression bomb does; it was not opened. Re-save the document from its editor and retry.")
    if total > limits.max_unpacked_mb * MB:
        raise DocumentError(
            f"The {what} file unpacks to {total / MB:,.0f} MB, over the {limits.max_unpacked_mb:g} MB limit "
            "(WORKBENCH_MAX_UNPACKED_MB); it was not opened. Remove large embedded media, split the document, or "
            "raise the limit.")


def visible_chars(text: str) -> int:
    """Characters of ``text`` other than whitespace."""
    return len(text) - sum(text.count(c) for c in " \n\t\r\f\v")


def check_text_size(visible: int, limits: ParseLimits) -> None:
    """DocumentError when ``visible`` non-space characters must make more than ``limits.max_chunks`` chunks.

    A chunk holds at most ``chunk_size`` of them, so visible // chunk_size is a lower bound on the chunk count;
    a parser calls this as text accumulates, to stop reading a file that is already too big.
    """
    at_least = visible // limits.chunk_size
    if at_least > limits.max_chunks:
        raise _too_many(f"at least {at_least:,}", limits)


def check_chunk_count(sections: Iterable[Section], limits: ParseLimits) -> int:
    """The number of chunks ``sections`` make, or DocumentError when it is over ``limits.max_chunks``.

    The lower bound of ``check_text_size`` refuses a huge text before any chunking; otherwise chunking stops one
    chunk past the cap.
    """
    from engine.documents.chunking import iter_chunks

    sections = list(sections)
    check_text_size(sum(visible_chars(s.text) for s in sections), limits)
    count = 0
    for _ in iter_chunks(sections, limits.chunk_size, limits.chunk_overlap):
        count += 1
        if count > limits.max_chunks:
            raise _too_many(f"more than {limits.max_chunks:,}", limits)
    return count


def _too_many(count: str, limits: ParseLimits) -> DocumentError:
    return DocumentError(
        f"The document makes {count} chunks of {limits.chunk_size} characters, over the limit of "
        f"{limits.max_chunks:,} per document (WORKBENCH_MAX_CHUNKS_PER_DOC). Split it into smaller files, or raise "
        "the limit if it really is one document.")


def metadata_depth(value: Any) -> int:
    """How deeply lists and mappings nest in ``value`` (a scalar is 0), without recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = list(item.values())
        elif isinstance(item, (list, tuple)):
            children = list(item)
        else:
            deepest = max(deepest, depth)
            continue
        deepest = max(deepest, depth + 1)
        stack.extend((child, depth + 1) for child in children)
    return deepest
