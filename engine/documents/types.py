"""Objects produced while turning a file into chunks."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any, Literal

Format = Literal["pdf", "docx", "markdown", "html", "txt", "csv"]

SUPPORTED_EXTENSIONS: dict[str, Format] = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".md": "markdown",
    ".markdown": "markdown",
    ".html": "html",
    ".htm": "html",
    ".txt": "txt",
    ".csv": "csv",
}


@dataclass(frozen=True)
class Section:
    """A run of text from one place in a file; ``page`` is 1-based for PDFs, else None."""

    text: str
    page: int | None = None
    headed: bool = False  # Markdown: each chunk carries the headings above it (see documents.headings)


@dataclass(frozen=True)
class ParsedFile:
    """Plain text of a file, split into sections, plus what the file says about itself."""

    format: Format
    sections: tuple[Section, ...]
    embedded_meta: dict[str, Any] = field(default_factory=dict)
    title_hint: str | None = None
    encoding: str = "utf-8"
    warnings: tuple[str, ...] = ()
    """Problems that do not stop the file being indexed (e.g. a PDF with almost no text per page)."""

    @property
    def text(self) -> str:
        return "\n\n".join(s.text for s in self.sections)


@dataclass(frozen=True)
class DocumentMetadata:
    """Metadata stored with every chunk of a document."""

    title: str
    source: str
    update_date: date | None
    authority: int
    doc_type: str
    knowledge_base: str
    series: str | None = None
    revision: str | None = None
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def date_label(self) -> str:
        return self.update_date.isoformat() if self.update_date else "unknown"


@dataclass(frozen=True)
class Chunk:
    """A piece of a document sized for embedding; ``position`` counts from 0 within the document."""

    text: str
    position: int
    page: int | None = None
