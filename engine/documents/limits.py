"""Limits on what reading one file may cost, and the checks that apply them before the expensive work.

A hostile or broken file must be turned away with a reason, in bounded time and memory: a ZIP (DOCX)
is judged by its directory before anything is inflated, a table by its columns and cells as its rows are
read, a document's chunk count by a cheap lower bound before it is chunked, then exactly with the chunker
stopping one past the cap, and its text's density (chunks per MB) once the chunks are counted.
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
DENSITY_MIN_CHUNKS = 1_000
"""The density cap applies to documents of more chunks than this: below it a document is cheap whatever its shape
(1,000 short chunks embed in well under a minute on two cores), and a short deck of slides is not refused."""


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
    max_columns: int = 1_000
    """Columns in one row of a table (a CSV row, a DOCX table row)."""
    max_cells: int = 1_000_000
    """Cells in all the tables of one file."""
    max_chunks_per_mb: int = 10_000
    """Chunks per MB of a document's text: full chunks of 800 characters make about 1,500; 10,000 means they
    average under 105 characters, text cut into scraps (a short line per page)."""
    density_min_chunks: int = DENSITY_MIN_CHUNKS
    timeout_s: float = 120.0
    memory_mb: int = 2048

    def __post_init__(self) -> None:
        for name in ("max_chunks", "chunk_size", "max_field_chars", "max_metadata_chars", "max_metadata_bytes",
                     "max_metadata_depth", "max_unpacked_mb", "max_zip_ratio", "max_zip_members", "max_columns",
                     "max_cells", "max_chunks_per_mb", "density_min_chunks", "timeout_s", "memory_mb"):
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
            max_columns=settings.max_columns_per_row, max_cells=settings.max_cells_per_file,
            max_chunks_per_mb=settings.max_chunks_per_mb, timeout_s=settings.parse_timeout_s,
            memory_mb=settings.parse_memory_mb,
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
    """The number of chunks ``sections`` make, or DocumentError when it is over ``limits.max_chunks`` or over
    ``limits.max_chunks_per_mb`` per MB of their text (for documents of more than ``density_min_chunks``).

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
    check_density(count, sum(len(s.text) for s in sections), limits)
    return count


def check_density(chunks: int, chars: int, limits: ParseLimits) -> None:
    """DocumentError when ``chunks`` made of ``chars`` characters of text are over ``limits.max_chunks_per_mb``."""
    if chunks <= limits.density_min_chunks or chunks <= limits.max_chunks_per_mb * chars / MB:
        return
    raise DocumentError(
        f"The document makes {chunks:,} chunks from {chars / MB:,.2f} MB of text ({chunks * MB / max(chars, 1):,.0f} "
        f"per MB; they average {chars / chunks:,.0f} characters), over the limit of {limits.max_chunks_per_mb:,} "
        "chunks per MB (WORKBENCH_MAX_CHUNKS_PER_MB): its text is cut into scraps, such as one short line per page. "
        "Export it with its text joined up (or as plain text), or raise the limit.")


def check_row_width(columns: int, row: int, what: str, limits: ParseLimits) -> None:
    """DocumentError when row ``row`` of a table in ``what`` ("the CSV") has more than ``limits.max_columns``."""
    if columns > limits.max_columns:
        raise DocumentError(
            f"Row {row:,} of {what} has {columns:,} columns, over the limit of {limits.max_columns:,} per row "
            "(WORKBENCH_MAX_COLUMNS_PER_ROW). A table this wide is data rather than a document: split it into "
            "narrower tables, transpose it, or raise the limit.")


def check_cells(cells: int, row: int, what: str, limits: ParseLimits) -> None:
    """DocumentError when the tables of ``what`` hold more than ``limits.max_cells`` cells by row ``row``."""
    if cells > limits.max_cells:
        raise DocumentError(
            f"{what[0].upper()}{what[1:]} holds more than {limits.max_cells:,} table cells (passed at row {row:,}; "
            "WORKBENCH_MAX_CELLS_PER_FILE). Split it into smaller files, or raise the limit.")


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
