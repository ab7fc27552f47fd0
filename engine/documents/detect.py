"""Decide a file's format from its name *and* its bytes, and decode text safely."""

from __future__ import annotations

import io
import zipfile
from pathlib import PurePath

import filetype

from engine.documents.types import SUPPORTED_EXTENSIONS, Format
from engine.errors import DocumentError

_TEXT_FORMATS: frozenset[Format] = frozenset({"markdown", "html", "txt", "csv"})


def _describe(data: bytes) -> str:
    """A short human description of what the bytes look like."""
    if not data:
        return "an empty file"
    kind = filetype.guess(data[:8192])
    if kind is not None:
        return f"a {kind.extension.upper()} file ({kind.mime})"
    if b"\x00" in data[:8192]:
        return "binary data"
    return "text"


def format_for_name(name: str) -> Format:
    """The format a file name claims, or DocumentError listing the supported extensions."""
    suffix = PurePath(name).suffix.lower()
    expected = SUPPORTED_EXTENSIONS.get(suffix)
    if expected is None:
        supported = ", ".join(sorted(SUPPORTED_EXTENSIONS))
        raise DocumentError(f"Unsupported file type {suffix or '(no extension)'!r}; upload one of {supported}.")
    return expected


def detect_format(name: str, data: bytes) -> Format:
    """Return the format for a file, or raise DocumentError when name and content disagree."""
    suffix = PurePath(name).suffix.lower()
    expected = format_for_name(name)
    if not data:
        raise DocumentError("The file is empty; upload a file with content.")
    looks_like = _describe(data)
    if expected == "pdf":
        if not data.lstrip()[:5] == b"%PDF-":
            raise DocumentError(f"The file is named .pdf but contains {looks_like}; upload a real PDF.")
        return "pdf"
    if expected == "docx":
        if not data.startswith(b"PK"):
            raise DocumentError(f"The file is named .docx but contains {looks_like}; upload a real Word (.docx) file.")
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                names = set(archive.namelist())
        except zipfile.BadZipFile:
            raise DocumentError("The DOCX file is corrupt (not a readable ZIP archive); re-save it from Word.") from None
        if "word/document.xml" not in names:
            raise DocumentError(
                "The file is named .docx but is not a Word document (no word/document.xml); "
                "save it as .docx from a word processor."
            )
        return "docx"
    # Text formats: refuse anything binary under a text extension.
    if looks_like != "text":
        raise DocumentError(f"The file is named {suffix} but contains {looks_like}; upload a plain-text file.")
    assert expected in _TEXT_FORMATS
    return expected


def decode_text(data: bytes, fallback: str | None = None) -> tuple[str, str]:
    """Decode bytes as UTF-8 (BOM allowed); try ``fallback`` if set; else raise DocumentError."""
    try:
        return data.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError as exc:
        if fallback:
            try:
                return data.decode(fallback), fallback
            except (UnicodeDecodeError, LookupError):
                pass
        raise DocumentError(
            f"The file is not valid UTF-8 (invalid byte at position {exc.start}); "
            "re-save it as UTF-8 and upload again."
        ) from None
